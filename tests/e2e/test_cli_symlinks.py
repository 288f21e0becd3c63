"""Symbolic links in a step's outputs and in an imported folder are never followed out of it."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.cli import Wfx

OUTSIDE = Path("/etc/passwd")  # readable by everyone, and what outside testing linked to
# What a step leaves in its output folder: link name -> link text (None: a regular file).
STEP_LEAVES: dict[str, str | None] = {
    "report.txt": None,
    "latest.txt": "report.txt",  # inside the folder: recorded with report.txt's content
    "passwd": str(OUTSIDE),
    "shadow": "../../../../../../../../../../etc/shadow",  # relative, climbing out
    "broken": "does-not-exist",
    "etc": "/etc",  # a folder outside
    "nested/self": "..",  # a folder inside: never walked into twice
}
REFUSED = ("passwd", "shadow", "broken", "etc", "nested/self")
STEP = """
import os, pathlib
out = pathlib.Path(os.environ["WFX_OUTPUT_DIR"])
(out / "nested").mkdir(exist_ok=True)
for name, target in {leaves!r}.items():
    if target is None:
        (out / name).write_text("the report")
    else:
        os.symlink(target, out / name)
"""


def _stored_bodies(home: Path) -> list[bytes]:
    """Every body in the object store, links included (there should be none)."""
    bodies = []
    for folder, _, names in os.walk(home / "objects"):
        for name in names:
            path = Path(folder, name)
            assert not path.is_symlink(), path
            bodies.append(path.read_bytes())
    return bodies


@pytest.fixture
def linked_run(wfx: Wfx) -> tuple[Wfx, str, dict[str, Any]]:
    wfx.publish_command_step("links", STEP.format(leaves=STEP_LEAVES))
    execution_id = wfx.run_id("demo/links", "--output", "demo/results")
    return wfx, execution_id, wfx.json("executions", "show", execution_id)


def test_output_links_leading_out_are_refused_and_only_real_files_recorded(
    linked_run: tuple[Wfx, str, dict[str, Any]],
) -> None:
    wfx, _, details = linked_run

    recorded = {row["relativeFilePath"] for row in details["outputs"]["files"]}
    assert recorded == {"report.txt", "latest.txt"}
    assert OUTSIDE.read_bytes() not in _stored_bodies(wfx.home)
    assert _stored_bodies(wfx.home).count(b"the report") == 4  # 2 outputs, 2 asset versions


def test_each_refused_output_link_is_named_in_the_step_log(
    linked_run: tuple[Wfx, str, dict[str, Any]],
) -> None:
    wfx, execution_id, _ = linked_run

    log = wfx.ok("executions", "logs", execution_id).stdout

    warnings = [line for line in log.splitlines() if line.startswith("warning: output ")]
    assert len(warnings) == len(REFUSED), log
    for name in REFUSED:
        assert any(f"output {name} is a symbolic link" in line for line in warnings), name
    assert "outside the output folder" in log
    assert "latest.txt" not in log


def test_a_redrive_replaces_a_link_in_the_way_of_a_stored_output_without_writing_through_it(
    wfx: Wfx, tmp_path: Path
) -> None:
    victim, marker = tmp_path / "victim.txt", tmp_path / "failed-once"
    victim.write_text("untouched")
    first = 'import os; open(os.environ["WFX_OUTPUT_DIR"] + "/report.txt", "w").write("stored")'
    # the first attempt swaps the recorded report for a link out, then fails
    second = f"""
import os, sys
if not os.path.exists({str(marker)!r}):
    open({str(marker)!r}, "w").close()
    report = os.environ["WFX_OUTPUT_DIR"] + "/report.txt"
    os.remove(report)
    os.symlink({str(victim)!r}, report)
    sys.exit(1)
"""
    _publish_two_commands(wfx, "swap", first, second)
    execution_id = wfx.run_id("demo/swap", expect_code=1)

    redriven = wfx("executions", "redrive", execution_id)

    assert redriven.code == 0, str(redriven)
    assert victim.read_text() == "untouched"
    report = wfx.home / "outputs" / execution_id / "report.txt"
    assert not report.is_symlink() and report.read_text() == "stored"


def _publish_two_commands(wfx: Wfx, workflow_id: str, first: str, second: str) -> None:
    import sys

    import yaml

    steps = [
        {
            "pipelineId": f"step-{index}",
            "executionType": "command",
            "command": [sys.executable, "-c", code],
            "inputFileArity": "none",
        }
        for index, code in enumerate((first, second), start=1)
    ]
    path = wfx.home / f"{workflow_id}.yaml"
    document = {"databaseId": "demo", "workflowId": workflow_id, "steps": steps}
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


def test_importing_a_folder_skips_links_leading_out_with_a_warning_and_imports_the_rest(
    wfx: Wfx, tmp_path: Path
) -> None:
    folder = tmp_path / "scans"
    (folder / "nested").mkdir(parents=True)
    (folder / "bunny.obj").write_text("v 0 0 0\n")
    (folder / "latest.obj").symlink_to("bunny.obj")
    (folder / "nested" / "passwd").symlink_to(OUTSIDE)
    (folder / "shadow").symlink_to("../../../../../../../../../../etc/shadow")
    (folder / "broken").symlink_to("missing.obj")
    (folder / "etc").symlink_to("/etc")

    outcome = wfx("assets", "import", "demo", "scans", str(folder))

    assert outcome.code == 0, str(outcome)
    imported = sorted(line.split()[0] for line in outcome.stdout.splitlines())
    assert imported == ["demo/scans/bunny.obj", "demo/scans/latest.obj"]
    assert all(line.startswith("warning: ") for line in outcome.stderr_lines), str(outcome)
    assert len(outcome.stderr_lines) == 4, str(outcome)
    for name in ("nested/passwd", "shadow", "broken", "etc"):
        assert any(f"{folder / name} is a symbolic link" in line for line in outcome.stderr_lines)
    assert OUTSIDE.read_bytes() not in _stored_bodies(wfx.home)
    assert _stored_bodies(wfx.home).count(b"v 0 0 0\n") == 2


def test_a_file_named_on_the_command_line_is_imported_through_its_link(
    wfx: Wfx, tmp_path: Path
) -> None:
    (tmp_path / "v2.obj").write_text("v 1 1 1\n")
    (tmp_path / "latest.obj").symlink_to(tmp_path / "v2.obj")

    outcome = wfx.ok("assets", "import", "demo", "scans", str(tmp_path / "latest.obj"))

    assert outcome.stdout.startswith("demo/scans/latest.obj  version ")
    assert _stored_bodies(wfx.home) == [b"v 1 1 1\n"]
