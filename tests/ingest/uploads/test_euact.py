"""An EU act uploaded as EUR-Lex publishes it (the Official Journal's HTML, laid out in tables) is read as the bundled
acts are: recitals, articles with paragraphs, chapters and sections as containers, annexes, the act's references and
its title; questions over it name its units. A document with "Article N" headings that is no act keeps its numbered
paragraphs inside their article."""

from __future__ import annotations

import pytest

from anchor_core import workspace
from anchor_core.ask import AskSettings, ask
from anchor_core.embeddings import HashEmbedder
from anchor_core.named import named_references, use_adapters
from anchor_core.stores.sqlite import SQLiteStore
from ingest import get_adapter
from ingest.uploads.euact import act_title, is_act, split_act
from ingest.uploads.extract import Extracted, extract, row_line
from ingest.uploads.structure import split


def _point(label: str, text: str, inner: str = "") -> str:
    """A point or recital as the Official Journal lays it out: a label cell and a text cell."""
    return (f'<table width="100%"><col width="4%"/><col width="96%"/><tbody><tr><td valign="top"><p>{label}</p></td>'
            f'<td valign="top"><p>{text}</p>{inner}</td></tr></tbody></table>')


ACT = ("<html><head><title>L_209900001EN.000101.fmx.xml</title></head><body>"
       "<table><tr><td><p>Official Journal<br/>of the European Union</p></td><td><p>EN</p></td></tr></table>"
       "<p>REGULATION (EU) 2099/1 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL</p><p>of 1 January 2099</p>"
       "<p>on the safety of widgets (Widget Safety Act)</p><p>(Text with EEA relevance)</p>"
       "<p>THE EUROPEAN PARLIAMENT AND THE COUNCIL OF THE EUROPEAN UNION,</p><p>Whereas:</p>"
       + _point("(1)", "Widgets should be safe for their users.")
       + _point("(2)", "Providers of widgets should keep records for a reasonable period.")
       + "<p>HAVE ADOPTED THIS REGULATION:</p>"
       "<p>CHAPTER I</p><p>GENERAL PROVISIONS</p><p>Article 1</p><p>Subject matter</p>"
       "<p>1. This Regulation lays down rules for widgets.</p>"
       + _point("2.", "This Regulation applies to:",
                _point("(a)", "providers of widgets;") + _point("(b)", "importers of widgets."))
       + "<p>CHAPTER II</p><p>OBLIGATIONS</p><p>SECTION 1</p><p>Obligations of providers of widgets and others</p>"
       "<p>Article 2</p><p>Records</p>"
       "<p>1. Providers shall keep the records listed in Annex I for 10 years.</p>"
       "<p>2. The records referred to in paragraph 1 shall be kept in an electronic form.</p>"
       "<p>Article 3</p><p>Entry into force and application</p>"
       "<p>This Regulation shall apply from 1 January 2100. Chapters I and II shall apply from 1 July 2100.</p>"
       "<p>Done at Brussels, 1 January 2099.</p><p>For the European Parliament</p><p>The President</p>"
       "<p>ANNEX I</p><p>Records to be kept</p>"
       + _point("1.", "The name of the widget;") + _point("2.", "The date of its manufacture.")
       + "</body></html>").encode()


@pytest.fixture()
def act() -> Extracted:
    return extract("html", ACT)


def test_layout_tables_become_labelled_lines_and_data_tables_rows(act):
    lines = act.text.splitlines()
    assert "(1) Widgets should be safe for their users." in lines
    assert "2. This Regulation applies to:" in lines  # the row's text before the table nested in its cell
    assert "(a) providers of widgets;" in lines and "(b) importers of widgets." in lines
    assert not any(line.strip() in ("|", "") for line in lines)
    assert row_line(["", "(c)", "text"]) == "(c) text" and row_line(["Service", "Fee (USD)"]) == "Service | Fee (USD)"


def test_an_act_is_read_by_its_own_grammar(act):
    assert is_act(act.text)
    st = split_act(act, "widgets")
    assert st is not None and st.title == "Regulation (EU) 2099/1 (Widget Safety Act)"
    units = {u.unit_id: u for u in st.units}
    assert list(units) == ["widgets/recital-1", "widgets/recital-2", "widgets/article-1", "widgets/article-2",
                           "widgets/article-3", "widgets/annex-1"]
    assert units["widgets/recital-2"].kind == "recital"
    a1, a2 = units["widgets/article-1"], units["widgets/article-2"]
    assert a1.title == "Subject matter" and [p.label for p in a1.parts] == ["1", "2"]
    assert "(a) providers of widgets;" in a1.text
    assert [c.display for c in a2.containers] == ["Chapter II — Obligations",
                                                  "Section 1 — Obligations of providers of widgets and others"]
    assert a2.containers[0].id == "widgets/chapter-ii"
    assert a2.meta["ns"] == "body" and a2.meta["key"] == "2" and units["widgets/annex-1"].meta["key"] == "1"
    # the signatures after the last article are not law, and the annex is its own unit
    assert "Done at" not in units["widgets/article-3"].text
    assert units["widgets/annex-1"].title == "Records to be kept"
    assert "The name of the widget" in units["widgets/annex-1"].text
    assert split(act, "widgets", "x").how == st.how == "EU act: 3 articles, 2 recitals, 1 annex, 2 chapters"


def test_a_text_without_the_enacting_formula_is_no_act():
    text = "Whereas:\n(1) Recital.\nArticle 1\nScope\n1. It applies.\nArticle 2\nDates\n1. From 2100.\n"
    assert not is_act(text) and split_act(Extracted(text=text, blocks=True), "d") is None
    assert act_title("Policy on widgets") == ""


@pytest.fixture()
def uploaded(tmp_path):
    store = SQLiteStore(tmp_path / "a.db")
    emb = HashEmbedder()
    res = workspace.upload_files(store, emb, [("widgets.html", ACT)], corpus="acts")
    return store, emb, res


def test_an_uploaded_act_resolves_its_references_with_the_act_grammar(uploaded):
    store, _, res = uploaded
    assert res[0].structure.startswith("EU act: 3 articles")
    assert store.documents("acts")[0].title == "Regulation (EU) 2099/1 (Widget Safety Act)"
    refs = store.references_from("acts", ["widgets/article-2", "widgets/article-3"], unresolved=True)
    got = {(r.src_unit.split("/")[1], r.raw, r.dst_unit, r.dst_part) for r in refs}
    assert ("article-2", "Annex I", "widgets/annex-1", None) in got
    assert ("article-2", "paragraph 1", "widgets/article-2", "1") in got  # its own paragraph, not Article 1
    # "Chapters I and II" reaches every article of both chapters
    assert {r.dst_unit for r in refs if r.raw == "Chapters I and II"} == {"widgets/article-1", "widgets/article-2"}


def test_a_question_names_the_uploaded_act_s_units(uploaded):
    store, emb, _ = uploaded
    use_adapters(get_adapter)
    try:
        named = named_references("What must be kept under Article 2(1) and Annex I?", store=store, corpus="acts")
        assert [(r.dst_unit, r.dst_part, r.resolved) for r in named] == [("widgets/article-2", "1", True),
                                                                         ("widgets/annex-1", None, True)]
        assert [r.dst_unit for r in named_references("What does Chapter I cover?", store=store, corpus="acts")] \
            == ["widgets/article-1"]
        rep = ask("What records does Annex I list?", store=store, embedder=emb, corpus="acts", settings=AskSettings())
        assert any(s.unit_id == "widgets/annex-1" and s.named for s in rep.sources)
    finally:
        use_adapters(None)


def test_articles_of_a_document_that_is_no_act_keep_their_numbered_paragraphs():
    text = ("Articles of Association\nArticle 1\nName\n1. The name of the company is Acme Ltd.\n"
            "2. The registered office is in Abu Dhabi.\nArticle 2\nObjects\n1. The objects are unrestricted.\n"
            "5. The directors may borrow money:\n(a) from banks;\n(b) from shareholders.\nArticle 3\nDirectors\n"
            "The company shall have at least two directors.\n")
    st = split(Extracted(text=text, blocks=True), "d", "Articles of Association")
    units = {u.heading: u for u in st.units}
    assert list(units) == ["Article 1", "Article 2", "Article 3"]
    assert units["Article 1"].title == "Name" and units["Article 3"].title == "Directors"
    assert [p.label for p in units["Article 2"].parts] == ["2(1)", "2(5)", "2(5)(a)", "2(5)(b)"]


def test_the_uploaded_act_eval_skips_cleanly_without_the_shared_corpora(tmp_path, monkeypatch, capsys):
    import eval.uploaded_act as ev

    monkeypatch.setattr(ev, "CORPORA", tmp_path / "no-such-folder")
    assert ev.main(["--workspace", str(tmp_path / "ws")]) == 0
    assert "skipped: no shared corpora" in capsys.readouterr().out
    rows = [{"unanswerable": True, "refused": True, "gold_quoted": False},
            {"unanswerable": False, "refused": False, "gold_quoted": True}]
    assert ev.tally(rows) == ("unanswerable refused 1/1; answerable falsely refused 0/1; answered with a gold unit "
                              "quoted 1")


def test_wrapped_text_keeps_articles_annexes_and_an_article_s_own_paragraph_references(tmp_path):
    # as a PDF's text layer gives it: wrapped lines, a long section title with no full stop before a heading
    text = ("Rules of the Widget Board\nArticle 1\nTasks\n1. The Board shall keep the register referred to in\n"
            "Annex I up to date.\n2. The Board shall publish the register referred to in paragraph 1 every year.\n"
            "SECTION 2\nObligations of the members of the Board and of the persons who assist them at meetings\n"
            "Article 2\nMembers\n1. Members shall serve for four years.\n2. Paragraphs 1 and 3 of Article 1 apply\n"
            "to the members.\nObligations of the members of the Board and of the persons who assist them at all\n"
            "ANNEX I\nThe register\n1. The name of each widget.\n")
    store = SQLiteStore(tmp_path / "a.db")
    workspace.upload_files(store, HashEmbedder(), [("rules.txt", text.encode())], corpus="rules")
    units = store.get_units("rules", store.unit_ids("rules"))
    assert {"rules/article-1", "rules/article-2", "rules/annex-1"} <= set(units)
    assert [p.label for p in units["rules/article-1"].parts] == ["1(1)", "1(2)"]
    refs = store.references_from("rules", list(units), unresolved=True)
    got = {(r.src_unit, r.raw, r.dst_unit, r.dst_part) for r in refs}
    assert ("rules/article-1", "paragraph 1", "rules/article-1", "1(1)") in got  # its own, not Article 1 of another
    assert ("rules/article-1", "Annex I", "rules/annex-1", None) in got


def test_chapters_and_sections_above_articles_are_containers_and_references_reach_their_units(tmp_path):
    text = ("Rules of the Widget Board\nCHAPTER I\nGENERAL PROVISIONS FOR AI WIDGETS\nArticle 1\nScope\n"
            "1. These rules apply to AI widgets.\nCHAPTER II\nOBLIGATIONS\nSECTION 1\nRecords\nArticle 2\nRecords\n"
            "1. Providers shall keep records for 10 years.\nArticle 3\nPublication\n"
            "1. The obligations of this Section and Chapter I apply from 2100.\n")
    st = split(Extracted(text=text), "rules", "Rules of the Widget Board")
    units = {u.heading: u for u in st.units}
    assert list(units) == ["Preamble", "Article 1", "Article 2", "Article 3"]  # no unit for a chapter's heading
    assert [c.display for c in units["Article 1"].containers] == ["Chapter I — General provisions for AI widgets"]
    assert [c.id for c in units["Article 3"].containers] == ["rules/chapter-ii", "rules/chapter-ii-section-1"]
    store = SQLiteStore(tmp_path / "a.db")
    emb = HashEmbedder()
    workspace.upload_files(store, emb, [("rules.txt", text.encode())], corpus="rules")
    refs = store.references_from("rules", ["rules/article-3"], unresolved=True)
    # (the article's own section reaches the other articles of it, not itself)
    assert {(r.raw, r.dst_unit) for r in refs if r.container} == {("this Section", "rules/article-2"),
                                                                  ("Chapter I", "rules/article-1")}
    use_adapters(get_adapter)
    try:
        named = named_references("What does Chapter II require?", store=store, corpus="rules")
        assert [r.dst_unit for r in named] == ["rules/article-2", "rules/article-3"]
    finally:
        use_adapters(None)
    # a document whose body is numbered by sections keeps them as units
    contract = "Services Agreement\nSection 1 Definitions\nTerms are defined here.\nSection 2 Fees\nFees are due.\n"
    assert [u.heading for u in split(Extracted(text=contract), "c", "Services Agreement").units] == [
        "Section 1", "Section 2"]


def test_recitals_of_an_act_read_from_wrapped_text_are_recital_units():
    # an act's PDF goes to the generic splitter: its recitals are units of their own, kind "recital"
    text = ("REGULATION (EU) 2099/1 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL\nWhereas:\n"
            "(1) Widgets should be safe for their users and for the people\naround them.\n"
            "(2) Providers should keep records.\nHAVE ADOPTED THIS REGULATION:\nArticle 1\nScope\n"
            "1. This Regulation applies to widgets.\nArticle 2\nRecords\n1. Providers shall keep records.\n")
    st = split(Extracted(text=text, page_starts=[0]), "w", "Widget Regulation")
    units = {u.unit_id: u for u in st.units}
    assert list(units) == ["w/preamble", "w/recital-1", "w/recital-2", "w/article-1", "w/article-2"]
    assert units["w/recital-1"].kind == "recital" and units["w/recital-1"].heading == "Recital (1)"
    assert "around them." in units["w/recital-1"].text
    assert "2 recitals" in st.how
