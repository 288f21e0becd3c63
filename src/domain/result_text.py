"""A results file's text as the details show it inline (VAMS's `resultsContent`), held to
VAMS's bound on the free-form text of one record; what was cut is said (`truncated`)."""

import codecs

from pydantic import BaseModel, ConfigDict

# VAMS 2.6: "free-form text bytes per execution record: 380 KB, truncated, flagged"
RESULTS_CONTENT_LIMIT = 380 * 1024
# what all of one answer's results texts may hold together (VAMS's byte budget of one details
# collection): a run with many results files still answers in one response
RESULTS_CONTENT_BUDGET = 4 * 1024 * 1024


class ResultText(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    relative_file_path: str
    content: str
    truncated: bool


def text_of(head: bytes, limit: int) -> tuple[str, bool]:
    """The text of a file's first bytes, `head` read one byte past `limit` so that a cut is
    known: cut at `limit` bytes, never inside a character; bytes that are not UTF-8 are replaced
    (a results file is text, as VAMS records it)."""
    truncated = len(head) > limit
    decoder = codecs.getincrementaldecoder("utf-8")("replace")
    # not final when cut: an incomplete last character is held back, not shown as a replacement
    return decoder.decode(head[:limit], final=not truncated), truncated
