"""The `register` keyword of python steps: given only to a handler that names it, so handlers
written before it keep working unchanged. (The register callable here records its calls; the whole
path, runner to bus to store, runs in features/registration.feature.)"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import pytest

from adapters.local.step_execution import StepRun, run_python_step

MODULE = __name__
calls: list[dict[str, Any]] = []


def with_register(
    input_files: Sequence[str],
    output_dir: str,
    execution_id: str,
    pipeline_execution_id: str,
    register: Callable[..., Any],
) -> None:
    calls.append({"register": register(logs=[{"logGroupName": "/g"}])})


def with_keyword_only_register(
    *,
    input_files: Sequence[str],
    output_dir: str,
    execution_id: str,
    pipeline_execution_id: str,
    register: Callable[..., Any] | None = None,
) -> None:
    calls.append({"register": register})


def without_register(
    input_files: Sequence[str], output_dir: str, execution_id: str, pipeline_execution_id: str
) -> None:
    calls.append({"ids": (execution_id, pipeline_execution_id)})


def with_other_keywords(**keywords: Any) -> None:
    calls.append({"keywords": sorted(keywords)})


@pytest.fixture(autouse=True)
def _forget_calls() -> None:
    calls.clear()


def _step(tmp_path: Path, register: Callable[..., object] | None) -> StepRun:
    return StepRun(
        workflow_execution_id="e1",
        pipeline_execution_id="p1",
        input_files=(),
        output_dir=str(tmp_path),
        run_dir=str(tmp_path / "run"),
        log_path=lambda: tmp_path / "step.log",
        register=register,
    )


def _recording_registrar(seen: list[dict[str, Any]]) -> Callable[..., str]:
    def register(**entries: Any) -> str:
        seen.append(entries)
        return "accepted"

    return register


def test_a_handler_that_names_register_is_given_it_and_gets_its_outcome(tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    run_python_step(f"{MODULE}:with_register", _step(tmp_path, _recording_registrar(seen)))

    assert seen == [{"logs": [{"logGroupName": "/g"}]}]
    assert calls == [{"register": "accepted"}]


def test_a_keyword_only_register_is_given_too(tmp_path: Path) -> None:
    registrar = _recording_registrar([])

    run_python_step(f"{MODULE}:with_keyword_only_register", _step(tmp_path, registrar))

    assert calls == [{"register": registrar}]


@pytest.mark.parametrize(
    ("handler", "expected"),
    [
        ("without_register", {"ids": ("e1", "p1")}),
        (
            "with_other_keywords",
            {"keywords": ["execution_id", "input_files", "output_dir", "pipeline_execution_id"]},
        ),
    ],
)
def test_a_handler_that_does_not_name_register_is_called_as_before(
    tmp_path: Path, handler: str, expected: dict[str, Any]
) -> None:
    run_python_step(f"{MODULE}:{handler}", _step(tmp_path, _recording_registrar([])))

    assert calls == [expected]


def test_without_a_registrar_a_handler_that_names_register_gets_its_default(
    tmp_path: Path,
) -> None:
    run_python_step(f"{MODULE}:with_keyword_only_register", _step(tmp_path, None))

    assert calls == [{"register": None}]
