"""The tests' moto finds a response class's actions once (tests/moto_method_names.py), and the
names it keeps are moto's own answer for every response class it has loaded."""

from __future__ import annotations

import boto3
from moto import mock_aws
from moto.core import responses, utils

from conftest import AWS_REGION


def _response_classes(cls: type) -> set[type]:
    found: set[type] = set(cls.__subclasses__())
    for subclass in list(found):
        found |= _response_classes(subclass)
    return found


def test_the_kept_action_names_are_motos_own() -> None:
    asked = responses.method_names_from_class  # type: ignore[attr-defined]
    assert getattr(asked, "wfx_cached", False), "the patch is not on"
    with mock_aws():
        session = boto3.session.Session(
            aws_access_key_id="testing", aws_secret_access_key="testing", region_name=AWS_REGION
        )
        session.client("dynamodb").list_tables()
        session.client("stepfunctions").list_state_machines()
        session.client("s3").list_buckets()
        classes = _response_classes(responses.BaseResponse)
        for _ in range(2):  # kept, then read from what was kept
            for cls in classes:
                assert asked(cls) == utils.method_names_from_class(cls), cls
