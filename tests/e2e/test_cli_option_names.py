"""A value the command line refuses is named as the user gave it: the option (`--group`) or the
argument (`APPROVAL_ID`), never the use case's field behind it (`group`, `approval_id`,
`executionGroupId`)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

from tests.e2e.cli import Wfx, assert_bad_input

pytestmark = pytest.mark.xdist_group("e2e-cli-option-names")


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory) -> tuple[Wfx, Mapping[str, str]]:
    """One home for every refusal (a refused command changes nothing in it): demo/noop published
    and run once; the run's and its step's ids, by the placeholders RUN and STEP."""
    wfx = Wfx(tmp_path_factory.mktemp("option-names") / "home")
    wfx.publish_command_step("noop", "pass")
    run = wfx.run_id("demo/noop")
    (step,) = wfx.json("executions", "show", run)["pipelines"]
    return wfx, {"RUN": run, "STEP": step["pipelineExecutionId"]}


@pytest.mark.parametrize(
    ("args", "named", "internal"),
    [
        (("approvals", "approve", ""), "APPROVAL_ID: ", "approval_id"),
        (("approvals", "reject", "", "--reason", "no"), "APPROVAL_ID: ", "approval_id"),
        (("approvals", "reject", "a1b2", "--reason", " "), "--reason: ", "error: reason"),
        (("executions", "list", "--group", ""), "--group: ", "error: group"),
        (("executions", "list", "--status", "DONE"), "--status: ", "error: status"),
        (("executions", "list", "--workflow", "a/b/c"), "--workflow: ", "error: workflow"),
        (("executions", "list", "--asset", "x"), "--asset: ", "error: asset"),
        (("run", "demo/noop", "--group", ""), "--group: ", "executionGroupId"),
        (("run", "demo/noop", "--input", "zz"), "--input: ", "inputs[0]"),
        (("auth", "roles", "create", ""), "role: ", "error: name"),
        (("auth", "users", "assign", "", "admin"), "user: ", "user_id"),
        (("auth", "users", "unassign", "", "admin"), "user: ", "user_id"),
        (("auth", "templates", "apply", "admin", "--role", ""), "--role: ", "error: name"),
        (("auth", "token", ""), "USER: ", "error: user"),
        (("run", "demo/noop", "--group", " g"), "--group: ", "executionGroupId"),
    ],
)
def test_a_refused_value_is_named_as_the_option_or_argument_given(
    home: tuple[Wfx, Mapping[str, str]], args: tuple[str, ...], named: str, internal: str
) -> None:
    wfx, _ = home

    outcome = wfx(*args)

    assert_bad_input(outcome, named)
    assert internal not in outcome.stderr, str(outcome)


@pytest.mark.parametrize(
    ("args", "named", "internal"),
    [
        (
            ("costs", "report", "RUN", "--step", "", "--quantity", "1", "--unit", "seconds"),
            "--step: ",
            "pipeline_execution_id",
        ),
        (
            ("costs", "report", "RUN", "--step", "STEP", "--quantity", "1", "--unit", "a b"),
            "--unit: ",
            "error: unit",
        ),
        (
            (
                "costs",
                "report",
                "RUN",
                "--step",
                "STEP",
                "--quantity",
                "1",
                "--unit",
                "seconds",
                "--currency",
                "x",
            ),
            "--currency: ",
            "error: currency",
        ),
        (
            (
                "costs",
                "report",
                "RUN",
                "--step",
                "STEP",
                "--quantity",
                "1",
                "--unit",
                "seconds",
                "--attempt",
                "9",
            ),
            "--attempt: ",
            "error: attempt",
        ),
        (
            ("executions", "metadata", "RUN", "--collection", "zz"),
            "--collection: ",
            "error: collection",
        ),
        (
            ("executions", "metadata", "RUN", "--collection", "inputs", "--starting-token", "zz"),
            "--starting-token: ",
            "startingToken",
        ),
    ],
)
def test_a_refused_value_about_a_run_is_named_as_the_option_given(
    home: tuple[Wfx, Mapping[str, str]], args: tuple[str, ...], named: str, internal: str
) -> None:
    wfx, given = home

    outcome = wfx(*(given.get(arg, arg) for arg in args))

    assert_bad_input(outcome, named)
    assert internal not in outcome.stderr, str(outcome)
