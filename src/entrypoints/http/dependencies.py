"""What every route depends on: the application it runs on, and the caller, identified and let
through tier 1 before the route reads or writes anything."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request

from domain.authorization import Action, Subject
from entrypoints.container import Container


async def application(request: Request) -> Container:
    # async: nothing to wait for, and a plain function would cost a hop to the thread pool
    container: Container = request.app.state.container
    return container


@dataclass(frozen=True)
class Requester:
    """Who asks, and the route asked (what an audited refusal names)."""

    subject: Subject
    route: str


def requester(request: Request) -> Requester:
    """The identified caller, allowed this route (`{object__type: api, route__path}` with the
    request's method) - or a 401 / 403 before anything is read."""
    subject: Subject = request.app.state.identify(request)
    route = request.url.path
    container: Container = request.app.state.container
    container.access_control().require_route(subject, route, Action(request.method))
    return Requester(subject=subject, route=route)


App = Annotated[Container, Depends(application)]
Caller = Annotated[Requester, Depends(requester)]
