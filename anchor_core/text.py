"""Small text helpers shared by the stores and the retrieval core."""

from __future__ import annotations

import re

# Function words that carry no retrieval signal. Kept short on purpose: legal words such as
# "shall", "may", "not" matter to the claim scorer and stay searchable.
STOP_WORDS = frozenset("""
a an and are as at be been being but by can could did do does doing for from had has have having
he her here hers him his how i if in into is it its itself me my of on or our ours she so such
than that the their theirs them then there these they this those to too us was we were what when
where which while who whom why will with would you your yours about above after again against all
am any because before below between both during each few further more most other out over own
same some through under until up very off once only s t just don should now
""".split())

_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)?", re.UNICODE)



# Numbers written as words, by value ("seven calendar days", "thirty days").
NUMBER_WORDS: dict[str, int] = {w: i for i, w in enumerate(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen "
    "seventeen eighteen nineteen twenty".split())}
NUMBER_WORDS.update({"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80,
                     "ninety": 90, "hundred": 100, "dozen": 12})


def words(text: str) -> list[str]:
    """Lower-cased word tokens (letters and digits)."""
    return [w.lower() for w in _WORD.findall(text)]


def query_terms(text: str) -> list[str]:
    """Distinct content words of a question, in order, stop-words removed."""
    seen: dict[str, None] = {}
    for w in words(text):
        if w not in STOP_WORDS and w not in seen:
            seen[w] = None
    return list(seen)


def count(n: int, noun: str, plural: str | None = None) -> str:
    """``count(1, "statement")`` → ``"1 statement"``; ``count(2, "statement")`` → ``"2 statements"``."""
    return f"{n} {noun if n == 1 else plural or noun + 's'}"


# A document's footnote or endnote as an upload stores it, on its own line after the paragraph whose mark refers to
# it ("Footnote 2: Days here means Business Days."): Word keeps notes apart from the text they qualify.
NOTE_LINE = re.compile(r"^(?:Footnote|Endnote) [^\s:]{1,8}: \S", re.MULTILINE)


def note_line(kind: str, mark: str, text: str) -> str:
    """The stored line of a note: ``note_line("footnote", "2", "Calendar days.")`` → ``"Footnote 2: Calendar
    days."`` (:data:`NOTE_LINE` finds it again)."""
    return f"{kind.capitalize()} {mark}: {text}"
