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
