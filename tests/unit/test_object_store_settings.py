"""WFX_OBJECT_STORE and WFX_S3_BUCKET: the filesystem by default, a named bucket for s3."""

from __future__ import annotations

from pathlib import Path

import pytest
from dependency_injector import providers

from adapters.aws.s3_object_store import S3ObjectStore
from adapters.local.object_store import FilesystemObjectStore
from domain.errors import InvalidInputError
from entrypoints.container import build_container
from entrypoints.settings import Settings, UnusableSettingError


def test_the_filesystem_under_wfx_home_is_the_default(tmp_path: Path) -> None:
    settings = Settings.from_environment({"WFX_HOME": str(tmp_path)})

    objects = build_container(settings).object_store()

    assert (settings.object_store, settings.s3_bucket) == ("filesystem", None)
    assert isinstance(objects, FilesystemObjectStore)
    assert objects.bucket == "wfx-local" and objects.root == tmp_path / "objects"


def test_s3_uses_the_named_bucket_and_builds_no_client_until_first_used(tmp_path: Path) -> None:
    environment = {"WFX_HOME": str(tmp_path), "WFX_OBJECT_STORE": "s3", "WFX_S3_BUCKET": "assets"}
    container = build_container(Settings.from_environment(environment))
    built: list[str] = []
    container.s3_client.override(providers.Callable(built.append, "client"))

    objects = container.object_store()

    assert isinstance(objects, S3ObjectStore)
    assert objects.bucket == "assets"
    assert built == []  # the client is built, and the bucket checked, on the first use only


def test_an_unknown_object_store_is_refused_naming_the_choices() -> None:
    with pytest.raises(InvalidInputError, match=r"WFX_OBJECT_STORE: must be one of filesystem, s3"):
        Settings.from_environment({"WFX_OBJECT_STORE": "gcs"})


def test_s3_without_a_bucket_is_refused_naming_the_variable() -> None:
    with pytest.raises(InvalidInputError, match="WFX_S3_BUCKET: not set; WFX_OBJECT_STORE=s3"):
        Settings.from_environment({"WFX_OBJECT_STORE": "s3"})


def test_a_bucket_without_the_s3_store_is_refused_rather_than_ignored() -> None:
    with pytest.raises(InvalidInputError, match="WFX_S3_BUCKET: set only with WFX_OBJECT_STORE"):
        Settings.from_environment({"WFX_S3_BUCKET": "assets"})


@pytest.mark.parametrize("bucket", ["ab", "Assets", "my_bucket", "-assets", "a..b", "x" * 64])
def test_a_name_s3_would_refuse_is_named(bucket: str) -> None:
    with pytest.raises(UnusableSettingError, match=r"WFX_S3_BUCKET: .* is not an S3 bucket name"):
        Settings.from_environment({"WFX_OBJECT_STORE": "s3", "WFX_S3_BUCKET": bucket})
