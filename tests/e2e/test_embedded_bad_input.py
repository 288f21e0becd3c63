"""The library API given what a backend may well pass it: a bad input is wfx.InvalidInputError
naming the rule, never a TypeError or ValueError of the code underneath."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import yaml

import wfx


@pytest.mark.parametrize("text", ["", "- a list\n", "just words\n"])
def test_a_workflow_file_that_is_no_mapping_is_refused_as_bad_input(
    tmp_path: Path, text: str
) -> None:
    """`publish(yaml.safe_load(file))`, as docs/embedding.md does, of an empty file (None), a
    list or a plain string: each was a raw TypeError or ValueError from `dict(document)`."""
    app = wfx.open_application({"WFX_HOME": str(tmp_path)}, runner_mode="inline")
    app.create_tables()
    document: Any = yaml.safe_load(text)

    with pytest.raises(wfx.InvalidInputError, match="expected a mapping"):
        app.publish(document)
