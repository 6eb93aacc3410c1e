"""Re-check a saved report against the current corpus: is each quote still where it was?

For answers saved before a document was amended. Per claim:

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

from anchor_core.ask.report import AskReport
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
    corpus: str
    corpus_version_then: str
    corpus_version_now: str
    checks: list[QuoteCheck]

    @property
    def intact(self) -> bool:
        return all(c.status in ("unchanged", "same", "moved", "no_anchor") for c in self.checks)

    def to_text(self) -> str:
        head = (f"corpus {self.corpus}: version {self.corpus_version_then} then, {self.corpus_version_now} now"
                if self.corpus_version_then != self.corpus_version_now else f"corpus {self.corpus}: same version")
        lines = [head]
        for i, c in enumerate(self.checks, 1):
            lines.append(f"  {i}. {c.status:<9} {c.unit_id or '-':<14} {c.detail}")
        lines.append("all quotes intact" if self.intact else "some quotes changed or are gone: re-read them")
        return "\n".join(lines)


def recheck(report: AskReport, store: Store) -> Recheck:
    now = store.corpus(report.corpus)  # CorpusNotFound when the corpus was deleted
    ids = sorted({c.anchor.unit_id for c in report.claims if c.anchor})
    units = store.get_units(report.corpus, ids)
    checks = []
    for c in report.claims:
        a = c.anchor
        if a is None:
            checks.append(QuoteCheck(claim=c.text, status="no_anchor", detail="the claim had no anchor"))
            continue
        u = units.get(a.unit_id)
        if u is None:
            checks.append(QuoteCheck(claim=c.text, unit_id=a.unit_id, status="gone",
                                     detail=f"{a.unit_id} is no longer in the corpus"))
            continue
        text = u.text
        if a.unit_sha256 and hashlib.sha256(text.encode()).hexdigest() == a.unit_sha256:
            checks.append(QuoteCheck(claim=c.text, unit_id=a.unit_id, status="unchanged", start=a.start, end=a.end,
                                     detail=f"unit text identical; quote at [{a.start}:{a.end}]"))
        elif text[a.start:a.end] == a.quote:
            checks.append(QuoteCheck(claim=c.text, unit_id=a.unit_id, status="same", start=a.start, end=a.end,
                                     detail=f"unit amended elsewhere; quote still at [{a.start}:{a.end}]"))
        elif (pos := text.find(a.quote)) >= 0:
            checks.append(QuoteCheck(claim=c.text, unit_id=a.unit_id, status="moved", start=pos,
                                     end=pos + len(a.quote), quote=a.quote,
                                     detail=f"quote moved from [{a.start}:{a.end}] to [{pos}:{pos + len(a.quote)}]"))
        else:
            al = fuzz.partial_ratio_alignment(a.quote, text, score_cutoff=90)
            if al is not None:
                s, e = al.dest_start, al.dest_end
                checks.append(QuoteCheck(claim=c.text, unit_id=a.unit_id, status="changed", start=s, end=e,
                                         quote=text[s:e],
                                         detail=f"quote changed ({al.score:.0f}/100 similar) at [{s}:{e}]: re-read it"))
            else:
                checks.append(QuoteCheck(claim=c.text, unit_id=a.unit_id, status="gone",
                                         detail="the quote is no longer in the unit"))
    return Recheck(corpus=report.corpus, corpus_version_then=report.corpus_version, corpus_version_now=now.version,
                   checks=checks)
