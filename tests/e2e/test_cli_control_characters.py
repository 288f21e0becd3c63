"""Control characters on a terminal, from outside: what a step writes (an OSC sequence that
retitles a window, ESC, NUL, an RTL override) reaches the CLI's output escaped, never raw, and
the CLI refuses them in the ids it is given."""

from __future__ import annotations

import json
import sqlite3

from tests.e2e.cli import Wfx, assert_bad_input

HOSTILE = "\x1b]0;owned\x07 \x1b[2J \x00 \u202eevil"
RAW = ("\x1b", "\x00", "\u202e", "\x07")


def _assert_escaped(text: str) -> None:
    for character in RAW:
        assert character not in text, f"{character!r} written raw in {text!r}"


def test_what_a_step_wrote_is_shown_escaped_by_every_command(wfx: Wfx) -> None:
    wfx.publish_command_step(
        "hostile",
        f"import sys\nprint({HOSTILE!r})\nsys.stderr.write({HOSTILE!r})\nsys.exit(3)",
    )
    ran = wfx("run", "demo/hostile")
    assert ran.code != 0
    execution_id = ran.stdout.strip()
    _assert_escaped(ran.stdout + ran.stderr)

    for args in (
        ("executions", "show", execution_id),
        ("executions", "list"),
        ("executions", "list", "--wide"),
        ("executions", "logs", execution_id),
        ("executions", "logs", execution_id, "--full"),
        ("executions", "events", execution_id),
    ):
        outcome = wfx(*args)
        assert outcome.code == 0, str(outcome)
        _assert_escaped(outcome.stdout + outcome.stderr)

    shown = (
        wfx("executions", "show", execution_id).stdout
        + wfx("executions", "logs", execution_id).stdout
    )
    assert "\\x1b]0;owned" in shown  # shown, as its escape


def test_a_group_or_client_token_with_a_control_character_is_refused(wfx: Wfx) -> None:
    wfx.publish_command_step("plain", "print('ok')")
    for option in ("--group", "--client-token"):
        outcome = wfx("run", "demo/plain", option, "g\x1b]0;owned\x07")
        assert_bad_input(outcome, "control character")
        _assert_escaped(outcome.stderr)
    assert wfx.listed_ids() == []


def test_an_approver_with_a_control_or_bidi_character_is_refused_as_no_user_can_be_named_so(
    wfx: Wfx,
) -> None:
    """A user name refuses them (`WFX_USER`, tokens), so such an approver could never decide:
    the gate would wait for its timeout with the author told nothing."""
    for approver in ("\x1b[31mbob", "role::admin\u202e"):
        file = wfx.home / "gate.yaml"
        file.write_text(
            "databaseId: demo\nworkflowId: gate\nsteps:\n  - pipelineId: gate\n"
            f"    executionType: approval\n    approvers: [{approver!r}]\n".replace("'", '"'),
            encoding="utf-8",
        )
        outcome = wfx("workflows", "publish", str(file))
        assert_bad_input(outcome, "steps[0].approvers[0]: ", "control character")
        _assert_escaped(outcome.stderr)
    assert wfx.json("workflows", "list")["Items"] == []


def test_a_user_assigned_a_role_refuses_them_as_a_token_and_an_approver_do(wfx: Wfx) -> None:
    """One rule for a user name: a C1 control or a bidi isolate passed `users assign` (which
    refused only C0 and DEL), for a user no token could be issued to nor gate name."""
    wfx.ok("auth", "roles", "create", "analyst")
    for user in ("a\x85b", "a\x9bb", "\u202eadmin", "bob\u2066", "eve\u200f"):
        for args in (("auth", "users", "assign", user, "analyst"), ("auth", "token", user)):
            outcome = wfx(*args)
            assert_bad_input(outcome, "control character", "bidirectional override")
            _assert_escaped(outcome.stderr)
            assert user not in outcome.stderr
        assert "user: " in wfx("auth", "users", "assign", user, "analyst").stderr
    assert wfx.json("auth", "users", "list")["Items"] == []


def test_an_assignment_stored_before_the_rule_still_lists_and_can_be_taken_back(
    wfx: Wfx,
) -> None:
    wfx.ok("auth", "roles", "create", "analyst")
    wfx.ok("auth", "users", "assign", "alice", "analyst")
    old = "a\x85b"  # what `users assign` stored before C1 controls were refused
    with sqlite3.connect(wfx.home / "wfx.db") as connection:
        (row,) = connection.execute(
            'SELECT "authPartition", "authSort", item FROM "WfxAuthorizationTable" '
            "WHERE \"authPartition\" = 'user#alice'"
        ).fetchall()
        item = json.loads(row[2]) | {"authPartition": f"user#{old}", "userId": old}
        connection.execute(
            'INSERT INTO "WfxAuthorizationTable" VALUES (?, ?, ?)',
            (f"user#{old}", row[1], json.dumps(item, separators=(",", ":"))),
        )

    listed = wfx.json("auth", "users", "list")["Items"]
    assert [entry["userId"] for entry in listed] == ["alice", "a\x85b"]
    taken = wfx("auth", "users", "unassign", old, "analyst")
    assert taken.code == 0 and "no longer holds role 'analyst'" in taken.stdout, str(taken)
    assert [entry["userId"] for entry in wfx.json("auth", "users", "list")["Items"]] == ["alice"]
