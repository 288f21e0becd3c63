"""An import's write of a workflow version, with a publish landing just before it (moto).

The archive carries version 2 of a workflow the store has no definition of, so nothing stops it
when looked at; a publish then makes version 1 the latest. Written past that latest, version 2
would take the number the next publish claims and refuse every publish after. The import's
write checks the definition itself (a ConditionCheck in its TransactWriteItems), so it is
refused as past the latest. SQLite imports a run in one write transaction: nothing lands inside
it (tests/e2e/test_cli_import_races.py, real processes).
"""

from __future__ import annotations

from typing import Any

from adapters.records import build_step_definition_records, build_workflow_version_record
from application.ports.migration import ArchivedItem, ArchivedRun, RunArchive
from tests.contract.builders import a_version, publish


def test_a_version_whose_workflow_a_publish_made_before_the_write_is_not_written_past_it(
    moto_dynamodb_client: Any,
    dynamodb_workflow_definitions: Any,
    dynamodb_run_archive: RunArchive,
) -> None:
    dynamodb_workflow_definitions.create_tables()
    later = a_version(2)
    items = (
        ArchivedItem("WORKFLOW_VERSIONS", build_workflow_version_record(later), shared=True),
        *(
            ArchivedItem("STEP_DEFINITIONS", record, shared=True)
            for record in build_step_definition_records(later)
        ),
    )
    published: list[str] = []

    def publish_first(params: dict[str, Any], **_: Any) -> None:
        # another process publishes version 1 just before the import's first write of a version
        if not published and "WfxWorkflowVersionsTable" in repr(params):
            published.append("v1")
            publish(dynamodb_workflow_definitions, a_version(1))

    moto_dynamodb_client.meta.events.register("before-call.dynamodb.PutItem", publish_first)
    moto_dynamodb_client.meta.events.register(
        "before-call.dynamodb.TransactWriteItems", publish_first
    )

    imported = dynamodb_run_archive.import_run(ArchivedRun("r1", items))

    assert published == ["v1"]
    assert (imported.written, imported.unchanged) == (0, 0)
    assert len(imported.conflicts) == len(items)
    assert all(
        isinstance(line, str) and "version 2 is past the latest of db1:wf1 stored here (1)" in line
        for line in imported.conflicts
    )
    publish(dynamodb_workflow_definitions, a_version(2))  # the number is still free
