"""A stop signal wfx was started ignoring stays ignored, as the one who started it asked.

`nohup wfx run ...` ignores SIGHUP so that the run outlives the terminal it was started from;
a shell starts a script's background job (`wfx run ... &`) ignoring SIGINT, so that a Ctrl-C
of the script does not reach the job. Before, wfx took both signals whatever their disposition,
so the terminal's hangup aborted a nohup'd run (exit 129, the run ABORTED) and stopped a nohup'd
service. Each test starts wfx as a user would, signals its process group as the terminal does,
and reads the stored run and the service's processes (/proc).

SIGCHLD is the other way round: ignored, the kernel reaps each child at its end and a wait on
one reads exit code 0, so a step that failed was recorded SUCCEEDED (a launcher or daemon may
start wfx so). The wfx command takes it back to its default; a library process that ignores it
is refused a local run, before anything is written.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import yaml

from adapters.local.processes_on_host import read_stat
from tests.e2e.cli import WFX, Wfx
from tests.e2e.served import ANSWERED_AT, free_port, wait_until_answering

pytestmark = pytest.mark.integration

# the step: says it started, then waits (60 s at most) for the test's go
WAITING_STEP = (
    'touch "$1"\n'
    "i=0\n"
    'while [ ! -e "$2" ] && [ "$i" -lt 1200 ]; do sleep 0.05; i=$((i + 1)); done\n'
    '[ -e "$2" ] && echo done > "$WFX_OUTPUT_DIR/result.txt"\n'
)
# after a signal, time for wfx to act on one it takes (an abort begins at once; the step, in a
# session of its own, is never signalled), so that a wrong answer is seen
ACTED_ON_WITHIN_S = 0.5
# a script that starts wfx in the background and waits for it: the shell, with no job
# control, starts the job ignoring SIGINT and SIGQUIT (POSIX), and says its pid first
BACKGROUND = ("/bin/sh", "-c", '"$@" &\necho "$!"\nwait "$!"\n', "sh")


def _waiting_workflow(wfx: Wfx, started: Path, go: Path) -> None:
    document = {
        "databaseId": "demo",
        "workflowId": "waits",
        "steps": [
            {
                "pipelineId": "wait",
                "executionType": "command",
                "command": ["/bin/sh", "-c", WAITING_STEP, "wait", str(started), str(go)],
                "inputFileArity": "none",
            }
        ],
    }
    path = wfx.home / "waits.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


def _wait_for(path: Path, process: subprocess.Popen[str] | None = None) -> None:
    deadline = time.monotonic() + 60
    while not path.exists():
        assert process is None or process.poll() is None, process.communicate()
        assert time.monotonic() < deadline, f"{path.name} never came"
        time.sleep(0.02)


def test_a_run_started_under_nohup_outlives_the_terminals_hangup(wfx: Wfx, tmp_path: Path) -> None:
    started, go = tmp_path / "started", tmp_path / "go"
    _waiting_workflow(wfx, started, go)
    run = wfx.start_cold("run", "demo/waits", new_session=True, through=["nohup"])
    try:
        _wait_for(started, run)

        os.killpg(run.pid, signal.SIGHUP)  # the terminal closed
        time.sleep(ACTED_ON_WITHIN_S)
        assert run.poll() is None, run.communicate()
        go.touch()
        stdout, stderr = run.communicate(timeout=60)
    finally:
        if run.poll() is None:
            run.kill()
            run.communicate()

    assert run.returncode == 0, stderr
    execution_id = stdout.split()[-1]
    shown = wfx.json("executions", "show", execution_id)
    assert shown["executionStatus"] == "SUCCEEDED", shown


def test_a_run_a_script_started_in_the_background_outlives_the_scripts_ctrl_c(
    wfx: Wfx, tmp_path: Path
) -> None:
    started, go = tmp_path / "started", tmp_path / "go"
    _waiting_workflow(wfx, started, go)
    script = wfx.start_cold("run", "demo/waits", new_session=True, through=BACKGROUND)
    try:
        assert script.stdout is not None
        run_pid = int(script.stdout.readline())
        _wait_for(started, script)

        os.killpg(script.pid, signal.SIGINT)  # Ctrl-C: the whole group, the script ends of it
        time.sleep(ACTED_ON_WITHIN_S)
        assert _alive(run_pid), "the background run ended on the script's Ctrl-C"
        go.touch()
        deadline = time.monotonic() + 60
        while _alive(run_pid):
            assert time.monotonic() < deadline, "the background run did not end"
            time.sleep(0.05)
        stdout, stderr = script.communicate(timeout=60)
    finally:
        if script.poll() is None:
            os.killpg(script.pid, signal.SIGKILL)
            script.communicate()

    execution_id = stdout.split()[-1]  # the script's pid line, then the run's id
    shown = wfx.json("executions", "show", execution_id)
    assert shown["executionStatus"] == "SUCCEEDED", (shown, stderr)


def _alive(pid: int) -> bool:
    """Whether `pid` runs (an orphan that ended stays a zombie here: pid 1 reaps none)."""
    stat = read_stat(pid)
    return stat is not None and stat.state not in ("Z", "X")


def _serves_on(base: str, pid: int, serving: set[int]) -> None:
    """The service `pid` and its serving processes stay up and answer, a while after a signal
    it must not act on (acting on it, it stopped within 0.4 s here)."""
    deadline = time.monotonic() + 2 * ACTED_ON_WITHIN_S
    while time.monotonic() < deadline:
        assert _alive(pid), "the service ended on the signal"
        assert _serving_processes(pid) == serving
        assert httpx.get(f"{base}{ANSWERED_AT}", timeout=10).status_code == 200
        time.sleep(0.1)


def _serving_processes(supervisor: int) -> set[int]:
    """The supervisor's serving processes: its fork server's children (/proc parent links)."""
    stats = [read_stat(int(entry)) for entry in os.listdir("/proc") if entry.isdigit()]
    live = [stat for stat in stats if stat is not None and stat.state not in ("Z", "X")]
    fork_servers = {stat.pid for stat in live if stat.ppid == supervisor}
    return {stat.pid for stat in live if stat.ppid in fork_servers}


def test_a_service_started_under_nohup_serves_on_through_the_terminals_hangup(wfx: Wfx) -> None:
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    serve = ("serve", "--port", str(port), "--workers", "2")
    service = wfx.start_cold(*serve, new_session=True, through=["nohup"])
    try:
        wait_until_answering(base, service)
        serving = _serving_processes(service.pid)
        assert len(serving) == 2, serving

        os.killpg(service.pid, signal.SIGHUP)  # the terminal closed

        _serves_on(base, service.pid, serving)
        service.terminate()  # `kill PID`: it stops, as it did
        _, stderr = service.communicate(timeout=30)
    finally:
        if service.poll() is None:
            os.killpg(service.pid, signal.SIGKILL)
            service.communicate()
    assert service.returncode == 0, stderr
    assert "Traceback" not in stderr, stderr


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_service_a_script_started_in_the_background_serves_on_through_its_ctrl_c(
    wfx: Wfx, workers: str
) -> None:
    """One process (uvicorn's server in wfx's own) and two (a supervisor and its serving
    processes, each a uvicorn server): none stops on the script's Ctrl-C."""
    port = free_port()
    base = f"http://127.0.0.1:{port}"
    serve = ("serve", "--port", str(port), "--workers", workers)
    script = wfx.start_cold(*serve, new_session=True, through=BACKGROUND)
    service_pid = 0
    try:
        assert script.stdout is not None
        service_pid = int(script.stdout.readline())
        wait_until_answering(base, script)
        serving = _serving_processes(service_pid)

        os.killpg(script.pid, signal.SIGINT)  # Ctrl-C: the whole group, the script ends of it

        _serves_on(base, service_pid, serving)
        os.kill(service_pid, signal.SIGTERM)  # `kill PID`: it stops, as it did
        _, stderr = script.communicate(timeout=30)  # the service held the script's pipes
    finally:
        if script.poll() is None or (service_pid and _alive(service_pid)):
            os.killpg(script.pid, signal.SIGKILL)
            script.communicate()
    assert "Traceback" not in stderr, stderr


# a launcher that starts its command with SIGCHLD ignored (exec keeps an ignored disposition)
IGNORING_SIGCHLD = (
    sys.executable,
    "-c",
    "import os, signal, sys\n"
    "signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n"
    "os.execv(sys.argv[1], sys.argv[1:])\n",
)
FAILING_STEP = {
    "databaseId": "demo",
    "workflowId": "fails",
    "steps": [
        {
            "pipelineId": "boom",
            "executionType": "command",
            "command": ["/bin/sh", "-c", "echo failing; exit 3"],
            "inputFileArity": "none",
        }
    ],
}


def _failing_workflow(wfx: Wfx) -> None:
    path = wfx.home / "fails.yaml"
    path.write_text(yaml.safe_dump(FAILING_STEP), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


@pytest.mark.parametrize("command", ["python -m", "console script"])
def test_a_failed_step_of_a_wfx_started_ignoring_sigchld_is_recorded_failed(
    wfx: Wfx, command: str
) -> None:
    _failing_workflow(wfx)
    program = WFX if command == "python -m" else (str(Path(sys.executable).with_name("wfx")),)
    finished = wfx.run_in_home(*IGNORING_SIGCHLD, *program, "run", "demo/fails")

    assert finished.returncode == 1, finished
    execution_id = finished.stdout.split()[-1]
    shown = wfx.json("executions", "show", execution_id)
    assert shown["executionStatus"] == "FAILED", shown


# a launch ignoring SIGCHLD (refused), one not ignoring it (the step fails, exit 3); then a
# redrive ignoring it: the step ends FAILED naming SIGCHLD, never SUCCEEDED
LIBRARY_LAUNCHES = """
import signal
from application.use_cases.launch_execution import LaunchExecutionCommand
from domain.errors import InvalidInputError
from entrypoints.container import build_container
from entrypoints.settings import Settings

container = build_container(Settings.from_environment(), runner_mode="inline")
command = LaunchExecutionCommand(workflow_database_id="demo", workflow_id="fails", user_id="me")
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
try:
    container.launch_execution().execute(command)
except InvalidInputError as refused:
    print("refused:", refused)
signal.signal(signal.SIGCHLD, signal.SIG_DFL)
print(container.launch_execution().execute(command).execution.workflow_execution_id)
"""
LIBRARY_REDRIVE = """
import signal, sys
from application.use_cases.redrive_execution import RedriveExecutionCommand
from entrypoints.container import build_container
from entrypoints.settings import Settings

container = build_container(Settings.from_environment(), runner_mode="inline")
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
container.redrive_execution().execute(RedriveExecutionCommand(workflow_execution_id=sys.argv[1]))
"""


def test_a_library_process_ignoring_sigchld_is_refused_a_launch_and_fails_a_redriven_step(
    wfx: Wfx,
) -> None:
    _failing_workflow(wfx)

    launched = wfx.run_in_home(sys.executable, "-c", LIBRARY_LAUNCHES)
    refused, execution_id = launched.stdout.splitlines()
    runs = wfx.json("executions", "list")["Items"]
    redriven = wfx.run_in_home(sys.executable, "-c", LIBRARY_REDRIVE, execution_id)
    shown = wfx.json("executions", "show", execution_id)

    assert launched.returncode == 0, launched
    assert refused.startswith("refused: this process ignores SIGCHLD"), launched
    assert [run["workflowExecutionId"] for run in runs] == [execution_id]  # the refused: none
    assert redriven.returncode == 0, redriven
    assert shown["executionStatus"] == "FAILED", shown
    assert "ignores SIGCHLD" in json.dumps(shown), shown
