"""Contradicted claims made from real corpus sentences by rule (dev data for three-way verdicts).

Each claim is one real sentence of a corpus unit with exactly one edit that makes it say
something the source does not: a negation added or removed, a modal swapped, a number or a
date changed, one actor swapped for another, or a condition dropped. The rules look only at
the sentence text (modal verbs, number + unit, date shapes, condition markers) and, for the
actor swap, at which agent nouns the corpus itself uses as subjects, so a corpus nobody has
seen can be processed the same way: ``--corpus NAME --path DIR`` with any registered adapter.

    python -m eval.claims.make_perturbations                  # all five corpora, seed 14
    python -m eval.claims.make_perturbations --corpus rfc --per-rule 30 --out /tmp/rfc.jsonl

Output (``eval/claims/perturbed.jsonl``), one object per line::

    {"id", "corpus", "unit_id", "start", "source_sentence", "claim", "rule",
     "label": "contradicted", "changed": {"from", "to", "at"}}

``source_sentence == unit.text[start:start + len(source_sentence)]``; ``changed.at`` is the
offset of the edit inside ``source_sentence``; the claim is the edited sentence with its
whitespace runs collapsed to single spaces (RFC text is line-wrapped), and, when a leading
condition is dropped, its first letter capitalised. ``eval/claims/check.py`` re-derives every
claim from these fields.

Reads the corpora under ``ANCHOR_BENCH_DATA`` (default ``../shared/data``); pure Python, no model.
"""

from __future__ import annotations

import argparse
import collections
import json
import random
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from anchor_core.segment import sentences
from eval.data import CORPORA
from ingest import get_adapter

OUT = Path(__file__).resolve().parent / "perturbed.jsonl"
CORPUS_NAMES = ("aiact", "gdpr", "peps", "rfc", "adgm")
RULES = ("negation", "modality", "number", "date", "actor_swap", "dropped_condition")

# --------------------------------------------------------------------------------------
# sentences worth perturbing
# --------------------------------------------------------------------------------------

MODAL = re.compile(r"\b(shall|must|should|may|SHALL|MUST|SHOULD|MAY)\b(\s+(?:not|NOT)\b)?")
NEGATOR_BEFORE = re.compile(r"\b(no|not|nothing|neither|nor|never|none|cannot|NOT)\b", re.I)
# Keyword definitions ("MUST   This word ...") and quoted keywords are about the words, not rules.
QUOTED_KEYWORD = re.compile(r"[\"“'](?:MUST|SHALL|SHOULD|MAY|REQUIRED|RECOMMENDED|OPTIONAL)")


CITATION = re.compile(r"\bDOI\b|\bRFC \d+, (?:[A-Z][a-z]+ )?\d{4}\b|<https?://")


def ws(text: str) -> str:
    return " ".join(text.split())


def usable(s: str) -> bool:
    flat = ws(s)
    if not 40 <= len(flat) <= 400 or len(flat.split()) < 7:
        return False
    if QUOTED_KEYWORD.search(s) or flat.count("|") >= 2 or "..." in flat or "::" in flat:
        return False  # keyword definitions, tables, tables of contents, code
    if CITATION.search(flat) or "●" in flat or "[year]" in flat.lower():
        return False  # bibliography entries and form templates
    return flat[0].isalpha() or flat[0] in "(“\""


@dataclass
class Edit:
    rule: str
    at: int
    old: str
    new: str
    capitalise: bool = False


def apply(sentence: str, e: Edit) -> str:
    out = ws(sentence[: e.at] + e.new + sentence[e.at + len(e.old):])
    return out[:1].upper() + out[1:] if e.capitalise else out


# --------------------------------------------------------------------------------------
# rules: each returns at most one Edit for a sentence, or None
# --------------------------------------------------------------------------------------


EPISTEMIC = re.compile(r"\b(?:[Tt]here|[Ii]t|[Tt]his|[Tt]hat|[Ww]hich)\s+(?:may|MAY|must)\s+be\b")


WISH = re.compile(r"\s+(?:also\s+)?(?:wish|want|choose|prefer|need|decide|find|like)\b", re.I)


def _single_modal(s: str) -> re.Match[str] | None:
    found = list(MODAL.finditer(s))
    return found[0] if len(found) == 1 else None


def negation(s: str, rng: random.Random) -> Edit | None:
    m = _single_modal(s)
    if m is None or NEGATOR_BEFORE.search(s[: m.start()]):
        return None
    verb, neg = m.group(1), m.group(2)
    if neg:  # remove it: "must not" -> "must"
        return Edit("negation", m.start(), m.group(0), verb)
    if verb.lower() == "may":  # "may not" reads as "might not"; leave permissions to the modality rule
        return None
    if s[m.end():].lstrip().lower().startswith(("only", "also", "be able")):
        return None
    return Edit("negation", m.start(), verb, f"{verb} {'NOT' if verb.isupper() else 'not'}")


def modality(s: str, rng: random.Random) -> Edit | None:
    m = _single_modal(s)
    if m is None or m.group(2) or NEGATOR_BEFORE.search(s[: m.start()]):
        return None
    verb = m.group(1)
    low = verb.lower()
    if EPISTEMIC.search(s[max(0, m.start() - 12): m.end() + 4]) or WISH.match(s[m.end():]):
        return None  # "there may be bugs", "servers may wish to": possibility or choice, not permission
    if low in ("must", "shall"):
        new = "may"
    elif low == "may":
        if re.match(r"\s+be\b", s[m.end():]) and re.search(r"\bas the case may be\b", s):
            return None
        new = "shall" if re.search(r"\bshall\b", s) or "Regulation" in s else "must"
    else:
        return None  # "should" -> "may" weakens a recommendation; not a clear contradiction
    return Edit("modality", m.start(), verb, new.upper() if verb.isupper() else new)


WORD_NUMBERS = ["one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
                "eleven", "twelve", "fourteen", "fifteen", "twenty", "thirty", "sixty", "ninety"]
UNIT = (r"(?:\s|-)(?:business\s+|working\s+|calendar\s+|Business\s+|consecutive\s+)?"
        r"(?:days?|weeks?|months?|years?|hours?|minutes?|seconds?|Business Days?|per ?cent|percent|"
        r"characters?|bits?|octets?|bytes?|members?|persons?|employees?|times|million|billion)\b|\s?%")
NUMBER = re.compile(
    r"(?<![\w.,/(-])(?P<n>\d{1,3}(?:[ ,]\d{3})+|\d+(?:\.\d+)?)(?P<u>" + UNIT + ")"
    r"|(?<=EUR )(?P<n2>\d{1,3}(?:[ ,]\d{3})+|\d+)(?![\w/])"
    r"|(?<=US\$)(?P<n3>\d{1,3}(?:[ ,]\d{3})+|\d+)(?![\w/])"
    r"|\b(?P<w>" + "|".join(WORD_NUMBERS) + r")(?P<wu>" + UNIT + ")",
    re.I,
)


def _bump_digits(text: str, rng: random.Random) -> str:
    """A different number in the same written form: '72' -> '96', '10 000' -> '15 000', '3.33' -> '4.33'."""
    sep = " " if " " in text else ("," if "," in text and re.fullmatch(r"\d{1,3}(?:,\d{3})+", text) else "")
    if sep:
        head, _, tail = text.partition(sep)
        return f"{int(head) + rng.choice([1, 2, 5]) if int(head) < 10 else int(head) * 2}{sep}{tail}"
    if "." in text:
        whole, _, frac = text.partition(".")
        return f"{int(whole) + rng.choice([1, 2])}.{frac}"
    n = int(text)
    choices = [n + 1, n * 2] + ([n - 1] if n > 2 else []) + ([n + 10] if n >= 10 else [])
    return str(rng.choice([c for c in choices if c != n and c >= 0]))


SINGULAR_UNIT = re.compile(r"(\s|-)(?:business\s+|working\s+|calendar\s+|consecutive\s+)?"
                           r"(day|week|month|year|hour|minute|second|character|bit|octet|byte|member|person|employee)\b",
                           re.I)


def number(s: str, rng: random.Random) -> Edit | None:
    found = list(NUMBER.finditer(s))
    if not found:
        return None
    m = found[rng.randrange(len(found))]
    for g in ("n", "n2", "n3"):
        if m.group(g):
            old, new, at, unit = m.group(g), _bump_digits(m.group(g), rng), m.start(g), m.group("u") or ""
            break
    else:
        w = m.group("w")
        i = WORD_NUMBERS.index(w.lower())
        new = WORD_NUMBERS[(i + rng.choice([1, 2])) % len(WORD_NUMBERS)]
        if new == "one":
            new = "two"
        old, new, at, unit = w, (new.capitalize() if w[0].isupper() else new), m.start("w"), m.group("wu")
    su = SINGULAR_UNIT.match(unit)
    if su and old.lower() in ("one", "1") and su.group(2).lower() in ("member", "person", "employee"):
        return None  # "one Member State": the unit word starts a compound, no clean plural
    if su and su.group(1) != "-" and old.lower() in ("one", "1"):
        # "within one month" -> "within three months": the unit follows the number; "a 1-bit flag" stays
        return Edit("number", at, old + unit, new + unit + "s")
    return Edit("number", at, old, new)


MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
          "October", "November", "December"]
MONTH = "|".join(MONTHS)
DATE_DMY = re.compile(rf"\b(?P<d>\d{{1,2}}) (?P<m>{MONTH}) (?P<y>(?:19|20)\d\d)\b")
DATE_MY = re.compile(rf"(?<!\d )\b(?P<m>{MONTH}),? (?P<y>(?:19|20)\d\d)\b")
DATE_ISO = re.compile(r"\b(?P<y>(?:19|20)\d\d)-(?P<mo>0[1-9]|1[0-2])-(?P<d>[0-2]\d|3[01])\b")
DATE_DM = re.compile(rf"\b(?P<d>\d{{1,2}}) (?P<m>{MONTH})\b(?! (?:19|20)\d\d)")


# "... of the Council of 28 November 2018", "(April 2012)"
ACT_DATE = re.compile(r"(?:Council|Commission|Parliament) of\s+$|\bof\s+$|\(\s*$")


def date(s: str, rng: random.Random) -> Edit | None:
    """A date stated in the sentence, not the adoption date in the title of a cited act
    ("Regulation (EU) 2018/1860 of the European Parliament and of the Council of 28 November 2018")."""
    for pat in (DATE_DMY, DATE_ISO, DATE_MY):
        found = [m for m in pat.finditer(s) if not ACT_DATE.search(s[max(0, m.start() - 40): m.start()])]
        if found:
            m = found[rng.randrange(len(found))]
            if rng.random() < 0.5 and "m" in m.groupdict() and pat is not DATE_ISO:
                month = MONTHS[(MONTHS.index(m.group("m")) + rng.choice([1, 2, 3])) % 12]
                return Edit("date", m.start("m"), m.group("m"), month)
            y = int(m.group("y"))
            return Edit("date", m.start("y"), m.group("y"), str(y + rng.choice([1, 2, -1])))
    found = list(DATE_DM.finditer(s))
    if found:
        m = found[rng.randrange(len(found))]
        d = int(m.group("d"))
        if 1 <= d <= 31:
            nd = d + 1 if d < 28 else d - 3
            return Edit("date", m.start("d"), m.group("d"), str(nd))
    return None


# Actors: agent nouns the corpus itself uses as the subject of a modal verb, paired with the
# agent it most often co-occurs with in the same unit. The stop list is generic English
# (nouns ending like agents that are not parties); nothing in it names a corpus's roles.
MODALS = r"(?:shall|must|may|should|SHALL|MUST|MAY|SHOULD)\b"
# "The provider shall", "a notified body may", "Deployers of high-risk AI systems shall", "Member States shall"
SUBJECT = re.compile(
    r"(?:\b(?:[Tt]he|[Aa]n?|[Ee]ach|[Ee]very|[Aa]ny|[Ss]uch)\s+|(?:^|(?<=[.;:]\s)|(?<=\)\s))(?=[A-Z]))"
    r"((?:[A-Za-z][\w'-]*\s+)?[A-Za-z][\w'-]*)\s+(?:of\s[^,.;:]{1,80}?\s)?" + MODALS,
    re.M,
)


def singular(phrase: str) -> str:
    words = phrase.lower().split()
    w = words[-1]
    if w.endswith("ies") and len(w) > 4:
        w = w[:-3] + "y"
    elif w.endswith(("sses", "shes", "ches", "xes")):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    return " ".join(words[:-1] + [w])


AGENT_END = re.compile(r"(?:er|or|ant|ent|ist|ary|ee|ity|body|person|client|council|subject|office|board|"
                       r"commission|states?|party|user|owner|manager|author|team)s?$", re.I)
NOT_AGENTS = {
    "parameter", "header", "number", "order", "other", "identifier", "register", "requirement", "statement",
    "agreement", "document", "element", "event", "amount", "component", "payment", "instrument", "content",
    "filter", "paragraph", "letter", "character", "cipher", "encoder", "decoder", "buffer", "counter",
    "pointer", "marker", "error", "vector", "factor", "sector", "entity", "activity", "security", "authority's",
    "priority", "quality", "utility", "identity", "capacity", "validity", "liability", "majority", "minority",
    "equity", "integrity", "property", "summary", "dictionary", "boundary", "primary", "secondary", "library",
    "commentary", "glossary", "supplementary", "necessary", "contrary", "extent", "assessment", "management",
    "environment", "government", "development", "arrangement", "department", "moment", "argument", "segment",
    "implement", "adjustment", "investment", "commitment", "settlement", "treatment", "measurement",
    "equipment", "attachment", "enforcement", "employment", "procurement", "statute", "list", "committee",
    "member", "power",
    "transfer", "offer", "holder", "answer", "matter", "ledger", "border", "folder", "user-agent",
    "ability", "possibility", "facility", "responsibility", "eligibility", "opportunity", "community",
}


DETERMINERS = {"all", "those", "that", "this", "these", "relevant", "other", "following", "same", "said", "such",
               "any", "each", "every", "no", "its", "their", "his", "her"}


def _agent(phrase: str) -> bool:
    head = phrase.split()[-1].lower()
    return bool(AGENT_END.search(head)) and head not in NOT_AGENTS and phrase.split()[0].lower() not in DETERMINERS


def _subjects(text: str) -> list[str]:
    out = []
    for m in SUBJECT.finditer(text):
        words = m.group(1).split()
        for k in (1, 2):
            if len(words) >= k:
                p = singular(" ".join(words[-k:]))
                if _agent(p):
                    out.append(p)
    return out


def discover_pairs(units: list[tuple[str, str]], min_count: int = 5, min_units: int = 2) -> dict[str, str]:
    """{agent (singular, lower case): partner}: the agents a corpus uses as subjects of modal verbs
    at least ``min_count`` times, each paired with the agent whose units overlap its own most
    (cosine of the unit sets), if they share at least ``min_units`` units."""
    units_of: dict[str, set[int]] = collections.defaultdict(set)
    uses: collections.Counter[str] = collections.Counter()
    for i, (_, text) in enumerate(units):
        for p in _subjects(text):
            units_of[p].add(i)
            uses[p] += 1
    agents = {p for p, n in uses.items() if n >= min_count}
    # a head word that mostly occurs inside one longer phrase ("office" in "AI office") is that phrase
    for p in list(agents):
        if " " not in p:
            longer = [q for q in agents if q.endswith(" " + p)]
            if any(uses[q] >= 0.6 * uses[p] for q in longer):
                agents.discard(p)
    # Roles of one kind are coordinated: "providers and deployers", "the controller or processor",
    # "client or authorization server". The partner is the agent most often coordinated with
    # this one; agents never coordinated fall back to the agent whose units overlap most.
    alt = "|".join(sorted((re.escape(x) for x in agents), key=len, reverse=True))
    coord = re.compile(
        rf"\b({alt})(?:e?s)?\s+(?:and|or|and/or|nor)\s+(?:the\s+|a\s+|an\s+|other\s+)?({alt})(?:e?s)?\b", re.I)
    coordinated: collections.Counter[tuple[str, str]] = collections.Counter()
    for _, text in units:
        for m in coord.finditer(text):
            x, y = m.group(1).lower(), m.group(2).lower()
            if x != y and x.split()[-1] != y.split()[-1] and x not in y and y not in x:
                coordinated[(x, y)] += 1
                coordinated[(y, x)] += 1
    partner: dict[str, tuple[float, str]] = {}
    for (x, y), n in coordinated.items():
        if n >= min_units and (x not in partner or (n, y) > partner[x]):
            partner[x] = (n, y)
    for a in sorted(agents):
        for b in sorted(agents):
            if a >= b or a.split()[-1] == b.split()[-1] or a in b or b in a:
                continue
            shared = len(units_of[a] & units_of[b])
            if shared < min_units:
                continue
            score = shared / (len(units_of[a]) * len(units_of[b])) ** 0.5  # below 1: coordination wins
            for x, y in ((a, b), (b, a)):
                if x not in partner or (partner[x][0] < 1 and score > partner[x][0]):
                    partner[x] = (score, y)
    return {x: y for x, (_, y) in partner.items()}


def surface_forms(units: list[tuple[str, str]], agents: set[str]) -> dict[str, str]:
    """How the corpus writes each agent mid-sentence: "Member State", "supervisory authority", "AI Office"."""
    forms: dict[str, collections.Counter[str]] = {a: collections.Counter() for a in agents}
    for a in agents:
        pat = re.compile(r"(?<=[a-z,] )(?:the |a |an )?(" + re.escape(a) + r")\b", re.I)
        for _, text in units[:4000]:
            for m in pat.finditer(text):
                forms[a][m.group(1)] += 1
    return {a: c.most_common(1)[0][0] if c else a for a, c in forms.items()}


def _plural(phrase: str) -> str:
    if phrase.endswith("y") and not phrase.endswith(("ay", "ey", "oy", "uy")):
        return phrase[:-1] + "ies"
    return phrase + ("es" if phrase.endswith(("s", "x", "ch", "sh")) else "s")


PREPOSITION_BEFORE = re.compile(
    r"\b(?:to|by|from|with|of|for|on|in|against|than|as|and|or)\s+(?:the|a|an|each|any|such)?\s*$", re.I)


def actor_swap(s: str, rng: random.Random, pairs: dict[str, str], surface: dict[str, str] | None = None) -> Edit | None:
    low = s.lower()
    surface = surface or {}
    for m in SUBJECT.finditer(s):
        if PREPOSITION_BEFORE.search(s[max(0, m.start() - 30): m.start(1)]):
            continue  # "submitted to the Regulator must be signed": not the subject
        words = m.group(1).split()
        for k in (2, 1):
            if len(words) < k:
                continue
            phrase = " ".join(words[-k:])
            key = singular(phrase)
            partner = pairs.get(key)
            if partner is None:
                continue
            if k == 1 and len(words) == 2:
                break  # the head of a compound ("Steering Council", "PFP Client"): swapping it invents a role
            partner = surface.get(partner, partner)
            if re.search(r"\b" + re.escape(partner.split()[-1].lower().rstrip("s")), low):
                return None  # both actors already in the sentence: a swap would be ambiguous
            start = m.start(1) + m.group(1).rfind(phrase)
            new = partner if not phrase[:1].isupper() or partner[:1].isupper() else partner[:1].upper() + partner[1:]
            if phrase.isupper() and len(phrase) > 1:
                new = partner.upper()
            if phrase.lower() != key:  # the source used the plural
                new = _plural(new)
            # fix the article: "a deployer" / "an importer"
            art = re.search(r"\b(a|an|A|An)\s+$", s[:start])
            if art and (art.group(1).lower() == "a") == (new[:1].lower() in "aeiou"):
                fixed = ("An" if art.group(1)[0] == "A" else "an") if new[:1].lower() in "aeiou" else \
                        ("A" if art.group(1)[0] == "A" else "a")
                return Edit("actor_swap", art.start(1), s[art.start(1):start + len(phrase)],
                            fixed + s[art.end(1):start] + new)
            return Edit("actor_swap", start, phrase, new)
    return None


CONDITION = r"(?:unless|except where|except when|except if|except in|except for|provided that|providing that)"
# ", where X" is a condition, but ', where "XXXX" is the PEP number' defines a name: skip quoted/code words
TRAILING = re.compile(r"(?P<c>,?\s+" + CONDITION + r"\b[^;:]*?|,\s+where\s+(?![\"'`“])[^;:,]*?)(?P<end>[.;]?\s*)$")
MIDDLE = re.compile(r",\s+(?:" + CONDITION[3:-1] + r"|where|in so far as|insofar as)\b[^,;:()]{3,}?,\s+")
LEADING = re.compile(r"^(?:Where|Unless|Except where|Provided that|Insofar as|In so far as)\b[^,;:]{3,}?,\s+")


SUBJECT_START = re.compile(r"(?:it|they|he|she|the|a|an|this|that|these|those|such|each|any|no)\b", re.I)
BAD_REST_START = re.compile(r"(?:and|or|but|nor|in which case|which|whose|where|then)\b", re.I)


def _main_clause(rest: str) -> bool:
    """The text left after a leading condition reads as the main clause: it starts like a subject
    and reaches its modal within ten words with no comma on the way."""
    words = ws(rest).split()
    head = " ".join(words[:11])
    m = MODAL.search(head)
    return bool(words) and not BAD_REST_START.match(rest) and m is not None and "," not in head[: m.start()]


def dropped_condition(s: str, rng: random.Random) -> Edit | None:
    for pat, kind in ((LEADING, "lead"), (MIDDLE, "mid"), (TRAILING, "tail")):
        m = pat.search(s)
        if not m:
            continue
        before = s[: m.start()].split()[-1:] or [""]
        if before[0].lower() in ("and", "or", "until", "if", "than", "not"):
            continue  # "until and unless", "if and only if": the condition is not a separable clause
        if kind == "tail":
            old = m.group("c")
            if len(old.split()) < 3:
                continue
            e = Edit("dropped_condition", m.start("c"), old, "")
        elif kind == "mid":
            after = s[m.end():]
            if BAD_REST_START.match(after):
                continue  # "..., unless X, in which case Y": Y hangs on X
            # "shall, where appropriate, be" -> "shall be"; "validated, unless X, it SHOULD" -> "validated, it SHOULD"
            glue = ", " if SUBJECT_START.match(after) and not MODAL.search(s[: m.start()]) else " "
            e = Edit("dropped_condition", m.start(), m.group(0), glue)
        else:
            if not _main_clause(s[m.end():]):
                continue
            e = Edit("dropped_condition", m.start(), m.group(0), "", capitalise=True)
        rest = apply(s, e)
        if MODAL.search(rest) and len(rest.split()) >= 6 and len(ws(e.old).split()) >= 3:
            return e
    return None


# --------------------------------------------------------------------------------------
# driver
# --------------------------------------------------------------------------------------


def load_units(name: str, path: Path) -> list[tuple[str, str]]:
    corpus = get_adapter(name).load(path)
    return [(u.unit_id, u.text) for u in corpus.units if not u.unit_id.startswith("recital-")]


def candidates(units: list[tuple[str, str]]) -> list[tuple[str, int, str]]:
    out = []
    for uid, text in units:
        for s in sentences(text):
            if usable(s.text):
                out.append((uid, s.start, s.text))
    return out


def perturb_corpus(name: str, units: list[tuple[str, str]], seed: int,
                   per_rule: int) -> tuple[list[dict], dict[str, str]]:
    pairs = discover_pairs(units)
    surface = surface_forms(units, set(pairs.values()))
    cands = candidates(units)
    rng = random.Random(f"{seed}:{name}")
    rng.shuffle(cands)
    rules = {
        "negation": negation, "modality": modality, "number": number, "date": date,
        "actor_swap": lambda s, r: actor_swap(s, r, pairs, surface), "dropped_condition": dropped_condition,
    }
    made: dict[str, list[dict]] = {r: [] for r in RULES}
    used: set[str] = set()  # one claim per sentence text, so rules and repeated boilerplate do not share one
    for uid, start, sent in cands:
        if ws(sent) in used:
            continue
        for rule in sorted(RULES, key=lambda r: len(made[r])):  # fill the emptiest rule first
            if len(made[rule]) >= per_rule:
                continue
            e = rules[rule](sent, random.Random(f"{seed}:{uid}:{start}:{rule}"))
            if e is None or e.old == e.new:
                continue
            claim = apply(sent, e)
            if claim == ws(sent):
                continue
            made[rule].append({
                "corpus": name, "unit_id": uid, "start": start, "source_sentence": sent, "claim": claim,
                "rule": rule, "label": "contradicted", "changed": {"from": e.old, "to": e.new, "at": e.at},
            })
            used.add(ws(sent))
            break
        if all(len(v) >= per_rule for v in made.values()):
            break
    rows = []
    for rule in RULES:
        for i, r in enumerate(sorted(made[rule], key=lambda r: (r["unit_id"], r["start"])), 1):
            rows.append({"id": f"pert-{name}-{rule}-{i:03d}", **r})
    return rows, pairs


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--corpus", action="append", help=f"adapter name (repeatable); default {', '.join(CORPUS_NAMES)}")
    ap.add_argument("--path", type=Path, help="corpus folder, with a single --corpus (default: the bench data folder)")
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--per-rule", type=int, default=15, help="at most this many claims per rule and corpus")
    ap.add_argument("--out", type=Path, default=OUT)
    ap.add_argument("--show-pairs", action="store_true", help="print the actor pairs found in each corpus")
    args = ap.parse_args(argv)
    names = args.corpus or list(CORPUS_NAMES)
    if args.path and len(names) != 1:
        ap.error("--path needs exactly one --corpus")
    rows: list[dict] = []
    for name in names:
        path = args.path or CORPORA / name
        if not path.exists():
            print(f"{name}: {path} is absent, skipped", file=sys.stderr)
            continue
        got, pairs = perturb_corpus(name, load_units(name, path), args.seed, args.per_rule)
        rows.extend(got)
        if args.show_pairs:
            print(f"{name} actor pairs: " + "; ".join(f"{a} -> {b}" for a, b in sorted(pairs.items())))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with args.out.open("w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    table = collections.Counter((r["corpus"], r["rule"]) for r in rows)
    corpora = sorted({r["corpus"] for r in rows}, key=lambda c: names.index(c))
    print("rule".ljust(18) + "".join(c.rjust(7) for c in corpora) + "  total")
    for rule in RULES:
        n = [table[(c, rule)] for c in corpora]
        print(rule.ljust(18) + "".join(str(x).rjust(7) for x in n) + str(sum(n)).rjust(7))
    tot = [sum(table[(c, r)] for r in RULES) for c in corpora]
    print("total".ljust(18) + "".join(str(x).rjust(7) for x in tot) + str(sum(tot)).rjust(7))
    print(f"wrote {len(rows)} claims to {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
