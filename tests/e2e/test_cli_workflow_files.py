"""What a careless author hands `wfx workflows publish` as its FILE: a FIFO, a device, a file far
larger than any workflow, a mapping naming one key twice. Each is refused at once, on one line
naming the file (and the key) and the rule; nothing is stored."""

from __future__ import annotations

import os

import pytest

from tests.e2e.cli import Wfx, assert_bad_input

WORKFLOW = """\
databaseId: demo
workflowId: files
steps:
  - pipelineId: only
    executionType: command
    command: ["echo", "one"]
"""


def _nothing_published(wfx: Wfx) -> None:
    assert wfx.json("workflows", "list")["Items"] == []


def test_a_fifo_is_refused_at_once_instead_of_waiting_for_a_writer(wfx: Wfx) -> None:
    fifo = wfx.home / "workflow.yaml"
    os.mkfifo(fifo)
    outcome = wfx("workflows", "publish", str(fifo), timeout=15)
    assert_bad_input(outcome, "FILE", str(fifo), "not a regular file")
    _nothing_published(wfx)


def test_a_device_is_refused_at_once_instead_of_read_without_end(wfx: Wfx) -> None:
    outcome = wfx("workflows", "publish", "/dev/zero", timeout=15)
    assert_bad_input(outcome, "FILE", "/dev/zero", "not a regular file")
    _nothing_published(wfx)


def test_a_file_larger_than_any_workflow_is_refused_unread(wfx: Wfx) -> None:
    big = wfx.home / "big.yaml"
    big.write_text(WORKFLOW + "# padding\n", encoding="utf-8")
    with big.open("r+b") as file:  # sparse: 50 MB on the file's size, none on the disk
        file.truncate(50 * 1024 * 1024)
    outcome = wfx("workflows", "publish", str(big), timeout=15)
    assert_bad_input(outcome, "FILE", str(big), "larger than")
    assert outcome.seconds < 10, str(outcome)
    _nothing_published(wfx)


@pytest.mark.parametrize(
    ("text", "key", "line"),
    [
        (WORKFLOW + '    command: ["echo", "two"]\n', "command", "line 7"),
        (WORKFLOW.replace("steps:", "workflowId: other\nsteps:"), "workflowId", "line 3"),
    ],
    ids=["in-a-step", "at-the-top"],
)
def test_a_key_given_twice_is_refused_not_the_later_one_kept(
    wfx: Wfx, text: str, key: str, line: str
) -> None:
    file = wfx.home / "twice.yaml"
    file.write_text(text, encoding="utf-8")
    outcome = wfx("workflows", "publish", str(file))
    assert_bad_input(outcome, "FILE", str(file), repr(key), "twice", line)
    _nothing_published(wfx)


def test_a_key_overriding_what_a_merge_key_brought_is_not_a_key_given_twice(wfx: Wfx) -> None:
    file = wfx.home / "merged.yaml"
    file.write_text(
        "databaseId: demo\n"
        "workflowId: merged\n"
        "defaults: &defaults {executionType: command, command: [echo, default]}\n"
        "steps:\n"
        "  - <<: *defaults\n"
        "    pipelineId: only\n"
        "    command: [echo, own]\n",
        encoding="utf-8",
    )
    outcome = wfx("workflows", "publish", str(file))
    # the anchor's holder is an unknown key: refused for that, and for nothing else
    assert_bad_input(outcome, "defaults: unknown key")
    assert "twice" not in outcome.stderr


def test_a_byte_order_mark_is_read_as_the_start_of_utf_8_text(wfx: Wfx) -> None:
    file = wfx.home / "bom.yaml"
    file.write_bytes(b"\xef\xbb\xbf" + WORKFLOW.encode())
    wfx.ok("workflows", "publish", str(file))
    [step] = wfx.json("workflows", "show", "demo/files")["version"]["steps"]
    assert step["command"] == ["echo", "one"]


def test_a_small_file_whose_aliases_repeat_a_long_command_past_what_a_version_holds_is_refused(
    wfx: Wfx,
) -> None:
    """An anchor repeats its text for the price of its name: 21 steps of one 240 KB command from
    a 240 KB file, 5 MB of steps where one publish (one DynamoDB transaction) holds 4 MB."""
    argument = "x" * 2000
    steps = "".join(
        f"  - {{pipelineId: s{index}, executionType: command, command: *long}}\n"
        for index in range(20)
    )
    file = wfx.home / "aliases.yaml"
    file.write_text(
        f"databaseId: demo\nworkflowId: aliases\nsteps:\n"
        f"  - pipelineId: first\n    executionType: command\n"
        f"    command: &long [echo, {', '.join([argument] * 119)}]\n{steps}",
        encoding="utf-8",
    )
    assert file.stat().st_size < 300_000
    outcome = wfx("workflows", "publish", str(file))
    assert_bad_input(outcome, "steps: ", "bytes together", "one transaction")
    _nothing_published(wfx)


@pytest.mark.parametrize(
    ("fields", "named"),
    [
        (
            "executionType: approval\n    approvers: [bob]\n    timeoutSeconds: yes",
            "timeoutSeconds",
        ),
        (
            "executionType: command\n    command: [echo]\n    retry: {maxAttempts: on}",
            "retry.maxAttempts",
        ),
        (
            "executionType: command\n    command: [echo]\n    retry: {backoffRate: true}",
            "retry.backoffRate",
        ),
    ],
    ids=["timeout", "attempts", "backoff"],
)
def test_a_yes_or_on_where_a_number_goes_is_refused_not_read_as_1(
    wfx: Wfx, fields: str, named: str
) -> None:
    """YAML 1.1 reads `yes`, `on`, `true` as true, which Python counts as 1: a gate timing out
    after one second, one attempt where the author meant to turn retries on."""
    file = wfx.home / "truth.yaml"
    file.write_text(
        f"databaseId: demo\nworkflowId: truth\nsteps:\n  - pipelineId: only\n    {fields}\n",
        encoding="utf-8",
    )
    outcome = wfx("workflows", "publish", str(file))
    assert_bad_input(outcome, f"steps[0].{named}: ", "a number", "true")
    _nothing_published(wfx)


def test_a_file_breaking_rules_by_the_thousand_gets_a_line_naming_the_first_and_counting_them(
    wfx: Wfx,
) -> None:
    file = wfx.home / "keys.yaml"
    file.write_text(WORKFLOW + "".join(f"k{index}: 1\n" for index in range(5000)), encoding="utf-8")

    outcome = wfx("workflows", "publish", str(file))

    assert_bad_input(outcome, "k0: unknown key", "and 4990 more")
    assert len(outcome.stderr) < 1000, len(outcome.stderr)
    _nothing_published(wfx)


@pytest.mark.parametrize(
    ("written", "read"),
    [("010", "8"), ("0777", "511"), ("1:30", "90")],
    ids=["octal", "octal-too", "base-60"],
)
def test_a_number_yaml_1_1_reads_otherwise_than_it_is_written_is_refused(
    wfx: Wfx, written: str, read: str
) -> None:
    """YAML 1.1 (PyYAML's) reads a leading 0 as octal and `1:30` as base 60: an interval of
    `010` seconds would wait 8."""
    file = wfx.home / "numbers.yaml"
    file.write_text(
        WORKFLOW + f"    retry: {{maxAttempts: 3, intervalSeconds: {written}}}\n", encoding="utf-8"
    )

    outcome = wfx("workflows", "publish", str(file))

    assert_bad_input(outcome, "FILE", written, read, "line 7")
    _nothing_published(wfx)


def test_a_number_with_a_leading_zero_that_reads_the_same_is_taken(wfx: Wfx) -> None:
    file = wfx.home / "numbers.yaml"
    file.write_text(WORKFLOW + "    retry: {maxAttempts: 03, intervalSeconds: 0x1F}\n")

    wfx.ok("workflows", "publish", str(file))

    [step] = wfx.json("workflows", "show", "demo/files")["version"]["steps"]
    assert step["retry"]["maxAttempts"] == 3 and step["retry"]["intervalSeconds"] == 31


def test_a_key_named_like_a_secret_is_refused_by_its_rule_and_its_value_stays_hidden(
    wfx: Wfx,
) -> None:
    """`password: unknown key` names a field and its rule: the rule is said, not taken for the
    secret, while the value the author wrote under that key is never shown."""
    file = wfx.home / "secret-key.yaml"
    file.write_text(WORKFLOW + "password: hunter2-e2e-value\n", encoding="utf-8")
    outcome = wfx("workflows", "publish", str(file))
    assert_bad_input(outcome, "password: unknown key")
    assert "hunter2" not in outcome.stderr + outcome.stdout
    _nothing_published(wfx)
