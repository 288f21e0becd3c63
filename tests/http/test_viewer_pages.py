"""The web viewer over HTTP (an in-process client, SQLite, runs executed inline): the session
cookie and its flags, CSRF on every write, tier 1 and tier 2 as the JSON routes check them,
logs only for those allowed, filters with the JSON list's errors, escaping (control and
bidirectional characters a step wrote shown escaped), security headers; and what a hostile step
stores (huge logs, lone surrogates, file names in any script or holding an RTL override) never
makes a page unbounded, a read a 500, or a link one the service refuses."""

from __future__ import annotations

import html
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
import yaml
from fastapi.testclient import TestClient

from application.use_cases.get_execution import GetExecutionQuery
from application.use_cases.get_execution_details import GetExecutionDetailsQuery
from application.use_cases.launch_execution import LaunchExecutionCommand
from application.use_cases.publish_workflow_version import PublishWorkflowVersionCommand
from application.workflow_documents import parse_workflow_document
from domain.authorization import Action
from domain.errors import InvalidInputError
from entrypoints.http.viewer.rendering import SECURITY_HEADERS
from tests.http.conftest import ADMIN, DATABASE, WORKFLOW, WORKFLOW_FILE, Service, allow
from tests.http.test_rows_of_other_writers import status_stored_as

pytestmark = pytest.mark.parametrize("inline_container", ["sqlite"], indirect=True)

GATED_FILE = WORKFLOW_FILE.parent / "gated.yaml"
GATED = {**yaml.safe_load(GATED_FILE.read_text()), "databaseId": DATABASE}
LOG_LINE = "prepare read 2 files: a.obj, b.obj"


@pytest.fixture
def viewer(service: Service) -> Iterator[TestClient]:
    from entrypoints.http.app import create_app
    from entrypoints.http.identity import verified_by

    verifier = service.container.token_verifier()
    app = create_app(service.container, verified_by(verifier), sessions=verifier)
    with TestClient(app, raise_server_exceptions=False, follow_redirects=False) as client:
        yield client


def _login(
    viewer: TestClient, service: Service, user: str = ADMIN, roles: tuple[str, ...] = ("admin",)
) -> None:
    answer = viewer.get("/login", params={"token": service.token(user, roles)})
    assert answer.status_code == 303, answer.text


def _csrf(html: str) -> str:
    found = re.search(r'name="csrf" value="([0-9a-f]+)"', html)
    assert found, html
    return found.group(1)


def _launch(service: Service, document: dict[str, Any], inputs: tuple[str, ...] = ()) -> str:
    service.container.publish_workflow_version().execute(
        PublishWorkflowVersionCommand(document=parse_workflow_document(document))
    )
    command = LaunchExecutionCommand(
        workflow_database_id=DATABASE,
        workflow_id=document["workflowId"],
        inputs=inputs,
        user_id=ADMIN,
    )
    return str(
        service.container.launch_execution().execute(command).execution.workflow_execution_id
    )


def _gated_run(service: Service) -> str:
    """A run parked RUNNING at its approval gate."""
    execution_id = _launch(service, GATED, (f"{DATABASE}/inputs",))
    assert _status(service, execution_id) == "RUNNING"
    return execution_id


def _status(service: Service, execution_id: str) -> str:
    query = GetExecutionQuery(workflow_execution_id=execution_id)
    return str(service.container.get_execution().execute(query).status.value)


def _pending(service: Service, execution_id: str) -> list[Any]:
    return [
        request
        for request in service.container.approvals().list_for_execution(execution_id)
        if request.status.value == "PENDING"
    ]


def test_login_sets_an_httponly_strict_cookie_and_drops_the_token_from_the_url(
    viewer: TestClient, service: Service
) -> None:
    token = service.token(ADMIN, ("admin",))
    answer = viewer.get("/login", params={"token": token})
    assert answer.status_code == 303
    assert answer.headers["location"] == "/"
    cookie = answer.headers["set-cookie"]
    assert cookie.startswith(f"wfx_session={token};")
    flags = {part.strip().lower() for part in cookie.split(";")[1:]}
    assert {"httponly", "samesite=strict", "path=/"} <= flags
    assert "secure" not in flags  # plain http on localhost: a Secure cookie would never return
    assert answer.headers["referrer-policy"] == "no-referrer"
    listed = viewer.get("/")
    assert listed.status_code == 200
    assert service.execution_id in listed.text


def test_the_session_cookie_ends_when_its_token_expires(
    viewer: TestClient, service: Service
) -> None:
    """Without Max-Age or Expires a browser kept the cookie for as long as it ran (and, with
    session restore, longer), presenting a token past its `exp` on every request."""
    import jwt

    token = service.token(ADMIN, ("admin",))
    expires_at = jwt.decode(token, options={"verify_signature": False})["exp"]
    before = int(datetime.now(UTC).timestamp())
    answer = viewer.get("/login", params={"token": token})
    after = int(datetime.now(UTC).timestamp())

    assert answer.status_code == 303, answer.text
    attributes = dict(
        (name.strip().lower(), value.strip())
        for name, _, value in (
            part.partition("=") for part in answer.headers["set-cookie"].split(";")[1:]
        )
    )
    assert expires_at - after <= int(attributes["max-age"]) <= expires_at - before
    stated = datetime.strptime(attributes["expires"], "%a, %d %b %Y %H:%M:%S GMT")
    assert stated.replace(tzinfo=UTC) == datetime.fromtimestamp(expires_at, UTC)


def test_over_https_the_cookie_is_secure(service: Service, viewer: TestClient) -> None:
    with TestClient(viewer.app, base_url="https://testserver", follow_redirects=False) as https:
        answer = https.get("/login", params={"token": service.token(ADMIN, ("admin",))})
    assert "secure" in {p.strip().lower() for p in answer.headers["set-cookie"].split(";")}


def test_a_bad_token_is_a_401_page_saying_how_to_get_one(viewer: TestClient) -> None:
    answer = viewer.get("/login", params={"token": "not-a-token"})
    assert answer.status_code == 401
    assert answer.headers["content-type"].startswith("text/html")
    assert "wfx auth token USER" in answer.text
    assert "set-cookie" not in answer.headers
    assert "not-a-token" not in answer.text


def test_a_token_too_long_for_a_cookie_is_refused_at_login_saying_why(
    viewer: TestClient, service: Service
) -> None:
    from entrypoints.http.viewer.session import MAX_TOKEN_CHARS

    roles = [f"r{i:03d}" + "x" * 96 for i in range(45)]  # what an identity provider's groups make
    fits = shortest_over = None
    for length in range(1, 257):
        token = service.token("u" * length, roles[:26])
        if len(token) <= MAX_TOKEN_CHARS:
            fits = token
        else:
            shortest_over = token
            break
    assert fits is not None and shortest_over is not None
    # a browser drops a cookie past 4,096 bytes without a word: the 303 was a silent logout
    refused = viewer.get("/login", params={"token": shortest_over})
    assert refused.status_code == 401, refused.text
    assert "set-cookie" not in refused.headers
    assert f"at most {MAX_TOKEN_CHARS:,} characters" in refused.text
    assert "wfx auth users assign" in refused.text
    assert shortest_over not in refused.text
    assert viewer.get("/login", params={"token": fits}).status_code == 303
    assert viewer.get("/login", params={"token": service.token("u", roles)}).status_code == 401
    # past any bound: the same message, where a required-length rule on a field named `token`
    # read "query parameter token: [REDACTED] should have ..." (redaction took the rule's word)
    huge = "a" * 9000
    for answer in (
        viewer.get("/login", params={"token": huge}),
        viewer.post("/login", data={"token": huge}),
    ):
        assert answer.status_code == 401, answer.text
        assert f"at most {MAX_TOKEN_CHARS:,} characters" in answer.text
        assert "REDACTED" not in answer.text


def test_a_login_link_from_another_site_asks_first_and_keeps_the_session(
    viewer: TestClient, service: Service
) -> None:
    """Login CSRF: a hostile page that sends the browser to /login with its own token must not
    swap the user's session for the attacker's, whose runs and actions the user would then
    take for their own."""
    _login(viewer, service)
    mine = viewer.cookies["wfx_session"]
    theirs = service.token("mallory", ("admin",))
    followed = viewer.get(
        "/login", params={"token": theirs}, headers={"sec-fetch-site": "cross-site"}
    )
    assert followed.status_code == 200, followed.text
    assert "set-cookie" not in followed.headers
    assert "mallory" in followed.text
    assert viewer.cookies["wfx_session"] == mine
    assert f">{ADMIN}</span>" in viewer.get("/").text
    # the confirmation's own form cannot be posted by another site either
    for refused in ({"sec-fetch-site": "cross-site"}, {"origin": "https://evil.example"}):
        posted = viewer.post("/login", data={"token": theirs}, headers=refused)
        assert posted.status_code == 403, posted.text
        assert "set-cookie" not in posted.headers
    assert viewer.cookies["wfx_session"] == mine
    # the user's own click on it logs in; a link opened from a terminal needs no click
    confirmed = viewer.post(
        "/login", data={"token": theirs}, headers={"sec-fetch-site": "same-origin"}
    )
    assert confirmed.status_code == 303, confirmed.text
    assert viewer.cookies["wfx_session"] == theirs
    opened = viewer.get("/login", params={"token": mine}, headers={"sec-fetch-site": "none"})
    assert opened.status_code == 303
    assert viewer.post("/login", data={"token": "nonsense"}).status_code == 401
    no_token = viewer.post("/login")
    assert no_token.status_code == 401
    assert "wfx auth token USER" in no_token.text


def test_a_poll_that_meets_an_ended_session_or_a_gone_run_reloads_the_page(
    viewer: TestClient, service: Service
) -> None:
    htmx = {"hx-request": "true"}
    _login(viewer, service)
    assert "hx-refresh" not in viewer.get("/fragments/executions", headers=htmx).headers
    gone = viewer.get("/executions/no-such-run", headers=htmx)
    assert gone.status_code == 404
    assert gone.headers["hx-refresh"] == "true"
    csrf = _csrf(viewer.get("/").text)
    token = viewer.cookies["wfx_session"]
    assert viewer.post("/logout", data={"csrf": csrf}).status_code == 303
    viewer.cookies.set("wfx_session", token)  # the page still open in another tab
    for path in ("/fragments/executions", f"/executions/{service.execution_id}"):
        polled = viewer.get(path, headers=htmx)
        assert polled.status_code == 401
        assert polled.headers["hx-refresh"] == "true"
        assert "hx-refresh" not in viewer.get(path).headers  # a page load is the page itself


def test_logged_out_the_list_says_how_to_log_in_and_shows_nothing(
    viewer: TestClient, service: Service
) -> None:
    answer = viewer.get("/")
    assert answer.status_code == 401
    assert "wfx auth token USER" in answer.text
    assert service.execution_id not in answer.text
    assert "Traceback" not in answer.text
    # a cookie that does not verify is no session either, on every request
    viewer.cookies.set("wfx_session", service.token(ADMIN, ("admin",)) + "x")
    assert viewer.get(f"/executions/{service.execution_id}").status_code == 401


def test_pages_carry_the_security_headers(viewer: TestClient, service: Service) -> None:
    _login(viewer, service)
    answer = viewer.get("/")
    csp = answer.headers["content-security-policy"]
    assert "default-src 'self'" in csp
    assert "unsafe-inline" not in csp
    assert answer.headers["x-content-type-options"] == "nosniff"
    assert answer.headers["referrer-policy"] == "no-referrer"
    assert answer.headers["x-frame-options"] == "DENY"
    assert "<script>" not in answer.text.replace('<script src="/static/htmx.min.js" defer>', "")
    static = viewer.get("/static/htmx.min.js")
    assert static.status_code == 200
    assert static.headers["x-content-type-options"] == "nosniff"
    assert static.text.startswith("/*! htmx")


@pytest.mark.parametrize(
    ("method", "path", "status"),
    [
        ("GET", "/logout", 405),  # the router's answer: logout is a POST
        ("GET", "/executions/a%2Fb", 404),  # no route holds an encoded slash
        ("GET", "/executions/a%00b", 400),  # the control-character middleware's
        ("GET", "/no-such-page", 404),
        ("POST", "/", 405),
    ],
)
def test_answers_from_the_router_or_a_middleware_carry_the_security_headers(
    viewer: TestClient, service: Service, method: str, path: str, status: int
) -> None:
    """Not only the pages: a JSON answer on a viewer URL can be framed or kept in a cache
    like any other, so every answer of the service carries what the pages do."""
    _login(viewer, service)
    answer = viewer.request(method, path)
    assert answer.status_code == status, answer.text
    for name, value in SECURITY_HEADERS.items():
        assert answer.headers.get(name) == value, (name, dict(answer.headers))


def test_the_json_api_and_its_docs_keep_working_with_the_headers(
    viewer: TestClient, service: Service
) -> None:
    """The API's answers get the same headers (it sets none of its own, caches nothing);
    the docs page loads its script and style from a CDN, so its policy is not the pages'."""
    listed = viewer.get("/workflows/executions", headers=service.as_user(ADMIN, ("admin",)))
    assert listed.status_code == 200
    assert listed.headers["cache-control"] == "no-store"
    assert listed.headers["x-frame-options"] == "DENY"
    docs = viewer.get("/docs")
    assert docs.status_code == 200
    assert "content-security-policy" not in docs.headers
    static = viewer.get("/static/htmx.min.js")
    assert "cache-control" not in static.headers  # a vendored file a browser may keep


def test_a_write_without_the_csrf_token_is_refused_and_changes_nothing(
    viewer: TestClient, service: Service
) -> None:
    execution_id = _gated_run(service)
    _login(viewer, service)
    page = viewer.get(f"/executions/{execution_id}")
    csrf = _csrf(page.text)
    (approval,) = _pending(service, execution_id)
    writes = [
        (f"/executions/{execution_id}/abort", {"confirmed": "yes"}),
        (f"/executions/{execution_id}/redrive", {"confirmed": "yes"}),
        (f"/executions/{execution_id}/approvals/{approval.approval_id}", {"decision": "reject"}),
        ("/logout", {}),
    ]
    for path, form in writes:
        # a non-ASCII token made hmac.compare_digest raise a TypeError: a 500, not a 403
        for sent in ({}, {"csrf": "0" * 64}, {"csrf": csrf[:-1]}, {"csrf": csrf[:-1] + "\u00e9"}):
            answer = viewer.post(path, data=form | sent)
            assert answer.status_code == 403, (path, sent, answer.text)
            assert "CSRF" in answer.text
    assert _status(service, execution_id) == "RUNNING"
    assert len(_pending(service, execution_id)) == 1
    assert viewer.get("/").status_code == 200  # still logged in


def test_a_write_from_another_site_is_refused_even_with_the_token(
    viewer: TestClient, service: Service
) -> None:
    execution_id = _gated_run(service)
    _login(viewer, service)
    csrf = _csrf(viewer.get(f"/executions/{execution_id}").text)
    form = {"csrf": csrf, "confirmed": "yes"}
    path = f"/executions/{execution_id}/abort"
    assert viewer.post(path, data=form, headers={"sec-fetch-site": "cross-site"}).status_code == 403
    assert (
        viewer.post(path, data=form, headers={"origin": "https://evil.example"}).status_code == 403
    )
    assert _status(service, execution_id) == "RUNNING"

    unconfirmed = viewer.post(path, data={"csrf": csrf}, headers={"origin": "http://testserver"})
    assert unconfirmed.status_code == 400
    assert "Yes, abort this run" in unconfirmed.text
    assert _status(service, execution_id) == "RUNNING"

    aborted = viewer.post(path, data=form, headers={"sec-fetch-site": "same-origin"})
    assert aborted.status_code == 303, aborted.text
    assert aborted.headers["location"] == f"/executions/{execution_id}"
    assert _status(service, execution_id) == "ABORTED"


def test_an_approver_approves_from_the_page_and_the_run_goes_on(
    viewer: TestClient, service: Service
) -> None:
    execution_id = _gated_run(service)
    _login(viewer, service, "mallory", ("admin",))
    refused = viewer.get(f"/executions/{execution_id}")
    assert "You are not among its approvers." in refused.text  # admin does not make an approver
    assert 'value="approve"' not in refused.text
    _login(viewer, service, "carol", ("admin",))
    page = viewer.get(f"/executions/{execution_id}")
    assert page.status_code == 200, page.text
    (approval,) = _pending(service, execution_id)
    answer = viewer.post(
        f"/executions/{execution_id}/approvals/{approval.approval_id}",
        data={"csrf": _csrf(page.text), "decision": "approve", "reason": "looks right"},
    )
    assert answer.status_code == 303, answer.text
    assert _pending(service, execution_id) == []
    assert _status(service, execution_id) == "SUCCEEDED"


def _reader(service: Service, execution_id: str) -> None:
    """`reader` may read the run's details and list runs, and nothing of its logs or events."""
    facts = service.container.execution_store().access_facts([execution_id])[execution_id]
    granted = [
        allow("reader", "list", "api", Action.GET, route__path="/workflows/executions"),
        allow(
            "reader",
            "details",
            "api",
            Action.GET,
            route__path=f"/workflows/executions/{execution_id}/details",
        ),
        allow(
            "reader",
            "workflow",
            "workflow",
            Action.GET,
            databaseId=DATABASE,
            workflowId=WORKFLOW["workflowId"],
        ),
        allow("reader", "read", "asset", Action.GET, databaseId=DATABASE, assetName="inputs"),
        allow("reader", "wrote", "asset", Action.GET, databaseId=DATABASE, assetName="results"),
        *(
            allow("reader", f"db-{db}", "database", Action.GET, databaseId=db)
            for db in facts.metadata_databases
        ),
    ]
    service.grant("reader", "reader", granted)


def test_without_the_logs_permission_no_log_text_reaches_the_page(
    viewer: TestClient, service: Service
) -> None:
    _login(viewer, service)
    assert LOG_LINE in viewer.get(f"/executions/{service.execution_id}").text

    _reader(service, service.execution_id)
    _login(viewer, service, "reader", ())
    page = viewer.get(f"/executions/{service.execution_id}")
    assert page.status_code == 200, page.text
    assert "You may not read logs." in page.text
    assert "You may not read the event log." in page.text
    assert LOG_LINE not in page.text
    assert "transform saw" not in page.text
    details = service.container.get_execution_details().execute(
        GetExecutionDetailsQuery(workflow_execution_id=service.execution_id)
    )
    for step in details.steps:
        for source in step.available_logs:
            one = viewer.get(f"/executions/{service.execution_id}/logs/{source.log_id}")
            assert "You may not read logs." in one.text
            assert LOG_LINE not in one.text


def test_a_run_the_caller_may_not_read_is_a_403_page_and_a_missing_one_a_404_page(
    viewer: TestClient, service: Service
) -> None:
    other = service.launch()
    _reader(service, service.execution_id)
    _login(viewer, service, "reader", ())
    refused = viewer.get(f"/executions/{other}")
    assert refused.status_code == 403
    assert refused.headers["content-type"].startswith("text/html")
    assert LOG_LINE not in refused.text
    # tier 1 first, as on the JSON route: the reader's route grant names one run only
    assert viewer.get("/executions/no-such-run").status_code == 403
    _login(viewer, service)
    missing = viewer.get("/executions/no-such-run")
    assert missing.status_code == 404
    assert missing.headers["content-type"].startswith("text/html")
    assert "execution no-such-run not found" in missing.text
    assert "<h1>" in missing.text and "Traceback" not in missing.text


def test_filters_follow_the_json_list_rules_and_a_bad_one_is_a_400_saying_why(
    viewer: TestClient, service: Service
) -> None:
    _login(viewer, service)
    mine = viewer.get(
        "/", params={"workflowDatabaseId": DATABASE, "workflowId": WORKFLOW["workflowId"]}
    )
    assert service.execution_id in mine.text
    other = viewer.get("/", params={"workflowDatabaseId": DATABASE, "workflowId": "other"})
    assert other.status_code == 200
    assert service.execution_id not in other.text
    assert "No executions match these filters." in other.text
    assert service.execution_id in viewer.get("/", params={"status": "SUCCEEDED"}).text
    assert service.execution_id not in viewer.get("/", params={"status": "FAILED"}).text
    read = {"databaseId": DATABASE, "assetId": "inputs", "direction": "read"}
    assert service.execution_id in viewer.get("/", params=read).text
    assert service.execution_id not in viewer.get("/", params=read | {"direction": "wrote"}).text
    # empty fields are filters not given, as the form sends them
    assert (
        service.execution_id in viewer.get("/", params={"executionGroupId": "", "status": ""}).text
    )

    half = viewer.get("/", params={"workflowDatabaseId": DATABASE})
    assert half.status_code == 400
    assert "workflowId" in half.text
    assert viewer.get("/", params={"status": "BOGUS"}).status_code == 400


def test_the_list_pages_with_the_next_token_and_polls_only_while_a_run_is_open(
    viewer: TestClient, service: Service
) -> None:
    from entrypoints.http.viewer import executions_list

    _login(viewer, service)
    finished = viewer.get("/")
    assert 'hx-trigger="every 2s"' not in finished.text
    more = [service.launch() for _ in range(2)]
    executions_list.PAGE_SIZE, size = 2, executions_list.PAGE_SIZE
    try:
        first = viewer.get("/")
        found = re.search(r'href="/\?(startingToken=[^"]+)">Next page', first.text)
        assert found, first.text
        second = viewer.get("/?" + found.group(1).replace("&amp;", "&"))
    finally:
        executions_list.PAGE_SIZE = size
    assert [more[1], more[0]] == [i for i in (more[1], more[0]) if i in first.text]
    assert service.execution_id in second.text and more[0] not in second.text
    gated = _gated_run(service)
    live = viewer.get("/")
    assert gated in live.text
    assert 'hx-trigger="every 2s"' in live.text
    fragment = viewer.get("/fragments/executions")
    assert fragment.text.startswith('<div id="executions"')


HOSTILE = "<script>alert(1)</script>"


def test_hostile_values_are_escaped_and_an_svg_output_cannot_run_scripts(
    viewer: TestClient, service: Service
) -> None:
    code = (
        "import json, os, pathlib; out = pathlib.Path(os.environ['WFX_OUTPUT_DIR']); "
        "(out / 'metadata').mkdir(parents=True, exist_ok=True); "
        "(out / 'picture.svg').write_text('<svg xmlns=\"http://www.w3.org/2000/svg\">"
        "<script>alert(1)</script></svg>'); "
        "(out / 'data.bin').write_bytes(b'\\x00\\x01'); "
        f"(out / 'metadata' / 'picture.svg.json').write_text(json.dumps({{'note': {HOSTILE!r}}}))"
    )
    document = {
        "databaseId": DATABASE,
        "workflowId": "hostile",
        "description": HOSTILE,
        "steps": [
            {
                "pipelineId": "draw",
                "executionType": "command",
                "command": [sys.executable, "-c", code],
                "inputFileArity": "none",
            }
        ],
    }
    execution_id = _launch(service, document)
    assert _status(service, execution_id) == "SUCCEEDED"
    _login(viewer, service)
    page = viewer.get(f"/executions/{execution_id}")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in page.text
    assert HOSTILE not in page.text
    assert HOSTILE not in viewer.get("/catalog").text
    assert HOSTILE not in viewer.get(f"/catalog/{DATABASE}/hostile").text

    (svg,) = re.findall(r'<img class="preview" src="([^"]+picture\.svg)"', page.text)
    served = viewer.get(svg)
    assert served.status_code == 200
    assert served.headers["content-type"].startswith("image/svg+xml")
    assert served.headers["content-security-policy"].startswith("sandbox")
    assert served.headers["x-content-type-options"] == "nosniff"
    (binary,) = re.findall(r'href="([^"]+data\.bin)"', page.text)
    download = viewer.get(binary)
    assert download.content == b"\x00\x01"
    assert download.headers["content-disposition"] == 'attachment; filename="data.bin"'
    assert viewer.get(svg.replace("picture.svg", "nothing.svg")).status_code == 404


def test_an_output_file_link_is_url_encoded_and_serves_the_file(
    viewer: TestClient, service: Service
) -> None:
    name = "a?b#c %.svg"
    code = (
        "import os, pathlib; out = pathlib.Path(os.environ['WFX_OUTPUT_DIR']); "
        f"(out / {name!r}).write_text('<svg xmlns=\"http://www.w3.org/2000/svg\"/>')"
    )
    document = {
        "databaseId": DATABASE,
        "workflowId": "odd-names",
        "steps": [
            {
                "pipelineId": "draw",
                "executionType": "command",
                "command": [sys.executable, "-c", code],
                "inputFileArity": "none",
            }
        ],
    }
    execution_id = _launch(service, document)
    assert _status(service, execution_id) == "SUCCEEDED"
    _login(viewer, service)
    page = viewer.get(f"/executions/{execution_id}")
    (link,) = re.findall(r'<a href="([^"]+\.svg)"', page.text)
    assert link.endswith("/a%3Fb%23c%20%25.svg"), link
    served = viewer.get(link)
    assert served.status_code == 200, served.text
    assert served.headers["content-type"].startswith("image/svg+xml")


def _section(page: str, heading_id: str) -> str:
    """The text of one section of a page, its markup dropped."""
    found = re.search(rf'aria-labelledby="{heading_id}".*?</section>', page, re.S)
    assert found, heading_id
    return html.unescape(re.sub(r"<[^>]+>", " ", found.group(0)))


def test_the_execution_page_shows_what_the_details_route_says(
    viewer: TestClient, service: Service
) -> None:
    run = service.execution_id
    answer = service.client.get(
        f"/workflows/executions/{run}/details", headers=service.as_user(ADMIN, ("admin",))
    )
    assert answer.status_code == 200, answer.text
    details = answer.json()["message"]
    _login(viewer, service)
    page = viewer.get(f"/executions/{run}").text

    summary = _section(page, "summary-h")
    for key in ("executionStatus", "triggeredByUserId", "triggerType", "orchestrator"):
        assert details[key] in summary, key
    steps = " ".join(_section(page, "steps-h").split())
    assert details["pipelines"]
    for step in details["pipelines"]:
        shown = f"{step['executionStatus']} {step['pipelineId']} {step['pipelineExecutionType']}"
        assert shown in steps
    inputs = _section(page, "inputs-h")
    assert details["resolvedInputFiles"]
    for row in details["resolvedInputFiles"]:
        assert row["inputAssetFileKey"] in inputs and row["versionId"] in inputs
    outputs = " ".join(_section(page, "outputs-h").split())
    assert details["outputs"]["files"]
    for file in details["outputs"]["files"]:
        said = f"{file['pipelineId']}: {file['relativeFilePath']} {file['fileSize']} bytes"
        assert said in outputs and file.get("s3VersionId", "") in outputs
    metadata = _section(page, "metadata-h")
    assert details["outputs"]["metadata"]
    for row in details["outputs"]["metadata"]:
        assert row["metadataKey"] in metadata and row["metadataValue"] in metadata


def test_the_workflows_page_lists_versions_and_steps(viewer: TestClient, service: Service) -> None:
    _login(viewer, service)
    listed = viewer.get("/catalog")
    assert f"{DATABASE}/{WORKFLOW['workflowId']}" in listed.text
    shown = viewer.get(f"/catalog/{DATABASE}/{WORKFLOW['workflowId']}")
    assert shown.status_code == 200
    for step in ("prepare", "transform", "report"):
        assert f"<td>{step}</td>" in shown.text
    assert "v1" in shown.text
    assert viewer.get(f"/catalog/{DATABASE}/missing").status_code == 404


def test_logout_clears_the_cookie(viewer: TestClient, service: Service) -> None:
    _login(viewer, service)
    csrf = _csrf(viewer.get("/").text)
    answer = viewer.post("/logout", data={"csrf": csrf})
    assert answer.status_code == 303
    assert (
        'wfx_session=""' in answer.headers["set-cookie"]
        or "Max-Age=0" in answer.headers["set-cookie"]
    )
    assert viewer.get("/").status_code == 401


def test_a_failed_run_is_redriven_from_its_page_once_confirmed(
    viewer: TestClient, service: Service
) -> None:
    document = {
        "databaseId": DATABASE,
        "workflowId": "failing",
        "steps": [
            {
                "pipelineId": "fail",
                "executionType": "command",
                "command": [sys.executable, "-c", "raise SystemExit(3)"],
                "inputFileArity": "none",
            }
        ],
    }
    execution_id = _launch(service, document)
    assert _status(service, execution_id) == "FAILED"
    _login(viewer, service)
    page = viewer.get(f"/executions/{execution_id}")
    assert "Redrive execution" in page.text
    assert "Abort execution" not in page.text
    path = f"/executions/{execution_id}/redrive"
    assert viewer.post(path, data={"csrf": _csrf(page.text)}).status_code == 400
    query = GetExecutionQuery(workflow_execution_id=execution_id)
    assert service.container.get_execution().execute(query).redrive_count == 0
    answer = viewer.post(path, data={"csrf": _csrf(page.text), "confirmed": "yes"})
    assert answer.status_code == 303, answer.text
    assert service.container.get_execution().execute(query).redrive_count == 1


RAW = ("\x1b", "\x00", "\x07", "\u202e")
# shown as `photoexe.txt` were the override left raw
SPOOFED = "photo\u202etxt.exe"


def _hostile_step(code: str, workflow_id: str) -> dict[str, object]:
    return {
        "databaseId": DATABASE,
        "workflowId": workflow_id,
        "steps": [
            {
                "pipelineId": "hostile",
                "executionType": "command",
                "command": [sys.executable, "-c", code],
                "inputFileArity": "none",
            }
        ],
    }


def test_control_and_bidi_characters_a_step_wrote_are_shown_escaped(
    viewer: TestClient, service: Service
) -> None:
    code = (
        "import os, pathlib, sys\n"
        "out = pathlib.Path(os.environ['WFX_OUTPUT_DIR'])\n"
        f"(out / {SPOOFED!r}).write_text('x')\n"
        "print('ansi \\x1b[31mred\\x1b[0m bell \\x07 nul \\x00 rtl \\u202eabc')\n"
        "sys.stderr.write('failed on \\u202etxt.exe\\n')\n"
        "sys.exit(3)\n"
    )
    execution_id = _launch(service, _hostile_step(code, "hostile-text"))
    assert _status(service, execution_id) == "FAILED"
    _login(viewer, service)
    page = viewer.get(f"/executions/{execution_id}")
    assert page.status_code == 200
    shown = html.unescape(page.text)
    for character in RAW:
        assert character not in shown, f"{character!r} reaches the page raw"
    outputs = " ".join(re.sub(r"<[^>]+>", " ", shown.split('id="outputs-h"')[1]).split())
    assert "hostile: photo\\u202etxt.exe" in outputs
    # the service refuses a path holding such a character: the link names the file's version
    (link,) = re.findall(r'<a href="([^"]+)">hostile: photo', page.text)
    download = viewer.get(link)
    assert download.status_code == 200, download.text
    assert download.content == b"x"
    assert download.headers["content-disposition"] == 'attachment; filename="photo_txt.exe"'
    assert viewer.get(link.rsplit("/", 1)[0] + "/no-such-version").status_code == 404
    assert "ansi \\x1b[31mred\\x1b[0m bell \\x07 nul \\x00 rtl \\u202eabc" in shown
    assert "failed on \\u202etxt.exe" in shown


def test_a_log_of_huge_lines_and_many_lines_shows_its_newest_lines_on_a_bounded_page(
    viewer: TestClient, service: Service
) -> None:
    code = (
        "import sys\n"
        "for n in range(8): sys.stdout.write(f'huge {n} ' + 'x' * (1 << 20) + '\\n')\n"
        "for n in range(1500): print('line', n)\n"
        "print('the newest line')\n"
    )
    execution_id = _launch(service, _hostile_step(code, "loud"))
    assert _status(service, execution_id) == "SUCCEEDED"
    _login(viewer, service)
    page = viewer.get(f"/executions/{execution_id}")
    assert page.status_code == 200
    assert len(page.content) < 1 << 20, len(page.content)  # 8 MiB of log behind it
    (source,) = re.findall(r'<div class="log".*?</div>', page.text, re.S)
    assert "the newest line" in source and "line 1499\n" in source
    assert "line 0\n" not in source
    assert "earlier lines not shown" in source
    assert f"wfx executions logs {execution_id} --log-id" in source
    run_log = page.text.split('aria-label="run log">')[1].split("</pre>")[0]
    assert "the newest line" in run_log
    log_id = re.findall(r'id="log-([0-9a-f]+)"', source)[0]
    fragment = viewer.get(f"/executions/{execution_id}/logs/{log_id}")
    assert "the newest line" in fragment.text and len(fragment.content) < 1 << 20


def test_a_metadata_file_holding_a_lone_surrogate_is_kept_as_a_file_and_every_read_answers(
    viewer: TestClient, service: Service
) -> None:
    """`"\\ud800"` is valid JSON but no text a page or a JSON answer can hold: malformed
    metadata, as a file nested too deeply is, never a row that makes every read a 500."""
    code = (
        "import os, pathlib\n"
        "folder = pathlib.Path(os.environ['WFX_OUTPUT_DIR']) / 'metadata'\n"
        "folder.mkdir()\n"
        "(folder / 'value.txt.json').write_text('{\"k\": \"v\\\\udfff\"}')\n"
        "(folder / 'key.txt.json').write_text('{\"k\\\\ud800\": \"v\"}')\n"
        "(folder / 'fine.txt.json').write_text('{\"colour\": \"blue\"}')\n"
    )
    execution_id = _launch(service, _hostile_step(code, "surrogates"))
    assert _status(service, execution_id) == "SUCCEEDED"
    answer = service.client.get(
        f"/workflows/executions/{execution_id}/details",
        headers=service.as_user(ADMIN, ("admin",)),
    )
    assert answer.status_code == 200, answer.text
    outputs = answer.json()["message"]["outputs"]
    assert [(m["metadataKey"], m["metadataValue"]) for m in outputs["metadata"]] == [
        ("colour", "blue")
    ]
    files = {f["relativeFilePath"] for f in outputs["files"]}
    assert {"metadata/value.txt.json", "metadata/key.txt.json"} <= files
    _login(viewer, service)
    page = viewer.get(f"/executions/{execution_id}")
    assert page.status_code == 200, page.text
    assert "blue" in _section(page.text, "metadata-h")


def register_a_surrogate_label(
    input_files: Sequence[str],
    output_dir: str,
    execution_id: str,
    pipeline_execution_id: str,
    register: Callable[..., object],
) -> None:
    """A python step registering a Batch job with a lone surrogate in its label, then in its
    ARN: each time the field is dropped and said to be (as any bad field of an event is)."""
    job = "arn:aws:batch:us-east-1:123456789012:job/j"
    for entry, field in (
        ({"jobArn": job, "label": "l\udfff"}, "label"),
        ({"jobArn": job + "\ud800"}, "jobArn"),
    ):
        try:
            register(sub_executions=[{"resourceType": "batchJob", **entry}])
        except InvalidInputError as refused:
            assert f"{field}: must be" in str(refused), refused
        else:
            raise AssertionError(f"a {field} holding a lone surrogate was taken")


def test_a_registration_holding_a_lone_surrogate_drops_the_field_and_every_read_answers(
    viewer: TestClient, service: Service
) -> None:
    document = {
        "databaseId": DATABASE,
        "workflowId": "registers",
        "steps": [
            {
                "pipelineId": "register",
                "executionType": "python",
                "handler": f"{__name__}:register_a_surrogate_label",
                "inputFileArity": "none",
            }
        ],
    }
    execution_id = _launch(service, document)
    answer = service.client.get(
        f"/workflows/executions/{execution_id}/details",
        headers=service.as_user(ADMIN, ("admin",)),
    )
    assert answer.status_code == 200, answer.text
    assert answer.json()["message"]["executionStatus"] == "SUCCEEDED", answer.text[:3000]
    (step,) = answer.json()["message"]["pipelines"]
    assert all("label" not in job for job in step["registeredSubExecutions"]), step
    _login(viewer, service)
    assert viewer.get(f"/executions/{execution_id}").status_code == 200


def test_a_cause_or_reason_holding_a_control_character_is_refused_as_the_json_routes_refuse_it(
    viewer: TestClient, service: Service
) -> None:
    execution_id = _gated_run(service)
    (approval,) = _pending(service, execution_id)
    _login(viewer, service, "carol", ("admin",))
    page = viewer.get(f"/executions/{execution_id}")
    decided = viewer.post(
        f"/executions/{execution_id}/approvals/{approval.approval_id}",
        data={"csrf": _csrf(page.text), "decision": "approve", "reason": "ok \x1b[2J"},
    )
    assert decided.status_code == 400, decided.text
    assert "reason: must hold no control character" in html.unescape(decided.text)
    assert _pending(service, execution_id) != []
    aborted = viewer.post(
        f"/executions/{execution_id}/abort",
        data={"csrf": _csrf(page.text), "confirmed": "yes", "cause": "see \u202etxt.exe"},
    )
    assert aborted.status_code == 400, aborted.text
    assert "cause: must hold no control character" in html.unescape(aborted.text)
    assert _status(service, execution_id) == "RUNNING"


def test_an_output_file_named_in_any_script_downloads_under_its_name(
    viewer: TestClient, service: Service
) -> None:
    code = (
        "import os, pathlib\n"
        "out = pathlib.Path(os.environ['WFX_OUTPUT_DIR'])\n"
        "(out / '日本 café.bin').write_text('x')\n"
    )
    execution_id = _launch(service, _hostile_step(code, "scripts"))
    assert _status(service, execution_id) == "SUCCEEDED"
    _login(viewer, service)
    page = viewer.get(f"/executions/{execution_id}")
    (link,) = re.findall(r'<a href="([^"]+)">hostile: 日本', page.text)
    download = viewer.get(link)
    assert download.status_code == 200, download.text
    assert download.content == b"x"
    # RFC 6266: an ASCII name for old clients, the UTF-8 one for the rest
    assert download.headers["content-disposition"] == (
        "attachment; filename=\"___caf_.bin\"; filename*=UTF-8''%E6%97%A5%E6%9C%AC%20caf%C3%A9.bin"
    )


def test_the_viewer_says_which_row_it_cannot_read_and_lists_the_other_runs(
    viewer: TestClient, service: Service, tmp_path: Path
) -> None:
    status_stored_as(
        service, "sqlite", tmp_path / "wfx.db", "CANCELLED"
    )  # a status VAMS never writes
    readable = service.launch()
    _login(viewer, service)

    page = viewer.get(f"/executions/{service.execution_id}")
    assert page.status_code == 409, page.text
    assert f"WorkflowExecutionsStorageTableV2 row {service.execution_id} cannot be read" in (
        html.unescape(page.text)
    )
    listed = viewer.get("/")
    assert listed.status_code == 200, listed.text
    assert readable in listed.text and service.execution_id not in listed.text


def test_a_revoked_session_says_it_ended_and_why_without_showing_the_token(
    viewer: TestClient, service: Service
) -> None:
    _login(viewer, service)
    token = viewer.cookies["wfx_session"]
    assert viewer.post("/logout", data={"csrf": _csrf(viewer.get("/").text)}).status_code == 303
    viewer.cookies.set("wfx_session", token)  # a copy of the cookie kept from before

    answer = viewer.get("/")

    assert answer.status_code == 401, answer.text
    assert "your session ended: that session was ended (logged out or revoked)" in answer.text
    assert "wfx auth token USER" in answer.text
    assert token not in answer.text and token[-20:] not in answer.text
    # every page says it, the run's own and the login page too
    for path in (f"/executions/{service.execution_id}", "/login"):
        page = viewer.get(path)
        assert page.status_code == 401 and "your session ended" in page.text, page.text
        assert token[-20:] not in page.text


def test_an_expired_session_says_when_it_expired_without_showing_the_token(
    viewer: TestClient, service: Service
) -> None:
    from adapters.identity.local_tokens import LocalTokenIssuer

    issued = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    issuer = LocalTokenIssuer(service.container.token_issuer()._key, now=lambda: issued)
    token = issuer.issue(ADMIN, timedelta(minutes=10), ("admin",))
    viewer.cookies.set("wfx_session", token)

    answer = viewer.get("/")

    assert answer.status_code == 401, answer.text
    assert "your session ended: the token expired at 2026-01-02T03:14:05Z" in answer.text
    assert token not in answer.text and token[-20:] not in answer.text
