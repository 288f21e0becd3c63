"""`wfx auth`: roles, user-role assignments and permission templates, as a user runs them."""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.cli import Wfx, assert_bad_input, start_hooked


def test_roles_users_and_templates_round_trip(wfx: Wfx) -> None:
    created = wfx("auth", "roles", "create", "analyst", "--description", "reads db1", "--json")
    assert created.code == 0, str(created)
    assert created.json() == {"roleName": "analyst", "description": "reads db1"}

    templates = wfx("auth", "templates", "list", "--json").json()["Items"]
    by_name = {t["name"]: t for t in templates}
    assert set(by_name) == {
        "admin",
        "Database Admin",
        "Database User",
        "Database Read-Only",
        "Global Read-Only",
        "Host Code Publisher",
    }
    assert by_name["Database User"]["variables"] == ["DATABASE_ID"]

    applied = wfx(
        "auth",
        "templates",
        "apply",
        "Database User",
        "--role",
        "analyst",
        "--database",
        "db1",
        "--json",
    )
    assert applied.code == 0, str(applied)
    body = applied.json()
    assert (body["roleName"], body["databaseId"], body["roleCreated"]) == ("analyst", "db1", False)
    denies = [
        c for c in body["constraints"] if {"action": "GET", "type": "deny"} in c["groupPermissions"]
    ]
    assert [c["criteriaAnd"][0]["value"] for c in denies] == ["/logs"]

    assert wfx("auth", "users", "assign", "alice@example.com", "analyst").code == 0
    assert wfx("auth", "users", "assign", "alice@example.com", "analyst").code == 0  # idempotent
    listed = wfx("auth", "users", "list", "--json").json()["Items"]
    assert listed == [{"userId": "alice@example.com", "roleName": "analyst", "assigned": True}]

    gone = wfx("auth", "users", "unassign", "alice@example.com", "analyst")
    assert "no longer holds" in gone.stdout
    assert wfx("auth", "roles", "delete", "analyst").code == 0
    assert wfx("auth", "roles", "list", "--json").json() == {"Items": []}


def test_a_users_own_vams_template_file_applies_and_creates_the_role(
    wfx: Wfx, tmp_path: Path
) -> None:
    template = {
        "metadata": {"name": "Deny tagged assets", "description": "no secret assets"},
        "variables": [],
        "constraints": [
            {
                "name": "{{ROLE_NAME}}-deny-secret-assets",
                "objectType": "asset",
                "criteriaAnd": [{"field": "tags", "operator": "is_one_of", "value": "secret"}],
                "groupPermissions": [{"action": "GET", "type": "deny"}],
            }
        ],
    }
    path = tmp_path / "deny.json"
    path.write_text(json.dumps(template))
    applied = wfx("auth", "templates", "apply", str(path), "--role", "careful")
    assert applied.code == 0, str(applied)
    assert "1 constraints (role created)" in applied.stdout
    roles = wfx("auth", "roles", "list", "--json").json()["Items"]
    assert roles == [{"roleName": "careful", "description": "no secret assets"}]


def test_bad_auth_input_is_one_line_naming_the_field_and_the_rule(wfx: Wfx, tmp_path: Path) -> None:
    assert_bad_input(wfx("auth", "roles", "create", "role::x"), "role: ", "':'")
    assert_bad_input(wfx("auth", "users", "assign", "bob", "ghost"), "role 'ghost' not found")
    assert_bad_input(
        wfx("auth", "templates", "apply", "Database User", "--role", "r"), "DATABASE_ID"
    )
    assert_bad_input(wfx("auth", "templates", "apply", "no-such", "--role", "r"), "no-such")
    # a database no database can be named: its constraints would grant nothing, silently
    assert_bad_input(
        wfx("auth", "templates", "apply", "Database User", "--role", "r", "--database", "a b"),
        "--database: 'a b' must start with a letter or digit",
    )
    # a role no role can be named, signed into a token, would grant nothing either
    assert_bad_input(wfx("auth", "token", "bob", "--role", ""), "--role: must be 1 to 100")
    broken = tmp_path / "broken.json"
    broken.write_text(json.dumps({"metadata": {"name": "x"}, "constraints": [{"name": "c"}]}))
    assert_bad_input(
        wfx("auth", "templates", "apply", str(broken), "--role", "r"), "objectType", "broken.json"
    )
    assert wfx("auth", "roles", "list", "--json").json() == {"Items": []}  # nothing written


def test_a_constraint_whose_pattern_backtracks_without_end_is_refused_before_any_write(
    wfx: Wfx, tmp_path: Path
) -> None:
    # `(a+)+$` takes seconds on 24 letters and years on a path of 60: a role holding it would let
    # its user hang a service worker with one request
    for number, value in enumerate(("(a+)+$", "(a|aa)*!", ".*.*.*.*x", "(?:x{1,50}){1,50}y")):
        template = {
            "metadata": {"name": "slow"},
            "constraints": [
                {
                    "name": "{{ROLE_NAME}}-slow",
                    "objectType": "api",
                    "criteriaAnd": [
                        {"field": "route__path", "operator": "contains", "value": value}
                    ],
                    "groupPermissions": [{"action": "GET", "type": "allow"}],
                }
            ],
        }
        path = tmp_path / f"slow{number}.json"
        path.write_text(json.dumps(template))
        refused = wfx("auth", "templates", "apply", str(path), "--role", "slow")
        assert_bad_input(refused, "value", repr(value), "repetition")
    assert wfx("auth", "roles", "list", "--json").json() == {"Items": []}  # nothing written
    # the shipped templates' patterns and the usual ones still apply
    constraints = [
        {
            "name": f"{{{{ROLE_NAME}}}}-{number}",
            "objectType": "asset",
            "criteriaAnd": [{"field": "assetId", "operator": "equals", "value": value}],
            "groupPermissions": [{"action": "GET", "type": "allow"}],
        }
        for number, value in enumerate((".*", "*", "^db1$", "(a|b)*", "scan-.*-v[0-9]+", ".*x.*"))
    ]
    path = tmp_path / "fine.json"
    path.write_text(json.dumps({"metadata": {"name": "fine"}, "constraints": constraints}))
    applied = wfx("auth", "templates", "apply", str(path), "--role", "fine")
    assert applied.code == 0, str(applied)


def test_two_applies_at_once_on_a_new_role_both_land_and_one_creates_it(
    wfx: Wfx, tmp_path: Path
) -> None:
    # each looked for the role, found none, and the later create was refused as "exists already"
    for attempt in range(3):
        home = wfx.in_home(tmp_path / f"home{attempt}")
        assert home("auth", "roles", "list").code == 0  # the store made: only the apply races
        racing = [
            home.start("auth", "templates", "apply", "Database User", "--role", "r", *database)
            for database in (("--database", "db1"), ("--database", "db2"))
        ]
        answers = [process.communicate(timeout=30) for process in racing]
        assert [p.returncode for p in racing] == [0, 0], answers
        assert sum("(role created)" in out for out, _ in answers) == 1, answers
        listed = home("auth", "roles", "list", "--json").json()["Items"]
        assert [role["roleName"] for role in listed] == ["r"]


def test_a_role_named_as_another_in_another_case_is_refused(wfx: Wfx) -> None:
    # `Admin` granted nothing of the built-in `admin`, yet listed beside it, one letter apart
    assert_bad_input(wfx("auth", "roles", "create", "Admin"), "'Admin'", "'admin'", "case")
    assert wfx("auth", "roles", "create", "admin").code == 0  # the built-in's own name holds
    assert wfx("auth", "roles", "create", "analyst").code == 0
    assert_bad_input(wfx("auth", "roles", "create", "Analyst"), "'Analyst'", "'analyst'", "case")
    assert_bad_input(
        wfx("auth", "templates", "apply", "Global Read-Only", "--role", "ANALYST"),
        "'ANALYST'",
        "'analyst'",
    )
    applied = wfx("auth", "templates", "apply", "Global Read-Only", "--role", "analyst")
    assert applied.code == 0, str(applied)
    listed = wfx("auth", "roles", "list", "--json").json()["Items"]
    assert [role["roleName"] for role in listed] == ["admin", "analyst"]


def test_a_template_argument_wfx_cannot_read_is_one_line_naming_it(
    wfx: Wfx, tmp_path: Path
) -> None:
    # each was a traceback: a name past the system's limit on a path, JSON nested past the decoder
    assert_bad_input(
        wfx("auth", "templates", "apply", "n" * 10_000, "--role", "r"),
        "template 'nnnn",
        "neither a shipped template",
    )
    deep = tmp_path / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    assert_bad_input(
        wfx("auth", "templates", "apply", str(deep), "--role", "r"), str(deep), "nested"
    )
    big = tmp_path / "big.json"
    big.write_text(json.dumps({"metadata": {"name": "x", "description": "d" * 2_000_000}}))
    assert_bad_input(
        wfx("auth", "templates", "apply", str(big), "--role", "r"), str(big), "at most 1 MiB"
    )
    assert wfx("auth", "roles", "list", "--json").json() == {"Items": []}  # nothing written


def test_a_database_given_to_a_template_of_every_database_is_refused(wfx: Wfx) -> None:
    # it applied to every database and said "on database db1"
    refused = wfx(
        "auth", "templates", "apply", "Global Read-Only", "--role", "g", "--database", "db1"
    )
    assert_bad_input(refused, "--database", "'Global Read-Only'", "every database")
    assert wfx("auth", "roles", "list", "--json").json() == {"Items": []}  # nothing written
    assert wfx("auth", "templates", "apply", "Global Read-Only", "--role", "g").code == 0


def _both_looked(signals: Path) -> str:
    """A hook: the create, once it has looked at the roles (the use case's look), marks `signals`
    and waits for the other process to have looked too, so neither saw the other's role."""
    return (
        "import os, pathlib, time\n"
        "from application.use_cases.administer_roles import AdministerRoles\n"
        "look = AdministerRoles._refuse_lookalike\n"
        "def looked(self, name):\n"
        "    look(self, name)\n"
        f"    signals = pathlib.Path({str(signals)!r})\n"
        "    (signals / str(os.getpid())).touch()\n"
        "    deadline = time.monotonic() + 20\n"
        "    while len(list(signals.iterdir())) < 2 and time.monotonic() < deadline:\n"
        "        time.sleep(0.01)\n"
        "AdministerRoles._refuse_lookalike = looked\n"
    )


def test_two_creates_at_once_of_names_one_letter_case_apart_land_one_role(
    wfx: Wfx, tmp_path: Path
) -> None:
    # both looked before either wrote, and found no `analyst` in any case: the file's own write
    # (one transaction with the folded name's row) refuses the second
    assert wfx("auth", "roles", "list").code == 0  # the store made: only the creates race
    signals = tmp_path / "looked"
    signals.mkdir()
    racing = [
        start_hooked(wfx, _both_looked(signals), "auth", "roles", "create", name)
        for name in ("Analyst", "analyst")
    ]
    answers = [process.communicate(timeout=60) for process in racing]
    assert len(list(signals.iterdir())) == 2, answers  # both looked before either wrote
    assert sorted(p.returncode for p in racing) == [0, 2], answers
    (made,) = [
        name for name, p in zip(("Analyst", "analyst"), racing, strict=True) if p.returncode == 0
    ]
    ((_, refusal),) = [answer for answer, p in zip(answers, racing, strict=True) if p.returncode]
    assert refusal.startswith("error: role: "), refusal
    assert len(refusal.splitlines()) == 1, refusal
    assert f"{made!r}" in refusal and "case" in refusal, refusal
    listed = wfx("auth", "roles", "list", "--json").json()["Items"]
    assert [role["roleName"] for role in listed] == [made]
