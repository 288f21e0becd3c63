"""`wfx serve`: the HTTP service and the web viewer on this machine, on the configured store and
runner.

Runs launched through it go on in detached workers, so they outlive a restart of the service.
Tokens are verified here: against WFX_JWT_JWKS when set, else against the key `wfx auth token`
signs with.

With more than one worker (`--workers`, default: the cores) that many processes serve, each
building its own app, container and store connections from the environment (`worker_app`): one
Python process runs on one core at a time (serve_processes.py says how connections reach them).
A run is still started once, by the process that answered its launch; the stores are what the
processes share.
"""

from __future__ import annotations

import contextlib
import gc
import os
import secrets
import sys
import threading
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path
from typing import TYPE_CHECKING
from urllib.parse import quote

from entrypoints.container import Container
from entrypoints.settings import Settings, take_handed_over

if TYPE_CHECKING:
    from fastapi import FastAPI

# long enough for a working day in the viewer; the link is printed again by the next start
LINK_LIFETIME = timedelta(hours=12)
# The viewer's CSRF key, from the supervisor to its workers: a form rendered by one process is
# posted to whichever accepts the connection. Each worker removes it from its environment before
# it can start a run, so no step inherits it.
SESSION_KEY_VARIABLE = "WFX_SERVE_SESSION_KEY"
WORKER_APP = "entrypoints.cli.serve:worker_app"
# What `worker_app` imports, imported once for all the serving processes (a miss costs time, not
# correctness). Not the CLI's main module, which multiprocessing runs again in each of them
# (0.03 s once these are in; runpy warns when it finds it imported already).
WORKER_IMPORTS = (
    "entrypoints.container",
    "entrypoints.http.app",
    "entrypoints.http.identity",
    "entrypoints.http.viewer",
    "adapters.identity.jwks",
    "adapters.identity.local_tokens",
    "adapters.identity.revocation",
    "adapters.sqlite.database",
)


def _home() -> Path:
    return Settings.from_environment().home


def login_link(settings: Settings, host: str, port: int) -> str | None:
    """A link that logs the local user in, as the CLI acts (holding the admin role); None when
    the service verifies an identity provider's tokens instead of the local key's."""
    from domain.authorization import ADMIN_ROLE
    from entrypoints.identity_wiring import local_token_issuer

    if settings.jwt.jwks is not None:
        return None
    token = local_token_issuer(settings.home).issue(settings.user, LINK_LIFETIME, (ADMIN_ROLE,))
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    if ":" in shown_host:
        shown_host = f"[{shown_host}]"
    return f"http://{shown_host}:{port}/login?token={quote(token)}"


def _has_display() -> bool:
    from entrypoints.settings import has_display

    return has_display()


def _open_soon(link: str) -> None:
    """Open the link once the server has had a moment to listen; never fails the service."""
    import webbrowser

    def open_it() -> None:
        # the link is printed: opening it by hand is the fallback
        with contextlib.suppress(webbrowser.Error, OSError):
            webbrowser.open(link)

    timer = threading.Timer(1.0, open_it)
    timer.daemon = True
    timer.start()


SAME_RIGHTS_NOTE = (
    "wfx: steps run with the service's own rights: a python or command step can read its key "
    "and database; --step-user NAME (WFX_STEP_USER) runs them as another OS user"
)


def confine_steps(step_user: str | None, home: Path) -> None:
    """With a step user: check it can be switched to, tell the detached workers (they inherit
    the environment and the umask) and close WFX_HOME to it; without one, say once what steps
    may do."""
    from adapters.local.step_user import StepUser, can_switch_users, lock_home
    from domain.errors import InvalidInputError

    if step_user is None:
        print(SAME_RIGHTS_NOTE, file=sys.stderr)
        return
    user = StepUser.named(step_user, "--step-user")
    refusal = can_switch_users()
    if refusal is not None:
        raise InvalidInputError(f"--step-user: {refusal}")
    os.environ["WFX_STEP_USER"] = user.name
    lock_home(home)
    print(f"wfx: steps run as OS user {user.name} (uid {user.uid})", file=sys.stderr)


def _app(container: Container, settings: Settings, session_key: bytes | None) -> FastAPI:
    from entrypoints.http.app import create_app
    from entrypoints.http.identity import verified_by

    verifier = container.token_verifier()
    return create_app(
        container,
        verified_by(verifier),
        sessions=verifier,
        max_request_bytes=settings.max_request_bytes,
        session_key=session_key,
        reads_in_turn=settings.store == "sqlite",
    )


def worker_app() -> FastAPI:
    """The app of one of `wfx serve`'s worker processes (uvicorn calls it in each): the store
    was opened and brought up to date by the supervisor before it started them."""
    from entrypoints.container import build_container

    key = bytes.fromhex(take_handed_over(SESSION_KEY_VARIABLE))
    settings = Settings.from_environment()
    app = _app(build_container(settings, runner_mode="detached"), settings, key)
    gc.freeze()  # the app lives as long as the process: the collector need never scan it
    return app


def _serving_processes(asked: int, settings: Settings) -> int:
    if asked > 1 and settings.store == "sqlite" and str(settings.sqlite_path) == ":memory:":
        print("wfx: an in-memory database lives in one process: serving with one", file=sys.stderr)
        return 1
    return asked


def _offer_viewer_link(settings: Settings, host: str, port: int) -> None:
    """The viewer's login link on stdout, alone on its line (a script can read it), opened in a
    browser when there is a display; with an identity provider's keys, how to log in instead."""
    link = login_link(settings, host, port)
    if link is None:
        print(
            "no viewer link: WFX_JWT_JWKS is set, so log in at /login?token=<token> with "
            "a token of your identity provider",
            file=sys.stderr,
        )
        return
    print(link, flush=True)
    if _has_display():
        _open_soon(link)


def serve(
    container_for: Callable[[str], Container],
    host: str,
    port: int,
    open_viewer: bool = False,
    step_user: str | None = None,
    workers: int | None = None,
) -> None:
    """`workers`: the service's processes (None: WFX_SERVE_WORKERS, else the cores)."""
    import uvicorn

    from entrypoints.cli.uvicorn_server import Server

    confine_steps(step_user or Settings.from_environment().step_user, _home())
    # also the store's first opening (tables created or upgraded) before any worker opens it
    container = container_for("detached")
    settings = Settings.from_environment()
    workers = _serving_processes(workers or settings.serve_workers, settings)
    from entrypoints.cli.serve_processes import balanced_here, listen_on, serve_from_processes

    # a port another program holds is refused here, before the service says it is serving
    listener = listen_on(host, port)
    processes = f", {workers} processes" if workers > 1 else ""
    print(
        f"wfx serving {settings.describe_store()} on http://{host}:{port}{processes} "
        f"(web viewer at /, API docs at /docs; Ctrl-C stops)",
        file=sys.stderr,
    )
    if open_viewer:
        _offer_viewer_link(settings, host, port)
    if workers == 1:
        app = _app(container, settings, session_key=None)
        config = uvicorn.Config(app, log_level="warning", server_header=False)
        server = Server(config)  # uvicorn's, leaving ignored what this process ignores
        with contextlib.suppress(KeyboardInterrupt):  # uvicorn raises the Ctrl-C it stopped on
            server.run(sockets=[listener])
        if not server.started:
            raise SystemExit(3)  # the app's startup failed (said on stderr), as uvicorn.run ends
        return
    database = container.sqlite_database() if settings.store == "sqlite" else None
    if database is not None:
        database.close()  # the workers open their own; this process only supervises them
    os.environ[SESSION_KEY_VARIABLE] = secrets.token_hex(32)
    if balanced_here():
        code = serve_from_processes(WORKER_APP, listener, workers, WORKER_IMPORTS)
        if code:
            raise SystemExit(code)
        return
    listener.close()  # uvicorn's workers bind their shared socket themselves
    # elsewhere uvicorn's workers, on one shared socket
    uvicorn.run(
        WORKER_APP,
        factory=True,
        workers=workers,
        host=host,
        port=port,
        log_level="warning",
        server_header=False,
    )
