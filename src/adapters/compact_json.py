"""An item's compact ASCII JSON, the text `json.JSONEncoder(separators=(",", ":"))` gives, cheaper.

`JSONEncoder.encode` builds its C encoder anew on every call, with a fresh memo of the objects it
is inside (the circular-reference check); for the small dicts a store writes, 40-odd a warm run,
that set-up cost more than the encoding itself (~3x the encode alone). Here the C encoder is built
once, without the memo: an item is a tree the record builders made, and a cycle would end in a
RecursionError as with `check_circular=False`. Same text, same TypeError for a value JSON has no
form for; where the C encoder is missing (another Python), the plain encoder does it.

Its strings are escaped by the C escaper that keeps characters past ASCII as they are, ~10% less
work a character than the ASCII one (the escaping is half of an item's encoding). On ASCII text
the two differ in DEL alone (`\\u007f` against the raw character), so a text all ASCII with no
DEL is the ASCII encoder's own; any other (a name with an accent) is encoded again by it.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from json import encoder as _encoder_module
from typing import Any

_PLAIN = json.JSONEncoder(separators=(",", ":"))
_DEL = "\x7f"


def _unencodable(value: object) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


def _built_once() -> Callable[[Any], str]:
    make = getattr(_encoder_module, "c_make_encoder", None)
    if make is None:
        return _PLAIN.encode
    try:  # markers, default, string encoder, indent, separators, sort_keys, skipkeys, allow_nan
        ascii_encoder, raw_encoder = (
            make(None, _unencodable, escape, None, ":", ",", False, False, True)
            for escape in (
                _encoder_module.encode_basestring_ascii,
                _encoder_module.encode_basestring,
            )
        )
    except TypeError:  # another signature: not this Python's C encoder
        return _PLAIN.encode

    def encode(value: Any) -> str:
        text = "".join(raw_encoder(value, 0))
        if text.isascii() and _DEL not in text:
            return text
        return "".join(ascii_encoder(value, 0))

    return encode


encode_compact: Callable[[Any], str] = _built_once()
