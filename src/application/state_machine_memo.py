"""One DescribeStateMachine per state machine per request, whoever in the request asks.

A details request reads a registered sub-state-machine twice over: its logging destinations for
availableLogs and its definition for the stage frame. Both go through one memo, so the machine is
described once (seed 000: "memoised per invocation"), and a failure is remembered as well, so a
broken machine is not asked again within the request.
"""

from __future__ import annotations

from application.ports.sub_executions import StateMachineSource, SubExecutionReader
from domain.stages import SubExecutionReadError


class StateMachineMemo:
    """The state machines one request has described, or why a description failed."""

    def __init__(self, reader: SubExecutionReader) -> None:
        self._reader = reader
        self._seen: dict[str, StateMachineSource | SubExecutionReadError] = {}

    def describe(self, state_machine_arn: str) -> StateMachineSource:
        """The machine as first described; a first SubExecutionReadError is raised again."""
        if state_machine_arn not in self._seen:
            try:
                self._seen[state_machine_arn] = self._reader.describe_state_machine(
                    state_machine_arn
                )
            except SubExecutionReadError as error:
                self._seen[state_machine_arn] = error
        seen = self._seen[state_machine_arn]
        if isinstance(seen, SubExecutionReadError):
            raise seen
        return seen
