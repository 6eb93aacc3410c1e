"""Re-check a saved report: is each quote still where it was?

An ask run is checked against the current corpus (for answers saved before a document was
amended); a verify run against new versions of its sources when given, else against the source
texts saved with it (a check that the report itself is intact). Per anchored quote:

``unchanged``  the unit text is byte-identical (same sha256), so the quote is at its offsets;
``same``       the unit changed elsewhere but ``text[start:end]`` is still the quote;
``moved``      the quote is still in the unit, at new offsets (given);
``changed``    only a near match remains (rapidfuzz ≥ 90): the closest span is given with the
               differences in words (a number, a date, a negation, other wording);
``gone``       the unit or the quote is no longer there, or the corpus or document was deleted
               (reported per quote, never as an error).

A ``changed`` check carries the saved quote (``old``) and the current span (``quote``), and
:func:`diff` splits the pair into equal and differing runs of words, for a side-by-side view.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from typing import Literal

from pydantic import BaseModel, Field
from rapidfuzz import fuzz

from anchor_core.errors import CorpusNotFound
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
    old: str | None = None
    """The quote saved with the run, for ``changed`` and ``gone``."""
    changes: list[str] = Field(default_factory=list)
    """What changed, in words (``changed``): ``a number changed: 72 → 48`` …"""


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
            if c.status == "changed":
                lines += [f"       then: “{c.old}”", f"       now:  “{c.quote}”"]
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
        try:
            now = store.corpus(report.corpus).version
        except CorpusNotFound:  # deleted since the run: every quote is gone, which is the answer
            gone = f"corpus {report.corpus!r} was deleted"
            checks = []
            for c in report.claims:
                anchors = _anchors(c)
                if not anchors:
                    checks.append(QuoteCheck(claim=c.text, status="no_anchor", detail="the claim had no anchor"))
                checks += [QuoteCheck(claim=c.text, unit_id=a.unit_id, status="gone", old=a.quote,
                                      detail=f"{gone}; its quote cannot be found any more") for a in anchors]
            return Recheck(kind="ask", corpus=report.corpus, corpus_version_then=report.corpus_version,
                           corpus_version_now="deleted", checks=checks)
        texts = {k: u.text for k, u in store.get_units(report.corpus, ids).items()}
        docs = {d.doc_id for d in store.documents(report.corpus)}
        lost = {s.unit_id for s in report.sources if s.doc_id and s.doc_id not in docs}
        where = "{} is no longer in the corpus"
        missing = {u: f"the document holding {u} was deleted" for u in lost}
    else:
        texts = sources if sources is not None else {s.unit_id: s.text for s in report.sources}
        now = "the texts given" if sources is not None else "the texts saved with the run"
        where = f"{{}} is not among {now}"
        missing = {}
    checks = []
    for c in report.claims:
        anchors = _anchors(c)
        if not anchors:
            checks.append(QuoteCheck(claim=c.text, status="no_anchor", detail="the claim had no anchor"))
        checks += [_check(c.text, a, texts.get(a.unit_id), missing.get(a.unit_id, where)) for a in anchors]
    return Recheck(kind=report.kind, corpus=report.corpus, corpus_version_then=report.corpus_version,
                   corpus_version_now=now, checks=checks)


def _anchors(c: CheckedClaim) -> list[ClaimAnchor]:
    found = [a.anchor for a in c.atoms if a.anchor is not None]
    return found or ([c.anchor] if c.anchor else [])


def _check(claim: str, a: ClaimAnchor, text: str | None, missing: str) -> QuoteCheck:
    if text is None:
        return QuoteCheck(claim=claim, unit_id=a.unit_id, status="gone", old=a.quote, detail=missing.format(a.unit_id))
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
        s, e = _widen(text, al.dest_start, al.dest_end)
        changes = describe(a.quote, text[s:e])
        return QuoteCheck(claim=claim, unit_id=a.unit_id, status="changed", start=s, end=e, quote=text[s:e],
                          old=a.quote, changes=changes,
                          detail=f"the quote was reworded: {'; '.join(changes)} — re-read it")
    return QuoteCheck(claim=claim, unit_id=a.unit_id, status="gone", old=a.quote,
                      detail="the quote is no longer in the unit")


def _widen(text: str, s: int, e: int) -> tuple[int, int]:
    """The aligned span grown to whole words (an alignment may start or stop inside one)."""
    while s > 0 and not text[s - 1].isspace():
        s -= 1
    while e < len(text) and not text[e].isspace() and text[e] not in ".;,:":
        e += 1
    return s, e


# -- what changed, in words --------------------------------------------------------------------

_TOKEN = re.compile(r"(?:\d[\d,.]*\d|[\w'’-]+|[^\w\s])\s*")
_NUMBER = re.compile(r"\d")
_MONTHS = ("january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
           "november", "december")
_DATE = re.compile(r"\d{4}-\d{2}-\d{2}|\d{1,2}/\d{1,2}/\d{2,4}|\b(?:19|20)\d{2}\b|\b(?:" + "|".join(_MONTHS) + r")\b",
                   re.I)
_NEGATION = {"not", "no", "never", "none", "nor", "neither", "without", "cannot", "won't", "don't",
             "doesn't", "isn't", "aren't", "mustn't", "needn't", "unless", "except"}


def diff(old: str, new: str) -> list[tuple[str, str, str]]:
    """``old`` and ``new`` as runs of words: ``(op, old_text, new_text)`` with op ``equal``,
    ``replace``, ``delete`` (only in old) or ``insert`` (only in new); whitespace kept.

    >>> diff("within 72 hours", "within 48 hours")
    [('equal', 'within ', 'within '), ('replace', '72 ', '48 '), ('equal', 'hours', 'hours')]
    """
    a, b = _tokens(old), _tokens(new)
    sm = difflib.SequenceMatcher(a=[w.strip().lower() for w in a], b=[w.strip().lower() for w in b],
                                 autojunk=False)
    return [(op, "".join(a[i1:i2]), "".join(b[j1:j2])) for op, i1, i2, j1, j2 in sm.get_opcodes()]


def _tokens(text: str) -> list[str]:
    """Words with the whitespace after each (joined back they are the text)."""
    out = [m.group() for m in _TOKEN.finditer(text)]
    lead = text[: len(text) - len(text.lstrip())]
    return ([lead] if lead else []) + out


def describe(old: str, new: str) -> list[str]:
    """What changed from ``old`` to ``new``, in words a reviewer reads: numbers, dates and negations
    first (they change what a rule says), then other wording.

    >>> describe("notify within 72 hours", "notify within 48 hours")
    ['a number changed: 72 → 48']
    >>> describe("The provider shall keep logs", "The provider shall not keep logs")
    ['a negation was added: “not”']
    """
    out: list[str] = []
    for op, was, now in diff(old, new):
        if op == "equal":
            continue
        w, n = " ".join(was.split()), " ".join(now.split())
        neg_was = {t.strip(".,;:()").lower() for t in w.split()} & _NEGATION
        neg_now = {t.strip(".,;:()").lower() for t in n.split()} & _NEGATION
        if neg_now - neg_was:
            out.append(f"a negation was added: “{n}”" if op == "insert" else f"a negation was added: “{w}” → “{n}”")
        elif neg_was - neg_now:
            out.append(f"a negation was removed: “{w}”" if op == "delete" else
                       f"a negation was removed: “{w}” → “{n}”")
        elif _DATE.search(w) or _DATE.search(n):
            out.append(f"a date changed: {w or '(none)'} → {n or '(none)'}")
        elif _NUMBER.search(w) or _NUMBER.search(n):
            out.append(f"a number changed: {w or '(none)'} → {n or '(none)'}")
        elif op == "insert":
            out.append(f"words added: “{n}”")
        elif op == "delete":
            out.append(f"words removed: “{w}”")
        else:
            out.append(f"wording changed: “{w}” → “{n}”")
    return out or ["only spacing or letter case changed"]
