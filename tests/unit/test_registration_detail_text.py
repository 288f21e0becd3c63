"""A registration event's detail sent as JSON text (as PutEvents carries it) that nests deeper
than Python reads is refused as a bad detail, naming it, not raised as a RecursionError."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from application.use_cases.register_pipeline_execution import RegisterPipelineExecutionCommand


def test_a_detail_nested_too_deeply_is_a_validation_error_naming_the_detail() -> None:
    with pytest.raises(ValidationError) as refused:
        RegisterPipelineExecutionCommand.model_validate(
            {"source": "wfx.execution.e1.pipeline.p1", "detail": "[" * 5000 + "]" * 5000}
        )
    (problem,) = refused.value.errors()
    assert problem["loc"] == ("detail",) and "nested" in problem["msg"]
