"""`wfx serve`: the HTTP service on this machine, on the configured store and runner.

Runs launched through it go on in detached workers, so they outlive a restart of the service.
Tokens are verified here: against WFX_JWT_JWKS when set, else against the key `wfx auth token`
signs with.
"""

from __future__ import annotations

import sys
from collections.abc import Callable

from entrypoints.container import Container


def serve(container_for: Callable[[str], Container], host: str, port: int) -> None:
    import uvicorn

    from entrypoints.http.app import create_app
    from entrypoints.http.identity import verified_by
    from entrypoints.settings import Settings

    container = container_for("detached")
    settings = Settings.from_environment()
    verifier = container.token_verifier()
    app = create_app(container, verified_by(verifier), sessions=verifier)
    print(
        f"wfx serving {settings.describe_store()} on http://{host}:{port} "
        f"(API docs at http://{host}:{port}/docs; Ctrl-C stops)",
        file=sys.stderr,
    )
    uvicorn.run(app, host=host, port=port, log_level="warning", server_header=False)
