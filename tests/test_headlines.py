"""Honest headlines: no summary of a run says "verified" when a check failed, was not made, or a
reviewer rejected a claim — in the CLI text, JSON, Markdown, HTML, PDF, the reports list and the dashboard."""

from __future__ import annotations

import html
import io
import json
import re

import pytest

from anchor_core import render
from anchor_core.cli import main
from anchor_core.report import CheckedClaim, ClaimAnchor, Relevance, Report, Review, Source
from anchor_core.reports import ReportStore
from tests import app_support as A

LEAD = "1. This Regulation lays down the procedure for notified bodies. "
FEE = "2. Notified bodies shall carry out conformity assessments. "
SIDE = "3. Deployers shall not use the system for purposes other than those stated in the instructions for use."
UNIT = "Article 31\n" + LEAD + FEE + SIDE
CHUNK_START = len("Article 31\n")  # the retrieved chunk starts after the heading: offsets are the unit's
NO_FEE = "the sources describe notified bodies but state no fee"
FORMATS = ["text", "json", "markdown", "html", "pdf"]


def _anchor(quote: str, *, text: str = UNIT, n: int = 1, unit: str = "article-31") -> ClaimAnchor:
    start = text.index(quote)
    return ClaimAnchor(source=n, unit_id=unit, quote=quote, start=start, end=start + len(quote), score=1.0,
                       method="verbatim", threshold=0.5, unit_sha256="ab" * 32)


def extractive_ask(relevance: Relevance | None = None, *, reviews: list[Review] | None = None) -> Report:
    """An offline extractive answer that quotes a lead-in sentence: its quote supports itself."""
    src = Source(n=1, chunk_id="c1", unit_id="article-31", label="Article 31", doc_id="aiact", start=CHUNK_START,
                 end=len(UNIT), text=UNIT[CHUNK_START:], score=0.7, unit_sha256="ab" * 32)
    quote = LEAD.strip()
    claim = CheckedClaim(text=quote, cited=[1], supported=True, verdict="supported", anchor=_anchor(quote),
                         reasons=["quoted verbatim"])
    return Report(kind="ask", question="How much does a notified body charge for a conformity assessment?",
                  corpus="aiact", corpus_version="v1", answer=f"Article 31: “{quote}” [1]", claims=[claim],
                  sources=[src], relevance=relevance, reviews=reviews or [], models={"writer": "extractive"})


def verify_run(*claims: CheckedClaim, reviews: list[Review] | None = None) -> Report:
    return Report(kind="verify", answer=" ".join(c.text for c in claims), claims=list(claims),
                  sources=[Source.given(1, "art31", UNIT)], reviews=reviews or [], models={"scorer": "lexical"})


def supported(quote: str) -> CheckedClaim:
    return CheckedClaim(text=quote, cited=[1], supported=True, verdict="supported",
                        anchor=_anchor(quote, unit="art31"))


def contradicted() -> CheckedClaim:
    flipped = "Deployers shall use the system for purposes other than those stated in the instructions for use."
    return CheckedClaim(text=flipped, cited=[1], supported=False, verdict="contradicted",
                        anchor=_anchor(SIDE[3:], unit="art31"), contradiction=_anchor(SIDE[3:], unit="art31"),
                        reasons=["the source says 'shall not'"])


def shown(r: Report, fmt: str) -> str:
    """What a reader of ``fmt`` sees (the embedded record left out), whitespace and escapes undone."""
    if fmt == "text":
        out = render.to_text(r)
    elif fmt == "json":
        out = render.to_json(r)  # the record with its assessment; "verified" is a key there, so not searched
    elif fmt == "markdown":
        out = render.to_markdown(r, record=False).replace("\\", "")
    elif fmt == "html":
        out = html.unescape(re.sub(r"<[^>]+>", " ", render.to_html(r).split("<body>")[1].split("<script")[0]))
    else:
        from pypdf import PdfReader

        out = "\n".join(p.extract_text() for p in PdfReader(io.BytesIO(render.to_pdf(r))).pages)
    return " ".join(out.split())


def says_verified(text: str) -> bool:
    return bool(re.search(r"(?<!not )\bverified\b", text, re.I)) or "100%" in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_extractive_answer_off_the_question_is_not_headlined_verified(fmt):
    r = extractive_ask(Relevance(addressed=False, kind="amount", focus="notified body fee", reason=NO_FEE,
                                 claims=[False]))
    a = r.assessment()
    assert a.state == "not_verified" and a.support.supported == 1 and a.faithfulness.state == "verbatim"
    text = shown(r, fmt)
    assert f"not verified: the answer does not address the question ({NO_FEE})" in text
    if fmt != "json":
        assert not says_verified(text)
    assert json.loads(render.to_json(r))["assessment"]["state"] == "not_verified"


@pytest.mark.parametrize("fmt", FORMATS)
def test_relevance_not_checked_is_never_shown_as_verified(fmt):
    r = extractive_ask(None)
    assert r.assessment().state == "unconfirmed"
    text = shown(r, fmt)
    assert "not confirmed: 1 of 1 claim supported; relevance not checked" in text
    if fmt != "json":
        assert not says_verified(text)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_rejected_claim_makes_the_run_not_verified_and_its_badge_say_rejected(fmt):
    r = extractive_ask(Relevance(addressed=True, kind="procedure", focus="notified bodies", claims=[True]),
                       reviews=[Review(claim=1, verdict="accepted", reviewer="Ada"),
                                Review(claim=1, verdict="rejected", reviewer="Bo", comment="a lead-in, no answer")])
    a = r.assessment()
    assert a.state == "not_verified" and a.claims[0].label == "rejected by Bo (automatic: supported)"
    text = shown(r, fmt)
    assert "not verified: rejected by a reviewer (claim 1, Bo)" in text
    assert "rejected by Bo (automatic: supported)" in text
    if fmt != "json":
        assert not says_verified(text)


@pytest.mark.parametrize("fmt", FORMATS)
def test_needs_work_shows_as_such(fmt):
    r = verify_run(supported(FEE[3:].strip()), reviews=[Review(claim=1, verdict="needs_work", reviewer="Bo",
                                                               comment="cite Article 30 too")])
    text = shown(r, fmt)
    assert "not verified: a reviewer asks for work (claim 1, Bo)" in text and "needs work (Bo; automatic" in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_contradicted_claim_shows_as_contradicted_with_its_quote(fmt):
    r = verify_run(supported(FEE[3:].strip()), contradicted())
    text = shown(r, fmt)
    assert "not verified: 1 of 2 claims supported, 1 contradicted" in text
    assert "contradicted" in text and SIDE[3:] in text


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_verify_run_without_a_question_can_be_verified(fmt):
    r = verify_run(supported(FEE[3:].strip()))
    a = r.assessment()
    assert a.state == "verified" and a.relevance.state == "no_question"
    assert "verified: 1 of 1 claim supported, quotes verbatim, no question asked" in shown(r, fmt)


@pytest.mark.parametrize("fmt", FORMATS)
def test_a_quote_not_at_its_offsets_fails_faithfulness(fmt):
    c = supported(FEE[3:].strip())
    c.anchor = c.anchor.model_copy(update={"start": c.anchor.start + 1, "end": c.anchor.end + 1})
    r = verify_run(c)
    assert r.assessment().faithfulness.not_verbatim == [1]
    assert "not verified: quote not verbatim at its offsets (claim 1)" in shown(r, fmt)


def test_an_acceptance_overrides_a_not_found_verdict_and_stays_beside_it():
    c = CheckedClaim(text="Notified bodies assess conformity.", supported=False, verdict="not_found",
                     anchor=_anchor(FEE[3:].strip(), unit="art31"))
    r = verify_run(c, reviews=[Review(claim=1, verdict="accepted", reviewer="Ada")])
    a = r.assessment()
    assert a.state == "verified" and a.claims[0].label == "not found · accepted by Ada"
    assert "(1 accepted by a reviewer)" in a.headline


def test_an_anchor_outside_the_kept_chunk_is_not_re_checked():
    r = extractive_ask(Relevance(addressed=True, claims=[True]))
    r.sources[0] = r.sources[0].model_copy(update={"start": len(UNIT) - 20, "text": UNIT[-20:]})
    a = r.assessment()
    assert a.faithfulness.not_rechecked == [1] and a.state == "unconfirmed"
    assert "quote not re-checked (claim 1)" in a.headline


def test_refused_runs_say_refused():
    r = Report(kind="ask", question="q?", refused=True, reason="no relevant evidence was retrieved")
    assert r.assessment().headline == "refused: no relevant evidence was retrieved"


@pytest.mark.parametrize("fmt", ["json", "markdown", "html", "pdf"])
def test_exports_read_back_and_the_assessment_is_recomputed_not_trusted(fmt):
    r = extractive_ask(Relevance(addressed=False, reason=NO_FEE), reviews=[Review(claim=1, verdict="rejected",
                                                                               reviewer="Bo", comment="x")])
    back = render.read_export(render.export(r, fmt))
    assert back.assessment() == r.assessment()
    forged = json.loads(render.to_json(r))
    forged["assessment"]["state"], forged["assessment"]["headline"] = "verified", "verified"
    assert render.read_export(json.dumps(forged)).assessment().state == "not_verified"


def test_exports_written_before_the_assessment_still_read_back():
    r = verify_run(supported(FEE[3:].strip()))
    old = json.loads(render.to_json(r))
    del old["assessment"]
    back = render.read_export(json.dumps(old))
    assert back.claims == r.claims and back.assessment().state == "verified"
    md = render.to_markdown(r).replace(render._embedded_json(r), render.json_for_html(old))
    assert render.read_export(md).assessment().state == "verified"


def test_the_reports_list_shows_the_honest_state_with_reviewer_marks(tmp_path):
    rs = ReportStore(tmp_path / "reports.db")
    run = rs.save(verify_run(supported(FEE[3:].strip())))
    assert rs.list()[0].assessment.state == "verified"
    rs.review(run.id, 1, "rejected", reviewer="Bo", comment="wrong article")
    s = rs.list()[0]
    assert s.assessment.state == "not_verified" and s.assessment.headline.startswith("not verified: rejected by")
    rs._db.execute("DELETE FROM run_checks")  # a run saved before the checks were kept
    assert rs.list()[0].assessment == s.assessment
    rs.delete(run.id)
    assert rs._db.execute("SELECT count(*) FROM run_checks").fetchone()[0] == 0


def test_cli_reports_list_show_and_export_say_rejected(tmp_path, capsys):
    rs = ReportStore.in_home(A.home())
    run = rs.save(extractive_ask(Relevance(addressed=True, claims=[True])))
    assert main(["reports", "list"]) == 0
    assert "not confirmed" in capsys.readouterr().out  # an extractive pick nobody has accepted yet
    assert main(["reports", "mark", run.id, "1", "rejected", "--reviewer", "Bo", "-m", "a lead-in"]) == 0
    capsys.readouterr()
    assert main(["reports", "list"]) == 0
    out = capsys.readouterr().out
    assert "not verified" in out and "rejected by a reviewer (claim 1, Bo)" in out
    assert main(["reports", "show", run.id]) == 0
    out = capsys.readouterr().out.replace("\\", "")
    assert "not verified: rejected by a reviewer (claim 1, Bo)" in out and "rejected by Bo (automatic" in out
    for ext in ("md", "html", "pdf", "json"):
        assert main(["reports", "export", run.id, str(tmp_path / f"r.{ext}")]) == 0
        back = render.read_export((tmp_path / f"r.{ext}").read_bytes())
        assert back.assessment().claims[0].review == "rejected"


def test_cli_verify_prints_the_headline_and_require_verified(tmp_path, capsys):
    (tmp_path / "a.txt").write_text(FEE[3:].strip() + '<cite id="art31"/>')
    (tmp_path / "s.json").write_text(json.dumps({"art31": UNIT}))
    args = ["verify", "-a", str(tmp_path / "a.txt"), "-s", str(tmp_path / "s.json"), "--scorer", "lexical",
            "--no-save"]
    assert main([*args, "--output", str(tmp_path / "r.json"), "--format", "json", "--require-verified"]) == 0
    assert "verified: 1 of 1 claim supported, quotes verbatim, no question asked ->" in capsys.readouterr().out
    (tmp_path / "a.txt").write_text("Notified bodies are paid a fee of EUR 900 by the Commission.")
    assert main([*args, "--fail-under", "0"]) == 0  # --fail-under alone: the automatic fraction, as before
    assert main([*args, "--fail-under", "0", "--require-verified"]) == 1
    assert "not verified" in capsys.readouterr().out


# -- dashboard --------------------------------------------------------------------------------


def _open(run: Report):
    saved = ReportStore.in_home(A.home()).save(run)
    at = A.app()
    at.session_state["open_run"] = saved.id
    at.switch_page("views/reports.py").run()
    A.no_traceback(at)
    return at, saved


def test_dashboard_reports_page_headlines_off_question_answer_not_verified():
    at, _ = _open(extractive_ask(Relevance(addressed=False, reason=NO_FEE, claims=[False])))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Result"] == "not verified" and metrics["Relevance"] == "not addressed"
    page = A.texts(at).replace("\\", "")
    assert f"not verified: the answer does not address the question ({NO_FEE})" in page
    assert "This claim does not carry the answer the question asks for." in page
    listed = next(df.value for df in at.dataframe if "headline" in df.value.columns)
    assert listed["result"][0] == "not verified" and "verified" not in listed.columns


def test_dashboard_rejected_claim_badge_and_headline():
    at, saved = _open(extractive_ask(Relevance(addressed=True, claims=[True]), reviews=[]))
    ReportStore.in_home(A.home()).review(saved.id, 1, "rejected", reviewer="Bo", comment="a lead-in")
    at.run()
    A.no_traceback(at)
    assert {m.label: m.value for m in at.metric}["Result"] == "not verified"
    page = A.texts(at).replace("\\", "")
    assert "not verified: rejected by a reviewer (claim 1, Bo)" in page
    assert ":red-badge[:material/thumb_down: rejected by Bo]" in page
    assert "rejected by Bo (automatic: supported)" in at.radio[0].options[0].replace("\\", "")
    review = A.table_with(at, "verdict")  # the review table shows full text (st.table)
    assert review["status"][0] == "rejected by Bo (automatic: supported)"


def test_dashboard_contradicted_claim_and_verify_without_question():
    at, _ = _open(verify_run(supported(FEE[3:].strip()), contradicted()))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Result"] == "not verified" and metrics["Contradicted"] == "1"
    assert metrics["Relevance"] == "no question"
    at.radio[0].set_value(1).run()
    assert SIDE[3:] in A.texts(at).replace("\\", "")


def test_dashboard_ask_page_shows_the_headline():
    A.ingest_aiact()
    saved = ReportStore.in_home(A.home()).save(extractive_ask(None))
    at = A.app()
    at.session_state["ask_run"] = saved.id
    at.run()
    A.no_traceback(at)
    assert {m.label: m.value for m in at.metric}["Result"] == "not confirmed"
    assert "not confirmed: 1 of 1 claim supported; relevance not checked" in A.texts(at).replace("\\", "")


def _gated(score: float, confident: float | None = 0.55, writer: str = "extractive") -> Report:
    from anchor_core.report import GateDecision

    r = extractive_ask(Relevance(addressed=True, kind="procedure", focus="notified bodies", claims=[True]))
    r.models["writer"] = writer
    thresholds = {"pass": 0.32, **({"confident": confident} if confident is not None else {})}
    r.gate = GateDecision(verdict="pass", score=score, reason="a retrieved passage answers the question",
                          thresholds=thresholds)
    return r


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_answer_on_evidence_that_barely_passed_the_gate_is_not_headlined_verified(fmt):
    r = _gated(0.41)
    a = r.assessment()
    assert a.state == "unconfirmed" and a.support.supported == 1 and a.relevance.state == "addressed"
    text = shown(r, fmt)
    assert "not confirmed: 1 of 1 claim supported; the evidence barely passed the answerability test (0.41, " \
           "confident from 0.55)" in text
    if fmt != "json":
        assert not says_verified(text)


def test_evidence_above_the_band_or_a_gate_without_one_leaves_the_run_verified():
    llm = "llm:llama-3.3-70b-versatile"
    assert _gated(0.80, writer=llm).assessment().state == "verified"
    assert _gated(0.41, confident=None, writer=llm).assessment().state == "verified"  # saved before the band
    weak = _gated(0.41)
    weak.relevance = Relevance(addressed=False, kind="amount", focus="fee", reason=NO_FEE, claims=[False])
    assert weak.assessment().state == "not_verified"  # a failed check still wins over an open one


def test_the_gate_records_the_band_and_says_when_evidence_barely_passed():
    from anchor_core.ask import answerable as ans_mod
    from anchor_core.ask.gate import GateSignals, decide
    from anchor_core.models import Hit

    hit = Hit(chunk_id="c", unit_id="u", doc_id="d", kind="passage", part=None, heading="", start=0, end=10,
              text="Providers shall keep the logs for six months.", score=1.0)
    for answers in (0.5, None):  # the model with the cross-encoder, and its fallback without it
        seen = set()
        for i in range(41):  # from no tie to a full one: scores cross the threshold and the band
            a = ans_mod.Answerability(analysis=ans_mod.analyse("How long must providers keep the logs?"), focus=1.0,
                                      tied=i / 40, tied_local=i / 40, tied_asked=i / 40, dense=0.6,
                                      answers=answers)
            spec = ans_mod.spec_for(a)
            score = ans_mod.score(a)
            if score < spec["threshold"]:
                continue  # refused: nothing to headline
            d = decide(GateSignals(), hits=[hit], answerability=a)
            assert d.verdict == "pass" and d.thresholds["confident"] == spec["confident"]
            barely = score < spec["confident"]
            assert ("barely passed" in d.reason) == barely
            seen.add(barely)
        assert seen == {True, False}, answers


def test_dashboard_reports_page_headlines_barely_passed_evidence_not_confirmed():
    at, _ = _open(_gated(0.41))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Result"] == "not confirmed" and metrics["Relevance"] == "addressed"
    page = A.texts(at).replace("\\", "")
    assert "the evidence barely passed the answerability test (0.41, confident from 0.55)" in page
    listed = next(df.value for df in at.dataframe if "headline" in df.value.columns)
    assert listed["result"][0] == "not confirmed"


# -- extractive answers: their quotes support themselves, so passing the checks confirms nothing ------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_an_extractive_answer_that_passes_every_check_is_not_confirmed_until_a_reviewer_accepts_it(fmt):
    from anchor_core.assessment import EXTRACTIVE_OPEN

    r = _gated(0.80)  # addressed, supported, verbatim, well above the band
    a = r.assessment()
    assert a.state == "unconfirmed" and a.relevance.state == "addressed" and a.support.supported == 1
    assert [x for x in a.reasons if x.startswith(EXTRACTIVE_OPEN)] == [a.reasons[-1]]
    text = shown(r, fmt)
    assert f"not confirmed: 1 of 1 claim supported; {EXTRACTIVE_OPEN}" in text
    if fmt != "json":
        assert not says_verified(text)
    r.reviews = [Review(claim=1, verdict="accepted", reviewer="Ada")]
    a = r.assessment()
    assert a.state == "verified" and a.claims[0].label == "supported · accepted by Ada"
    assert "verified: 1 of 1 claim supported, quotes verbatim, the answer addresses the question" in shown(r, fmt)


def test_the_extractive_open_item_quotes_the_rate_measured_on_held_out_questions():
    from anchor_core.assessment import extractive_open, extractive_record

    rec = extractive_record()
    assert rec["answers"] > 0 and 0 <= rec["fact_quoted"] <= rec["answers"]
    assert f"({rec['fact_quoted']} of {rec['answers']} such answers did on earlier held-out questions)" \
        in extractive_open()


def test_a_header_answer_and_an_llm_answer_can_still_be_verified():
    header = _gated(0.80)
    header.relevance = Relevance(addressed=True, kind="date", focus="RFC 7009", claims=[True],
                                 method="document header")
    assert header.assessment().state == "verified"
    assert _gated(0.80, writer="llm:qwen").assessment().state == "verified"
    assert verify_run(supported(FEE[3:].strip())).assessment().state == "verified"  # no question: no pick


def test_checks_kept_by_an_older_version_are_made_again(tmp_path):
    rs = ReportStore(tmp_path / "reports.db")
    saved = rs.save(_gated(0.80))
    old = json.loads(rs._db.execute("SELECT checks FROM run_checks").fetchone()[0])
    assert old.pop("version") == 2 and old.pop("extractive")
    rs._db.execute("UPDATE run_checks SET checks = ?", (json.dumps(old),))  # kept before extractive picks stayed open
    assert rs.list()[0].assessment.state == "unconfirmed"
    assert json.loads(rs._db.execute("SELECT checks FROM run_checks").fetchone()[0])["version"] == 2
    assert rs.get(saved.id).assessment().state == "unconfirmed"


def test_a_quote_of_the_unit_the_question_names_addresses_a_question_about_that_unit_only():
    """"What does section 3 require?" is about section 3: a supported quote of it addresses the question though its
    sentence never writes "section 3". A quote of another unit does not become relevant this way, nor does a quote of
    section 3 for a question that asks something of it ("What fee does section 3 set?")."""
    from anchor_core.ask.pipeline import asked_unit_quoted
    from anchor_core.ask.question import analyse
    from anchor_core.ask.relevance import relevance
    from anchor_core.models import Hit, Unit

    text = "3 Safeguards\n(1) An operator who retains data must secure the data against destruction."
    quote = "(1) An operator who retains data must secure the data against destruction."
    unit = Unit(unit_id="act/3", doc_id="act", kind="section", heading="3", title="Safeguards", text=text)
    hit = Hit(chunk_id="c3", unit_id="act/3", doc_id="act", kind="section", start=0, end=len(text), text=text,
              score=0.3, heading="3 Safeguards", named="section 3")
    claim = CheckedClaim(text=quote, cited=[1], supported=True, verdict="supported",
                         anchor=_anchor(quote, text=text, unit="act/3"))
    other = CheckedClaim(text=quote, cited=[1], supported=True, verdict="supported",
                         anchor=_anchor(quote, text=text, unit="act/4"))
    for question, claims, expected in (("What does section 3 require?", [claim], True),
                                       ("What does section 3 require?", [other], False),
                                       ("What fee does section 3 set?", [claim], False)):
        qa = analyse(question)
        before = relevance(question, [c.text for c in claims], analysis=qa)
        assert not before.addressed
        after = asked_unit_quoted(before, qa, [hit], {"act/3": unit}, claims)
        assert after.addressed is expected, question
        assert after.claims == ([True] if expected else before.claims)
