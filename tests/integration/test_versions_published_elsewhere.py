"""A process launching again and again keeps the versions it parsed; another process publishing
a version, or deploying one, onto the same SQLite file is still seen by its next read."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from adapters.sqlite.catalogs import SqliteWorkflowCatalog
from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions
from domain.workflow import WorkflowVersion
from tests.contract.builders import a_version, publish, with_command_steps

ARN = "arn:aws:states:us-east-1:123456789012:stateMachine:wfx-db1-wf1-v1"

# run by another interpreter: publishes version 2 (two steps) and deploys version 1
_ELSEWHERE = f"""
import sys
from adapters.sqlite.catalogs import SqliteWorkflowCatalog
from adapters.sqlite.database import SqliteDatabase
from adapters.sqlite.workflow_definitions import SqliteWorkflowDefinitions
from adapters.tables import TableNames
from tests.contract.builders import publish
from tests.integration.test_versions_published_elsewhere import two_steps

database = SqliteDatabase(sys.argv[1])
publish(SqliteWorkflowDefinitions(database, TableNames()), two_steps())
SqliteWorkflowCatalog(database, TableNames()).record_deployment("db1", "wf1", 1, {ARN!r})
database.close()
"""


def two_steps() -> WorkflowVersion:
    return with_command_steps(a_version(2), 2)


def test_a_version_published_and_one_deployed_by_another_process_are_read(
    sqlite_file_workflow_catalog: SqliteWorkflowCatalog,
    sqlite_file_workflow_definitions: SqliteWorkflowDefinitions,
    tmp_path: Path,
) -> None:
    catalog = sqlite_file_workflow_catalog
    publish(sqlite_file_workflow_definitions, a_version(1))
    assert catalog.latest_version("db1", "wf1") == a_version(1)  # parsed and kept
    assert catalog.get_version("db1", "wf1", 1).state_machine_arn is None

    environment = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    subprocess.run(
        [sys.executable, "-c", _ELSEWHERE, str(tmp_path / "wfx.db")],
        env=environment,
        check=True,
        timeout=60,
    )

    assert catalog.latest_version("db1", "wf1") == two_steps()
    assert catalog.get_version("db1", "wf1", 1).state_machine_arn == ARN
    assert catalog.get_version("db1", "wf1", 1).steps == a_version(1).steps
