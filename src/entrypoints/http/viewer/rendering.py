"""HTML out: the Jinja2 templates (autoescaped, so a hostile name is text, never markup) and the
headers every page carries."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from fastapi import Request
from fastapi.responses import HTMLResponse
from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from domain.control_characters import escape_control_characters
from domain.redaction import redact
from entrypoints.durations import Span, step_span, table_span

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"

# No inline script or style anywhere: all JS and CSS are static files of this package, so a
# value that slipped through escaping could still not run. `data:` images: none are used.
SECURITY_HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; "
        "object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"
    ),
    "X-Content-Type-Options": "nosniff",
    # the login link carries a token in its query: never let it leave in a Referer
    "Referrer-Policy": "no-referrer",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}

TERMINAL = frozenset({"SUCCEEDED", "FAILED", "ABORTED", "TIMED_OUT"})


def _when(text: str | None) -> str:
    if not text:
        return ""
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return text
    return moment.strftime("%Y-%m-%d %H:%M:%S UTC")


def _status_class(status: str | None) -> str:
    return "status-" + (status or "unknown").lower().replace("_", "-")


def _instant(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def _moment(text: str | None) -> datetime | None:
    return _instant(text) if text else None


def _said(span: Span) -> str:
    if span.start is None:
        return ""
    return span.said() or "running"


def _duration(start: str | None, stop: str | None) -> str:
    """A run's: its dates are whole seconds."""
    return _said(table_span(_moment(start), _moment(stop)))


def _step_duration(start: str | None, stop: str | None, attempts: list[dict[str, Any]]) -> str:
    """A step's: from its attempts' precise dates when they cover it."""
    spans = [(_instant(a["startDate"]), _moment(a.get("stopDate"))) for a in attempts]
    return _said(step_span(_moment(start), _moment(stop), spans))


def _shown(value: Any) -> Any:
    # every value a template writes, as the CLI writes it: an RTL override or an ESC a step left
    # in a file name or a log line is seen as `\u202e` / `\x1b`, never reorders or hides text
    return escape_control_characters(value) if isinstance(value, str) else value


def _environment() -> Environment:
    environment = Environment(
        loader=FileSystemLoader(TEMPLATES),
        autoescape=select_autoescape(["html"], default=True),
        finalize=_shown,
        undefined=StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
    )
    environment.filters["when"] = _when
    environment.filters["status_class"] = _status_class
    environment.filters["redact"] = redact
    environment.globals["duration"] = _duration
    environment.globals["step_duration"] = _step_duration
    environment.globals["TERMINAL"] = TERMINAL
    return environment


ENVIRONMENT = _environment()


# What a page's poll meets once its session ended, its rights went or its run was deleted:
# waiting will not change it.
_ENDED = frozenset({401, 403, 404})


def render(request: Request, template: str, status_code: int = 200, **context: Any) -> HTMLResponse:
    session = getattr(request.state, "viewer_session", None)
    html = ENVIRONMENT.get_template(template).render(
        request=request,
        session=session,
        csrf=None if session is None else session.csrf,
        **context,
    )
    headers = SECURITY_HEADERS
    if status_code in _ENDED and request.headers.get("hx-request") == "true":
        # htmx swaps no error answer: the page would go on looking live, polling in vain.
        # Reloaded whole, it shows the error page (the login page, the 403, the 404) instead.
        headers = SECURITY_HEADERS | {"HX-Refresh": "true"}
    return HTMLResponse(html, status_code=status_code, headers=headers)
