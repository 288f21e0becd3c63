"""The `wfx` console script: the command line, with the collector paused while it starts.

Importing the CLI, the container and the use cases allocates hundreds of thousands of
long-lived objects (modules, classes, pydantic schemas); the collector's passes over them free
nothing and cost about a tenth of a cold `wfx executions list`. The pause ends, after freezing
what start-up made, as soon as a command has its container (`context.resume_garbage_collection`),
before any step or query runs. Only the program pauses it: importing wfx as a library does not.
"""

from __future__ import annotations

# Only what the interpreter holds from its start: a Ctrl-C that lands while this module loads,
# before main() is in its `try`, comes out as a traceback, so the rest is imported inside it.
import os
import sys

INTERRUPTED = 130  # the exit status a shell expects of a program ended by Ctrl-C


def main() -> None:
    try:
        import gc

        if sys.argv[1:] == ["--version"]:  # the line alone: no command to load for it
            from entrypoints.cli.version import version_line

            sys.stdout.write(version_line())
            return
        gc.disable()
        learn_how_children_end()
        end_on_swallowed_interrupts()
        from entrypoints.cli.main import main as run
        from entrypoints.cli.quick_exit import leave_when_done

        leave_when_done(run)
    except KeyboardInterrupt:
        # Ctrl-C that no command took charge of (most often while wfx still loads, before any
        # command began): nothing to say but the exit status a shell expects
        raise SystemExit(INTERRUPTED) from None
    except Exception as error:
        # Python 3.11 wraps a Ctrl-C that lands in a class body's __set_name__ (pydantic's, while
        # it loads) in a RuntimeError: the same Ctrl-C, the same quiet exit
        if not interrupted(error):
            raise
        raise SystemExit(INTERRUPTED) from None


def interrupted(error: BaseException) -> bool:
    """Whether `error` is, or was raised by, a Ctrl-C (its causes and contexts, each once)."""
    seen: set[int] = set()
    cause: BaseException | None = error
    while cause is not None and id(cause) not in seen:
        if isinstance(cause, KeyboardInterrupt):
            return True
        seen.add(id(cause))
        cause = cause.__cause__ or cause.__context__
    return False


def learn_how_children_end() -> None:
    """SIGCHLD back to its default when wfx was started ignoring it (some launchers and
    daemons leave it so): ignored, the kernel reaps each child at its end and a wait on one reads
    exit code 0, so a step that failed would be recorded SUCCEEDED. Unlike an ignored SIGINT or
    SIGHUP, which says how the command should take a Ctrl-C or a hangup, this ignore says
    nothing wfx could honour: every run waits on its steps' processes."""
    import signal

    if signal.getsignal(signal.SIGCHLD) is signal.SIG_IGN:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)


def end_on_swallowed_interrupts() -> None:
    """A Ctrl-C that lands in a callback Python runs on the side (importlib's module-lock
    cleanup while wfx loads, a finalizer) cannot propagate: Python prints it as "Exception
    ignored" with a traceback and goes on as if no Ctrl-C came. While no command has taken
    charge of SIGINT, such an interrupt ends the program at once with 130, as the Ctrl-C asked;
    wfx's stores are safe against a process ending anywhere (they are against kill -9)."""
    import signal

    previous = sys.unraisablehook

    def hook(unraisable: sys.UnraisableHookArgs) -> None:
        python_handles_sigint = signal.getsignal(signal.SIGINT) is signal.default_int_handler
        if isinstance(unraisable.exc_value, KeyboardInterrupt) and python_handles_sigint:
            sys.stderr.flush()
            os._exit(INTERRUPTED)
        previous(unraisable)

    sys.unraisablehook = hook
