"""A backend that embeds wfx: publish a workflow, launch it, wait, and answer what happened.

Run it with `python -m wfx_examples.embedding.backend [WFX_HOME]`; CI runs it as it stands in
docs/embedding.md.
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

import yaml

import wfx
from wfx.responses import ExecutionResponse, VamsExecutionDetails

WORKFLOW = Path(__file__).parent.parent / "trivial" / "workflow.yaml"


def main(home: str) -> int:
    # Configured as the CLI is; WFX_STORE=dynamodb would put the same rows in DynamoDB.
    app = wfx.open_application({"WFX_HOME": home, "USER": "backend"})
    app.create_tables()

    published = app.publish(yaml.safe_load(WORKFLOW.read_text()))
    version = published.version
    launched = app.launch(
        wfx.LaunchExecutionCommand(
            workflow_database_id=version.database_id,
            workflow_id=version.workflow_id,
            user_id="backend",
            client_token="nightly-2026-12-01",  # a retried request answers the same run
        )
    )
    execution_id = launched.execution.workflow_execution_id
    if not app.wait(execution_id, timeout=60):
        print(f"{execution_id} still running after 60 s", file=sys.stderr)
        return 1

    execution = app.get(execution_id)
    details = app.details(wfx.GetExecutionDetailsQuery(workflow_execution_id=execution_id))
    # The same response models the CLI's --json and the HTTP service answer with.
    print(json.dumps(ExecutionResponse.of(execution).dump(), indent=2))
    steps = VamsExecutionDetails.of(details).dump()["pipelines"]
    print(f"{len(steps)} steps, run {execution.status.value}")
    try:
        app.get("no-such-run")
    except wfx.NotFoundError as error:
        print(f"as expected: {error}")
    return 0 if execution.status is wfx.ExecutionStatus.SUCCEEDED else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else tempfile.mkdtemp(prefix="wfx-")))
