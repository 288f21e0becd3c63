"""A python step's handler at publish and at run time: one that cannot be imported is refused
with the reason, without running the user's module; one beside the workflow file runs in a
detached worker started from another folder."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from tests.e2e.cli import TERMINAL, Wfx, assert_bad_input

# Importing it leaves a file behind: publishing must not.
_HANDLERS = """
from pathlib import Path

Path(__file__).with_name("imported").touch()


def shout(input_files, output_dir, execution_id, pipeline_execution_id):
    print("handler beside the workflow ran")
"""


def _project(root: Path, handler: str, **step: str) -> Path:
    """A folder with `my_handlers.py` and a workflow file whose one python step calls `handler`."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "my_handlers.py").write_text(_HANDLERS, encoding="utf-8")
    document = {
        "databaseId": "demo",
        "workflowId": "beside",
        "steps": [
            {
                "pipelineId": "shout",
                "executionType": "python",
                "handler": handler,
                "inputFileArity": "none",
                **step,
            }
        ],
    }
    path = root / "workflow.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    return path


def test_a_handler_whose_module_is_nowhere_is_refused_at_publish(wfx: Wfx, tmp_path: Path) -> None:
    workflow = _project(tmp_path / "project", "no_such_module_anywhere:shout")

    outcome = wfx("workflows", "publish", str(workflow))

    assert_bad_input(outcome, "steps[0].handler", "shout", "no_such_module_anywhere", "not found")
    assert wfx("workflows", "show", "demo/beside").code != 0


def test_a_handler_the_module_does_not_define_is_refused_without_importing_it(
    wfx: Wfx, tmp_path: Path
) -> None:
    workflow = _project(tmp_path / "project", "my_handlers:whisper")

    outcome = wfx("workflows", "publish", str(workflow))

    assert_bad_input(outcome, "steps[0].handler", "shout", "no function whisper")
    assert not (tmp_path / "project" / "imported").exists()


@pytest.mark.parametrize("handler", ["os:", "os:sys tem", "os:path:join", "os.:system"])
def test_a_handler_no_import_could_name_is_refused_at_publish(
    wfx: Wfx, tmp_path: Path, handler: str
) -> None:
    """`os` does `from posix import *`, so its source cannot say what it lacks: the form alone
    does, where the run failed instead with an AttributeError."""
    workflow = _project(tmp_path / "project", handler)

    outcome = wfx("workflows", "publish", str(workflow))

    assert_bad_input(outcome, "steps[0]: handler: ", "package.module:function", repr(handler))
    assert wfx("workflows", "show", "demo/beside").code != 0


def test_a_handler_path_that_is_a_symbolic_link_loop_is_refused_by_name(
    wfx: Wfx, tmp_path: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "loop").symlink_to("round")
    (project / "round").symlink_to("loop")
    workflow = _project(project, "my_handlers:shout", handlerPath="loop")

    outcome = wfx("workflows", "publish", str(workflow))

    assert_bad_input(outcome, "steps[0].handlerPath", "shout", "loop", "symbolic link")
    assert wfx("workflows", "show", "demo/beside").code != 0


def test_a_handler_path_that_is_not_where_the_module_is_is_refused(
    wfx: Wfx, tmp_path: Path
) -> None:
    (tmp_path / "project" / "elsewhere").mkdir(parents=True)
    workflow = _project(tmp_path / "project", "my_handlers:shout", handlerPath="elsewhere")

    outcome = wfx("workflows", "publish", str(workflow))

    assert_bad_input(outcome, "steps[0].handler", "my_handlers", "elsewhere")


def test_a_handler_beside_the_workflow_file_runs_in_a_detached_worker(
    wfx: Wfx, tmp_path: Path
) -> None:
    workflow = _project(tmp_path / "project", "my_handlers:shout")
    wfx.ok("workflows", "publish", str(workflow))
    assert not (tmp_path / "project" / "imported").exists()
    (step,) = wfx.json("workflows", "show", "demo/beside")["version"]["steps"]
    assert step["handlerPath"] == str((tmp_path / "project").resolve())  # where it is looked for

    # wfx runs in its home, not the project folder: only the stored handlerPath finds the module
    execution_id = wfx.run_id("demo/beside", "--no-wait")
    details = wfx.wait_until(execution_id, lambda d: d["executionStatus"] in TERMINAL, seconds=40)

    assert details["executionStatus"] == "SUCCEEDED", details
    logs = wfx.ok("executions", "logs", execution_id)
    assert "handler beside the workflow ran" in logs.stdout


# What a handler gets from os.fsdecode() of a file name that is not UTF-8: a lone surrogate.
_SURROGATE_HANDLERS = """
import os


def fail_naming(input_files, output_dir, execution_id, pipeline_execution_id):
    raise RuntimeError("bad " + os.fsdecode(b"\\xff") + " name")


def print_naming(input_files, output_dir, execution_id, pipeline_execution_id):
    print("listed " + os.fsdecode(b"caf\\xe9.txt"))
"""


def _surrogate_project(root: Path, handler: str) -> Path:
    workflow = _project(root, f"surrogates:{handler}")
    (root / "surrogates.py").write_text(_SURROGATE_HANDLERS, encoding="utf-8")
    return workflow


def test_a_handler_raising_an_error_that_names_a_lone_surrogate_fails_with_its_own_error(
    wfx: Wfx, tmp_path: Path
) -> None:
    wfx.ok("workflows", "publish", str(_surrogate_project(tmp_path / "p", "fail_naming")))

    outcome = wfx("run", "demo/beside")

    assert outcome.code == 1, str(outcome)  # FAILED, as the step's own error makes it
    details = wfx.json("executions", "show", outcome.stdout.splitlines()[0])
    assert details["executionStatus"] == "FAILED"
    assert details["executionError"] == "RuntimeError: bad \\udcff name"
    (step,) = details["pipelines"]
    assert step["executionStatus"] == "FAILED"
    logs = wfx.ok("executions", "logs", details["workflowExecutionId"]).stdout
    assert "Traceback" in logs and "RuntimeError: bad \\udcff name" in logs


def test_a_handler_printing_a_lone_surrogate_succeeds_and_its_log_shows_it_escaped(
    wfx: Wfx, tmp_path: Path
) -> None:
    wfx.ok("workflows", "publish", str(_surrogate_project(tmp_path / "p", "print_naming")))

    outcome = wfx("run", "demo/beside")

    assert outcome.code == 0, str(outcome)
    execution_id = outcome.stdout.splitlines()[0]
    assert "listed caf\\udce9.txt" in wfx.ok("executions", "logs", execution_id).stdout
