"""A command step's environment: the allow-list, the names the operator passes on, its own."""

from __future__ import annotations

from adapters.local.step_environment import step_environment

SERVICE = {
    "PATH": "/usr/bin",
    "LC_ALL": "C.UTF-8",
    "HOME": "/home/service",
    "WFX_HOME": "/srv/wfx",
    "WFX_DB": "/srv/wfx/wfx.db",
    "AWS_SECRET_ACCESS_KEY": "service-secret",
    "DATABASE_URL": "postgres://svc:pw@db/x",
}


def test_a_step_gets_the_runtime_names_and_its_own_and_nothing_else() -> None:
    built = step_environment(SERVICE, {"WFX_OUTPUT_DIR": "/srv/wfx/runs/e/output"})

    assert built == {
        "PATH": "/usr/bin",
        "LC_ALL": "C.UTF-8",
        "HOME": "/home/service",
        "WFX_OUTPUT_DIR": "/srv/wfx/runs/e/output",
    }


def test_the_operator_passes_on_named_variables_and_a_step_user_gets_its_own_home() -> None:
    service = SERVICE | {"WFX_STEP_ENV": "DATABASE_URL, NOT_SET"}

    built = step_environment(service, {}, home="/home/steps")

    assert built["DATABASE_URL"] == "postgres://svc:pw@db/x" and "NOT_SET" not in built
    assert built["HOME"] == "/home/steps" and "WFX_STEP_ENV" not in built
