"""The step interpreter: walks a run's steps in chain order, runs each through its retry policy
and reports every move to the use cases. It knows no process, file or store: the runner hands
it the steps, a way to run one, and the run's stop; tests drive it with plain functions.

What it holds to:
- A step starts only if StartStep lets it: once an abort is requested the start is refused,
  and the run ends with nothing more run.
- Whatever a step reported, what is recorded is what FinishStep says (ABORTED on a run being
  aborted); a step that did not end SUCCEEDED ends the run.
- Once its lease is lost (StopReason.LOST) the runner writes nothing more: whoever ended the
  run has the last word, and a result of an old attempt would be refused anyway.
- A step at an approval gate parks the run (RunParkedError): the runner stops walking, records
  nothing more, and the run stays RUNNING until a decision hands it to a new runner, which takes
  the gate's attempt up again (`resume_attempt`).
- A store error is retried with backoff; when the store stays away, the run is recorded FAILED
  if it can be, and the runner stops without a traceback.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import TypeVar

from adapters.local.supervisor import RunStop, StopReason
from application.ports.orchestration import RunReporter
from domain.derived import derived
from domain.errors import DomainError
from domain.execution import PipelineExecution, WorkflowExecution
from domain.run import AttemptFencedError, Run, RunIsOverError, RunIsStoppingError
from domain.statuses import ExecutionStatus, StepStatus
from domain.workflow import RetryPolicy

T = TypeVar("T")

# Backoff of a reporter call the store failed: 0.1, 0.2, 0.4, 0.8, 1.6, 3.2 s, about 6 s in all.
STORE_RETRIES = 6
_FIRST_BACKOFF_SECONDS = 0.1
INTERRUPTED = "local runner: interrupted"
STORE_FAILED = "local runner: the store failed"


class StoreUnavailableError(RuntimeError):
    """The store kept failing a runner's report through every retry."""


class RunParkedError(Exception):
    """The step waits for a decision (an approval gate) and the run is parked: the runner
    leaves it, holding nothing, and whoever decides hands it to a new runner."""


class StepTimedOutError(Exception):
    """The step ran out of time (an approval gate nobody decided): it ends TIMED_OUT."""


# Not frozen: a frozen dataclass's __init__ sets each field through object.__setattr__, ~10 k
# instructions a step; nothing changes one once it is made.
@dataclass(slots=True)
class PlannedStep:
    """A step to run: its row as read when the run started, and its retry policy.
    `resume_attempt`: the attempt of a step that is already RUNNING and is taken up again
    (a gate the run was parked at), which is not started a second time. `next_attempt`: the
    number its start expects (a redriven step's next); a wrong one costs a read."""

    step: PipelineExecution
    retry: RetryPolicy | None = None
    resume_attempt: int | None = None
    next_attempt: int = 1


# Runs one attempt of a step: its error, or None when it succeeded.
StepAction = Callable[[PipelineExecution, int], "str | None"]


class KilledStep(str):
    """A step's error when its process ended by a signal its runner did not send: most often
    another process's abort, which moved the run's main row before this runner saw it."""

    __slots__ = ()


class StepInterpreter:
    """Runs a run's remaining steps; `run` returns the run's status as recorded (None when the
    runner lost the run and recorded nothing)."""

    def __init__(
        self,
        reporter: RunReporter,
        stop: RunStop,
        sleep: Callable[[float], None] | None = None,
        backoff: Callable[[float], None] = time.sleep,
    ) -> None:
        self._reporter, self._stop = reporter, stop
        self._known: Run | None = None  # the run as this runner started it
        self._outputs_stored: Callable[[], bool] = _always
        # the wait between attempts; by default it ends as soon as a stop is asked for
        self._sleep = sleep or stop.wait
        self._backoff = backoff

    def run(
        self,
        workflow_execution_id: str,
        steps: Sequence[PlannedStep],
        action: StepAction,
        started: int | None = None,
        known: WorkflowExecution | None = None,
        outputs_stored: Callable[[], bool] | None = None,
    ) -> ExecutionStatus | None:
        """`started`: the attempt of the first remaining step, when the lease's write started
        it; `known`: the main row as the lease's write left it (the run's end is decided on it
        and the steps, with no read); `outputs_stored`: False while the runner knows nothing
        is stored under the run's output prefix (the reports then list nothing)."""
        execution_id = workflow_execution_id
        self._outputs_stored = outputs_stored or _always
        if known is not None:
            # the valid main row and steps as the caller holds them (domain.derived)
            self._known = derived(
                Run, execution=known, steps=tuple([planned.step for planned in steps])
            )
        remaining = [
            planned for planned in steps if planned.step.status is not StepStatus.SUCCEEDED
        ]
        # a redrive continues from the step that did not succeed
        # the attempt of a step started by the write before (its predecessor's end, the lease)
        try:
            for index, planned in enumerate(remaining):
                if self._stop.requested:
                    return self._end_stopped(execution_id)
                following = remaining[index + 1] if index + 1 < len(remaining) else None
                if following is not None and following.resume_attempt is not None:
                    following = None  # a gate's attempt taken up again is not started anew
                last = index + 1 == len(remaining)
                ended, started = self._run_step(
                    execution_id, planned, action, following, last, started
                )
                if ended is not None:
                    return ended
            return self._complete(execution_id, ExecutionStatus.SUCCEEDED, None)
        except AttemptFencedError:
            return None  # another writer ended this attempt: the run is not ours any more
        except StoreUnavailableError as error:
            return self.record_failure(execution_id, f"{STORE_FAILED}: {error}")

    def _run_step(
        self,
        execution_id: str,
        planned: PlannedStep,
        action: StepAction,
        following: PlannedStep | None = None,
        last: bool = False,
        started: int | None = None,
    ) -> tuple[ExecutionStatus | None, int | None]:
        """Run one step to its end; the run's recorded status when it ended the run, and the
        attempt of `following` when the step's end started it too (one write). The `last`
        step's success ends the run in the same write. `started`: the attempt the write before
        started, taken up as a `resume_attempt` is."""
        step_id = planned.step.pipeline_execution_id
        timed_out = False
        if started is not None:
            attempt = started
        elif planned.resume_attempt is not None:
            attempt = planned.resume_attempt
        else:
            try:
                attempt = self.persist(
                    lambda: self._reporter.step_started(execution_id, step_id, planned.next_attempt)
                )
            except (RunIsStoppingError, RunIsOverError):
                return self._end_stopped(execution_id), None
        number = 1
        while True:
            try:
                error = action(planned.step, attempt)
            except RunParkedError:
                return ExecutionStatus.RUNNING, None  # as recorded: open, waiting at its gate
            except StepTimedOutError as ran_out:
                error, timed_out = str(ran_out), True
            except (AttemptFencedError, StoreUnavailableError):
                raise  # the run is not this runner's any more, or the store is gone: run() says
            except BaseException:  # Ctrl-C in inline mode: the step and the run end with it
                self._record_interrupted(execution_id, step_id, attempt)
                raise
            policy = planned.retry
            if error is None or self._stop.requested or policy is None:
                break
            if number >= policy.max_attempts:
                break
            # seed 003: the failed attempt is kept, the step runs again as a new one
            number += 1
            try:
                attempt = self.persist(
                    partial(self._reporter.step_retrying, execution_id, step_id, error, attempt)
                )
            except (RunIsStoppingError, RunIsOverError):
                break
            self._sleep(policy.delay_before(number))
        if self._stop.reason is StopReason.LOST:
            return None, None
        status = StepStatus.SUCCEEDED if error is None else StepStatus.FAILED
        if timed_out:
            status = StepStatus.TIMED_OUT
        if self._stop.reason is StopReason.ABORT:
            # it ended because it was stopped (or despite it): an aborted step did not succeed
            status = StepStatus.ABORTED
        return self._record_step_end(execution_id, step_id, status, error, attempt, following, last)

    def _record_interrupted(self, execution_id: str, step_id: str, attempt: int) -> None:
        self._end_with_step(execution_id, step_id, StepStatus.ABORTED, INTERRUPTED, attempt)

    def _end_with_step(
        self, execution_id: str, step_id: str, status: StepStatus, error: str | None, attempt: int
    ) -> ExecutionStatus | None:
        """The step's end that ends the run (it did not succeed), one write: the run's status as
        recorded; None, nothing written, for a run this runner lost."""
        if self._stop.reason is StopReason.LOST:
            return None
        stored = self._outputs_stored()
        # an abort was written after the run this runner knows (it saw it, or its step was
        # killed by a signal it did not send, an abort's most often): its main row is read first
        moved = self._stop.reason is StopReason.ABORT or isinstance(error, KilledStep)
        _, ended = self.persist(
            lambda: self._reporter.last_step_finished(
                execution_id, step_id, attempt, self._known, stored, status, error, moved
            )
        )
        return ended

    def _record_step_end(
        self,
        execution_id: str,
        step_id: str,
        status: StepStatus,
        error: str | None,
        attempt: int,
        following: PlannedStep | None,
        last: bool,
    ) -> tuple[ExecutionStatus | None, int | None]:
        """Write the step's end with the run's (one write: the run ends with a step that did
        not succeed, and with its last one), or with the next step's start where it can; the
        run's recorded status when it ended, and the next step's attempt when it started."""
        if status is not StepStatus.SUCCEEDED:
            return self._end_with_step(execution_id, step_id, status, error, attempt), None
        next_attempt: int | None = None
        if last:
            _, ended = self.persist(
                lambda: self._reporter.last_step_finished(
                    execution_id, step_id, attempt, self._known, self._outputs_stored()
                )
            )
            return ended, None
        if following is not None:
            next_id = following.step.pipeline_execution_id
            stored = self._outputs_stored()
            recorded, next_attempt = self.persist(
                lambda: self._reporter.step_handed_on(
                    execution_id, step_id, attempt, next_id, stored
                )
            )
        else:
            recorded = self.persist(
                lambda: self._reporter.step_finished(execution_id, step_id, status, error, attempt)
            )
        if recorded is StepStatus.SUCCEEDED:
            return None, next_attempt
        # a success recorded otherwise (the run being aborted): the run ends as its step did
        return self._complete(execution_id, ExecutionStatus(recorded), error), None

    def _end_stopped(self, execution_id: str) -> ExecutionStatus | None:
        if self._stop.reason is StopReason.LOST:
            return None
        # the run is being aborted: its end is ABORTED, whoever writes it first
        return self._complete(execution_id, ExecutionStatus.ABORTED, None)

    def _complete(
        self, execution_id: str, status: ExecutionStatus, error: str | None
    ) -> ExecutionStatus | None:
        if self._stop.reason is StopReason.LOST:
            return None
        return self.persist(lambda: self._reporter.execution_completed(execution_id, status, error))

    def record_failure(self, execution_id: str, message: str) -> ExecutionStatus | None:
        """End the run FAILED with `message`, the store permitting; None when it does not."""
        try:
            return self.persist(
                lambda: self._reporter.execution_completed(
                    execution_id, ExecutionStatus.FAILED, message
                )
            )
        except StoreUnavailableError:
            # Nothing more can be written: the lease runs out and a read ends the run.
            print(f"wfx: run {execution_id}: {message}; not recorded", file=sys.stderr)
            return None

    def persist(self, call: Callable[[], T]) -> T:
        """The reporter (or store) call, tried again with backoff when the store fails it; the
        run's own refusals (domain errors) are not store failures and pass at once."""
        delay = _FIRST_BACKOFF_SECONDS
        for attempt in range(STORE_RETRIES + 1):
            try:
                return call()
            except DomainError:
                raise
            except Exception as error:
                if attempt == STORE_RETRIES:
                    raise StoreUnavailableError(f"{type(error).__name__}: {error}") from error
                print(
                    f"wfx: the store failed ({type(error).__name__}: {error}); "
                    f"trying again in {delay:g} s",
                    file=sys.stderr,
                )
                self._backoff(delay)
                delay *= 2
        raise AssertionError("unreachable")


def _always() -> bool:
    return True
