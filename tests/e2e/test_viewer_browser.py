"""The web viewer in headless Chromium (Debian's, driven by Playwright; no downloaded browser)
against a real `wfx serve --open` on a free port, over runs the real CLI made: log in through
the printed link, list, filter, open a run, its timeline and logs, approve a gate, abort a
running run; a user without the logs permission sees none. Screenshots go under the test's tmp
folder, or into WFX_SCREENSHOTS (`make screenshots` points it at docs/viewer)."""

from __future__ import annotations

import os
import socket
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta
from pathlib import Path

import pytest
import yaml
from playwright.sync_api import Browser, Dialog, Page, expect, sync_playwright

from tests.e2e.cli import USER, Wfx, publish_mesh_and_import
from tests.e2e.served import wait_until_answering

pytestmark = [pytest.mark.integration, pytest.mark.browser, pytest.mark.xdist_group("browser")]

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
WATCHER = "watcher"  # holds only the shipped Global Read-Only template: no logs route
MESH_LOG_LINE = "edges drawn"
# CI shares two cores with other workers: waits are sized for that, not for a quiet laptop
expect.set_options(timeout=15_000)
WAIT_SECONDS = 60
SLEEPER_LINE = "sleeper started"

# Every input and select a person can reach has a label (its own, or aria-label).
UNLABELLED = """() => Array.from(document.querySelectorAll(
    'input:not([type=hidden]), select, textarea'))
  .filter(e => e.labels.length === 0 && !e.getAttribute('aria-label'))
  .map(e => e.outerHTML)"""

# what sticks out, for the failure message
WIDER_THAN_375 = """() => Array.from(document.querySelectorAll('main *'))
  .filter(e => e.getBoundingClientRect().right > 375)
  .slice(0, 5).map(e => e.tagName + '.' + e.className + ': ' + e.textContent.slice(0, 60))"""


@dataclass(frozen=True)
class Served:
    wfx: Wfx
    base: str
    link: str
    mesh: str
    gated: str
    sleeper: str
    shots: Path


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _publish_gated(wfx: Wfx) -> None:
    document = {
        "databaseId": "demo",
        "workflowId": "gated",
        "description": "Build, wait for a sign-off, ship.",
        "steps": [
            {
                "pipelineId": "build",
                "executionType": "command",
                "command": [sys.executable, "-c", "print('built')"],
                "inputFileArity": "none",
            },
            {
                "pipelineId": "sign-off",
                "executionType": "approval",
                "approvers": [USER],
                "message": "Ship the build?",
                "timeoutSeconds": 600,
            },
            {
                "pipelineId": "ship",
                "executionType": "command",
                "command": [sys.executable, "-c", "print('shipped')"],
                "inputFileArity": "none",
            },
        ],
    }
    path = wfx.home / "gated.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    wfx.ok("workflows", "publish", str(path))


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    root = tmp_path_factory.mktemp("viewer")
    wfx = Wfx(root / "home")
    wfx.ok("auth", "templates", "apply", "Global Read-Only", "--role", "viewers")
    wfx.ok("auth", "users", "assign", WATCHER, "viewers")
    publish_mesh_and_import(wfx)
    mesh = wfx.run_id("demo/mesh-report", "--input", "demo/meshes")
    _publish_gated(wfx)
    gated = wfx.run_id("demo/gated")
    wfx.publish_command_step(
        "sleeper", f"import time; print({SLEEPER_LINE!r}, flush=True); time.sleep(300)"
    )
    sleeper = wfx.run_id("demo/sleeper", "--no-wait")
    wfx.wait_until(
        sleeper,
        lambda d: d["pipelines"][0]["executionStatus"] == "RUNNING",
        WAIT_SECONDS,
    )

    port = _free_port()
    service = wfx.start("serve", "--port", str(port), "--open")
    assert service.stdout is not None
    link = service.stdout.readline().strip()
    base = f"http://127.0.0.1:{port}"
    assert link.startswith(f"{base}/login?token="), link
    wait_until_answering(base, service)
    shots = Path(os.environ.get("WFX_SCREENSHOTS") or root / "screenshots")
    shots.mkdir(parents=True, exist_ok=True)
    try:
        yield Served(wfx, base, link, mesh, gated, sleeper, shots)
    finally:
        wfx("executions", "abort", sleeper)
        service.terminate()
        _, stderr = service.communicate(timeout=20)
        assert "Traceback" not in stderr, stderr


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    if not Path(CHROMIUM).exists():
        pytest.fail(f"{CHROMIUM} is missing: `make .venv/.installed-test` installs it")
    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield launched
        launched.close()


@pytest.fixture
def page(browser: Browser) -> Iterator[Page]:
    context = browser.new_context(viewport={"width": 1200, "height": 900})
    opened = context.new_page()
    problems: list[str] = []
    # a CSP refusal (an inline script or style) or a missing file shows as a console error;
    # a logged-out page's own 401 is expected
    opened.on(
        "console",
        lambda m: (
            problems.append(m.text) if m.type == "error" and "status of 401" not in m.text else None
        ),
    )
    yield opened
    context.close()
    assert problems == [], problems


def _narrow_fits(page: Page) -> None:
    page.set_viewport_size({"width": 375, "height": 800})
    width = page.evaluate("document.documentElement.scrollWidth")
    wide = page.evaluate(WIDER_THAN_375) if width > 375 else []
    assert width <= 375, f"{page.url} is {width} px wide at a 375 px viewport: {wide}"
    page.set_viewport_size({"width": 1200, "height": 900})


def test_log_in_list_filter_inspect_approve_and_abort(served: Served, page: Page) -> None:
    page.goto(served.link)
    assert page.url == f"{served.base}/"  # the token is gone from the address bar
    assert page.evaluate("document.cookie") == ""  # HttpOnly: no script reads the session
    rows = page.locator("#executions tbody tr")
    expect(rows).to_have_count(3)
    expect(page.locator("#executions")).to_have_attribute("hx-trigger", "every 2s")
    assert page.evaluate(UNLABELLED) == []
    page.screenshot(path=served.shots / "executions.png")
    _narrow_fits(page)

    page.get_by_label("Status").select_option("RUNNING")
    page.get_by_role("button", name="Apply filters").click()
    expect(rows).to_have_count(2)
    expect(page.locator("#executions")).not_to_contain_text(served.mesh)
    page.get_by_label("Workflow id").fill("mesh-report")
    page.get_by_label("Database").first.fill("demo")
    page.get_by_label("Status").select_option("")
    page.get_by_role("button", name="Apply filters").click()
    expect(rows).to_have_count(1)

    page.get_by_role("link", name=served.mesh).click()
    expect(page.locator("#run-status")).to_have_text("SUCCEEDED")
    timeline = page.locator("svg#timeline")
    expect(timeline).to_be_visible()
    expect(timeline.locator("rect")).to_have_count(3)
    expect(page.locator("#logs")).to_contain_text(MESH_LOG_LINE)
    preview = page.locator("img.preview").first
    expect(preview).to_be_visible()
    # visible is not loaded: the image's bytes are streamed after the page, so wait for them
    # (bounded by the default timeout) before asking whether they made a picture
    page.wait_for_function("img => img.complete", arg=preview.element_handle())
    assert page.evaluate("img => img.naturalWidth", preview.element_handle()) > 0
    assert page.evaluate(UNLABELLED) == []
    page.screenshot(path=served.shots / "execution.png")
    _narrow_fits(page)

    page.goto(f"{served.base}/executions/{served.gated}")
    page.get_by_label("Reason").fill("the build looks right")
    page.get_by_role("button", name="Approve").click()
    expect(page.locator(".approval")).to_contain_text("APPROVED")
    shown = served.wfx.wait_until(
        served.gated, lambda d: d["executionStatus"] == "SUCCEEDED", WAIT_SECONDS
    )
    assert shown["executionStatus"] == "SUCCEEDED", shown
    assert shown["approvals"][0]["decidedBy"] == USER
    assert shown["approvals"][0]["reason"] == "the build looks right"

    page.goto(f"{served.base}/executions/{served.sleeper}")
    expect(page.locator("#logs")).to_contain_text(SLEEPER_LINE)
    expect(page.locator("#logs .log").first).to_have_attribute("hx-trigger", "every 2s")
    page.locator("#logs").screenshot(path=served.shots / "running.png")
    page.get_by_role("button", name="Abort execution").click()
    # the confirmation is required (the browser keeps the unticked form from being sent)
    assert served.wfx.json("executions", "show", served.sleeper)["executionStatus"] == "RUNNING"
    page.get_by_label("Yes, abort this run").check()
    page.get_by_role("button", name="Abort execution").click()
    shown = served.wfx.wait_until(
        served.sleeper, lambda d: d["executionStatus"] == "ABORTED", WAIT_SECONDS
    )
    assert shown["executionStatus"] == "ABORTED", shown
    expect(page.locator("#run-status")).to_have_text("ABORTED")

    page.get_by_role("link", name="Workflows").click()
    page.get_by_role("link", name="demo/gated").click()
    expect(page.locator("table")).to_contain_text("sign-off")
    page.screenshot(path=served.shots / "workflow.png")
    _narrow_fits(page)


def test_a_user_without_the_logs_permission_sees_no_logs(served: Served, page: Page) -> None:
    token = served.wfx.ok("auth", "token", WATCHER, "--ttl", "10m").stdout.strip()
    page.goto(f"{served.base}/login?token={token}")
    expect(page.locator("#executions tbody tr")).to_have_count(3)
    page.goto(f"{served.base}/executions/{served.mesh}")
    expect(page.locator("#logs")).to_contain_text("You may not read logs.")
    assert MESH_LOG_LINE not in page.content()
    expect(page.get_by_role("button", name="Abort execution")).to_have_count(0)
    page.locator("#logs").screenshot(path=served.shots / "no-logs.png")


def test_logged_out_the_viewer_says_how_to_log_in(served: Served, page: Page) -> None:
    page.goto(f"{served.base}/")
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in to wfx")
    expect(page.locator("main")).to_contain_text("wfx auth token USER")
    page.goto(f"{served.base}/login?token=nonsense")
    expect(page.locator(".problem")).to_contain_text("does not log you in")


def test_a_token_too_long_for_a_cookie_is_refused_and_the_longest_that_fits_logs_in(
    served: Served, page: Page
) -> None:
    from adapters.identity.local_key import LocalSigningKey
    from adapters.identity.local_tokens import LocalTokenIssuer
    from entrypoints.http.viewer.session import MAX_TOKEN_CHARS

    issuer = LocalTokenIssuer(LocalSigningKey(served.wfx.home))
    groups = [f"group-{i:02d}-" + "x" * 90 for i in range(28)]  # an identity provider's many
    # one more character of a role name adds one or two to the token: each length near the limit
    tokens = [
        issuer.issue(USER, timedelta(minutes=10), ["admin", *groups[:count], "p" * n])
        for count in (27, 28)
        for n in range(1, 101)
    ]
    fits = max((t for t in tokens if len(t) <= MAX_TOKEN_CHARS), key=len)
    over = min((t for t in tokens if len(t) > MAX_TOKEN_CHARS), key=len)
    assert MAX_TOKEN_CHARS - len(fits) <= 2, len(fits)
    # Chromium keeps the longest cookie the limit allows: the limit is the browser's
    page.goto(f"{served.base}/login?token={fits}")
    expect(page.get_by_role("heading", level=1)).to_have_text("Executions")
    # one past it, Chromium would drop the cookie without a word, leaving nobody logged in
    page.context.clear_cookies()
    page.goto(f"{served.base}/login?token={over}")
    expect(page.locator(".problem")).to_contain_text(f"at most {MAX_TOKEN_CHARS:,} characters")
    assert page.context.cookies() == []


def test_a_login_link_on_another_site_asks_before_it_swaps_the_session(
    served: Served, page: Page
) -> None:
    theirs = served.wfx.ok("auth", "token", "mallory", "--role", "admin", "--ttl", "10m")
    evil = "http://evil.example/"
    lure = f'<a id="lure" href="{served.base}/login?token={theirs.stdout.strip()}">a prize</a>'
    page.route(evil, lambda route: route.fulfill(body=lure, content_type="text/html"))
    page.goto(served.link)
    mine = page.context.cookies()
    page.goto(evil)
    page.click("#lure")
    page.wait_for_load_state()
    assert page.context.cookies() == mine  # Chromium said cross-site: nothing was set
    expect(page.get_by_role("heading", level=1)).to_have_text("Log in as mallory?")
    page.get_by_role("button", name="Log in as mallory").click()
    expect(page.locator(".who")).to_have_text("mallory")


def test_an_open_page_whose_session_ends_says_so_instead_of_going_stale(
    served: Served, page: Page
) -> None:
    """The summary polls while the run is open: once the session is revoked, a poll's 401 page
    must not be dropped (htmx swaps no error), leaving a page that looks live but no longer is."""
    # its own open run: the first test aborted the module's sleeper; none is counted after this
    sleeper = served.wfx.run_id("demo/sleeper", "--no-wait")
    try:
        token = served.wfx.ok("auth", "token", "ops", "--role", "admin", "--ttl", "10m")
        page.goto(f"{served.base}/login?token={token.stdout.strip()}")
        page.goto(f"{served.base}/executions/{sleeper}")
        expect(page.locator("#execution-summary")).to_have_attribute("hx-trigger", "every 3s")
        served.wfx.ok("auth", "revoke", "ops")
        expect(page.get_by_role("heading", level=1)).to_have_text("Log in to wfx")
    finally:
        served.wfx("executions", "abort", sleeper)


HOSTILE = (
    '<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2">'
    '\'"</textarea><svg onload="window.__pwned = 3"></svg><a href="javascript:alert(1)">x</a>'
)
HOSTILE_STEP = f"""
import os, pathlib
out = pathlib.Path(os.environ['WFX_OUTPUT_DIR'])
(out / 'photo\\u202etxt.exe').write_text('x')
(out / 'picture.svg').write_text(
    '<svg xmlns="http://www.w3.org/2000/svg" onload="top.__pwned = 4">'
    '<script>top.__pwned = 5</script><rect width="9" height="9"/></svg>')
print({HOSTILE!r}, 'and \\x1b[31m red \\u202e reversed')
"""


def test_what_a_hostile_step_stored_shows_as_text_and_never_runs(
    served: Served, page: Page
) -> None:
    """Last in the module: its run would change the lists the tests above count."""
    document = {
        "databaseId": "demo",
        "workflowId": "hostile",
        "description": HOSTILE,
        "steps": [
            {
                "pipelineId": "writes",
                "executionType": "command",
                "command": [sys.executable, "-c", HOSTILE_STEP],
                "inputFileArity": "none",
            },
            {
                # a name and an error with no place to break a line: the page must still fit
                "pipelineId": "fails-" + "f" * 200,
                "executionType": "command",
                "command": [sys.executable, "-c", f"raise SystemExit('e' * 3000 + {HOSTILE!r})"],
                "inputFileArity": "none",
            },
        ],
    }
    path = served.wfx.home / "hostile.yaml"
    path.write_text(yaml.safe_dump(document), encoding="utf-8")
    served.wfx.ok("workflows", "publish", str(path))
    run = served.wfx.run_id("demo/hostile", expect_code=1)
    dialogs: list[str] = []

    def opened(dialog: Dialog) -> None:
        dialogs.append(dialog.message)
        dialog.dismiss()

    page.on("dialog", opened)
    page.goto(served.link)

    answer = page.goto(f"{served.base}/executions/{run}")
    assert answer is not None
    assert "script-src 'self';" in answer.headers["content-security-policy"]
    expect(page.locator("#run-status")).to_have_text("FAILED")
    for section in ("#execution-summary", "#logs", "section[aria-labelledby=steps-h]"):
        expect(page.locator(section)).to_contain_text(HOSTILE)
    outputs = page.locator("section[aria-labelledby=outputs-h]")
    expect(outputs).to_contain_text("writes: photo\\u202etxt.exe")
    expect(page.locator("#logs")).to_contain_text("and \\x1b[31m red \\u202e reversed")
    assert "\u202e" not in page.locator("main").inner_text()
    _narrow_fits(page)
    preview = page.locator("img.preview")
    expect(preview).to_have_count(1)
    page.wait_for_function("img => img.complete", arg=preview.element_handle())  # streamed
    assert page.evaluate("img => img.naturalWidth", preview.element_handle())
    page.goto(f"{served.base}/catalog/demo/hostile")
    expect(page.locator("main")).to_contain_text(HOSTILE)
    _narrow_fits(page)
    page.goto(f"{served.base}/catalog")
    expect(page.locator("main")).to_contain_text(HOSTILE)
    assert page.evaluate("window.__pwned") is None
    assert dialogs == []
