"""moto's answer to which actions a response class has, found once per class.

moto 5.2's `BaseResponse.call_action` asks `method_names_from_class(self.__class__)` on every
request: an `inspect.getmembers` over the class and its bases (about a hundred members, each
read and tested, then sorted), 0.1 ms, 4-6 % of the CPU of a moto request. The answer is the
names of the class's functions, which nothing changes while the tests run (no test patches a
response class), so the tests' moto keeps it per class: the in-process mocks and the server of
tests/integration/moto_server.py, whose threads answer in this process, alike. (moto's S3
answers through its own dispatch, never asking.)
"""

from __future__ import annotations

import functools
from typing import Any


def find_method_names_once() -> None:
    from moto.core import responses

    asked: Any = getattr(responses, "method_names_from_class", None)
    if asked is None or not hasattr(responses.BaseResponse, "call_action"):
        return  # another moto: asked on each request, slower and never wrong
    if getattr(asked, "wfx_cached", False):
        return
    kept = functools.cache(asked)

    def method_names_from_class(clazz: object) -> list[str]:
        """moto.core.utils.method_names_from_class, asked once per class."""
        return list(kept(clazz))  # a copy, as each call of moto's own is a new list

    method_names_from_class.wfx_cached = True  # type: ignore[attr-defined]
    responses.method_names_from_class = method_names_from_class  # type: ignore[attr-defined]
