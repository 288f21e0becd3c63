"""Running one step of a local run: a python handler in-process, or a command as a subprocess."""

from __future__ import annotations

import contextlib
import functools
import importlib
import inspect
import os
import signal
import subprocess
import sys
import threading
import traceback
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TextIO, cast

from adapters.local.command_inputs import input_variables
from adapters.local.redacted_output import RedactedLogFile, copy_redacted_output
from adapters.local.step_environment import step_environment
from adapters.local.step_user import StepUser, open_run_folder

PYTHON_PLACEHOLDER = "{python}"
_STDERR_TAIL_LINES = 10
_STDERR_TAIL_CHARS = 2000


# Not frozen: a frozen dataclass's __init__ sets each field through object.__setattr__, ~9 k
# instructions a step; nothing changes one once it is made.
@dataclass(slots=True)
class StepRun:
    """What a step is given: its inputs, the shared output folder, its ids and its log file."""

    workflow_execution_id: str
    pipeline_execution_id: str
    input_files: Sequence[str]
    output_dir: str
    run_dir: str  # the run's own folder: its input lists, never an output
    log_path: Callable[[], Path]  # called only when the step writes to its log
    # Publishes a registration event for this step; given to a handler that takes `register`.
    register: Callable[..., object] | None = None
    # Proves a registration comes from this step; a command step gets it in its environment.
    registration_token: str | None = field(default=None, repr=False)


class StepFailedError(Exception):
    """A step ended without success; the message is the step's error as recorded."""


class StepKilledError(StepFailedError):
    """The step's process ended by a signal (its runner's stop, or another process's)."""


# --- python steps ---------------------------------------------------------------------------------

_handlers: dict[str, Callable[..., object]] = {}


def load_handler(reference: str, handler_path: str | None = None) -> Callable[..., object]:
    """`package.module:function` (or `:Class.method`), imported once per process; the step's
    handlerPath is searched after sys.path, as publishing checked (so it shadows nothing)."""
    handler = _handlers.get(reference)
    if handler is None:
        if handler_path and handler_path not in sys.path:
            sys.path.append(handler_path)
        module_name, _, attribute_path = reference.partition(":")
        target: Any = importlib.import_module(module_name)
        for attribute in attribute_path.split("."):
            target = getattr(target, attribute)
        if not callable(target):
            raise TypeError(f"handler {reference} is not callable")
        handler = _handlers[reference] = target
    return handler


def run_python_step(handler_reference: str, step: StepRun, handler_path: str | None = None) -> None:
    """Call the handler with the step's inputs; its prints go to the step log."""
    log = RedactedLogFile(step.log_path)
    previous = _output_router.enter(log)
    try:
        handler = load_handler(handler_reference, handler_path)
        handler(
            input_files=list(step.input_files),
            output_dir=step.output_dir,
            execution_id=step.workflow_execution_id,
            pipeline_execution_id=step.pipeline_execution_id,
            **_registration_keyword(handler, step),
        )
    except (Exception, SystemExit) as error:  # a handler calling sys.exit() fails only its step
        log.write(traceback.format_exc())
        raise StepFailedError(_as_text(f"{type(error).__name__}: {error}")) from error
    finally:
        _output_router.leave(previous)
        log.close()


def _as_text(message: str) -> str:
    # A handler's error may hold a lone surrogate (os.fsdecode of a name that is not UTF-8): no
    # store can keep it, so it is written as the escape the CLI and viewer show (`\\udcff`).
    return message.encode("utf-8", "backslashreplace").decode("utf-8")


def _registration_keyword(handler: Callable[..., object], step: StepRun) -> dict[str, Any]:
    """`register` only for a handler that names it: handlers written before it keep working."""
    if step.register is None or not _takes_register(handler):
        return {}
    return {"register": step.register}


@functools.lru_cache(maxsize=256)
def _takes_register(handler: Callable[..., object]) -> bool:
    # Cached: inspecting a signature costs more than a whole trivial step.
    try:
        parameters = inspect.signature(handler).parameters
    except (TypeError, ValueError):  # a builtin or C callable without a signature
        return False
    return "register" in parameters and parameters["register"].kind in (
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
        inspect.Parameter.KEYWORD_ONLY,
    )


class _RoutedStream:
    """Stands in for sys.stdout / sys.stderr: a thread running a python step writes to its step
    log, every other thread (a progress display, say) to the stream that was there before."""

    def __init__(self, default: TextIO, targets: dict[int, Any]) -> None:
        self._default = default
        self._targets = targets

    @property
    def routed_default(self) -> TextIO:
        """The stream every thread but a python step's writes to (what was there before)."""
        return self._default

    def _current(self) -> Any:
        return self._targets.get(threading.get_ident(), self._default)

    def write(self, text: str) -> int:
        return cast(int, self._current().write(text))

    def flush(self) -> None:
        self._current().flush()

    def isatty(self) -> bool:
        current = self._current()
        return current is self._default and bool(current.isatty())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._default, name)  # encoding, fileno, ... of the real stream


class _OutputRouter:
    """Installs the routed streams while at least one python step runs, and removes them after."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._targets: dict[int, Any] = {}
        self._installed: tuple[TextIO, TextIO, TextIO, TextIO] | None = None
        # the last streams installed, kept for the next step: reused while sys.stdout and
        # sys.stderr are still the ones they stand in for
        self._last: tuple[TextIO, TextIO, TextIO, TextIO] | None = None

    def enter(self, target: Any) -> Any:
        """Send this thread's output to `target`; returns what leave() restores."""
        thread = threading.get_ident()
        with self._lock:
            if self._installed is None:
                stdout, stderr = sys.stdout, sys.stderr
                last = self._last
                if last is None or last[0] is not stdout or last[1] is not stderr:
                    routed_out = cast(TextIO, _RoutedStream(stdout, self._targets))
                    routed_err = cast(TextIO, _RoutedStream(stderr, self._targets))
                    last = self._last = (stdout, stderr, routed_out, routed_err)
                sys.stdout, sys.stderr = last[2], last[3]
                self._installed = last
            previous = self._targets.get(thread)  # set when a step runs a nested run inline
            self._targets[thread] = target
        return previous

    def leave(self, previous: Any) -> None:
        thread = threading.get_ident()
        with self._lock:
            if previous is None:
                del self._targets[thread]
            else:
                self._targets[thread] = previous
            if not self._targets and self._installed is not None:
                stdout, stderr, routed_out, routed_err = self._installed
                # leave alone a stream someone else replaced in the meantime
                if sys.stdout is routed_out:
                    sys.stdout = stdout
                if sys.stderr is routed_err:
                    sys.stderr = stderr
                self._installed = None


_output_router = _OutputRouter()


# --- command steps --------------------------------------------------------------------------------


def command_environment(step: StepRun, home: str | None = None) -> dict[str, str]:
    """The allow-listed environment (adapters/local/step_environment.py) and the step's own;
    `home`: the HOME of the user the step runs as."""
    own = {
        **input_variables(step.input_files, step.run_dir, step.pipeline_execution_id),
        "WFX_OUTPUT_DIR": step.output_dir,
        "WFX_EXECUTION_ID": step.workflow_execution_id,
        "WFX_PIPELINE_EXECUTION_ID": step.pipeline_execution_id,
        # this step's own, and never the token of a step this runner itself runs inside
        "WFX_REGISTRATION_TOKEN": step.registration_token or "",
    }
    # The step's environment, not wfx's configuration: what the runner's own environment passes
    # on through the allow list, so it is read here rather than through Settings.
    return step_environment(os.environ, own, home)


def unwaitable_children() -> str | None:
    """Why this process cannot learn how a step's process ends, if it cannot: ignoring SIGCHLD
    has the kernel reap each child at its end, and a wait on one then reads exit code 0
    (Python's subprocess on ECHILD), so a step that failed would read as SUCCEEDED."""
    if signal.getsignal(signal.SIGCHLD) is not signal.SIG_IGN:
        return None
    return (
        "this process ignores SIGCHLD (it was started so), so the local runner cannot learn how "
        "a step's process ends: run wfx from a process that does not ignore SIGCHLD (the wfx "
        "command restores it itself)"
    )


def run_command_step(
    command: Sequence[str],
    step: StepRun,
    on_start: Callable[[subprocess.Popen[bytes]], None] | None = None,
    guard: Sequence[str] = (),
    as_user: StepUser | None = None,
) -> None:
    """Run the command with stdout and stderr in the step log, redacted; a non-zero exit fails
    the step.

    The command runs in a session and process group of its own, behind `guard` (the argv that
    runs it, adapters/local/step_guard.py, up to its `--`) when one is given. `on_start` is given
    the process as soon as it runs (so a stop can kill its group); behind a guard, the command
    itself starts only once `on_start` has returned (the guard waits for a byte on a pipe), so
    a runner killed before it recorded the process leaves no command behind. `as_user`: the
    guard runs the command as that user (its `--as` is in `guard`), in the output folder, which
    with the inputs folder is given to it first.
    """
    unwaitable = unwaitable_children()
    if unwaitable is not None:  # a launch is refused so; a redrive or an approval gets here
        raise StepFailedError(unwaitable)
    environment = command_environment(step, None if as_user is None else as_user.home)
    if as_user is not None:
        open_run_folder(step.run_dir, step.output_dir, as_user)  # after the input list is written
    # appended to, never truncated: what an earlier attempt of the step wrote stays
    with open(step.log_path(), "ab") as log:
        # made last before the start: every way out after this closes both ends
        go_read, go_write = os.pipe() if guard else (-1, -1)
        # the guard's parent, named: by the time it watches it, it may be dead already
        release = () if not guard else ("--go", str(go_read), "--parent", str(os.getpid()), "--")
        argv = [
            *guard,
            *release,
            *(sys.executable if part == PYTHON_PLACEHOLDER else part for part in command),
        ]
        try:
            process = subprocess.Popen(
                argv,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,  # through the runner, redacted, then into the log
                stderr=subprocess.PIPE,
                env=environment,
                # a step user's cwd is its own folder: the service's may be closed to it
                cwd=None if as_user is None else step.output_dir,
                # its own group: a Ctrl-C of the terminal reaches the runner, which stops it
                start_new_session=True,
                pass_fds=(go_read,) if guard else (),
            )
        except FileNotFoundError as error:
            _close(go_write)
            raise StepFailedError(f"executable not found: {argv[0]}") from error
        except OSError as error:
            _close(go_write)
            raise StepFailedError(f"cannot run {argv[0]}: {error.strerror or error}") from error
        finally:
            _close(go_read)
        try:
            if on_start is not None:
                on_start(process)
            if guard:  # recorded: the command may start
                with contextlib.suppress(BrokenPipeError):  # the guard was stopped meanwhile
                    os.write(go_write, b"1")
        finally:
            _close(go_write)  # unsaid, the guard runs nothing and ends
        tail = copy_redacted_output(process, log, stderr_tail_lines=_STDERR_TAIL_LINES)
        code = process.wait()
    if code < 0:
        raise StepKilledError(_exit_message(code, tail))
    if code != 0:
        raise StepFailedError(_exit_message(code, tail))


def _close(fd: int) -> None:
    if fd >= 0:
        os.close(fd)


def _exit_message(code: int, stderr_tail: str) -> str:
    text = stderr_tail.strip()[-_STDERR_TAIL_CHARS:]
    reason = f"exit code {code}" if code > 0 else f"exit code {code} (killed by signal {-code})"
    return f"{reason}: {text}" if text else reason
