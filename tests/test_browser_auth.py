"""Proxy sign-in in a real browser on the real server: the headers an authenticating proxy would add
(Playwright's ``extra_http_headers``) identify the viewer only with the shared secret; the same
headers without it leave the visitor anonymous with public documents only."""

from __future__ import annotations

import os

import pytest

from tests import app_support as A
from tests.conftest import REPO
from tests.test_access import SECRET, _corpus
from tests.test_browser import _free_port, running, streamlit_argv

pytestmark = pytest.mark.browser


@pytest.fixture
def proxy_server(tmp_path):
    A.ingest_parsed(_corpus(), corpus="c")
    port = _free_port()
    env = {**os.environ, "ANCHOR_EMBEDDER": "hash", "ANCHOR_AUTH": "proxy", "ANCHOR_AUTH_PROXY_SECRET": SECRET,
           "PYTHONPATH": str(REPO), "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    with running(streamlit_argv(port), port, env, cwd=REPO) as url:
        yield url


def test_proxy_headers_sign_in_only_with_the_secret(browser, proxy_server, tmp_path):
    user = {"X-Forwarded-User": "ana@example.com", "X-Forwarded-Groups": "red"}
    shots = {}
    for name, headers in (("signed-in", {**user, "X-Anchor-Proxy-Secret": SECRET}),
                          ("forged", {**user, "X-Anchor-Proxy-Secret": "not-the-secret-at-all"})):
        ctx = browser.new_context(viewport={"width": 1440, "height": 1000}, extra_http_headers=headers)
        page = ctx.new_page()
        page.goto(proxy_server + "/corpora", wait_until="domcontentloaded")
        page.get_by_text("Stored corpora").wait_for(timeout=60_000)
        page.get_by_text("Mode: trusted proxy headers").wait_for(timeout=30_000)
        page.get_by_text("Reference network").wait_for(timeout=30_000)
        page.wait_for_timeout(3000)  # let the tables finish drawing before the screenshot
        shots[name] = (page.locator("section[data-testid='stSidebar']").inner_text(),
                       page.locator("[data-testid='stMain']").inner_text())
        page.screenshot(path=str(tmp_path / f"proxy-{name}.png"), full_page=True)
        ctx.close()
    side, main = shots["signed-in"]
    assert "ana@example.com" in side and "groups red" in side
    assert "Add documents" not in main  # red is no admin
    side, main = shots["forged"]
    assert "anonymous" in side and "public documents only" in side and "ana@example.com" not in side
    assert "X-Anchor-Proxy-Secret missing or wrong" in side
    assert all((tmp_path / f"proxy-{n}.png").stat().st_size > 10_000 for n in shots)
    if os.environ.get("ANCHOR_KEEP_SCREENSHOTS"):
        import shutil

        for n in shots:
            shutil.copy(tmp_path / f"proxy-{n}.png", os.environ["ANCHOR_KEEP_SCREENSHOTS"])
