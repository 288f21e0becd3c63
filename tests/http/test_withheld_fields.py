"""What VAMS keeps from its callers stays out of every answer about a run: no ARN (state
machine, execution, sub-process, log group), no S3 bucket or prefix, no vended role or its
scopes. Every document of a run that registered ARN-located sub-processes and logs is walked,
as the HTTP service and the CLI's `--json` send them."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from application.use_cases.register_pipeline_execution import RegisterPipelineExecutionCommand
from tests.http.conftest import ADMIN, DATABASE, INPUTS, Service
from tests.withheld import WITHHELD_VALUE, withheld

ACCOUNT = "123456789012"
RUN_ARN = f"arn:aws:states:us-east-1:{ACCOUNT}:execution:inner-machine:inner-run"
MACHINE_ARN = f"arn:aws:states:us-east-1:{ACCOUNT}:stateMachine:inner-machine"
JOB_ARN = f"arn:aws:batch:us-east-1:{ACCOUNT}:job/job-0042"
GROUP_ARN = f"arn:aws:logs:us-east-1:{ACCOUNT}:log-group:/wfx/inner"

# the run's account too: a value naming it names where something lies
HERE = re.compile(WITHHELD_VALUE.pattern + "|" + ACCOUNT)

# the HTTP layer's and the CLI's to say, whatever the store
ON_SQLITE = pytest.mark.parametrize("inline_container", ["sqlite"], indirect=True)


def test_the_walk_finds_what_it_is_meant_to_find() -> None:
    planted = {
        "executionArn": "",
        "a": [{"s3Bucket": "b", "s3VersionId": "v1"}, {"logGroupName": GROUP_ARN}],
        "inputS3AssetFilePath": "",
        "vendedRoleArn": "",
        "stsSessionToken": "",
        "resourceName": "inner-run",
        "lastSfnSyncCheckDate": "",  # VAMS sends it: its "stS" is no STS field
        "account": ACCOUNT,
    }
    assert list(withheld(planted, values=HERE)) == [
        "$.executionArn",
        "$.a[0].s3Bucket",
        "$.a[1].logGroupName = " + repr(GROUP_ARN),
        "$.inputS3AssetFilePath",
        "$.vendedRoleArn",
        "$.stsSessionToken",
        f"$.account = {ACCOUNT!r}",
    ]
    assert list(withheld({"account": ACCOUNT})) == []  # the account alone only where asked


def _register(service: Service) -> list[str]:
    """Every step of the run registers an ARN-located sub-process, a Batch job and a log."""
    headers = service.as_user(ADMIN, ("admin",))
    url = f"/workflows/executions/{service.execution_id}/details"
    details = service.client.get(url, headers=headers).json()["message"]
    steps = [step["pipelineExecutionId"] for step in details["pipelines"]]
    for step in steps:
        command = RegisterPipelineExecutionCommand.model_validate(
            {
                "version": "0",
                "source": f"wfx.execution.{service.execution_id}.pipeline.{step}",
                "detail-type": "pipeline.execution.register",
                "detail": {
                    "pipelineExecutionId": step,
                    "subExecutions": [
                        {
                            "resourceType": "stepFunctionsExecution",
                            "stateMachineArn": MACHINE_ARN,
                            "executionArn": RUN_ARN,
                            "label": "inner",
                        },
                        {"resourceType": "batchJob", "jobArn": JOB_ARN},
                    ],
                    "logs": [{"logGroupArn": GROUP_ARN + ":*", "logStreamPrefix": "states/"}],
                },
            }
        )
        assert service.container.register_pipeline_execution().execute(command).accepted
    return steps


def _documents(service: Service, steps: list[str]) -> Iterator[tuple[str, Any]]:
    headers = service.as_user(ADMIN, ("admin",))
    run = f"/workflows/executions/{service.execution_id}"
    urls: list[tuple[str, dict[str, Any]]] = [
        ("/workflows/executions", {}),
        (f"/database/{DATABASE}/assets/{INPUTS}/workflows/executions", {}),
        (run, {}),
        (f"{run}/details", {}),
        (f"{run}/details", {"includeSubExecutions": "true"}),
        (f"{run}/logs", {}),
        (f"{run}/logs", {"mode": "full"}),
        *(
            (f"{run}/details/metadata", {"collection": name})
            for name in ("input", "inputDatabase", "output", "inputs", "pipelineExecutions")
        ),
        *(
            (f"{run}/details/metadata", {"collection": f"pipelineExecutions[{step}].{name}"})
            for step in steps
            for name in ("registeredSubExecutions", "registeredLogs", "availableLogs")
        ),
    ]
    for url, params in urls:
        answer = service.client.get(url, params=params, headers=headers)
        assert answer.status_code == 200, (url, params, answer.text)
        yield f"{url} {params}", answer.json()


@ON_SQLITE
def test_no_answer_about_a_run_carries_an_arn_a_bucket_or_a_role(service: Service) -> None:
    steps = _register(service)
    documents = dict(_documents(service, steps))
    # the walk saw what was registered, by name
    shown = json.dumps(documents)
    assert "inner-run" in shown and "job-0042" in shown and "/wfx/inner" in shown
    found = {name: list(withheld(document, values=HERE)) for name, document in documents.items()}
    assert {name: where for name, where in found.items() if where} == {}


@ON_SQLITE
def test_the_cli_json_withholds_them_too_and_agrees_with_the_service(
    service: Service, tmp_path: Path
) -> None:
    from tests.e2e.cli import Wfx

    steps = _register(service)
    wfx = Wfx(tmp_path, WFX_STORE="sqlite")  # the service's own store and home
    headers = service.as_user(ADMIN, ("admin",))
    run = service.execution_id
    printed = {
        "show": wfx("executions", "show", run, "--json"),
        "list": wfx("executions", "list", "--json"),
        "logs": wfx("executions", "logs", run, "--full", "--json"),
    }
    for name, outcome in printed.items():
        assert outcome.code == 0, str(outcome)
        assert list(withheld(outcome.json(), values=HERE)) == [], name
    served = service.client.get(f"/workflows/executions/{run}/details", headers=headers).json()
    # the same document, but for what each process was told reaching AWS (its environment)
    unlike = {"availableLogWarnings"}
    shown = printed["show"].json()
    served = served["message"]  # the CLI prints what VAMS's envelope holds
    assert {k: v for k, v in shown.items() if k not in unlike} == {
        k: v for k, v in served.items() if k not in unlike
    }
    assert shown.keys() == served.keys()
    assert steps


@ON_SQLITE
def test_the_viewer_shows_a_sub_execution_by_its_name_and_no_arn(service: Service) -> None:

    _register(service)
    page = service.viewer_page(f"/executions/{service.execution_id}")
    assert page.status_code == 200, page.text
    assert "inner-run" in page.text and "job-0042" in page.text
    assert not HERE.search(page.text), HERE.search(page.text)
