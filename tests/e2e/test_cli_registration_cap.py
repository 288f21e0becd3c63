"""A registration past a step's cap of 50 logs, as a command step sends it: accepted, with a
warning and `warnings` in its answer saying what was dropped, and the step's registeredLogs
flagged in the details' truncatedCollections."""

from __future__ import annotations

import json

from tests.e2e.cli import WFX, Wfx

# The step registers 50 logs in one event (the python API a python step is given), then one
# more with `wfx pipelines register`, and keeps what that command said.
STEP = f"""
import os, subprocess
from entrypoints.container import build_container
env = os.environ
build_container().publish_registration().register(
    env["WFX_EXECUTION_ID"], env["WFX_PIPELINE_EXECUTION_ID"],
    logs=[{{"logGroupName": f"/g/{{n}}"}} for n in range(50)],
    registration_token=env["WFX_REGISTRATION_TOKEN"],
)
said = subprocess.run({[*WFX, "pipelines", "register", "--log-group-name", "/g/extra", "--json"]!r},
                      capture_output=True, text=True)
with open(os.path.join(env["WFX_HOME"], "said.json"), "w") as out:
    out.write(__import__("json").dumps([said.returncode, said.stdout, said.stderr]))
"""


def test_a_registration_past_the_cap_says_what_it_dropped(wfx: Wfx) -> None:
    wfx.publish_command_step("many-logs", STEP)
    execution_id = wfx.passing_store_to_steps().run_id("demo/many-logs")

    code, stdout, stderr = json.loads((wfx.home / "said.json").read_text())
    assert code == 0, stderr
    answer = json.loads(stdout)
    assert answer["accepted"] is True
    assert answer["warnings"] == [
        "1 log dropped: the step keeps at most 50 registered logs, and has them"
    ]
    assert "warning: 1 log dropped" in stderr

    details = wfx.json("executions", "show", execution_id)
    (step,) = details["pipelines"]
    step_id = step["pipelineExecutionId"]
    assert len(step["registeredLogs"]) == 50
    assert {
        "collection": f"pipelineExecutions[{step_id}].registeredLogs",
        "returned": 50,
        "total": "more",
    }.items() <= next(
        cut
        for cut in details["truncatedCollectionPages"]
        if cut["collection"].endswith("registeredLogs")
    ).items()
    assert details["truncatedCollections"] == ["pipelines.registeredLogs"]  # VAMS's names
