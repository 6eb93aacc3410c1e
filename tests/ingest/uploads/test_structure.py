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


MSA = b"""# Master Services Agreement

## 1. Definitions

1.1 "Business Day" means a day other than a Saturday, Sunday or public holiday in England.

## 2. Services

2.2 If the Supplier fails to meet the availability, the Customer shall be entitled to Service Credits.

## 9. Limitation of liability

9.1 Service Credits are the Customer's sole remedy for a failure to meet the availability.

## 12. Termination

12.2 The Customer may terminate this Agreement with immediate effect if the availability falls below 95%.
"""


def test_markup_headings_may_skip_numbers_and_a_forward_numbered_paragraph_opens_its_clause():
    from ingest.uploads.extract import extract

    st = split(extract("markdown", MSA), "msa", "MSA")
    parts = {p.label: u.heading for u in st.units for p in u.parts}
    assert [u.heading for u in st.units if u.heading[:1].isdigit()] == ["1", "2", "9", "12"]
    assert parts["9.1"] == "9" and parts["12.2"] == "12"
    # without markup, a dotted paragraph that goes forward opens its clause ("9.1 Service ..." after 2.2) ...
    plain = MSA.decode().replace("## 9. Limitation of liability\n\n", "").replace("## 12. Termination\n\n", "")
    units = units_of(plain)
    assert "9" in units and units["9"][1].startswith("9.1 Service Credits")
    # ... but not a number that starts a lower-case phrase
    assert "5" not in units_of(plain + "\n5.5 million requests were served in the first month.\n")


def test_a_section_sign_names_a_section_by_its_whole_number_and_references_reach_it(tmp_path):
    from anchor_core import workspace
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.named import named_references, use_adapters
    from anchor_core.stores.sqlite import SQLiteStore
    from ingest import get_adapter

    text = ("# PART 164\n\n### § 164.404 Notification to individuals.\n\n(a) Standard. A covered entity shall notify "
            "each individual.\n\n(b) Timeliness. Except as provided in § 164.412, a covered entity shall provide the "
            "notification required by paragraph (a) of this section no later than 60 calendar days after discovery."
            "\n\n### § 164.408 Notification to the Secretary.\n\n(a) Standard. A covered entity shall, following "
            "the discovery of a breach as provided in § 164.404(a), notify the Secretary.\n\n"
            "### § 164.412 Law enforcement delay.\n\nA covered entity shall delay a notification for the time a law "
            "enforcement official specifies.\n")
    units = {u.heading: u for u in split(Extracted(text=text), "hipaa", "Part 164").units}
    assert [h for h in units if h != "Preamble"] == ["§ 164.404", "§ 164.408", "§ 164.412"]
    assert units["§ 164.404"].unit_id == "hipaa/section-164.404"
    assert units["§ 164.404"].title == "Notification to individuals"
    assert [p.label for p in units["§ 164.404"].parts] == ["164.404(a)", "164.404(b)"]

    store = SQLiteStore(tmp_path / "a.db")
    workspace.upload_files(store, HashEmbedder(), [("hipaa.md", text.encode())], corpus="regs")
    refs = store.references_from("regs", store.unit_ids("regs"), unresolved=True)
    got = {(r.src_unit, r.raw, r.dst_unit, r.dst_part) for r in refs}
    assert ("hipaa/section-164.404", "§ 164.412", "hipaa/section-164.412", None) in got
    assert ("hipaa/section-164.408", "§ 164.404(a)", "hipaa/section-164.404", "164.404(a)") in got
    assert all(r.resolved for r in refs)
    use_adapters(get_adapter)
    try:  # a question names a section with the sign, or as "section 164.408"
        for q in ("What does § 164.404(b) require?", "What does section 164.408 require?"):
            named = named_references(q, store=store, corpus="regs")
            assert named and named[0].resolved and named[0].dst_unit.startswith("hipaa/section-164.40"), q
    finally:
        use_adapters(None)


STATUTE = """Data Retention Act 2026

An Act to make provision about the retention of communications data.

PART 1
RETENTION

1 Interpretation
(1) In this Act "relevant public authority" means an authority listed in Schedule 1.
(2) References to an operator include a person who provides a private service.

2 Retention notices
(1) The Secretary of State may require an operator to retain relevant communications data.
(2) A retention notice may not require any data to be retained for more than 12 months.

3 Safeguards
(1) An operator who retains communications data by virtue of section 2 must—
(a) secure the data against accidental destruction, and
(b) destroy the data at the end of the period mentioned in section 2(2).
(2) The duty in subsection (1)(b) does not apply to data subject to an authorisation under Part 2.

PART 2
ACCESS

4 Authorisations
(1) A designated senior officer may grant an authorisation under this section.

SCHEDULE 1
RELEVANT PUBLIC AUTHORITIES
1 A police force.
2 The National Crime Agency.
3 The Financial Conduct Authority, for the purposes of section 4 only, and only where the data relates to a
regulated firm.
"""


def test_a_statute_has_parts_as_containers_subsections_as_parts_and_titled_schedules(tmp_path):
    """A UK-style act: "PART 1" with its title on the next line holds the sections after it (it is no unit, nor is
    its title); "(2)" opens subsection 2(2) and "(a)" under a "must—" lead-in is 3(1)(a); "SCHEDULE 1" alone takes
    the next line as its title and keeps its paragraphs, even one written as a sentence."""
    from anchor_core import workspace
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.stores.sqlite import SQLiteStore

    units = {u.heading: u for u in split(Extracted(text=STATUTE), "dra", "Data Retention Act 2026").units}
    assert list(units) == ["Preamble", "1", "2", "3", "4", "Schedule 1"]
    assert [(c.label, c.title) for c in units["2"].containers] == [("Part 1", "Retention")]
    assert [(c.label, c.title) for c in units["4"].containers] == [("Part 2", "Access")]
    assert [p.label for p in units["2"].parts] == ["2(1)", "2(2)"]
    assert [p.label for p in units["3"].parts] == ["3(1)", "3(1)(a)", "3(1)(b)", "3(2)"]
    sched = units["Schedule 1"]
    assert sched.title == "RELEVANT PUBLIC AUTHORITIES"
    assert [p.label for p in sched.parts] == ["1", "2", "3"]
    assert "The National Crime Agency" in sched.text

    store = SQLiteStore(tmp_path / "a.db")
    workspace.upload_files(store, HashEmbedder(), [("dra.txt", STATUTE.encode())], corpus="acts")
    got = {(r.raw, r.dst_unit, r.dst_part) for r in store.references_from("acts", store.unit_ids("acts"))}
    assert ("Schedule 1", "dra/schedule-1", None) in got
    assert ("section 2(2)", "dra/2", "2(2)") in got
    assert ("Part 2", "dra/4", None) in got  # a part reaches the sections it holds
    from anchor_core.named import named_references, use_adapters
    from ingest import get_adapter

    use_adapters(get_adapter)
    try:  # and so does a question that names it
        named = named_references("What does part 1 of the Act cover?", store=store, corpus="acts")
        assert {r.dst_unit for r in named} == {"dra/1", "dra/2", "dra/3"}
    finally:
        use_adapters(None)


STANDARD = """Information security management systems - Requirements

6 Planning
6.1.3 Information security risk treatment
The organization shall compare the controls it determined with those in Annex A.

Annex A
(normative)
Information security controls reference

A.8 Technological controls
A.8.13 Information backup: Backup copies of information shall be maintained and regularly tested.
A.8.15 Logging: Logs that record activities shall be produced, stored, protected and analysed.
A.8.16 Monitoring activities: Networks shall be monitored, and the logs produced under A.8.15 shall be reviewed.
"""


def test_a_standards_lettered_annex_has_its_controls_as_parts_that_references_reach(tmp_path):
    """A standard's "Annex A" / "(normative)" / title: the title is the line after the kind; "A.8.13 Information
    backup: ..." is part A.8.13 of Annex A, titled by its run-in heading, and "A.8.15" in the text reaches it."""
    from anchor_core import workspace
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.stores.sqlite import SQLiteStore

    units = {u.heading: u for u in split(Extracted(text=STANDARD), "iso", "ISMS").units}
    annex = units["Annex A"]
    assert annex.title == "Information security controls reference"
    assert [(p.label, p.title) for p in annex.parts] == [
        ("A.8", "Technological controls"), ("A.8.13", "Information backup"), ("A.8.15", "Logging"),
        ("A.8.16", "Monitoring activities")]

    store = SQLiteStore(tmp_path / "a.db")
    workspace.upload_files(store, HashEmbedder(), [("iso.txt", STANDARD.encode())], corpus="std")
    got = {(r.src_part, r.raw, r.dst_unit, r.dst_part) for r in store.references_from("std", store.unit_ids("std"))}
    assert ("A.8.16", "A.8.15", "iso/annex-a", "A.8.15") in got
    assert any(raw == "Annex A" and dst == "iso/annex-a" for _, raw, dst, _ in got)
