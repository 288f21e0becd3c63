"""The Lambda zip's own limits, on real files: what Lambda would refuse at deploy time is said
when the zip is built, before anything is written."""

from __future__ import annotations

from pathlib import Path

import pytest

from adapters.aws.stack.lambda_package import (
    LAMBDA_UNZIPPED_LIMIT,
    PackageTooLargeError,
    zip_package,
)


def test_a_package_over_lambda_s_unzipped_limit_is_refused_and_not_written(
    tmp_path: Path,
) -> None:
    """A sparse file stands in for a dependency too large: its size is all that is read."""
    tree = tmp_path / "package"
    (tree / "entrypoints").mkdir(parents=True)
    (tree / "entrypoints" / "__init__.py").write_text("")
    with (tree / "huge.so").open("wb") as sparse:
        sparse.truncate(LAMBDA_UNZIPPED_LIMIT)  # the limit itself, with an empty __init__.py
    output = tmp_path / "out" / "wfx-lambda.zip"
    assert zip_package(tree, output).files == 2
    with (tree / "entrypoints" / "__init__.py").open("a") as one_more:
        one_more.write("#")
    output.unlink()
    with pytest.raises(PackageTooLargeError) as refused:
        zip_package(tree, output)
    assert str(refused.value) == (
        "the package unzips to 262,144,001 bytes, over Lambda's 262,144,000 (250 MiB) for a "
        "function with its layers; nothing was written"
    )
    assert sorted(p.name for p in output.parent.iterdir()) == []
