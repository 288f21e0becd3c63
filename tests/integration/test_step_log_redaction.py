"""Step log files hold no secret: a real command step's stdout and stderr, a python step's prints.

Each example runs a real step (a subprocess for a command) and then reads the file as bytes.
"""

from __future__ import annotations

import io
import itertools
import sys
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from adapters.local.redacted_output import RedactedStream
from adapters.local.step_execution import (
    StepFailedError,
    StepRun,
    run_command_step,
    run_python_step,
)
from domain.redaction import REDACTED, redact
from tests import planted_secrets
from tests.planted_secrets import Plant

pytestmark = pytest.mark.integration
MODULE = __name__
# What the python step below prints, and in how many pieces (set by each example).
_to_print: list[str] = []
_SLOW = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _step(folder: Path) -> StepRun:
    return StepRun(
        workflow_execution_id="exec-1",
        pipeline_execution_id="step-1",
        input_files=(),
        output_dir=str(folder),
        run_dir=str(folder / "run"),
        log_path=lambda: folder / "step-1.log",
    )


def _logged(folder: Path) -> bytes:
    path = folder / "step-1.log"
    return path.read_bytes() if path.exists() else b""


def printing_step(**_: object) -> None:
    # both streams of a python step go to its one log, through one redactor
    for index, piece in enumerate(_to_print):
        (sys.stdout if index % 2 else sys.stderr).write(piece)
        sys.stdout.flush()


def failing_step(**_: object) -> None:
    print("".join(_to_print))
    raise RuntimeError("".join(_to_print))


def _assert_clean(plant: Plant, *texts: str) -> None:
    for text in texts:
        for secret in plant.secrets:
            assert secret not in text, plant.kind


_TWO_TAILS = Plant(  # found by CI (12-07): the two copies' last lines joined are the secret
    kind="jwt",
    text=" eyJ0000000000000000.eyJ000000000000000000000000.00000000000000000000000000000000\n"
    + "0" * 16,
    secrets=("eyJ000000000000000000000000", "0" * 32),
)


@_SLOW
@given(planted_secrets.embedded(), st.sampled_from(("stdout", "stderr", "both")))
@example(_TWO_TAILS, "stdout")
@example(_TWO_TAILS, "both")
def test_a_command_steps_log_and_error_hold_no_secret(plant: Plant, where: str) -> None:
    if where == "both":
        # the two redacted copies meet in one file, their lines interleaved: a last line without
        # its newline is followed by any line of the other copy (its head, or its own last
        # line: two 16-zero tails spell a 32-zero "signature"), and such a pair must not spell
        # a secret itself
        lines = redact(plant.text).splitlines(keepends=True)
        pairs = [a + b for a in lines if not a.endswith("\n") for b in lines]
        assume(not any(secret in pair for pair in pairs for secret in plant.secrets))
    script = (
        "import sys\n"
        f"text = {plant.text!r}\n"
        f"if {where!r} in ('stdout', 'both'): sys.stdout.write(text); sys.stdout.flush()\n"
        f"if {where!r} in ('stderr', 'both'): sys.stderr.write(text)\n"
        "sys.exit(3)\n"
    )
    with tempfile.TemporaryDirectory() as folder:
        with pytest.raises(StepFailedError) as failed:
            run_command_step(("{python}", "-c", script), _step(Path(folder)))
        logged = _logged(Path(folder)).decode("utf-8")
    _assert_clean(plant, logged, str(failed.value))
    if where != "both":
        # one stream: the file is what redact() makes of it; with two, their lines interleave
        # and a reader's redaction may merge two key blocks into one (hiding more, never less)
        assert logged == redact(plant.text)


@_SLOW
@given(planted_secrets.embedded(), st.lists(st.integers(min_value=0, max_value=400)))
def test_a_python_steps_log_holds_no_secret_however_it_prints(
    plant: Plant, cuts: list[int]
) -> None:
    edges = sorted({0, len(plant.text), *(cut for cut in cuts if cut < len(plant.text))})
    _to_print[:] = [plant.text[a:b] for a, b in itertools.pairwise(edges)]
    with tempfile.TemporaryDirectory() as folder:
        run_python_step(f"{MODULE}:printing_step", _step(Path(folder)))
        logged = _logged(Path(folder)).decode("utf-8")
    _assert_clean(plant, logged)
    assert logged == redact(plant.text)


@_SLOW
@given(planted_secrets.embedded())
def test_a_failing_python_steps_traceback_is_redacted_too(plant: Plant) -> None:
    _to_print[:] = [plant.text]
    with tempfile.TemporaryDirectory() as folder:
        with pytest.raises(StepFailedError):
            run_python_step(f"{MODULE}:failing_step", _step(Path(folder)))
        logged = _logged(Path(folder)).decode("utf-8")
    if plant.kind != "pem cut":  # a key block that never ends hides the traceback after it too
        assert "RuntimeError" in logged
    _assert_clean(plant, logged)


def test_a_key_block_split_between_stdout_lines_is_one_placeholder_in_the_log(
    tmp_path: Path,
) -> None:
    script = (
        "import sys, time\n"
        "print('-----BEGIN RSA PRIVATE KEY-----', flush=True)\n"
        "for i in range(5): print('MIIEow' + str(i) * 58, flush=True); time.sleep(0.01)\n"
        "print('-----END RSA PRIVATE KEY-----')\n"
        "print('done', file=sys.stderr)\n"
    )
    run_command_step(("{python}", "-c", script), _step(tmp_path))
    lines = _logged(tmp_path).decode().splitlines()
    assert sorted(lines) == sorted(
        ["-----BEGIN RSA PRIVATE KEY-----", REDACTED, "-----END RSA PRIVATE KEY-----", "done"]
    )


def test_a_silent_python_step_leaves_no_log_file(tmp_path: Path) -> None:
    _to_print[:] = []
    run_python_step(f"{MODULE}:printing_step", _step(tmp_path))
    assert not (tmp_path / "step-1.log").exists()


def test_the_workers_own_output_is_redacted_line_by_line() -> None:
    target = io.StringIO()
    stream = RedactedStream(target)
    stream.write("connecting to postgres://admin:")
    assert target.getvalue() == ""  # half a line might be half a secret
    stream.write("s3cr3t@db/x\npartial")
    stream.close()
    assert target.getvalue() == f"connecting to postgres://admin:{REDACTED}@db/x\npartial"
