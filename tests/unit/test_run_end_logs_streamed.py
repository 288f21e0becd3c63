"""A run's end reads its logs a piece at a time: the step summaries' tails and the run log it
stores are what the whole-text code made of them, however the logs are cut into pieces."""

from __future__ import annotations

import tempfile
from itertools import pairwise
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from adapters.local.object_store import FilesystemObjectStore
from application.ports.files import ObjectStore
from application.run_log import MAX_STORED_LOG_BYTES, fit_run_log, log_tail
from domain.execution import execution_log_key
from domain.redaction import redact, redacted_pieces
from tests import planted_secrets
from tests.planted_secrets import Plant


def _pieces(text: str, cuts: list[int]) -> list[str]:
    bounds = [0, *sorted(cut for cut in set(cuts) if 0 < cut < len(text)), len(text)]
    return [text[start:end] for start, end in pairwise(bounds)]


def _whole_text_fit(objects: ObjectStore, run_id: str, text: str) -> tuple[str, str | None]:
    """The run log's fit as the end made it before it was streamed (the reference)."""
    log = redact(text)
    body = log.encode("utf-8")
    if len(body) <= MAX_STORED_LOG_BYTES:
        return log, None
    stored = objects.put_bytes(execution_log_key(run_id), body)
    return body[-MAX_STORED_LOG_BYTES:].decode("utf-8", errors="ignore"), stored.key


@settings(max_examples=300)
@given(
    planted_secrets.embedded(),
    st.integers(min_value=0, max_value=400),
    st.lists(st.integers(min_value=0, max_value=600)),
    st.sampled_from(["", "\n", "\nafter\n", "no line break", "\r\n"]),
)
def test_a_text_redacted_in_pieces_is_joined_exactly_what_redact_makes_of_it_whole(
    plant: Plant, start: int, cuts: list[int], end: str
) -> None:
    # from anywhere: a key block may have lost its BEGIN, or its END
    text = plant.text[start:] + end
    assert "".join(redacted_pieces(_pieces(text, cuts))) == redact(text)


@settings(max_examples=300)
@given(
    planted_secrets.embedded(),
    st.integers(min_value=0, max_value=400),
    st.lists(st.integers(min_value=0, max_value=600)),
    st.integers(min_value=1, max_value=120),
)
def test_a_step_log_s_tail_kept_piece_by_piece_is_the_whole_log_s_tail(
    plant: Plant, start: int, cuts: list[int], characters: int
) -> None:
    # the summary keeps the log's raw tail and its row is redacted as it is built: the same
    # tail is the same summary, a key block cut by the tail's start included
    text = plant.text[start:]
    tail = log_tail(_pieces(text, cuts), characters)
    assert tail == text[-characters:]
    assert redact(f"step: SUCCEEDED\n{tail}") == redact(f"step: SUCCEEDED\n{text[-characters:]}")


_FILLER = "plain line é ✓ 𝄞 of a step's output\n"


@settings(max_examples=40, deadline=None)
@given(
    st.lists(planted_secrets.embedded(), max_size=3),
    st.integers(min_value=-300, max_value=300),
    st.integers(min_value=0, max_value=2),
    st.lists(st.integers(min_value=0, max_value=3 * MAX_STORED_LOG_BYTES), max_size=8),
)
def test_the_run_log_streamed_to_the_object_store_is_stored_and_cut_as_it_was_whole(
    plants: list[Plant], off_the_bound: int, repeats: int, cuts: list[int]
) -> None:
    # near the row's bound, past it and well past it, multi-byte characters where the tail
    # is cut, secrets before, across and after the cut
    size = MAX_STORED_LOG_BYTES * (1 + repeats) + off_the_bound
    filler = (_FILLER * (size // len(_FILLER) + 1)).encode()[:size].decode(errors="ignore")
    secrets = [plant.text for plant in plants]
    half = len(filler) // 2
    text = filler[:half] + "\n".join(["", *secrets, ""]) + filler[half:]
    with tempfile.TemporaryDirectory() as root:
        streamed = FilesystemObjectStore(Path(root) / "streamed")
        whole = FilesystemObjectStore(Path(root) / "whole")

        tail, key = fit_run_log(streamed, "exec-1", _pieces(text, cuts))
        expected_tail, expected_key = _whole_text_fit(whole, "exec-1", text)

        assert (tail, key) == (expected_tail, expected_key)
        if key is not None:
            assert streamed.read_bytes(key) == whole.read_bytes(key)
        else:
            assert streamed.list_latest("executions/") == []


def test_a_run_log_of_no_pieces_is_stored_as_redact_makes_the_empty_text(tmp_path: Path) -> None:
    # the steps of most runs write nothing: the log is what a text of nothing fits to
    objects = FilesystemObjectStore(tmp_path / "objects")
    assert fit_run_log(objects, "exec-1", iter(())) == _whole_text_fit(objects, "exec-1", "")
    assert fit_run_log(objects, "exec-1", ["", ""]) == ("", None)
    assert objects.list_latest("executions/") == []
