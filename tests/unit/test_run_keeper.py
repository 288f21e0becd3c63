"""The keeper's one thread: it looks at each run when due, is woken for a run due sooner than its
wait, ends once it has had nothing to keep for a while, and a run kept after that starts another.

A keeper's thread outliving its use woke to look at nothing for as long as the process lived:
a test worker that had built a few hundred runners carried as many threads, each taking the GIL
at its smallest interval, and slowed to a crawl."""

from __future__ import annotations

import threading
import time

from adapters.local.supervisor import RunKeeper, Standing, StopReason

SECONDS = 10.0  # what each wait allows before the test fails; each passes in a fraction of it


class _Looks:
    """A run's watch: it counts the looks and remembers the thread that took the last."""

    def __init__(self) -> None:
        self.taken = threading.Event()
        self.thread: threading.Thread | None = None

    def __call__(self) -> Standing:
        self.thread = threading.current_thread()
        self.taken.set()
        return Standing.RUNNING


def _keep(keeper: RunKeeper, execution_id: str, watch_seconds: float) -> _Looks:
    looks = _Looks()
    keeper.keep(execution_id, looks, _renewed, _never_stopped, 30.0, watch_seconds)
    return looks


def _renewed() -> bool:
    return True


def _never_stopped(reason: StopReason) -> None:
    raise AssertionError(f"no run here is stopped, yet one was: {reason}")


def test_the_thread_ends_once_idle_and_the_next_run_kept_starts_another() -> None:
    keeper = RunKeeper(idle_seconds=0.2)
    first = _keep(keeper, "run-1", watch_seconds=0.01)
    assert first.taken.wait(SECONDS)
    keeper.release("run-1")

    assert first.thread is not None
    first.thread.join(SECONDS)
    assert not first.thread.is_alive(), "the keeper's thread outlived its last run"

    second = _keep(keeper, "run-2", watch_seconds=0.01)
    assert second.taken.wait(SECONDS), "a run kept after the thread ended was never looked at"
    assert second.thread is not None and second.thread is not first.thread
    keeper.release("run-2")


def test_a_run_due_sooner_than_the_threads_wait_wakes_it() -> None:
    keeper = RunKeeper()
    slow = _keep(keeper, "slow", watch_seconds=30.0)  # the thread now waits ten seconds
    fast = _keep(keeper, "fast", watch_seconds=0.01)

    assert fast.taken.wait(SECONDS / 2), "the run due sooner waited for the other's look"
    assert not slow.taken.is_set()
    keeper.release("slow")
    keeper.release("fast")


def test_a_thread_with_runs_to_keep_stays() -> None:
    keeper = RunKeeper(idle_seconds=0.05)
    kept = _keep(keeper, "long", watch_seconds=0.01)
    assert kept.taken.wait(SECONDS)

    time.sleep(0.3)  # six idle times pass with the run kept
    kept.taken.clear()
    assert kept.taken.wait(SECONDS), "the thread ended with a run still kept"
    assert kept.thread is not None and kept.thread.is_alive()
    keeper.release("long")
