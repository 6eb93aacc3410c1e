"""The evidence gate: is what retrieval found enough to answer the question?

Retrieval always returns *something*, and fused RRF scores are ranks, not relevance, so the gate
looks at the evidence itself. Its signals:

``missing``
    salient question terms that the corpus never mentions (looked up in the store's BM25 index,
    so the check covers every document, not only the hits). A missing name or acronym such as
    ``GDPR`` or ``Colorado`` refuses at once: whatever was retrieved is about something else.
``coverage``
    the IDF-weighted share of the question's content terms that occur in the evidence sentence
    that covers them best (with its neighbours): does one place in the sources talk about all of
    the question, or only about parts of it?
``hit_coverage``
    the same share over all the retrieved text together.
``dense``
    the best cosine between the question and a retrieved chunk (when an embedder ran).
``agreement``
    the share of direct hits that both BM25 and the dense search ranked among their candidates.

They are combined by a logistic model whose weights and thresholds live in ``data/gate.json``,
fitted by ``python -m eval.train_gate`` on the labelled question sets (the file records which).
The combined score is an evidence score, not a probability that the answer is right.
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from functools import cache
from importlib import resources

from anchor_core.ask import answerable as answerable_mod
from anchor_core.ask.answerable import Answerability
from anchor_core.ask.question import STRUCTURE_WORDS, acronym_in, asked_sentence, example_names, lay_acronyms
from anchor_core.models import Filters, Hit
from anchor_core.report import GateDecision
from anchor_core.scorers.text import stem
from anchor_core.segment import sentences
from anchor_core.stores.base import Store
from anchor_core.text import STOP_WORDS, words

# Words that shape a question but name nothing the corpus must contain.
QUESTION_WORDS = frozenset("""
whether must may might shall need needs required require requires allowed allow allows considered count counts
apply applies applicable mean means meaning happen happens exactly kind kinds type types way ways
many much long often doe give gives get gets make makes use used using also still yes rule rules
""".split())

_CAPS = re.compile(r"(?<![\w'’])([A-Z][a-zA-Z]*[A-Z][a-zA-Z]*|[A-Z]{2,}\d*|[A-Z][a-z]+)(?![\w'’])")


@dataclass
class GateSignals:
    missing: list[str] = field(default_factory=list)
    missing_names: list[str] = field(default_factory=list)
    missing_examples: list[str] = field(default_factory=list)
    """The names the question gives as examples of what it asks for ("such as USDT or USDC"), when the corpus
    writes none of them (:func:`anchor_core.ask.question.example_names`)."""
    coverage: float = 0.0
    hit_coverage: float = 0.0
    dense: float = 0.0
    agreement: float = 0.0
    best_sentence: str = ""
    terms: list[str] = field(default_factory=list)
    type_missing: float = 0.0
    """1 when the question asks for a kind of answer (``when`` → a date, ``how many`` → a number,
    ``who`` → a name) that no well-covering evidence sentence contains."""
    novelty: float = 0.0
    """Share of the best sentence's content words that the question does not already contain: an
    answer adds something to the question."""

    @property
    def missing_share(self) -> float:
        return len(self.missing) / max(len(self.terms), 1)

    def as_dict(self) -> dict:
        return {"missing": self.missing, "missing_names": self.missing_names,
                **({"missing_examples": self.missing_examples} if self.missing_examples else {}),
                "coverage": round(self.coverage, 3),
                "type_missing": self.type_missing, "novelty": round(self.novelty, 3),
                "hit_coverage": round(self.hit_coverage, 3), "dense": round(self.dense, 3),
                "agreement": round(self.agreement, 3), "best_sentence": self.best_sentence[:200]}


@cache
def gate_model() -> dict:
    return json.loads(resources.files("anchor_core.ask").joinpath("data/gate.json").read_text("utf-8"))


def gate_profile(adapter: str | None = None) -> dict:
    """The calibration for a corpus of this adapter (``aiact``, ``clapnq`` ...) if one was fitted,
    else the default fitted on all question sets together."""
    m = gate_model()
    prof = m.get("profiles", {}).get(adapter or "")
    return prof if prof is not None else m


def content_terms(question: str) -> list[str]:
    """Question words that the corpus must talk about (lower-case, stop and question words removed)."""
    out: dict[str, None] = {}
    for w in words(question):
        if w in STOP_WORDS or w in QUESTION_WORDS or len(w) < 3 or w.isdigit() and len(w) < 2:
            continue
        out[w] = None
    return list(out)


_OPENS = re.compile(r"(?:^|[.?!:;]\s+)\W*$")


def names(question: str) -> set[str]:
    """Capitalised words that do not open a sentence: names and acronyms (``GDPR``, ``Colorado``,
    ``Ireland``). A word that opens a sentence is capitalised by grammar ("Apart from the authority,
    which body ...") unless it is written in capitals or with a capital inside (``GDPR``, ``OpenAI``).

    >>> sorted(names("We are established in Belgium. Apart from the GDPR, which rules apply?"))
    ['belgium', 'gdpr']
    """
    found = set()
    for m in _CAPS.finditer(question):
        w = m.group(1)
        if w[1:].islower() and _OPENS.search(question[:m.start()]):
            continue
        if w.lower() in STOP_WORDS or w.lower() in QUESTION_WORDS or w in ("AI", "EU", "I"):
            continue
        found.add(w.lower())
    return found


_VERSIONED = re.compile(r"(?<![\w.])((?:[A-Z][A-Za-z]*|[A-Z]{2,})[ /-]?v?\d+(?:\.\d+)+)(?![\w.]*\w)")
_STRUCTURE = re.compile(rf"^(?:{STRUCTURE_WORDS})\b", re.I)


def versioned_names(question: str) -> list[str]:
    """Names that carry a version ("Python 3.9.0", "OAuth 2.1", "TLS 1.3"): the version is part of
    the name, so a corpus that writes "OAuth 2.0" but never "OAuth 2.1" does not cover the second.
    A numbered part of a text ("Section 4.1", "Rule 3.2.1") is a reference, not a name.

    A function word capitalised because it opens a sentence ("When 3.2 came out", "Since 3.4") names
    nothing: the version after it stands alone.

    >>> versioned_names("Which grant types were removed in OAuth 2.1? See Section 4.1.")
    ['OAuth 2.1']
    >>> versioned_names("Our service runs Python 3.2. When 3.2 came out, how long was it supported?")
    ['Python 3.2']
    """
    out = []
    for m in _VERSIONED.finditer(question):
        head = re.match(r"[A-Za-z]+", m.group(1))
        word = head.group(0).lower() if head else ""
        if _STRUCTURE.match(m.group(1)) or word in STOP_WORDS or word in QUESTION_WORDS or word in _SUBORDINATORS:
            continue
        out.append(m.group(1))
    return out


# conjunctions and prepositions that open a clause before a bare version ("Since 3.4", "Until 2.7"); the
# rest ("when", "after", "in") are stop words already
_SUBORDINATORS = frozenset("since until till once while whereas although though because unless whether upon "
                           "prior per via".split())


_TECHNICAL = re.compile(r"(?<![\w.@/-])(?:[A-Za-z][\w-]*(?:\.[A-Za-z][\w-]*)*\.(?:toml|json|ya?ml|cfg|ini|txt|py|md|"
                        r"rst|html?|xml|js|ts|c|h|sh|lock|org|com|net|io|dev)|[a-z][a-z0-9]*(?:_[a-z0-9]+)+|"
                        r"[a-z]+[A-Z][A-Za-z0-9]+|[A-Z][a-z]+(?:-[A-Z][a-z]+)+)(?![\w@/-]|\.\w)")


def technical_names(question: str) -> list[str]:
    """Names written as code, not as words: a file or host name ("pyproject.toml", "docs.python.org"),
    an identifier ("client_secret", "getAttribute") or a header name ("Cache-Control"). Like a
    capitalised name, one the corpus never writes means the question is about something it does not
    cover; its words alone ("project", "toml") are no evidence that it does.

    >>> technical_names("How do you declare build-system requirements in pyproject.toml?")
    ['pyproject.toml']
    >>> technical_names("Which Cache-Control directive applies? Is client_secret required?")
    ['Cache-Control', 'client_secret']
    >>> technical_names("What does the regulation say? See e.g. Article 5.")
    []
    """
    return [m.group(0) for m in _TECHNICAL.finditer(question)]


def missing_versions(question: str, store: Store, corpus: str) -> list[str]:
    """The :func:`versioned_names` of ``question`` that no unit of ``corpus`` writes (a phrase
    lookup in the store's full-text index), shown with the capitalised words of the name before
    them ("AI Act 2.0", looked up as "Act 2.0"), and its :func:`technical_names` that none writes. A host or
    file name that ends a hyphenated compound of the asker's ("the upload-a-patch-to-bugs.python.org process")
    is looked up alone ("bugs.python.org")."""
    versions = [_whole_name(question, v) for v in versioned_names(question) if not store.units_with_words(corpus, [v])]
    return versions + [t for t in technical_names(question) if not store.units_with_words(corpus, [t])
                       and not ("." in (tail := t.rsplit("-", 1)[-1]) and tail != t
                                and store.units_with_words(corpus, [tail]))]


def _asks_about(asking: str, name: str) -> bool:
    """``name`` (a versioned or technical name of the question) stands in the asking sentence, or its version
    number does."""
    version = re.search(r"\d+(?:\.\d+)+$", name)
    return name in asking or (version is not None and re.search(rf"(?<![\w.]){re.escape(version.group(0))}(?![\w.]*\w)",
                                                                asking) is not None)


def _whole_name(question: str, short: str) -> str:
    """``short`` with the capitalised words that run into it from the left ("AI" of "AI Act 2.0"),
    stop words and the question's first word left out."""
    before = question[:question.find(short)].split()[1:]  # the first word is capitalised by grammar
    lead: list[str] = []
    for w in reversed(before):
        if not w[:1].isupper() or w.lower() in STOP_WORDS:
            break
        lead.insert(0, w)
    return " ".join([*lead, short])


def term_weights(store: Store, corpus: str, terms: list[str], filters: Filters, total: int) -> dict[str, float]:
    """A cheap IDF per term from the store: how many of the top 50 chunks match (saturates, which is
    fine: common words get low weight, rare ones high). 0.0 means the corpus never mentions the term."""
    out = {}
    for t in terms:
        n = len(store.search_bm25(corpus, [t], 50, filters))
        out[t] = math.log(1 + total / (1 + n)) if n else 0.0
    return out


def signals(question: str, hits: list[Hit], *, store: Store, corpus: str, filters: Filters,
            qvec=None, hit_vectors=None, total: int | None = None,
            weights: dict[str, float] | None = None) -> GateSignals:
    """The gate's signals. ``total`` (the corpus's chunk count) and ``weights`` (:func:`term_weights`
    of the question's :func:`content_terms`) are looked up when not given."""
    terms = content_terms(question)
    sig = GateSignals(terms=terms)
    if not terms:
        return sig
    total = max(store.corpus(corpus).chunks if total is None else total, 1)
    if weights is None:
        weights = term_weights(store, corpus, terms, filters, total)
    sig.missing = [t for t in terms if not weights[t]]
    # an acronym the hits spell out ("GDPR": General Data Protection Regulation) is the corpus's own
    spelled = [h.text for h in hits] + [h.heading for h in hits] + [h.document for h in hits]
    lay = lay_acronyms(question)
    # a name refuses only where the question asks about it: one in the situation told before the asking sentence
    # ("We are established in Belgium. Which authority ...?") is the asker's circumstance, which a regulation
    # does not name; it weighs nothing, like a lay word (fresh sets, rounds 1-9: such names were in 10 answerable
    # questions and 1 unanswerable one). The asking sentence's names are the question's names that stand in it.
    asking = asked_sentence(question)
    asked = names(asking)
    sig.missing_names = [t for t in sig.missing if t in asked and t not in lay and not acronym_in(t, spelled)]
    # so with a versioned or technical name: one in the situation ("we register a tenant_id parameter. How long is
    # the review period?") is the asker's own, unless the asking sentence names it or its version ("On what date
    # was the 2.5.1 maintenance release published?")
    sig.missing_names += [n for n in missing_versions(question, store, corpus) if _asks_about(asking, n)]
    # "Which stablecoins, such as USDT or USDC, has the FSRA accepted?": sources that list such things name some of
    # the well-known ones; when the corpus writes none of the names the question gives as examples, it lists none
    # (a lay example, "such as keystroke logging", may be worded otherwise: a list holding one is not read)
    shown = example_names(question)
    if shown and not any(store.units_with_words(corpus, [n]) for n in shown):
        sig.missing_examples = shown
    idf = dict(weights)
    for t in sig.missing:
        idf[t] = math.log(1 + total)  # a word the corpus lacks weighs as much as the rarest word
    weight = sum(idf.values()) or 1.0
    stems = {t: stem(t) for t in terms}

    def cover(text_stems: set[str]) -> float:
        return sum(idf[t] for t in terms if stems[t] in text_stems) / weight

    all_stems: set[str] = set()
    best, best_text = 0.0, ""
    good: list[str] = []  # sentences (with neighbours) covering at least 80% of the best coverage
    scored: list[tuple[float, str]] = []
    for h in hits:
        sents = sentences(h.text) or []
        sent_stems = [{stem(w) for w in words(h.text[s.start:s.end])} for s in sents]
        head = {stem(w) for w in words(h.heading)}
        for i in range(len(sents)):
            window = set().union(*sent_stems[max(0, i - 1): i + 2]) | head
            c = cover(window)
            text = h.text[sents[max(0, i - 1)].start:sents[min(len(sents) - 1, i + 1)].end]
            scored.append((c, text))
            if c > best:
                best, best_text = c, h.text[sents[i].start:sents[i].end]
        all_stems |= set().union(*sent_stems) if sent_stems else set()
        all_stems |= head
    sig.coverage, sig.best_sentence = best, best_text
    good = [t for c, t in scored if best and c >= 0.8 * best]
    want = answer_type(question)
    if want is not None:
        sig.type_missing = float(not any(has_type(t, want, question) for t in good))
    q_stems = {stem(w) for w in words(question)}
    content = [stem(w) for w in words(best_text) if w not in STOP_WORDS and len(w) > 2]
    sig.novelty = sum(w not in q_stems for w in content) / len(content) if content else 0.0
    sig.hit_coverage = cover(all_stems)
    direct = [h for h in hits if not h.via]
    if direct:
        sig.agreement = sum(h.bm25_rank is not None and h.dense_rank is not None for h in direct) / len(direct)
    if qvec is not None and hit_vectors is not None and len(hit_vectors):
        sig.dense = float(max(hit_vectors @ qvec))
    return sig


_WHEN = re.compile(r"^\W*(when|what (year|date|day|month|time)|which (year|date|day|month)|since when|how long ago)\b",
                   re.I)
_NUMBER = re.compile(r"\bhow (many|much|long|old|often|far|high|big|large|tall|fast)\b|\bwhat (percentage|number|"
                     r"amount|age)\b", re.I)
_WHO = re.compile(r"^\W*(who|whom|whose)\b", re.I)
_YEAR = re.compile(r"\b(1[0-9]{3}|20[0-9]{2})\b|\b(january|february|march|april|may|june|july|august|september|"
                   r"october|november|december|century|decade)\b", re.I)
_DIGIT = re.compile(r"\d|\b(one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|"
                    r"fifty|hundred|thousand|million|billion|dozen|half|twice|once)\b", re.I)
_NAME = re.compile(r"(?<![.!?]\s)(?<!^)\b[A-Z][a-z]+")


def answer_type(question: str) -> str | None:
    """The kind of answer a question asks for, when its wording says: ``date``, ``number``, ``name``."""
    if _WHEN.search(question):
        return "date"
    if _NUMBER.search(question):
        return "number"
    if _WHO.search(question):
        return "name"
    return None


def has_type(text: str, want: str, question: str) -> bool:
    if want == "date":
        return bool(_YEAR.search(text))
    if want == "number":
        return bool(_DIGIT.search(text))
    q = {w.lower() for w in words(question)}
    return any(m.group(0).lower() not in q for m in _NAME.finditer(text))


def evidence_score(sig: GateSignals, model: dict | None = None) -> float:
    m = model or gate_model()
    w = m["weights"]
    z = m["bias"] + sum(w[f] * _feature(sig, f) for f in w)
    return 1 / (1 + math.exp(-z))


def _feature(sig: GateSignals, name: str) -> float:
    if name == "missing_any":
        return float(bool(sig.missing))
    return float(getattr(sig, name))


def decide(sig: GateSignals, *, hits: list[Hit], model: dict | None = None,
           answerability: Answerability | None = None) -> GateDecision:
    """``pass`` (answer), ``borderline`` (a judge decides), ``weak`` (rewrite and retry) or
    ``refuse``, with the reason in the user's words.

    With ``answerability`` (:func:`anchor_core.ask.answerable.assess` over the same hits) the
    evidence score is the answerability model's: does one retrieved passage hold the asked kind of
    answer about the asked focus. Without it, the older coverage model of ``data/gate.json``."""
    m = model or gate_model()
    th = m["thresholds"]
    if not hits:
        return GateDecision(verdict="refuse", score=0.0, code="no_evidence",
                            reason="no relevant evidence was retrieved", signals=sig.as_dict(), thresholds=th)
    if sig.missing_names:
        terms = ", ".join(f"'{t}'" for t in sig.missing_names)
        return GateDecision(verdict="refuse", score=0.0, code="term_missing",
                            reason=f"the corpus never mentions {terms}: the question is about something it does "
                                   "not cover", signals=sig.as_dict(), thresholds=th)
    if sig.missing_examples:
        quoted = [f"'{t}'" for t in sig.missing_examples]
        shown = (f"{', '.join(quoted[:-1])} or {quoted[-1]}, the examples" if len(quoted) > 1
                 else f"{quoted[0]}, the example")
        return GateDecision(verdict="refuse", score=0.0, code="term_missing",
                            reason=f"the corpus never mentions {shown} the question gives of what it asks for",
                            signals=sig.as_dict(), thresholds=th)
    if answerability is not None:
        spec = answerable_mod.spec_for(answerability)
        score = answerable_mod.score(answerability, spec)
        data = {**sig.as_dict(), **answerability.as_dict()}
        t = {"pass": spec["threshold"]}
        if answerability.defined is False:
            # the question asks how the sources define a term, and no retrieved sentence defines it (nor did the
            # corpus's own "‘term’ means" definitions, which retrieval fetches for a term the question asks about)
            term = answerability.term
            reason = (f"the retrieved passages use “{term}” but none defines it" if answerability.term_used
                      else f"no retrieved passage defines “{term}” or uses the term")
            return GateDecision(verdict="weak", score=score, code="not_answered", signals=data, thresholds=t,
                                reason=reason)
        if answerability.action_found is False:
            # the question asks for the procedure of an act ("the procedure for applying to be appointed"), and no
            # retrieved sentence about its topic writes that act
            return GateDecision(verdict="weak", score=score, code="not_answered", signals=data, thresholds=t,
                                reason=f"the sources give no procedure {answerability.action_phrase}: no "
                                       f"retrieved passage about the question's subject writes "
                                       f"“{answerability.action}” or a word of its family")
        if score >= spec["threshold"]:
            # "confident": below it, answers were more often wrong than right on held-out questions
            # (eval/confidence_band.py); such a run is headlined "not confirmed" (anchor_core.assessment)
            if "confident" in spec:
                t["confident"] = spec["confident"]
            reason = (f"a retrieved passage may answer the question, but the evidence barely passed ({score:.2f}, "
                      f"confident from {t['confident']:.2f})" if score < t.get("confident", 0.0) else
                      f"a retrieved passage answers the question ({score:.2f})")
            return GateDecision(verdict="pass", score=score, signals=data, thresholds=t, reason=reason)
        t["borderline"] = spec["threshold"] - spec.get("llm_band", 0.1)
        if score >= t["borderline"]:
            # only an LLM judge can overturn this; offline it is refused like weak evidence (pipeline)
            return GateDecision(verdict="borderline", score=score, code="not_answered", signals=data, thresholds=t,
                                reason=f"{answerable_mod.reason(answerability)} ({score:.2f})")
        # a word the corpus never uses is not a reason: dense retrieval may still have found the provision
        return GateDecision(verdict="weak", score=score, code="not_answered", signals=data, thresholds=t,
                            reason=f"{answerable_mod.reason(answerability)} ({score:.2f})")
    score = evidence_score(sig, m)
    data = sig.as_dict()
    if score >= th["pass"]:
        return GateDecision(verdict="pass", score=score, reason=f"evidence covers the question ({score:.2f})",
                            signals=data, thresholds=th)
    if score >= th["borderline"]:
        return GateDecision(verdict="borderline", score=score,
                            reason=f"evidence is borderline ({score:.2f}); a judge decides", signals=data,
                            thresholds=th)
    missing = f"; the corpus never mentions {', '.join(repr(t) for t in sig.missing)}" if sig.missing else ""
    code = "term_missing" if sig.missing and sig.missing_share >= 0.34 else "not_answered"
    return GateDecision(verdict="weak", score=score, code=code,
                        reason=f"evidence was retrieved but it does not cover the question ({score:.2f}){missing}",
                        signals=data, thresholds=th)


def offline_judge(sig: GateSignals, model: dict | None = None) -> tuple[bool, str]:
    """The judge for borderline cases when no LLM is configured: answer only when one place in
    the evidence covers most of the question and nothing the question names is missing."""
    m = model or gate_model()
    j = m["judge"]
    if sig.missing:
        return False, f"the corpus never mentions {', '.join(repr(t) for t in sig.missing)}"
    if sig.coverage >= j["coverage"]:
        return True, f"one passage covers {sig.coverage:.0%} of the question"
    return False, f"no passage covers enough of the question (best {sig.coverage:.0%}, needs {j['coverage']:.0%})"
