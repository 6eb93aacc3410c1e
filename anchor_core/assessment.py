"""What a run may be headlined as: three separate checks and the reviewers' marks, never one number.

:func:`checks` answers the three automatic questions of a :class:`~anchor_core.report.Report`
separately — are the quotes verbatim at their offsets (faithfulness), does the answer address the
question (relevance), and how many claims are supported, contradicted or not found (support) — and
:func:`assess` puts them together with the latest reviewer mark per claim into one honest state:

- ``verified``: every claim supported (or accepted by a reviewer), every quote verbatim, the answer
  addresses the question (or there is no question), no reviewer mark rejects a claim or asks for work;
- ``unconfirmed``: nothing failed, but something that ``verified`` needs was not checked (relevance
  not checked, a quote whose text is not in the record), a supported claim carries drift flags, the
  gate answered on evidence that barely passed (under its ``confident`` band), or the answer is the
  extractive writer's pick of source sentences that no reviewer has accepted yet: its quotes support
  themselves, and on held-out questions fewer than half of such picks that passed every check quoted
  the asked fact (``data/extractive.json``), so passing them is no confirmation;
- ``not_verified``: a check failed or a reviewer rejected a claim or asked for work;
- ``refused``: the run did not answer.

Reviewer marks override the automatic *support* verdict of their claim (``rejected`` and
``needs_work`` make it not verified, ``accepted`` makes it count as supported, shown beside the
automatic verdict); they do not turn a failed quote or relevance check into a pass.

Every renderer, the dashboard and ``anchor reports list`` show :attr:`Assessment.headline`.

>>> report.assessment().headline                                  # doctest: +SKIP
'not verified: the answer does not address the question (the sources describe fees but state no amount)'
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel, Field

from anchor_core.report import MARKS, Mark, Review, Status, Verdict
from anchor_core.text import count

if TYPE_CHECKING:
    from anchor_core.report import ClaimAnchor, Report

State = Literal["verified", "unconfirmed", "not_verified", "refused"]
STATE_TEXT: dict[str, str] = {"verified": "verified", "unconfirmed": "not confirmed",
                              "not_verified": "not verified", "refused": "refused"}
VERDICT_TEXT: dict[str, str] = {"supported": "supported", "partially_supported": "partially supported",
                                "contradicted": "contradicted", "not_found": "not found"}


class Faithfulness(BaseModel):
    """Is each anchor's quote verbatim at its offsets in the text the record carries?"""

    state: Literal["verbatim", "not_verbatim", "not_rechecked", "no_quotes"]
    verbatim: int = 0
    not_verbatim: list[int] = Field(default_factory=list)
    """Claim numbers (1-based) whose quote (or contradicting quote) is not at its offsets."""
    not_rechecked: list[int] = Field(default_factory=list)
    """Claim numbers whose quote lies outside the text kept in the record (ask: the retrieved chunk)."""

    @property
    def text(self) -> str:
        if self.state == "no_quotes":
            return "no quotes to check"
        total = self.verbatim + len(self.not_verbatim) + len(self.not_rechecked)
        parts = [f"{self.verbatim} of {count(total, 'quote')} verbatim at their offsets"]
        if self.not_verbatim:
            parts.append(f"not verbatim: {_claims(self.not_verbatim)}")
        if self.not_rechecked:
            parts.append(f"not re-checked (text not in the record): {_claims(self.not_rechecked)}")
        return "; ".join(parts)


class RelevanceCheck(BaseModel):
    """Does the answer address the question, from :attr:`Report.relevance`."""

    state: Literal["addressed", "not_addressed", "not_checked", "no_question"]
    reason: str = ""
    kind: str = ""
    focus: str = ""
    off_question: list[int] = Field(default_factory=list)
    """Claim numbers the relevance check found not to carry the asked answer."""

    @property
    def text(self) -> str:
        if self.state == "addressed":
            kind = self.kind.replace("yes_no", "yes/no").replace("_", " ")
            what = " ".join(x for x in (kind, "about " + self.focus if self.focus else "") if x)
            return "addresses the question" + (f" ({what})" if what else "")
        if self.state == "not_addressed":
            return "does not address the question" + (f" ({self.reason})" if self.reason else "")
        return "not checked" if self.state == "not_checked" else "no question asked"


class Support(BaseModel):
    """Automatic verdict counts."""

    claims: int = 0
    supported: int = 0
    partially: int = 0
    contradicted: int = 0
    not_found: int = 0
    flagged: int = 0
    """Supported claims that carry drift flags (``number_mismatch``, ``wrong_source`` ...)."""

    @property
    def text(self) -> str:
        if not self.claims:
            return "no claims"
        out = f"{self.supported} of {count(self.claims, 'claim')} supported"
        rest = [f"{n} {w}" for n, w in ((self.partially, "partially supported"), (self.contradicted, "contradicted"),
                                        (self.not_found, "not found")) if n]
        if self.flagged:
            rest.append(f"{self.flagged} flagged")
        return out + (", " + ", ".join(rest) if rest else "")


class ClaimCheck(BaseModel):
    """One claim's automatic checks."""

    n: int
    verdict: Verdict
    status: Status
    flags: list[str] = Field(default_factory=list)
    verbatim: bool | None = None
    """``None``: no quote, or its text is not in the record."""
    addresses: bool | None = None
    """From the relevance check's per-claim list; ``None`` when not checked."""


CHECKS_VERSION = 2
"""Bumped when :func:`checks` changes what it finds on the same record (2: extractive answers stay open), so that
checks kept by a report store are made again."""


class Checks(BaseModel):
    """The automatic part of an assessment: fixed once the run is made (reviews come on top)."""

    version: int = 1
    """:data:`CHECKS_VERSION` of the code that made them (1: kept before versions were recorded)."""
    kind: str
    refused: bool = False
    reason: str = ""
    faithfulness: Faithfulness
    relevance: RelevanceCheck
    support: Support
    claims: list[ClaimCheck] = Field(default_factory=list)
    weak_evidence: str = ""
    """Set when the gate answered on evidence that barely passed (its score under the ``confident`` band that
    the gate recorded): answers that weak were more often wrong than right on held-out questions."""
    extractive: str = ""
    """Set when the answer is the extractive writer's pick of source sentences (:data:`EXTRACTIVE_OPEN`): its
    quotes support themselves, and no automatic check tells whether they state the asked answer."""


class ClaimState(ClaimCheck):
    """One claim as every summary shows it: the automatic verdict with the reviewer's mark on top."""

    review: Mark | None = None
    reviewer: str = ""
    comment: str = ""
    verified: bool = False
    label: str = ""
    """``supported``, ``contradicted``, ``rejected by A. Auditor (automatic: supported)``,
    ``supported · accepted by A. Auditor`` ..."""


class Assessment(BaseModel):
    state: State
    headline: str
    """One line in plain words: ``verified: ...``, ``not verified: ...``, ``refused: ...``."""
    reasons: list[str] = Field(default_factory=list)
    """What keeps the run from ``verified`` (empty when verified)."""
    faithfulness: Faithfulness
    relevance: RelevanceCheck
    support: Support
    claims: list[ClaimState] = Field(default_factory=list)
    accepted: int = 0
    rejected: int = 0
    needs_work: int = 0

    @property
    def verified(self) -> bool:
        return self.state == "verified"

    @property
    def short(self) -> str:
        """The state in two words or so, for a table cell or a metric."""
        return STATE_TEXT[self.state]


EXTRACTIVE_OPEN = "extractive answer: no check confirms that the quoted sentences state the asked answer"
"""The open item of an extractive answer (the reason text starts with it)."""


@cache
def extractive_record() -> dict[str, Any]:
    """How often extractive answers that passed every other check quoted the asked fact on held-out questions
    (``anchor_core/data/extractive.json``, written by ``python -m eval.fresh --write-extractive``)."""
    try:
        return json.loads(resources.files("anchor_core").joinpath("data/extractive.json").read_text("utf-8"))
    except (OSError, ValueError):
        return {}


def extractive_open() -> str:
    """:data:`EXTRACTIVE_OPEN` with the measured rate, and what confirms the answer."""
    rec = extractive_record()
    n, k = rec.get("answers", 0), rec.get("fact_quoted", 0)
    rate = f" ({k} of {n} such answers did on earlier held-out questions)" if n else ""
    return f"{EXTRACTIVE_OPEN}{rate}; a reviewer's acceptance confirms it"


def _extractive(report: Report) -> bool:
    """An ask run answered by the extractive writer from retrieved passages (a document header's date or authors
    is read from the header's own cells, and the date of a cited work the question names from its reference entry,
    not picked by similarity, so neither is one)."""
    rel = report.relevance
    return (report.kind == "ask" and not report.refused and report.models.get("writer") == "extractive"
            and not (rel is not None and rel.method in ("document header", "reference list")))


def _claims(ns: list[int]) -> str:
    return ("claim " if len(ns) == 1 else "claims ") + ", ".join(map(str, ns))


def _verbatim(report: Report, a: ClaimAnchor) -> bool | None:
    """Is ``a.quote`` at ``[a.start, a.end)`` of its source's text? ``None`` when the record lacks that text."""
    s = report.source(a.source)
    if s is None or not s.text or not (s.start <= a.start <= a.end <= s.start + len(s.text)):
        return None
    return s.text[a.start - s.start:a.end - s.start] == a.quote


def checks(report: Report) -> Checks:
    """The three automatic checks of ``report``, each on its own."""
    claims, bad, unknown, ok = [], [], [], 0
    for i, c in enumerate(report.claims, 1):
        anchors = [a for a in (c.anchor, c.contradiction) if a is not None]
        found = [_verbatim(report, a) for a in anchors]
        verbatim = False if False in found else True if found and None not in found else None
        if verbatim is True:
            ok += 1
        elif verbatim is False:
            bad.append(i)
        elif found:
            unknown.append(i)
        rel = report.relevance
        addresses = rel.claims[i - 1] if rel is not None and len(rel.claims) >= i else None
        claims.append(ClaimCheck(n=i, verdict=c.verdict, status=c.status, flags=list(c.flags), verbatim=verbatim,
                                 addresses=addresses))
    state = ("no_quotes" if not (ok or bad or unknown) else "not_verbatim" if bad else
             "not_rechecked" if unknown else "verbatim")
    faith = Faithfulness(state=state, verbatim=ok, not_verbatim=bad, not_rechecked=unknown)  # type: ignore[arg-type]
    rel = report.relevance
    if not report.question.strip():
        relevance = RelevanceCheck(state="no_question")
    elif rel is None:
        relevance = RelevanceCheck(state="not_checked")
    else:
        relevance = RelevanceCheck(state="addressed" if rel.addressed else "not_addressed", reason=rel.reason,
                                   kind=rel.kind, focus=rel.focus,
                                   off_question=[i for i, x in enumerate(rel.claims, 1) if not x])
    v = [c.verdict for c in report.claims]
    support = Support(claims=len(v), supported=v.count("supported"), partially=v.count("partially_supported"),
                      contradicted=v.count("contradicted"), not_found=v.count("not_found"),
                      flagged=sum(c.verdict == "supported" and bool(c.flags) for c in report.claims))
    g = report.gate
    weak = ""
    if g is not None and g.verdict == "pass" and "confident" in g.thresholds and g.score < g.thresholds["confident"]:
        weak = (f"the evidence barely passed the answerability test ({g.score:.2f}, confident from "
                f"{g.thresholds['confident']:.2f}): answers that weak were more often wrong than right on "
                "held-out questions")
    return Checks(version=CHECKS_VERSION, kind=report.kind, refused=report.refused, reason=report.reason,
                  faithfulness=faith, relevance=relevance, support=support, claims=claims, weak_evidence=weak,
                  extractive=extractive_open() if _extractive(report) else "")


def _label(c: ClaimCheck, mark: Review | None) -> str:
    auto = "flagged" if c.status == "flagged" and c.verdict == "supported" else VERDICT_TEXT[c.verdict]
    if mark is None:
        return auto
    if mark.verdict == "accepted":
        return f"{auto} · accepted by {mark.reviewer}"
    return f"{MARKS[mark.verdict]} ({mark.reviewer}; automatic: {auto})" if mark.verdict == "needs_work" else \
        f"rejected by {mark.reviewer} (automatic: {auto})"


def assess(ch: Checks, marks: Mapping[int, Review] | None = None) -> Assessment:
    """The honest state of a run from its automatic checks and the latest reviewer mark per claim."""
    marks = marks or {}
    states = []
    for c in ch.claims:
        m = marks.get(c.n)
        verdict_ok = c.verdict == "supported" or (m is not None and m.verdict == "accepted")
        ok = verdict_ok and c.verbatim is not False and (m is None or m.verdict == "accepted")
        states.append(ClaimState(**c.model_dump(), review=m.verdict if m else None, reviewer=m.reviewer if m else "",
                                 comment=m.comment if m else "", verified=ok, label=_label(c, m)))
    by = {v: [s for s in states if s.review == v] for v in MARKS}
    base = {"faithfulness": ch.faithfulness, "relevance": ch.relevance, "support": ch.support, "claims": states,
            "accepted": len(by["accepted"]), "rejected": len(by["rejected"]), "needs_work": len(by["needs_work"])}
    if ch.refused:
        return Assessment(state="refused", headline=f"refused: {ch.reason}" if ch.reason else "refused",
                          reasons=["refused"], **base)
    if not states:
        return Assessment(state="not_verified", headline="not verified: no claims were checked",
                          reasons=["no claims were checked"], **base)

    def who(group: list[ClaimState]) -> str:
        names = sorted({s.reviewer for s in group})
        return f"{_claims([s.n for s in group])}, {', '.join(names)}"

    failed: list[str] = []
    if by["rejected"]:
        failed.append(f"rejected by a reviewer ({who(by['rejected'])})")
    if by["needs_work"]:
        failed.append(f"a reviewer asks for work ({who(by['needs_work'])})")
    if ch.faithfulness.not_verbatim:
        failed.append(f"quote not verbatim at its offsets ({_claims(ch.faithfulness.not_verbatim)})")
    if ch.relevance.state == "not_addressed":
        failed.append("the answer " + ch.relevance.text)
    unsupported = [s for s in states if s.verdict != "supported" and s.review != "accepted"]
    overridden = [s for s in states if s.verdict != "supported" and s.review == "accepted"]
    support = ch.support.text + (f" ({len(overridden)} accepted by a reviewer)" if overridden else "")
    if unsupported:
        failed.append(support)
    if failed:
        return Assessment(state="not_verified", headline="not verified: " + "; ".join(failed), reasons=failed, **base)
    open_: list[str] = []
    if ch.weak_evidence:
        open_.append(ch.weak_evidence)
    if ch.relevance.state == "not_checked":
        open_.append("relevance not checked")
    if ch.faithfulness.not_rechecked:
        open_.append(f"quote not re-checked ({_claims(ch.faithfulness.not_rechecked)})")
    flagged = [s for s in states if s.flags and s.review != "accepted"]
    if flagged:
        open_.append("flagged: " + "; ".join(f"claim {s.n} {', '.join(f.replace('_', ' ') for f in s.flags)}"
                                            for s in flagged))
    # an extractive pick is confirmed by a reviewer who accepts one of its claims, not by its own quotes
    if ch.extractive and not by["accepted"]:
        open_.append(ch.extractive)
    if open_:
        return Assessment(state="unconfirmed", headline=f"not confirmed: {support}; " + "; ".join(open_),
                          reasons=open_, **base)
    tail = ("the answer addresses the question" if ch.relevance.state == "addressed" else "no question asked")
    return Assessment(state="verified", headline=f"verified: {support}, quotes verbatim, {tail}", **base)
