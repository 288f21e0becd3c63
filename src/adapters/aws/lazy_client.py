"""A boto3 client built the first time it is needed: a command that never calls the service
never configures the AWS SDK (nor imports botocore, where the factory imports it)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class LazyClient:
    """Base of an AWS adapter whose client comes from `client_factory`, on first use."""

    def __init__(self, client_factory: Callable[[], Any]) -> None:
        self._client_factory = client_factory
        self._client: Any = None

    @property
    def client(self) -> Any:
        if self._client is None:
            self._client = self._client_factory()
        return self._client
