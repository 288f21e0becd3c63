"""A step that leaves an output whose name cannot be a stored file key (a folder named
`*.versions`, a name longer than the local store's file system takes, a name that is not UTF-8)
fails with an error naming the file and the rule and saying what to do, as `assets import`
does; the step's other outputs are recorded, and the run ends (no store retries, no lost
runner)."""

from __future__ import annotations

import pytest

from tests.e2e.cli import Wfx, output_files

LONG = "a" * 247 + ".txt"  # 251 bytes: with `.versions` the local store's folder would be 260


@pytest.mark.parametrize(
    ("write", "named", "rule"),
    [
        (
            'os.mkdir(out + b"/x.versions"); name = out + b"/x.versions/f.txt"',
            "x.versions/f.txt",
            ".versions",
        ),
        (f'name = out + b"/{LONG}"', LONG, "246 bytes"),
        ('name = out + b"/caf\\xe9.txt"', "caf\\udce9.txt", "UTF-8"),
    ],
)
def test_an_output_whose_name_cannot_be_stored_fails_the_step_naming_the_file_and_rule(
    wfx: Wfx, write: str, named: str, rule: str
) -> None:
    code = (
        'import os\nout = os.fsencode(os.environ["WFX_OUTPUT_DIR"])\n'
        f'{write}\nopen(name, "w").write("x")\nopen(out + b"/good.txt", "w").write("kept")\n'
    )
    wfx.publish_command_step("names", code)
    outcome = wfx("run", "demo/names")

    assert outcome.code == 1, str(outcome)
    assert "store failed" not in outcome.stderr and "RunnerLost" not in outcome.stderr
    details = wfx.json("executions", "show", outcome.stdout.strip())
    assert details["executionStatus"] == "FAILED"
    (step,) = details["pipelines"]
    error = step["errorMessage"]
    for word in (named, rule, "rename"):
        assert word in error, f"{word!r} not in {error!r}"
    assert "ValueError" not in error and "OSError" not in error
    assert [row["relativeFilePath"] for row in output_files(details, step)] == ["good.txt"]
