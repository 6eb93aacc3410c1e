"""Answer relevance: does each claim hold the asked kind of answer about the asked focus?

Separate from support: an extractive quote of a lead-in sentence or a side provision is verbatim
and "supported", and still does not answer "how long must logs be kept". A claim addresses the
question when

- the question asks for a value (a date, a duration, an amount ...) and the claim contains an
  expression of that kind (:func:`anchor_core.ask.question.answer_values`), and
- the claim is about the focus: it holds at least ``min_focus`` of the focus parts (IDF-weighted
  when the corpus weights are known; parts the corpus never uses are left out), or, with an
  embedder, its cosine to the question reaches ``min_cosine`` (a plain-language question whose
  words the provision does not use).

The answer addresses the question when at least one claim does.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from anchor_core import tables
from anchor_core.ask.answerable import KIND_NOUN, accepted_kinds
from anchor_core.ask.question import QuestionAnalysis, analyse, answer_values
from anchor_core.embeddings import Embedder
from anchor_core.report import Relevance
from anchor_core.scorers.text import stem
from anchor_core.text import words

MIN_FOCUS = 0.34
MIN_COSINE = 0.5


def relevance(question: str, claims: Sequence[str], *, weights: dict[str, float] | None = None,
              embedder: Embedder | None = None, min_focus: float = MIN_FOCUS,
              min_cosine: float = MIN_COSINE, analysis: QuestionAnalysis | None = None) -> Relevance:
    """Check ``claims`` (their texts, in report order) against ``question``.

    >>> r = relevance("How long must deployers keep the logs?",
    ...               ["Deployers shall keep the logs for a period of at least six months."])
    >>> r.addressed, r.kind, r.claims
    (True, 'duration', [True])
    >>> relevance("How long must deployers keep the logs?", ["Deployers shall keep the logs."]).reason
    'the answer is about deployers keep the logs but states no period or deadline'
    """
    a = analysis or analyse(question)
    parts = a.parts if weights is None else [p for p in a.parts if weights.get(p)]
    # the parts the corpus never writes ("chatbots", "tell", "talking") are left out, so the ones it does write
    # ("users", "machine") would pass for the whole question: word overlap counts only as much as the share of
    # the focus the corpus knows (the rest is the cosine's to show)
    known = len(parts) / len(a.parts) if a.parts else 1.0
    idf = {p: (weights.get(p, 1.0) if weights else 1.0) for p in parts}
    total = sum(idf.values())
    stems = {p: stem(p) for p in parts}
    cos: list[float] = []
    if embedder is not None and claims:
        vecs = embedder.embed([question, *claims])
        cos = [float(v) for v in np.asarray(vecs[1:]) @ np.asarray(vecs[0])]
    accepts = accepted_kinds(question, a.kind)

    def cover(have: set[str]) -> float:
        # no focus word the corpus writes: words show nothing (the cosine may), unless the question has none
        return known * sum(idf[p] for p in parts if stems[p] in have) / total if total else float(not a.parts)

    marks, about_any, kinded = [], False, []
    # a quoted table row is read under the quoted header row: "Annual renewal | 1,200" under "Service | Fee (USD)"
    # states an amount (:mod:`anchor_core.tables`)
    table = tables.readings("\n".join(claims)) if any(tables.is_row(t) for t in claims) else {}
    for i, text in enumerate(claims):
        about = cover({stem(w) for w in words(text)}) >= min_focus or (bool(cos) and cos[i] >= min_cosine)
        valued = table.get(text.strip()) or tables.read_text(text)
        kind_ok = not accepts or any(answer_values(valued, k, question, numeric=a.numeric) for k in accepts)
        about_any |= about
        kinded.append(kind_ok)
        marks.append(about and kind_ok)
    kind_any = any(kinded)
    # the value and its subject may sit in two quoted sentences that a reference joins ("fines of up to
    # 10 000 EUR" for infringements of "Article 4", which is about the focus)
    whole_cover = cover({stem(w) for t in claims for w in words(t)})
    addressed = any(marks) or (kind_any and whole_cover >= min_focus)
    focus = a.focus or "the question's subject"
    named = accepts[0] if len(accepts) == 1 else ""
    noun = KIND_NOUN.get(a.kind) or KIND_NOUN.get(named, "answer")
    reason = ""
    if not claims:
        reason = "the answer has no claims"
    elif not addressed and about_any and not kind_any:
        reason = f"the answer is about {focus} but states no {noun}"
    elif not addressed and not about_any:
        reason = f"no claim of the answer is about {focus}"
    elif not addressed:
        reason = f"no claim states the asked {noun} about {focus}"
    method = "kind+focus" + ("+cosine" if embedder is not None else "") + (" (IDF-weighted)" if weights else "")
    return Relevance(addressed=addressed, kind=a.kind, focus=a.focus, reason=reason, claims=marks, method=method)
