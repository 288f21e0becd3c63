"""The SubProcessController the container wires: one controller per registered resourceType."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from application.ports import SubProcessController


def _aws_client(service: Literal["batch", "deadline"], region: str) -> Callable[[], Any]:
    def build() -> Any:
        import boto3
        from botocore.config import Config

        # No endpoint_url: boto3 reads AWS_ENDPOINT_URL(_<SERVICE>) itself (moto, LocalStack).
        config = Config(
            connect_timeout=2, read_timeout=10, retries={"mode": "standard", "max_attempts": 3}
        )
        return boto3.client(service, region_name=region, config=config)

    return build


def sub_process_controller(
    stepfunctions_client: Callable[[], Any], region: str
) -> SubProcessController:
    """stepFunctions, batch, deadline and localProcess; any other type is `unsupported`."""
    from adapters.sub_process_dispatch import DispatchingSubProcessController

    def step_functions() -> SubProcessController:
        from adapters.aws.subprocesses import StepFunctionsSubProcessController

        return StepFunctionsSubProcessController(stepfunctions_client)

    def batch() -> SubProcessController:
        from adapters.aws.subprocesses import BatchSubProcessController

        return BatchSubProcessController(_aws_client("batch", region))

    def deadline() -> SubProcessController:
        from adapters.aws.subprocesses import DeadlineSubProcessController

        return DeadlineSubProcessController(_aws_client("deadline", region))

    def local_process() -> SubProcessController:
        from adapters.local.processes import LocalProcessController

        return LocalProcessController()

    return DispatchingSubProcessController(
        {
            "stepFunctions": step_functions,
            "batch": batch,
            "deadline": deadline,
            "localProcess": local_process,
        }
    )
