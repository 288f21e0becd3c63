"""schemathesis over the service's own OpenAPI schema, on both stores, with a valid admin token:
no generated request may get a 500, and no answer may break the schema (status codes, content
type, body). The requests generated per route are bounded to keep the suite quick.

A schema-valid request the service refuses with a 400 is not counted against it: the rules
between fields are in the use cases and their messages, not in the schema."""

from __future__ import annotations

from typing import Any

import schemathesis
from hypothesis import HealthCheck, given, settings
from schemathesis.specs.openapi.checks import positive_data_acceptance

from tests.http.conftest import ADMIN, Service

EXAMPLES_PER_ROUTE = 12


def test_no_generated_request_breaks_the_service_or_its_schema(service: Service) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", service.app)
    headers = service.as_user(ADMIN, ("admin",))
    operations = [result.ok() for result in schema.get_all_operations()]  # type: ignore[union-attr]
    assert len(operations) >= 13

    for operation in operations:

        @given(case=operation.as_strategy())
        @settings(
            max_examples=EXAMPLES_PER_ROUTE,
            deadline=None,
            database=None,
            suppress_health_check=list(HealthCheck),
        )
        def generated(case: Any) -> None:
            # Rules across fields (one list filter at a time, a direction only with an asset)
            # are no schema's to say: such a request is a 400 that names the rule.
            case.call_and_validate(headers=headers, excluded_checks=[positive_data_acceptance])

        generated()
