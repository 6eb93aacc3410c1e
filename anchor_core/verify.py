"""Verify an answer written anywhere: text with ``<cite id="...">`` tags plus its sources.

Two tag styles are read:

- ``<cite id="src1">claim text</cite>`` — the enclosed text is the claim;
- ``Claim sentence.<cite id="src1"/>`` (or an empty ``<cite id="src1"></cite>``) — the
  sentence before the tag is the claim.

``id`` may list several sources (``id="a,b"``). Tags are read as HTML reads them: attributes in
any order and case, values double-, single- or un-quoted (a quoted ``>`` stays in the value),
``data-id`` and other attributes ignored. Sentences outside any tag are claims too,
checked against every source. Each claim is split into atoms; a claim is supported only
when every atom is anchored. An answer with no claims does not pass.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from html.parser import HTMLParser
from typing import Literal, NamedTuple

from pydantic import BaseModel, Field

from anchor_core.anchoring import InputError, check_text, default_scorer
from anchor_core.check import Reader, check
from anchor_core.crossencoder import default_reader
from anchor_core.embeddings import Embedder
from anchor_core.errors import AnchorError
from anchor_core.report import Report, Source
from anchor_core.scorers import Scorer
from anchor_core.segment import split_sentences

# Where a cite tag may start: ``<cite`` or ``</cite`` followed by what can end a tag name.
_TAG_START = re.compile(r"<\s*(/?)\s*cite(?=[\s/>]|$)", re.IGNORECASE)
MIN_CLAIM_WORDS = 3


class CiteError(AnchorError):
    """A malformed or unknown ``<cite>`` tag; the message names the line and the fix."""


class Segment(BaseModel):
    text: str
    cite_ids: list[str] = Field(default_factory=list)
    line: int = 1


def _line(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


class _Tag(NamedTuple):
    start: int
    end: int
    """Half-open ``[start, end)`` of the whole tag in the answer."""
    closing: bool
    selfclose: bool
    id: str | None
    """The ``id`` attribute's value; None when the tag has none."""


class _StartTag(HTMLParser):
    """Reads the one start tag at the beginning of the text fed to it, then stops."""

    class Done(Exception):
        pass

    def __init__(self) -> None:
        super().__init__(convert_charrefs=False)
        self.found: tuple[str, list[tuple[str, str | None]], bool] | None = None

    def _take(self, attrs: list[tuple[str, str | None]], selfclose: bool) -> None:
        if self.getpos() == (1, 0):  # the tag was read where the cite starts, not further on
            self.found = (self.get_starttag_text() or "", attrs, selfclose)
        raise self.Done

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._take(attrs, False)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self._take(attrs, True)

    def handle_endtag(self, tag: str) -> None:
        raise self.Done


def _tags(answer: str) -> list[_Tag]:
    """Every ``<cite …>``, ``<cite …/>`` and ``</cite>`` in ``answer``, in order, with exact offsets.

    Only cite tags are parsed; any other text, ``<`` included, stays claim text."""
    tags: list[_Tag] = []
    pos = 0
    while m := _TAG_START.search(answer, pos):
        rest = answer[m.end():]
        if m.group(1):
            close = rest.find(">")
            if close < 0:
                raise CiteError(f"line {_line(answer, m.start())}: </cite without its closing '>'")
            tags.append(_Tag(m.start(), m.end() + close + 1, True, False, None))
            pos = m.end() + close + 1
            continue
        parser = _StartTag()
        try:
            parser.feed("<cite" + rest)
            parser.close()
        except _StartTag.Done:
            pass
        if parser.found is None:
            raise CiteError(f"line {_line(answer, m.start())}: a <cite> tag that never ends; close it with '>' "
                            "and check the quotes around its attributes")
        raw, attrs, selfclose = parser.found
        end = m.end() + len(raw) - len("<cite")
        # HTML reads ``<cite id=a/>`` as the value ``a/``: take it, as people mean it, for a marker.
        selfclose = selfclose or re.search(r"/\s*>$", raw) is not None
        value = next((v or "" for k, v in attrs if k == "id"), None)  # the first id wins, as in HTML
        if value is not None and selfclose and value.endswith("/") and not re.search(r"[\"']\s*/\s*>$", raw):
            value = value[:-1]
        tags.append(_Tag(m.start(), end, False, selfclose, value))
        pos = end
    return tags


def _ids(tag: _Tag, answer: str, sources: dict[str, str]) -> list[str]:
    if tag.id is None:
        raise CiteError(f'line {_line(answer, tag.start)}: <cite> without an id; write <cite id="SOURCE_ID">')
    ids = [i for i in re.split(r"[,\s]+", tag.id) if i]
    if not ids:
        raise CiteError(f"line {_line(answer, tag.start)}: <cite> with an empty id")
    for i in ids:
        if i not in sources:
            near = difflib.get_close_matches(i, list(sources), n=1)
            hint = f"did you mean {near[0]!r}? " if near else ""
            raise CiteError(f"line {_line(answer, tag.start)}: unknown source id {i!r}; {hint}"
                            f"known ids: {', '.join(sorted(sources)[:10])}")
    return ids


def _plain_claims(text: str, line: int, ids: list[str] | None = None) -> list[Segment]:
    out = []
    for s in split_sentences(text):
        if len(s.text.split()) >= MIN_CLAIM_WORDS:
            out.append(Segment(text=s.text, cite_ids=list(ids or []), line=line + text.count("\n", 0, s.start)))
    return out


def parse_answer(answer: str, sources: dict[str, str]) -> list[Segment]:
    """Split an answer into claims with the source ids they cite."""
    segments: list[Segment] = []
    pos = 0
    open_tag: tuple[int, list[str], int, int] | None = None  # (tag start, ids, content start, claims before)
    for tag in _tags(answer):
        if tag.closing:
            if open_tag is None:
                raise CiteError(f"line {_line(answer, tag.start)}: </cite> without an opening <cite id=...>")
            _, ids, content_start, before = open_tag
            inner = answer[content_start:tag.start].strip()
            if inner:
                segments.append(Segment(text=" ".join(inner.split()), cite_ids=ids, line=_line(answer, content_start)))
            else:  # empty pair: a marker citing the sentence before it, which the opening tag already took
                del segments[before:]
                _attach_marker(segments, answer, pos, open_tag[0], ids)
            open_tag = None
            pos = tag.end
            continue
        if open_tag is not None:
            raise CiteError(f"line {_line(answer, open_tag[0])}: <cite> is never closed before the next <cite> "
                            f"on line {_line(answer, tag.start)}; close it with </cite> or write <cite id=.../>")
        ids = _ids(tag, answer, sources)
        if tag.selfclose:
            _attach_marker(segments, answer, pos, tag.start, ids)
            pos = tag.end
        else:
            before = len(segments)
            segments += _plain_claims(answer[pos:tag.start], _line(answer, pos))
            open_tag = (tag.start, ids, tag.end, before)
    if open_tag is not None:
        raise CiteError(f"line {_line(answer, open_tag[0])}: <cite> is never closed; add </cite>")
    segments += _plain_claims(answer[pos:], _line(answer, pos))
    return segments


def _attach_marker(segments: list[Segment], answer: str, pos: int, tag_start: int, ids: list[str]) -> None:
    before = _plain_claims(answer[pos:tag_start], _line(answer, pos))
    if before:
        before[-1].cite_ids = ids
        segments += before
    elif segments and not segments[-1].cite_ids:
        segments[-1].cite_ids = ids
    elif segments:
        segments[-1].cite_ids = sorted({*segments[-1].cite_ids, *ids})
    else:
        raise CiteError(f"line {_line(answer, tag_start)}: <cite> marker with no claim before it")


def verify_answer(answer: str, sources: dict[str, str], *, scorer: Scorer | None = None,
                  embedder: Embedder | None = None, reader: Reader | None | Literal["default"] = "default",
                  pages: Mapping[str, Sequence[int]] | None = None, notes: Sequence[str] = ()) -> Report:
    """Check every claim of ``answer`` against ``sources`` (id → text); see the module docstring.

    ``reader``: the contradiction reader that flags supported claims whose quote may state otherwise
    (``"default"``: the shipped one unless ``ANCHOR_READER_MODEL=off``; ``None``: rules only).
    ``pages``: for a source read from a PDF, the offsets in its text where pages 1, 2, ... begin (each quote
    then names its page). ``notes``: what reading the sources changed, kept with the report."""
    check_text(answer, "answer")
    if not sources:
        raise InputError("no sources given; pass the texts the answer cites as {id: text}")
    for sid, text in sources.items():
        check_text(text, f"source {sid!r}")
    scorer = scorer or default_scorer(embedder)
    given = [Source.given(n, sid, text, (pages or {}).get(sid, ()))
             for n, (sid, text) in enumerate(sources.items(), start=1)]
    number = {s.unit_id: s.n for s in given}
    claims = [_Claim(seg.text, [number[i] for i in seg.cite_ids], seg.line) for seg in parse_answer(answer, sources)]
    reader = default_reader() if reader == "default" else reader
    checked = check(claims, given, scorer=scorer, embedder=embedder, cited_only=True, split_atoms=True,
                    reader=reader)
    return Report(kind="verify", answer=answer, claims=checked, sources=given,
                  models={"scorer": getattr(scorer, "name", type(scorer).__name__),
                          "embedder": embedder.model_id if embedder else "none",
                          "reader": reader.name if reader is not None else "off"},
                  threshold=scorer.threshold,
                  notes=[*notes, *([] if checked else ["the answer contains no claims: nothing was verified"])])


@dataclass
class _Claim:
    text: str
    cited: list[int]
    line: int
