"""``contradiction``: does the sentence a claim is about state the opposite?

Steps, in this order:

1. **Pick the sentence by what the claim is about.** Every sentence of the sources is matched on the
   claim's content words (its actors, objects and key terms; numbers, modal verbs and negators left
   out, since those are what a contradiction changes): ``about`` is the share of the claim's content
   keys that the sentence holds. The best-matching sentence is the one the claim talks about, whatever
   an entailment score says of other sentences.
2. **Judge that sentence.** It contradicts the claim when, against the claim, it has

   - another deontic force or polarity of the same verb (``must`` vs ``must not``, ``must`` vs ``may``,
     ``may`` vs ``may not``, ``should`` vs ``should not``, or ``not`` added or removed around shared words),
   - another number next to the same word (``30 days`` vs ``60 days``) or another date (year, month, day), or
     the same number as a floor on one side and a ceiling on the other (``at least twice`` vs ``at most twice``),
   - another actor: the subject of its modal verb is replaced by words the other side never uses
     (``the deployer shall`` vs ``the provider shall``), read from the two sentences, not from a list of
     roles,
   - a condition or exception the claim drops (``unless …``, ``except …``, ``provided that …``,
     ``where …``, ``if …`` at a clause start) whose words the claim does not restate.

   The two sentences are lined up word by word first; a modal that does not line up is matched by the verb
   it governs ("must not be treated by" / "must treat"). Deontic words count as modals ("is required to",
   "is permitted to", "is mandatory"; "is not required to", "need not", "no need to", "under no obligation to",
   "optional" and "is free to decide / has discretion over whether to" lift an obligation and clash only with
   "must" and "should"; "is prohibited / barred from", "should avoid", "shall refrain from" and "shall neither"
   forbid).
3. **Read as wholes, when lining up found nothing** (a contradiction reworded as a paraphrase is): a verb
   negated on one side and stated of something on the other with no negation or negative word anywhere in it
   ("is not meant to be displayed" / "is meant to be displayed"); a claim that says the rule holds whatever
   the condition ("even with the Regulator's consent", "regardless of", "always") against a source that
   states one; an exception the claim carves out ("except for those that …") where the source states none;
   who acts swapped with whom it acts on, for the same verb ("The Commission shall address its decision to the
   Member State" / "the Member State must address its decision to the Commission"); an actor the source
   sentence never names in place of its own ("must be set up by the Board" / "The AI Office shall establish",
   "It is the Board that has to"); "before X" for "after X" (the same event); the source's condition made the
   claim's exception ("when C" / "except when C"); "does not apply to X" for "X is subject to".
   An actor is read from the first modal of a main clause (not "so that values can be allocated"). A word
   that negates by its prefix a word of the other side ("insufficiently" / "not sufficiently") is a negation,
   and "whether or not" none.

False conflicts on faithful paraphrases are kept down the same way: a negation is no conflict when the other
side negates the same word elsewhere or in other words ("you can't use" / "cannot be used"); a source condition
is restated when the claim's own condition clause holds half its words; a condition marker is no actor ("unless
that" / "except where doing so"), and an actor is a noun phrase right before its modal.

A conflict counts only when ``about >= MIN_ABOUT`` (the claim is about that sentence; otherwise the
claim is simply not found). ``MIN_ABOUT`` is chosen by leave-one-corpus-out on the regulation claim sets
(``python -m eval.claims_bench``). The cues are generic English: modal verbs, negators, condition
markers, month names; nothing names a corpus, a role or a question.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Literal

from anchor_core.scorers.features import IMPLICIT_NEGATIVES
from anchor_core.scorers.text import Token, analyse, is_negator, stem

# Calibrated by eval.claims_bench (leave-one-corpus-out over aiact/gdpr/peps/rfc/adgm): see eval/results/claims.md.
MIN_ABOUT = 0.6
# A claim the closest sentence restates word for word (this share of its content words, in any order, with
# the same numbers, forces and polarity, nothing in conflict) is supported by it, whatever the scorer says.
# Calibrated by eval.claims_bench like MIN_ABOUT.
MIN_SUPPORT = 0.7
# A claim needs this many content keys (two of them words) to be "about" one sentence: "It applies." is about
# everything.
MIN_CLAIM_KEYS = 3

Kind = Literal["negation", "modality", "number", "date", "actor", "condition"]

_MODALS = {"shall": "must", "must": "must", "may": "may", "can": "may", "cannot": "may", "should": "should",
           "might": "may", "could": "may", "ought": "should"}  # "ought to adopt" recommends as "should adopt" does
# Comparatives that hold a negator but state a bound, not a negation: "no later than", "not less than".
_BOUND_WORDS = frozenset({"later", "less", "more", "longer", "earlier", "fewer", "greater", "sooner", "exceeding"})
_CONDITIONS = (("provided", "that"), ("providing", "that"), ("save", "where"), ("except",), ("unless",),
               ("where",), ("if",))
_CLAUSE_OPEN = frozenset({",", ";", ":", "(", "."})
_MONTHS = {m: i for i, m in enumerate(
    "january february march april may june july august september october november december".split(), start=1)}
_DEONTIC_WORDS = {stem("required"): "must", stem("obliged"): "must", stem("obligated"): "must",
                  stem("permitted"): "may", stem("allowed"): "may",
                  stem("empowered"): "may", stem("free"): "may", stem("optional"): "optional",
                  stem("mandatory"): "must", stem("compulsory"): "must",
                  stem("encouraged"): "should"}  # "are encouraged to vote": recommended, not required
_PROHIBITIVE = frozenset(stem(w) for w in "prohibit prohibited prohibition forbid forbidden ban banned".split())
# After a copula these forbid what follows: "are prohibited from treating" says "must not treat".
_FORBIDDEN = frozenset(stem(w) for w in "prohibited forbidden barred banned precluded".split())
# A choice left to someone: "free to decide whether to disclose", "has discretion over whether to disclose",
# "may choose whether or not to" -- no obligation to disclose.
_CHOICE = frozenset(stem(w) for w in "decide decides choose chooses discretion option elect determine".split())
# A permission stated as a choice: "may, at its discretion, check", "may, if it chooses, assess", "may, but need
# not, cover", "may optionally support" -- no obligation to do it. Read right after a "may".
_OPTION_AFTER = (("at", "*", "discretion"), ("at", "the", "discretion"), ("at", "*", "own", "discretion"),
                 ("at", "*", "sole", "discretion"), ("if", "*", "chooses"), ("if", "*", "choose"),
                 ("if", "*", "wishes"), ("if", "*", "wish"), ("if", "*", "so", "chooses"), ("if", "*", "so", "wish"),
                 ("if", "*", "so", "wishes"), ("if", "*", "so", "choose"), ("but", "need", "not"),
                 ("but", "is", "not", "required"), ("but", "are", "not", "required"), ("optionally",))
# The same choice said without a "may": "has discretion to organise", "has the option of reporting", "it is up to
# the notifying party whether": the "to" / "of" / "whether" after them opens what is left to choice.
_OPTION_HEADS = (("has", "discretion"), ("have", "discretion"), ("has", "full", "discretion"),
                 ("have", "full", "discretion"), ("has", "the", "option"), ("have", "the", "option"),
                 ("is", "up", "to"), ("are", "up", "to"), ("is", "left", "to"), ("are", "left", "to"),
                 ("is", "at", "the", "discretion"), ("are", "at", "the", "discretion"), ("a", "mere", "option"))
# Verbs that negate the verb after them when a modal governs them: "should avoid routing" says "should not route".
_AVOID = frozenset(stem(w) for w in "avoid refrain abstain".split())
# The words before a deontic word that make it one ("is required", "are not allowed", "being obliged").
_COPULAS = frozenset({"is", "are", "be", "been", "being", "was", "were", "not", "also"})
_SUBJECT_NEGATORS = frozenset({"no", "neither", "nor", "none", "nobody", "nothing"})
_AFTER_NEGATORS = frozenset({"not", "never", "no", "neither"})  # "shall neither seek nor take"


@dataclass(frozen=True)
class Conflict:
    kind: Kind
    reason: str
    words: tuple[str, ...] = field(default=(), compare=False)
    """Match keys of the claim words in conflict (the actor a claim names instead)."""
    reference: str = field(default="", compare=False)
    """The claim's reference ("articl #64 #2") when the conflict is another reference with the same head."""


@dataclass
class Contradiction:
    """The sentence ``text[start:end]`` of source ``source`` (an index into the given texts) that states
    otherwise, how much of the claim it holds (``about``) and what conflicts."""

    source: int
    start: int
    end: int
    quote: str
    about: float
    conflicts: list[Conflict] = field(default_factory=list)

    @property
    def reason(self) -> str:
        return "; ".join(c.reason for c in self.conflicts)


def _words(text: str) -> list[Token]:
    toks = [t for t in analyse(text) if t.kind != "punct" or t.text in _CLAUSE_OPEN]
    # "Chapter VI", "Annex III", "Title II": a roman numeral after a capitalised head is the reference's number, so
    # "Chapter IV" for "Chapter VI" is another reference, as "Article 64(1)" for "Article 64(2)" is
    for i in range(1, len(toks)):
        t, head = toks[i], toks[i - 1]
        if t.kind == "word" and _ROMAN.fullmatch(t.text) and head.kind == "word" and head.text[:1].isupper() \
                and head.text.lower() in _ROMAN_HEADS:
            toks[i] = replace(t, key="#" + t.text, kind="number", content=True)
    return toks


def _roman(t: Token) -> bool:
    """A roman numeral that :func:`_words` read as a reference's number ("IV" keyed "#IV")."""
    return t.kind == "number" and t.text.isalpha() and t.key == "#" + t.text


_ROMAN = re.compile(r"(?=[IVXLC])(?:XC|XL|L?X{0,3})(?:IX|IV|V?I{0,3})")  # I to XCIX
# the heads that number their units in roman numerals (EU law's chapters, titles, annexes; a rulebook's parts)
_ROMAN_HEADS = frozenset({"chapter", "chapters", "title", "titles", "annex", "annexes", "part", "parts", "section",
                          "sections", "schedule", "book", "appendix"})


def _statement(text: str) -> list[Token]:
    """The tokens of a sentence or claim as the judges read it: a paragraph or point number that opens it
    ("6.", "(b)") is structure, not a number the text states."""
    return _words(_ENUMERATOR.sub("", text, count=1))


def _is_neg(toks: list[Token], i: int) -> bool:
    if not is_negator(toks, i):
        return False
    if toks[i].text.lower() == "not" and i > 0 and toks[i - 1].text.lower() == "or":
        return False  # "whether or not", "a third party or not": both ways, no negation
    nxt = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
    after = toks[i + 2].text.lower() if i + 2 < len(toks) else ""
    return not (nxt in _BOUND_WORDS and after == "than")


def _about_keys(toks: list[Token]) -> set[str]:
    return {t.key for i, t in enumerate(toks) if t.content and t.kind == "word" and t.text.lower() not in _MODALS
            and not _is_neg(toks, i) and t.text.lower() not in _MONTHS}


def about(claim: str, sentence: str) -> float:
    """Share of the claim's content keys (no numbers, modals, negators, months) that ``sentence`` holds."""
    ck = _about_keys(_words(claim))
    if len(ck) < 2:
        return 0.0
    return len(ck & _about_keys(_words(sentence))) / len(ck)


# --- deontic force ------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Modal:
    pos: int
    force: str          # must / may / should, each possibly prefixed "not-"
    surface: str
    verb: str | None    # key of the first content word after the modal (the verb it governs)
    restricted: bool    # "may ... only": a permission that is really a prohibition of the rest
    exceptive: bool     # "shall not ... without": a prohibition that is really a conditional permission
    choice: bool = False  # "optional" said as a permission left to choice ("may, at its discretion", "has the option")


_CLAUSE_STOPS = frozenset({";", ".", ":"})
_SEGMENT_STOPS = _CLAUSE_STOPS | {","}


def _clause_bounds(toks: list[Token], i: int, stops: frozenset[str] = _CLAUSE_STOPS) -> tuple[int, int]:
    """First and last token of the stretch around ``i`` between two of ``stops`` (by default the clause;
    with :data:`_SEGMENT_STOPS` the stretch between commas)."""
    a = i
    while a > 0 and toks[a - 1].text not in stops:
        a -= 1
    b = i
    while b + 1 < len(toks) and toks[b + 1].text not in stops:
        b += 1
    return a, b


_LY_VERBS = frozenset({"apply", "comply", "supply", "reply", "imply", "multiply", "rely", "ally"})


def _adverb(word: str) -> bool:
    """An "-ly" adverb ("promptly", "merely"), not a verb that ends so ("apply", "comply", "rely")."""
    low = word.lower()
    return low.endswith("ly") and len(low) > 4 and low not in _LY_VERBS


def _have_to(toks: list[Token], i: int) -> bool:
    """"has to register", "have to be registered": an obligation; not "has to do with", "has to be" + noun."""
    nxt = [t.text.lower() for t in toks[i + 1:i + 4]]
    if len(nxt) < 2 or nxt[0] != "to" or toks[i + 2].kind != "word":
        return False
    if nxt[1] == "be":
        return len(nxt) == 3 and _participle(toks[i + 3].text)
    return nxt[1] not in {"do"} | _AFTER_NEGATORS


def _matches(toks: list[Token], i: int, pattern: tuple[str, ...]) -> int | None:
    """Position after ``pattern`` read from ``i`` (``"*"`` is any one word), ``None`` when it is not there."""
    for k, want in enumerate(pattern):
        if i + k >= len(toks) or toks[i + k].kind != "word":
            return None
        if want != "*" and toks[i + k].text.lower() != want:
            return None
    return i + len(pattern)


def _option_after(toks: list[Token], i: int) -> int | None:
    """Where the words end that follow the "may" at ``i`` (past a comma) and leave the act to choice."""
    k = i + 1 + (i + 1 < len(toks) and toks[i + 1].text == ",")
    return next((end for p in _OPTION_AFTER if (end := _matches(toks, k, p)) is not None), None)


def _option_head(toks: list[Token], i: int) -> int | None:
    """Where what is left to choice opens (its "to" / "of" / "whether", or the word after) when a choice phrase
    ("has discretion to", "has the option of", "is up to X whether") starts at ``i``; ``None`` otherwise."""
    for p in _OPTION_HEADS:
        end = _matches(toks, i, p)
        if end is None:
            continue
        # "is up to", "is left to": a person or body, then "whether" / "to" / "how"; "to decide" is read there too
        # ("up to 4 %", "is up to date" are not; nor "left to the Member States" with no "whether" / "to" + verb)
        if p[-1] == "to" and (end >= len(toks) or toks[end].kind != "word" or toks[end].text.lower() == "date"):
            continue
        opens = {"whether", "to"} if p[-1] == "to" else {"whether", "to", "of", "over"}
        for k in range(end, min(end + 8, len(toks) - 1)):
            low = toks[k].text.lower()
            if low in opens and toks[k + 1].kind == "word":
                at = k + 1 if toks[k + 1].text.lower() in {"whether", "to"} else k
                # "has discretion over whether to": the "whether" is read as the choice it opens (_chosen)
                return None if toks[at].text.lower() == "whether" and _chosen(toks, at) is not None else at
            if toks[k].text in _CLAUSE_STOPS:
                break
        if p[-1] in {"option", "discretion"}:
            return end - 1
        # "is left to the experts' discretion", "is left to the discretion of the Authority": nothing opens after
        if p[-1] == "to" and any(t.text.lower() == "discretion" for t in toks[end:end + 6]):
            return end - 1
    return None


def _modals(toks: list[Token]) -> list[_Modal]:
    out: list[tuple[_Modal, bool]] = []
    for i, t in enumerate(toks):
        low = t.text.lower()
        base = _MODALS.get(low)
        before_neg = False
        # the copula may stand an adverb away: "it is merely optional", "is expressly permitted"; an article away
        # when the word is said of a noun that follows ("is a required parameter", "is an optional field"); or
        # another deontic word away ("is permitted but optional"; not "are required or optional", which says neither)
        cop = i - 2 if i > 1 and (_adverb(toks[i - 1].text) or toks[i - 1].text.lower() in {"a", "an"}) else i - 1
        if cop > 0 and toks[cop].text.lower() == "but" and toks[cop - 1].key in _DEONTIC_WORDS:
            cop -= 2
        if base is None and t.key in _DEONTIC_WORDS and cop >= 0 and toks[cop].key in _COPULAS:
            base = _DEONTIC_WORDS[t.key]
            before_neg = _is_neg(toks, cop)  # "is not required", "are not allowed"
            if base == "optional" and before_neg:
                base, before_neg = "must", False  # "is not optional"
        if base is None and t.key in _FORBIDDEN and cop >= 0 and toks[cop].key in _COPULAS and \
                i + 1 < len(toks) and toks[i + 1].text.lower() in {"from", "to"}:
            # "are prohibited from treating", "is forbidden to use"; "is not prohibited from" permits
            base, before_neg = ("may", False) if _is_neg(toks, cop) else ("must", True)
        gov = i  # where the governed verb is looked for after
        choice = False
        if base == "may" and low == "may" and _option_after(toks, i) is not None:
            base, choice = "optional", True  # "may, at its discretion, ensure": a choice, not a duty
        if base is None and (at := _option_head(toks, i)) is not None:
            base, gov, choice = "optional", at, True  # "has discretion to organise", "it is up to the party whether"
        if base is None and low == "whether" and (to := _chosen(toks, i)) is not None:
            # "free to decide whether to disclose", "has discretion over whether to disclose"
            base, gov = "optional", to
        if base is None and low in {"has", "have", "had"} and _have_to(toks, i):
            # "has to be created", "have to register"; not "has to do with", nor a relative clause ("information
            # that has to be notified", a description as "required to be notified" is); "do not have to" lifts one
            if i > 0 and toks[i - 1].text.lower() in {"that", "which", "who"} and not _cleft(toks, i - 1):
                continue
            base = "optional" if i > 0 and _is_neg(toks, i - 1) else "must"
        if base is None and low in {"need", "obligation"} and i > 0 and toks[i - 1].text.lower() == "no" and \
                i + 1 < len(toks) and toks[i + 1].text.lower() == "to":
            base = "optional"  # "have no need to keep", "are under no obligation to provide"
        if low == "need" and i + 1 < len(toks) and toks[i + 1].text.lower() == "not":
            base = "optional"
        if base is None:
            continue
        neg = low == "cannot" or low.endswith("n't") or before_neg
        if base == "optional":
            neg = False
        elif neg and base == "must" and t.key in _DEONTIC_WORDS:
            base, neg = "optional", False  # "not required" lifts an obligation, it forbids nothing
        optional = base == "optional"
        j = i + 1
        # "shall not", "must never", "shall no longer"; not the "not" of "need not", "whether or not"
        while j < len(toks) and j <= i + 2 and not neg and not optional:
            if toks[j].text.lower() in _AFTER_NEGATORS and _is_neg(toks, j):
                neg = True
            j += 1
        a, b = _clause_bounds(toks, i)
        subject_neg = False
        if not neg and i > 0 and toks[i - 1].text.lower() in {"and", "or"} and out and out[-1][0].pos >= a:
            # "... and must deduct": a second predicate of the same subject, negated only if the first was by it.
            neg = subject_neg = out[-1][1]
        elif not neg and base != "optional":
            # "No person shall", "Neither the controller nor the processor may": a negator opening the subject.
            k = i - 1
            while k >= a and toks[k].text not in {",", "("}:
                if toks[k].text.lower() in _SUBJECT_NEGATORS:
                    neg = subject_neg = True
                    break
                k -= 1
        verb = _governed(toks, gov, b)  # "whether or not to notify": the verb after the "to"
        if verb in _AVOID and not neg and base in {"must", "should"}:
            # "should avoid routing", "shall refrain from using": the modal forbids the verb after ("may refrain"
            # permits not doing it, which forbids nothing)
            at = _governed_at(toks, i, b)
            nxt = _governed(toks, at, b) if at is not None else None
            if nxt is not None:
                neg, verb = True, nxt
        # "may only be …", "shall be carried out only under …": an "only" next to the modal's verb phrase (not
        # "positional-only" earlier in the clause).
        restricted = any(toks[k].text.lower() == "only" for k in range(max(a, i - 2), min(b, i + 5) + 1))
        exceptive = any(toks[k].text.lower() in {"without", "unless", "except"} for k in range(a, b + 1))
        force = ("not-" if neg else "") + base
        out.append((_Modal(i, force, t.text, verb, restricted, exceptive, choice), subject_neg))
    return [m for m, _ in out]


# Words between a modal and its verb that are not the verb: auxiliaries and sentence adverbs.
_NOT_VERBS = frozenset({"be", "been", "being", "have", "has", "also", "always", "only", "never", "still", "then",
                        "therefore", "thereby", "thus", "further", "either", "both", "do", "to"})


def _cleft(toks: list[Token], i: int) -> bool:
    """The "that" / "who" at ``i`` closes a cleft ("It is the Board that has to communicate"): what follows is the
    main clause, its subject the noun phrase between "it is" and ``i``, not a relative clause."""
    a, _ = _clause_bounds(toks, i)
    low = [t.text.lower() for t in toks[a:i]]
    return len(low) >= 3 and low[0] == "it" and low[1] in {"is", "was"} and i - a <= 8


def _chosen(toks: list[Token], i: int) -> int | None:
    """Where the "to" is when the "whether" at ``i`` opens a choice left to someone ("decide / choose / has
    discretion (over) whether (or not) to" + verb); ``None`` when it does not."""
    nxt = [t.text.lower() for t in toks[i + 1:i + 4]]
    to = i + 1 if nxt[:1] == ["to"] else i + 3 if nxt[:3] == ["or", "not", "to"] else None
    if to is None or not any(t.key in _CHOICE for t in toks[max(0, i - 3):i]):
        return None
    return to


def _governed(toks: list[Token], i: int, end: int) -> str | None:
    """Key of the verb the modal at ``i`` governs: the first content word after it within its clause (up to
    ``end``), past negators, auxiliaries, "-ly" adverbs and one parenthetical between commas ("shall, by
    written mandate, appoint" governs "appoint"; "must not be treated" governs "treat")."""
    at = _governed_at(toks, i, end)
    return toks[at].key if at is not None else None


def _governed_at(toks: list[Token], i: int, end: int) -> int | None:
    """Position of the verb :func:`_governed` names."""
    k, skipped, paren = i + 1, 0, False
    while k <= end and skipped < 4:
        t = toks[k]
        low = t.text.lower()
        if low in _MODALS:
            return None  # "(that a code challenge is required) SHOULD be explained": another modal's verb
        if t.text == "," and not paren:
            close = next((j for j in range(k + 1, end + 1) if toks[j].text == ","), None)
            if close is None:
                return None
            k, paren = close + 1, True
            continue
        if t.kind != "word" or _is_neg(toks, k) or low in _NOT_VERBS or t.key in _NOT_VERBS or \
                _adverb(low) or not t.content or \
                (low == "longer" and toks[k - 1].text.lower() == "no"):  # "can no longer move"
            k, skipped = k + 1, skipped + 1
            continue
        return k
    return None


_CLASH = {frozenset({"must", "not-must"}), frozenset({"may", "not-must"}), frozenset({"must", "not-may"}),
          frozenset({"may", "not-may"}), frozenset({"should", "not-should"}), frozenset({"must", "may"}),
          frozenset({"must", "not-should"}), frozenset({"should", "not-must"}),
          frozenset({"must", "optional"}), frozenset({"should", "optional"}), frozenset({"must", "should"})}
# "not required", "need not", "optional": no obligation either way, nor a recommendation ("SHOULD" / "OPTIONAL")
_SAME = {frozenset({"not-must", "not-may"})}  # "shall not" and "may not" both forbid
# "can", "could", "might" also state ability; read without alignment they are not a permission.
_ABILITY = frozenset({"can", "could", "might", "cannot"})


def _say(force: str, surface: str) -> str:
    return f"{surface.lower()} not" if force.startswith("not-") and " " not in surface and \
        surface.lower() not in {"cannot"} else surface.lower()


def _aligned(sk: list[str], ck: list[str]) -> dict[int, set[int]]:
    """Claim position → source positions it lines up with (its own in an equal run, the other side of a
    small replacement)."""
    out: dict[int, set[int]] = {}
    for tag, i1, i2, j1, j2 in difflib.SequenceMatcher(a=sk, b=ck, autojunk=False).get_opcodes():
        if tag == "equal":
            for k in range(j2 - j1):
                out[j1 + k] = {i1 + k}
        elif tag == "replace" and i2 - i1 <= 3 and j2 - j1 <= 3:
            for j in range(j1, j2):
                out[j] = set(range(i1, i2))
    return out


def _modality(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """The modal the claim has where the source has another force (the two sentences lined up word by word)."""
    sm = {m.pos: m for m in _modals(stoks)}
    cm = _modals(ctoks)
    if not sm or not cm:
        return None
    where = _aligned([t.key for t in stoks], [t.key for t in ctoks])
    by_verb: dict[str, list[_Modal]] = {}
    for s in sm.values():
        if s.verb is not None:
            by_verb.setdefault(s.verb, []).append(s)
    for c in cm:
        lined_up = [sm[i] for i in sorted(where.get(c.pos, ())) if i in sm]
        for s in lined_up:
            if _clash(s, c):
                return _modal_conflict(stoks, ctoks, s, c)
        if lined_up or c.verb is None:
            continue
        # Reworded (passive for active, the condition moved): the claim's modal and every source modal that
        # governs the same verb, when they all have one force and its polarity is the opposite of the claim's.
        same_verb = by_verb.get(c.verb, [])
        forces = {s.force.replace("not-may", "not-must") for s in same_verb}
        if len(forces) == 1 and _clash(same_verb[0], c) and (
                same_verb[0].force.startswith("not-") != c.force.startswith("not-")
                or not {c.surface.lower(), same_verb[0].surface.lower()} & _ABILITY):
            return _modal_conflict(stoks, ctoks, same_verb[0], c)
    return None


def _clash(s: _Modal, c: _Modal) -> bool:
    pair = frozenset({s.force, c.force})
    # "may X only with Y" says what "shall not X without Y" says.
    if (s.restricted and c.exceptive) or (c.restricted and s.exceptive):
        return False
    # "shall be used only under safeguards" and "is permitted only subject to safeguards": the "only" is the rule.
    if s.restricted and c.restricted and pair == frozenset({"must", "may"}):
        return False
    return not (s.force == c.force or pair in _SAME or pair not in _CLASH)


def _modal_conflict(stoks: list[Token], ctoks: list[Token], s: _Modal, c: _Modal) -> Conflict:
    kind: Kind = "modality" if frozenset({s.force, c.force}) in {
        frozenset({"must", "may"}), frozenset({"must", "optional"}), frozenset({"should", "optional"}),
        frozenset({"must", "should"})} else "negation"
    return Conflict(kind, f"the source says “{_phrase(stoks, s)}”, the claim “{_phrase(ctoks, c)}”")


def _phrase(toks: list[Token], m: _Modal) -> str:
    if toks[m.pos].text.lower() == "whether":  # "free to decide whether", "has discretion over whether"
        a = next((k for k in range(max(0, m.pos - 3), m.pos) if toks[k].key in _CHOICE), m.pos)
        return " ".join(t.text for t in toks[a:m.pos + 1])
    if toks[m.pos].key in _FORBIDDEN:  # "prohibited from", "forbidden to"
        return " ".join(t.text for t in toks[m.pos:m.pos + 2])
    if m.choice and toks[m.pos].text.lower() == "may":  # "may, at its discretion"
        return " ".join(t.text for t in toks[m.pos:_option_after(toks, m.pos) or m.pos + 1]).replace(" ,", ",")
    if m.choice:  # "has discretion", "has the option", "is up to"
        head = next((end for p in _OPTION_HEADS if (end := _matches(toks, m.pos, p)) is not None), m.pos + 1)
        return " ".join(t.text for t in toks[m.pos:head])
    if m.force == "optional":  # "not required", "need not", "optional"
        a = m.pos - 1 if m.pos > 0 and _is_neg(toks, m.pos - 1) else m.pos
        b = m.pos + 1 if toks[m.pos].text.lower() == "need" else m.pos
        return " ".join(t.text for t in toks[a:b + 1])
    words = [toks[m.pos].text]
    if toks[m.pos].text.lower() in {"has", "have", "had"}:
        words.append("to")  # "has to"
    j = m.pos + 1
    while j < len(toks) and j <= m.pos + 2 and toks[j].text.lower() in _AFTER_NEGATORS and _is_neg(toks, j):
        words.append(toks[j].text)
        j += 1
    avoid = next((k for k in range(m.pos + 1, min(m.pos + 4, len(toks))) if toks[k].key in _AVOID), None)
    if m.force.startswith("not-") and len(words) == 1 and avoid is not None:
        return " ".join(t.text for t in toks[m.pos:avoid + 1])  # "should avoid", "shall refrain"
    if m.force.startswith("not-") and len(words) == 1 and m.pos > 0:
        k = m.pos - 1
        while k >= 0 and not _is_neg(toks, k):
            k -= 1
        if k >= 0:
            return " ".join(t.text for t in toks[k:m.pos + 1])
    return " ".join(words)


def _negation(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """``not`` added or removed between two aligned stretches of the same words (no modal involved)."""
    sk, ck = [t.key for t in stoks], [t.key for t in ctoks]
    ops = difflib.SequenceMatcher(a=sk, b=ck, autojunk=False).get_opcodes()
    for n, (tag, i1, i2, j1, j2) in enumerate(ops):
        if tag == "equal" or i2 - i1 > 3 or j2 - j1 > 3:
            continue
        # The same words on both sides of the change: one statement, negated, not a rewording.
        if not (0 < n < len(ops) - 1 and ops[n - 1][2] - ops[n - 1][1] >= 2 and ops[n + 1][2] - ops[n + 1][1] >= 2):
            continue
        # An explicit negator on one side, against neither a negator nor a negative word ("prohibits") on the other.
        s_neg = [i for i in range(i1, i2) if _is_neg(stoks, i)]
        c_neg = [j for j in range(j1, j2) if _is_neg(ctoks, j)]
        s_any = s_neg or any(stoks[i].key in IMPLICIT_NEGATIVES or _prefixed_negative(stoks[i], ck)
                             for i in range(i1, i2))
        c_any = c_neg or any(ctoks[j].key in IMPLICIT_NEGATIVES or _prefixed_negative(ctoks[j], sk)
                             for j in range(j1, j2))
        if (s_neg and not c_any) or (c_neg and not s_any):
            if _negates_alike(stoks, ctoks, s_neg[0]) if s_neg else _negates_alike(ctoks, stoks, c_neg[0]):
                continue
            negated, other = (stoks, ctoks) if s_neg else (ctoks, stoks)
            if any(t.text.lower() in {"unless", "except", "without"} for t in negated) and \
                    any(t.text.lower() == "only" for t in other):
                continue  # "shall not be processed unless Y" / "may be processed only if Y": one restriction
            if s_neg:
                return Conflict("negation",
                                f"the source says “{_around(stoks, s_neg[0])}”, the claim does not negate it")
            return Conflict("negation", f"the claim says “{_around(ctoks, c_neg[0])}”, the source does not")
    return None


_NEGATIVE_PREFIXES = ("non-", "non", "un", "in", "im", "ir", "il", "dis")


def _unprefixed(word: str) -> set[str]:
    """Keys of ``word`` with a negative prefix taken off ("inadequate" → "adequ"); empty without one."""
    low = word.lower()
    return {stem(low[len(p):]) for p in _NEGATIVE_PREFIXES if low.startswith(p) and len(low) - len(p) >= 4}


def _prefixed_negative(t: Token, other_keys: Sequence[str] | set[str]) -> bool:
    """A word that negates by its prefix a word the other side uses ("incorrectly" / "correctly", "unlawful" /
    "lawful", "non-compliance" / "compliance")."""
    return t.kind == "word" and any(k in other_keys for k in _unprefixed(t.text))


def _negates_alike(toks: list[Token], other: list[Token], i: int) -> bool:
    """The other sentence negates what the negator at ``i`` negates, elsewhere or in other words: it negates the
    same word ("you can't use" / "cannot be used"), negates it by a prefix ("not drawn up correctly" / "drawn up
    incorrectly"), or says "unless" for "without"."""
    word = _governed(toks, i, min(len(toks) - 1, i + 6))
    keys = {t.key for t in toks}
    if toks[i].text.lower() == "without" and {t.text.lower() for t in other} & {"unless", "except"}:
        return True
    if any(_prefixed_negative(t, keys) for t in other):
        return True
    return word is not None and any(_is_neg(other, j) and _same_key(_governed(other, j, min(len(other) - 1, j + 6)),
                                                                   word) for j in range(len(other)))


def _same_key(a: str | None, b: str) -> bool:
    """Two keys of one word ("use" / "used", which the stemmer leaves apart)."""
    if a is None:
        return False
    short, long = sorted((a, b), key=len)
    return a == b or (len(short) >= 3 and long.startswith(short) and len(long) - len(short) <= 2)


def _around(toks: list[Token], i: int) -> str:
    return " ".join(t.text for t in toks[max(0, i - 1):i + 2] if t.kind != "punct")


# --- numbers and dates --------------------------------------------------------------------------


def _near(toks: list[Token], i: int, reach: int = 2) -> set[str]:
    out = set()
    for step in (-1, 1):
        j, seen = i + step, 0
        while 0 <= j < len(toks) and seen < reach:
            if toks[j].kind == "punct":
                break
            if toks[j].kind == "word" and toks[j].content:
                out.add(toks[j].key)
                seen += 1
            j += step
    return out


def _unit_after(toks: list[Token], i: int) -> str | None:
    """The word a count counts: the content word right after it ("30 *days*", "two or more *Unitholders*";
    "EUR 35 000 000" has none)."""
    j = i + 1
    if j + 1 < len(toks) and toks[j].text.lower() == "or" and toks[j + 1].text.lower() in _OPEN_BOUNDS:
        j += 2
    if j < len(toks) and toks[j].kind == "word" and toks[j].content:
        return toks[j].key
    return None


_OPEN_BOUNDS = frozenset({"more", "fewer", "less", "above", "below", "over", "under", "higher", "lower"})


def _reference(toks: list[Token], j: int) -> tuple[str, str] | None:
    """The numbered reference a number belongs to, as (its head's key and numbers, the reference as written):
    "Article 64(2)", "Section 5", "paragraph 3". The head is the content word right before the reference's
    first number, capitalised inside the sentence or with no content word after the number: a count
    ("within 30 days", "at least 2 members", "Within 30 days, ...") counts the word after it."""
    i = j
    while i > 0 and (toks[i - 1].kind == "number" or toks[i - 1].text == "("):
        i -= 1
    if i == 0 or toks[i].kind != "number" or _is_year(toks[i]):
        return None
    head = toks[i - 1]
    if head.kind != "word" or not head.content or _month(toks, i - 1):
        return None
    k = j + 1
    while k < len(toks) and (toks[k].kind == "number" or toks[k].text == "("):
        k += 1
    counts = k < len(toks) and toks[k].kind == "word" and toks[k].content
    # a roman numeral counts nothing (:func:`_words` made it a number, keyed "#IV", only after a reference head)
    if counts and not (i - 1 > 0 and head.text[:1].isupper()) and not _roman(toks[i]):
        return None
    nums = [(n, t) for n, t in enumerate(toks[i:k], start=i) if t.kind == "number"]
    written = "".join(f"({t.text})" if toks[n - 1].text == "(" else t.text for n, t in nums)
    return head.key + " " + " ".join(t.key for _, t in nums), f"{head.text} {written}"


_PERIOD_DAYS = {"day": 1, "week": 7, "month": 30, "quarter": 91, "year": 365}
_FREQUENCY_WORDS = {"daily": 1, "weekly": 7, "monthly": 30, "quarterly": 91, "annual": 365, "annually": 365,
                    "yearly": 365, "biennial": 730, "biennially": 730}
_TIMES = {"once": 1, "twice": 2}


def _frequencies(toks: list[Token]) -> list[tuple[float, str]]:
    """How often the sentence says something recurs, in days, with its wording: "on an annual basis" and
    "every year" are 365, "every two years" 730, "twice a year" 182.5."""
    out = []
    low = [t.text.lower() for t in toks]
    for i, w in enumerate(low):
        if w in _FREQUENCY_WORDS:
            if i > 0 and toks[i].text[:1].isupper():
                continue  # part of a name ("the Football Weekly podcast", "the Annual Report")
            out.append((float(_FREQUENCY_WORDS[w]), toks[i].text))
        elif w == "every" and i + 1 < len(toks):
            n, k = 1.0, i + 1
            if toks[k].kind == "number" and k + 1 < len(toks):
                n, k = _count_value(toks[k]), k + 1
            unit = low[k].rstrip("s")
            if unit in _PERIOD_DAYS and n > 0:
                out.append((n * _PERIOD_DAYS[unit], " ".join(t.text for t in toks[i:k + 1])))
        elif (w in _TIMES or (toks[i].kind == "number" and i + 1 < len(low) and low[i + 1] == "times")) \
                and i + 2 < len(low):
            k = i + 1 if w in _TIMES else i + 2
            n = float(_TIMES[w]) if w in _TIMES else _count_value(toks[i])
            if k + 1 < len(low) and low[k] in {"a", "an", "per", "each", "every"} and low[k + 1] in _PERIOD_DAYS:
                out.append((_PERIOD_DAYS[low[k + 1]] / n, " ".join(t.text for t in toks[i:k + 2])))
    return out


def _count_value(t: Token) -> float:
    """The value of a number token ("two" and "2" both have key "#2"); 0 when it is not a plain number."""
    try:
        return float(t.key[1:]) if t.key.startswith("#") else 0.0
    except ValueError:
        return 0.0


def _frequency(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """One stated frequency on each side, and they differ: "on an annual basis" against "every two years"."""
    sf, cf = _frequencies(stoks), _frequencies(ctoks)
    if len(sf) == 1 and len(cf) == 1 and abs(sf[0][0] - cf[0][0]) > 0.5:
        return Conflict("number", f"the source says {sf[0][1]}, the claim {cf[0][1]}")
    return None


def _is_count(toks: list[Token], i: int) -> bool:
    t = toks[i]
    return (t.kind == "number" and not _is_year(t)) or t.text.lower() in {"one", "a", "an"}


def _month(toks: list[Token], i: int) -> bool:
    low = toks[i].text.lower()
    if low not in _MONTHS:
        return False
    # "May" is a month only capitalised next to a number ("2 May 2025"), else it is the modal.
    return low != "may" or (toks[i].text == "May" and any(0 <= k < len(toks) and toks[k].kind == "number"
                                                           for k in (i - 1, i + 1)))


def _numbers(stoks: list[Token], ctoks: list[Token], about_it: bool = True) -> Conflict | None:
    """A number, year or month of the claim where the source states another one: at the same place in the
    same wording, or (counts only) before the same counted word ("30 days" vs "60 days"). With ``about_it``
    (the sentence is the one the claim is about, not just one a scorer quoted) also a reference with the same
    head ("Article 64(1)" vs "Article 64(2)") and another frequency ("annually" vs "every two years")."""
    s_keys = {t.key for t in stoks if t.kind == "number"}
    where = _aligned([t.key for t in stoks], [t.key for t in ctoks])
    for j, t in enumerate(ctoks):
        is_month = _month(ctoks, j)
        if not (t.kind == "number" or is_month) or t.key in s_keys:
            continue
        if is_month and any(_month(stoks, i) and stoks[i].key == t.key for i in range(len(stoks))):
            continue
        date = is_month or _is_year(t) or any(0 <= k < len(ctoks) and _month(ctoks, k) for k in (j - 1, j + 1))
        for i in sorted(where.get(j, ())):
            s = stoks[i]
            if _roman(t) or _roman(s):
                continue  # a roman numeral numbers a chapter or an annex: only another one of those differs from it
            if _is_year(t) != _is_year(s) and not is_month:
                continue  # a year lines up with a day number only by word order ("9 November 2018", "November 9")
            if (is_month and _month(stoks, i)) or (not is_month and (s.kind == "number" or _is_count(stoks, i))):
                kind: Kind = "date" if date else "number"
                sr, cr = _reference(stoks, i), _reference(ctoks, j)
                return Conflict(kind, f"the source says {sr[1] if sr else _unit(stoks, i)}, "
                                      f"the claim {cr[1] if cr else _unit(ctoks, j)}")
        ref = _reference(ctoks, j) if t.kind == "number" and about_it else None
        if ref is not None:
            head = ref[0].split()[0]
            others = [r for i in range(len(stoks)) if stoks[i].kind == "number"
                      and (r := _reference(stoks, i)) is not None and r[0].split()[0] == head]
            if others and ref[0] not in {r[0] for r in others}:
                return Conflict("number", f"the source says {others[0][1]}, the claim {ref[1]}", reference=ref[0])
        unit = _unit_after(ctoks, j) if t.kind == "number" and not _is_year(t) else None
        if unit is None:
            continue
        for i in range(len(stoks)):
            if _is_count(stoks, i) and stoks[i].key != t.key and _unit_after(stoks, i) == unit:
                return Conflict("number", f"the source says {_unit(stoks, i)}, the claim {_unit(ctoks, j)}")
    # "one week" / "a single week" where the source counts the same thing with a number ("two weeks"): a claim's
    # "one" is a word to the tokenizer (it is also a pronoun), so it is read here, before the same counted word;
    # only on the whole sentence the claim is about (a scorer's quote may stop before the source's own "one day")
    ones = [j for j in range(len(ctoks)) if about_it and _says_one(ctoks, j)]
    if ones:
        counted = [_unit_after(stoks, i) for i in range(len(stoks))]
        # what the source counts one of too ("within two days, and for bonds one day")
        single = {counted[i] for i in range(len(stoks)) if _says_one(stoks, i) or stoks[i].text.lower() in {"a", "an"}}
        for j in ones:
            unit = _unit_after(ctoks, j)
            if unit is None or unit in single:
                continue
            for i in range(len(stoks)):
                if stoks[i].kind == "number" and not _is_year(stoks[i]) and _count_value(stoks[i]) > 1 \
                        and counted[i] == unit:
                    return Conflict("number", f"the source says {_unit(stoks, i)}, the claim {_unit(ctoks, j)}")
    return _frequency(stoks, ctoks) if about_it else None


def _says_one(toks: list[Token], j: int) -> bool:
    """The word at ``j`` counts one: "one" before what it counts, or "single" after "a" ("a single week")."""
    low = toks[j].text.lower()
    return low == "one" or (low == "single" and j > 0 and toks[j - 1].text.lower() in {"a", "one"})


# Bound words before a value: "at least", "a minimum of" (a floor), "at most", "a maximum of", "up to", "within" (a
# ceiling); a negated comparative ("not less than" is a floor, "no more than" and "shall not exceed" a ceiling; a
# bare one is not read); after the value, "or more" / "or less".
_FLOOR_WORDS = frozenset({"least", "minimum", "min"})
_CEILING_WORDS = frozenset({"most", "maximum", "max", "within"})
_UPWARD = frozenset({"more", "greater", "longer", "later", "above", "over", "exceed", "exceeds", "exceeding"})
_DOWNWARD = frozenset({"less", "fewer", "shorter", "earlier", "below", "under"})


def _bound(toks: list[Token], i: int) -> tuple[str, int] | None:
    """Whether the value at ``i`` is a floor or a ceiling, and where the bound's first word is."""
    for k in range(i + 1, min(i + 4, len(toks) - 1)):
        if toks[k].kind == "punct":
            break
        if toks[k].text.lower() == "or" and toks[k + 1].text.lower() in _UPWARD | _DOWNWARD:
            return ("floor" if toks[k + 1].text.lower() in _UPWARD else "ceiling"), i
    for k in range(i - 1, max(-1, i - 5), -1):
        w = toks[k].text.lower()
        if toks[k].kind == "punct":
            break
        opener = k - 1 if k > 0 and toks[k - 1].text.lower() in {"at", "a", "up"} else k  # "at least", "up to"
        if w in _FLOOR_WORDS:
            return "floor", opener
        if w in _CEILING_WORDS or (w == "to" and k > 0 and toks[k - 1].text.lower() == "up"):
            return "ceiling", opener
        if w in _UPWARD or w in _DOWNWARD:
            # "not less than", "shall not be below", "must not exceed"
            neg_at = next((n for n in (k - 1, k - 2) if n >= 0 and toks[n].text.lower() in {"no", "not", "never"}
                           and (n == k - 1 or toks[k - 1].text.lower() in {"be", "is", "are", "to"})), None)
            if neg_at is None:
                # a bare comparative ("exceed 79 characters", "longer than") may sit under a negation elsewhere in
                # the sentence ("No line should exceed"): its direction is not read
                return None
            return ("ceiling" if w in _UPWARD else "floor"), neg_at
    return None


def _bounds(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """The same value as a floor on one side and a ceiling on the other: "at least twice a year" / "at most twice a
    year", "a minimum of six months" / "a maximum of six months", "not less than 30 days" / "no more than 30
    days". Years and days of a date are left to the date judge."""
    def values(toks: list[Token]) -> list[tuple[int, str, int]]:
        out = []
        for i, t in enumerate(toks):
            if not (t.kind == "number" or t.text.lower() in {"once", "twice"}) or _is_year(t) or \
                    any(0 <= k < len(toks) and _month(toks, k) for k in (i - 1, i + 1)):
                continue
            b = _bound(toks, i)
            if b is not None:
                out.append((i, *b))
        return out

    def said(toks: list[Token], at: int, i: int) -> str:
        end = i + 1  # the value and what it counts ("twice a year", "30 days")
        while end < len(toks) and end <= i + 2 and toks[end].kind == "word":
            end += 1
            if toks[end - 1].content:
                break
        return " ".join(t.text for t in toks[at:end])

    for i, s_side, s_at in values(stoks):
        for j, c_side, c_at in values(ctoks):
            if stoks[i].key == ctoks[j].key and s_side != c_side:
                return Conflict("number", f"the source says “{said(stoks, s_at, i)}”, the claim "
                                          f"“{said(ctoks, c_at, j)}”")
    return None


def _is_year(t: Token) -> bool:
    return t.kind == "number" and re.fullmatch(r"(1[89]|20)\d\d", t.text) is not None


def _unit(toks: list[Token], i: int) -> str:
    if i + 3 < len(toks) and toks[i + 1].text.lower() == "or" and toks[i + 2].text.lower() in _OPEN_BOUNDS:
        return " ".join(t.text for t in toks[i:i + 4])  # "two or more Unitholders"
    nxt = toks[i + 1].text if i + 1 < len(toks) and toks[i + 1].kind == "word" else ""
    prev = toks[i - 1].text if i > 0 and toks[i - 1].kind == "number" and _month(toks, i) else ""
    return " ".join(w for w in (prev, toks[i].text, nxt) if w)


# --- actors --------------------------------------------------------------------------------------


def _actor(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """The subject of a modal verb replaced by words that the other sentence never uses."""
    sk, ck = [t.key for t in stoks], [t.key for t in ctoks]
    s_all, c_all = set(sk), set(ck)
    s_modal = {m.pos for m in _modals(stoks)}
    c_modal = {m.pos for m in _modals(ctoks)}
    sm = difflib.SequenceMatcher(a=sk, b=ck, autojunk=False)
    for tag, i1, i2, j1, j2 in sm.get_opcodes():
        if tag != "replace" or i2 - i1 > 4 or j2 - j1 > 4:
            continue
        s_new = [stoks[i] for i in range(i1, i2) if stoks[i].content and stoks[i].kind == "word"]
        c_new = [ctoks[j] for j in range(j1, j2) if ctoks[j].content and ctoks[j].kind == "word"]
        # An actor is a noun phrase: a modal, or a participle ("intended", "meant"), is a rewording instead, and
        # so is a condition marker ("unless that" / "except where doing so").
        if any(stoks[i].text.lower() in _NOT_ACTORS for i in range(i1, i2)) or \
                any(ctoks[j].text.lower() in _NOT_ACTORS for j in range(j1, j2)):
            continue
        if not s_new or not c_new or any(t.text.lower() in _MODALS for t in s_new + c_new) \
                or all(_participle(t.text) for t in s_new) or all(_participle(t.text) for t in c_new):
            continue
        if not {t.key for t in s_new} - c_all or not {t.key for t in c_new} - s_all:
            continue
        # Someone who acts on one side at least: a name, a role ("the provider", "the supervisory authority"); "a
        # single" for "just one", "a large amount" for "a great deal", "a person" for "anyone" are rewordings
        if not (any(_agentive(stoks, i) for i in range(i1, i2)) or any(_agentive(ctoks, j) for j in range(j1, j2))):
            continue
        # Subject position: the first modal after the replaced words, with no clause break in between.
        if _before_modal(stoks, i2, s_modal) and _before_modal(ctoks, j2, c_modal):
            return Conflict("actor", f"the source names {_np(stoks, i1, i2)}, the claim {_np(ctoks, j1, j2)}",
                            tuple(t.key for t in c_new))
    return None


_BODY = re.compile(r"(?:authorit(?:y|ies)|bod(?:y|ies)|boards?|committees?|councils?|agenc(?:y|ies)|offices?|"
                   r"officers?|courts?|regulators?|organi[sz]ations?|institutions?|supervisors?|managers?|members?|"
                   r"entit(?:y|ies)|commission|parl[ia]+ment|states?|part(?:y|ies)|firms?|compan(?:y|ies)|"
                   r"servers?|clients?|users?|applicants?|participants?|developers?|authors?|teams?|groups?|"
                   r"[a-z]{3,}(?:er|or)s?)", re.I)
_OBJECT_OPENERS = frozenset("the a an its their his her this that these those any each every such whether".split())
_NOT_AGENT = frozenset("""other others order orders number numbers under paper papers matter matters letter letters
manner factor factors sector sectors error errors major minor prior either neither whether rather further water
another after over together member's register registers character characters parameter parameters header headers
identifier identifiers container containers layer layers chapter chapters cover power powers""".split())


def _agentive(toks: list[Token], i: int) -> bool:
    """The word at ``i`` names someone who acts: a name (capitalised inside the sentence, or an acronym) or a role
    noun (a body, a party, an "-er" / "-or" agent: provider, controller, processor)."""
    t = toks[i]
    if t.kind != "word":
        return False
    w = t.text
    if (w[:1].isupper() and i > 0 and not w.isupper()) or (len(w) >= 2 and w.isupper() and w.isalpha()):
        return True
    return _role_noun(toks, i)


def _role_noun(toks: list[Token], i: int) -> bool:
    """The word at ``i`` is a role noun: a body, a party, an "-er" / "-or" agent (provider, controller)."""
    low = toks[i].text.lower()
    if toks[i].kind != "word" or low in _NOT_AGENT or _BODY.fullmatch(low) is None:
        return False
    # an "-ers" word with an object after it is a verb ("covers the", "offers a"), not an agent
    nxt = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
    return not (low.endswith("s") and nxt in _OBJECT_OPENERS)


def _participle(word: str) -> bool:
    low = word.lower()
    return low.endswith(("ed", "ing")) or low in {"meant", "made", "given", "taken", "done", "held", "set"}


def _before_modal(toks: list[Token], end: int, modals: set[int]) -> bool:
    for k in range(end, min(len(toks), end + 4)):  # "the processor shall", "the processor or its agent may"
        if k in modals:
            return True
        if toks[k].kind == "punct":
            return False
    return False


def _np(toks: list[Token], a: int, b: int) -> str:
    words = [t.text for t in toks[a:b] if t.kind == "word"]
    if a > 0 and toks[a - 1].text.lower() in {"the", "a", "an"}:
        words.insert(0, toks[a - 1].text.lower())
    return "“" + " ".join(words) + "”"


# --- conditions ----------------------------------------------------------------------------------


def _conditions(toks: list[Token]) -> list[tuple[int, int, str]]:
    """(start, end, marker) of each condition clause: a marker at a clause start, up to the next break."""
    low = [t.text.lower() for t in toks]
    out = []
    for i in range(len(toks)):
        for marker in _CONDITIONS:
            if tuple(low[i:i + len(marker)]) != marker:
                continue
            opens = i == 0 or toks[i - 1].text in _CLAUSE_OPEN or (marker[0] in {"unless", "except", "provided"})
            if not opens or (marker == ("if",) and any(_matches(toks, i, p) is not None for p in _OPTION_AFTER)):
                continue  # "if it chooses", "if they so wish": a choice (read as a modal), no condition
            j = i + len(marker)
            while j < len(toks) and toks[j].text not in {",", ";", ".", ":"}:
                j += 1
            out.append((i, j, " ".join(marker)))
            break
    return out


def _condition(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """A condition clause of the source whose words the claim neither keeps in place nor restates."""
    c_keys = {t.key for t in ctoks if t.content}
    aligned: set[int] = set()
    for i, _, size in difflib.SequenceMatcher(a=[t.key for t in stoks], b=[t.key for t in ctoks],
                                               autojunk=False).get_matching_blocks():
        aligned.update(range(i, i + size))
    # A condition of a norm: the sentence has a modal verb ("where she honed her songs" in a narrative is a place).
    if not _modals(stoks):
        return None
    # the words of the claim's own condition clauses, a negative prefix read off ("inadequate" restates "not
    # adequate")
    own_condition: set[str] = set()
    for ca, cb, _ in _conditions(ctoks):
        for t in ctoks[ca:cb]:
            if t.content and t.kind == "word":
                own_condition.add(t.key)
                own_condition.update(_unprefixed(t.text))
    for a, b, marker in _conditions(stoks):
        words = [k for k in range(a, b) if stoks[k].content and stoks[k].kind == "word"
                 and stoks[k].text.lower() not in marker.split()]
        if not words:
            continue
        kept = sum(k in aligned for k in words) / len(words)
        keys = {stoks[k].key for k in words}
        restated = len(keys & c_keys) / len(keys)
        # a claim with a condition of its own that holds half the words restates it ("Where the Commission
        # considers the code to be inadequate" for "If it deems the code is not adequate")
        if own_condition and len(keys & own_condition) >= 0.5 * len(keys):
            continue
        if kept < 0.5 and restated < 0.75:
            text = " ".join(t.text for t in stoks[a:b] if t.kind != "punct")
            if len(text) > 70:
                text = text[:67].rsplit(" ", 1)[0] + " …"
            return Conflict("condition", f"the claim drops the source's condition “{text}”")
    return None


_ENUMERATOR = re.compile(r"^\s*(?:\d{1,3}\.(?=\s)|\(\d{1,3}\)|\([a-z]{1,4}\))\s*")


# --- reworded conflicts ---------------------------------------------------------------------------
# A practitioner restates a rule in other words, and so does one who gets it wrong: the conflicts below are
# read from each sentence as a whole, not from the two lined up word by word.

# Words that carry a negation without "not": a claim holding one may restate a negated source.
_NEGATIVE_WORDS = frozenset(stem(w) for w in (
    "only unless except without never none neither nor cease ceases exempt refrain avoid other "
    "absent lacking fails failure longer outside beyond insufficient insufficiently").split()) | IMPLICIT_NEGATIVES
_EXCEPTION_MARKERS = frozenset({"unless", "except", "without", "until", "save", "otherwise", "other", "before"})
# Phrases by which a claim says a rule holds whatever the condition.
_UNCONDITIONAL = (("even", "if"), ("even", "where"), ("even", "when"), ("even", "with"), ("even", "though"),
                  ("even", "after"), ("even", "before"), ("even", "in"), ("regardless",), ("irrespective",),
                  ("whether", "or", "not"), ("in", "all", "cases"), ("in", "every", "case"), ("in", "any", "case"),
                  ("at", "all", "times"), ("in", "any", "event"), ("always",), ("unconditionally",),
                  ("without", "any", "conditions"), ("without", "any", "condition"), ("without", "conditions"),
                  ("with", "no", "conditions"), ("without", "being", "subject", "to", "any"),
                  ("subject", "to", "no", "conditions"),
                  ("without", "any", "restriction"), ("without", "restriction"), ("without", "restrictions"))
_CONDITION_WORDS = frozenset({"unless", "except", "where", "if", "when", "only", "provided", "without", "subject",
                              "otherwise", "whenever"})


def _polarity(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """A verb or adjective negated on one side ("will not relieve", "is not meant") and stated on the other with
    no negation, negative word or restriction anywhere in it ("is relieved", "is meant", reordered)."""
    for toks, other, says in ((stoks, ctoks, "source"), (ctoks, stoks, "claim")):
        blockers = {other[j].text.lower() for j in range(len(other)) if _is_neg(other, j) or (
            other[j].text.lower() != "without" and (other[j].key in _NEGATIVE_WORDS
                                                   or other[j].text.lower() in _NEGATIVE_WORDS))}
        # ("without prejudice" is no negation: _is_neg says so.) A restriction ("only") restates a negation
        # with an exception ("shall not X unless Y" / "may X only if Y"); against a negation with none it
        # reverses it ("shall not apply to P" / "applies only to P").
        if blockers and not (blockers == {"only"} and not any(t.text.lower() in _EXCEPTION_MARKERS for t in toks)):
            continue
        for i, t in enumerate(toks):
            low = t.text.lower()
            if not ((low in {"not", "never", "cannot"} or low.endswith("n't")) and _is_neg(toks, i)):
                continue
            negated = _governed(toks, i, min(len(toks) - 1, i + 6))
            if negated is None or not any(o.key == negated and _predicate(other, j) for j, o in enumerate(other)):
                continue  # "in a bid to help identify" does not state that someone was identified
            if says == "source":
                return Conflict("negation", f"the source says “{_around(toks, i)}”, the claim states it without a "
                                            "negation")
            return Conflict("negation", f"the claim says “{_around(toks, i)}”, the source states it without a "
                                        "negation")
    return None


_AUXILIARIES = frozenset({"is", "are", "was", "were", "be", "been", "being", "will", "would", "shall", "must", "may",
                          "can", "could", "should", "has", "have", "had", "does", "do", "did", "remains", "remain"})
_ADVERBS = _NOT_VERBS - _AUXILIARIES  # "is also stated", "is then relieved"


def _predicate(toks: list[Token], j: int) -> bool:
    """The word at ``j`` is stated of something: an auxiliary or modal just before it (an adverb between), or a
    present-tense verb right after its subject ("That right applies only to")."""
    low = toks[j].text.lower()
    if j > 0 and low.endswith("s") and not low.endswith("ss") and toks[j].key != low and toks[j - 1].content \
            and toks[j - 1].kind == "word" and not toks[j - 1].text.lower().endswith("s"):
        return True
    k = j - 1
    while k >= 0 and k >= j - 3 and (_adverb(toks[k].text) or toks[k].text.lower() in _ADVERBS):
        k -= 1
    return k >= 0 and toks[k].text.lower() in _AUXILIARIES


def _marker_at(low: list[str], markers: tuple[tuple[str, ...], ...]) -> tuple[int, str] | None:
    for i in range(len(low)):
        for m in markers:
            if tuple(low[i:i + len(m)]) == m:
                return i, " ".join(m)
    return None


def _unconditional(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """The claim says the rule holds whatever the condition ("even with the Regulator's consent", "always",
    "regardless of …") where the source states it under one ("without the further consent", "where …")."""
    c_low, s_low = [t.text.lower() for t in ctoks], [t.text.lower() for t in stoks]
    found = _marker_at(c_low, _UNCONDITIONAL)
    if found is None or _marker_at(s_low, _UNCONDITIONAL) is not None:
        return None
    if not _modals(stoks) and not {"unless", "except"} & set(s_low):
        return None  # a condition of a norm, or an explicit exception
    marker = range(found[0], found[0] + len(found[1].split()))
    if any(w in _CONDITION_WORDS - {"where", "when", "subject"} for i, w in enumerate(c_low) if i not in marker):
        return None  # "in all cases … only if …": the claim keeps a condition of its own
    cond = next((i for i, w in enumerate(s_low) if w in _CONDITION_WORDS and
                 (w not in {"where", "if", "when", "subject"} or i == 0 or stoks[i - 1].text in _CLAUSE_OPEN
                  or (i + 1 < len(stoks) and stoks[i + 1].text == ":"))),  # "… where:" opens a list of conditions
                None)
    if cond is None:
        return None
    return Conflict("condition", f"the source states it under a condition (“{_clause_from(stoks, cond)}”), the "
                                 f"claim says it holds “{found[1]}”")


def _clause_from(toks: list[Token], i: int, most: int = 10) -> str:
    """The words from ``i`` to the next clause break, at most ``most`` of them ("without the further consent of
    the Regulator")."""
    words: list[str] = []
    for t in toks[i:]:
        if t.kind == "punct" and words:
            break
        words.append(t.text)
    return " ".join(words[:most]) + (" …" if len(words) > most else "")


_EXCEPTIONS = (("unless",), ("except",), ("provided", "that"), ("only", "if"), ("only", "where"), ("only", "when"),
               ("on", "condition", "that"))
# what a source writes when it leaves things out of its rule itself: "a day other than a Saturday or Sunday"
# is restated by "any day except Saturday and Sunday", which adds no exception
_EXCLUSIONS = (("other", "than"), ("excluding",), ("apart", "from"), ("save", "for"), ("save", "where"),
               ("with", "the", "exception", "of"))  # "except", "unless": _CONDITION_WORDS


def _added_exception(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """The claim carves out an exception ("except for those that …", "unless …") where the source states the rule
    with no condition at all."""
    c_low, s_low = [t.text.lower() for t in ctoks], [t.text.lower() for t in stoks]
    found = _marker_at(c_low, _EXCEPTIONS)
    if found is None:
        return None
    at = found[0]
    # A source that states the rule whatever the condition ("even if …") is contradicted by any exception;
    # one with a condition of its own may be restated by it.
    if _marker_at(s_low, _UNCONDITIONAL) is None and (set(s_low) & _CONDITION_WORDS
                                                      or _marker_at(s_low, _EXCLUSIONS) is not None):
        return None
    return Conflict("condition", f"the claim adds an exception (“{_around(ctoks, at + 1)}”) that the source does "
                                 "not make")


_SUBORDINATORS = frozenset({"so", "that", "if", "when", "where", "unless", "whether", "which", "who", "because",
                            "since", "although", "while", "as", "once", "until", "before", "after", "whereas"})
# Words no actor phrase holds (but "the data subject" is one).
_NOT_ACTORS = (_CONDITION_WORDS | _SUBORDINATORS) - {"subject"}


def _main_modal(toks: list[Token]) -> _Modal | None:
    """The first modal of a main clause: one whose stretch back to the last comma does not open with a
    subordinator ("so that values can be allocated, IANA may approve" → "may")."""
    ms = _modals(toks)
    for m in ms:
        j = m.pos - 1
        while j >= 0 and toks[j].text not in _CLAUSE_OPEN:
            j -= 1
        if j + 1 < m.pos and toks[j + 1].text.lower() in _SUBORDINATORS:
            continue
        return m
    return None  # every norm sits in a subordinate clause: no main actor to read


def _agent(toks: list[Token], m: _Modal | None) -> list[str] | None:
    """Content keys of who acts in the norm of ``m``, the sentence's main modal (:func:`_main_modal`), in
    order (the last is the head noun): the subject before it, or the "by …" phrase of a passive ("must be
    treated by an Authorised Person"); ``None`` when unknown."""
    if m is None:
        return None
    a, b = _clause_bounds(toks, m.pos)
    k = m.pos + 1
    while k <= b and (_is_neg(toks, k) or toks[k].text.lower() in _NOT_VERBS or not toks[k].content
                      or _adverb(toks[k].text)):  # "can each be issued", "must promptly be"
        k += 1
    passive = k > m.pos + 1 and any(toks[j].key == "be" for j in range(m.pos + 1, k)) and k <= b and \
        _participle(toks[k].text)
    if passive:
        by = next((j for j in range(k + 1, b + 1) if toks[j].text.lower() == "by"), None)
        if by is None:
            return None
        keys: list[str] = []
        for j, t in enumerate(toks[by + 1:by + 6], start=by + 1):
            if t.kind != "word" or (not t.content and keys) or _is_neg(toks, j) or \
                    t.text.lower() in _CONDITION_WORDS or t.text.lower() == "within":
                break  # "by the authority without delay", "by the Board where …"
            if t.content and t.key not in keys:
                keys.append(t.key)
        return keys or None
    start = a
    for j in range(m.pos - 1, a - 1, -1):  # the subject: back to the clause break before the modal
        if toks[j].text in {",", "("}:
            start = j + 1
            break
    subject = list(dict.fromkeys(toks[j].key for j in range(start, m.pos)
                                 if toks[j].content and toks[j].kind == "word" and not _is_neg(toks, j)))
    return subject or None


_DEICTIC = frozenset(stem(w) for w in "following foregoing above below item items former latter each every all any "
                     "one such these those this other".split())


def _actors(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """Another actor for the norm, read from each sentence's main clause (:func:`_agent`), the two agents read once:

    - who acts swapped with whom it acts on, for the same act: each side's actor is named on the other side, but
      not as its actor ("The Commission shall address its decision to the Member State" / "It is the Member
      State that must address its decision to the Commission"); with another verb the roles may turn round
      faithfully ("X must be the addressee of the decision");
    - an actor the source sentence never names in place of its own ("must be set up by the Board" / "The AI
      Office shall establish"; "it is the provider who must" / "the deployer shall")."""
    sm, cm = _main_modal(stoks), _main_modal(ctoks)
    s_agent, c_agent = _agent(stoks, sm), _agent(ctoks, cm)
    s_all = {t.key for t in stoks}
    if sm is not None and not s_agent and c_agent and _pronoun_subject(stoks, sm) and not set(c_agent) & s_all:
        # "When the server issues the code, it MUST associate" / "the client MUST associate": the pronoun stands
        # for someone the sentence names before it, and the claim's actor is nobody the sentence names
        return Conflict("actor", f"the source has “{stoks[sm.pos - 1].text}” (named earlier in the sentence) "
                                 f"act, the claim {_keys_phrase(ctoks, set(c_agent))}", tuple(sorted(c_agent)))
    if not s_agent or not c_agent:
        return None
    sa, ca = set(s_agent), set(c_agent)
    if sm is not None and cm is not None and sm.verb is not None and sm.verb == cm.verb and s_agent != c_agent \
            and _named_after(stoks, sm.pos, c_agent) and _named_after(ctoks, cm.pos, s_agent):
        # one actor's name inside the other's ("the supervisory authority shall inform the lead supervisory
        # authority" / "the lead supervisory authority shall inform the supervisory authority"): each side's
        # actor, word for word, is what the other side acts on
        return Conflict("actor", f"the source has {_keys_phrase(stoks, sa)} act, the claim "
                                 f"{_keys_phrase(ctoks, ca)}", tuple(sorted(ca)))
    if sa & ca:
        return None
    c_all = {t.key for t in ctoks}
    if sm is not None and cm is not None and sm.verb is not None and sm.verb == cm.verb and ca <= s_all \
            and sa <= c_all:
        return Conflict("actor", f"the source has {_keys_phrase(stoks, sa)} act, the claim "
                                 f"{_keys_phrase(ctoks, ca)}", tuple(sorted(ca)))
    sa, ca = sa - _DEICTIC, ca - _DEICTIC  # "The following" / "The items below" point, they name nobody
    if not sa or not ca or ca <= s_all:
        return None
    # Part of the claim's actor is written in the source: another actor only when the source's own actor (its
    # head noun) is not in it ("the notified bodies" for "the relevant operators", beside "authorities or
    # bodies"; not "the operators concerned" for "the relevant operators"), and when the claim's actor is a short
    # noun phrase: a longer one is a clause read as a subject ("an independent party with the knowledge needed")
    # A subject with no verb after its modal is what is required or allowed, not who acts ("tobacco and
    # alcohol are not allowed").
    if ca & s_all and (s_agent[-1] in ca or len(ca) > 3 or cm is None or cm.verb is None):
        return None
    return Conflict("actor", f"the source has {_keys_phrase(stoks, sa)} act, the claim {_keys_phrase(ctoks, ca)}",
                    tuple(sorted(ca)))


# Words the role pattern of :data:`_BODY` ("-er" / "-or") matches that name no one: conjunctions, verbs, comparatives
# and the like (general English, not a corpus's words).
_NOT_ROLE = frozenset("""whenever wherever whatever however whoever whichever ever never over consider considers
differ differs offer offers later greater lower higher larger wider newer older longer shorter earlier smaller bigger
fewer lesser better faster slower stronger weaker easier harder simpler clearer broader narrower deeper closer cheaper
safer riskier latter former senior junior superior inferior interior exterior""".split())


def _roles(toks: list[Token]) -> dict[str, int]:
    """Content keys of the role nouns a sentence writes ("the processor", "the Board", "PEP editors"), each with
    where it first stands: the words of :data:`_BODY`, not a capitalised word alone (a name, a title word)."""
    out: dict[str, int] = {}
    for i, t in enumerate(toks):
        low = t.text.lower()
        if t.content and not t.text.isupper() and low not in _NOT_ROLE and low not in _MONTHS and _role_noun(toks, i):
            out.setdefault(t.key, i)
    return out


def _norm(toks: list[Token]) -> bool:
    """The sentence states a norm: a modal or deontic word ("May" next to a number is the month)."""
    return any(not _month(toks, m.pos) for m in _modals(toks))


def _role_swap(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """Another role in the norm, wherever the sentences put it: the claim names a role (a body, a party, an
    "-er" / "-or" agent) the source sentence never writes, and drops one the source writes ("The processor
    should assist the controller" / "the controller should help the processor" is caught by :func:`_actors`;
    "Informing the authorities is a task of the Board" / "The Commission shall inform the authorities", "a vote
    held by the PSF Board" / "the core team may remove ... via a vote" are caught here). Read only when either
    sentence states a norm: a description ("a British guitarist", "died of lung cancer") is no actor's duty."""
    if not (_norm(stoks) or _norm(ctoks)):
        return None
    s_keys, c_keys = {t.key for t in stoks}, {t.key for t in ctoks}
    s_roles, c_roles = _roles(stoks), _roles(ctoks)
    new = [k for k in c_roles if k not in s_keys]
    gone = [k for k in s_roles if k not in c_keys]
    if not new or not gone:
        return None
    g, n = s_roles[gone[0]], c_roles[new[0]]
    return Conflict("actor", f"the source names {_np(stoks, g, g + 1)}, the claim {_np(ctoks, n, n + 1)}",
                    tuple(new))


def _named_after(toks: list[Token], pos: int, agent: list[str]) -> bool:
    """``agent``'s content keys, in order and next to each other, among the content words after ``pos``."""
    keys = [t.key for t in toks[pos + 1:] if t.content and t.kind == "word"]
    n = len(agent)
    return any(keys[i:i + n] == agent for i in range(len(keys) - n + 1))


_PRONOUNS = frozenset({"it", "they", "he", "she"})


def _pronoun_subject(toks: list[Token], m: _Modal | None) -> bool:
    """The main modal's subject is a pronoun alone, right before it, and the sentence names things before that
    clause ("When the server issues the code, it MUST"), so the pronoun's antecedent is in the sentence; a
    sentence that opens with "It shall" points to an earlier sentence, which is not read here."""
    if m is None or m.pos < 2 or toks[m.pos - 1].text.lower() not in _PRONOUNS:
        return False
    if toks[m.pos - 2].text not in _CLAUSE_OPEN and toks[m.pos - 2].text.lower() not in {"and", "but", "then"}:
        return False
    return any(t.content and t.kind == "word" for t in toks[:m.pos - 2])


def _keys_phrase(toks: list[Token], keys: set[str]) -> str:
    """The words that write ``keys``: from the first of them through the run that follows it, each word one of
    the keys or a function word ("the notified bodies", not on to a later "bodies")."""
    idx = [i for i, t in enumerate(toks) if t.key in keys]
    if not idx:
        return "“?”"
    end, seen = idx[0], set()
    for k in range(idx[0], len(toks)):
        if toks[k].key in keys:
            seen.add(toks[k].key)
            end = k
            if seen == keys:
                break
        elif toks[k].content or toks[k].kind != "word":
            break
    return _np(toks, idx[0], end + 1)


# A lettered, dotted provision label: "A4.3.28" (an appendix rule), "A.8.13" (an annex control), "GEN 2.1.3". The
# tokenizer reads its letters as a word, so the number comparison never sees it.
_LABEL = re.compile(r"(?<![\w.])(?P<head>[A-Z]{1,3}\.?\s?)(?P<num>\d{1,3}(?:\.\d{1,3})+)(?![\w]|\.\d)")


def _labels(text: str) -> dict[str, str]:
    """Each lettered label of ``text`` by its key ("a4 3 28") → as written ("A4.3.28")."""
    out = {}
    for m in _LABEL.finditer(text):
        head = m.group("head").replace(".", "").strip().lower()
        out[" ".join([head, *m.group("num").split(".")])] = m.group(0).strip()
    return out


def _label_conflict(sentence: str, claim: str) -> Conflict | None:
    """Another lettered label under the same parent: "subject to A4.3.26" for "Subject to A4.3.28" (as "Rule
    5.1.3" for "Rule 5.1.2"). A conflict only when the sources never cite the claim's label (:func:`find`)."""
    s_labels, c_labels = _labels(sentence), _labels(claim)
    for key, written in c_labels.items():
        if key in s_labels:
            continue
        parent = key.rsplit(" ", 1)[0]
        other = next((w for k, w in s_labels.items() if k.rsplit(" ", 1)[0] == parent and k not in c_labels), None)
        if other is not None:
            return Conflict("number", f"the source says {other}, the claim {written}", reference="label " + key)
    return None


def conflicts(sentence: str, claim: str) -> list[Conflict]:
    """What in ``sentence`` states otherwise than ``claim`` (empty when nothing does). A paragraph or point
    number that opens either ("6.", "(b)") is structure, not a number the text states."""
    stoks, ctoks = _statement(sentence), _statement(claim)
    found = []
    for judge in (_modality, _negation, _numbers, _bounds, _actor, _condition):
        c = judge(stoks, ctoks)
        if c is not None:
            found.append(c)
    if not any(c.kind == "number" for c in found) and (label := _label_conflict(sentence, claim)) is not None:
        found.append(label)
    if not found:  # read as wholes only when lining the two up found nothing
        for judge in REWORDED:
            c = judge(stoks, ctoks)
            if c is not None:
                found.append(c)
                break
    # A negation found both ways (modal and plain) is one conflict.
    kinds = [c.kind for c in found]
    if kinds.count("negation") > 1:
        found.remove(next(c for c in found[::-1] if c.kind == "negation"))
    return found


def _clause_keys(toks: list[Token], m: _Modal) -> set[str]:
    """Content keys of the stretch a modal stands in, the modal and negators left out: between the commas
    around it, else (too few words to match) the clause, else the whole sentence ("..., is optional")."""
    def keys(a: int, b: int) -> set[str]:
        return {toks[k].key for k in range(a, b + 1) if toks[k].content and toks[k].kind == "word" and k != m.pos
                and toks[k].text.lower() not in _MODALS and toks[k].key not in _DEONTIC_WORDS
                and not _is_neg(toks, k)}

    for lo, hi in (_clause_bounds(toks, m.pos, _SEGMENT_STOPS), _clause_bounds(toks, m.pos), (0, len(toks) - 1)):
        found = keys(lo, hi)
        if len(found) >= 3:
            return found
    return found


def _forces(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """A modal force the source does not give the same clause, matched by the clause's words rather than word
    by word: "... MUST contain an "iss" claim" / "including an "iss" claim ... is optional"; "are optional" /
    "are required". The source clause that shares most of the claim clause's words decides, and the two must
    share most of the shorter one's words."""
    sms = _modals(stoks)
    for c in _modals(ctoks):
        ck = _clause_keys(ctoks, c)
        best, best_share = None, (0.0, 0.0)
        for s in sms:
            sk = _clause_keys(stoks, s)
            shared = len(ck & sk)
            # of the shorter one's words, then (a tie) of the longer one's
            share = (shared / min(len(ck), len(sk)), shared / max(len(ck), len(sk))) if ck and sk else (0.0, 0.0)
            if shared >= 3 and share > best_share:
                best, best_share = s, share
        if best is not None and best_share[0] >= 0.6 and _clash(best, c) and "optional" in (best.force, c.force):
            return _modal_conflict(stoks, ctoks, best, c)
    return _one_norm(stoks, ctoks, sms)


def _one_norm(stoks: list[Token], ctoks: list[Token], sms: list[_Modal]) -> Conflict | None:
    """A permission stated as an obligation, or the reverse, when each sentence states one norm and the two
    clauses share most of the shorter one's words, whatever verb each modal governs: "SMEs may provide the
    elements in a simplified manner" / "SMEs are required to supply the elements in a simplified form".

    Read only where nothing else can be meant: one force on each side (a sentence with "must" and "may" states
    two norms), "may" against "must" and not against "should" (a restatement turns a recommendation into "has
    to"), no ability verb ("can", "could": what is possible), no choice, and no "only" in either sentence ("may
    be used only with consent" says what "shall not be used without consent" says)."""
    cms = _modals(ctoks)
    if not sms or not cms or len({m.force for m in sms}) != 1 or len({m.force for m in cms}) != 1:
        return None
    s, c = sms[0], cms[0]
    if frozenset({s.force, c.force}) != frozenset({"may", "must"}) or s.choice or c.choice or not _clash(s, c):
        return None
    if {s.surface.lower(), c.surface.lower()} & _ABILITY or any(t.text.lower() == "only" for t in stoks + ctoks):
        return None
    ck, sk = _clause_keys(ctoks, c), _clause_keys(stoks, s)
    shared = len(ck & sk)
    if shared >= 3 and shared / min(len(ck), len(sk)) >= 0.6:
        return _modal_conflict(stoks, ctoks, s, c)
    return None


# Groups of English words of one sense, and the pairs of groups of opposite sense: general English, the words
# a person restating a rule reaches for ("does not decrease" / "is lowered", "must include" / "must exclude").
# Words that are as often nouns or adjectives ("change controller", "a lower age") are left out.
_SENSES = {
    "up": "increase increased increases raise raised raises",
    "down": "decrease decreased decreases reduce reduced reduces lowered lowers diminish diminished diminishes",
    "in": "include included includes",
    "out": "exclude excluded excludes",
    "change": "alter altered alters modify modified modifies amend amended amends",
    "affect": "affect affected affects",
    # "the Rules do not apply to an Authorised Person" / "an Authorised Person is subject to the Rules" (see
    # _sense_uses for "subject")
    "apply": "apply applies applied",
    # "should be prohibited" / "should be permitted"
    "permit": "permit permits permitted allow allows allowed",
    "forbid": "prohibit prohibits prohibited forbid forbids forbidden ban bans banned",
}
_SENSE_OF = {stem(w): sense for sense, ws in _SENSES.items() for w in ws.split()}
_OPPOSITE = {"up": "down", "down": "up", "in": "out", "out": "in", "permit": "forbid", "forbid": "permit"}


def _sense_uses(toks: list[Token]) -> list[tuple[int, str, bool]]:
    """(position, sense, negated) of each word of :data:`_SENSES`: negated when a negator stands in the three
    words before it, in the same clause ("does not decrease", "is not altered", "shall not affect")."""
    out = []
    for i, t in enumerate(toks):
        sense = _SENSE_OF.get(t.key) if t.kind == "word" else None
        if sense is None and t.text.lower() == "subject" and 0 < i < len(toks) - 1 and \
                toks[i - 1].text.lower() in _COPULAS | {"remain", "remains"} and toks[i + 1].text.lower() == "to":
            sense = "apply"  # "is subject to", not "the data subject"
        if sense is None and t.text.lower() == "outside" and [x.text.lower() for x in toks[i + 1:i + 3]] == \
                ["the", "scope"]:
            out.append((i, "apply", True))  # "falls outside the scope of this Regulation": it does not apply
            continue
        if sense is None:
            continue
        neg, k, reach = False, i - 1, 3
        while k >= 0 and i - k <= reach:
            if toks[k].text in _CLAUSE_OPEN:
                break
            if _is_neg(toks, k):
                neg = True
                break
            if toks[k].text.lower() in {"or", "and", "nor"}:
                reach += 2  # "is not restricted or prohibited": the negator governs both
            k -= 1
        out.append((i, sense, neg))
    return out


def _senses(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """One word of a sense on each side, stated of opposite polarity in other words ("does not decrease" / "is
    lowered") or of the opposite sense with one polarity ("must include" / "must exclude")."""
    su, cu = _sense_uses(stoks), _sense_uses(ctoks)
    if len(su) != 1 or len(cu) != 1:
        return None  # several: which pairs with which is not read here
    (i, s_sense, s_neg), (j, c_sense, c_neg) = su[0], cu[0]
    if (s_sense == c_sense and s_neg != c_neg) or (_OPPOSITE.get(s_sense) == c_sense and s_neg == c_neg):
        return Conflict("negation", f"the source says “{_around(stoks, i)}”, the claim “{_around(ctoks, j)}”")
    return None


_TIME_ORDER = {"before": "before", "after": "after", "prior": "before"}
# verbs after which "before" is a place ("appear before the Tribunal"), not a time
_IN_FRONT = frozenset(stem(w) for w in "appear appears appeared attend attends attended bring brings brought come "
                      "comes came stand stands lay lays laid put puts place placed heard".split())


def _ordered(toks: list[Token]) -> list[tuple[str, int, list[str]]]:
    """Each "before" / "after" / "prior to" / "ahead of" / "once ... has been done" with the first four content keys
    of what it is before or after ("not before" is after)."""
    out = []
    for i, t in enumerate(toks):
        low = t.text.lower()
        side = _TIME_ORDER.get(low)
        nxt = toks[i + 1].text.lower() if i + 1 < len(toks) else ""
        if low == "ahead" and nxt == "of":
            side = "before"
        if low == "once" and nxt not in {"a", "an", "per", "every", "each", "more", "again", "only", "or"} and any(
                x.text.lower() in {"has", "have", "had"} for x in toks[i + 1:i + 7]):
            side = "after"  # "once the migration has been completed", "once they have been placed on the market"
        if side is None:
            continue
        k = i + 2 if low in {"prior", "ahead"} and nxt in {"to", "of"} else i + 1
        if low == "prior" and k == i + 1:
            continue  # "prior" as an adjective ("prior consent")
        if i > 0 and _is_neg(toks, i - 1) and low in {"before", "after"}:
            side = "after" if side == "before" else "before"  # "not before the end of the period"
        near = [x.text.lower() for x in toks[max(0, i - 2):i + 3]]
        if "before" in near and "after" in near:
            continue  # "before or after any JSON value": both ways
        if side == "before" and i > 0 and toks[i - 1].key in _IN_FRONT:
            continue  # "attend before the Appeals Panel", "brought before a court": a place, not a time
        keys = [toks[n].key for n in range(k, min(k + 8, len(toks)))
                if toks[n].content and toks[n].kind == "word" and not _is_neg(toks, n)
                and toks[n].text.lower() not in {"has", "have", "had", "been", "already", "once"}]
        if len(keys) >= 2:
            out.append((side, i, keys[:4]))
    return out


def _time_order(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """The claim puts the rule before what the source puts it after, or the reverse, the same event named
    ("published … after the supervisory authority has notified" / "… before the supervisory authority has
    notified")."""
    for side, i, keys in _ordered(stoks):
        for cside, j, ckeys in _ordered(ctoks):
            # the same event: its first two words, or two of its first four in any order ("prior to their placing
            # on the market" / "once they have been placed on the market")
            if cside != side and (keys[:2] == ckeys[:2] or len(set(keys) & set(ckeys)) >= 2):
                return Conflict("condition", f"the source says “{_clause_from(stoks, i)}”, the claim "
                                             f"“{_clause_from(ctoks, j)}”")
    return None


_MARKS = ("when", "where", "if")


def _condition_made_exception(stoks: list[Token], ctoks: list[Token]) -> Conflict | None:
    """The source's condition turned into the claim's exception, or the reverse: "must, when undertaking the
    calculation, apply" / "must apply …, except when undertaking the calculation"."""
    for a, b, says in ((stoks, ctoks, "claim"), (ctoks, stoks, "source")):
        low_a, low_b = [t.text.lower() for t in a], [t.text.lower() for t in b]
        if {"except", "unless"} & set(low_a):
            continue  # the conditional side carves out nothing itself
        if any(_is_neg(a, n) for n in range(len(a))) != any(_is_neg(b, n) for n in range(len(b))):
            continue  # "shall not process unless Y" / "may process if Y": the same rule, from the other side
        for j in range(len(b) - 1):
            if low_b[j] not in {"except", "unless"}:
                continue
            k = j + 1 if low_b[j + 1] in _MARKS else j
            tail = {t.key for t in b[k + 1:k + 8] if t.content and t.kind == "word"}
            for i, w in enumerate(low_a):
                if w not in _MARKS or i > 0 and low_a[i - 1] == "only":
                    continue  # "only if Y" restricts as "unless Y" does
                cond = {t.key for t in a[i + 1:i + 8] if t.content and t.kind == "word"}
                if len(tail) >= 2 and len(cond & tail) >= 0.75 * len(tail):
                    what = f"“{_clause_from(b, j, 8)}”"
                    return Conflict("condition", f"the {says} makes an exception of the condition the "
                                                 f"{'source' if says == 'claim' else 'claim'} states ({what})")
    return None


REWORDED = [_polarity, _unconditional, _added_exception, _actors, _forces, _senses, _time_order,
            _condition_made_exception, _role_swap]


def numeric_conflicts(sentence: str, claim: str) -> list[Conflict]:
    """The conflicts of ``sentence`` with ``claim`` that hold read on that sentence alone: another number or
    date. A paraphrase rewords modals, actors and conditions, and :func:`conflicts` on its own sentence
    calls those rewordings conflicts (:func:`find` weighs them against the other sentences); a different
    number or date in the sentence that supports a claim is one."""
    # Another reference or frequency is left out: the sentence a scorer picked may cite other articles or say
    # how often something else recurs and still be the closest one; those need the sentence the claim is about
    # (find).
    c = _numbers(_statement(sentence), _statement(claim), about_it=False)
    return [c] if c is not None else []


def find(claim: str, texts: Sequence[str], *, min_about: float = MIN_ABOUT) -> Contradiction | None:
    """The sentence of ``texts`` the claim is about, when it states otherwise; ``None`` otherwise.

    The claim's closest sentences (by :func:`about`) are judged; an actor that differs is left out of the
    claim's words when measuring how close a sentence is (it is the conflict, not a sign of another topic).
    A sentence as close that states the same thing clears the claim.

    >>> c = find("Deployers must use the system for other purposes.",
    ...          ["Providers shall keep logs. Deployers must not use the system for other purposes."])
    >>> c.quote, c.reason
    ('Deployers must not use the system for other purposes.', 'the source says “must not”, the claim “must”')
    """
    ck = _about_keys(_words(claim))
    judged = []
    cited: set[str] | None = None
    for share, f1, n, s, e in best_sentences(claim, texts):
        found = conflicts(texts[n][s:e], claim)
        if any(c.reference for c in found):
            # another article than the claim's is a conflict only when the sources never cite the claim's
            cited = _cited(texts) if cited is None else cited
            found = [c for c in found if c.reference not in cited]
        swapped = {w for c in found if c.kind == "actor" for w in c.words} & ck
        if swapped:
            share = share * len(ck) / (len(ck) - len(swapped)) if len(ck) > len(swapped) else 0.0
        judged.append((min(share, 1.0), f1, n, s, e, found))
    if not judged:
        return None
    judged.sort(key=lambda r: (-r[0], -r[1], bool(r[5])))
    share, f1, n, s, e, found = judged[0]
    if not found or share < min_about:
        return None
    if any(not r[5] and r[0] >= share and r[1] >= f1 - 0.1 for r in judged[1:]):
        return None  # another sentence, as close to the claim, says the same thing
    return Contradiction(n, s, e, texts[n][s:e], round(share, 4), found)


def _cited(texts: Sequence[str]) -> set[str]:
    """Every numbered reference ``texts`` make, as :func:`_reference` keys them."""
    out = set()
    for text in texts:
        toks = _words(text)
        out |= {r[0] for i, t in enumerate(toks) if t.kind == "number" and (r := _reference(toks, i)) is not None}
        out |= {"label " + key for key in _labels(text)}
    return out


@dataclass
class Support:
    """The sentence ``text[start:end]`` of source ``source`` that states the claim in other words: it holds
    ``about`` of the claim's content words, every number and month of it, the same modal forces and
    polarity, and nothing in it conflicts."""

    source: int
    start: int
    end: int
    quote: str
    about: float


def support(claim: str, texts: Sequence[str], *, min_about: float = MIN_SUPPORT) -> Support | None:
    """The sentence of ``texts`` that restates the claim, when the closest one does; ``None`` otherwise.

    >>> support("Every three years, the registration must be renewed.",
    ...         ["Operators register first. Registration shall be renewed every three years."]).quote
    'Registration shall be renewed every three years.'
    """
    ranked = best_sentences(claim, texts)
    if not ranked or ranked[0][0] < min_about:
        return None
    share, _, n, s, e = ranked[0]
    sentence = texts[n][s:e]
    stoks, ctoks = _words(sentence), _words(claim)
    if conflicts(sentence, claim):
        return None
    s_keys = {t.key for t in stoks}
    if any((t.kind == "number" or _month(ctoks, i)) and t.key not in s_keys for i, t in enumerate(ctoks)):
        return None
    # The same forces, read without alignment: a reworded "must not" is not supported by "must".
    s_modals = _modals(stoks)
    s_forces = {m.force.replace("not-may", "not-must") for m in s_modals} | {"may" for m in s_modals if m.choice}
    if any(t.key in _PROHIBITIVE for t in stoks):
        s_forces.add("not-must")  # "alcohol prohibited" restates "alcohol is not allowed"
    # "may, at its discretion, inform" and "has the option of informing" restate "may inform"
    c_forces = {"may" if m.choice else m.force.replace("not-may", "not-must") for m in _modals(ctoks)}
    if not c_forces <= s_forces:
        return None
    s_neg = any(_is_neg(stoks, i) or t.key in IMPLICIT_NEGATIVES or t.key in _PROHIBITIVE for i, t in enumerate(stoks))
    c_neg = any(_is_neg(ctoks, i) for i in range(len(ctoks)))
    if c_neg and not s_neg:
        return None
    return Support(n, s, e, sentence, round(share, 4))


def best_sentences(claim: str, texts: Sequence[str], k: int = 5) -> list[tuple[float, float, int, int, int]]:
    """The ``k`` sentences the claim is most about: (about, share of the sentence's words in the claim,
    text index, start, end), closest first."""
    from anchor_core.anchoring import source_index  # anchoring imports this module's users

    ctoks = _words(claim)
    ck = _about_keys(ctoks)
    n_content = len(ck) + sum(t.kind == "number" or _month(ctoks, i) for i, t in enumerate(ctoks))
    if len(ck) < 2 or n_content < MIN_CLAIM_KEYS:
        return []
    scored = []
    for n, text in enumerate(texts):
        idx = source_index(text)
        for sent, keys in zip(idx.sentences, _sentence_about_keys(idx)):
            shared = len(ck & keys)
            if shared:
                scored.append((shared / len(ck), shared / max(len(keys), 1), n, sent.start, sent.end))
    scored.sort(key=lambda r: (-r[0], -r[1]))
    return scored[:k]


def _sentence_about_keys(idx) -> list[set[str]]:  # type: ignore[no-untyped-def]
    cache = getattr(idx, "_about_keys", None)
    if cache is None:
        cache = [_about_keys(_words(s.text)) for s in idx.sentences]
        idx._about_keys = cache
    return cache
