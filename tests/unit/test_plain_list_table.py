"""Off a terminal `wfx executions list` writes its table without rich (entrypoints/cli/
plain_table.py): what it writes is byte for byte what rich draws there, or it leaves the drawing to
rich. Checked against rich itself, on rows of any text."""

from __future__ import annotations

import io
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from rich.console import Console

from entrypoints.cli.context import UNWRAPPED_WIDTH
from entrypoints.cli.render import executions_table, plain_executions_list

# what the plain writer takes, and characters rich reads (markup, emoji names, escapes, wide
# characters, controls) or measures otherwise than one column each
_READ_BY_RICH = "[]:\\é界\t\x1b💯"
_AS_IT_IS = "abcXYZ019 _.,/<>+=@()-"
_TEXT = st.one_of(
    st.text(alphabet=_AS_IT_IS, max_size=12),
    st.text(alphabet=_AS_IT_IS + _READ_BY_RICH, max_size=12),
)
_DATE = st.sampled_from(["", "2026-12-06T03:57:15Z", "2026-12-06T04:00:01.250000Z"])


def _row(draw: Any) -> dict[str, Any]:
    return {
        "workflowExecutionId": draw(_TEXT),
        "workflowDatabaseId": draw(_TEXT),
        "workflowId": draw(_TEXT),
        "workflowVersion": draw(st.integers(min_value=1, max_value=1000)),
        "executionStatus": draw(st.sampled_from(["SUCCEEDED", "FAILED", "RUNNING", "NEW"])),
        "executionStartDate": draw(_DATE),
        "executionStopDate": draw(_DATE),
        "triggerType": draw(st.sampled_from(["Manual", "Schedule", "Event"])),
        "executionGroupId": draw(st.one_of(st.none(), _TEXT)),
    }


rows = st.composite(lambda draw: [_row(draw) for _ in range(draw(st.integers(0, 4)))])


def _drawn_by_rich(rows: list[dict[str, Any]], next_token: str | None) -> str:
    """What the list command prints through rich off a terminal (entrypoints/cli/main.py)."""
    out = io.StringIO()
    console = Console(file=out, highlight=False, width=UNWRAPPED_WIDTH)
    if not rows:
        console.print("No executions.")
    else:
        console.print(executions_table(rows, console.width))
    if next_token:
        console.print(f"\nNext page: --starting-token {next_token}", soft_wrap=True)
    return out.getvalue()


@given(rows(), st.one_of(st.none(), _TEXT))
def test_the_plain_list_is_what_rich_draws_or_none(
    listed: list[dict[str, Any]], next_token: str | None
) -> None:
    plain = plain_executions_list(listed, next_token)

    assert plain is None or plain == _drawn_by_rich(listed, next_token)


def test_a_usual_list_is_written_plain_and_one_rich_would_read_is_not() -> None:
    usual = {
        "workflowExecutionId": "01a2497fb4becfc94595dce97e07a324",
        "workflowDatabaseId": "demo",
        "workflowId": "trivial",
        "workflowVersion": 1,
        "executionStatus": "SUCCEEDED",
        "executionStartDate": "2026-12-06T03:57:15Z",
        "executionStopDate": "2026-12-06T03:58:16Z",
        "triggerType": "Manual",
        "executionGroupId": None,
    }
    token = "WyIyMDI2LTEyLTA2VDAzOjU3OjE1WiJd"

    plain = plain_executions_list([usual], token)

    assert plain is not None and plain == _drawn_by_rich([usual], token)
    assert plain_executions_list([], None) == "No executions.\n"
    for group in ("[bold]x", "a:smile:b", "é", "\x1b[2J"):
        assert plain_executions_list([usual | {"executionGroupId": group}], None) is None
    assert plain_executions_list([usual], "[red]token") is None
