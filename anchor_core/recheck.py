"""Re-check a saved report: is each quote still where it was?

An ask run is checked against the current corpus (for answers saved before a document was
amended); a verify run against new versions of its sources when given, else against the source
texts saved with it (a check that the report itself is intact). Per anchored quote:

``unchanged``  the unit text is byte-identical (same sha256), so the quote is at its offsets;
``same``       the unit changed elsewhere but ``text[start:end]`` is still the quote;
``moved``      the quote is still in the unit, at new offsets (given);
``changed``    only a near match remains (rapidfuzz ≥ 90): the closest span is given, re-read it;
``gone``       the unit or the quote is no longer there.
"""

from __future__ import annotations

import hashlib
from typing import Literal

from pydantic import BaseModel
from rapidfuzz import fuzz

from anchor_core.report import CheckedClaim, ClaimAnchor, Report
from anchor_core.stores.base import Store

Status = Literal["unchanged", "same", "moved", "changed", "gone", "no_anchor"]


class QuoteCheck(BaseModel):
    claim: str
    unit_id: str | None = None
    status: Status
    detail: str
    start: int | None = None
    end: int | None = None
    quote: str | None = None
    """The current text at the (new) offsets, for ``moved`` and ``changed``."""


class Recheck(BaseModel):
    kind: str = "ask"
    corpus: str
    corpus_version_then: str
    corpus_version_now: str
    checks: list[QuoteCheck]

    @property
    def intact(self) -> bool:
        return all(c.status in ("unchanged", "same", "moved", "no_anchor") for c in self.checks)

    def to_text(self) -> str:
        if self.kind == "verify":
            head = f"sources: {self.corpus_version_now}"
        elif self.corpus_version_then != self.corpus_version_now:
            head = f"corpus {self.corpus}: version {self.corpus_version_then} then, {self.corpus_version_now} now"
        else:
            head = f"corpus {self.corpus}: same version"
        lines = [head]
        for i, c in enumerate(self.checks, 1):
            lines.append(f"  {i}. {c.status:<9} {c.unit_id or '-':<14} {c.detail}")
        lines.append("all quotes intact" if self.intact else "some quotes changed or are gone: re-read them")
        return "\n".join(lines)


def recheck(report: Report, store: Store | None = None, *, sources: dict[str, str] | None = None) -> Recheck:
    """Each quote of ``report`` against the texts it was anchored in, as they are now.

    Args:
        store: the corpus store (ask runs).
        sources: new versions of a verify run's sources (id → text); default the texts saved with it.
    """
    ids = sorted({a.unit_id for c in report.claims for a in _anchors(c)})
    if report.kind == "ask":
        if store is None:
            raise ValueError("re-checking an ask run needs the corpus store")
        now = store.corpus(report.corpus).version  # CorpusNotFound when the corpus was deleted
        texts = {k: u.text for k, u in store.get_units(report.corpus, ids).items()}
        where = "{} is no longer in the corpus"
    else:
        texts = sources if sources is not None else {s.unit_id: s.text for s in report.sources}
        now = "the texts given" if sources is not None else "the texts saved with the run"
        where = f"{{}} is not among {now}"
    checks = []
    for c in report.claims:
        anchors = _anchors(c)
        if not anchors:
            checks.append(QuoteCheck(claim=c.text, status="no_anchor", detail="the claim had no anchor"))
        checks += [_check(c.text, a, texts.get(a.unit_id), where) for a in anchors]
    return Recheck(kind=report.kind, corpus=report.corpus, corpus_version_then=report.corpus_version,
                   corpus_version_now=now, checks=checks)


def _anchors(c: CheckedClaim) -> list[ClaimAnchor]:
    found = [a.anchor for a in c.atoms if a.anchor is not None]
    return found or ([c.anchor] if c.anchor else [])


def _check(claim: str, a: ClaimAnchor, text: str | None, missing: str) -> QuoteCheck:
    if text is None:
        return QuoteCheck(claim=claim, unit_id=a.unit_id, status="gone", detail=missing.format(a.unit_id))
    if a.unit_sha256 and hashlib.sha256(text.encode()).hexdigest() == a.unit_sha256:
        return QuoteCheck(claim=claim, unit_id=a.unit_id, status="unchanged", start=a.start, end=a.end,
                          detail=f"unit text identical; quote at [{a.start}:{a.end}]")
    if text[a.start:a.end] == a.quote:
        return QuoteCheck(claim=claim, unit_id=a.unit_id, status="same", start=a.start, end=a.end,
                          detail=f"unit amended elsewhere; quote still at [{a.start}:{a.end}]")
    if (pos := text.find(a.quote)) >= 0:
        return QuoteCheck(claim=claim, unit_id=a.unit_id, status="moved", start=pos, end=pos + len(a.quote),
                          quote=a.quote, detail=f"quote moved from [{a.start}:{a.end}] to [{pos}:{pos + len(a.quote)}]")
    al = fuzz.partial_ratio_alignment(a.quote, text, score_cutoff=90)
    if al is not None:
        s, e = al.dest_start, al.dest_end
        return QuoteCheck(claim=claim, unit_id=a.unit_id, status="changed", start=s, end=e, quote=text[s:e],
                          detail=f"quote changed ({al.score:.0f}/100 similar) at [{s}:{e}]: re-read it")
    return QuoteCheck(claim=claim, unit_id=a.unit_id, status="gone", detail="the quote is no longer in the unit")
