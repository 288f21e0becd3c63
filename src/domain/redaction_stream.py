"""Redaction across lines: private-key blocks, and a bare AWS secret key beside its key id.

`StreamRedactor` is for a writer that gets a text a piece at a time (a step's log while the step
runs); `redacted_lines` for a reader that reads a stored text from its start a piece at a time
(a page of a log file, its tail); `redact_text` and `redact_lines` for a reader that holds the
whole text or a page of log lines. All of them run the same stages over the lines (key blocks,
then the AWS window, then the line-local rules of domain/redaction_rules.py), so a text streamed
in pieces of any size comes out as the whole text does.

Lines are split on "\\n" only: str.splitlines() also splits on \\r, \\x0c and \\u2028, which a
writer that sees one "\\n"-terminated line at a time would not.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass

from domain.lazy_pattern import LazyPattern
from domain.redaction_rules import (
    AWS_KEY_ID,
    REDACTED,
    has_aws_key_id,
    redact_line_local,
    registered_secrets,
)

LineRule = Callable[[str], str]

_LABEL = r"(?P<label>(?:[A-Z0-9]+ )*(?:PRIVATE|SECRET) KEY(?: BLOCK)?)"
_BEGIN = LazyPattern(rf"-----BEGIN {_LABEL}-----")
_END = LazyPattern(rf"-----END {_LABEL}-----")
_BEGIN_GATE = "-----BEGIN "
_END_GATE = "-----END "
# What the lines of a key block's body look like (base64 and armor checksums), used only to find
# the start of a block whose BEGIN was cut off (a page that starts inside it).
_BODY_LINE = LazyPattern(r"[ \t]*[A-Za-z0-9+/=]+[ \t\r]*")
_TRAILING_BODY = LazyPattern(r"[A-Za-z0-9+/=]+\Z")
# An AWS secret access key: 40 base64 characters standing alone.
_BARE_SECRET = LazyPattern(r"(?<![A-Za-z0-9/+=])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])")
_SECRET_LENGTH = 40
AWS_SECRET_WINDOW = 3  # lines either side of an access key id in which a bare secret is removed
# A writer that never ends its line still gets its text redacted and written past this size,
# in parts cut where no secret runs over the cut (StreamRedactor._long_line).
MAX_LINE_CHARACTERS = 64 * 1024
# A part ends at least this far before what is held: no secret the rules find by its shape is
# this long, so none begun before a cut can end in text still to come (registered ones are
# given as much room as the longest of them needs).
_CUT_CARRY = 4096
_CUT_TRIES = 8  # cuts tried each time the text held doubles; each costs two redactions of it
_BREAKS = " \t,;&})]>"  # where a value ends: cuts are tried after these first
_NOT_CUT = "[wfx: {} characters of a line not stored: no place to cut it kept every secret whole]"
# A reader holds a run of body-looking lines back (a block cut off at its start may end below);
# past this size it lets the oldest go. A key's body is a few KB; a PGP key with a photo, tens.
MAX_HELD_BODY_CHARACTERS = 1024 * 1024
_HELD_LINE_OVERHEAD = 64  # what a held line costs beside its characters (1-character lines)
# A reader gives a longer line cut (CutLine): its head and a note, what the stages need of the rest.
# Longer than any held run: such a line is never held, whole or cut, so the stages agree.
MAX_READ_LINE_CHARACTERS = 1024 * 1024
_MARKER_CARRY = 256  # a key-block marker or key id cut by two reads of a long line is still found
# A marker begun is carried until it ends, up to this size; a longer one is taken as a marker of
# a label no other marker has (CutLine._carried). No key's label is near this long.
_MAX_MARKER_CHARACTERS = 64 * 1024
# A writer's parts of a line held by the AWS window (a possible secret before them) past this
# size are let go, the possible secrets removed: the line's end may be far (_AwsWindow).
_MAX_HELD_PART_CHARACTERS = 1024 * 1024


class _KeyBlocks:
    """Where key blocks open and close, line after line: each block's body becomes one
    [REDACTED]; a BEGIN with no END (a cut log) hides everything after it."""

    def __init__(self, orphan_ends: bool) -> None:
        self._label: str | None = None
        self._placed = False  # the body's [REDACTED] has been written
        self._orphan_ends = orphan_ends  # readers only: a writer sees every BEGIN it needs
        # ENDs of blocks that never opened, on the last line: (where in the line it went,
        # whether body characters right before it were dropped, whether it starts the line);
        # see _cut_off_body_removed
        self.orphan_ends: list[tuple[int, bool, bool]] = []
        # where the last line opened the block still open: (offset in what line() returned,
        # offset in the line given), for a caller that keeps a block that never ends
        self.opened: tuple[int, int] | None = None

    @property
    def open(self) -> bool:
        return self._label is not None

    def line(self, text: str) -> str | None:
        """The line with block bodies replaced; None when all of it was body."""
        self.orphan_ends = []
        self.opened = None
        quiet = _BEGIN_GATE not in text and not (self._orphan_ends and _END_GATE in text)
        if self._label is None and quiet:
            return text
        pieces: list[str] = []
        position: int | None = 0
        while position is not None:
            if self._label is None:
                position = self._outside(text, position, pieces)
            else:
                position = self._inside(text, position, self._label, pieces)
        return "".join(pieces) if pieces else None

    def _outside(self, text: str, position: int, pieces: list[str]) -> int | None:
        """Copy text up to the next BEGIN and open its block; where to go on, None at the end."""
        begin = _BEGIN.compiled.search(text, position) if _BEGIN_GATE in text else None
        if self._orphan_ends and _END_GATE in text:
            end = _END.compiled.search(text, position, begin.start() if begin else len(text))
            if end is not None:
                prefix = text[position : end.start()]
                body = _TRAILING_BODY.compiled.search(prefix)
                kept = prefix[: body.start()] if body else prefix
                # only an END that starts its line can end a body begun on the lines above
                starts_line = not pieces and not kept.strip()
                pieces.append(kept)
                self.orphan_ends.append((sum(map(len, pieces)), body is not None, starts_line))
                pieces.append(end[0])
                return end.end()
        if begin is None:
            pieces.append(text[position:])
            return None
        pieces.append(text[position : begin.end()])
        self._label, self._placed = begin["label"], False
        self.opened = (sum(map(len, pieces)), begin.end())
        return begin.end()

    def _inside(self, text: str, position: int, label: str, pieces: list[str]) -> int | None:
        marker = f"-----END {label}-----"
        end = text.find(marker, position)
        self._body(text[position : len(text) if end < 0 else end], pieces)
        if end < 0:
            return None
        if not self._placed:
            pieces.append(REDACTED)  # an empty body: still say a key was there
        pieces.append(marker)
        self._label = None
        self.opened = None
        return end + len(marker)

    def _body(self, segment: str, pieces: list[str]) -> None:
        if not segment.strip() or self._placed:
            return
        self._placed = True
        pieces.append(REDACTED + segment[len(segment.rstrip()) :])  # keeps a trailing \r


class _AwsWindow:
    """A bare 40-character secret within AWS_SECRET_WINDOW lines of an access key id is removed.

    A writer cannot look ahead, so a line holding a possible secret is held back (with the lines
    after it) until a key id shows up or the window has passed: at most AWS_SECRET_WINDOW lines.
    A writer gives a line it never ends in parts (ending ""): they are one line for the window,
    so a part held waits for the line's end; past _MAX_HELD_PART_CHARACTERS held, the possible
    secrets held go as if a key id were near, as nothing is known to tell them apart."""

    def __init__(self) -> None:
        self._index = 0  # the line being given: a part does not end it
        self._last_key = -AWS_SECRET_WINDOW - 1
        self._held: deque[tuple[int, str, str, bool]] = deque()  # index, line, ending, candidate

    def line(self, text: str, ending: str) -> list[tuple[str, str]]:
        index = self._index
        if ending:
            self._index += 1
        if has_aws_key_id(text):
            self._last_key = index
            self._redact_held()
        candidate = len(text) >= _SECRET_LENGTH and _BARE_SECRET.compiled.search(text) is not None
        if candidate and index - self._last_key <= AWS_SECRET_WINDOW:
            text, candidate = _BARE_SECRET.compiled.sub(REDACTED, text), False
        if not candidate and not self._held:
            return [(text, ending)]
        self._held.append((index, text, ending, candidate))
        if not ending and sum(len(held[1]) for held in self._held) > _MAX_HELD_PART_CHARACTERS:
            self._redact_held()
        ended = index if ending else index - 1  # the last line given whole: none reaches back
        ready = []
        while self._held and (
            not self._held[0][3] or ended - self._held[0][0] >= AWS_SECRET_WINDOW
        ):
            _, held, end, _ = self._held.popleft()
            ready.append((held, end))
        return ready

    def _redact_held(self) -> None:
        self._held = deque(
            (i, _BARE_SECRET.compiled.sub(REDACTED, held) if candidate else held, end, False)
            for i, held, end, candidate in self._held
        )

    @property
    def idle(self) -> bool:
        """Nothing held, and no key id near enough for the next line's secret to be removed."""
        return not self._held and self._index - self._last_key > AWS_SECRET_WINDOW

    def skip(self, count: int) -> None:
        """`count` lines went by that hold no key id (idle: none of them is held either)."""
        self._index += count

    def close(self) -> list[tuple[str, str]]:
        ready = [(held, end) for _, held, end, _ in self._held]
        self._held.clear()
        return ready


class StreamRedactor:
    """Redacts a text given in pieces of any size; what feed() and close() return is safe to
    write, and together it is exactly what domain.redaction.redact() makes of the whole text."""

    def __init__(self) -> None:
        self._blocks = _KeyBlocks(orphan_ends=False)
        self._window = _AwsWindow()
        self._partial = ""
        self._tried_at = MAX_LINE_CHARACTERS  # the partial line's size when a cut was last sought
        self._dropped: int | None = None  # characters of the line dropped so far (_long_line)

    def feed(self, piece: str) -> str:
        if self._dropped is not None:
            dropped, newline, piece = piece.partition("\n")
            self._dropped += len(dropped)
            if not newline:
                return ""
            note, self._dropped = _NOT_CUT.format(self._dropped), None
            return self._line(note, "\n") + self.feed(piece)
        if "\n" in piece:
            *lines, self._partial = (self._partial + piece).split("\n")
            self._tried_at = MAX_LINE_CHARACTERS
            written = "".join([self._line(line, "\n") for line in lines])
        else:
            self._partial += piece
            written = ""
        if len(self._partial) > max(MAX_LINE_CHARACTERS, self._tried_at):
            written += self._long_line()
        return written

    def close(self) -> str:
        """What is left: the last line if it had no line break, and any line held back."""
        text = self._line(self._partial, "") if self._partial else ""
        if self._dropped is not None:
            text += self._line(_NOT_CUT.format(self._dropped), "")
        self._partial, self._dropped = "", None
        return text + "".join(redact_line_local(line) + end for line, end in self._window.close())

    def _long_line(self) -> str:
        """A part of the unended line held, cut where redacting the two sides apart gives what
        redacting them together does, far enough from its end that no secret begun before the
        cut can end in text still to come. Where no such cut is found in a line of
        MAX_READ_LINE_CHARACTERS, the rest of the line is dropped and a note says so: it may be
        one secret (a quote left open takes the line)."""
        cut = _neutral_cut(self._partial)
        if cut is not None:
            part, self._partial = self._partial[:cut], self._partial[cut:]
            self._tried_at = MAX_LINE_CHARACTERS
            return self._line(part, "")
        self._tried_at = 2 * len(self._partial)
        if len(self._partial) > MAX_READ_LINE_CHARACTERS:
            self._dropped, self._partial = len(self._partial), ""
        return ""

    def _line(self, text: str, ending: str) -> str:
        kept = self._blocks.line(text)
        if kept is None:
            return ""
        return "".join(
            redact_line_local(line) + end for line, end in self._window.line(kept, ending)
        )


def _neutral_cut(text: str, redacted: LineRule | None = None) -> int | None:
    """Where `text` (one line, unended) may be cut: redacting the two sides apart gives what
    redacting it whole does, and the cut leaves a carry behind it that no secret is as long as.
    Tried after the last value-ending characters first, then anywhere; None past _CUT_TRIES.
    `redacted`: the redaction the sides get (by default domain.redaction.redact's)."""
    redacted = redacted or _redacted
    longest = max((len(secret) for secret in registered_secrets()), default=0)
    end = len(text) - max(_CUT_CARRY, longest + 1)
    whole: str | None = None
    for _ in range(_CUT_TRIES):
        if end <= 0:
            return None
        cut = max(text.rfind(character, 0, end) for character in _BREAKS) + 1 or end
        whole = redacted(text) if whole is None else whole
        if (
            not _splits_a_bare_secret(text, cut)
            and not _splits_a_marker(text, cut)
            and redacted(text[:cut]) + redacted(text[cut:]) == whole
        ):
            return cut
        end = cut - 1 if cut < end else end - _CUT_CARRY  # before that break, or further back
    return None


def _splits_a_bare_secret(text: str, cut: int) -> bool:
    """Whether the cut falls inside what may be a bare AWS secret key: the AWS window would see
    neither half, and a key id in a part written before (not in `text`) reaches it."""
    start = max(0, cut - _SECRET_LENGTH + 1)
    found = _BARE_SECRET.compiled.search(text, start, cut + _SECRET_LENGTH + 1)
    return found is not None and found.start() < cut


def _splits_a_marker(text: str, cut: int) -> bool:
    """Whether the cut falls inside a key-block marker (its label may be longer than the carry:
    with nothing after it yet, the sides redact apart as whole, and neither opens the block)."""
    if _BEGIN_GATE not in text and _END_GATE not in text:
        return False
    start = max(0, cut - _MAX_MARKER_CHARACTERS)
    return _MARKER_BEFORE_CUT.compiled.search(text, start, cut) is not None


def _redacted(text: str) -> str:
    """domain.redaction.redact(text): the whole-text rules, key blocks included."""
    return redact_text(text) if needs_lines(text) else redact_line_local(text)


def _redact_physical_lines(
    lines: Sequence[str],
    endings: Sequence[str],
    line_rule: LineRule = redact_line_local,
    cut_blocks: bool = True,
) -> list[str | None]:
    """Each line redacted (without its ending), or None where it was part of a key block.

    With `cut_blocks` False, a block that never ends is left as it was: in text that is run,
    a lone BEGIN is a program printing a header, not a key cut off."""
    blocks = _KeyBlocks(orphan_ends=cut_blocks)
    kept: list[str | None] = []
    opened: tuple[int, int, int] | None = None  # line, and where in it, of the open block
    for index, line in enumerate(lines):
        kept.append(blocks.line(line))
        if blocks.orphan_ends:
            kept[-1] = _cut_off_body_removed(kept, blocks.orphan_ends)
        if blocks.opened is not None:
            opened = (index, *blocks.opened)
    if blocks.open and not cut_blocks and opened is not None:
        first, output_offset, input_offset = opened
        kept[first] = (kept[first] or "")[:output_offset] + lines[first][input_offset:]
        kept[first + 1 :] = lines[first + 1 :]
    out: list[str | None] = [None] * len(kept)
    positions = [i for i, line in enumerate(kept) if line is not None]
    released = [kept[i] or "" for i in positions]
    if any(has_aws_key_id(line) for line in released):
        window = _AwsWindow()
        released = [line for i in positions for line, _ in window.line(kept[i] or "", endings[i])]
        released += [line for line, _ in window.close()]
    for i, line in zip(positions, released, strict=True):
        out[i] = line_rule(line)
    return out


def _cut_off_body_removed(kept: list[str | None], ends: list[tuple[int, bool, bool]]) -> str | None:
    """The last line of `kept` once the body of blocks that closed there without opening is
    gone: the body lines just before it (dropped from `kept`) and a [REDACTED] in their place.

    Only body-looking text goes: what precedes it on the line may be anything, including what an
    earlier pass left of a BEGIN line, so a second pass finds nothing more to remove."""
    lines_dropped = False
    if ends[0][2]:
        for i in range(len(kept) - 2, -1, -1):
            previous = kept[i]
            if previous is None or not _BODY_LINE.compiled.fullmatch(previous):
                break
            kept[i] = None
            lines_dropped = True
    return _cut_off_marked(kept[-1] or "", ends, lines_dropped)


def _cut_off_marked(line: str, ends: list[tuple[int, bool, bool]], lines_dropped: bool) -> str:
    """The line of orphan ENDs with a [REDACTED] where the body before each of them went."""
    for index, (offset, characters_dropped, _) in reversed(list(enumerate(ends))):
        dropped = characters_dropped or (index == 0 and lines_dropped)
        if dropped and not line[:offset].endswith(REDACTED):
            line = line[:offset] + REDACTED + line[offset:]
    return line


@dataclass(frozen=True)
class HeldRun:
    """The body-looking lines a redactor held back at a restart point: how many, and the number
    of the first (they are numbered as they are held, from 1)."""

    lines: int
    first: int


class CutLine:
    """A line longer than MAX_READ_LINE_CHARACTERS as a reader gives it: its first part (cut
    as StreamRedactor cuts a line it writes in parts, so no secret shows in part; nothing where
    no such cut is found), a note saying how much of it is shown, and what the multi-line
    stages see in the rest (the key-block markers and AWS key ids, in order), so that the lines
    after it are redacted as after the whole line. Held: the head and _MARKER_CARRY
    characters, never the line."""

    def __init__(self, head: str) -> None:
        # cut where the writer would cut a line it never ends: no secret runs over the cut (the
        # line-local rules; key-block markers and key ids past it are found and given)
        self._shown = _neutral_cut(head, redact_line_local) or 0
        self._head = head
        self._found: dict[int, str] = {}  # where in the line, what (past the shown head)
        # where the line's first character that is neither leading blank space nor a key body
        # character is: an END there ends a key body begun above (_KeyBlocks._outside)
        self._first_other: int | None = None
        self._blank = True  # the line so far is blank space
        self._last_end = 0  # where the last marker found ends
        self._text_after = False
        self._position = 0
        self._find_first_other(head[: self._shown])
        self._position = self._shown
        self._carry = self._carried(head[: self._shown])
        self.add(head[self._shown :])

    def add(self, text: str) -> None:
        scan = self._carry + text
        base = self._position - len(self._carry)
        for pattern in _CUT_LINE_MARKERS:
            if pattern is AWS_KEY_ID or _BEGIN_GATE in scan or _END_GATE in scan:
                for found in pattern.compiled.finditer(scan):
                    if base + found.end() > self._shown:
                        self._found.setdefault(base + found.start(), found[0])
                        self._last_end = max(self._last_end, base + found.end())
        # whether text follows the last marker: after a BEGIN, a body (on this very line)
        after = text[max(0, self._last_end - self._position) :]
        self._text_after = bool(after.strip()) or (
            self._text_after and self._last_end <= self._position
        )
        self._find_first_other(text)
        self._position += len(text)
        self._carry = self._carried(scan)

    def _carried(self, scan: str) -> str:
        """What of `scan` (the line up to self._position) the next scan starts with: the last
        _MARKER_CARRY characters, or from a marker begun and not ended (its label may be long).
        One begun more than _MAX_MARKER_CHARACTERS ago is found as a marker no other closes
        (a BEGIN hides what follows; an END closes no block but ends a body above it)."""
        carried = max(0, len(scan) - _MARKER_CARRY)
        if _BEGIN_GATE not in scan and _END_GATE not in scan:
            return scan[carried:]
        begun = _BEGUN_MARKER.compiled.search(scan)
        if begun is None or begun.start() >= carried:
            return scan[carried:]
        if len(scan) - begun.start() <= _MAX_MARKER_CHARACTERS:
            return scan[begun.start() :]
        at = self._position - len(scan) + begun.start()
        self._found.setdefault(at, _LONG_BEGIN if begun["gate"] == "BEGIN" else _LONG_END)
        self._last_end = max(self._last_end, self._position)
        return scan[carried:]

    def _find_first_other(self, text: str) -> None:
        """`text` is the line's next, at self._position: the first other character in it."""
        if self._first_other is not None:
            return
        start = 0
        if self._blank:
            start = len(text) - len(text.lstrip(" \t"))
            if start == len(text):
                return
            self._blank = False
        other = _NOT_BODY.compiled.search(text, start)
        if other is not None:
            self._first_other = self._position + other.start()

    def line(self, in_block: bool) -> str:
        """The line the stages are given in place of the whole; `in_block`: it starts inside a
        key block."""
        found = [self._found[at] for at in sorted(self._found)]
        note = f"[wfx: line cut: {self._shown:,} of {self._position:,} characters shown]"
        # the note goes where no block is open (or it would be taken for a key's body) and no
        # value can take it in (a quote left open takes the rest of its line)
        opens = found[-1].startswith(_BEGIN_GATE) if found else self._shown_head_opens_a_block()
        if opens and self._text_after:
            found.append("x")  # the body after the BEGIN, as the stages are to see it
        shown = self._head[: self._shown]
        if in_block:
            return " ".join([shown, *found, note])
        first = self._first_other
        if first is not None and self._found.get(first, "").startswith(_END_GATE):
            # the shown head and all up to the END are a key's body: redacted with it
            return " ".join(["A" + self._found[first], note, *found[1:]])
        end = _END.compiled.match(shown, first) if first is not None else None
        if end is not None:
            # an END that starts the line (after a key's body) stays at its start: the note
            # after it, where no block is open and no value can take it in
            return " ".join([shown[: end.end()], note, shown[end.end() :], *found])
        return " ".join([f"{note} {shown}", *found])

    def _shown_head_opens_a_block(self) -> bool:
        """Whether the shown head's last key-block marker is a BEGIN: the body after it is in
        the part not shown, on this same line."""
        shown = self._head[: self._shown]
        if _BEGIN_GATE not in shown:
            return False
        last = {match.start(): True for match in _BEGIN.compiled.finditer(shown)}
        last.update({match.start(): False for match in _END.compiled.finditer(shown)})
        return bool(last) and last[max(last)]


_NOT_BODY = LazyPattern(r"[^A-Za-z0-9+/=]")
# A key-block marker begun at the end of what was read: its gate, the label so far.
_BEGUN_MARKER = LazyPattern(r"-----(?P<gate>BEGIN|END) [A-Z0-9 ]*-{0,4}\Z")
# The same, its gate or dashes included, as a cut may leave it: `-`, `-----BEG`, `-----END A`.
_MARKER_BEFORE_CUT = LazyPattern(
    r"-----(?:BEGIN|END) [A-Z0-9 ]*-{0,4}\Z|-----(?:B|BE|BEG|BEGI|BEGIN|E|EN|END)\Z|-{1,5}\Z"
)
# What stands for a marker too long to carry: labels no other marker has, so nothing pairs up.
_LONG_BEGIN = "-----BEGIN WFX LABEL TOO LONG PRIVATE KEY-----"
_LONG_END = "-----END WFX LABEL TOO LONG TO CLOSE PRIVATE KEY-----"
_CUT_LINE_MARKERS = (_BEGIN, _END, AWS_KEY_ID)


class StoredTextRedactor:
    """The stages of redact_text over a text given a piece at a time from its start.

    A run of body-looking lines is held back while an END further on could show it to be the
    body of a block whose BEGIN was cut off (redact_text looks back for it); the AWS window holds
    a few lines. So what is held is a piece, a cut-off body and AWS_SECRET_WINDOW lines."""

    def __init__(self) -> None:
        self._blocks = _KeyBlocks(orphan_ends=True)
        self._window = _AwsWindow()
        self._partial = ""
        self._held: deque[tuple[str, str]] = deque()  # body-looking lines an END may yet remove
        self._held_size = 0
        self._serial = 0  # how many body-looking lines were held back so far
        self._dropped_through = 0  # the number of the last of them an END removed
        self._key_id_serial = 0  # the number of the last of them holding an AWS key id
        self._cut: CutLine | None = None  # the line being read, when too long to hold

    def feed(self, piece: str) -> str:
        """What can be given out of the text so far: whole lines, each ending in "\n" (one
        longer than MAX_READ_LINE_CHARACTERS cut, see CutLine)."""
        if "\n" not in piece:
            self._add_partial(piece)
            return ""
        cut, end = piece.index("\n"), piece.rindex("\n")
        out = [self._ended(piece[:cut])]
        if end > cut:
            whole = piece[cut + 1 : end]
            if len(whole) <= MAX_READ_LINE_CHARACTERS:
                out.append(self._whole_lines(whole))
            else:
                out += self._long_text(whole)
        self._add_partial(piece[end + 1 :])
        return "".join(out)

    def _long_text(self, whole: str) -> list[str]:
        """Runs of lines a reader gives whole at once, and each longer line cut."""
        out: list[str] = []
        short: list[str] = []
        for line in whole.split("\n"):
            if len(line) <= MAX_READ_LINE_CHARACTERS:
                short.append(line)
                continue
            if short:
                out.append(self._whole_lines("\n".join(short)))
                short = []
            out.append(self._ended(line))
        if short:
            out.append(self._whole_lines("\n".join(short)))
        return out

    def _add_partial(self, text: str) -> None:
        if self._cut is not None:
            self._cut.add(text)
            return
        self._partial += text
        if len(self._partial) > MAX_READ_LINE_CHARACTERS:
            self._cut = CutLine(self._partial[:MAX_READ_LINE_CHARACTERS])
            self._cut.add(self._partial[MAX_READ_LINE_CHARACTERS:])
            self._partial = ""

    def _ended(self, text: str) -> str:
        """The line that `text` ends (with what came before it), given out."""
        if self._cut is None and len(self._partial) + len(text) <= MAX_READ_LINE_CHARACTERS:
            line, self._partial = self._partial + text, ""
            return self._whole_lines(line)
        self._add_partial(text)
        cut, self._cut, self._partial = self._cut, None, ""
        assert cut is not None
        return self._line(cut.line(self._blocks.open), "\n")

    def _whole_lines(self, whole: str) -> str:
        """The lines of `whole` (none longer than a reader gives whole), each ending in "\n"."""
        lines = whole.split("\n")
        quick = ""
        if self._quiet() and not needs_lines(whole):
            # nothing here for the multi-line stages: the line-local rules over it at once, as
            # redact() does a text with no key block and no key id; the last lines go line by
            # line, as a key id or an END in the next piece may reach back to them
            fast = len(lines) - max(AWS_SECRET_WINDOW, _trailing_body(lines))
            if fast > 0:
                quick = redact_line_local("\n".join(lines[:fast]) + "\n")
                self._window.skip(fast)
                lines = lines[fast:]
        return quick + "".join([self._line(line, "\n") for line in lines])

    def close(self) -> str:
        """The rest: the text after the last "\n" (a line, as redact_text has it) and all held."""
        cut, self._cut = self._cut, None
        last = self._line(cut.line(self._blocks.open) if cut else self._partial, "")
        self._partial = ""
        return last + self._released() + self._ruled(self._window.close())

    def _quiet(self) -> bool:
        return not self._blocks.open and not self._held and self._window.idle

    @property
    def at_rest(self) -> bool:
        """Whether nothing is held (no open block, no line, no cut-off body, no key id near): a
        restart point, where a new redactor given what follows gives the same lines as this one.
        A reader may start there; anywhere else it may print what lies inside a key block."""
        return not self._partial and self._cut is None and self._quiet()

    def restart_wait(self) -> HeldRun | None:
        """Whether a reader may start at this line start with a new redactor, and from when on
        both give the same lines: at rest, at once (a run of no lines); holding back only a run
        of body-looking lines with no key id among them, once all of them are given out (none
        removed by an END: see `removed`). None: not here.

        A new redactor holds the same lines of the run as this one (the newest that fit, see
        _overflow), whatever came before them; what this one holds from before here, once given
        out, changes no line after it (no key id, nothing held in the AWS window). So a log made
        only of body-looking lines still has restart points: one a piece, each usable once the
        lines held there (at most MAX_HELD_BODY_CHARACTERS) are given out."""
        if self._partial or self._cut is not None or self._blocks.open or not self._window.idle:
            return None
        held = len(self._held)
        first = self._serial - held + 1
        if held and self._key_id_serial >= first:
            return None
        return HeldRun(held, first)

    def removed(self, run: HeldRun) -> bool:
        """Whether an END removed held lines since `run` was held: its own, and the restart
        point is none (a new redactor started there would not know the body began above it),
        or ones held after it (then it is given up too, though it would do: a rare loss)."""
        return self._dropped_through >= run.first

    def _line(self, text: str, ending: str) -> str:
        kept = self._blocks.line(text)
        ends = self._blocks.orphan_ends
        if ends:
            dropped = ends[0][2] and bool(self._held)
            if dropped:
                self._held, self._held_size = deque(), 0
                self._dropped_through = self._serial
            marked = _cut_off_marked(kept or "", ends, dropped)
            return self._released() + self._passed(marked, ending)
        if kept is not None and _BODY_LINE.compiled.fullmatch(kept):
            self._held.append((kept, ending))
            self._held_size += len(kept) + _HELD_LINE_OVERHEAD
            self._serial += 1
            if has_aws_key_id(kept):
                self._key_id_serial = self._serial
            return self._overflow()
        released = self._released()  # the run is broken: no END can reach back past this line
        return released if kept is None else released + self._passed(kept, ending)

    def _overflow(self) -> str:
        # no key's body is this long: let the oldest go, so memory stays bounded
        out: list[str] = []
        while self._held and self._held_size > MAX_HELD_BODY_CHARACTERS:
            line, ending = self._held.popleft()
            self._held_size -= len(line) + _HELD_LINE_OVERHEAD
            out.append(self._passed(line, ending))
        return "".join(out)

    def _released(self) -> str:
        held, self._held, self._held_size = self._held, deque(), 0
        return "".join([self._passed(line, ending) for line, ending in held])

    def _passed(self, line: str, ending: str) -> str:
        return self._ruled(self._window.line(line, ending))

    @staticmethod
    def _ruled(lines: list[tuple[str, str]]) -> str:
        return "".join([redact_line_local(line) + ending for line, ending in lines])


def _trailing_body(lines: list[str]) -> int:
    """How many of the last lines look like a key's body."""
    count = 0
    while count < len(lines) and _BODY_LINE.compiled.fullmatch(lines[-count - 1]):
        count += 1
    return count


def redacted_lines(pieces: Iterable[str]) -> Iterator[str]:
    """The lines of a stored text given in pieces from its start, redacted: line for line what
    redact(text).splitlines() gives of the whole text (a block cut off at either end included),
    holding only a piece and what StoredTextRedactor holds back."""
    stored = StoredTextRedactor()
    for piece in pieces:
        # each piece given out ends in "\n": split apart, its lines are those of the whole
        yield from stored.feed(piece).splitlines()
    yield from stored.close().splitlines()


def redacted_pieces(pieces: Iterable[str]) -> Iterator[str]:
    """A stored text given in pieces from its start, redacted a piece at a time: joined, exactly
    what redact() makes of the whole text (a line longer than MAX_READ_LINE_CHARACTERS cut, see
    CutLine), holding what redacted_lines holds."""
    stored = StoredTextRedactor()
    for piece in pieces:
        if out := stored.feed(piece):
            yield out
    if out := stored.close():
        yield out


def redact_text(text: str, line_rule: LineRule = redact_line_local, cut_blocks: bool = True) -> str:
    """The whole text through every stage; a block cut at either end is still removed, unless
    `cut_blocks` is False (see _redact_physical_lines)."""
    lines = text.split("\n")
    endings = ["\n"] * (len(lines) - 1) + [""]
    redacted = _redact_physical_lines(lines, endings, line_rule, cut_blocks)
    return "".join(
        line + end for line, end in zip(redacted, endings, strict=True) if line is not None
    )


def needs_lines(text: str) -> bool:
    """Whether a text holds anything only the multi-line stages can see."""
    return _BEGIN_GATE in text or _END_GATE in text or has_aws_key_id(text)


def redact_lines(messages: Sequence[str]) -> list[str | None]:
    """A page of log lines (one message each, in order), redacted as one text: a key block that
    spans messages is removed, and so is one cut off at the page's start or end. A message that
    was all key body is None."""
    if not any(needs_lines(message) for message in messages):
        return [redact_line_local(message) for message in messages]
    owners: list[int] = []
    lines: list[str] = []
    endings: list[str] = []
    for owner, message in enumerate(messages):
        parts = message.split("\n")
        owners += [owner] * len(parts)
        lines += parts
        endings += ["\n"] * (len(parts) - 1) + [""]
    pieces: list[list[str]] = [[] for _ in messages]
    for owner, line, end in zip(
        owners, _redact_physical_lines(lines, endings), endings, strict=True
    ):
        if line is not None:
            pieces[owner].append(line + end)
    return ["".join(parts) if parts else None for parts in pieces]
