"""`wfx executions logs` on SQLite: a step's own log read by its logId, redacted."""

from __future__ import annotations

from tests.e2e.cli import Wfx, assert_bad_input

# A key id shaped like AWS's, which redaction must catch; assembled so no scanner flags this file.
SECRET = "AKIA" + "IOSFODNN7EXAMPLE"


def _publish_chatty(wfx: Wfx) -> None:
    """demo/chatty: one command step that prints a plain line and a secret-looking one."""
    wfx.publish_command_step(
        "chatty", f"print('converting mesh'); print('using aws_access_key_id={SECRET}')"
    )


def test_a_steps_invocation_log_is_read_by_its_log_id_and_redacted(wfx: Wfx) -> None:
    _publish_chatty(wfx)
    execution_id = wfx.run_id("demo/chatty")

    details = wfx.json("executions", "show", execution_id)
    (step,) = details["pipelines"]
    (invocation,) = [log for log in step["availableLogs"] if log["kind"] == "invocation"]
    read = wfx.ok("executions", "logs", execution_id, "--log-id", invocation["logId"])

    assert invocation["logGroupName"] == execution_id
    assert "converting mesh" in read.stdout
    assert "[REDACTED]" in read.stdout
    assert SECRET not in read.stdout + read.stderr


def test_show_lists_the_log_ids_a_user_can_copy(wfx: Wfx) -> None:
    _publish_chatty(wfx)
    execution_id = wfx.run_id("demo/chatty")
    details = wfx.json("executions", "show", execution_id)
    log_id = details["pipelines"][0]["availableLogs"][0]["logId"]

    shown = wfx.ok("executions", "show", execution_id)

    assert "Available logs" in shown.stdout and log_id in shown.stdout


def test_without_a_log_id_the_run_log_is_printed_and_every_source_is_not_read(wfx: Wfx) -> None:
    _publish_chatty(wfx)
    execution_id = wfx.run_id("demo/chatty")

    plain = wfx.ok("executions", "logs", execution_id)
    answer = wfx.json("executions", "logs", execution_id)

    assert "converting mesh" in plain.stdout and SECRET not in plain.stdout
    assert [source["readStatus"] for source in answer["logSources"]] == ["notRead"]
    assert "events" not in answer  # the stored log is the answer, no source was read


def test_full_mode_reads_every_source(wfx: Wfx) -> None:
    _publish_chatty(wfx)
    execution_id = wfx.run_id("demo/chatty")

    answer = wfx.json("executions", "logs", execution_id, "--full")
    printed = wfx.ok("executions", "logs", execution_id, "--full")

    assert [source["readStatus"] for source in answer["logSources"]] == ["read"]
    assert any("converting mesh" in event["message"] for event in answer["events"])
    assert "executionLog" not in answer
    log_id = answer["logSources"][0]["logId"]
    assert f"===== {log_id} invocation" in printed.stdout and ": read =====" in printed.stdout
    assert "converting mesh" in printed.stdout and SECRET not in printed.stdout


def test_an_unknown_log_id_exits_2_naming_it(wfx: Wfx) -> None:
    _publish_chatty(wfx)
    execution_id = wfx.run_id("demo/chatty")

    outcome = wfx("executions", "logs", execution_id, "--log-id", "0123456789abcdef")

    assert_bad_input(outcome, "0123456789abcdef", execution_id)


def test_a_source_that_cannot_be_read_exits_1_saying_why(wfx: Wfx) -> None:
    execution_id, absent = wfx.run_registering_log("absent", "tools", "never-written.log")

    outcome = wfx("executions", "logs", execution_id, "--log-id", absent["logId"])
    as_json = wfx("executions", "logs", execution_id, "--log-id", absent["logId"], "--json")

    assert outcome.code == 1, str(outcome)
    assert outcome.stdout == ""
    [line] = [line for line in outcome.stderr_lines if line.startswith(absent["logId"])]
    assert line.startswith(f"{absent['logId']}: notFound: ")
    assert as_json.code == 1, str(as_json)
    (source,) = [s for s in as_json.json()["logSources"] if s["logId"] == absent["logId"]]
    assert source["readStatus"] == "notFound"


def test_a_next_token_without_a_log_id_exits_2(wfx: Wfx) -> None:
    _publish_chatty(wfx)
    execution_id = wfx.run_id("demo/chatty")

    outcome = wfx("executions", "logs", execution_id, "--next-token", "5")

    assert_bad_input(outcome, "--next-token", "--log-id")


def test_reading_a_local_runs_logs_imports_no_aws_library(wfx: Wfx) -> None:
    _publish_chatty(wfx)
    execution_id = wfx.run_id("demo/chatty")
    profiled = wfx.with_environment(PYTHONPROFILEIMPORTTIME="1")

    outcome = profiled("executions", "logs", execution_id, "--full")

    assert outcome.code == 0, str(outcome)
    imported = [line.rsplit("|", 1)[-1].strip() for line in outcome.stderr_lines]
    assert "entrypoints.cli.logs" in imported  # the profile is there to be read
    assert not [name for name in imported if name.split(".")[0] in ("boto3", "botocore")]


def test_the_run_log_is_printed_by_logs_alone_never_by_list_or_show(wfx: Wfx) -> None:
    _publish_chatty(wfx)
    execution_id = wfx.run_id("demo/chatty")
    assert "converting mesh" in wfx.json("executions", "logs", execution_id)["executionLog"]

    listed = wfx.ok("executions", "list", "--json").stdout
    shown = wfx.ok("executions", "show", execution_id, "--json").stdout

    for printed in (listed, shown):
        assert "executionLog" not in printed


def test_a_log_id_longer_than_any_is_refused_without_echoing_it_whole(wfx: Wfx) -> None:
    wfx.publish_command_step("noop", "pass")
    run = wfx.run_id("demo/noop")
    outcome = wfx("executions", "logs", run, "--log-id", "x" * 100_000)
    assert_bad_input(outcome, "log_id", "at most 64")
    assert len(outcome.stderr) < 300, len(outcome.stderr)
