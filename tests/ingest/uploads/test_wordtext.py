"""A Word document under negotiation is read as Word shows it with its changes accepted: tracked insertions kept,
deletions left out, content controls and inline wrappers read, and the upload says there were tracked changes."""

from __future__ import annotations

import io

import pytest

from ingest.uploads.extract import extract_docx

docx = pytest.importorskip("docx")
from docx.oxml import parse_xml  # noqa: E402
from docx.oxml.ns import nsdecls  # noqa: E402

W = nsdecls("w")


def _save(d) -> bytes:
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def _body_insert(d, xml: str) -> None:
    body = d.element.body
    body.insert(len(body) - 1, parse_xml(xml))  # before the section properties, which close the body


def test_tracked_insertions_are_kept_and_deletions_left_out():
    d = docx.Document()
    p = d.add_paragraph("The Supplier shall pay ")
    p._p.append(parse_xml(f'<w:ins {W} w:id="1" w:author="Counsel"><w:r><w:t xml:space="preserve">within 30 days '
                          f'</w:t></w:r></w:ins>'))
    p._p.append(parse_xml(f'<w:del {W} w:id="2" w:author="Counsel"><w:r><w:delText>promptly </w:delText></w:r>'
                          f'</w:del>'))
    p.add_run("after receipt of an invoice.")
    moved = d.add_paragraph("Notices ")
    moved._p.append(parse_xml(f'<w:moveFrom {W} w:id="3" w:author="Counsel"><w:r><w:t>by fax </w:t></w:r>'
                              f'</w:moveFrom>'))
    moved.add_run("are given in writing.")
    ex = extract_docx(_save(d))
    assert ex.text.splitlines() == ["The Supplier shall pay within 30 days after receipt of an invoice.",
                                    "Notices are given in writing."]
    assert ex.warnings == ["the document holds 3 tracked changes: its text was read with them accepted (insertions "
                           "kept, deletions left out), as Word's 'No Markup' view shows it; accept or reject them in "
                           "Word and upload again to store another reading"]


def test_content_controls_and_inline_wrappers_are_read():
    d = docx.Document()
    d.add_paragraph("1. Parties")
    _body_insert(d, f'<w:sdt {W}><w:sdtPr/><w:sdtContent><w:p><w:r><w:t>Governing law: England and Wales.</w:t>'
                    f'</w:r></w:p></w:sdtContent></w:sdt>')
    p = d.add_paragraph("See ")
    p._p.append(parse_xml(f'<w:smartTag {W} w:uri="urn:x" w:element="ref"><w:r><w:t>clause 4</w:t></w:r>'
                          f'</w:smartTag>'))
    p._p.append(parse_xml(f'<w:sdt {W}><w:sdtContent><w:r><w:t xml:space="preserve"> of the Agreement</w:t></w:r>'
                          f'</w:sdtContent></w:sdt>'))
    p.add_run(".")
    ex = extract_docx(_save(d))
    assert ex.text.splitlines() == ["1. Parties", "Governing law: England and Wales.", "See clause 4 of the Agreement."]
    assert ex.warnings == []


def test_table_rows_deleted_with_tracked_changes_are_left_out_and_cells_keep_insertions():
    d = docx.Document()
    t = d.add_table(rows=3, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "Service", "Fee (USD)"
    t.cell(1, 0).text, t.cell(1, 1).text = "Registration", "1,500"
    t.cell(2, 0).text, t.cell(2, 1).text = "Renewal", "900"
    t.rows[2]._tr.get_or_add_trPr().append(parse_xml(f'<w:del {W} w:id="9" w:author="Counsel"/>'))
    t.cell(1, 0).paragraphs[0]._p.append(parse_xml(
        f'<w:ins {W} w:id="8" w:author="Counsel"><w:r><w:t xml:space="preserve"> of a company</w:t></w:r></w:ins>'))
    ex = extract_docx(_save(d))
    assert ex.text.splitlines() == ["Service | Fee (USD)", "Registration of a company | 1,500"]
    assert "2 tracked changes" in ex.warnings[0]


def _with_notes(d, kind: str, notes: dict[str, str], settings: str = "") -> None:
    """Give ``d`` a notes part (``kind`` "footnote" or "endnote") holding Word's two separators and ``notes``."""
    from docx.opc.constants import CONTENT_TYPE as CT
    from docx.opc.constants import RELATIONSHIP_TYPE as RT
    from docx.opc.packuri import PackURI
    from docx.opc.part import Part

    body = "".join(f'<w:{kind} w:id="{i}"><w:p><w:r><w:{kind}Ref/></w:r><w:r><w:t xml:space="preserve"> {t}</w:t>'
                   f'</w:r></w:p></w:{kind}>' for i, t in notes.items())
    xml = (f'<w:{kind}s {W}><w:{kind} w:type="separator" w:id="-1"><w:p><w:r><w:separator/></w:r></w:p></w:{kind}>'
           f'<w:{kind} w:type="continuationSeparator" w:id="0"><w:p><w:r><w:continuationSeparator/></w:r></w:p>'
           f'</w:{kind}>{body}</w:{kind}s>')
    ct, rt = (CT.WML_FOOTNOTES, RT.FOOTNOTES) if kind == "footnote" else (CT.WML_ENDNOTES, RT.ENDNOTES)
    part = Part(PackURI(f"/word/{kind}s.xml"), ct, xml.encode(), d.part.package)
    d.part.relate_to(part, rt)
    if settings:
        d.settings.element.append(parse_xml(settings))


def _ref(p, kind: str, note_id: str, custom: str = "") -> None:
    attr = ' w:customMarkFollows="1"' if custom else ""
    p._p.append(parse_xml(f'<w:r {W}><w:{kind}Reference w:id="{note_id}"{attr}/></w:r>'))
    if custom:
        p._p.append(parse_xml(f'<w:r {W}><w:t>{custom}</w:t></w:r>'))


def test_footnotes_are_stored_after_the_paragraph_that_refers_to_them_with_word_s_numbers():
    d = docx.Document()
    _with_notes(d, "footnote", {"7": "Public holidays are not Business Days.", "8": "See the Bank's notice.",
                                "9": "Calendar days.", "10": "Reviewed yearly."})
    p = d.add_paragraph("1.1 Business Day means a weekday.")
    _ref(p, "footnote", "7")
    d.add_paragraph("1.2 The Bank publishes its rates.")
    p = d.add_paragraph("2.1 The Customer shall pay within 30 days.")
    _ref(p, "footnote", "9", custom="*")  # a custom mark takes no number: the next automatic mark is still 2
    _ref(p, "footnote", "8")
    gone = d.add_paragraph("2.2 Fees are fixed.")
    gone._p.append(parse_xml(f'<w:del {W} w:id="3" w:author="Counsel"><w:r><w:footnoteReference w:id="10"/></w:r>'
                             f'</w:del>'))
    ex = extract_docx(_save(d))
    assert ex.text.splitlines() == ["1.1 Business Day means a weekday.",
                                    "Footnote 1: Public holidays are not Business Days.",
                                    "1.2 The Bank publishes its rates.",
                                    "2.1 The Customer shall pay within 30 days.*",
                                    "Footnote *: Calendar days.",
                                    "Footnote 2: See the Bank's notice.",
                                    "2.2 Fees are fixed."]
    assert any("3 footnotes" in w and "after the paragraph" in w for w in ex.warnings)


def test_endnotes_count_in_the_document_s_own_format_and_table_rows_bring_their_notes():
    d = docx.Document()
    _with_notes(d, "endnote", {"2": "Excluding VAT.", "3": "Per filing."},
                settings=f'<w:endnotePr {W}><w:numFmt w:val="upperLetter"/><w:numStart w:val="1"/></w:endnotePr>')
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "Service", "Fee (USD)"
    t.cell(1, 0).text, t.cell(1, 1).text = "Registration", "1,500"
    _ref(t.cell(1, 1).paragraphs[0], "endnote", "2")
    p = d.add_paragraph("Late filings cost more.")
    _ref(p, "endnote", "3")
    ex = extract_docx(_save(d))
    assert ex.text.splitlines() == ["Service | Fee (USD)", "Registration | 1,500", "Endnote A: Excluding VAT.",
                                    "Late filings cost more.", "Endnote B: Per filing."]
    assert any("2 endnotes" in w for w in ex.warnings)


def test_a_reference_to_a_note_the_document_does_not_hold_adds_nothing():
    d = docx.Document()
    p = d.add_paragraph("The Supplier shall deliver on time.")
    _ref(p, "footnote", "4")  # no footnotes part at all
    ex = extract_docx(_save(d))
    assert ex.text.splitlines() == ["The Supplier shall deliver on time."]
    assert ex.warnings == []


def test_text_boxes_are_read_once_after_the_paragraph_they_are_anchored_to():
    d = docx.Document()
    mc = 'xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006"'
    v = 'xmlns:v="urn:schemas-microsoft-com:vml"'
    box = ('<w:txbxContent><w:p><w:r><w:t>Important: fees rise on 1 January.</w:t></w:r></w:p>'
           '<w:p><w:r><w:t>Ask your adviser.</w:t></w:r></w:p></w:txbxContent>')
    p = d.add_paragraph("Fees are set out below.")
    # Word writes a box twice: as DrawingML (the choice) and as VML (the fallback for older readers)
    p._p.append(parse_xml(f'<w:r {W} {mc} {v}><mc:AlternateContent><mc:Choice Requires="wps"><w:drawing>'
                          f'<w:anchor>{box}</w:anchor></w:drawing></mc:Choice><mc:Fallback><w:pict><v:shape>'
                          f'<v:textbox>{box}</v:textbox></v:shape></w:pict></mc:Fallback></mc:AlternateContent>'
                          f'</w:r>'))
    anchor_only = d.add_paragraph()
    anchor_only._p.append(parse_xml(f'<w:r {W} {v}><w:pict><v:shape><v:textbox><w:txbxContent><w:p><w:r>'
                                    f'<w:t>Sidebar note.</w:t></w:r></w:p></w:txbxContent></v:textbox></v:shape>'
                                    f'</w:pict></w:r>'))
    d.add_paragraph("The end.")
    ex = extract_docx(_save(d))
    assert ex.text.splitlines() == ["Fees are set out below.", "Important: fees rise on 1 January.",
                                    "Ask your adviser.", "Sidebar note.", "The end."]
    assert any("3 paragraphs of text boxes" in w for w in ex.warnings)
