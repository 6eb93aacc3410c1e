"""OIDC sign-in in a real browser on the real server: Streamlit's own ``st.login`` runs the whole
authorization-code flow (PKCE, nonce, RS256 ID token checked against the provider's JWKS) against
the local provider of tests/fake_oidc.py; the viewer's groups come from the token's claim, and the
Corpora page then shows public and red documents, never blue ones."""

from __future__ import annotations

import os
import secrets

import pytest

from tests import app_support as A
from tests.conftest import REPO
from tests.fake_oidc import FakeOIDC
from tests.test_access import _corpus
from tests.test_browser import _free_port, running, streamlit_argv

pytestmark = pytest.mark.browser


@pytest.fixture
def oidc_server(tmp_path):
    pytest.importorskip("authlib", reason="Authlib (st.login's dependency) is not installed")
    A.ingest_parsed(_corpus(), corpus="c")
    port = _free_port()
    with FakeOIDC(user={"email": "ana@example.com", "name": "Ana", "roles": {"anchor": ["red"]}}) as idp:
        secrets_file = tmp_path / "secrets.toml"
        secrets_file.write_text(
            "[auth]\n"
            f'redirect_uri = "http://127.0.0.1:{port}/oauth2callback"\n'
            f'cookie_secret = "{secrets.token_hex(32)}"\n'
            f'client_id = "{idp.client_id}"\n'
            f'client_secret = "{idp.client_secret}"\n'
            f'server_metadata_url = "{idp.metadata_url}"\n')
        env = {**os.environ, "ANCHOR_EMBEDDER": "hash", "ANCHOR_AUTH": "oidc",
               "ANCHOR_AUTH_GROUPS_CLAIM": "roles.anchor", "PYTHONPATH": str(REPO),
               "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false",
               "AUTHLIB_INSECURE_TRANSPORT": "1"}  # the test provider speaks plain HTTP on 127.0.0.1
        with running(streamlit_argv(port, "--secrets.files", str(secrets_file)), port, env, cwd=tmp_path) as url:
            yield url, idp


def test_st_login_round_trip_gives_the_groups_of_the_id_token(browser, oidc_server, tmp_path):
    url, idp = oidc_server
    page = browser.new_context(viewport={"width": 1440, "height": 1000}).new_page()
    page.goto(url + "/corpora", wait_until="domcontentloaded")
    side = page.locator("section[data-testid='stSidebar']")
    side.get_by_text("anonymous").wait_for(timeout=60_000)
    before = page.locator("[data-testid='stMain']").inner_text()
    side.get_by_role("button", name="Sign in").click()
    side.get_by_text("ana@example.com").wait_for(timeout=60_000)
    page.goto(url + "/corpora", wait_until="domcontentloaded")
    page.get_by_text("Reference network").wait_for(timeout=60_000)
    page.wait_for_timeout(2000)
    after_side = side.inner_text()
    # The full-text tables are HTML; a data grid draws on a canvas and its accessible copy
    # (text_content) holds the cells.
    after = " ".join(t or "" for t in page.locator(
        "[data-testid='stTable'], [data-testid='stDataFrame']").all_text_contents())
    page.screenshot(path=str(tmp_path / "oidc-signed-in.png"), full_page=True)
    assert {"/authorize", "/token", "/jwks"} <= set(idp.requests)  # the real code flow ran
    assert "red-doc" not in before and "blue-doc" not in before  # anonymous: public documents only
    assert "groups red" in after_side and "Sign out" in after_side
    assert "red-doc" in after and "pub-doc" in after and "blue-doc" not in after
    assert (tmp_path / "oidc-signed-in.png").stat().st_size > 10_000
    if os.environ.get("ANCHOR_KEEP_SCREENSHOTS"):
        import shutil

        shutil.copy(tmp_path / "oidc-signed-in.png", os.environ["ANCHOR_KEEP_SCREENSHOTS"])
