"""The container's SubProcessController: every registered type, and no AWS SDK for a local stop."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]  # `tests` imports from the checkout

_STOP_A_LOCAL_CHILD_AND_AN_UNKNOWN_ONE = """
import json, os, subprocess, sys
from pathlib import Path
from adapters.local.supervisor import RunFolder, this_process
from entrypoints.container import build_container
from domain.logs import RegisteredSubExecution
from tests.contract.builders import a_step
container = build_container()
controller = container.sub_process_controller()
step = a_step("e1", 0)
# as the runner of e1 does: this process runs it, its children are the step's
RunFolder(Path(container.config.home()) / "runs" / "e1").write_runner(this_process("thread"))
child = subprocess.Popen(["sleep", "60"])
outcomes = [
    controller.stop(sub, step).outcome.value
    for sub in (
        RegisteredSubExecution(resource_type="localProcess", local_process_id=str(child.pid)),
        RegisteredSubExecution(resource_type="kubernetesJob", arn="arn:aws:eks:r:1:pod/p"),
    )
]
child.wait()
print(json.dumps({
    "outcomes": outcomes,
    "types": list(controller.supported_types),
    "aws": sorted(m for m in sys.modules if m.split(".")[0] in ("boto3", "botocore")),
}))
"""


def test_a_local_stop_imports_no_aws_library_and_every_seed_type_is_wired(tmp_path: Path) -> None:
    environment = {
        name: value for name, value in os.environ.items() if not name.startswith(("WFX_", "AWS_"))
    }
    completed = subprocess.run(
        [sys.executable, "-c", _STOP_A_LOCAL_CHILD_AND_AN_UNKNOWN_ONE],
        env=environment
        | {
            "WFX_HOME": str(tmp_path),
            "PYTHONPATH": os.pathsep.join((str(REPO / "src"), str(REPO))),
        },
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )

    assert completed.returncode == 0, completed.stderr
    report = json.loads(completed.stdout)
    assert report["outcomes"] == ["stopped", "unsupported"]
    assert report["types"] == [
        "stepFunctionsExecution",
        "batchJob",
        "deadlineCloudJob",
        "localProcess",
    ]
    assert report["aws"] == []
