"""Run the `wfx` command line as a user does: a subprocess with its own environment and home.

Shared by tests/e2e and tests/integration (a conftest fixture would be invisible to the latter).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from adapters.tables import VAMS_TABLES
from tests.e2e.warm_wfx import warm_wfx

REPO = Path(__file__).resolve().parents[2]
EXAMPLES = REPO / "examples"
MESH_WORKFLOW = EXAMPLES / "mesh" / "workflow.yaml"
MESH_ASSETS = EXAMPLES / "mesh" / "assets"
MESH_FILES = ("bunny.obj", "icosphere.obj", "torus.obj")
TRIVIAL_WORKFLOW = EXAMPLES / "trivial" / "workflow.yaml"
FAILING_WORKFLOW = EXAMPLES / "failing" / "workflow.yaml"

WFX = (sys.executable, "-m", "entrypoints.cli.main")
USER = "e2e-tester"
GUID = re.compile(r"^[0-9a-f]{32}$")  # a VAMS GUID
TERMINAL = {"SUCCEEDED", "FAILED", "ABORTED", "TIMED_OUT"}
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
FAKE_AWS = {
    "AWS_ACCESS_KEY_ID": "testing",
    "AWS_SECRET_ACCESS_KEY": "testing",
    "AWS_DEFAULT_REGION": "us-east-1",
}


@dataclass(frozen=True)
class Outcome:
    """What one `wfx` invocation left behind."""

    args: tuple[str, ...]
    code: int
    stdout: str
    stderr: str
    seconds: float

    def json(self) -> Any:
        return json.loads(self.stdout)

    @property
    def stderr_lines(self) -> list[str]:
        return self.stderr.splitlines()

    def __str__(self) -> str:
        return (
            f"wfx {' '.join(self.args)} -> exit {self.code} in {self.seconds:.1f} s\n"
            f"--- stdout\n{self.stdout}--- stderr\n{self.stderr}"
        )


def _isolated_environment(extra: Mapping[str, str]) -> dict[str, str]:
    """The caller's environment without anything that would point wfx at another store."""
    vams_tables = {name for table in VAMS_TABLES.values() for name in table.variables}
    environment = {
        name: value
        for name, value in os.environ.items()
        if not name.startswith(("WFX_", "AWS_", "VAMS_", "COLUMNS", "LINES"))
        and name not in vams_tables
    }
    return environment | {"WFX_USER": USER, "PYTHONUNBUFFERED": "1"} | dict(extra)


class Wfx:
    """`wfx` bound to one home folder (and, for DynamoDB, one endpoint)."""

    def __init__(self, home: Path, **environment: str) -> None:
        self.home = home
        home.mkdir(parents=True, exist_ok=True)
        self._environment = _isolated_environment({"WFX_HOME": str(home)} | environment)

    def setting(self, name: str) -> str | None:
        """The value this wfx is given for `name` (WFX_STORE, ...), if any."""
        return self._environment.get(name)

    def with_environment(self, **environment: str) -> Wfx:
        extra = {k: v for k, v in self._environment.items() if k.startswith(("WFX_", "AWS_"))}
        return Wfx(self.home, **(extra | environment))

    def in_home(self, home: Path, **environment: str) -> Wfx:
        """This wfx's settings, in another home folder."""
        extra = {k: v for k, v in self._environment.items() if k.startswith(("WFX_", "AWS_"))}
        del extra["WFX_HOME"]
        return Wfx(home, **(extra | environment))

    def passing_store_to_steps(self) -> Wfx:
        """This wfx with WFX_STEP_ENV naming its own store and bus settings: a command step
        that runs `wfx pipelines register` on the local bus writes to the store itself, so the
        operator must hand the store to its steps."""
        names = sorted(k for k in self._environment if k.startswith(("WFX_", "AWS_")))
        return self.with_environment(WFX_STEP_ENV=" ".join(names))

    def __call__(self, *args: str, timeout: float = 60) -> Outcome:
        started = time.monotonic()
        warm = warm_wfx(self._environment)
        completed = (
            warm.run(args, self._environment, self.home, timeout)
            if warm is not None
            else subprocess.run(
                [*WFX, *args],
                env=self._environment,
                cwd=self.home,  # not the repo: its folders must not shadow installed packages
                capture_output=True,
                text=True,
                timeout=timeout,
                check=False,
            )
        )
        return Outcome(
            args=args,
            code=completed.returncode,
            stdout=completed.stdout,
            stderr=completed.stderr,
            seconds=time.monotonic() - started,
        )

    def start(self, *args: str, new_session: bool = False) -> subprocess.Popen[str]:
        """`wfx ARGS` started and left running, its stdout and stderr piped, for a test that
        signals it; `new_session`: in a session and process group of its own, as a terminal
        starts a foreground command (the group is what Ctrl-C signals). Forked from the warm
        wfx (tests/e2e/warm_wfx.py) where it can start as a fresh interpreter would."""
        warm = warm_wfx(self._environment, to_start=True)
        if warm is None:
            return self.start_cold(*args, new_session=new_session)
        return warm.start(args, self._environment, self.home, new_session)

    def start_cold(
        self, *args: str, new_session: bool = False, through: Sequence[str] = ()
    ) -> subprocess.Popen[str]:
        """As `start`, always a fresh interpreter: for a test that reads what only one shows
        (its memory from its first page). `through`: a command that starts it (`nohup`, a
        shell script given wfx's command line as its arguments)."""
        return subprocess.Popen(
            [*through, *WFX, *args],
            env=self._environment,
            cwd=self.home,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=new_session,
        )

    def run_in_home(self, *command: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
        """Any `command` (a launcher of wfx, a parent that measures it) run to its end in the
        home with wfx's environment, its output captured."""
        return subprocess.run(
            command,
            env=self._environment,
            cwd=self.home,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )

    def on_terminal(self, *args: str, timeout: float = 60) -> Outcome:
        """Like a call, but with stderr on a pseudo-terminal, where rich draws live displays.
        The ANSI control sequences are stripped from what it captured."""
        import pty
        import select

        started = time.monotonic()
        controller, terminal = pty.openpty()
        process = subprocess.Popen(
            [*WFX, *args],
            env=self._environment | {"COLUMNS": "120", "TERM": "xterm"},
            cwd=self.home,
            stdout=subprocess.PIPE,
            stderr=terminal,
            text=True,
        )
        os.close(terminal)
        drawn = bytearray()
        try:
            while time.monotonic() - started < timeout:
                ready, _, _ = select.select([controller], [], [], 0.1)
                if not ready:
                    if process.poll() is not None:
                        break
                    continue
                try:
                    chunk = os.read(controller, 65536)
                except OSError:  # Linux: EIO once the child side is closed
                    break
                if not chunk:
                    break
                drawn += chunk
            stdout, _ = process.communicate(timeout=max(1.0, timeout - time.monotonic()))
        finally:
            os.close(controller)
            if process.poll() is None:
                process.kill()
        return Outcome(
            args=args,
            code=process.returncode,
            stdout=stdout,
            stderr=_ANSI.sub("", drawn.decode("utf-8", "replace")).replace("\r", ""),
            seconds=time.monotonic() - started,
        )

    def ok(self, *args: str) -> Outcome:
        outcome = self(*args)
        assert outcome.code == 0, str(outcome)
        return outcome

    def json(self, *args: str) -> Any:
        return self.ok(*args, "--json").json()

    def run_id(self, *args: str, expect_code: int = 0) -> str:
        """`wfx run ...`, which prints only the execution id on stdout."""
        outcome = self("run", *args)
        assert outcome.code == expect_code, str(outcome)
        execution_id = outcome.stdout.strip()
        assert GUID.match(execution_id), str(outcome)
        return execution_id

    def publish_command_step(self, workflow_id: str, code: str) -> None:
        """demo/WORKFLOW_ID: one command step, `python -c CODE`, that takes no input."""
        import yaml

        document = {
            "databaseId": "demo",
            "workflowId": workflow_id,
            "steps": [
                {
                    "pipelineId": "step",
                    "executionType": "command",
                    "command": [sys.executable, "-c", code],
                    "inputFileArity": "none",
                }
            ],
        }
        path = self.home / f"{workflow_id}.yaml"
        path.write_text(yaml.safe_dump(document), encoding="utf-8")
        self.ok("workflows", "publish", str(path))

    def registration_token(self, execution_id: str, pipeline_execution_id: str) -> str:
        """The token the local runner gives that step, from the key in this home (which only
        the same OS user can read: the test plays the step)."""
        from adapters.local.registration_credentials import HmacRegistrationCredentials

        return HmacRegistrationCredentials(self.home).issue(execution_id, pipeline_execution_id)

    def run_registering_log(
        self, workflow_id: str, group: str, stream: str, code: str = ""
    ) -> tuple[str, dict[str, Any]]:
        """Publish and run demo/WORKFLOW_ID: one command step that runs `code`, then registers
        a log stream with `wfx pipelines register`, as a step does while it runs. The run's id
        and the stream's availableLogs entry."""
        register = [*WFX, "pipelines", "register", "--log-group-name", group]
        register += ["--log-stream-name", stream]
        self.publish_command_step(
            workflow_id,
            f"{code}\nimport subprocess\n"
            f"subprocess.run({register!r}, check=True, stdout=subprocess.DEVNULL)",
        )
        execution_id = self.passing_store_to_steps().run_id(f"demo/{workflow_id}")
        (step,) = self.json("executions", "show", execution_id)["pipelines"]
        (registered,) = [log for log in step["availableLogs"] if log["kind"] == "registered"]
        return execution_id, dict(registered)

    def listed_ids(self, *args: str) -> list[str]:
        page = self.json("executions", "list", "--limit", "100", *args)
        return [item["workflowExecutionId"] for item in page["Items"]]

    def wait_until(
        self, execution_id: str, done: Callable[[dict[str, Any]], bool], seconds: float = 20
    ) -> dict[str, Any]:
        """Poll `executions show --json` until `done(details)`; the last details either way."""
        deadline = time.monotonic() + seconds
        while True:
            details: dict[str, Any] = self.json("executions", "show", execution_id)
            if done(details) or time.monotonic() > deadline:
                return details
            time.sleep(0.2)


def output_files(details: dict[str, Any], step: dict[str, Any]) -> list[dict[str, Any]]:
    """The output files one step of `executions show --json` recorded (VAMS's details keep
    them in the run's `outputs.files`, each naming its step)."""
    return [
        row
        for row in details["outputs"]["files"]
        if row["pipelineExecutionId"] == step["pipelineExecutionId"]
    ]


def publish_mesh_and_import(wfx: Wfx) -> tuple[Outcome, Outcome]:
    published = wfx.ok("workflows", "publish", str(MESH_WORKFLOW))
    imported = wfx.ok(
        "assets", "import", "demo", "meshes", str(MESH_ASSETS), "--metadata", "source=e2e"
    )
    return published, imported


def assert_bad_input(outcome: Outcome, *named: str) -> None:
    """Exit 2, nothing on stdout, one `error: ...` line on stderr that names the problem."""
    assert outcome.code == 2, str(outcome)
    assert outcome.stdout == "", str(outcome)
    assert len(outcome.stderr_lines) == 1, str(outcome)
    line = outcome.stderr_lines[0]
    assert line.startswith("error: "), str(outcome)
    for word in named:
        assert word in line, f"{word!r} not named in {line!r}"


def peak_kib(wfx: Wfx, *args: str) -> tuple[int, str]:
    """`wfx ARGS` run to its end, exit 0: its own peak RSS in KiB, read from /proc until it
    exits (VmHWM only rises, so the last read holds the peak), and its stdout. A fresh
    interpreter: a process forked from the warm wfx starts with all it imported counted."""
    process = wfx.start_cold(*args)
    # drained meanwhile: a child writing more than a pipe holds (64 KiB) would otherwise wait
    # on the full pipe until the deadline
    outputs: list[tuple[str, str]] = []
    drain = threading.Thread(target=lambda: outputs.append(process.communicate()), daemon=True)
    drain.start()
    status = Path(f"/proc/{process.pid}/status")
    peak = 0
    deadline = time.monotonic() + 30
    while process.poll() is None and time.monotonic() < deadline:
        try:
            found = re.search(r"^VmHWM:\s+(\d+) kB$", status.read_text(), re.M)
        except OSError:  # exited between the poll and the read
            break
        if found:
            peak = max(peak, int(found.group(1)))
        time.sleep(0.005)
    drain.join(timeout=30)
    if drain.is_alive():
        process.kill()
        raise subprocess.TimeoutExpired([*WFX, *args], 60)
    ((stdout, stderr),) = outputs
    assert process.returncode == 0, stderr
    return peak, stdout


def start_hooked(wfx: Wfx, hook: str, *args: str) -> subprocess.Popen[str]:
    """`wfx ARGS` started as `start` does, in a process that runs the Python `hook` first: a
    test's way into a real process's timing (an item taking longer, a shorter busy timeout)."""
    main = (
        "import runpy, sys\n"
        "sys.argv[0] = 'wfx'\n"
        "runpy.run_module('entrypoints.cli.main', run_name='__main__')\n"
    )
    return subprocess.Popen(
        [sys.executable, "-c", f"{hook}\n{main}", *args],
        env=wfx._environment,
        cwd=wfx.home,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def tree_peak_kib(wfx: Wfx, *args: str) -> tuple[int, Outcome]:
    """`wfx ARGS` run to its end by a parent of its own: the peak RSS in KiB of the largest
    process of its tree (wfx or a step it ran and waited for: RUSAGE_CHILDREN of that parent,
    counted by the kernel at each exit, so no spike at the very end is missed), and its outcome."""
    parent = (
        "import resource, subprocess, sys\n"
        "code = subprocess.run(sys.argv[1:]).returncode\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
        "sys.exit(code)\n"
    )
    started = time.monotonic()
    completed = wfx.run_in_home(sys.executable, "-c", parent, *WFX, *args)
    *stderr, peak = completed.stderr.splitlines()
    outcome = Outcome(
        args=args,
        code=completed.returncode,
        stdout=completed.stdout,
        stderr="\n".join(stderr),
        seconds=time.monotonic() - started,
    )
    return int(peak), outcome
