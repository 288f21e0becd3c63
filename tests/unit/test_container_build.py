"""Each container `build_container` makes has providers of its own, as `Container()` gives: made
by running the class body again (entrypoints/container.py), never shared with another container
or with the class, so one's overrides and singletons are never another's."""

from __future__ import annotations

from pathlib import Path

from dependency_injector import providers

from entrypoints.container import Container, build_container
from tests.home_settings import home_settings


def _provider_ids(container: object) -> set[int]:
    return {id(provider) for provider in container.traverse()}  # type: ignore[attr-defined]


def test_two_containers_share_no_provider_with_each_other_or_the_class(tmp_path: Path) -> None:
    first = build_container(home_settings(tmp_path / "a"))
    second = build_container(home_settings(tmp_path / "b"))

    assert _provider_ids(first).isdisjoint(_provider_ids(second))
    assert _provider_ids(first).isdisjoint(_provider_ids(Container))
    assert first.sqlite_database() is not second.sqlite_database()
    assert first.sqlite_database().path == tmp_path / "a" / "wfx.db"
    assert second.sqlite_database().path == tmp_path / "b" / "wfx.db"


def test_an_override_of_one_container_is_not_anothers(tmp_path: Path) -> None:
    first = build_container(home_settings(tmp_path))
    second = build_container(home_settings(tmp_path))
    stopped = object()

    first.clock.override(providers.Object(stopped))

    assert first.clock() is stopped
    assert second.clock() is not stopped
    assert build_container(home_settings(tmp_path)).clock() is not stopped


def test_a_built_container_has_what_container_gives(tmp_path: Path) -> None:
    built = build_container(home_settings(tmp_path))
    declared = Container()

    assert set(built.providers) == set(declared.providers)
    for name, provider in declared.providers.items():
        assert type(built.providers[name]) is type(provider), name
    assert built.declarative_parent is Container
