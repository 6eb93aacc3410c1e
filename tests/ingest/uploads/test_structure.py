"""Numbered clauses of an upload: run-in headings and untitled clauses start their own units, so a sentence of
clause 5 is never labelled with clause 4."""

from __future__ import annotations

from ingest.uploads.extract import Extracted
from ingest.uploads.structure import split

CODE = """Supplier Code of Conduct
1. Scope. This Code applies to every supplier of Contoso Group and to their subcontractors.
2. Child labour. Suppliers must not employ any person under the age of 16.
3. Working hours. Working hours must not exceed 60 hours per week, including overtime.
4. Audits. Contoso may audit any supplier once a year with 10 working days' notice.
5. Corrective action. A supplier must correct any finding within 90 days of the audit report.
6. Termination. Contoso may terminate the contract if a finding is not corrected within that period.
"""


def units_of(text: str) -> dict[str, tuple[str, str]]:
    st = split(Extracted(text=text), "doc", "Doc")
    return {u.heading: (u.title, u.text) for u in st.units}


def test_run_in_headings_start_clauses_whatever_the_line_length():
    units = units_of(CODE)
    assert [h for h in units if h != "Preamble"] == ["1", "2", "3", "4", "5", "6"]
    assert units["5"][0] == "Corrective action"
    assert units["5"][1].startswith("5. Corrective action. A supplier must correct")
    assert "within 90 days" not in units["4"][1]
    assert units["2"][0] == "Child labour"


def test_an_untitled_clause_starts_a_unit_only_as_the_very_next_number():
    text = ("1. Definitions\n"
            "In this Agreement the words below have the meanings given to them.\n"
            "2. The Supplier shall deliver the goods within 30 days of the order, at its own cost and risk, to the "
            "address the Buyer names in the order.\n"
            "4. The Buyer shall pay within 45 days of receiving an invoice that meets the requirements of this "
            "Agreement and of the applicable law.\n")
    units = units_of(text)
    assert units["2"][0] == "" and units["2"][1].startswith("2. The Supplier shall deliver")
    # 2 then 4, untitled: a numbered sentence inside clause 2, not clause 4 (a titled "4. Payment" would be one)
    assert "4" not in units and "45 days" in units["2"][1]
    assert "4" in units_of(text.replace("4. The Buyer", "4. Payment. The Buyer"))
