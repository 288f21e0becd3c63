"""RerunExecution: a new execution rebuilt from the stored records of one that has ended.

As VAMS's rerun: the same workflow launched again by its id (so its latest version: VAMS keeps
no version, it runs the workflow as it is now), the same input selections and output target,
triggered manually by the caller, in a group only when the caller names one. A redrive resumes
the same run; a rerun is a new run that names the one it reruns (`rerunOfExecutionId`).
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from application.ports.executions import ExecutionQueries, RowCollection
from application.use_cases.get_execution import GetExecution, GetExecutionQuery
from application.use_cases.launch_execution import (
    LaunchExecution,
    LaunchExecutionCommand,
    LaunchResult,
)
from domain.errors import ExecutionBeingDeletedError, InvalidInputError, RerunNotAllowedError
from domain.execution import ExecutionInput
from domain.registration import ID_RULE

_INPUT_PAGE = 1000  # rows read per call; a run's inputs are read whole, a page at a time


class RerunExecutionCommand(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    workflow_execution_id: str = Field(min_length=1)
    execution_group_id: str | None = None
    user_id: str = Field(min_length=1)
    client_token: str | None = None


class RerunExecution:
    """Rebuild the launch request of an ended run from its records, and launch it anew."""

    def __init__(
        self, get_execution: GetExecution, queries: ExecutionQueries, launch: LaunchExecution
    ) -> None:
        self._get_execution, self._queries, self._launch = get_execution, queries, launch

    def plan(self, command: RerunExecutionCommand) -> LaunchExecutionCommand:
        """The launch request the rerun makes (what the caller must be allowed to launch)."""
        execution_id = command.workflow_execution_id
        group = command.execution_group_id
        if group is not None and not ID_RULE.allows(group):
            # VAMS's rerun holds the group id to its ID rule (it keys a sparse index)
            raise InvalidInputError(f"executionGroupId: must be {ID_RULE.text}, got {group!r}")
        configuration = self._queries.get_configuration(execution_id)
        selections = configuration.input_selections if configuration is not None else ()
        selections = selections or self._selections_from_input_rows(execution_id)
        output = None
        if configuration is not None and configuration.output_asset_key is not None:
            output = f"{configuration.output_database_id}/{configuration.output_asset_id}"
        # The main row last: a delete marks it before anything of the run goes and removes it
        # last, so a run whose delete began while its rows above were read is refused here, or
        # not found (its main row gone before the launch's write, which holds only while it is
        # there). Read as GetExecution reads it: a run whose runner was lost ends here, and can
        # be rerun.
        original = self._get_execution.execute(
            GetExecutionQuery(workflow_execution_id=execution_id)
        )
        if not original.is_terminal:
            raise RerunNotAllowedError(execution_id, original.status.value)
        if original.is_being_deleted:  # its rows above may have been read half gone
            raise ExecutionBeingDeletedError(execution_id)
        return LaunchExecutionCommand(
            workflow_database_id=original.workflow_database_id,
            workflow_id=original.workflow_id,
            inputs=selections,
            output=output,
            execution_group_id=group,
            trigger="manual",
            user_id=command.user_id,
            client_token=command.client_token,
            rerun_of_execution_id=execution_id,
        )

    def execute(self, command: RerunExecutionCommand) -> LaunchResult:
        return self._launch.execute(self.plan(command))

    def _selections_from_input_rows(self, execution_id: str) -> tuple[str, ...]:
        """A run whose configuration names no selections (VAMS launched it): its input rows,
        one selection each, as the launch takes them."""
        selections: dict[str, None] = {}  # ordered, and a file listed twice is selected once
        after: str | None = None
        while True:
            rows = self._queries.list_rows(RowCollection.INPUTS, execution_id, after, _INPUT_PAGE)
            for row in rows:
                assert isinstance(row, ExecutionInput)
                selections[selection_of(row)] = None
            if len(rows) < _INPUT_PAGE:
                return tuple(selections)
            after = rows[-1].row_key


def selection_of(row: ExecutionInput) -> str:
    """`DATABASE_ID/ASSET_ID[/FILE_KEY]` for an input row. VAMS stores the whole bucket key with
    one leading `/` (`/<asset root><relative key>`, a folder ending in `/`, `/` alone for the
    whole asset); wfx the key relative to the asset. Both give the asset-relative key back."""
    key = row.input_asset_file_key.lstrip("/")
    root = row.asset_root_key.strip("/")
    if root and row.input_asset_file_key.startswith("/"):
        if key in (root, f"{root}/"):
            key = ""
        elif key.startswith(f"{root}/"):
            key = key[len(root) + 1 :]
    base = f"{row.database_id}/{row.asset_id}"
    return f"{base}/{key}" if key else base
