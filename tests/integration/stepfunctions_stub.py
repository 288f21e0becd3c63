"""A real Step Functions client under botocore's Stubber: moto has no RedriveExecution and no
redrive fields in DescribeExecution, so those tests give the real request and response shapes."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import boto3
from botocore.stub import Stubber


@contextmanager
def stubbed_stepfunctions() -> Iterator[tuple[Any, Stubber]]:
    """The client and its stubber; a call nobody stubbed fails the test, and so does a stubbed
    response left unused."""
    client = boto3.client(
        "stepfunctions",
        region_name="us-east-1",
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )
    with Stubber(client) as stubber:
        yield client, stubber
        stubber.assert_no_pending_responses()
