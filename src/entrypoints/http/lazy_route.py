"""A FastAPI route that is built when it is first used, not when it is declared.

Building a route (its dependant, its request body field, a validator for its response model and
for each error response) is most of what importing the app costs: a Lambda's cold start answers
one request, on one route, and would otherwise build all of them. Declared, a route holds only
what matching a request needs (its path and methods); the first request it answers, the OpenAPI
document, or anything else that reads the rest of it, builds the route as FastAPI would have at
import, with the same arguments, so it validates and answers exactly the same.

A route may name its response models by module (`ModelIn`): they are imported when it is built,
so a cold start imports the models of the one route it answers, not of all of them.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from fastapi.routing import APIRoute
from starlette.routing import compile_path, get_name


@dataclass(frozen=True)
class ModelIn:
    """A response model by its module and name, for `response_model` or a `responses` entry's
    `model` of a `BuiltOnFirstUse` route."""

    module: str
    name: str

    def resolve(self) -> Any:
        return getattr(importlib.import_module(self.module), self.name)


def _resolved(options: dict[str, Any]) -> dict[str, Any]:
    """The route's arguments with each `ModelIn` imported (the shared dicts left as they are)."""
    resolved = dict(options)
    if isinstance(options.get("response_model"), ModelIn):
        resolved["response_model"] = options["response_model"].resolve()
    if options.get("responses"):
        resolved["responses"] = {
            status: response | {"model": response["model"].resolve()}
            if isinstance(response.get("model"), ModelIn)
            else response
            for status, response in options["responses"].items()
        }
    return resolved


class BuiltOnFirstUse(APIRoute):
    """An `APIRoute` whose construction waits for the first read of anything beyond its path."""

    def __init__(self, path: str, endpoint: Callable[..., Any], **options: Any) -> None:
        self._pending: tuple[str, Callable[..., Any], dict[str, Any]] | None = (
            path,
            endpoint,
            options,
        )
        # what a router reads to match a request against the route, as APIRoute sets it
        self.path = path
        self.endpoint = endpoint
        self.name = options.get("name") or get_name(endpoint)
        self.methods = {method.upper() for method in options.get("methods") or ("GET",)}
        self.path_regex, self.path_format, self.param_convertors = compile_path(path)

    def __getattr__(self, attribute: str) -> Any:
        # only called for what the instance does not hold yet: the rest of a built route
        pending = self.__dict__.get("_pending")
        if pending is None:
            raise AttributeError(attribute)
        self._pending = None  # a read while building is FastAPI's own bug, not a second build
        path, endpoint, options = pending
        try:
            APIRoute.__init__(self, path, endpoint, **_resolved(options))
        except Exception:
            self._pending = pending  # the next use fails the same way, not with a missing name
            raise
        return getattr(self, attribute)
