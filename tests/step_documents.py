"""Workflow documents' python steps for tests whose step functions live in the test module.

The runner imports a python step's handler by its module's name, so each test module passes
its own `__name__`: `python_step(__name__, "extract", "extract")`.
"""

from __future__ import annotations

from typing import Any


def python_step(
    module: str, pipeline_id: str, function: str, arity: str = "none"
) -> dict[str, Any]:
    """A python step running `module:function`, taking `arity` input files."""
    return {
        "pipelineId": pipeline_id,
        "executionType": "python",
        "handler": f"{module}:{function}",
        "inputFileArity": arity,
    }
