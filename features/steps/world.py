"""What one scenario has done so far, shared by its steps."""

from __future__ import annotations

from dataclasses import dataclass, field

from application.use_cases.launch_execution import LaunchResult
from domain.errors import DomainError
from domain.execution import PipelineExecution, WorkflowExecution


@dataclass
class World:
    """The scenario's launches and refusals, its named runs, and the file versions it imported."""

    user: str = "alice"
    launches: list[LaunchResult] = field(default_factory=list)
    refusal: DomainError | None = None
    runs: dict[str, str] = field(default_factory=dict)  # label -> workflowExecutionId
    imported: dict[str, str] = field(default_factory=dict)  # "db/asset/file" -> first versionId
    steps_before: dict[str, PipelineExecution] = field(default_factory=dict)  # by pipelineId
    aborted: WorkflowExecution | None = None  # what the last abort answered

    @property
    def execution_id(self) -> str:
        """The run the scenario launched last."""
        assert self.launches, "the scenario has not launched anything yet"
        return self.launches[-1].execution.workflow_execution_id

    def run(self, label: str) -> str:
        assert label in self.runs, f"no run is called {label!r}; known: {sorted(self.runs)}"
        return self.runs[label]

    def labels(self, execution_ids: list[str]) -> list[str]:
        """Run labels for ids, so a failed comparison reads in the scenario's own words."""
        names = {execution_id: label for label, execution_id in self.runs.items()}
        return [names.get(execution_id, execution_id) for execution_id in execution_ids]


def split_list(text: str) -> list[str]:
    """`"a, b, c"` from a step's text to `["a", "b", "c"]`; `""` to `[]`."""
    return [part.strip() for part in text.split(",") if part.strip()]
