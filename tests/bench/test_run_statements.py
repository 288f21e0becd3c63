"""Issue 28's bounds on what a warm recorded 3-step run asks SQLite: counted, never timed.

The statements are the ones `statement_replay.capture` sees on the run's connection (the bench's
own capture), so this pins the same figure `make bench` reports as `statements` / `transactions`.
"""

from __future__ import annotations

from pathlib import Path

import yaml

from application.use_cases.abort_execution import AbortExecutionCommand
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.statuses import ExecutionStatus
from entrypoints.container import Container
from tests.bench.fixtures import TRIVIAL_WORKFLOW, USER, bench_container
from tests.bench.runner import prepare, recorded_run
from tests.bench.statement_replay import capture

# issue 28 asks at most 45 statements in 5 transactions; pinned at what a run takes today (the
# launch's version read is one statement, no transaction; the completion reads no run state for
# its last step: its change's guard decides it), so a statement added shows here
MAX_STATEMENTS = 41
MAX_TRANSACTIONS = 4
# the launch, the first step's success with the second's start, the second's failure with the
# run's end (6 before s20-endwrite: the failure, a read, the run's end and the summaries apart)
FAILED_RUN_TRANSACTIONS = 3
# a run its first step aborts: the launch; the abort's main row read, its request, the steps
# with the running one's attempts (one read), its end with the summaries; the runner's read of
# the main row (8 before s21-abortend: the steps and attempts two reads, the runner's end a read
# of the run and the summaries written again)
ABORTED_RUN_TRANSACTIONS = 6


def test_a_warm_three_step_run_stays_within_issue_28s_statements_and_transactions(
    tmp_path: Path,
) -> None:
    container, version = prepare(tmp_path)
    recorded_run(container, version)  # the cold run reads what a warm one already knows
    database = container.sqlite_database()

    statements = capture(database, lambda: recorded_run(container, version))

    transactions = sum(statement.startswith("COMMIT") for statement in statements)
    assert transactions <= MAX_TRANSACTIONS, "\n".join(statements)
    # counted as the bench counts them: every statement, its BEGINs and COMMITs included
    assert len(statements) <= MAX_STATEMENTS, "\n".join(statements)


def test_the_checkpointers_finishing_round_is_not_captured_as_the_runs(tmp_path: Path) -> None:
    """The writer's connection finishes a checkpoint round after a commit once in ~2,000 WAL
    pages; a capture that fell on it would replay it every time (a replay 2-3x dearer)."""
    container, version = prepare(tmp_path)
    recorded_run(container, version)
    database = container.sqlite_database()
    with database.read() as connection:
        pass  # the thread's connection: the run's, on which the writer finishes a round

    def run_whose_commit_finishes_a_checkpoint() -> None:
        recorded_run(container, version)
        connection.execute("PRAGMA wal_checkpoint(PASSIVE)").fetchall()

    statements = capture(database, run_whose_commit_finishes_a_checkpoint)

    assert not [statement for statement in statements if "wal_checkpoint" in statement]
    assert sum(statement.startswith("COMMIT") for statement in statements) == MAX_TRANSACTIONS


def fail(**_: object) -> None:
    raise RuntimeError("fails")


ABORTING: list[Container] = []  # the container the step below aborts its own run through


def abort_own_run(execution_id: str, **_: object) -> None:
    ABORTING[0].abort_execution().execute(AbortExecutionCommand(workflow_execution_id=execution_id))


def warm_run_transactions(tmp_path: Path, step: int, handler: str) -> tuple[ExecutionStatus, int]:
    """The status of a warm trivial 3-step run whose step `step` runs `handler` (of this
    module), and the transactions the run took."""
    container = bench_container(tmp_path)
    ABORTING[:] = [container]
    document = yaml.safe_load(TRIVIAL_WORKFLOW.read_text(encoding="utf-8"))
    document["steps"][step]["handler"] = f"{__name__}:{handler}"
    publish = PublishWorkflowVersionCommand(document=parse_workflow_document(document))
    version = container.publish_workflow_version().execute(publish).version
    command = LaunchExecutionCommand(
        workflow_database_id=version.database_id, workflow_id=version.workflow_id, user_id=USER
    )
    container.launch_execution().execute(command)  # cold: what a warm run already knows
    ended: list[ExecutionStatus] = []

    def run() -> None:
        ended.append(container.launch_execution().execute(command).execution.status)

    statements = capture(container.sqlite_database(), run)
    return ended[0], sum(statement.startswith("COMMIT") for statement in statements)


def test_a_warm_three_step_run_that_fails_at_its_second_step_ends_with_it_in_one_write(
    tmp_path: Path,
) -> None:
    status, transactions = warm_run_transactions(tmp_path, 1, "fail")
    assert (status, transactions) == (ExecutionStatus.FAILED, FAILED_RUN_TRANSACTIONS)


def test_a_warm_three_step_run_its_first_step_aborts_ends_in_the_abort_s_one_write(
    tmp_path: Path,
) -> None:
    status, transactions = warm_run_transactions(tmp_path, 0, "abort_own_run")
    assert (status, transactions) == (ExecutionStatus.ABORTED, ABORTED_RUN_TRANSACTIONS)
