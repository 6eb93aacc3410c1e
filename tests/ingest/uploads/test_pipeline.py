"""ingest_uploads end to end: a reviewer's PDF goes in, retrieval finds the clause with its page
and the clauses it references; bad files fail alone; re-uploads replace or skip."""

from __future__ import annotations

import io
import zipfile

import pytest

from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import StoreError
from anchor_core.models import Filters
from anchor_core.pages import describe_span
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from ingest.uploads import Upload, ingest_uploads
from ingest.uploads.repair import original_text
from tests.ingest.uploads import pdfs


@pytest.fixture
def store(tmp_path):
    return SQLiteStore(tmp_path / "anchor.db")


@pytest.fixture
def contract(store, embedder):
    [res] = ingest_uploads(store, embedder, [("Group Accident Policy.pdf", pdfs.contract_pdf())], corpus="c")
    assert res.status == "ingested", res.error
    return res


def test_contract_pdf_becomes_clauses_with_pages(store, contract):
    assert (contract.format, contract.pages, contract.version) == ("pdf", 3, 1)
    assert contract.structure_found
    assert contract.structure.startswith("7 numbered clauses, 2 schedules, a preamble")
    ids = store.unit_ids("c")
    doc = "group-accident-policy"
    assert ids == [f"{doc}/preamble", *(f"{doc}/{i}" for i in range(1, 8)), f"{doc}/schedule-1", f"{doc}/schedule-2"]
    units = store.get_units("c", ids)
    text = "\n".join(u.text for u in units.values())
    assert pdfs.HEADER not in text and "Page 2 of 3" not in text  # running header and page numbers removed
    assert "shall indemnify each Insured Person" in text and "indem-" not in text
    assert contract.repairs == {"header": 3, "page": 3, "dehyphenated": 1}
    clause6 = units[f"{doc}/6"]
    assert [p.label for p in clause6.parts] == ["6.1", "6.2", "6.3"]
    assert clause6.text[slice(*_span(clause6, "6.2"))].startswith("6.2 Notice must be given")
    chunks = store.unit_chunks("c", f"{doc}/6", Filters())
    assert {c.page for c in chunks} == {2}
    # Clause 2.2's list items are parts labelled after their parent, and stay in its chunk.
    clause2 = units[f"{doc}/2"]
    assert [p.label for p in clause2.parts] == ["2.1", "2.2", "2.2(a)", "2.2(b)"]
    c22 = next(c for c in store.unit_chunks("c", f"{doc}/2", Filters()) if c.part == "2.2")
    assert "(a) the Insured Person is at work" in c22.text and "(b) the loss is notified" in c22.text
    # Provenance: a quote maps to its page; the stored text maps back to the extracted text.
    q = "Temporary staff engaged for more than three months"
    s1 = units[f"{doc}/schedule-1"]
    at = s1.text.index(q)
    assert describe_span(s1, at, at + len(q)) == f"page 3, characters {at}–{at + len(q)}"
    d = store.documents("c")[0]
    assert d.sha256 == __import__("hashlib").sha256(pdfs.contract_pdf()).hexdigest()
    assert d.meta["page_starts"][0] == 0 and len(d.meta["page_starts"]) == 3
    rebuilt = original_text(clause2.text, [tuple(x) for x in clause2.meta["repairs"]])
    assert "indem-\nnify" in rebuilt


def _span(unit, label):
    p = next(p for p in unit.parts if p.label == label)
    return p.start, p.end


def test_references_resolve_to_clauses_schedules_and_definitions(store, contract):
    doc = "group-accident-policy"
    refs = store.references("c")
    got = {(r.src_unit.split("/")[1], r.src_part, r.raw, r.target_label.split("/")[-1]) for r in refs if r.resolved}
    assert ("2", "2.2(b)", "clause 6.2", "6(6.2)") in got
    assert ("6", "6.2", "Schedule 2", "schedule-2") in got
    assert ("1", "1.1", "Schedule 1", "schedule-1") in got
    assert ("3", "3.2", "paragraph (a) of clause 2.2", "2(2.2(a))") in got
    assert ("7", "7.1", "Section 1", "1") in got
    # Defined terms point at their definition: "Insured Person" in clause 2 → clause 1.1.
    assert ("2", "2.1", "Insured Person", "1(1.1)") in got
    assert ("6", "6.1", "Claim", "1(1.2)") in got
    assert ("4", "4.1", "Policyholder", "1(1.3)") in got
    assert contract.references == sum(r.resolved for r in refs if r.src_unit.startswith(doc))
    assert contract.references >= 15


def test_retrieval_returns_the_clause_with_its_page_and_what_it_references(store, contract, embedder):
    result = retrieve("Where must notice of a claim be sent?", store=store, embedder=embedder, corpus="c",
                      settings=RetrievalSettings(k=5, hops=1))
    top = next(h for h in result.hits if h.unit_id.endswith("/6"))
    assert top.page == 2 and top.document == "Group Accident Policy.pdf"
    # Schedule 2 is what clause 6 refers to: shown either as followed from it or, when it ranks on its
    # own, as a direct hit that clause 6 cites.
    sched = [h for h in result.hits if h.unit_id.endswith("/schedule-2")]
    assert sched and sched[0].page == 3, [h.path for h in result.hits]
    assert sched[0].via or any(c.startswith(top.unit_id) for c in sched[0].cited_by), (sched[0].path, sched[0].cited_by)


def test_bad_files_fail_alone_and_nothing_stored_is_lost(store, embedder, contract):
    before = [cid for cid, _ in store.search_bm25("c", ["premium"], 10, Filters())]
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 100
    results = ingest_uploads(store, embedder, [
        ("locked.pdf", pdfs.encrypted_pdf()),
        ("broken.pdf", pdfs.corrupt_pdf()),
        ("scan.pdf", pdfs.image_only_pdf()),
        ("empty.txt", b""),
        ("blank.md", b"  \n\n "),
        ("photo.png", png),
        ("latin1.txt", "Prämie fällig".encode("latin-1")),
        ("big.txt", b"word " * 300_000),
        ("old.doc", b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1" + b"\x00" * 600),
        ("notes.txt", b"Travel claims are paid within ten days of receipt."),
    ], corpus="c", max_mb=1)
    by = {r.name: r for r in results}
    assert [r.name for r in results if r.ok] == ["notes.txt"]
    assert "encrypted" in by["locked.pdf"].error and "password" in by["locked.pdf"].error
    assert "damaged" in by["broken.pdf"].error
    assert by["scan.pdf"].error.startswith("no text layer; run OCR first")
    assert by["empty.txt"].error == "the file is empty"
    assert "only whitespace" in by["blank.md"].error
    assert "PNG image" in by["photo.png"].error and "OCR" in by["photo.png"].error
    assert "not UTF-8" in by["latin1.txt"].error and "position 2" in by["latin1.txt"].error
    assert "over the upload limit of 1 MB" in by["big.txt"].error and "ANCHOR_MAX_UPLOAD_MB" in by["big.txt"].error
    assert ".docx" in by["old.doc"].error
    assert [cid for cid, _ in store.search_bm25("c", ["premium"], 10, Filters())] == before
    assert store.corpus("c").documents == 2
    assert store.search_bm25("c", ["travel"], 10, Filters())[0][0].startswith("notes/")


def test_a_failing_store_write_changes_nothing(store, embedder, contract, monkeypatch):
    version = store.corpus("c").version

    def boom(*a, **k):
        raise StoreError("disk full")

    monkeypatch.setattr(store, "replace_documents", boom)
    with pytest.raises(StoreError):
        ingest_uploads(store, embedder, [("notes.txt", b"Some new text about zeppelins.")], corpus="c")
    assert store.corpus("c").version == version
    assert store.search_bm25("c", ["zeppelins"], 10, Filters()) == []
    assert store.unit_ids("c", ["notes"]) == []


def test_reupload_identical_is_skipped_and_changed_replaces_with_a_version(store, embedder, contract):
    ingest_uploads(store, embedder, [("notes.txt", b"Travel claims are paid within ten days.")], corpus="c")
    [same] = ingest_uploads(store, embedder, [("Group Accident Policy.pdf", pdfs.contract_pdf())], corpus="c")
    assert (same.status, same.version) == ("skipped-identical", 1)
    renamed = ingest_uploads(store, embedder, [("copy of policy.pdf", pdfs.contract_pdf())], corpus="c")[0]
    assert renamed.status == "skipped-identical" and "Group Accident Policy.pdf" in renamed.warnings[0]
    notes_before = store.unit_chunks("c", "notes/text", Filters())
    changed = pdfs.contract_pdf(edits={"45 days": "60 days"})
    [res] = ingest_uploads(store, embedder, [("Group Accident Policy.pdf", changed)], corpus="c")
    assert (res.status, res.version) == ("replaced", 2)
    doc = next(d for d in store.documents("c") if d.doc_id == "group-accident-policy")
    assert doc.meta["version"] == 2 and [v["version"] for v in doc.meta["versions"]] == [1]
    assert doc.meta["versions"][0]["sha256"] != doc.sha256
    text = store.get_units("c", ["group-accident-policy/6"])["group-accident-policy/6"].text
    assert "within 60 days" in text and "45 days" not in text
    assert store.unit_chunks("c", "notes/text", Filters()) == notes_before
    assert store.corpus("c").documents == 2


def test_access_groups_per_uploaded_document(store, embedder):
    results = ingest_uploads(store, embedder, [
        Upload("salaries.txt", b"Salaries of staff are reviewed every spring.", groups=["hr"]),
        ("handbook.txt", b"Staff salaries are paid monthly by transfer."),
    ], corpus="g", groups=["staff"])
    assert all(r.status == "ingested" for r in results)
    docs = {d.doc_id: d.groups for d in store.documents("g")}
    assert docs == {"salaries": ["hr", "staff"], "handbook": ["staff"]}
    e = embedder
    seen = {h.doc_id for h in retrieve("staff salaries", store=store, embedder=e, corpus="g",
                                       settings=RetrievalSettings(groups=["staff"])).hits}
    assert seen == {"salaries", "handbook"}
    seen = {h.doc_id for h in retrieve("staff salaries", store=store, embedder=e, corpus="g",
                                       settings=RetrievalSettings(groups=["finance"])).hits}
    assert seen == set()
    seen = {h.doc_id for h in retrieve("staff salaries", store=store, embedder=e, corpus="g",
                                       settings=RetrievalSettings(groups=["hr"])).hits}
    assert seen == {"salaries"}


def test_references_across_uploads_resolve_when_the_target_arrives(store, embedder):
    msa = (b"MASTER AGREEMENT\n1. Services\nThe Supplier provides the services.\n2. Data\n"
           b"Personal data is handled under clause 2 of the Data Processing Addendum.\n")
    [a] = ingest_uploads(store, embedder, [("master.txt", msa)], corpus="x")
    assert (a.references, a.unresolved) == (0, 1)
    dpa = (b"DATA PROCESSING ADDENDUM\n1. Scope\nThis addendum covers processing.\n2. Security\n"
           b"The Processor encrypts personal data at rest.\n")
    ingest_uploads(store, embedder, [("Data Processing Addendum.md", dpa)], corpus="x")
    refs = [r for r in store.references("x") if r.src_unit == "master/2"]
    assert [(r.raw, r.dst_unit, r.resolved) for r in refs] == [
        ("clause 2 of the Data Processing Addendum", "data-processing-addendum/2", True)]


def test_formats_are_read_from_content(store, embedder):
    html = (b"<!DOCTYPE html><html><head><title>Remote Work Policy</title><script>var x=1;</script></head><body>"
            b"<h1>Remote Work Policy</h1><h2>1. Eligibility</h2><p>Staff with six months of service may work "
            b"remotely.</p><h2>2. Equipment</h2><p>Laptops are provided; see Section 1.</p></body></html>")
    md = b"# Leave\n\n## Annual leave\n\nStaff get 25 days.\n\n## Sick leave\n\nSee the annual leave rules.\n"
    results = ingest_uploads(store, embedder, [
        ("remote.html", html), ("leave.md", md), ("contract.txt", pdfs.contract_pdf()),
        ("policy.docx", _docx()),
    ], corpus="f")
    by = {r.name: r for r in results}
    assert all(r.ok for r in results), [r.error for r in results]
    assert by["remote.html"].format == "html" and by["remote.html"].structure_found
    ids = store.unit_ids("f", ["remote"])
    units = store.get_units("f", ids)
    assert [units[i].title for i in ids] == ["Eligibility", "Equipment"]
    assert "var x" not in "".join(u.text for u in units.values())
    assert by["leave.md"].structure_found and by["leave.md"].units == 2
    assert by["contract.txt"].format == "pdf" and "content is pdf" in by["contract.txt"].warnings[0]
    assert by["policy.docx"].format == "docx" and by["policy.docx"].structure_found
    docx_units = store.get_units("f", store.unit_ids("f", ["policy"]))
    assert "Clause 1" in {u.heading for u in docx_units.values()}
    assert any("| Amount" in u.text for u in docx_units.values())  # table rows are kept as text


def _docx() -> bytes:
    import docx

    d = docx.Document()
    d.core_properties.title = "Expenses Policy"
    d.add_heading("Clause 1 Scope", level=1)
    d.add_paragraph("This policy covers travel expenses of staff.")
    d.add_heading("Clause 2 Limits", level=1)
    d.add_paragraph("Hotel costs are capped as set out in clause 1.")
    t = d.add_table(rows=2, cols=2)
    t.cell(0, 0).text, t.cell(0, 1).text = "Item", "Amount"
    t.cell(1, 0).text, t.cell(1, 1).text = "Hotel", "150 EUR"
    buf = io.BytesIO()
    d.save(buf)
    return buf.getvalue()


def test_unstructured_text_falls_back_to_windows_with_overlap(store, embedder):
    words = " ".join(f"word{i}" for i in range(400)) + "."  # ~3,300 characters: one unit
    [res] = ingest_uploads(store, embedder, [("blob.txt", words.encode())], corpus="w")
    assert not res.structure_found and "windows of 800 characters with 100 overlap" in res.structure
    chunks = store.unit_chunks("w", "blob/text", Filters())
    assert len(chunks) >= 4
    assert all(a.end > b.start for a, b in zip(chunks, chunks[1:]))  # consecutive windows overlap
    pdf = pdfs.text_pdf([["just some words on a page without any numbering"] * 3, ["more words here"]])
    [res] = ingest_uploads(store, embedder, [("loose.pdf", pdf)], corpus="w")
    assert not res.structure_found and "2 pages" in res.structure
    assert [c.page for c in store.unit_chunks("w", "loose/p2", Filters())] == [2]


def test_long_unstructured_text_becomes_units_of_bounded_size(store, embedder):
    """A long text without headings is not one huge unit: parts of at most SECTION characters,
    cut at paragraph ends, that together hold every character of the text, in order."""
    import re

    from ingest.uploads.structure import SECTION

    paras = [" ".join(f"clause{p}w{i}" for i in range(90)) + "." for p in range(40)]
    text = "\n\n".join(paras)
    [res] = ingest_uploads(store, embedder, [("long.txt", text.encode())], corpus="w")
    assert res.ok and not res.structure_found and res.units > 1
    assert f"parts of at most {SECTION} characters" in res.structure
    expected = [f"long/s{n}" for n in range(1, res.units + 1)]
    assert sorted(store.unit_ids("w")) == sorted(expected)
    units = store.get_units("w", expected)
    ordered = [units[i] for i in expected]
    assert all(len(u.text) <= SECTION for u in ordered)
    assert all(text[u.meta["doc_start"]:u.meta["doc_start"] + len(u.text)] == u.text for u in ordered)
    assert all(u.text.endswith(".") for u in ordered)  # cut at paragraph ends, not mid-word
    assert re.sub(r"\s", "", "".join(u.text for u in ordered)) == re.sub(r"\s", "", text)


def test_other_zip_files_are_refused(store, embedder):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("xl/workbook.xml", "<x/>")
    [res] = ingest_uploads(store, embedder, [("sheet.xlsx", buf.getvalue())], corpus="z")
    assert res.status == "failed" and "Excel" in res.error


def test_an_existing_corpus_with_another_embedder_is_refused(store, embedder):
    ingest_uploads(store, embedder, [("a.txt", b"Some text here.")], corpus="e")
    other = HashEmbedder(dim=128)
    other.model_id = "other-model"
    with pytest.raises(StoreError, match="embedded with"):
        ingest_uploads(store, other, [("b.txt", b"More text.")], corpus="e")


def test_a_one_line_lead_is_kept_unless_it_is_the_title(store, embedder):
    body = b"1. Scope\nThe tenant rents the flat.\n2. Term\nThe lease runs one year.\n"
    ingest_uploads(store, embedder, [("lease.txt", b"Clause 4.1 applies from day 30.\n" + body),
                                             ("Tenancy.txt", b"TENANCY\n" + body)], corpus="t")
    units = store.get_units("t", store.unit_ids("t", ["lease"]))
    assert units["lease/preamble"].text == "Clause 4.1 applies from day 30."
    assert store.unit_ids("t", ["tenancy"]) == ["tenancy/1", "tenancy/2"]  # the title is in every lead-in


def _stored_text(store, corpus, doc_id):
    units = store.get_units(corpus, store.unit_ids(corpus, [doc_id])).values()
    return "\n".join(u.text for u in sorted(units, key=lambda u: u.meta["doc_start"]))


def _lost(lines, text):
    """Body lines missing from ``text``, in order; letters and digits only, so a word re-joined
    across a line break (``indem-``/``nify``) still counts as kept."""
    def squash(s):
        return "".join(ch for ch in s.lower() if ch.isalnum())

    stored, pos, lost = squash(text), 0, []
    for line in lines:
        at = stored.find(squash(line), pos)
        if at < 0:
            lost.append(line)
        else:
            pos = at + len(squash(line))
    return lost


LOUD = {"header": "Lease Agreement 2024 - Tenant copy", "footer": "Page {page} of {pages}"}


@pytest.mark.parametrize(("furniture", "warning"), [
    (LOUD, "removed 3 running header/footer lines (1 distinct): 'Lease Agreement 2024 - Tenant copy'; "
           "and 3 page numbers"),
    ({"header": "Lease 2024 | {page}", "footer": "Confidential"},
     "removed 6 running header/footer lines (2 distinct): 'Lease 2024 | 1'; 'Confidential'"),
    ({"header": None, "footer": "- {page} -"}, "removed 3 page numbers"),
    ({"header": None, "footer": None}, None),
])
def test_body_lines_at_page_edges_survive_and_running_lines_are_counted(store, embedder, furniture, warning):
    [res] = ingest_uploads(store, embedder, [("lease.pdf", pdfs.lease_pdf(**furniture))], corpus="l")
    assert res.ok, res.error
    text = _stored_text(store, "l", res.doc_id)
    assert _lost([line for page in pdfs.LEASE_PAGES for line in page], text) == []
    for k in (1, 2, 3):
        for line in furniture.values():
            if line is not None:
                assert line.format(page=k, pages=3) not in text
    assert [w for w in res.warnings if w.startswith("removed")] == ([warning] if warning else [])


@pytest.mark.parametrize("make", [
    lambda: (pdfs.contract_pdf(), pdfs.CONTRACT_PAGES),
    lambda: (pdfs.contract_pdf(edits={"45 days": "60 days"}),
             [[line.replace("45 days", "60 days") for line in page] for page in pdfs.CONTRACT_PAGES]),
    lambda: (pdfs.encrypted_pdf(password=""), pdfs.CONTRACT_PAGES),
    lambda: (pdfs.text_pdf(PLAIN), PLAIN),
    lambda: (pdfs.lease_pdf(), pdfs.LEASE_PAGES),
], ids=["contract", "contract-v2", "empty-password", "text", "lease"])
def test_every_body_line_of_the_generated_pdfs_survives(store, embedder, make):
    data, pages = make()
    [res] = ingest_uploads(store, embedder, [("doc.pdf", data)], corpus="s")
    assert res.ok, res.error
    assert _lost([line for page in pages for line in page], _stored_text(store, "s", res.doc_id)) == []


PLAIN = [["just some words on a page without any numbering"] * 3, ["more words here"]]


def test_html_ordered_lists_keep_the_numbers_a_browser_draws(store, embedder):
    """``<ol>`` items are numbered as a browser draws them (start, value, type), under the heading they sit in;
    ``<ul>`` items are not numbered."""
    html = (b"<html><head><title>Remote Work Policy</title></head><body><h1>Remote Work Policy</h1>"
            b"<h2>1. Eligibility</h2><ol><li>Staff with six months of service may work remotely.</li>"
            b"<li><p>Managers approve each request:</p><ol type='a'><li>in writing;</li><li>within ten days.</li>"
            b"</ol></li><li value='7'>Contractors are not eligible.</li></ol>"
            b"<h2>2. Equipment</h2><ol start='4' type='i'><li>Laptops are provided.</li></ol>"
            b"<ul><li>Screens on request.</li></ul></body></html>")
    [res] = ingest_uploads(store, embedder, [("remote.html", html)], corpus="h")
    assert res.ok, res.error
    units = store.get_units("h", store.unit_ids("h", ["remote"]))
    first, second = units["remote/1"], units["remote/2"]
    assert [first.title, second.title] == ["Eligibility", "Equipment"]
    assert first.text.splitlines()[1:] == ["1. Staff with six months of service may work remotely.",
                                           "2. Managers approve each request:", "a. in writing;",
                                           "b. within ten days.", "7. Contractors are not eligible."]
    assert [p.label for p in first.parts] == ["1(1)", "1(2)", "1(7)"]
    assert second.text.splitlines()[1:] == ["iv. Laptops are provided.", "Screens on request."]


def test_a_quote_on_the_next_page_of_a_clause_is_anchored_to_that_page(store, embedder):
    from anchor_core import render
    from anchor_core.ask import AskSettings, ask

    # clause 1.3 begins on page 1 and its second sentence is on page 2: one part, one chunk, two pages
    pdf = pdfs.text_pdf([["SUPPLY AGREEMENT", "1. DELIVERY", "1.1 The Supplier shall deliver the Goods.",
                          "1.3 The Customer shall inspect the Goods on delivery and keep them",
                          "in a dry place until they are accepted."],
                         ["Any defect found on inspection must be notified to the Supplier within 7 days.",
                          "1.4 Risk passes to the Customer on delivery.", "2. PRICE",
                          "2.1 The price is set out in the Order."]])
    [res] = ingest_uploads(store, embedder, [("supply.pdf", pdf)], corpus="s")
    assert res.status == "ingested", res.error
    r = ask("Within how many days must a defect be notified to the Supplier?", store=store, embedder=embedder,
            corpus="s", settings=AskSettings())
    a = next(c.anchor for c in r.claims if c.anchor is not None and "within 7 days" in c.anchor.quote)
    src = r.source(a.source)
    # the chunk's page is not the quote's
    assert src is not None and src.page == 1 and a.page == 2 and a.page_end is None
    assert "page 2, characters" in render.anchor_line(r, next(c for c in r.claims if c.anchor is a))
    # a quote across the break names both pages
    unit = store.get_units("s", [a.unit_id])[a.unit_id]
    lo = unit.text.index("in a dry place")
    assert src.span_pages(lo, a.end) == {"page": 1, "page_end": 2}
