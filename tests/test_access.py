"""anchor_core.access: who the viewer is, and that a group-b document never reaches a group-a viewer
through any read path (search, ask, hops, unit reader, verify sources, saved reports, exports)."""

from __future__ import annotations

import numpy as np
import pytest

from anchor_core import access, render, workspace
from anchor_core.access import AccessDenied, ScopedStore, Viewer
from anchor_core.ask import AskSettings, ask
from anchor_core.config import AuthSettings, Settings
from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import AnchorError, ConfigError, CorpusNotFound
from anchor_core.indexing import ingest
from anchor_core.models import Document, Filters, ParsedCorpus
from anchor_core.reports import ReportStore, RunNotFound
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.scorers import make_scorer
from anchor_core.stores.sqlite import SQLiteStore
from anchor_core.verify import verify_answer
from tests.conftest import ref, unit
from tests.stores.contract import StoreContract

SECRET = "s3cret-proxy-value-0123"
AUTH = AuthSettings(mode="proxy", proxy_secret=SECRET)


def oidc(groups=None, **claims) -> Viewer:
    return access.viewer_from_claims({"is_logged_in": True, "email": "ana@example.com", "name": "Ana",
                                      "groups": groups or [], **claims},
                                     groups_claim="groups", admin_group="anchor-admins")


RED = oidc(["red"])
BLUE = oidc(["blue"], email="bo@example.com", name="Bo")
ADMIN = oidc(["anchor-admins"])
NOBODY = access.anonymous("oidc")
LOCAL = access.local_viewer("Me")


# -- identity ------------------------------------------------------------------------------------


def test_groups_come_from_the_configured_claim_in_any_common_shape():
    assert access.parse_groups(["b", "a", " a ", ""]) == ("a", "b")
    assert access.parse_groups("hr, legal;audit  ops") == ("audit", "hr", "legal", "ops")
    assert access.parse_groups(None) == ()
    v = access.viewer_from_claims({"is_logged_in": True, "email": "x@y.z", "roles": "hr"}, groups_claim="roles",
                                  admin_group="anchor-admins")
    assert (v.name, v.email, v.groups, v.signed_in, v.is_admin) == ("x@y.z", "x@y.z", ("hr",), True, False)
    nested = {"is_logged_in": True, "sub": "u1", "realm_access": {"roles": ["legal", "anchor-admins"]}}
    v = access.viewer_from_claims(nested, groups_claim="realm_access.roles", admin_group="anchor-admins")
    assert (v.name, v.groups, v.is_admin) == ("u1", ("anchor-admins", "legal"), True)


def test_not_signed_in_is_anonymous_and_sees_public_documents_only():
    for claims in (None, {}, {"is_logged_in": False, "email": "x@y.z", "groups": ["red"]}):
        v = access.viewer_from_claims(claims, groups_claim="groups", admin_group="anchor-admins")
        assert not v.signed_in and access.visible_groups(v) == [] and v.label == "anonymous"


def test_only_local_mode_and_admins_are_unrestricted():
    assert access.visible_groups(LOCAL) is None
    assert access.visible_groups(ADMIN) is None and ADMIN.is_admin
    assert access.visible_groups(RED) == ["red"]
    assert access.visible_groups(oidc([])) == []  # signed in without groups: public only
    # an admin flag on an anonymous viewer grants nothing
    assert access.visible_groups(Viewer(mode="proxy", is_admin=True)) == []


def test_proxy_headers_need_the_shared_secret():
    good = [("x-anchor-proxy-secret", SECRET), ("X-Forwarded-User", "ana@example.com"),
            ("X-Forwarded-Groups", "red, anchor-admins")]
    v = access.viewer_from_headers(good, AUTH)
    assert (v.name, v.groups, v.is_admin, v.signed_in, v.mode) == (
        "ana@example.com", ("anchor-admins", "red"), True, True, "proxy")
    for headers in (good[1:],                                              # no secret
                    [("X-Anchor-Proxy-Secret", SECRET[:-1] + "x"), *good[1:]],  # wrong secret
                    [("X-Anchor-Proxy-Secret", SECRET), *good],                # the secret sent twice
                    [good[0], good[2]],                                        # no user
                    [*good, ("X-Forwarded-User", "eve")]):                     # two users
        v = access.viewer_from_headers(headers, AUTH)
        assert not v.signed_in and access.visible_groups(v) == [] and v.note, headers
    # no secret configured: never trusted, even for a request that sends an empty one
    unset = AuthSettings(mode="proxy", proxy_secret=None)
    assert not access.viewer_from_headers([("X-Anchor-Proxy-Secret", ""), good[1]], unset).signed_in


def test_auth_settings_are_checked_with_a_one_line_message():
    assert Settings.from_env({}).auth.mode == "oidc"
    with pytest.raises(ConfigError, match=r"^ANCHOR_AUTH is 'ldap'; allowed: oidc, proxy, local\. Fix or unset"):
        Settings.from_env({"ANCHOR_AUTH": "ldap"})
    with pytest.raises(ConfigError, match="ANCHOR_AUTH_PROXY_SECRET is unset"):
        Settings.from_env({"ANCHOR_AUTH": "proxy"})
    with pytest.raises(ConfigError, match="ANCHOR_AUTH_PROXY_SECRET is 5 characters long"):
        Settings.from_env({"ANCHOR_AUTH": "proxy", "ANCHOR_AUTH_PROXY_SECRET": "short"})
    with pytest.raises(ConfigError, match="^ANCHOR_AUTH_GROUPS_HEADER is 'X Groups'"):
        Settings.from_env({"ANCHOR_AUTH_GROUPS_HEADER": "X Groups"})
    s = Settings.from_env({"ANCHOR_AUTH": "proxy", "ANCHOR_AUTH_PROXY_SECRET": SECRET,
                           "ANCHOR_AUTH_GROUPS_CLAIM": "roles", "ANCHOR_AUTH_ADMIN_GROUP": "ops"})
    assert (s.auth.mode, s.auth.groups_claim, s.auth.admin_group) == ("proxy", "roles", "ops")
    assert SECRET not in repr(s)


def test_reviewer_name_is_the_identity():
    assert access.reviewer_name(RED) == "Ana <ana@example.com>"
    assert access.reviewer_name(access.viewer_from_headers(
        [("X-Anchor-Proxy-Secret", SECRET), ("X-Forwarded-User", "bo")], AUTH)) == "bo"
    assert access.reviewer_name(access.local_viewer("Free Text")) == "Free Text"
    with pytest.raises(AccessDenied, match="sign in"):
        access.reviewer_name(NOBODY)


def test_saved_run_visibility_rule():
    assert access.may_open_run(RED, ["red"]) and access.may_open_run(RED, [])
    assert not access.may_open_run(RED, ["blue"]) and not access.may_open_run(RED, ["blue", "red"])
    assert not access.may_open_run(RED, None)            # ran unrestricted (or saved before access contexts)
    assert access.may_open_run(oidc(["red", "blue"]), ["blue", "red"])
    assert not access.may_open_run(NOBODY, ["red"]) and access.may_open_run(NOBODY, [])
    assert access.may_open_run(LOCAL, None) and access.may_open_run(ADMIN, ["blue"])


# -- the store as one viewer sees it -------------------------------------------------------------


def _corpus() -> ParsedCorpus:
    """Red, blue and public documents; red units cite blue ones and the other way round."""
    docs = [Document(doc_id="red-doc", groups=["red"]), Document(doc_id="blue-doc", groups=["blue"]),
            Document(doc_id="pub-doc")]
    units = []
    for g in ("red", "blue", "pub"):
        for n in range(2):
            text = (f"1. {g.upper()}MARK High-risk AI systems shall keep audit logs of salary decisions, "
                    f"see Section {n} of the other manual.\n2. {g.upper()}MARK Providers shall review audit logs.")
            units.append(unit(f"{g}-u{n}", text, doc_id=f"{g}-doc", kind="section",
                              parts=[("1", text.split("\n")[0]), ("2", text.split("\n")[1])]))
    refs = [ref(u, "see Section", {"red": "blue", "blue": "red", "pub": "red"}[u.unit_id.split("-")[0]]
                + "-" + u.unit_id.split("-")[1]) for u in units]
    return ParsedCorpus(documents=docs, units=units, references=refs)


@pytest.fixture(params=["sqlite", "elasticsearch"])
def raw(request, tmp_path):
    """The corpus in the embedded store and in the Elasticsearch store (over the in-process fake
    node of tests/stores/fake_es.py): the scoped reads must hold on both."""
    if request.param == "sqlite":
        store = SQLiteStore(tmp_path / "a.db")
    else:
        pytest.importorskip("elasticsearch")
        from anchor_core.stores.elastic import ElasticStore
        from tests.stores.fake_es import FakeCluster

        store = ElasticStore(FakeCluster().client(), url="http://fake-es:9200", replicas=0)
    ingest(store, HashEmbedder(), _corpus(), corpus="c", adapter="test")
    return store


def _no_blue(obj) -> None:
    text = obj if isinstance(obj, str) else repr(obj)
    assert "BLUEMARK" not in text and "blue-u" not in text and "blue-doc" not in text, text[:400]


QUESTIONS = ["audit logs salary decisions", "providers review audit logs", "high-risk AI systems section"]


def test_a_blue_document_never_reaches_a_red_viewer_through_search_or_hops(raw):
    red = ScopedStore(raw, RED)
    for q in QUESTIONS:
        for hops in (0, 1, 2, 3):
            for mode in ("hybrid", "bm25", "dense"):
                # the caller forgets the groups (None would be unrestricted): the scoped store still filters
                s = RetrievalSettings(k=8, hops=hops, mode=mode, groups=None)
                result = retrieve(q, store=red, embedder=HashEmbedder(), corpus="c", settings=s)
                assert result.hits
                assert {h.doc_id for h in result.hits} <= {"red-doc", "pub-doc"}
                _no_blue(result)
    # the same retrieval on the raw store does cross into blue over the references: the filter is what stops it
    s = RetrievalSettings(k=8, hops=1, groups=None)
    assert any(h.doc_id == "blue-doc" for q in QUESTIONS
               for h in retrieve(q, store=raw, embedder=HashEmbedder(), corpus="c", settings=s).hits)


def test_a_blue_document_never_reaches_a_red_viewer_through_ask_reports_and_exports(raw, tmp_path):
    red = ScopedStore(raw, RED)
    rs = ReportStore(tmp_path / "reports.db")
    report = ask(QUESTIONS[0], store=red, embedder=HashEmbedder(), corpus="c",
                 settings=AskSettings(k=6, hops=2, groups=None, writer="extractive", scorer="lexical"),
                 scorer=make_scorer("lexical"))
    _no_blue(report.model_dump_json())
    mine = access.save_run(rs, RED, report)
    for fmt in ("markdown", "json", "html"):
        _no_blue(render.export(access.open_run(rs, RED, mine.id), fmt).decode())
    # a blue viewer's run (which quotes blue text) is neither listed nor opened for red
    blue_report = ask(QUESTIONS[0], store=ScopedStore(raw, BLUE), embedder=HashEmbedder(), corpus="c",
                      settings=AskSettings(k=6, hops=1, writer="extractive", scorer="lexical"),
                      scorer=make_scorer("lexical"))
    assert "BLUEMARK" in blue_report.model_dump_json()
    theirs = access.save_run(rs, BLUE, blue_report)
    legacy = rs.save(blue_report)  # saved without an access context (before this version)
    listed = {s.id for s in access.visible_runs(rs, RED, rs.list())}
    assert listed == {mine.id}
    for run_id in (theirs.id, legacy.id):
        with pytest.raises(RunNotFound):
            access.open_run(rs, RED, run_id)
    assert {s.id for s in access.visible_runs(rs, LOCAL, rs.list())} == {mine.id, theirs.id, legacy.id}
    # an imported export becomes the importer's: red imports blue's export only to see it as its own groups
    export = render.read_export(render.export(rs.get(mine.id), "json"), name="x.json")
    with pytest.raises(AccessDenied, match="sign in first"):
        access.import_run(rs, NOBODY, export)
    imported = access.import_run(rs, oidc([]), export)
    assert rs.access([imported.id]) == {imported.id: []}
    rs.delete(imported.id)
    assert rs.access([imported.id]) == {}


def test_a_blue_document_never_reaches_a_red_viewer_through_reads_by_id(raw):
    red = ScopedStore(raw, RED)
    every_unit = raw.unit_ids("c")
    assert any(u.startswith("blue") for u in every_unit)
    _no_blue(red.unit_ids("c"))
    _no_blue(red.get_units("c", every_unit))                                     # the unit reader
    _no_blue(red.documents("c"))                                                 # the Corpora page's list
    _no_blue(red.references_from("c", every_unit) + red.references_to("c", every_unit))
    _no_blue([(r.src_unit, r.dst_unit) for r in red.references("c")])
    chunk_ids = [c.chunk_id for cs in raw.units_chunks("c", every_unit, Filters()).values() for c in cs]
    _no_blue(red.get_chunks("c", chunk_ids))
    # (units_chunks answers every id asked, with no chunks for a hidden unit, as the contract says)
    _no_blue([c for cs in red.units_chunks("c", every_unit, Filters()).values() for c in cs])
    vecs = red.chunk_vectors("c", chunk_ids)
    blue_rows = [i for i, cid in enumerate(chunk_ids) if cid.startswith("blue")]
    assert blue_rows and not np.any(vecs[blue_rows]) and np.any(vecs)
    _no_blue(workspace.corpus_graph(red, "c", include_isolated=True))            # the reference network
    assert workspace.corpus_groups(red, "c") == ["red"]
    info, full = red.corpus("c"), raw.corpus("c")
    assert (info.documents, info.units, info.chunks) == (2, 4, full.chunks * 2 // 3)
    # red→blue and blue→red references are hidden; public→red ones stay (red's own count as well)
    assert (info.references, full.references) == (2, 6)
    # the Verify page's corpus sources
    assert set(workspace.unit_sources(red, "c", ["red-u0", "pub-u1"])) == {"red-u0", "pub-u1"}
    with pytest.raises(AnchorError, match="has no units blue-u0"):
        workspace.unit_sources(red, "c", ["red-u0", "blue-u0"])
    # the verify run itself sees only what it was given
    report = verify_answer("Providers shall review audit logs.", workspace.unit_sources(red, "c", ["red-u0"]),
                           scorer=make_scorer("lexical"))
    _no_blue(report.model_dump_json())


def test_default_deny_public_documents_only(raw):
    for viewer in (NOBODY, oidc([]), access.viewer_from_headers([("X-Forwarded-User", "eve")], AUTH)):
        store = ScopedStore(raw, viewer)
        assert {d.doc_id for d in store.documents("c")} == {"pub-doc"}
        hits = retrieve(QUESTIONS[0], store=store, embedder=HashEmbedder(), corpus="c",
                        settings=RetrievalSettings(k=8, hops=3)).hits
        assert hits and {h.doc_id for h in hits} == {"pub-doc"}
        assert "REDMARK" not in repr(hits) and "BLUEMARK" not in repr(hits)


def test_es_unit_records_carry_their_documents_groups_for_document_level_security():
    from anchor_core.models import CorpusInfo
    from anchor_core.stores import elastic_bodies as B

    parsed = _corpus()
    acts = list(B.bulk_actions("i", CorpusInfo(name="c", adapter="t", version="1"), parsed.documents,
                               parsed.units, [], np.zeros((0, 4), np.float32), []))
    units = {a["_source"]["unit_id"]: a["_source"] for a in acts if a["_source"]["type"] == "unit"}
    assert (units["blue-u0"]["groups"], units["blue-u0"]["public"]) == (["blue"], False)
    assert (units["pub-u0"]["groups"], units["pub-u0"]["public"]) == ([], True)


def test_a_corpus_without_a_visible_document_does_not_exist_for_the_viewer(tmp_path):
    store = SQLiteStore(tmp_path / "s.db")
    parsed = ParsedCorpus(documents=[Document(doc_id="d", groups=["blue"])],
                          units=[unit("u", "BLUEMARK secret text.", doc_id="d")])
    ingest(store, HashEmbedder(), parsed, corpus="secret", adapter="test")
    red = ScopedStore(store, RED)
    assert red.corpora() == []
    with pytest.raises(CorpusNotFound, match="no corpus 'secret' with documents you may read"):
        red.corpus("secret")
    assert [c.name for c in ScopedStore(store, BLUE).corpora()] == ["secret"]


def test_only_admins_and_the_local_operator_may_ingest_upload_or_delete(raw):
    for viewer in (RED, NOBODY, oidc(["anchor-admins-not"])):
        store = ScopedStore(raw, viewer)
        with pytest.raises(AccessDenied, match="admin role"):
            ingest(store, HashEmbedder(), _corpus(), corpus="c2", adapter="test")
        with pytest.raises(AccessDenied):
            workspace.upload_files(store, HashEmbedder(), [("a.md", b"# A\n\nText.")], corpus="c")
        with pytest.raises(AccessDenied):
            workspace.delete_document(store, "c", "pub-doc")
        with pytest.raises(AccessDenied):
            store.delete_corpus("c")
    assert {d.doc_id for d in raw.documents("c")} == {"red-doc", "blue-doc", "pub-doc"}  # nothing changed
    workspace.delete_document(ScopedStore(raw, ADMIN), "c", "pub-doc")
    ingest(ScopedStore(raw, LOCAL), HashEmbedder(), _corpus(), corpus="c2", adapter="test")
    assert {c.name for c in raw.corpora()} == {"c", "c2"}


def test_anchor_dashboard_local_sets_the_mode_for_the_dashboard_process(monkeypatch, capsys):
    from anchor_core import cli
    from anchor_core.cli import main
    from tests.conftest import REPO

    seen = {}
    monkeypatch.delenv("ANCHOR_AUTH")
    monkeypatch.setattr(cli, "app_script", lambda: REPO / "app" / "main.py")
    monkeypatch.setattr(cli, "run_forwarding", lambda cmd, env: seen.update(env=env) or 0)
    assert main(["dashboard", "--local", "--no-browser"]) == 0
    assert seen["env"]["ANCHOR_AUTH"] == "local" and "local single-user mode" in capsys.readouterr().err
    assert main(["dashboard", "--no-browser"]) == 0
    assert "ANCHOR_AUTH" not in seen["env"]
    assert "visitors who are not signed in see public documents only" in capsys.readouterr().err
    assert main(["dashboard", "--local", "--host", "0.0.0.0", "--no-browser"]) == 0
    assert "anyone who reaches this port sees every document" in capsys.readouterr().err


class TestScopedStoreForTheLocalOperator(StoreContract):
    """The local operator's scoped store is the store: it passes the whole store contract."""

    @pytest.fixture
    def store_factory(self, tmp_path):
        return lambda: ScopedStore(SQLiteStore(tmp_path / "ws" / "anchor.db"), LOCAL)

    @pytest.fixture
    def store(self, store_factory):
        return store_factory()
