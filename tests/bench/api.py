"""The list route through the whole service, beside the same page without HTTP and without
authorization: a 50-row page of runs that each read an asset.

Four calls, interleaved in rounds: the ListExecutions use case alone; ListReadableExecutions
for a caller holding the shipped Database User role (authorization without HTTP); GET
/workflows/executions through the ASGI app (in-process client) for an admin (HTTP and token,
authorization answered at once) and for that Database User (HTTP, token and authorization). The
authorization target is the readable list against the plain use case: at most +25%.
"""

from __future__ import annotations

import asyncio
from datetime import timedelta
from pathlib import Path
from typing import Any

import httpx

from adapters.authz.shipped_templates import load_template
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.list_executions import ListExecutionsQuery
from application.use_cases.list_readable_executions import ListReadableExecutionsQuery
from domain.authorization import Subject
from domain.constraints import RoleAssignment
from entrypoints.http.app import create_app
from entrypoints.http.identity import verified_by
from tests.bench.fixtures import (
    ASSET,
    ASSET_DATABASE,
    LAUNCH_WORKFLOW,
    USER,
    bench_container,
    import_small_files,
    publish,
)
from tests.bench.timing import median, time_each

PAGE = 50
READER = "reader"
VARIANTS = ("use_case", "readable", "api_admin", "api_list")


def _calls(workdir: Path, runs: int) -> dict[str, Any]:
    container = bench_container(workdir / "home")  # runs end inline: a page of finished runs
    publish(container, LAUNCH_WORKFLOW)
    import_small_files(container, workdir / "inputs")
    for _ in range(runs):
        command = LaunchExecutionCommand(
            workflow_database_id="bench", workflow_id="launch", inputs=(ASSET,), user_id=USER
        )
        container.launch_execution().execute(command)
    admin = Subject(user_id=USER, roles=("admin",))
    roles = container.administer_roles()
    roles.apply_template(admin, load_template("Database User"), "db-user", ASSET_DATABASE)
    roles.assign(admin, RoleAssignment(user_id=READER, role="db-user"))

    issuer = container.token_issuer()
    as_admin = {"Authorization": f"Bearer {issuer.issue(USER, timedelta(hours=1), ('admin',))}"}
    as_reader = {"Authorization": f"Bearer {issuer.issue(READER, timedelta(hours=1))}"}
    # One event loop and one client for every request, as a server keeps them: the timed part
    # is the ASGI app (routing, token, authorization, the use case, the JSON), not a test
    # client's start-up per request.
    app = create_app(container, verified_by(container.token_verifier()))
    loop = asyncio.new_event_loop()
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://wfx")
    query = ListExecutionsQuery(limit=PAGE)
    readable = ListReadableExecutionsQuery(subject=Subject(user_id=READER), listing=query)

    def get(headers: dict[str, str]) -> Any:
        answer = loop.run_until_complete(
            client.get("/workflows/executions", params={"maxItems": PAGE}, headers=headers)
        )
        page = answer.json()["message"]
        assert answer.status_code == 200 and len(page["Items"]) == PAGE, answer.text
        return answer

    def use_case() -> Any:
        return container.list_executions().execute(query)

    def readable_list() -> Any:
        page = container.list_readable_executions().execute(readable)
        assert len(page.items) == PAGE
        return page

    return {
        "use_case": use_case,
        "readable": readable_list,
        "api_admin": lambda: get(as_admin),
        "api_list": lambda: get(as_reader),
    }


def measure(workdir: Path, rounds: int, calls_per_round: int, warmup: int) -> dict[str, Any]:
    calls = _calls(workdir, runs=PAGE * 2)
    for call in calls.values():
        for _ in range(warmup):
            call()
    samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for index in range(rounds):
        order = VARIANTS if index % 2 == 0 else tuple(reversed(VARIANTS))
        for name in order:
            samples[name].extend(time_each(calls[name], calls_per_round))
    ms = {name: round(median(values) * 1000, 3) for name, values in samples.items()}
    return {
        "api_list_ms": ms["api_list"],
        "api_admin_list_ms": ms["api_admin"],
        "api_use_case_list_ms": ms["use_case"],
        "api_readable_list_ms": ms["readable"],
        "authorization_overhead": round(ms["readable"] / ms["use_case"] - 1, 3),
        "api_over_use_case": round(ms["api_list"] / ms["use_case"], 2),
    }
