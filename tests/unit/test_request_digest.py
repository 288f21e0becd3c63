"""The request digest a launch stores (requestDigest): a retried launch with the same clientToken
is the same request only if its digest is the one stored, so the text it hashes never changes."""

from __future__ import annotations

from application.use_cases.launch_execution import LaunchExecutionCommand, _request_digest


def test_a_requests_digest_is_the_one_earlier_launches_stored() -> None:
    command = LaunchExecutionCommand(
        workflow_database_id="db1",
        workflow_id="wf1",
        workflow_version=2,
        inputs=("db1/asset1/a.txt",),
        output="db1/out1",
        execution_group_id="g",
        trigger="fileUpload",
        user_id="alice",
        client_token="tok-1",
    )

    # sha256 of json.dumps(the command without its token, sort_keys=True, default=str)
    assert _request_digest(command) == (
        "8b0c40f5029b147a20581e86d742c0753815e9e654969ee92b236f260820ff52"
    )
    assert _request_digest(command.model_copy(update={"client_token": None})) == (
        _request_digest(command)
    )
