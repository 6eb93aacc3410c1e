"""Text normalisation that can always be mapped back to the original.

Claims are matched against a *normalised* source (PDF artefacts removed), but anchored by
offsets into the *original* source. :func:`normalize` returns both the normalised text and
a map back:

    >>> n = normalize("The regu-\\nlation applies to high-\\nrisk systems.Deployers ﬁle reports.")
    >>> n.text
    'The regulation applies to high-risk systems. Deployers file reports.'
    >>> start = n.text.index("regulation")
    >>> a, b = n.to_original(start, start + len("regulation"))
    >>> n.original[a:b]
    'regu-\\nlation'

Normalisations (each one is an *edit* of a region of the original):

* ligatures ``ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ`` → ``ff fi fl ffi ffl st st``;
* curly quotes ``‘ ’ ‚ ‛`` → ``'`` and ``“ ” „ ‟`` → ``"`` (one character for one);
* soft hyphens (U+00AD) are removed;
* a hyphen at the end of a line between two words: the line break is removed and the hyphen
  kept for a compound (``high-\\nrisk`` → ``high-risk``) or dropped for a broken word
  (``regu-\\nlation`` → ``regulation``). The hyphen is kept when a side is a digit, the
  second part is capitalised, the text itself writes the compound with a hyphen elsewhere
  (and never the joined word), or the first part is a prefix such as ``non``, ``co``,
  ``self``, ``high``; otherwise it is dropped;
* runs of whitespace (spaces, tabs, NBSP, line breaks, zero-width characters, LRM/RLM):
  two or more line breaks → ``"\\n\\n"`` (paragraphs survive for segmentation), otherwise
  one space; a run of zero-width characters alone is removed;
* glued sentences ``end.Next`` → ``end. Next`` (a space is inserted).

Mapping contract (:meth:`Normalized.to_original`): offsets are half-open. A span of
normalised text made only of unedited characters maps to exactly those characters. A span
that touches an edit (or contains a removal) maps outward to the whole region the edit
depends on (for ``high-\\nrisk`` both words), so that normalising the original span
reproduces the normalised span: ``n.text[s:e] in normalize(original[a:b], lexicon=n.lexicon).text``.
Text that needs no normalisation maps to identical offsets (only a span that cuts a kept
paragraph break ``"\\n\\n"`` in half widens to the whole break). ``context=False`` gives the
tight map instead: an edited span maps to just the characters it replaced, and an inserted
character to the position between its neighbours.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterable

__all__ = ["PREFIXES", "Normalized", "build_lexicon", "find_in_original", "locate", "normalize"]

_LIGATURES = {"ﬀ": "ff", "ﬁ": "fi", "ﬂ": "fl", "ﬃ": "ffi", "ﬄ": "ffl", "ﬅ": "st", "ﬆ": "st"}
_LIGATURE_TABLE = str.maketrans(_LIGATURES)
_QUOTES = {"‘": "'", "’": "'", "‚": "'", "‛": "'", "“": '"', "”": '"', "„": '"', "‟": '"'}
_ZERO_WIDTH = "\u200b\u200c\u200d\u200e\u200f\u2060\ufeff"
_LINE_BREAKS = re.compile(r"\r\n|[\n\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")
# Prefixes that form real compounds: "non-\nbinding" stays "non-binding".
PREFIXES = frozenset(
    """
    non co self high low cross pre post anti multi semi well long short third first second
    cyber ex e x sub inter intra extra ultra over under mid pan pro quasi bi tri real full
    """.split()
)

_EDITS = re.compile(
    r"(?P<hyphen>(?<=[^\W_])[-\u2010][ \t\u00a0]*(?:\r\n|\r|\n)[ \t\u00a0]*(?=[^\W_]))"
    r"|(?P<soft_break>(?<=[^\W_])\u00ad[ \t\u00a0]*(?:\r\n|\r|\n)[ \t\u00a0]*(?=[^\W_]))"
    r"|(?P<soft>\u00ad)"
    rf"|(?P<space>[\s{_ZERO_WIDTH}]+)"
    r"|(?P<ligature>[\ufb00-\ufb06])"
    r"|(?P<quote>[‘’‚‛“”„‟])"
    r"|(?P<glued>(?<=[a-z]{2}[.!?])(?=[A-Z][a-z]))"
)
_WORD_CHAR = re.compile(r"[^\W_]")
_LEXICON_TOKEN = re.compile(r"[^\W_]+(?:[-\u2010][^\W_]+)*")


def build_lexicon(text: str) -> frozenset[str]:
    """Lower-cased words and hyphenated pairs written on one line in ``text`` (ligatures expanded)."""
    words: set[str] = set()
    for token in _LEXICON_TOKEN.findall(text.translate(_LIGATURE_TABLE).replace("\u2010", "-")):
        token = token.lower()
        words.add(token)
        parts = token.split("-")
        if len(parts) > 2:
            words.update(parts)
            words.update(f"{x}-{y}" for x, y in zip(parts, parts[1:]))
        elif len(parts) == 2:
            words.update(parts)
    return frozenset(words)


def _word_back(text: str, end: int) -> int:
    start = end
    while start > 0 and _WORD_CHAR.match(text[start - 1]):
        start -= 1
    return start


def _word_forward(text: str, start: int) -> int:
    end = start
    while end < len(text) and _WORD_CHAR.match(text[end]):
        end += 1
    return end


def _keep_hyphen(first: str, second: str, lexicon: frozenset[str]) -> bool:
    if first[-1].isdigit() or second[0].isdigit() or second[0].isupper():
        return True
    first_l, second_l = first.translate(_LIGATURE_TABLE).lower(), second.translate(_LIGATURE_TABLE).lower()
    joined, compound = first_l + second_l, f"{first_l}-{second_l}"
    if compound in lexicon and joined not in lexicon:
        return True
    if joined in lexicon:
        return False
    return first_l in PREFIXES


def _space_output(run: str) -> str:
    if len(_LINE_BREAKS.findall(run)) >= 2:
        return "\n\n"
    return " " if any(c not in _ZERO_WIDTH for c in run) else ""


class Normalized:
    """A normalised text with a map back to the original it came from.

    Attributes:
        original: the text that was normalised.
        text: the normalised text.
        lexicon: the words used to decide line-end hyphens; pass it to :func:`normalize` to
            normalise a part of ``original`` the same way.
    """

    def __init__(self, original: str, lexicon: frozenset[str]) -> None:
        self.original = original
        self.lexicon = lexicon
        out: list[str] = []
        starts: list[int] = []
        ends: list[int] = []
        # Edits as parallel lists: output range [n_start, n_end) and context [c_start, c_end).
        self._n_start: list[int] = []
        self._n_end: list[int] = []
        self._c_start: list[int] = []
        self._c_end: list[int] = []
        n = 0
        done = 0
        for m in _EDITS.finditer(original):
            a, b = m.span()
            if a > done:
                out.append(original[done:a])
                starts.extend(range(done, a))
                ends.extend(range(done + 1, a + 1))
                n += a - done
            kind = m.lastgroup
            region = m.group()
            c_start, c_end = a, b
            if kind == "hyphen":
                c_start, c_end = _word_back(original, a), _word_forward(original, b)
                keep = _keep_hyphen(original[c_start:a], original[b:c_end], lexicon)
                replacement = "-" if keep else ""
            elif kind == "soft_break":
                c_start, c_end = a - 1, b + 1
                replacement = ""
            elif kind == "soft":
                replacement = ""
            elif kind == "space":
                replacement = _space_output(region)
            elif kind == "ligature":
                replacement = _LIGATURES[region]
            elif kind == "quote":
                replacement = _QUOTES[region]
            else:  # glued
                c_start, c_end = a - 3, b + 2
                replacement = " "
            done = b
            if replacement == region:
                out.append(region)
                starts.extend(range(a, b))
                ends.extend(range(a + 1, b + 1))
                if len(region) > 1:  # "\n\n" is kept, but half of it would normalise to a space
                    self._add_edit(n, n + len(region), a, b)
                n += b - a
                continue
            out.append(replacement)
            starts.extend([a] * len(replacement))
            ends.extend([b] * len(replacement))
            self._add_edit(n, n + len(replacement), c_start, c_end)
            n += len(replacement)
        if done < len(original):
            out.append(original[done:])
            starts.extend(range(done, len(original)))
            ends.extend(range(done + 1, len(original) + 1))
        self.text = "".join(out)
        self._starts = starts
        self._ends = ends

    def _add_edit(self, n_start: int, n_end: int, c_start: int, c_end: int) -> None:
        self._n_start.append(n_start)
        self._n_end.append(n_end)
        self._c_start.append(c_start)
        self._c_end.append(c_end)

    def __repr__(self) -> str:
        return f"Normalized(text={self.text[:60]!r}{'…' if len(self.text) > 60 else ''}, edits={len(self._n_start)})"

    def to_original(self, start: int, end: int, *, context: bool = True) -> tuple[int, int]:
        """Map the span ``text[start:end]`` to a half-open span of ``original``.

        Args:
            start, end: a span of :attr:`text`, ``0 <= start <= end <= len(text)``.
            context: map a span that touches an edit outward to everything the edit depends
                on (default), so that normalising the returned original span reproduces the
                normalised span; ``False`` maps to just the replaced characters.

        Returns:
            ``(ostart, oend)`` with ``original[ostart:oend]`` the source of the span. An empty
            span maps to the position it stands at.

        Raises:
            ValueError: the span is not inside :attr:`text`.
        """
        if not 0 <= start <= end <= len(self.text):
            raise ValueError(f"span ({start}, {end}) is outside the normalised text of length {len(self.text)}")
        if start == end:
            pos = self._starts[start] if start < len(self.text) else len(self.original)
            return pos, pos
        ostart, oend = self._starts[start], self._ends[end - 1]
        if context:
            i = bisect_right(self._n_end, start)
            while i < len(self._n_start) and self._n_start[i] < end:
                ostart = min(ostart, self._c_start[i])
                oend = max(oend, self._c_end[i])
                i += 1
        return ostart, oend


def normalize(text: str, *, lexicon: Iterable[str] | None = None) -> Normalized:
    """Normalise PDF and web artefacts in ``text``, keeping a map back to it.

    Args:
        text: the original text.
        lexicon: words that decide whether a line-end hyphen is kept; by default the words
            of ``text`` itself (see :func:`build_lexicon`).

    Returns:
        A :class:`Normalized` with ``.text`` and ``.to_original(start, end)``.
    """
    words = build_lexicon(text) if lexicon is None else frozenset(lexicon)
    return Normalized(text, words)


def _strip_span(text: str, start: int, end: int) -> tuple[int, int]:
    while start < end and (text[start].isspace() or text[start] in _ZERO_WIDTH or text[start] == "\u00ad"):
        start += 1
    while end > start and (text[end - 1].isspace() or text[end - 1] in _ZERO_WIDTH or text[end - 1] == "\u00ad"):
        end -= 1
    return start, end


def find_in_original(original: str, normalized: Normalized, nstart: int, nend: int) -> tuple[int, int]:
    """The span of ``original`` behind ``normalized.text[nstart:nend]``, without surrounding whitespace.

    Raises:
        ValueError: ``normalized`` was not made from ``original``, or the span is out of range.
    """
    if normalized.original is not original and normalized.original != original:
        raise ValueError("normalized was made from a different text than original; call normalize(original) first")
    return _strip_span(original, *normalized.to_original(nstart, nend))


def locate(original: str, quote: str, normalized: Normalized | None = None) -> tuple[int, int] | None:
    """Find ``quote`` in ``original`` ignoring the artefacts :func:`normalize` removes.

    Returns the span of ``original`` (no surrounding whitespace) of the first occurrence, or
    ``None`` when the quote does not occur. Pass ``normalized`` to reuse ``normalize(original)``.
    """
    normalized = normalized or normalize(original)
    needle = normalize(quote, lexicon=normalized.lexicon).text.strip()
    if not needle:
        return None
    at = normalized.text.find(needle)
    if at < 0:
        return None
    return find_in_original(original, normalized, at, at + len(needle))
