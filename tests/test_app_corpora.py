"""Dashboard Corpora page: upload with per-file results, corpora table, delete with confirmation, graph."""

from __future__ import annotations

import re

import pytest
from fpdf import FPDF

from tests import app_support as A

PAGE = "views/corpora.py"


def policy_pdf() -> bytes:
    """A two-page PDF with numbered clauses and a cross-reference."""
    pdf = FPDF()
    pdf.set_font("helvetica", size=11)
    pages = [["Travel Policy", "1. Scope", "This policy applies to all employees who travel for work.",
              "2. Booking", "Employees shall book flights through the travel desk. See clause 3."],
             ["3. Expenses", "Hotel costs are reimbursed up to 150 euros per night.",
              "4. Approval", "Trips abroad need the approval of a director before booking."]]
    for lines in pages:
        pdf.add_page()
        for line in lines:
            pdf.multi_cell(0, 7, line, new_x="LMARGIN", new_y="NEXT")
    return bytes(pdf.output())


def upload(at, files, corpus="policies", existing=False, groups=()):
    at.file_uploader(key="up_files").set_value(files)
    at.run()
    if existing:
        at.radio(key="up_into").set_value("existing corpus").run()
        at.selectbox(key="up_existing").set_value(corpus)
    else:
        at.text_input(key="up_new_name").input(corpus)
    if groups:
        at.multiselect(key="up_groups").set_value(list(groups))
    A.button(at, "Ingest").click()
    at.run()
    return A.wait_for_job(at)


def test_upload_a_pdf_lists_the_corpus_with_per_file_results(small_corpus):
    A.ingest_parsed(small_corpus)
    at = A.app(PAGE)
    A.no_traceback(at)
    upload(at, [("travel-policy.pdf", policy_pdf(), "application/pdf")], groups=["hr"])
    A.no_traceback(at)
    assert not at.error, [e.value for e in at.error]
    assert any("1 of 1 file stored" in s.value for s in at.success)
    results = A.table_with(at, "notes")
    assert list(results["status"]) == ["ingested"] and results["pages"][0] == 2
    tables = A.tables(at)
    corpora = next(t for t in tables if "corpus" in t.columns)
    assert set(corpora["corpus"]) == {"widgets", "policies"}
    store = A.store()
    assert store.corpus("policies").documents == 1
    assert store.documents("policies")[0].groups == ["hr"]
    # the uploaded text is askable: chunks carry page provenance
    units = store.get_units("policies", store.unit_ids("policies"))
    assert any("150 euros" in u.text for u in units.values())


def test_corrupt_upload_is_a_failed_row_and_the_good_file_still_lands():
    A.ingest_aiact()
    at = A.app(PAGE)
    upload(at, [("broken.pdf", b"%PDF-1.7\n garbage \x00\x01 not a pdf", "application/pdf"),
                ("notes.md", b"# Notes\n\n## 1. Retention\n\nRecords are kept for ten years.\n", "text/markdown")],
           corpus="mixed")
    A.no_traceback(at)
    results = A.table_with(at, "notes")
    assert list(results["status"]) == ["failed", "ingested"]
    assert results["notes"][0]  # the reason is shown
    assert any("1 of 2 files stored" in w.value for w in at.warning)
    assert A.store().corpus("mixed").documents == 1


def test_bad_and_taken_corpus_names_are_messages():
    A.ingest_aiact()
    at = A.app(PAGE)
    upload(at, [("a.md", b"# A\n\nSome text here about things.\n", "text/markdown")], corpus="bad name!")
    A.no_traceback(at)
    assert "not usable" in at.error[0].value
    upload(at, [("a.md", b"# A\n\nSome text here about things.\n", "text/markdown")], corpus="aiact")
    assert "already exists" in at.error[0].value


def test_delete_document_needs_confirmation_and_cancel_keeps_it(small_corpus):
    store = A.ingest_parsed(small_corpus)
    at = A.app(PAGE)
    upload(at, [("notes.md", b"# Notes\n\n## 1. Retention\n\nRecords are kept for ten years.\n", "text/markdown")],
           corpus="widgets", existing=True)
    assert store.corpus("widgets").documents == 2
    at.selectbox(key="cp_corpus").set_value("widgets").run()
    doc = next(d.doc_id for d in store.documents("widgets") if d.doc_id != "doc")
    at.selectbox(key="cp_doc").set_value(doc).run()
    A.button(at, "Delete document…").click().run()
    assert any(doc in w.value for w in at.warning)
    A.button(at, "Cancel").click().run()
    assert store.corpus("widgets").documents == 2
    at.selectbox(key="cp_doc").set_value(doc).run()
    A.button(at, "Delete document…").click().run()
    A.button(at, "Yes, delete").click().run()
    A.no_traceback(at)
    assert [d.doc_id for d in store.documents("widgets")] == ["doc"]
    assert store.corpus("widgets").documents == 1
    # the remaining corpus still answers and keeps its references
    assert any(r.resolved for r in store.references("widgets"))


def test_delete_corpus_with_confirmation_shows_the_empty_state(small_corpus):
    store = A.ingest_parsed(small_corpus)
    at = A.app(PAGE)
    A.button(at, "Delete corpus widgets…").click().run()
    A.button(at, "Yes, delete").click().run()
    A.no_traceback(at)
    assert store.corpora() == []
    assert "No corpus yet — upload one" in A.texts(at)


def _figure(at) -> dict:
    import json

    charts = at.get("plotly_chart")
    assert charts, "no Plotly chart"
    return json.loads(charts[0].proto.spec)


def test_reference_network_is_drawn_and_a_unit_can_be_read(small_corpus):
    A.ingest_parsed(small_corpus)
    at = A.app(PAGE)
    A.no_traceback(at)
    assert at.selectbox(key="cp_unit").value == "annex-1"  # the most cited unit first
    fig = _figure(at)
    # around Annex I: Article 2 cites it: both labelled, one arrow from Article 2 to Annex I
    ids = {c for tr in fig["data"] for c in (tr.get("customdata") or [])}
    assert ids == {"article-2", "annex-1"}
    assert {t for tr in fig["data"] for t in (tr.get("text") or [])} == {"Article 2", "Annex I"}
    arrows = [a for a in fig["layout"]["annotations"] if a.get("showarrow")]
    assert len(arrows) == 1 and arrows[0]["ax"] < arrows[0]["x"]  # from the citing unit (left) to the cited
    assert {tr["name"] for tr in fig["data"]} == {"Article", "Annex"}
    page = A.texts(at)
    assert "Red widgets used for recruitment of staff." in page
    assert "Cited by 1 unit: Article 2" in page and "Names outside this corpus (not linked): Blue" in page
    at.selectbox(key="cp_unit").set_value("article-2").run()
    assert "Cites 1 other unit: Annex I" in A.texts(at)
    hover = [h for tr in _figure(at)["data"] for h in (tr.get("hovertext") or []) if "Article 2" in h]
    assert "cites 1 other unit · cited by 0" in hover[0]  # the graph counts as the reader lists
    at.radio(key="cp_scope").set_value("the whole corpus").run()
    A.no_traceback(at)
    assert {"article-2", "annex-1"} <= {c for tr in _figure(at)["data"] for c in (tr.get("customdata") or [])}


def test_kinds_are_named_as_the_document_names_them(small_corpus):
    sys_path = str(A.APP.parent)
    import sys

    sys.path.insert(0, sys_path)
    try:
        from graph import kind_names
    finally:
        sys.path.remove(sys_path)
    for u in small_corpus.units:
        if u.kind == "annex":
            u.heading = "Schedule 1"
    assert kind_names(small_corpus.units) == {"article": "Article", "annex": "Schedule"}


@pytest.mark.parametrize("corpus", ["aiact"])
def test_corpora_table_shows_counts_and_backend(corpus):
    A.ingest_aiact()
    at = A.app(PAGE)
    table = A.table_with(at, "corpus")
    row = table[table["corpus"] == corpus].iloc[0]
    assert row["contents"] == "1 document, 306 units, 959 passages"
    assert any(c.value.startswith("Stored in SQLite") for c in at.caption)


def test_dropped_files_show_what_embedding_them_will_cost_and_warn_when_long(monkeypatch):
    from ingest.uploads import estimate as E

    at = A.app(PAGE)
    at.file_uploader(key="up_files").set_value([("notes.md", b"# Notes\n\nShort text.\n", "text/markdown")])
    at.run()
    A.no_traceback(at)
    assert any(re.fullmatch(r"1 chunk or so to embed, about 1 s\.", c.value) for c in at.caption)  # one: no plural
    assert not [w for w in at.warning if w.icon == ":material/schedule:"]
    monkeypatch.setattr(E, "WARN_SECONDS", 0.0)
    at.run()
    [warning] = [w.value for w in at.warning if w.icon == ":material/schedule:"]
    assert warning.startswith("A long upload: notes.md: 0.0 kB, about 1 chunk, about 1 s with hash")
    assert "resumes where it stopped" in warning


def test_the_network_shows_a_units_chapter_and_links_through_a_chapter_apart():
    from tests.conftest import ref, unit
    from tests.stores.contract import chaptered_corpus

    parsed = chaptered_corpus()
    index = unit("article-10", "Articles 5, 6 and 9 are listed here.")
    parsed.units.append(index)
    parsed.references += [ref(index, "Articles 5, 6 and 9", f"article-{n}") for n in (5, 6, 9)]
    A.ingest_parsed(parsed, corpus="acts")
    at = A.app(PAGE)
    at.selectbox(key="cp_corpus").set_value("acts").run()
    at.selectbox(key="cp_unit").set_value("article-5").run()
    A.no_traceback(at)
    fig = _figure(at)
    by_name = {tr.get("name"): tr for tr in fig["data"]}
    # the chapter sits above the unit, named with its title, as a square node
    chapter = by_name["chapter / section"]
    assert chapter["text"] == ["Chapter II — Prohibited practices"] and chapter["marker"]["symbol"] == "square"
    assert chapter["y"][0] > 0
    # Article 9 names "Chapter II", not Article 5: its arrow is orange and a dotted line runs under it
    assert by_name["through a chapter or section"]["line"]["dash"] == "dot"
    arrows = [a for a in fig["layout"]["annotations"] if a.get("showarrow")]
    assert sorted(a["arrowcolor"] for a in arrows) == ["#7b8494", "#e67e22"]  # Article 10 names it
    assert any("sits in Chapter II — Prohibited practices" in c.value for c in at.caption)
    at.radio(key="cp_scope").set_value("the whole corpus").run()
    A.no_traceback(at)
    through = [tr for tr in _figure(at)["data"] if tr.get("name") == "through a chapter or section"]
    assert through and through[0]["visible"] == "legendonly"
    assert len([x for x in through[0]["x"] if x is None]) == 2  # Article 9 to Article 5 and to Article 6
