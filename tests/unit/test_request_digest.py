"""The request digest a launch stores (requestDigest): a retried launch with the same clientToken
is the same request only if its digest is the one stored, so the text it hashes never changes."""

from __future__ import annotations

import hashlib
import json

from hypothesis import given
from hypothesis import strategies as st

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


@given(
    workflow_id=st.text(min_size=1),
    version=st.none() | st.integers(min_value=1),
    inputs=st.lists(st.text(), max_size=3).map(tuple),
    group=st.sampled_from([None, "g", "gr\u00fc\u00dfe", "x \u2603"]),
    user=st.text(min_size=1),
)
def test_a_digest_hashes_the_text_json_dumps_gives_of_the_command_without_its_token(
    workflow_id: str, version: int | None, inputs: tuple[str, ...], group: str | None, user: str
) -> None:
    command = LaunchExecutionCommand(
        workflow_database_id="db1",
        workflow_id=workflow_id,
        workflow_version=version,
        inputs=inputs,
        execution_group_id=group,
        user_id=user,
        client_token="tok-1",
    )
    fields = command.model_dump(exclude={"client_token"})
    text = json.dumps(fields, sort_keys=True, default=str)
    assert _request_digest(command) == hashlib.sha256(text.encode()).hexdigest()
