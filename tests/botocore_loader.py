"""botocore's data files (service models, endpoints, partitions, rule sets) read once per process.

moto's `mock_aws()` gives boto3 a fresh default session in each mock (`reset_boto3_session`), so
the first client a test makes builds a new botocore session, whose loader reads and parses the
service's JSON files again (endpoints.json and the service's model and rule set, and a listing
of every service's folder): 0.1-0.3 s CPU in each test that makes a client in its own mock.
The loader is a cache of those read-only files and nothing else (credentials, region, config
and event handlers stay each session's own, as before), so the tests' sessions share one loader
per data path; each boto3 session still adds its data folder to the loader's search paths, once.
"""

from __future__ import annotations

import functools
from typing import Any


class _SearchPaths(list[str]):
    """A loader's search paths, each taken once: every boto3 session appends its data folder."""

    def append(self, path: str) -> None:
        if path not in self:
            super().append(path)


def share_the_data_loader() -> None:
    from botocore import loaders, session

    create_loader = getattr(loaders, "create_loader", None)
    session_class: Any = session.Session
    register: Any = getattr(session_class, "_register_data_loader", None)
    if create_loader is None or register is None:
        return  # another botocore: each session reads the files, slower and never wrong
    if getattr(register, "wfx_shared", False):
        return

    @functools.cache
    def shared_loader(data_path: str | None) -> Any:
        loader = create_loader(data_path)
        loader._search_paths = _SearchPaths(loader.search_paths)
        return loader

    def register_data_loader(self: Any) -> None:
        """Session._register_data_loader, the loader the one of its data path."""
        self._components.lazy_register_component(
            "data_loader", lambda: shared_loader(self.get_config_variable("data_path"))
        )

    register_data_loader.wfx_shared = True  # type: ignore[attr-defined]
    session_class._register_data_loader = register_data_loader
