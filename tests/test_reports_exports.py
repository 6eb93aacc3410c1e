"""Saved runs, reviewer marks and exports (library level, no Streamlit)."""

from __future__ import annotations

import json
import re

import pytest

from anchor_core.render import ExportError, export, filename, read_export, to_html, to_markdown, to_pdf
from anchor_core.report import CheckedClaim, ClaimAnchor, Report, Source
from anchor_core.reports import ReportStore, ReviewError, RunNotFound
from anchor_core.scorers import make_scorer
from anchor_core.verify import verify_answer
from tests.payloads import HOSTILE, IMAGE, JS_LINK, ONERROR, RUN_ID, SCRIPT, hostile_ask_report, live_markup

TEXT = "1. Providers shall keep logs --> for six months. 2. Deployers may <b>inform</b> users."


def ask_report(quote: str = "Providers shall keep logs --> for six months.") -> Report:
    start = TEXT.index(quote)
    src = Source(n=1, chunk_id="c1", unit_id="article-12", part="1", label="Article 12(1)", doc_id="doc",
                 start=0, end=len(TEXT), text=TEXT, score=0.8, path="article-12(1) ← annex-3", unit_sha256="ab" * 32)
    anchor = ClaimAnchor(source=1, unit_id="article-12", part="1", quote=quote, start=start, end=start + len(quote),
                         score=1.0, method="verbatim", threshold=0.5, unit_sha256="ab" * 32)
    claims = [CheckedClaim(text="Providers keep logs for six months.", cited=[1], supported=True,
                           verdict="supported", anchor=anchor),
              CheckedClaim(text="Deployers must delete logs.", supported=False, verdict="unsupported",
                           reasons=["no supporting sentence"])]
    return Report(kind="ask", question="How long are logs kept? </script> “quoted”", corpus="demo", corpus_version="v1",
                     refused=False, answer="Logs are kept for six months [1].", claims=claims, sources=[src],
                     models={"embedder": "hash-bow-384", "scorer": "learned"})


@pytest.fixture
def rs(tmp_path):
    return ReportStore(tmp_path / "reports.db")


def test_save_review_and_list_with_filters(rs):
    run = rs.save(ask_report())
    v = verify_answer("Providers shall keep logs for six months.", {"art12": TEXT}, scorer=make_scorer("lexical"))
    vrun = rs.save(v)
    assert [c.status for c in run.claims] == ["supported", "not_found"]
    assert vrun.claims[0].anchor.unit_sha256 and rs.get(vrun.id).sources[0].text == TEXT

    rs.review(run.id, 1, "needs_work", reviewer="  Ada  Auditor ", comment="cite Annex III too")
    rs.review(run.id, 1, "accepted", reviewer="Bo")
    rs.review(run.id, 2, "rejected", reviewer="Bo", comment="not in the source")
    got = rs.get(run.id)
    assert [r.verdict for r in got.reviews] == ["needs_work", "accepted", "rejected"]  # history kept
    assert got.reviews[0].reviewer == "Ada Auditor" and got.reviews[0].at
    assert {k: r.verdict for k, r in got.latest_reviews.items()} == {1: "accepted", 2: "rejected"}

    listed = {s.id: s for s in rs.list()}
    assert listed[run.id].review_state == "rejected" and listed[run.id].accepted == 1
    assert listed[vrun.id].review_state == "not reviewed"
    assert [s.id for s in rs.list(kind="verify")] == [vrun.id]
    assert [s.id for s in rs.list(corpus="demo")] == [run.id]
    assert [s.id for s in rs.list(text="logs kept")] == [run.id]
    assert [s.id for s in rs.list(text="100%_")] == []  # LIKE wildcards are literal
    assert [s.id for s in rs.list(review_state="not reviewed")] == [vrun.id]


@pytest.mark.parametrize("kw, message", [
    ({"reviewer": " ", "verdict": "accepted"}, "enter your name"),
    ({"reviewer": "A", "verdict": "maybe"}, "unknown verdict"),
    ({"reviewer": "A", "verdict": "rejected"}, "needs a comment"),
    ({"reviewer": "A", "verdict": "accepted", "claim": 3}, "claim 3 does not exist"),
])
def test_bad_marks_are_refused_with_a_reason(rs, kw, message):
    run = rs.save(ask_report())
    claim = kw.pop("claim", 1)
    with pytest.raises(ReviewError, match=message):
        rs.review(run.id, claim, kw.pop("verdict"), **kw)
    assert rs.get(run.id).reviews == []


def test_unknown_run_says_what_to_do(rs):
    with pytest.raises(RunNotFound, match="deleted in another tab"):
        rs.get("nope")


@pytest.mark.parametrize("fmt", ["markdown", "json", "html", "pdf"])
def test_every_export_reads_back_to_the_same_run(rs, fmt):
    run = rs.save(ask_report())
    rs.review(run.id, 2, "rejected", reviewer="Ada", comment="wrong --> source <script>")
    run = rs.get(run.id)
    data = export(run, fmt)
    back = read_export(data)
    assert back == run
    c = back.claims[0].anchor
    assert TEXT[c.start:c.end] == c.quote and c.unit_sha256 == "ab" * 32 and c.threshold == 0.5
    if fmt in ("markdown", "html"):
        text = data.decode()
        # the human part shows the facts too, and hostile text cannot break out of the embedded record
        assert "characters" in text and "wrong --> source" not in text.split("anchor-report")[-1]
        assert "Ada" in text
    if fmt == "html":
        assert "<script>" not in data.decode().split("id='anchor-report'>")[1]


def test_pdf_without_unicode_font_still_reads_back_exactly(rs):
    run = rs.save(ask_report())
    data = to_pdf(run, font=None)  # Helvetica fallback: typographic characters transliterated
    assert data.startswith(b"%PDF")
    assert read_export(data).question == run.question  # the attached record keeps “” exactly


def test_imported_run_keeps_marks_and_never_overwrites(rs, tmp_path):
    run = rs.save(ask_report())
    rs.review(run.id, 1, "accepted", reviewer="Ada")
    exported = export(rs.get(run.id), "json")
    again = rs.import_run(read_export(exported))
    assert again.id != run.id and again.reviews == rs.get(run.id).reviews
    other = ReportStore(tmp_path / "other.db").import_run(read_export(exported))
    assert other.id == run.id


@pytest.mark.parametrize("data, message", [
    (b"\x89PNG\r\n\x1a\n\x00\x00", "neither a PDF nor UTF-8"),
    (b"# Just notes\n\nno record here", "no embedded Anchor report"),
    (b'{"format": "something-else"}', "not an Anchor report export"),
    (b'{"format": "anchor-report", "format_version": 99, "run": {}}', "newer Anchor"),
    (b'{"format": "anchor-report", "run": {"id": 1}}', "damaged report record"),
    (b'{"format": ', "damaged JSON"),
    (b"%PDF-1.7 not really", "damaged PDF|without the attached"),
])
def test_bad_exports_are_explained(data, message):
    with pytest.raises(ExportError, match=message):
        read_export(data)


def test_export_json_is_the_documented_record(rs):
    run = rs.save(ask_report())
    doc = json.loads(export(run, "json"))
    assert doc["format"] == "anchor-report" and doc["format_version"] == 2 and doc["kind"] == "ask"
    assert doc["claims"][0]["anchor"]["unit_sha256"] == "ab" * 32
    assert doc["corpus_version"] == "v1" and doc["models"]["scorer"] == "learned"


def hostile_run(rs):
    run = rs.save(hostile_ask_report(), run_id=RUN_ID)
    rs.review(run.id, 1, "needs_work", reviewer=f"Eve {ONERROR}", comment=f"see {IMAGE} {JS_LINK}")
    return rs.get(run.id)


@pytest.mark.parametrize("fmt", ["markdown", "html"])
def test_hostile_text_is_inert_in_exports_and_reads_back_exactly(rs, fmt):
    run = hostile_run(rs)
    data = export(run, fmt).decode()
    if fmt == "markdown":
        human, record = data.split("<!-- anchor-report-json")
        assert live_markup(human) == []
        assert r"Providers keep logs \!\[x\]\(http://evil.example/p.png\)" in human
    else:
        human, record = data.split("<script type='application/json' id='anchor-report'>")
        tags = set(re.findall(r"<([A-Za-z][A-Za-z0-9]*)", human))
        assert tags <= {"html", "head", "meta", "title", "style", "body", "h1", "h2", "dl", "dt", "dd", "p",
                        "div", "span", "strong", "blockquote", "small", "br", "code", "ul", "ol", "li", "hr", "em"}
        assert "<img" not in human and "<script" not in human and "&lt;img src=x onerror=alert(1)&gt;" in human
    assert record.count("</script>") == (1 if fmt == "html" else 0) and "<" not in record.split("</script>")[0]
    back = read_export(data)
    assert back == run
    assert back.id == RUN_ID and back.question == f"How long? {SCRIPT}"
    assert re.fullmatch(r"anchor-ask-[a-z0-9-]+-scriptdocumenttitlepwnedscript\.(md|html)", filename(run, fmt))
    assert back.claims[0].anchor.quote == f"Providers shall keep logs {HOSTILE} for six months."
    assert back.reviews[0].comment == f"see {IMAGE} {JS_LINK}"


def test_a_look_alike_record_in_the_text_is_not_read_back(rs):
    run = hostile_run(rs)
    fake = '<!-- anchor-report-json {"format": "anchor-report", "run": {"id": "fake"}} -->'
    run = run.model_copy(update={"answer": fake})
    for fmt in ("markdown", "html"):
        assert read_export(export(run, fmt)) == run


def test_ask_and_verify_markdown_reports_escape_their_text(rs):
    ask_md = to_markdown(hostile_run(rs), record=False)  # the human part; the record is checked above
    assert live_markup(ask_md) == [] and "&lt;script&gt;" in ask_md
    source = f"Providers shall keep logs {HOSTILE} for six months."
    answer = f'Providers shall keep logs {IMAGE} for six months.<cite id="art12"/> {SCRIPT} is a claim too.'
    v = verify_answer(answer, {"art12": source}, scorer=make_scorer("lexical"))
    assert IMAGE in v.claims[0].text  # the record keeps the text exactly; only the rendering escapes it
    assert live_markup(to_markdown(v, record=False)) == []
    assert "<script>" not in to_html(v).split("id='anchor-report'>")[0] and "<img" not in to_html(v)


def test_an_imported_run_with_an_odd_id_gets_a_plain_one(rs, tmp_path):
    exported = export(hostile_run(rs), "json")
    other = ReportStore(tmp_path / "other.db").import_run(read_export(exported))
    assert re.fullmatch(r"[A-Za-z0-9_-]+", other.id) and other.question == f"How long? {SCRIPT}"
