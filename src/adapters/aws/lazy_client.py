"""A boto3 client built the first time it is needed: a command that never calls the service
never configures the AWS SDK (nor imports botocore, where the factory imports it)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any


class LazyClient:
    """Base of an AWS adapter whose client comes from `client_factory`, on first use: once,
    when several threads ask at once (an adapter's calls made at once share one client)."""

    def __init__(self, client_factory: Callable[[], Any]) -> None:
        self._client_factory = client_factory
        self._client: Any = None
        self._making = threading.Lock()

    @property
    def client(self) -> Any:
        client = self._client
        if client is None:
            with self._making:
                if self._client is None:
                    self._client = self._client_factory()
                client = self._client
        return client
