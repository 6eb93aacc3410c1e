"""``check``: the one anchoring stage. Claims in; each claim anchored to the best span of the given
sources, with a verdict, flags and reasons, out. Both ``ask`` and ``verify_answer`` call it.

A span is found by :func:`anchor_core.anchoring.best_anchor` (sentence candidates → verbatim fast
path | scorer → verdict); offsets are mapped from the source text into the stored unit text, so
``unit.text[start:end] == quote``. A sentence that supported one claim is avoided for the next
when a near-equal span exists elsewhere.

Two options say how the caller's claims are meant, and are the only difference between ask and
verify today (the verdicts issue will decide them once for both):

- ``cited_only``: check a claim only against the sources its markers name (verify, where a cite is
  the author's statement), instead of against every source with a wrong marker flagged
  ``wrong_source`` (ask, where the writer's marker is a hint);
- ``split_atoms``: split each claim into atoms and anchor each atom in its own best source, the
  claim being ``partially_supported`` when only some are (verify); otherwise a compound claim must be
  carried by one source (ask).

With a ``reader`` (:class:`anchor_core.crossencoder.ContradictionReader`), every supported claim's quote is
read against the claim once the rules have spoken: a quote the trained reader judges to state otherwise
flags the claim ``may_state_otherwise`` (shown as flagged, never as verified, until a reviewer accepts it).
The verdict is left to the rules, which name what differs; the reader names nothing.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from anchor_core import contradiction
from anchor_core.anchoring import Anchor, InputError, best_anchor, decompose
from anchor_core.embeddings import Embedder
from anchor_core.report import Atom, CheckedClaim, ClaimAnchor, Source, Verdict
from anchor_core.scorers import Scorer


class Claim(Protocol):
    text: str
    cited: list[int]


class Reader(Protocol):
    """Scores (quote, claim) pairs: at least ``threshold`` means the quote states otherwise."""

    name: str
    threshold: float

    def score(self, quotes: Sequence[str], claims: Sequence[str]) -> list[float]: ...


def check(claims: Sequence[Claim], sources: Sequence[Source], *, scorer: Scorer, embedder: Embedder | None = None,
          units: Mapping[str, str] | None = None, cited_only: bool = False,
          split_atoms: bool = False, min_about: float | None = None,
          min_support: float | None = None, reader: Reader | None = None) -> list[CheckedClaim]:
    """Anchor every claim in ``sources``; see the module docstring for the options.

    Args:
        units: stored unit texts by unit id, when known: each anchor is checked to point into them.
        min_about: how much of a claim the sentence it is about must hold for a conflict there to make the
            claim ``contradicted`` (default :data:`anchor_core.contradiction.MIN_ABOUT`; above 1 turns it off).
        min_support: the same for a sentence that restates the claim (default
            :data:`anchor_core.contradiction.MIN_SUPPORT`; above 1 turns it off).
        reader: reads each supported claim's quote against the claim; a quote read as stating otherwise
            flags the claim ``may_state_otherwise`` (see the module docstring). ``None``: rules only.

    A claim is first matched to the sentence it is about (:mod:`anchor_core.contradiction`); when that
    sentence states otherwise (negation, modality, number, date, actor, a dropped condition), the claim is
    ``contradicted`` quoting it, whatever the scorer says of other sentences. When it restates the claim
    (:func:`anchor_core.contradiction.support`: the claim's words, numbers, forces and polarity, nothing in
    conflict) the claim is ``supported`` quoting it even when the scorer's best window fell short.
    """
    by_n = {s.n: s for s in sources}
    used: dict[int, set[int]] = {}
    out: list[CheckedClaim] = []
    for c in claims:
        cited = [by_n[n] for n in dict.fromkeys(c.cited) if n in by_n] if cited_only else []
        pool = cited or list(sources)
        atoms: list[Atom] = []
        wrong: list[Source] = []
        for part in (_atoms(c.text) if split_atoms else [c.text]):
            found = _best(part, pool, scorer, embedder, used, whole=not split_atoms)
            if found is None:
                atoms.append(Atom(text=part))
                continue
            src, a = found
            if a.supported:
                used.setdefault(src.n, set()).update(a.sentences)
                if c.cited and src.n not in c.cited:
                    wrong.append(src)
            atoms.append(Atom(text=part, supported=a.supported, anchor=_anchor(src, a, units),
                              reasons=list(a.reasons)))
        claim = _claim(c, atoms, wrong, cited, by_n)
        texts = [s.text for s in pool]
        against = contradiction.find(c.text, texts,
                                     min_about=contradiction.MIN_ABOUT if min_about is None else min_about)
        if against is None and claim.verdict == "supported" and (min_about is None or min_about <= 1):
            against = _quote_states_otherwise(atoms, pool)
        if against is not None:
            claim = _contradicted(claim, pool[against.source], against, units)
        elif claim.verdict != "supported":
            restated = contradiction.support(c.text, texts, min_about=contradiction.MIN_SUPPORT
                                             if min_support is None else min_support)
            if restated is not None:
                claim = _restated(claim, pool[restated.source], restated, units)
        out.append(claim)
    return _read(out, reader) if reader is not None else out


def reading_pairs(c: CheckedClaim) -> list[tuple[str, str]]:
    """The (quote, text) pairs a reader reads for a claim: each supported atom against its own quote, or a claim
    restated by one sentence against that sentence."""
    if c.anchor is not None and c.anchor.method == "restated":
        return [(c.anchor.quote, c.text)]
    return [(a.anchor.quote, a.text) for a in c.atoms if a.supported and a.anchor is not None]


def _read(claims: list[CheckedClaim], reader: Reader) -> list[CheckedClaim]:
    """Flag every supported claim whose quote the reader reads as stating otherwise (:func:`reading_pairs`)."""
    pairs = [(i, q, t) for i, c in enumerate(claims) if c.verdict == "supported" for q, t in reading_pairs(c)]
    if not pairs:
        return claims
    scores = reader.score([q for _, q, _ in pairs], [t for _, _, t in pairs])
    worst: dict[int, tuple[float, str]] = {}
    for (i, quote, _), s in zip(pairs, scores):
        if s >= reader.threshold and s > worst.get(i, (-1.0, ""))[0]:
            worst[i] = (s, quote)
    out = list(claims)
    for i, (s, quote) in worst.items():
        c = out[i]
        reason = (f"may state otherwise: the trained contradiction reader ({reader.name}) scores {s:.3f} ≥ "
                  f"{reader.threshold:.3f} that “{_opening(quote)}” says something else than the claim; no rule "
                  "names a difference, so read the quote before relying on this claim")
        out[i] = c.model_copy(update={"flags": [*c.flags, "may_state_otherwise"], "reasons": [reason, *c.reasons]})
    return out


def _quote_states_otherwise(atoms: list[Atom], pool: list[Source]) -> contradiction.Contradiction | None:
    """The quote the scorer chose for an atom, when that very sentence states another number or date: the
    sentence that best matches a claim and says something else contradicts it, it does not support it."""
    index = {src.n: i for i, src in enumerate(pool)}
    for atom in atoms:
        a = atom.anchor
        if a is None or not atom.supported or a.source not in index:
            continue
        src = pool[index[a.source]]
        start, end = a.start - src.start, a.end - src.start
        if src.text[start:end] != a.quote:
            continue
        found = contradiction.numeric_conflicts(a.quote, atom.text)
        if found:
            return contradiction.Contradiction(index[a.source], start, end, a.quote, a.score, found)
    return None


def _restated(claim: CheckedClaim, src: Source, found: contradiction.Support,
              units: Mapping[str, str] | None) -> CheckedClaim:
    anchor = _sentence_anchor(src, found.start, found.end, found.quote, found.about, "restated",
                              contradiction.MIN_SUPPORT, [], units)
    reasons = [f"restated by [{src.n}] {src.label}: the sentence holds {found.about:.0%} of the claim's words, "
               "all its numbers, the same modal force and polarity, and nothing in conflict"]
    return claim.model_copy(update={"verdict": "supported", "supported": True, "anchor": anchor,
                                    "reasons": reasons})


def _sentence_anchor(src: Source, s: int, e: int, quote: str, score: float, method: str, threshold: float,
                     flags: list[str], units: Mapping[str, str] | None) -> ClaimAnchor:
    start, end = src.start + s, src.start + e
    text = (units or {}).get(src.unit_id)
    if text is not None and text[start:end] != quote:
        raise RuntimeError(f"{method} offsets [{start}:{end}] do not point at the quote in {src.unit_id}")
    return ClaimAnchor(source=src.n, unit_id=src.unit_id, part=src.part, doc_id=src.doc_id,
                       **src.span_pages(start, end), quote=quote, start=start, end=end, score=score, method=method,
                       threshold=threshold, unit_sha256=src.unit_sha256, flags=flags)


def _contradicted(claim: CheckedClaim, src: Source, found: contradiction.Contradiction,
                  units: Mapping[str, str] | None) -> CheckedClaim:
    anchor = _sentence_anchor(src, found.start, found.end, found.quote, found.about, "contradiction",
                              contradiction.MIN_ABOUT, [f"contradicted_{c.kind}" for c in found.conflicts], units)
    reasons = [f"contradicted by [{src.n}] {src.label}: {found.reason}", *claim.reasons]
    flags = list(dict.fromkeys([*anchor.flags, *claim.flags]))
    return claim.model_copy(update={"verdict": "contradicted", "supported": False, "contradiction": anchor,
                                    "anchor": anchor, "reasons": reasons, "flags": flags})


def _atoms(text: str) -> list[str]:
    try:
        return decompose(text)
    except InputError:
        return [text]


def _best(claim: str, sources: list[Source], scorer: Scorer, embedder: Embedder | None, used: dict[int, set[int]],
          *, whole: bool) -> tuple[Source, Anchor] | None:
    best: tuple[Source, Anchor] | None = None
    for src in sources:
        try:
            a = best_anchor(claim, src.text, scorer=scorer, embedder=embedder, used=used.setdefault(src.n, set()),
                            atoms=whole)
        except InputError:
            continue
        if a is not None and (best is None or (a.supported, a.score, src.direct) > (best[1].supported, best[1].score,
                                                                                   best[0].direct)):
            best = (src, a)
    return best


def _opening(quote: str, words: int = 8) -> str:
    """The first ``words`` words of ``quote``, "…" when there are more.

    >>> _opening("Deployers must not use the high-risk AI system for purposes other than those stated.")
    'Deployers must not use the high-risk AI system…'
    >>> _opening("Short one.")
    'Short one.'
    """
    parts = quote.split()
    return " ".join(parts[:words]) + ("…" if len(parts) > words else "")


def _anchor(src: Source, a: Anchor, units: Mapping[str, str] | None) -> ClaimAnchor:
    return _sentence_anchor(src, a.start, a.end, a.quote, a.score, a.method, a.threshold, list(a.flags), units)


def _claim(c: Claim, atoms: list[Atom], wrong: list[Source], cited: list[Source],
           by_n: dict[int, Source]) -> CheckedClaim:
    ok = sum(a.supported for a in atoms)
    verdict: Verdict = "supported" if ok == len(atoms) else "partially_supported" if ok else "not_found"
    found = [a.anchor for a in atoms if a.anchor is not None]
    flags = list(dict.fromkeys(f for a in found for f in a.flags))
    where = (f"cited source{'s' if len(cited) != 1 else ''} {', '.join(s.label for s in cited)}" if cited
             else "the sources")
    reasons: list[str] = []
    for atom in atoms:
        a = atom.anchor
        about = f"“{atom.text}” " if len(atoms) > 1 else ""
        if a is None:
            reasons.append(f"{about}not supported: no sentence of {where} is similar")
            continue
        if not atom.supported:
            src = by_n[a.source]
            # the span is named: what follows ("number six not in the quoted span") is about it, which need not
            # be the sentence a contradiction quotes, nor the only sentence of the source
            reasons.append(f"{about}not supported by {where}: the closest span, [{src.n}] {src.label} characters "
                           f"{a.start}–{a.end} (“{_opening(a.quote)}”), scores {a.score:.2f} < {a.threshold:.2f}")
        # an unsupported atom's reasons are about the closest span just named, which a contradiction's quote
        # shown above may not be
        said = atom.reasons if atom.supported else [r.replace("the quoted span", "that span") for r in atom.reasons]
        reasons += [r for r in said if r not in reasons]
    for n in dict.fromkeys(s.n for s in wrong):
        flags.append("wrong_source")
        reasons.append(f"marker [{', '.join(map(str, c.cited))}] names the wrong source: the support is in "
                       f"[{n}] {by_n[n].label}")
    return CheckedClaim(text=c.text, cited=list(c.cited), line=getattr(c, "line", None),
                        supported=verdict == "supported", verdict=verdict, flags=flags, reasons=reasons, atoms=atoms,
                        anchor=max(found, key=lambda a: a.score) if found else None)
