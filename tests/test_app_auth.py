"""Dashboard sign-in modes (AppTest): the sidebar says who you are, your groups come from the identity,
and every page shows a red viewer nothing of the blue group's documents.

AppTest seeds ``st.user`` (``at.user``) but not request headers, so proxy mode replaces
``resources.request_headers``, the one place the app reads them."""

from __future__ import annotations

import sys

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from anchor_core import access
from anchor_core.ask import AskSettings, ask
from anchor_core.embeddings import HashEmbedder
from anchor_core.reports import ReportStore
from anchor_core.scorers import make_scorer
from tests import app_support as A
from tests.test_access import SECRET, _corpus

sys.path.insert(0, str(A.APP.parent))
import resources  # noqa: E402  (the app's own module, the one AppTest's runs import)

RED_USER = {"is_logged_in": True, "email": "ana@example.com", "name": "Ana", "groups": ["red"]}
BLUE_USER = {"is_logged_in": True, "email": "bo@example.com", "name": "Bo", "groups": ["blue"]}
ADMIN_USER = {"is_logged_in": True, "email": "root@example.com", "name": "Root", "groups": ["anchor-admins"]}


@pytest.fixture
def oidc(monkeypatch):
    monkeypatch.setenv("ANCHOR_AUTH", "oidc")
    A.ingest_parsed(_corpus(), corpus="c")


def app(page: str, user: dict | None = None, secrets: dict | None = None) -> AppTest:
    st.cache_resource.clear()
    at = AppTest.from_file(str(A.APP), default_timeout=120)
    if user is not None:
        at.user = user
    if secrets:
        at.secrets = secrets
    at.run()
    at.switch_page(page).run()
    A.no_traceback(at)
    return at


def sidebar(at: AppTest) -> str:
    s = at.sidebar
    return "\n".join(str(e.value) for kind in ("markdown", "caption", "warning", "subheader")
                     for e in getattr(s, kind))


def _no_blue(at: AppTest) -> None:
    shown = A.texts(at) + "\n".join(str(t.to_dict()) for t in A.tables(at))
    assert "BLUEMARK" not in shown and "blue-doc" not in shown and "blue-u" not in shown


def labels(at: AppTest) -> list[str]:
    return [b.label for b in at.button]


def test_default_mode_without_sign_in_is_public_only_and_says_so(oidc, monkeypatch):
    monkeypatch.delenv("ANCHOR_AUTH")
    at = app("views/corpora.py")
    side = sidebar(at)
    assert "anonymous" in side and "public documents only" in side and "OIDC sign-in" in side
    assert "Sign-in is not configured" in side
    assert not [t for t in at.text_input if t.key == "reviewer"]  # no free-text reviewer name
    docs = A.table_with(at, "document")
    assert list(docs["document"]) == ["pub-doc"]
    assert "Add documents" not in A.texts(at) and "Delete document…" not in labels(at)
    _no_blue(at)


def test_sign_in_button_when_the_provider_is_configured(oidc):
    at = app("views/ask.py", secrets={"auth": {"redirect_uri": "http://localhost:8501/oauth2callback",
                                              "cookie_secret": "x" * 32, "client_id": "anchor",
                                              "client_secret": "y", "server_metadata_url":
                                              "https://idp.example/.well-known/openid-configuration"}})
    assert "Sign in" in labels(at)
    at = app("views/ask.py", user=RED_USER)
    assert "Sign out" in labels(at) and "Sign in" not in labels(at)


def test_a_red_viewer_sees_no_blue_document_on_any_page(oidc):
    # a blue colleague's run, saved with its access context, quotes blue text
    rs = ReportStore(A.home() / "reports.db")
    blue = access.viewer_from_claims(BLUE_USER, groups_claim="groups", admin_group="anchor-admins")
    blue_run = access.save_run(rs, blue, ask("audit logs salary decisions", store=access.scoped(A.store(), blue),
                                             embedder=HashEmbedder(), corpus="c",
                                             settings=AskSettings(hops=1, writer="extractive", scorer="lexical"),
                                             scorer=make_scorer("lexical")))
    assert "BLUEMARK" in rs.get(blue_run.id).model_dump_json()

    # Ask: no group picker; the answer comes from red and public documents only
    at = app("views/ask.py", user=RED_USER)
    assert "Ana" in sidebar(at) and "groups red" in sidebar(at)
    assert not [m for m in at.multiselect if m.key == "ask_groups"]
    at.slider(key="ask_hops").set_value(3)
    at.text_area(key="ask_question").input("audit logs salary decisions")
    A.button(at, "Ask").click()
    at.run()
    A.no_traceback(at)
    assert "REDMARK" in A.texts(at) or "PUBMARK" in A.texts(at)
    _no_blue(at)

    # Corpora: the documents list, the reference network and the unit reader
    at = app("views/corpora.py", user=RED_USER)
    docs = A.table_with(at, "document")
    assert sorted(docs["document"]) == ["pub-doc", "red-doc"]
    assert "Add documents" not in A.texts(at) and "Delete document…" not in labels(at)
    reader = at.selectbox(key="cp_unit")
    assert reader.options and not [o for o in reader.options if o.startswith("blue")]
    for unit_id in reader.options:
        reader.set_value(unit_id)
        at.run()
        _no_blue(at)

    # Verify: the corpus units offered as sources
    at = app("views/verify.py", user=RED_USER)
    units = at.multiselect(key="verify_units").options
    assert units and not [u for u in units if u.startswith("blue")]

    # Reports: the blue run is neither listed nor openable; red's own run is, and a mark carries the identity
    at = app("views/reports.py", user=RED_USER)
    opened = at.selectbox(key="rep_open")
    assert blue_run.id not in opened.options and len(opened.options) == 1
    _no_blue(at)
    at.selectbox(key=f"rev_claim_{opened.value}").set_value(1)
    A.button(at, "Save mark").click()
    at.run()
    A.no_traceback(at)
    assert rs.get(opened.value).reviews[-1].reviewer == "Ana <ana@example.com>"
    assert "Delete run" not in labels(at)


def test_an_admin_sees_everything_and_may_add_and_delete(oidc):
    at = app("views/corpora.py", user=ADMIN_USER)
    assert "admin" in sidebar(at) and "every document" in sidebar(at)
    docs = A.table_with(at, "document")
    assert sorted(docs["document"]) == ["blue-doc", "pub-doc", "red-doc"]
    assert "Add documents" in A.texts(at) and "Delete document…" in labels(at)


def test_local_mode_is_shown_plainly_and_keeps_the_free_text_reviewer(monkeypatch):
    A.ingest_parsed(_corpus(), corpus="c")
    at = app("views/corpora.py")
    assert "Local single-user mode" in sidebar(at) and "every document" in sidebar(at)
    assert [t for t in at.text_input if t.key == "reviewer"]
    assert "Add documents" in A.texts(at)


def test_proxy_headers_identify_the_viewer_only_with_the_secret(monkeypatch):
    monkeypatch.setenv("ANCHOR_AUTH", "proxy")
    monkeypatch.setenv("ANCHOR_AUTH_PROXY_SECRET", SECRET)
    A.ingest_parsed(_corpus(), corpus="c")
    headers = [("X-Forwarded-User", "ana@example.com"), ("X-Forwarded-Groups", "red")]
    monkeypatch.setattr(resources, "request_headers", lambda: [("X-Anchor-Proxy-Secret", SECRET), *headers])
    at = app("views/corpora.py")
    assert "ana@example.com" in sidebar(at) and "trusted proxy headers" in sidebar(at)
    docs = A.table_with(at, "document")
    assert sorted(docs["document"]) == ["pub-doc", "red-doc"]
    _no_blue(at)
    # the same headers straight to the port, without the secret: anonymous, public only
    monkeypatch.setattr(resources, "request_headers", lambda: headers)
    at = app("views/corpora.py")
    assert "anonymous" in sidebar(at) and "X-Anchor-Proxy-Secret missing or wrong" in sidebar(at)
    docs = A.table_with(at, "document")
    assert list(docs["document"]) == ["pub-doc"]
