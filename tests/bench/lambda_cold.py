"""Lambda cold starts: each handler imported and asked its first request in a new process.

Side by side in one run, interleaved round-robin (the order reversed every other round):
- the HTTP handler (`entrypoints.http.aws_lambda.handler`) with an API Gateway HTTP API
  (payload 2.0) event for `GET /workflows/executions` whose JWT authorizer claims name an admin;
- the Step Functions callbacks of `entrypoints.lambda_handlers`, each with the Payload its state
  machine task sends (application/state_machines.py), paths resolved: `track_step` start and
  finish, `complete_execution`, `handle_execution_error`; and `register_pipeline_execution` with
  an EventBridge event;
- a bare Mangum + FastAPI app answering the same route (`bare_mangum.py`): the floor;
- `python -c pass`.

All on one SQLite home (`WFX_STORE=sqlite`), runs launched beforehand with an orchestrator that
starts nothing. The first process of each callback makes its write; after the warm-ups each one is
a redelivery, which reads what it needs and writes nothing new (the use cases are idempotent):
the imports, the container and the store's opening are what is timed. `lambda_cold_ratio` is the
HTTP handler's median ÷ the bare app's; also each process's peak RSS and `-X importtime`.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.bench.cold import cold_environment, importtime
from tests.bench.fixtures import REPO, bench_container, launched_run
from tests.bench.timing import median

PROBE = Path(__file__).with_name("lambda_probe.py")
ADMIN_CLAIMS = {"sub": "bench", "cognito:groups": "[admin]", "iss": "https://idp.example"}
HTTP_HANDLER = "http handler"
BARE = "bare mangum"


@dataclass(frozen=True)
class Probe:
    name: str
    module: str
    function: str
    event: dict[str, Any]


def api_gateway_event(method: str, path: str, query: str = "") -> dict[str, Any]:
    """An HTTP API payload 2.0 event as API Gateway sends it after its JWT authorizer."""
    domain = "api1234567.execute-api.us-east-1.amazonaws.com"
    return {
        "version": "2.0",
        "routeKey": f"{method} {path}",
        "rawPath": path,
        "rawQueryString": query,
        "headers": {"accept": "application/json", "host": domain, "user-agent": "bench"},
        "requestContext": {
            "accountId": "123456789012",
            "apiId": "api1234567",
            "authorizer": {"jwt": {"claims": ADMIN_CLAIMS, "scopes": None}},
            "domainName": domain,
            "domainPrefix": "api1234567",
            "http": {
                "method": method,
                "path": path,
                "protocol": "HTTP/1.1",
                "sourceIp": "192.0.2.10",
                "userAgent": "bench",
            },
            "requestId": "JKJaXmPLvHcESHA=",
            "routeKey": f"{method} {path}",
            "stage": "$default",
            "time": "03/Dec/2026:12:00:00 +0000",
            "timeEpoch": 1796126400000,
        },
        "isBase64Encoded": False,
    }


def registration_event(execution_id: str, step_id: str) -> dict[str, Any]:
    """An EventBridge event as the rule delivers it: envelope, source naming the step, detail."""
    from domain.registration import compose_source

    return {
        "version": "0",
        "id": "6a7e8feb-b491-4cf7-a9f1-bf3703467718",
        "detail-type": "pipeline.execution.register",
        "source": compose_source("bench", execution_id, step_id),
        "account": "123456789012",
        "time": "2026-12-03T12:00:00Z",
        "region": "us-east-1",
        "resources": [],
        "detail": {
            "pipelineExecutionId": step_id,
            "logs": [{"logGroupName": "/bench/pipeline", "logStreamName": "s-0", "label": "p"}],
        },
    }


def prepare(home: Path) -> list[Probe]:
    """The home's runs, and one probe per handler with the event it is asked."""
    container = bench_container(home, database="wfx.db", run_steps=False)
    tracked = launched_run(container, home / "a")
    steps = container.execution_store().get_details(tracked, include_outputs=False).steps
    step_id = steps[0].step.pipeline_execution_id
    ids = {"workflowExecutionId": tracked, "pipelineExecutionId": step_id}
    completed = _another_run(container)
    failed = _another_run(container)
    container.sqlite_database().close()
    handlers = "entrypoints.lambda_handlers"
    caught = {"Error": "States.TaskFailed", "Cause": "step exited 1"}
    return [
        Probe(BARE, "bare_mangum", "handler", api_gateway_event("GET", "/workflows/executions")),
        Probe(
            HTTP_HANDLER,
            "entrypoints.http.aws_lambda",
            "handler",
            api_gateway_event("GET", "/workflows/executions", "maxItems=20"),
        ),
        Probe("track_step start", handlers, "track_step", {"action": "start", **ids}),
        Probe(
            "track_step finish",
            handlers,
            "track_step",
            {"action": "finish", "status": "SUCCEEDED", **ids},
        ),
        Probe(
            "complete_execution",
            handlers,
            "complete_execution",
            {"workflowExecutionId": completed, "status": "SUCCEEDED"},
        ),
        Probe(
            "handle_execution_error",
            handlers,
            "handle_execution_error",
            {"workflowExecutionId": failed, "error": caught},
        ),
        Probe(
            "register_pipeline_execution",
            handlers,
            "register_pipeline_execution",
            registration_event(tracked, step_id),
        ),
    ]


def _another_run(container: Any) -> str:
    from application.use_cases.launch_execution import LaunchExecutionCommand
    from tests.bench.fixtures import ASSET, USER

    command = LaunchExecutionCommand(
        workflow_database_id="bench", workflow_id="launch", inputs=(ASSET,), user_id=USER
    )
    return str(container.launch_execution().execute(command).execution.workflow_execution_id)


def lambda_environment(home: Path) -> dict[str, str]:
    """A Lambda's: the store from the environment, this tree's sources on the path."""
    return cold_environment(home) | {
        "WFX_STORE": "sqlite",
        "PYTHONPATH": os.pathsep.join((str(REPO / "src"), str(PROBE.parent))),
    }


def _argv(probe: Probe, event_file: Path) -> tuple[str, ...]:
    return (str(PROBE), probe.module, probe.function, str(event_file))


def _run_once(argv: Sequence[str], environment: Mapping[str, str], cwd: Path) -> dict[str, Any]:
    started = time.perf_counter()
    completed = subprocess.run(
        argv, env=dict(environment), cwd=cwd, capture_output=True, text=True, check=False
    )
    elapsed = time.perf_counter() - started
    if completed.returncode != 0:
        raise RuntimeError(f"{' '.join(argv)} exited {completed.returncode}:\n{completed.stderr}")
    if not completed.stdout.strip():  # `python -c pass`
        return {"s": elapsed}
    report: dict[str, Any] = json.loads(completed.stdout.strip().splitlines()[-1])
    if report["status"] >= 400:
        raise RuntimeError(f"{' '.join(argv)} answered {report['answer']}")
    return {"s": elapsed, "max_rss_kib": report["max_rss_kib"], "packages": report["packages"]}


def measure(workdir: Path, runs: int, warmup: int, importtime_repeats: int) -> dict[str, Any]:
    home = workdir / "home"
    probes = prepare(home)
    environment = lambda_environment(home)
    commands: dict[str, tuple[str, ...]] = {"python -c pass": (sys.executable, "-c", "pass")}
    for probe in probes:
        event_file = workdir / f"{probe.name.replace(' ', '-')}.json"
        event_file.write_text(json.dumps(probe.event), encoding="utf-8")
        commands[probe.name] = (sys.executable, *_argv(probe, event_file))
    for _ in range(warmup):
        for argv in commands.values():
            _run_once(argv, environment, home)
    samples: dict[str, list[dict[str, Any]]] = {name: [] for name in commands}
    names = list(commands)
    for index in range(runs):
        for name in names if index % 2 == 0 else reversed(names):
            samples[name].append(_run_once(commands[name], environment, home))
    detail: dict[str, Any] = {}
    for name, taken in samples.items():
        seconds = [sample["s"] for sample in taken]
        detail[name] = {"median_s": round(median(seconds), 4), "min_s": round(min(seconds), 4)}
        if "max_rss_kib" in taken[-1]:
            rss = median([sample["max_rss_kib"] for sample in taken]) / 1024
            detail[name] |= {"peak_rss_mib": round(rss, 1), "packages": taken[-1]["packages"]}
    for name in (HTTP_HANDLER, "track_step start"):
        imports = importtime(commands[name][1:], environment, home, importtime_repeats)
        imports.pop("top_level")
        detail[name]["importtime"] = imports

    def seconds_of(name: str) -> float:
        return float(detail[name]["median_s"])

    bare = seconds_of(BARE)
    callbacks = [probe.name for probe in probes if probe.module == "entrypoints.lambda_handlers"]
    return {
        "lambda_cold_http_s": seconds_of(HTTP_HANDLER),
        "lambda_cold_bare_mangum_s": bare,
        "lambda_cold_ratio": round(seconds_of(HTTP_HANDLER) / bare, 2),
        # the fastest of each: on a loaded machine the medians move more than the code does
        "lambda_cold_min_ratio": round(detail[HTTP_HANDLER]["min_s"] / detail[BARE]["min_s"], 2),
        "lambda_cold_rss_ratio": round(
            detail[HTTP_HANDLER]["peak_rss_mib"] / detail[BARE]["peak_rss_mib"], 2
        ),
        "lambda_cold_callback_max_ratio": round(max(map(seconds_of, callbacks)) / bare, 2),
        "lambda_cold_detail": {"runs": runs, "store": "sqlite", "processes": detail},
    }
