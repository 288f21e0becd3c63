"""A document nested deeper than Python reads (a workflow file's YAML, a line of an export
file, a v1 items file, a rate card) is refused as any other bad document: one line naming the
file or the line and the rule, never a RecursionError's traceback; nothing of it is stored. A
step's metadata file so nested is kept as an output file, as any malformed one is."""

from __future__ import annotations

import pytest

from tests.e2e.cli import Wfx, assert_bad_input

DEPTH = 5000


def test_a_workflow_file_nested_too_deeply_is_refused_by_name(wfx: Wfx) -> None:
    file = wfx.home / "deep.yaml"
    nested = "[" * DEPTH + "]" * DEPTH
    file.write_text(f"databaseId: demo\nworkflowId: deep\nsteps: {nested}\n", encoding="utf-8")
    assert_bad_input(wfx("workflows", "publish", str(file)), "FILE", str(file), "nested")
    assert wfx.json("workflows", "list")["Items"] == []


def test_an_export_line_nested_too_deeply_rejects_its_run_alone(wfx: Wfx) -> None:
    wfx.publish_command_step("noop", "pass")
    run = wfx.run_id("demo/noop")
    file = wfx.home / "runs.jsonl"
    wfx.ok("export", "--to", str(file))
    header, *lines = file.read_text(encoding="utf-8").splitlines()
    deep = '{"run": "' + "f" * 32 + '", "item": ' + "[" * DEPTH + "]" * DEPTH + "}"
    file.write_text("\n".join([header, deep, *lines]) + "\n", encoding="utf-8")

    other = wfx.in_home(wfx.home / "other")
    outcome = other("import", str(file))
    assert outcome.code == 1, str(outcome)
    assert "Traceback" not in outcome.stderr, str(outcome)
    (rejected,) = [line for line in outcome.stderr_lines if line.startswith("error: ")]
    assert rejected.startswith("error: line 2: "), rejected
    assert "nested" in rejected, rejected
    assert other.listed_ids() == [run]


def test_a_v1_items_file_nested_too_deeply_is_refused_by_name(wfx: Wfx) -> None:
    file = wfx.home / "items.json"
    file.write_text("[" * DEPTH + "]" * DEPTH, encoding="utf-8")
    outcome = wfx("migrate", "v1", "--from-file", str(file), "--offline")
    assert_bad_input(outcome, "--from-file", str(file), "nested")


@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_a_rate_card_nested_too_deeply_is_refused_naming_the_file(wfx: Wfx, suffix: str) -> None:
    card = wfx.home / f"card{suffix}"
    card.write_text('{"rates": ' + "[" * DEPTH + "]" * DEPTH + "}", encoding="utf-8")
    wfx.publish_command_step("noop", "pass")
    outcome = wfx.with_environment(WFX_RATE_CARD=str(card))("run", "demo/noop")
    assert outcome.code in (2, 3), str(outcome)
    (line,) = outcome.stderr_lines
    assert line.startswith(f"error: {card}: nested"), line


def test_a_step_metadata_file_nested_too_deeply_is_kept_as_an_output_file(wfx: Wfx) -> None:
    """As any malformed metadata file is: the run does not fail on it."""
    wfx.publish_command_step(
        "deep-metadata",
        "import os; d = os.path.join(os.environ['WFX_OUTPUT_DIR'], 'metadata'); "
        "os.makedirs(d); open(os.path.join(d, 'x.json'), 'w').write("
        f"'{{\"k\": ' + '[' * {DEPTH} + ']' * {DEPTH} + '}}')",
    )
    run = wfx.run_id("demo/deep-metadata")
    shown = wfx.json("executions", "show", run)
    assert shown["executionStatus"] == "SUCCEEDED", shown
    (step,) = shown["pipelines"]
    assert "metadata/x.json" in str(step), step
