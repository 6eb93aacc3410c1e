"""Word's automatic numbering rebuilt on upload: the clause numbers Word draws but does not store reach the text,
so a clause is found by its number and "clause 2.2" in the text resolves."""

from __future__ import annotations

import io

import pytest

from anchor_core.stores.sqlite import SQLiteStore
from ingest.uploads import ingest_uploads
from ingest.uploads.extract import extract_docx
from ingest.uploads.wordnum import format_number

docx = pytest.importorskip("docx")
from docx.oxml import parse_xml  # noqa: E402
from docx.oxml.ns import nsdecls  # noqa: E402


def _define(d, abstract_id: int, levels: list[tuple[str, str]], *, legal_level: int | None = None,
            nums: tuple[tuple[int, dict[int, int]], ...] = ()) -> None:
    """Add a list definition (``levels``: (format, label template) per level) and its instances to ``d``."""
    numbering = d.part.numbering_part.element
    lvls = "".join(
        f'<w:lvl w:ilvl="{i}"><w:start w:val="1"/><w:numFmt w:val="{fmt}"/>'
        f'{"<w:isLgl/>" if legal_level == i else ""}<w:lvlText w:val="{text}"/></w:lvl>'
        for i, (fmt, text) in enumerate(levels))
    numbering.insert(0, parse_xml(f'<w:abstractNum {nsdecls("w")} w:abstractNumId="{abstract_id}">{lvls}'
                                  f'</w:abstractNum>'))
    for num_id, starts in nums or ((abstract_id, {}),):
        overrides = "".join(f'<w:lvlOverride w:ilvl="{lv}"><w:startOverride w:val="{v}"/></w:lvlOverride>'
                            for lv, v in starts.items())
        numbering.append(parse_xml(f'<w:num {nsdecls("w")} w:numId="{num_id}"><w:abstractNumId '
                                   f'w:val="{abstract_id}"/>{overrides}</w:num>'))


def _para(d, text: str, num_id: int, level: int, style: str | None = None):
    p = d.add_paragraph(text, style=style)
    p._p.get_or_add_pPr().append(parse_xml(
        f'<w:numPr {nsdecls("w")}><w:ilvl w:val="{level}"/><w:numId w:val="{num_id}"/></w:numPr>'))
    return p


def _save(d) -> bytes:
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def contract_docx() -> bytes:
    """A services agreement as Word writes one: headings and clauses numbered by one multilevel list."""
    d = docx.Document()
    d.core_properties.title = "Master Services Agreement"
    _define(d, 90, [("decimal", "%1."), ("decimal", "%1.%2"), ("lowerLetter", "(%3)")])
    d.add_paragraph("MASTER SERVICES AGREEMENT", style="Title")
    _para(d, "Definitions", 90, 0, "Heading 1")
    _para(d, "“Services” means the services described in the order form.", 90, 1)
    _para(d, "“Fees” means the fees set out in clause 3.2.", 90, 1)
    _para(d, "Services", 90, 0, "Heading 1")
    _para(d, "The Supplier shall provide the Services with reasonable skill and care.", 90, 1)
    _para(d, "The Supplier shall:", 90, 1)
    _para(d, "appoint a named account manager;", 90, 2)
    _para(d, "report on service levels every month; and", 90, 2)
    _para(d, "notify the Customer of any incident within 24 hours.", 90, 2)
    _para(d, "Fees and payment", 90, 0, "Heading 1")
    _para(d, "The Customer shall pay each invoice within 30 days of receipt.", 90, 1)
    _para(d, "The Fees are fixed for 12 months; clause 2.2 applies to any change of the Services.", 90, 1)
    return _save(d)


def test_a_word_contract_keeps_the_numbers_word_draws():
    ex = extract_docx(contract_docx())
    lines = ex.text.splitlines()
    assert lines[1:5] == ["1. Definitions", "1.1 “Services” means the services described in the order form.",
                          "1.2 “Fees” means the fees set out in clause 3.2.", "2. Services"]
    assert lines[6:10] == ["2.2 The Supplier shall:", "(a) appoint a named account manager;",
                           "(b) report on service levels every month; and",
                           "(c) notify the Customer of any incident within 24 hours."]
    assert lines[10] == "3. Fees and payment"  # a shallower level moving on restarts the deeper counts
    assert lines[11].startswith("3.1 The Customer")
    assert [h.text for h in ex.headings if h.level == 1] == ["1. Definitions", "2. Services", "3. Fees and payment"]
    assert ex.warnings == ["12 paragraphs are numbered by Word's automatic numbering, which is not part of their "
                           "text: their numbers were rebuilt from the document's list definitions and written before "
                           "them (compare a few with the document)"]


def test_uploaded_word_clauses_are_parts_and_their_references_resolve(tmp_path, embedder):
    store = SQLiteStore(tmp_path / "anchor.db")
    [res] = ingest_uploads(store, embedder, [("Master Services Agreement.docx", contract_docx())], corpus="m")
    assert res.ok and res.structure_found, res.error
    doc = "master-services-agreement"
    units = store.get_units("m", store.unit_ids("m", [doc]))
    services = units[f"{doc}/2"]
    assert services.title == "Services"
    assert [p.label for p in services.parts] == ["2.1", "2.2", "2.2(a)", "2.2(b)", "2.2(c)"]
    refs = {(r.src_unit, r.raw): r for r in store.references("m")}
    assert refs[(f"{doc}/3", "clause 2.2")].resolved
    assert refs[(f"{doc}/1", "clause 3.2")].resolved


def test_a_list_style_numbers_its_paragraphs_and_bullets_and_numbering_off_give_none():
    d = docx.Document()  # python-docx's template links "List Number" to a list; the paragraphs carry no numPr
    d.add_paragraph("First step.", style="List Number")
    d.add_paragraph("Second step.", style="List Number")
    _define(d, 91, [("bullet", "•")])
    _para(d, "A bullet point.", 91, 0)
    _para(d, "Numbering switched off.", 0, 0, "List Number")  # numId 0 on the paragraph overrides the style
    assert extract_docx(_save(d)).text.splitlines() == [
        "1. First step.", "2. Second step.", "A bullet point.", "Numbering switched off."]


def test_instances_of_one_list_continue_it_unless_one_restarts():
    d = docx.Document()
    _define(d, 92, [("upperRoman", "Article %1"), ("decimal", "%1.%2")], legal_level=1,
            nums=((92, {}), (93, {}), (94, {0: 1})))
    _para(d, "Scope.", 92, 0)
    _para(d, "Definitions.", 93, 0)  # another instance of the same list: the count goes on
    _para(d, "Terms are defined here.", 93, 1)  # legal numbering: every level as a decimal
    _para(d, "Annex scope.", 94, 0)  # an instance that restarts at 1
    assert extract_docx(_save(d)).text.splitlines() == [
        "Article I Scope.", "Article II Definitions.", "2.1 Terms are defined here.", "Article I Annex scope."]


def test_a_document_without_numbering_is_read_as_before():
    d = docx.Document()
    d.add_heading("Clause 1 Scope", level=1)
    d.add_paragraph("This policy covers travel.")
    ex = extract_docx(_save(d))
    assert ex.text == "Clause 1 Scope\nThis policy covers travel.\n" and ex.warnings == []


@pytest.mark.parametrize("n, fmt, want", [(1, "decimal", "1"), (26, "lowerLetter", "z"), (28, "upperLetter", "BB"),
                                          (14, "lowerRoman", "xiv"), (2024, "upperRoman", "MMXXIV"),
                                          (3, "ordinal", "3")])
def test_number_formats(n, fmt, want):
    assert format_number(n, fmt) == want


def test_a_numbered_list_under_a_heading_is_the_sections_paragraphs(tmp_path, embedder):
    """Word's "List Number" items under the heading "Rules" are the section's paragraphs rules(1), rules(2), not
    clauses 1 and 2 of the document (which left "Rules" empty)."""
    d = docx.Document()
    d.core_properties.title = "Expenses Policy"
    d.add_heading("Scope", level=1)
    d.add_paragraph("This policy covers travel.")
    d.add_heading("Rules", level=1)
    d.add_paragraph("Book economy class.", style="List Number")
    d.add_paragraph("Keep receipts for six years.", style="List Number")
    d.add_heading("Approval", level=1)
    d.add_paragraph("Managers approve claims.")
    store = SQLiteStore(tmp_path / "anchor.db")
    [res] = ingest_uploads(store, embedder, [("expenses.docx", _save(d))], corpus="p")
    assert res.ok, res.error
    ids = store.unit_ids("p", ["expenses"])
    assert ids == ["expenses/scope", "expenses/rules", "expenses/approval"]
    rules = store.get_units("p", ["expenses/rules"])["expenses/rules"]
    assert [p.label for p in rules.parts] == ["rules(1)", "rules(2)"]
    assert "1. Book economy class." in rules.text
