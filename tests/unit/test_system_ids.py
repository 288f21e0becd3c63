"""The id generator's new ids: VAMS GUIDs ordered by their milliseconds, their random part drawn
from os.urandom a batch at a time, and never the same in a forked child as in its parent."""

from __future__ import annotations

import os
import re
import time

from adapters.system import RandomBytes, UuidGenerator

_GUID = re.compile(r"[0-9a-f]{32}")


def test_new_ids_are_guids_leading_with_their_milliseconds_and_never_repeat() -> None:
    ids = UuidGenerator()
    before = time.time_ns() // 1_000_000
    made = [ids.new_id() for _ in range(1000)]  # ~10 batches of random bytes
    after = time.time_ns() // 1_000_000
    assert all(_GUID.fullmatch(made_id) for made_id in made)
    assert all(before <= int(made_id[:12], 16) <= after for made_id in made)
    assert len(set(made)) == len(made)
    assert len({made_id[12:] for made_id in made}) == len(made)  # the random parts too


def test_the_bytes_of_a_batch_are_handed_out_once_each_and_a_large_take_gets_its_own() -> None:
    random = RandomBytes(batch=32)
    taken = [random.take(10) for _ in range(7)]  # three to a batch: a new one every fourth
    assert all(len(part) == 10 for part in taken)
    assert len(set(taken)) == len(taken)
    assert len(random.take(100)) == 100  # more than a batch


def test_a_forked_child_hands_out_ids_of_its_own() -> None:
    ids = UuidGenerator()
    ids.new_id()  # the batch is drawn before the fork: the child must not reuse what is left
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's part
        try:
            os.close(read)
            os.write(write, "".join(ids.new_id()[12:] for _ in range(20)).encode("ascii"))
        finally:
            os._exit(0)
    os.close(write)
    parents = {ids.new_id()[12:] for _ in range(20)}
    with os.fdopen(read, "rb") as pipe:
        text = pipe.read().decode("ascii")
    os.waitpid(child, 0)
    childs = {text[start : start + 20] for start in range(0, len(text), 20)}
    assert len(childs) == 20
    assert not parents & childs
