"""WFX_OBJECT_STORE and WFX_S3_BUCKET wfx cannot use: one line naming the variable (and the
bucket) and what to do, never a traceback; nothing is imported."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.e2e.cli import FAKE_AWS, MESH_ASSETS, Wfx, assert_bad_input
from tests.e2e.test_cli_unusable_settings import assert_unusable

IMPORT = ("assets", "import", "demo", "meshes", str(MESH_ASSETS))


@pytest.mark.parametrize(
    ("environment", "named"),
    [
        ({"WFX_OBJECT_STORE": "gcs"}, ("WFX_OBJECT_STORE", "filesystem, s3", "'gcs'")),
        ({"WFX_OBJECT_STORE": "s3"}, ("WFX_S3_BUCKET", "not set")),
    ],
    ids=["unknown store", "no bucket"],
)
def test_an_object_store_setting_wfx_cannot_use_is_named(
    tmp_path: Path, environment: dict[str, str], named: tuple[str, ...]
) -> None:
    outcome = Wfx(tmp_path / "home", **environment)(*IMPORT)

    assert_bad_input(outcome, *named)


def test_a_bucket_that_cannot_be_reached_is_named_with_how_to_fix_it(tmp_path: Path) -> None:
    wfx = Wfx(
        tmp_path / "home",
        WFX_OBJECT_STORE="s3",
        WFX_S3_BUCKET="team-assets",
        AWS_ENDPOINT_URL_S3="http://127.0.0.1:9",  # the discard port: nothing answers
        **FAKE_AWS,
    )

    outcome = wfx(*IMPORT)

    assert_unusable(outcome, "WFX_S3_BUCKET")
    assert "'team-assets'" in outcome.stderr and "cannot be reached" in outcome.stderr
    assert "AWS_ENDPOINT_URL_S3" in outcome.stderr
