"""`wfx executions events`: a run's event log, once or followed until the run has ended."""

from __future__ import annotations

import json
import sys
import time
from typing import TYPE_CHECKING

from domain.redaction import redact_json

if TYPE_CHECKING:
    from entrypoints.container import Container
    from entrypoints.responses import ExecutionEventResponse

# --follow polls: often enough to feel live, rarely enough to cost a store nothing
FOLLOW_INTERVAL_SECONDS = 0.5
_PAGE = 1000
NO_EVENTS = (
    "no events: wfx's event log holds none of execution {execution_id} "
    "(a run VAMS launched has none; its status and steps are in `wfx executions show`)\n"
)


def show_events(
    container: Container, execution_id: str, after: int, follow: bool, json_output: bool
) -> None:
    """Print the run's events past `after`; with `follow`, keep printing new ones until the run
    is terminal and every event is printed (its last event is written with its end)."""
    from application.use_cases.get_execution import GetExecutionQuery
    from application.use_cases.get_execution_events import GetExecutionEventsQuery
    from entrypoints.responses import ExecutionEventsResponse

    read = container.get_execution_events()
    first = after
    while True:
        # the status before the events: a run seen terminal has all its events written already
        ended = (
            not follow
            or container.get_execution()
            .execute(GetExecutionQuery(workflow_execution_id=execution_id))
            .is_terminal
        )
        while True:
            query = GetExecutionEventsQuery(
                workflow_execution_id=execution_id, after_sequence=after, max_items=_PAGE
            )
            page = ExecutionEventsResponse.of(execution_id, read.execute(query))
            for event in page.events:
                _print(event, json_output)
                after = event.sequence_number
            if page.next_token is None:
                break
        if ended:
            if after == first == 0:
                # the run exists (the read found it) but wfx recorded nothing of it
                sys.stderr.write(NO_EVENTS.format(execution_id=execution_id))
            return
        sys.stdout.flush()
        time.sleep(FOLLOW_INTERVAL_SECONDS)


def _print(event: ExecutionEventResponse, json_output: bool) -> None:
    if json_output:  # one JSON document a line, so a follower's output can be read as it comes
        sys.stdout.write(json.dumps(redact_json(event.dump()), separators=(",", ":")) + "\n")
        return
    about = [
        part
        for part in (
            event.pipeline_execution_id,
            f"attempt {event.attempt}" if event.attempt is not None else None,
            event.status,
            event.error,
        )
        if part
    ]
    moment = event.dump()["occurredAt"]
    sys.stdout.write(
        f"{event.sequence_number:>6}  {moment}  {event.event_type:<22} {'  '.join(about)}\n"
    )
