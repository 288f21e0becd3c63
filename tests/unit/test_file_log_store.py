"""FileLogStore: one file per step, read back alone or as the whole run's log."""

from __future__ import annotations

import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.local.log_store import FileLogStore


@pytest.fixture
def logs(tmp_path: Path) -> FileLogStore:
    return FileLogStore(tmp_path / "logs")


def _run_log(logs: FileLogStore, workflow_execution_id: str) -> str:
    return "".join(logs.run_log_pieces(workflow_execution_id))


def test_a_run_log_longer_than_a_piece_comes_whole_in_pieces_each_log_ending_its_line(
    logs: FileLogStore,
) -> None:
    long = "".join(f"line {n} é\n" for n in range(60_000)) + "no line break"
    logs.step_log_path("exec-1", "long").write_text(long, encoding="utf-8")
    logs.step_log_path("exec-1", "short").write_text("short", encoding="utf-8")

    pieces = list(logs.run_log_pieces("exec-1"))

    assert len(pieces) > 3
    assert "".join(pieces) == (
        f"===== pipeline execution long =====\n{long}\n"
        "===== pipeline execution short =====\nshort\n"
    )


def test_a_step_log_lives_under_the_run_folder_which_is_created(
    logs: FileLogStore, tmp_path: Path
) -> None:
    path = logs.step_log_path("exec-1", "pipe-1")

    assert path == tmp_path / "logs" / "exec-1" / "pipe-1.log"
    assert path.parent.is_dir()


def test_a_step_log_is_read_back_as_written(logs: FileLogStore) -> None:
    logs.step_log_path("exec-1", "pipe-1").write_text("hello\nworld\n", encoding="utf-8")

    assert "".join(logs.step_log_pieces("exec-1", "pipe-1")) == "hello\nworld\n"


def test_a_missing_step_log_reads_as_empty(logs: FileLogStore) -> None:
    assert "".join(logs.step_log_pieces("exec-1", "never-ran")) == ""
    assert _run_log(logs, "no-such-run") == ""


def test_the_run_log_holds_every_step_oldest_first_each_under_its_header(
    logs: FileLogStore,
) -> None:
    # written within one file-time tick, in an order that no name sort would give
    for step, text in (("zeta", "first step\n"), ("alpha", "second step"), ("mid", "third\n")):
        logs.step_log_path("exec-1", step).write_text(text, encoding="utf-8")

    assert _run_log(logs, "exec-1") == (
        "===== pipeline execution zeta =====\nfirst step\n"
        "===== pipeline execution alpha =====\nsecond step\n"
        "===== pipeline execution mid =====\nthird\n"
    )


def test_a_step_asked_for_again_keeps_its_place_in_the_run_log(
    logs: FileLogStore, tmp_path: Path
) -> None:
    logs.step_log_path("exec-1", "one").write_text("1\n")
    logs.step_log_path("exec-1", "two").write_text("2\n")
    # a redrive in a fresh process asks for the first step's log again
    again = FileLogStore(tmp_path / "logs")
    with again.step_log_path("exec-1", "one").open("a") as log:
        log.write("1 again\n")

    run_log = _run_log(again, "exec-1")

    assert run_log.index("one =====") < run_log.index("two =====")
    assert "1\n1 again\n" in run_log


def test_a_step_that_never_wrote_its_log_is_left_out_of_the_run_log(logs: FileLogStore) -> None:
    logs.step_log_path("exec-1", "silent")
    logs.step_log_path("exec-1", "talks").write_text("hi\n")

    assert _run_log(logs, "exec-1") == "===== pipeline execution talks =====\nhi\n"


def test_logs_of_other_runs_are_not_part_of_a_run_log(logs: FileLogStore) -> None:
    logs.step_log_path("exec-1", "a").write_text("mine\n")
    logs.step_log_path("exec-2", "b").write_text("theirs\n")

    assert "theirs" not in _run_log(logs, "exec-1")


@pytest.mark.parametrize("bad", ["", "..", "a/b", "a\\b"])
def test_an_id_that_is_not_one_path_segment_is_refused(logs: FileLogStore, bad: str) -> None:
    with pytest.raises(ValueError, match="single path segment"):
        logs.step_log_path("exec-1", bad)
    with pytest.raises(ValueError, match="single path segment"):
        list(logs.run_log_pieces(bad))


@settings(max_examples=50, deadline=None)
@given(
    bodies=st.dictionaries(
        st.sampled_from(["a", "b", "step-3", "zeta"]), st.text(max_size=40), max_size=4
    ),
    asked=st.lists(st.sampled_from(["a", "b", "step-3", "zeta", "never"]), max_size=5),
)
def test_the_run_s_listed_step_logs_are_those_written_each_streamed_as_read_alone(
    bodies: dict[str, str], asked: list[str]
) -> None:
    with tempfile.TemporaryDirectory() as root:
        logs = FileLogStore(Path(root))
        for step, body in bodies.items():
            logs.step_log_path("exec-1", step).write_text(body, encoding="utf-8")
        # a handed-out log never written is no log
        logs.step_log_path("exec-1", "never")

        listed = logs.step_log_ids("exec-1")

        assert sorted(listed) == sorted(bodies)
        for step in asked:
            # as a text-mode read gives the body: universal newlines
            body = bodies.get(step, "").replace("\r\n", "\n").replace("\r", "\n")
            assert "".join(logs.step_log_pieces("exec-1", step)) == body
        assert logs.step_log_ids("no-such-run") == []
