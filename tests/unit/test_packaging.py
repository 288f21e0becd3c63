"""Every package folder is installed: pyproject lists packages by hand for the examples mapping."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def _package_folders(base: Path, name: str) -> set[str]:
    return {
        ".".join([name, *init.parent.relative_to(base).parts]).rstrip(".")
        for init in base.rglob("__init__.py")
    }


def test_every_package_folder_is_listed_in_pyproject() -> None:
    listed = set(
        tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]["packages"]
    )
    found = {p.removeprefix(".") for p in _package_folders(ROOT / "src", "")} | _package_folders(
        ROOT / "examples", "wfx_examples"
    )
    assert found == listed
