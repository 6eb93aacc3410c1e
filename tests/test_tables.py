"""Tables whose column header names the unit of their numbers (a fee schedule, a retention schedule): a row is its own
sentence, is read with the header's unit by the answerability test, the writer and the relevance check, and is quoted
under its header, verbatim."""

from __future__ import annotations

import io

import pytest

from anchor_core import tables, workspace
from anchor_core.ask import AskSettings, ask
from anchor_core.ask.relevance import relevance
from anchor_core.embeddings import HashEmbedder
from anchor_core.segment import sentences
from anchor_core.stores.sqlite import SQLiteStore

FEES_HTML = b"""<html><head><title>Registry Fee Schedule</title></head><body>
<h1>Registry Fee Schedule</h1>
<p>The fees below apply from 1 January 2026. Fees are payable in advance and are not refundable.</p>
<h2>Company fees</h2>
<table>
<tr><th>Service</th><th>Fee (USD)</th></tr>
<tr><td>Incorporation of a private company</td><td>1,500</td></tr>
<tr><td>Annual renewal</td><td>1,200</td></tr>
<tr><td>Change of registered name</td><td>300</td></tr>
</table>
<h2>Late filing</h2>
<p>A late filing penalty of USD 100 applies for each month the annual return is late, up to USD 1,200.</p>
</body></html>"""

RETENTION_MD = b"""# Records Retention Policy

## 1. Purpose

This policy sets how long the company keeps its business records and when they are destroyed.

## 2. Retention schedule

Records are kept for the periods below, counted from the end of the financial year in which they were created.

| Record type | Retention period (years) |
|---|---|
| Payroll records | 6 |
| Employee personnel files | 7 |
| Customer contracts | 10 |

## 3. Disposal

Records past their retention period must be destroyed securely within 30 days.
"""


def travel_docx() -> bytes:
    from docx import Document

    d = Document()
    d.add_heading("Travel Expenses Policy", 0)
    d.add_heading("1. Allowances", 1)
    d.add_paragraph("Employees travelling on company business may claim the daily allowances below.")
    t = d.add_table(rows=1, cols=2)
    t.rows[0].cells[0].text, t.rows[0].cells[1].text = "Destination", "Daily allowance (EUR)"
    for place, amount in (("Domestic", "45"), ("European Union", "80"), ("Rest of world", "120")):
        row = t.add_row()
        row.cells[0].text, row.cells[1].text = place, amount
    d.add_heading("2. Claims", 1)
    d.add_paragraph("Claims must be submitted within 60 days of the end of the trip.")
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


@pytest.mark.parametrize("header, unit", [
    ("Fee (USD)", "USD"), ("Price ($)", "USD"), ("Amount in euros", "EUR"), ("Rate (%)", "%"),
    ("Retention period (years)", "years"), ("Term (year)", "years"), ("Days", "days"),
    ("Notice (business days)", "business days"),
    ("Year", ""), ("Service", ""), ("Deadline", ""),  # a column of calendar years, or of words: no unit
])
def test_a_header_names_its_unit(header, unit):
    assert tables.header_unit(header) == unit


def test_a_bare_number_is_read_with_its_header_unit_and_nothing_else_changes():
    text = ("Company fees\nService | Fee (USD) | Note\nIncorporation | 1,500 | payable once\n"
            "Renewal | 1,200 | yearly\nCopies | USD 10 | per page")
    read = tables.readings(text)
    assert read == {"Incorporation | 1,500 | payable once": "Incorporation | 1,500 USD | payable once",
                    "Renewal | 1,200 | yearly": "Renewal | 1,200 USD | yearly"}  # "USD 10" has its own unit
    assert tables.read_text(text).splitlines()[2] == "Incorporation | 1,500 USD | payable once"
    # one line with a bar is prose, not a table; rows of another width end the table
    assert tables.readings("Fee (USD) | paid\nRenewal | 1,200 | yearly") == {}
    # a Markdown table, rule line and all
    assert tables.readings("| Record | Keep (years) |\n|---|---|\n| Payroll | 6 |") == {"| Payroll | 6 |":
                                                                                       "Payroll | 6 years"}


def test_drawings_and_wrapped_prose_are_no_data_rows():
    assert tables.is_data_row("| HS256 | HMAC using SHA-256 | Required |")
    assert tables.is_data_row("Annual renewal | 1,200")
    assert not tables.is_data_row("| +--------+  | (5) Authorization  +------+")  # an RFC's ASCII figure
    assert not tables.is_data_row("|   |             ^             |")
    assert not tables.is_data_row("Status: <Draft | Active | Accepted |")  # a wrapped line of a template
    assert not tables.is_data_row("one cell only")


def test_each_row_of_a_stored_word_or_html_table_is_its_own_sentence():
    text = ("Company fees\nService | Fee (USD)\nIncorporation of a private company | 1,500\nAnnual renewal | 1,200\n"
            "The fees are not refundable.")
    got = [s.text for s in sentences(text)]
    assert "Annual renewal | 1,200" in got and "Service | Fee (USD)" in got
    assert "The fees are not refundable." in got
    for s in sentences(text):
        assert text[s.start:s.end] == s.text
    # a wrapped line that writes bars is not cut into rows ("<Draft | Active |" then "Withdrawn | Final>")
    wrapped = "Status: <Draft | Active | Accepted |\n  Withdrawn | Final | Superseded>\n  Type: <Standards | Info | P>"
    assert not any(s.text.startswith("Withdrawn") for s in sentences(wrapped))


def test_relevance_reads_a_quoted_row_under_its_quoted_header():
    q = "What is the annual renewal fee?"
    assert not relevance(q, ["Annual renewal | 1,200"]).addressed  # 1,200 of what?
    assert relevance(q, ["Service | Fee (USD)\nAnnual renewal | 1,200"]).addressed
    assert relevance(q, ["Service | Fee (USD)", "Annual renewal | 1,200"]).addressed


@pytest.fixture()
def policies(tmp_path):
    store = SQLiteStore(tmp_path / "a.db")
    emb = HashEmbedder()
    workspace.upload_files(store, emb, [("fees.html", FEES_HTML), ("retention.md", RETENTION_MD),
                                        ("travel.docx", travel_docx())], corpus="policies")
    return store, emb


@pytest.mark.parametrize("question, row, header", [
    ("How much does it cost to incorporate a private company?", "Incorporation of a private company | 1,500",
     "Service | Fee (USD)"),
    ("How long must we keep payroll records?", "| Payroll records | 6 |", "| Record type | Retention period (years) |"),
    ("How much is the daily allowance for domestic travel?", "Domestic | 45", "Destination | Daily allowance (EUR)"),
])
def test_a_table_row_answers_quoted_under_its_header(policies, question, row, header):
    store, emb = policies
    rep = ask(question, store=store, embedder=emb, corpus="policies", settings=AskSettings())
    assert not rep.refused, rep.reason
    quotes = [c.anchor.quote for c in rep.claims if c.anchor is not None]
    assert header in quotes and row in quotes
    assert quotes.index(header) < quotes.index(row)
    assert rep.relevance is not None and rep.relevance.addressed, rep.relevance.reason
    units = store.get_units("policies", [c.anchor.unit_id for c in rep.claims if c.anchor is not None])
    for c in rep.claims:
        if c.anchor is not None:  # verbatim at its offsets in the stored unit
            u = units[c.anchor.unit_id]
            assert u.text[c.anchor.start:c.anchor.end] == c.anchor.quote


def test_a_row_the_table_does_not_have_is_still_refused(policies):
    store, emb = policies
    rep = ask("How much can we claim for hotel accommodation per night?", store=store, embedder=emb,
              corpus="policies", settings=AskSettings())
    assert rep.refused
    assert "amount" in rep.reason
