"""This process's id as the supervisor names it (its runner records, its lease owners), read once
and read again in a forked child, which must never pass for its parent."""

from __future__ import annotations

import os

from adapters.local.processes_on_host import own_pid
from adapters.local.supervisor import lease_owner, this_process


def test_own_pid_is_this_process_id() -> None:
    assert own_pid() == os.getpid()
    assert this_process("thread").pid == os.getpid()
    assert f":{os.getpid()}:" in lease_owner()


def test_a_forked_child_names_itself_not_its_parent() -> None:
    this_process("thread")  # the parent's record is made first, and kept
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # pragma: no cover - the child's part
        try:
            os.close(read)
            named = (own_pid(), this_process("thread").pid, lease_owner().split(":")[-2])
            os.write(write, f"{os.getpid()} {' '.join(map(str, named))}".encode("ascii"))
        finally:
            os._exit(0)
    os.close(write)
    with os.fdopen(read, "rb") as pipe:
        text = pipe.read().decode("ascii")
    os.waitpid(child, 0)
    actual, *names = text.split()
    assert actual == str(child)
    assert names == [str(child)] * 3
