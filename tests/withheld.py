"""The one walk of the tests that looks for what VAMS keeps from its callers in an answer: ARNs,
S3 buckets, keys, prefixes and the per-step S3 paths (an object's `s3VersionId` is a version, not
a place), vended roles and STS credentials. Used by the HTTP/CLI withheld-field tests and the
web-client replay."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

# `sts` only as a word of its own: VAMS's `lastSfnSyncCheckDate` holds "stS" and withholds nothing
WITHHELD_KEY = re.compile(
    r"(?i:arns?$|^s3(?!VersionId$)|bucket|assetRootS3Key|vendedRole|credential|S3Asset\w*Path)"
    r"|(^sts|Sts)(?![a-z])"
)
WITHHELD_VALUE = re.compile(r"arn:[\w-]+:|s3://")


def withheld(
    document: Any, path: str = "$", values: re.Pattern[str] = WITHHELD_VALUE
) -> Iterator[str]:
    """Where in a document a withheld key, or a text matching `values`, is."""
    if isinstance(document, dict):
        for key, value in document.items():
            if WITHHELD_KEY.search(key):
                yield f"{path}.{key}"
            yield from withheld(value, f"{path}.{key}", values)
    elif isinstance(document, list):
        for index, value in enumerate(document):
            yield from withheld(value, f"{path}[{index}]", values)
    elif isinstance(document, str) and values.search(document):
        yield f"{path} = {document!r}"
