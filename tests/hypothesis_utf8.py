"""hypothesis's table of the characters UTF-8 encodes, written where hypothesis keeps it.

schemathesis draws its strings with `st.characters(codec="utf-8")`. The first such strategy in a
process with no `.hypothesis/` yet (every fresh clone: each of CI's pytest workers) makes
hypothesis build its table by encoding and decoding each of the 1.1 M code points in a Python
loop, 1.9 s CPU, and keep it in a file for the next processes. The table is known: every code
point but the surrogates encodes, and decodes back to itself. This checks that in C (one encode
and one decode of all of them at once, each surrogate refused: 0.06 s) and writes the file
hypothesis would have written (the same JSON, gzipped as it does), so hypothesis reads it.
"""

from __future__ import annotations

import gzip
import json
import os
import sys
import tempfile
from array import array
from typing import Any

SURROGATES = (0xD800, 0xDFFF)


def _checked_intervals() -> list[list[int]]:
    """What UTF-8 encodes, as hypothesis's intervals, checked on every code point."""
    encodable = [[0, SURROGATES[0] - 1], [SURROGATES[1] + 1, sys.maxunicode]]
    codes = array("I" if array("I").itemsize == 4 else "L")  # UTF-32's code units
    for low, high in encodable:
        codes.extend(range(low, high + 1))
    text = codes.tobytes().decode("utf-32-le" if sys.byteorder == "little" else "utf-32-be")
    assert len(text) == sys.maxunicode + 1 - (SURROGATES[1] + 1 - SURROGATES[0])
    assert text.encode("utf-8").decode("utf-8") == text
    for code in range(SURROGATES[0], SURROGATES[1] + 1):
        try:
            chr(code).encode("utf-8")
        except UnicodeEncodeError:
            continue
        raise AssertionError(f"UTF-8 encodes the surrogate {code:#x}")
    return encodable


def know_the_utf8_table() -> None:
    """Write hypothesis's UTF-8 table where it looks first, unless it is there or this
    hypothesis keeps it elsewhere (then it builds the table itself, as before)."""
    from hypothesis.internal import charmap

    where: Any = getattr(charmap, "charmap_file", None)
    if where is None or not hasattr(charmap, "intervals_from_codec"):
        return
    path = where("codec-v2-utf-8")
    if path.exists():
        return
    # hypothesis's own write: its intervals and the (empty) non-round-tripping ones, mtime 1
    text = json.dumps([_checked_intervals(), []]).encode()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, staged = tempfile.mkstemp(dir=path.parent)
        os.close(fd)
        with gzip.GzipFile(staged, "wb", mtime=1) as file:
            file.write(text)
        os.replace(staged, path)  # two workers may write it at once: each writes it whole
    except OSError:
        return  # no room to keep it: hypothesis builds the table, as it would have
