"""The one way wfx builds a boto3 client, imported only when a client is first needed."""

from __future__ import annotations

import threading
from typing import Any

# boto3's default session is not safe to make clients from in two threads at once (its
# loaders and credential resolution are built on first use); a process makes few clients
_MAKING = threading.Lock()


def aws_client(service: str, region: str, endpoint: str | None = None) -> Any:
    """A client with short timeouts and standard retries.

    A hung endpoint must not hang a command for botocore's default 60 s read timeout. Without
    `endpoint`, boto3 reads AWS_ENDPOINT_URL / AWS_ENDPOINT_URL_<SERVICE> itself (moto, LocalStack).
    """
    import boto3
    from botocore.config import Config

    config = Config(
        connect_timeout=2, read_timeout=10, retries={"mode": "standard", "max_attempts": 3}
    )
    with _MAKING:
        client: Any = boto3.client(  # type: ignore[call-overload]  # service is any name
            service, endpoint_url=endpoint or None, region_name=region, config=config
        )
    return client
