"""A route declared with `BuiltOnFirstUse` is built on its first request (or the OpenAPI
document), and then validates and answers as FastAPI's own route does."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, FastAPI, Query
from fastapi.testclient import TestClient
from pydantic import BaseModel

from entrypoints.http.lazy_route import BuiltOnFirstUse, ModelIn


class Echo(BaseModel):
    count: int


def _app(route_class: type | None = None) -> tuple[FastAPI, APIRouter]:
    router = APIRouter(route_class=route_class) if route_class else APIRouter()

    @router.get("/echo/{name}", response_model=Echo)
    def echo(name: str, count: Annotated[int, Query(ge=1)] = 1) -> Echo:
        return Echo(count=count * len(name))

    app = FastAPI()
    app.router.routes.extend(router.routes)
    return app, router


def test_a_declared_route_holds_only_what_matching_needs() -> None:
    _, router = _app(BuiltOnFirstUse)
    (route,) = router.routes

    assert isinstance(route, BuiltOnFirstUse)
    assert "dependant" not in vars(route) and "response_field" not in vars(route)
    assert route.path_format == "/echo/{name}"


def test_the_first_request_builds_it_and_it_answers_as_fastapis_route() -> None:
    lazy, router = _app(BuiltOnFirstUse)
    eager, _ = _app()
    for path in ("/echo/ab?count=3", "/echo/ab?count=0", "/echo/ab?count=x", "/nowhere"):
        built = TestClient(lazy).get(path)
        expected = TestClient(eager).get(path)
        assert (built.status_code, built.json()) == (expected.status_code, expected.json())
    assert TestClient(lazy).post("/echo/ab").status_code == 405
    assert "dependant" in vars(router.routes[0])


def test_the_openapi_document_is_fastapis_own() -> None:
    lazy, _ = _app(BuiltOnFirstUse)
    eager, _ = _app()

    assert lazy.openapi() == eager.openapi()


class Failure(BaseModel):
    reason: str


def _named_or_eager(named: bool) -> tuple[FastAPI, APIRouter]:
    router = APIRouter(route_class=BuiltOnFirstUse) if named else APIRouter()
    model, failure = (
        (ModelIn(__name__, "Echo"), ModelIn(__name__, "Failure")) if named else (Echo, Failure)
    )

    @router.get(
        "/echo/{name}",
        response_model=model,
        responses={409: {"model": failure, "description": "Taken."}},
    )
    def echo(name: str) -> Echo:
        return Echo(count=len(name))

    app = FastAPI()
    app.router.routes.extend(router.routes)
    return app, router


def test_a_response_model_named_by_its_module_is_imported_when_the_route_is_built() -> None:
    named, router = _named_or_eager(True)
    eager, _ = _named_or_eager(False)

    assert "response_model" not in vars(router.routes[0])
    assert TestClient(named).get("/echo/abc").json() == {"count": 3}
    assert router.routes[0].response_model is Echo  # type: ignore[attr-defined]
    assert named.openapi() == eager.openapi()
