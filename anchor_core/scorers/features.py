"""Features of a (premise, hypothesis) pair for the learned support score, with the evidence behind each.

Every feature is a plain number computed from the two texts (and, optionally, the cosine of
their embeddings). :func:`pair_features` also keeps what it saw — the missing numbers, the
negation or modal that differs, the dropped qualifier — so that ``explain()`` can name it.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from anchor_core.scorers.text import (
    NEGATORS,
    STRONG_MODALS,
    WEAK_MODALS,
    Token,
    analyse,
    content_keys,
    is_negator,
    modal_class,
    neighbourhood,
    phrase_at,
    stem,
)
from anchor_core.text import STOP_WORDS

# Order matters: it is the column order of the coefficient files.
LEXICAL_FEATURES = (
    "cov_uni",            # share of hypothesis content tokens found in the premise
    "cov_bi",             # share of hypothesis content bigrams found in the premise
    "missing_share",      # share of distinct hypothesis content words absent from the premise
    "missing_run",        # longest run of consecutive missing content tokens, over hypothesis length
    "numbers_missing",    # hypothesis quantities/amounts/day numbers absent from the premise (capped at 3)
    "years_conflict",     # hypothesis years absent from a premise that states another year (capped at 3)
    "years_missing",      # hypothesis years absent from a premise that states no year at all (capped at 3)
    "numbers_detached",   # hypothesis counts/amounts the premise states only away from the words they qualify
    "negation_mismatch",  # not/no/never/without on one side only, around matched content
    "modality_mismatch",  # shall/must on one side, may/can/should on the other, around matched content
    "qualifier_dropped",  # unless/except/provided that/only if/... in the premise, not in the hypothesis
    "entity_cov",         # share of capitalised tokens and acronyms of the hypothesis found in the premise
    "length_ratio",       # log2(hypothesis content tokens / premise content tokens), clipped to [-4, 2]
)
EMBEDDING_FEATURE = "emb_cos"  # cosine of the premise and hypothesis embeddings
ALL_FEATURES = LEXICAL_FEATURES + (EMBEDDING_FEATURE,)

# Feature values of a premise that states the hypothesis word for word: explain() measures how far
# each feature is from this and reports the ones that cost score.
IDEAL = {"cov_uni": 1.0, "cov_bi": 1.0, "missing_share": 0.0, "missing_run": 0.0, "numbers_missing": 0.0,
         "years_conflict": 0.0, "years_missing": 0.0, "numbers_detached": 0.0, "negation_mismatch": 0.0,
         "modality_mismatch": 0.0,
         "qualifier_dropped": 0.0, "entity_cov": 1.0, EMBEDDING_FEATURE: 1.0}

QUALIFIERS = (("without", "prejudice", "to"), ("provided", "that"), ("only", "if"), ("only", "where"),
              ("subject", "to"), ("unless",), ("except",), ("save", "where"), ("in", "so", "far", "as"),
              ("insofar", "as"))
_ENTITY_SKIP = NEGATORS | STRONG_MODALS | WEAK_MODALS
# Words that negate without "not": a claim's "is not allowed" may paraphrase a source's "prohibits".
IMPLICIT_NEGATIVES = frozenset(stem(w) for w in (
    "prohibit prohibited forbid forbidden ban banned refuse refused decline declined reject rejected against "
    "fail failed lack absent deny denied exclude excluded unable impossible prevent prevented").split())


@dataclass
class PairAnalysis:
    """Feature values of one pair and what produced them (for ``explain``)."""

    values: dict[str, float]
    missing_words: list[str] = field(default_factory=list)
    missing_numbers: list[tuple[str, bool]] = field(default_factory=list)  # (surface, is an amount), not years
    missing_years: list[str] = field(default_factory=list)
    detached_numbers: list[str] = field(default_factory=list)
    missing_entities: list[str] = field(default_factory=list)
    negation: str | None = None
    modality: tuple[str, str] | None = None  # (source modal, claim modal)
    qualifier: str | None = None


def coverage(premise: list[Token], hypothesis: list[Token]) -> tuple[float, list[Token]]:
    """Share of hypothesis content tokens whose key occurs in the premise, and the missing tokens.

    A hypothesis without content words (``"It is."``) falls back to all its word tokens.
    """
    prem = {t.key for t in premise if t.kind != "punct"}
    hyp = [t for t in hypothesis if t.content] or [t for t in hypothesis if t.kind != "punct"]
    if not hyp:
        return 0.0, []
    missing = [t for t in hyp if t.key not in prem]
    return 1.0 - len(missing) / len(hyp), missing


def _bigram_coverage(premise: list[Token], hypothesis: list[Token], cov_uni: float) -> float:
    hk, pk = content_keys(hypothesis), content_keys(premise)
    hyp_bi = list(zip(hk, hk[1:]))
    if not hyp_bi:
        return cov_uni
    prem_bi = set(zip(pk, pk[1:]))
    return sum(b in prem_bi for b in hyp_bi) / len(hyp_bi)


def _missing_run(hypothesis: list[Token], premise_keys: set[str]) -> float:
    content = [t for t in hypothesis if t.content]
    best = run = 0
    for t in content:
        run = run + 1 if t.key not in premise_keys else 0
        best = max(best, run)
    return best / len(content) if content else 0.0


def is_year(token: Token) -> bool:
    """A bare four-digit year such as ``2019`` (not an amount, not ``2,019``)."""
    return token.kind == "number" and not token.amount and re.fullmatch(r"1\d{3}|20\d{2}|2100", token.text) is not None


def unit_word(tokens: list[Token], i: int, reach: int = 2) -> str | None:
    """The content word a number counts ("three *years*"), else the one before it ("*scored* 5"), within
    ``reach`` words and the same clause."""
    if i + 1 < len(tokens) and tokens[i + 1].text == "%":
        return None  # a percentage counts nothing nearby
    for step in (1, -1):
        j, seen = i + step, 0
        while 0 <= j < len(tokens) and seen < reach:
            t = tokens[j]
            if t.kind == "punct":
                if t.text in ".!?;:":
                    break
            elif t.content and t.kind == "word":
                return t.key
            seen += t.kind != "punct"
            j += step
    return None


def _numbers_missing(premise: list[Token], hypothesis: list[Token]) -> tuple[list[Token], list[Token]]:
    """Hypothesis numbers the premise does not state, and those it states only away from the word they count
    in the hypothesis ("three years" is not the "3" of "3 Idiots"). Years are never detached: a dateline
    states a year with no other word."""
    where: dict[str, list[int]] = {}
    for j, t in enumerate(premise):
        if t.kind == "number":
            where.setdefault(t.key, []).append(j)
    missing: dict[str, Token] = {}
    detached: dict[str, Token] = {}
    for i, t in enumerate(hypothesis):
        if t.kind != "number" or t.key in missing or t.key in detached:
            continue
        found = where.get(t.key, [])
        if not found:
            missing[t.key] = t
        elif not is_year(t):
            unit = unit_word(hypothesis, i)
            if unit is not None and not any(unit in neighbourhood(premise, j, 3, 3) for j in found):
                detached[t.key] = t
    return list(missing.values()), list(detached.values())


def _negation(premise: list[Token], hypothesis: list[Token]) -> str | None:
    """Reason text when a negation sits on one side only, next to content both sides share."""
    prem_keys = {t.key for t in premise if t.content}
    hyp_keys = {t.key for t in hypothesis if t.content}
    prem_neg = [(j, neighbourhood(premise, j)) for j in range(len(premise)) if is_negator(premise, j)]
    hyp_neg = [(i, neighbourhood(hypothesis, i)) for i in range(len(hypothesis)) if is_negator(hypothesis, i)]
    # A negation on one side is matched by a negation, or a negative word, next to the same content.
    prem_any = prem_neg + [(j, neighbourhood(premise, j)) for j, t in enumerate(premise) if t.key in IMPLICIT_NEGATIVES]
    hyp_any = hyp_neg + [(i, neighbourhood(hypothesis, i)) for i, t in enumerate(hypothesis)
                         if t.key in IMPLICIT_NEGATIVES]
    for i, near in hyp_neg:
        shared = near & prem_keys
        if shared and not any(nb & shared for _, nb in prem_any):
            return f"negation differs: claim says '{phrase_at(hypothesis, i)}', source does not"
    # A source negation counts only in the source sentence that states most of the claim: a multi-sentence
    # premise is full of negations next to a claim word or two in sentences that say something else.
    per_sentence = _sentence_keys(premise)
    best = max((len(keys & hyp_keys) for keys in per_sentence.values()), default=0)
    for j, near in prem_neg:
        shared = near & hyp_keys
        if len(per_sentence.get(premise[j].sentence, set()) & hyp_keys) < best:
            continue
        # Two shared words make it the same statement rather than a neighbouring one.
        if len(shared) >= min(2, len(hyp_keys)) and not any(nb & shared for _, nb in hyp_any):
            return f"negation differs: source says '{phrase_at(premise, j)}'"
    return None


def _modality(premise: list[Token], hypothesis: list[Token]) -> tuple[str, str] | None:
    """(source modal, claim modal) when the modal next to shared content has another strength."""
    prem_modals = [(j, neighbourhood(premise, j)) for j, t in enumerate(premise) if modal_class(t)]
    for i, t in enumerate(hypothesis):
        cls = modal_class(t)
        if cls is None:
            continue
        near = neighbourhood(hypothesis, i)
        best, best_overlap = None, 0
        for j, nb in prem_modals:
            overlap = len(nb & near)
            if overlap > best_overlap:
                best, best_overlap = j, overlap
        if best is not None and modal_class(premise[best]) != cls:
            return premise[best].text.lower(), t.text.lower()
    return None


def _qualifiers(tokens: list[Token]) -> list[tuple[int, str]]:
    """(position, phrase) of each qualifier; ``where`` counts only when it opens a sentence (a condition)."""
    low = [t.text.lower() for t in tokens]
    out = []
    for i in range(len(tokens)):
        for q in QUALIFIERS:
            if tuple(low[i:i + len(q)]) == q:
                out.append((i, " ".join(q)))
                break
        else:
            if low[i] == "where" and (i == 0 or tokens[i - 1].text in {".", ";", ":", "("}):
                out.append((i, "where"))
    return out


def _qualifier_dropped(premise: list[Token], hypothesis: list[Token]) -> str | None:
    if _qualifiers(hypothesis):
        return None
    hyp_keys = {t.key for t in hypothesis if t.content}
    need = min(2, len(hyp_keys)) or 1
    per_sentence = _sentence_keys(premise)
    best = max((len(keys & hyp_keys) for keys in per_sentence.values()), default=0)
    for j, phrase in _qualifiers(premise):
        shared = len(per_sentence.get(premise[j].sentence, set()) & hyp_keys)
        # Only in the sentence that states most of the claim, as for negations.
        if shared >= need and shared >= best:
            return phrase
    return None


def _sentence_keys(tokens: list[Token]) -> dict[int, set[str]]:
    out: dict[int, set[str]] = {}
    for t in tokens:
        if t.content:
            out.setdefault(t.sentence, set()).add(t.key)
    return out


def _entities(hypothesis: list[Token], premise_keys: set[str]) -> tuple[float, list[str]]:
    ents: dict[str, str] = {}
    for t in hypothesis:
        if t.kind != "word" or not t.text[:1].isupper():
            continue
        low = t.text.lower()
        if low in STOP_WORDS or low in _ENTITY_SKIP or len(t.text) < 2:
            continue
        ents.setdefault(t.key, t.text)
    if not ents:
        return 1.0, []
    missing = [surface for key, surface in ents.items() if key not in premise_keys]
    return 1.0 - len(missing) / len(ents), missing


def pair_features(premise: str, hypothesis: str, cosine: float | None = None) -> PairAnalysis:
    """All features of one pair; ``cosine`` (embedding similarity) is added when given."""
    p, h = analyse(premise), analyse(hypothesis)
    prem_keys = {t.key for t in p if t.kind != "punct"}
    cov_uni, missing = coverage(p, h)
    hyp_content = [t for t in h if t.content]
    distinct = {t.key for t in hyp_content}
    missing_keys = {t.key for t in missing if t.content}
    n_hyp, n_prem = len(hyp_content), sum(t.content for t in p)
    numbers, detached = _numbers_missing(p, h)
    premise_has_year = any(is_year(t) for t in p)
    negation = _negation(p, h)
    modality = _modality(p, h)
    qualifier = _qualifier_dropped(p, h)
    ent_cov, ents_missing = _entities(h, prem_keys)
    values = {
        "cov_uni": cov_uni,
        "cov_bi": _bigram_coverage(p, h, cov_uni),
        "missing_share": len(missing_keys) / len(distinct) if distinct else 0.0,
        "missing_run": _missing_run(h, prem_keys),
        "numbers_missing": float(min(sum(not is_year(t) for t in numbers), 3)),
        "years_conflict": float(min(sum(is_year(t) for t in numbers), 3)) if premise_has_year else 0.0,
        "years_missing": 0.0 if premise_has_year else float(min(sum(is_year(t) for t in numbers), 3)),
        "numbers_detached": float(min(len(detached), 3)),
        "negation_mismatch": float(negation is not None),
        "modality_mismatch": float(modality is not None),
        "qualifier_dropped": float(qualifier is not None),
        "entity_cov": ent_cov,
        "length_ratio": min(2.0, max(-4.0, math.log2((n_hyp + 1) / (n_prem + 1)))),
    }
    if cosine is not None:
        values[EMBEDDING_FEATURE] = float(cosine)
    ent_keys = {k for k in (t.key for t in h if t.text in ents_missing)}
    words = []
    for t in missing:
        if t.kind == "word" and t.key not in ent_keys and t.text.lower() not in words:
            words.append(t.text.lower())
    return PairAnalysis(values=values, missing_words=words,
                        missing_numbers=[(t.text, t.amount) for t in numbers if not is_year(t)],
                        missing_years=[t.text for t in numbers if is_year(t)],
                        detached_numbers=[t.text for t in detached],
                        missing_entities=ents_missing, negation=negation, modality=modality, qualifier=qualifier)


def reasons_for(analysis: PairAnalysis, feature: str) -> list[str]:
    """Human reasons for one feature that cost score, naming what was missing or different."""
    a = analysis
    v = a.values.get(feature)
    if feature == "numbers_missing":
        return [f"{'amount' if amount else 'number'} {text} not in the quoted span"
                for text, amount in a.missing_numbers]
    if feature in {"years_missing", "years_conflict"}:
        return [f"number {text} not in the quoted span" for text in a.missing_years]
    if feature == "numbers_detached":
        return [f"number {text} is in the quoted span, but not next to the words it qualifies in the claim"
                for text in a.detached_numbers]
    if feature == "negation_mismatch":
        return [a.negation] if a.negation else []
    if feature == "modality_mismatch":
        return [f"modality differs: source '{a.modality[0]}', claim '{a.modality[1]}'"] if a.modality else []
    if feature == "qualifier_dropped":
        return [f"qualifier dropped: source says '{a.qualifier}', claim does not"] if a.qualifier else []
    if feature == "entity_cov":
        return [f"entity '{e}' not in the quoted span" for e in a.missing_entities]
    if feature in {"cov_uni", "cov_bi", "missing_share", "missing_run"}:
        if not a.missing_words:
            if feature != "cov_bi":
                return []
            return [f"claim words are in the quoted span but in another order ({feature} {v:.2f})"]
        shown = ", ".join(f"'{w}'" for w in a.missing_words[:6])
        more = f" and {len(a.missing_words) - 6} more" if len(a.missing_words) > 6 else ""
        return [f"claim words not in the quoted span: {shown}{more}"]
    if feature == EMBEDDING_FEATURE:
        return [f"low semantic similarity to the quoted span (cosine {v:.2f})"]
    return []
