"""EU regulations published as EUR-Lex markdown: the AI Act and the GDPR.

Units: ``article-N`` (numbered paragraphs as parts ``"1"``, ``"2"``; points (a), (b) ride
with their paragraph), ``annex-N`` with arabic N (numbered points as parts, lettered
sections ``"A"`` with their points ``"A.1"``), and ``recital-N`` (kind ``recital``, not
binding, excluded from retrieval unless asked for).

The markdown is hard-wrapped at ~80 columns in places and carries table and link markup
(the GDPR's ``(a) |  text`` rows, ``1\\.`` escapes, footnote links). Each blank-line
separated block is unwrapped and cleaned, then the unit text is built from the clean
blocks, so every offset refers to the text that is stored.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import ClassVar

from anchor_core.errors import AdapterError
from anchor_core.models import Container, Document, ParsedCorpus, Part, Reference, Unit
from ingest.base import capitalise_keywords, question_unit, read_text, sha256_file
from ingest.containers import capitals_kept, expand, heading_title, members
from ingest.eurlex_refs import extract_references, roman_to_int

_TABLE_RULE = re.compile(r"^\s*-+\|-+\s*$")
_TABLE_CELL = re.compile(r"^(\([0-9a-z]+\)|[0-9]+\.)\s*\|\s+")
_FOOTNOTE_LINK = re.compile(r"\[\(\d+\)\]\(#[^)]*\)")
_LINK = re.compile(r"\[([^\]]*)\]\([^)]*\)")
_ARTICLE = re.compile(r"^Article (\d+[a-z]?)$")
_ANNEX = re.compile(r"^ANNEX(?: ([IVXLC]+))?$")  # a lone "ANNEX" is an act's only annex
_CHAPTER = re.compile(r"^CHAPTER ([IVXLC]+)$")
_SECTION = re.compile(r"^(?:SECTION|Section) (\d+)$")
_RECITAL = re.compile(r"^\((\d+)\)\s+")
_PARAGRAPH = re.compile(r"^(\d+)\.\s+")
_ANNEX_SECTION = re.compile(r"^Section ([A-Z])\b[.\s—-]*")
_END_OF_BODY = {"* * *"}


def clean_block(lines: list[str]) -> str:
    """Unwrap one markdown block into a single clean line of text."""
    kept = [ln for ln in lines if not _TABLE_RULE.match(ln)]
    out = ""
    for ln in kept:
        ln = _TABLE_CELL.sub(r"\1 ", ln.strip()).replace("\\.", ".").replace("\\*", "*")
        if not ln:
            continue
        if not out:
            out = ln
        elif out.endswith("-") and not out.endswith(" -"):
            out += ln  # a wrapped compound (high-\nrisk) keeps its hyphen, loses the break
        else:
            out += " " + ln
    out = _FOOTNOTE_LINK.sub("", out)
    out = _LINK.sub(r"\1", out)
    out = out.replace("`", "")
    return re.sub(r"[ \t\u00a0]+", " ", out).strip()


def blocks_of(markdown: str) -> list[str]:
    blocks: list[str] = []
    current: list[str] = []
    for line in markdown.splitlines():
        # GDPR-style tables put one enumerated point per row, separated by rule lines.
        if line.strip() and not _TABLE_RULE.match(line):
            current.append(line)
        elif current:
            blocks.append(clean_block(current))
            current = []
    if current:
        blocks.append(clean_block(current))
    return [b for b in blocks if b]


@dataclass
class _Draft:
    unit_id: str
    kind: str
    heading: str
    title: str = ""
    blocks: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    containers: list[Container] = field(default_factory=list)


def _build_unit(d: _Draft, doc_id: str) -> Unit:
    """Join the blocks into the unit text and mark numbered parts by offsets."""
    text_parts: list[str] = []
    offsets: list[tuple[int, int]] = []
    pos = 0
    for b in d.blocks:
        if text_parts:
            pos += 1  # the "\n" that joins blocks
        offsets.append((pos, pos + len(b)))
        text_parts.append(b)
        pos += len(b)
    text = "\n".join(text_parts)

    parts: list[Part] = []
    open_point: Part | None = None
    open_section: Part | None = None
    seen: set[str] = set()
    prev_end = 0

    def close(part: Part | None, end: int) -> None:
        if part is not None:
            part.end = end

    for (start, end), block in zip(offsets, d.blocks):
        sec = _ANNEX_SECTION.match(block) if d.kind == "annex" else None
        para = _PARAGRAPH.match(block)
        if sec:
            close(open_point, prev_end)
            close(open_section, prev_end)
            open_point = None
            open_section = Part(label=sec.group(1), start=start, end=end, title=block[sec.end():][:120])
            parts.append(open_section)
        elif para:
            label = para.group(1)
            if open_section is not None:
                label = f"{open_section.label}.{label}"
            close(open_point, prev_end)
            if label in seen:  # a restarted numbering we cannot name: keep it with the previous point
                open_point = None
            else:
                open_point = Part(label=label, start=start, end=end)
                parts.append(open_point)
                seen.add(label)
        prev_end = end
    if d.blocks:
        close(open_point, len(text))
        close(open_section, len(text))
    return Unit(unit_id=d.unit_id, doc_id=doc_id, kind=d.kind, heading=d.heading, title=d.title,
                text=text, parts=parts, containers=d.containers, meta=d.meta)


def _chapter(numeral: str, title: str = "") -> Container:
    return Container(id=f"chapter-{numeral.lower()}", kind="chapter", label=f"Chapter {numeral}", title=title)


def _section(chapter: Container, number: str, title: str = "") -> Container:
    return Container(id=f"{chapter.id}-section-{number}", kind="section", label=f"Section {number}", title=title)


def parse_regulation(markdown: str, doc_id: str) -> list[Unit]:
    """Split an EUR-Lex regulation into recital, article and annex units. Each article records the
    chapter (and section) it sits in as :attr:`Unit.containers`, with their titles."""
    blocks = blocks_of(markdown)
    capitals = capitals_kept(blocks)
    drafts: list[_Draft] = []
    state = "preamble"
    chapter: Container | None = None
    section: Container | None = None
    expect_title: str | None = None
    current: _Draft | None = None

    for block in blocks:
        if state == "preamble":
            if block.startswith("Whereas"):
                state = "recitals"
            continue
        if state == "recitals":
            if block.startswith("HAVE ADOPTED THIS "):  # REGULATION, DIRECTIVE or DECISION
                state, current = "body", None
                continue
            m = _RECITAL.match(block)
            if m:
                current = _Draft(f"recital-{m.group(1)}", "recital", f"Recital ({m.group(1)})")
                drafts.append(current)
                current.blocks.append(block[m.end():])
            elif current is not None:
                current.blocks.append(block)
            continue
        if block in _END_OF_BODY or (state == "body" and _ANNEX.match(block)):
            # the annexes follow the signatures: a "* * *" rule in the EUR-Lex markdown, else the first annex heading
            state, current, expect_title = "annexes", None, None
            if block in _END_OF_BODY:
                continue
        if state == "body":
            if m := _CHAPTER.match(block):
                chapter, section, expect_title = _chapter(m.group(1)), None, "chapter"
                current = None
                continue
            if (m := _SECTION.match(block)) and chapter is not None:
                section, expect_title = _section(chapter, m.group(1)), "section"
                current = None
                continue
            if m := _ARTICLE.match(block):
                current = _Draft(f"article-{m.group(1)}", "article", f"Article {m.group(1)}",
                                 containers=[c for c in (chapter, section) if c is not None])
                drafts.append(current)
                expect_title = "article"
                continue
            if expect_title == "chapter" and chapter is not None:
                chapter = chapter.model_copy(update={"title": heading_title(block, capitals)})
                expect_title = None
                continue
            if expect_title == "section" and section is not None:
                section = section.model_copy(update={"title": heading_title(block, capitals)})
                expect_title = None
                continue
            if expect_title == "article" and current is not None:
                current.title = block
                expect_title = None
                continue
            if current is not None:
                current.blocks.append(block)
            continue
        if state == "annexes":
            if m := _ANNEX.match(block):
                numeral = m.group(1) or "I"
                n = roman_to_int(numeral)
                current = _Draft(f"annex-{n}", "annex", f"Annex {m.group(1) or ''}".strip(), meta={"roman": numeral})
                drafts.append(current)
                expect_title = "annex"
                continue
            if expect_title == "annex" and current is not None:
                current.title = block
                expect_title = None
                continue
            if current is not None:
                current.blocks.append(block)
    # The signature block after the last article ("Done at Brussels ...") is not law.
    for d in drafts:
        if d.kind == "article":
            for i, b in enumerate(d.blocks):
                if b.startswith("Done at "):
                    d.blocks = d.blocks[:i]
                    break
    return [_build_unit(d, doc_id) for d in drafts if d.blocks]


class _EurLexAdapter:
    name: ClassVar[str]
    needs_path: ClassVar[bool] = True
    title: ClassVar[str]
    filename: ClassVar[str]

    def load(self, path: Path | None) -> ParsedCorpus:
        file = self._locate(path)
        units = parse_regulation(read_text(file), doc_id=self.name)
        if not any(u.kind == "article" for u in units):
            raise AdapterError(f"{file} has no 'Article N' headings; is it the EUR-Lex markdown of a regulation?")
        doc = Document(doc_id=self.name, title=self.title, source=str(file), sha256=sha256_file(file))
        refs = expand([r for u in units for r in extract_references(u)], members(units))
        return ParsedCorpus(documents=[doc], units=units, references=refs)

    def references_in(self, text: str, corpus: ParsedCorpus) -> list[Reference]:
        """References written in a question (``Article 6(2)``, ``annex iii``), read with the same
        grammar as the act's own text; offsets and ``raw`` are the question's."""
        probe = capitalise_keywords(text, r"articles?|annex(?:es)?|chapters?|sections?")
        # "Chapter II", "Section 2 of Chapter III": a container, read as the act's text reads it
        # and expanded to its member units (each keeps the container's id).
        found = expand(extract_references(question_unit(probe)), members(corpus.units))
        return [r.model_copy(update={"raw": text[r.start:r.end]}) for r in found]

    def _locate(self, path: Path | None) -> Path:
        if path is None:
            raise AdapterError(f"the {self.name} adapter needs the markdown file or its folder: --path PATH")
        if not path.exists():
            raise AdapterError(f"{path} does not exist; give the {self.name} markdown file or its folder with --path.")
        if path.is_dir():
            found = sorted(path.glob("*.md"))
            if not found:
                raise AdapterError(f"{path} holds no .md file for the {self.name} adapter; nothing was ingested.")
            return found[0]
        return path


class AIActAdapter(_EurLexAdapter):
    name = "aiact"
    needs_path = False
    title = "Regulation (EU) 2024/1689 (Artificial Intelligence Act)"

    def _locate(self, path: Path | None) -> Path:
        if path is not None:
            return super()._locate(path)
        return Path(str(resources.files("ingest") / "data" / "aiact" / "eu-ai-act-full.md"))


class GDPRAdapter(_EurLexAdapter):
    name = "gdpr"
    title = "Regulation (EU) 2016/679 (General Data Protection Regulation)"
