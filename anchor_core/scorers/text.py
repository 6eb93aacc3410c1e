"""Token analysis shared by the lexical and the learned scorer.

One pass turns a text into :class:`Token` records: words carry a light stem as their match
key, numbers carry their value (``"35 000 000"``, ``"35,000,000"``, ``"35 million"`` and
``"EUR 35 000 000"`` all become ``#35000000``), punctuation is kept so that the rule features
can stop at clause boundaries.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from anchor_core.text import NUMBER_WORDS, STOP_WORDS

NEGATORS = frozenset({"not", "no", "never", "without", "none", "nor", "neither", "cannot", "nothing", "nobody"})
STRONG_MODALS = frozenset({"shall", "must"})
WEAK_MODALS = frozenset({"may", "can", "could", "might", "should"})
# Words that only frame a number; "EUR 35 000 000" and "35 000 000 euros" state the same amount.
_UNIT_WORDS = frozenset({"eur", "euro", "euros", "usd", "gbp", "chf", "per", "cent", "percent"})
_CURRENCY = frozenset({"eur", "euro", "euros", "usd", "gbp", "chf", "$", "€", "£"})
_SCALES = {"thousand": 1e3, "million": 1e6, "millions": 1e6, "mn": 1e6, "billion": 1e9, "billions": 1e9,
           "bn": 1e9, "trillion": 1e12}
# "one" is left out on purpose: "one of the ..." is rarely a quantity.
_NUMBER_WORDS = {w: v for w, v in NUMBER_WORDS.items() if w != "one"}

_TOKEN = re.compile(
    r"""(?P<number>(?<![\w.,])(?:\d{1,3}(?:[ \u00a0\u202f]\d{3}(?!\d))+|\d+)(?:[.,]\d+)*)(?:st|nd|rd|th|s)?(?!\w)
      | (?P<word>[^\W_]+(?:['’][^\W_]+)*)
      | (?P<punct>[.!?;:,()])
      | (?P<symbol>[$€£%])""",
    re.VERBOSE | re.UNICODE)
_SYNONYMS = {"must": "shall"}
_SENTENCE_END = frozenset(".!?")
_CLAUSE_END = frozenset(".!?;:")


@dataclass(frozen=True)
class Token:
    """One token of a text. ``key`` is what two texts are matched on."""

    text: str          # surface form, e.g. "Processing", "35 million"
    key: str           # stem for words ("process"), "#35000000" for numbers, the mark for punctuation
    kind: str          # "word", "number", "punct"
    content: bool      # counts for coverage (not a stop-word, not punctuation, not a currency word)
    sentence: int      # index of the sentence the token is in
    amount: bool = False  # a number with a currency or a scale word


@lru_cache(maxsize=65536)
def stem(word: str) -> str:
    """A small Porter-like stemmer: plural, -ing, -ed, -ly, final e; enough to match inflections.

    >>> [stem(w) for w in ("processes", "processing", "processed", "applies", "applied", "agreed")]
    ['process', 'process', 'process', 'appli', 'appli', 'agre']
    """
    w = word.lower().replace("’", "'")
    if w.endswith("'s"):
        w = w[:-2]
    w = w.replace("'", "")
    if len(w) <= 3 or not w.isalpha():
        return w
    if w.endswith("ies") or w.endswith("ied"):
        w = w[:-3] + "y"
    elif w.endswith("sses"):
        w = w[:-2]
    elif w.endswith("s") and not w.endswith(("ss", "us", "is")):
        w = w[:-1]
    if w.endswith("eed"):
        w = w[:-1]
    elif w.endswith("ing") and len(w) > 5 and _has_vowel(w[:-3]):
        w = w[:-3]
    elif w.endswith("ed") and len(w) > 4 and _has_vowel(w[:-2]):
        w = w[:-2]
    elif w.endswith("ly") and len(w) > 5:
        w = w[:-2]
    if len(w) > 3 and w[-1] == w[-2] and w[-1] not in "lsz" and w[-1] not in "aeiou":
        w = w[:-1]
    if len(w) > 3 and w.endswith("e"):
        w = w[:-1]
    if len(w) > 3 and w.endswith("y"):
        w = w[:-1] + "i"
    return w


def _has_vowel(s: str) -> bool:
    return any(c in "aeiouy" for c in s)


def parse_number(text: str) -> float:
    """Value of a number as written: ``"35 000 000"``, ``"35,000,000"``, ``"1.000.000"``, ``"41.3"``, ``"4,5"``."""
    s = re.sub(r"[ \u00a0\u202f]", "", text)
    if "," in s and "." in s:
        s = s.replace(",", "") if s.rfind(",") < s.rfind(".") else s.replace(".", "").replace(",", ".")
    elif "," in s:
        parts = s.split(",")
        s = "".join(parts) if all(len(p) == 3 for p in parts[1:]) else s.replace(",", ".", 1).replace(",", "")
    elif s.count(".") > 1:
        s = s.replace(".", "")
    return float(s)


def number_key(value: float) -> str:
    return "#" + (str(int(value)) if value == int(value) else repr(round(value, 6)))


def _range_end(text: str, matches: list[re.Match[str]], i: int, value: float) -> float:
    """``19`` in ``2018–19`` (a year range written short) is the year 2019."""
    if i == 0 or not re.fullmatch(r"\d\d", matches[i].group()):
        return value
    prev = matches[i - 1]
    if prev.lastgroup != "number" or not re.fullmatch(r"(1\d|20)\d\d", prev.group()):
        return value
    if not re.fullmatch(r"[-–—/]", text[prev.end():matches[i].start()]):
        return value
    if re.match(r"[-–—/.]\d", text[matches[i].end():]):  # an ISO date such as 2004-10-19
        return value
    full = int(prev.group()[:2] + matches[i].group())
    return float(full) if full > int(prev.group()) else value


def analyse(text: str) -> list[Token]:
    """Tokens of ``text`` in order. Scale words and currencies are folded into the number they frame."""
    return list(_analyse(text))


@lru_cache(maxsize=4096)
def _analyse(text: str) -> tuple[Token, ...]:
    # Anchoring scores the same windows and claims many times over (candidates, atoms, shrinking).
    matches = list(_TOKEN.finditer(text))
    raw = [(m.lastgroup, m.group()) for m in matches]
    out: list[Token] = []
    sentence = 0
    i = 0
    while i < len(raw):
        kind, surface = raw[i]
        low = surface.lower()
        if kind == "punct":
            out.append(Token(surface, surface, "punct", False, sentence))
            if surface in _SENTENCE_END:
                sentence += 1
            i += 1
            continue
        if kind == "symbol":
            out.append(Token(surface, surface, "punct", False, sentence))
            i += 1
            continue
        if kind == "number" or (low in _NUMBER_WORDS and kind == "word"):
            value = parse_number(re.sub(r"(st|nd|rd|th|s)$", "", surface)) if kind == "number" else _NUMBER_WORDS[low]
            value = _range_end(text, matches, i, value)
            text_parts = [surface]
            amount = i > 0 and raw[i - 1][1].lower() in _CURRENCY
            if i + 1 < len(raw) and raw[i + 1][0] == "word" and raw[i + 1][1].lower() in _SCALES:
                value *= _SCALES[raw[i + 1][1].lower()]
                text_parts.append(raw[i + 1][1])
                amount = True
                i += 1
            if i + 1 < len(raw) and raw[i + 1][1].lower() in _CURRENCY:
                amount = True
            out.append(Token(" ".join(text_parts), number_key(value), "number", True, sentence, amount))
            i += 1
            continue
        # "doesn't" and "does not" must match: every contracted negation keys as "not"; "must" and
        # "shall" state the same obligation.
        key = "not" if low.replace("’", "'").endswith("n't") else _SYNONYMS.get(low) or stem(surface)
        content = bool(key) and low not in STOP_WORDS and low not in _UNIT_WORDS and key not in STOP_WORDS
        out.append(Token(surface, key, "word", content, sentence))
        i += 1
    return tuple(out)


def content_keys(tokens: list[Token]) -> list[str]:
    return [t.key for t in tokens if t.content]


def is_negator(tokens: list[Token], i: int) -> bool:
    """``not``/``no``/``never``/``without``/``n't``…, except ``not only``, ``without prejudice`` and ``No. 5``."""
    t = tokens[i]
    low = t.text.lower().replace("’", "'")
    nxt = tokens[i + 1].text.lower() if i + 1 < len(tokens) else ""
    if low.endswith("n't"):
        return True
    if low not in NEGATORS:
        return False
    if low == "not" and nxt == "only":
        return False
    if low == "without" and nxt == "prejudice":
        return False
    if low == "no" and (nxt == "." or (i + 1 < len(tokens) and tokens[i + 1].kind == "number")):
        return False
    return True


def modal_class(token: Token) -> str | None:
    low = token.text.lower()
    if low in STRONG_MODALS:
        return "strong"
    if low in WEAK_MODALS or low in {"cannot", "can't"}:
        return "weak"
    return None


def neighbourhood(tokens: list[Token], i: int, before: int = 4, after: int = 6) -> set[str]:
    """Content keys within ``before``/``after`` tokens of position ``i``, not crossing a clause end."""
    keys: set[str] = set()
    for step, limit in ((-1, before), (1, after)):
        j, seen = i + step, 0
        while 0 <= j < len(tokens) and seen < limit:
            t = tokens[j]
            if t.kind == "punct" and t.text in _CLAUSE_END:
                break
            if t.content and not is_negator(tokens, j) and modal_class(t) is None:
                keys.add(t.key)
            seen += t.kind != "punct"
            j += step
    return keys


def phrase_at(tokens: list[Token], i: int) -> str:
    """The negator with the word before it, as it reads: ``shall not``, ``never``, ``does not``."""
    if i > 0 and tokens[i - 1].kind == "word" and tokens[i].text.lower() in {"not", "never"}:
        return f"{tokens[i - 1].text} {tokens[i].text}".lower()
    return tokens[i].text.lower()


def split_sentences(text: str) -> list[str]:
    """Plain sentence splitter for answers: at . ! ? followed by space and an upper-case letter or digit."""
    parts = re.split(r"(?<=[.!?])\s+(?=[A-Z0-9\"'(])", text.strip())
    return [p.strip() for p in parts if p.strip()]
