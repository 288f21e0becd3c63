"""The one way wfx builds a boto3 client, imported only when a client is first needed."""

from __future__ import annotations

from typing import Any


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
    client: Any = boto3.client(  # type: ignore[call-overload]  # service is any name, not a literal
        service, endpoint_url=endpoint or None, region_name=region, config=config
    )
    return client
