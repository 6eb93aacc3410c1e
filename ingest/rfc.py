"""IETF RFCs as plain text (``rfc6749.txt``), the layout the RFC Editor publishes.

One document and one unit (kind ``file``) per RFC: ``rfc-6749``. The unit text opens with the
front matter, the header block's cells one a line (``Request for Comments: 6749``, the
authors, ``October 2012``) and the title, so the publication date and the authors can be
quoted; the body follows from the first heading after the title (``Abstract``), with the page furniture removed:
footers (``Hardt  Standards Track  [Page 5]``), form feeds and running headers
(``RFC 6749  OAuth 2.0  October 2012``). The body's common indentation is removed, so
headings and paragraphs both start in column 0 of the stored text.

Parts are the numbered sections found in column 0 of the source (``4.1.2``,
``Appendix A`` as ``"A"``, ``A.1``), nested by depth. Table-of-contents lines are indented
in the source, so they never become parts; unnumbered headings (``Acknowledgements``,
``Authors' Addresses``) close the open parts.

References: ``Section 4.1.2`` and ``Appendix A`` (this RFC), ``Sections 4.1 and 4.2``,
``Section 5 of [RFC7515]`` / ``Section 5 of RFC 7515`` / ``[RFC6749], Section 2.1``
(that RFC), ``[RFC6749]`` and ``RFC 6749`` (the RFC as a whole). Named citations such as
``[JWS]`` are resolved through the document's own reference list (``[JWS] ... RFC 7515``).
A section of a cited document that is not an RFC (``Section 2.3.5 of SEC1 [SEC1]``) is
kept with no target, so it counts as unresolved instead of pointing at this RFC.
"""

from __future__ import annotations

import logging
import re
from collections import Counter
from pathlib import Path
from typing import ClassVar

from anchor_core.errors import AdapterError
from anchor_core.models import Document, ParsedCorpus, Part, Reference, Unit
from ingest.base import QUESTION_UNIT, capitalise_keywords, part_at, question_unit, read_text, require_dir, sha256_file

log = logging.getLogger(__name__)

_FOOTER = re.compile(r"^\S.*\s\[Page \d+\]$")
_HEADER = re.compile(r"^RFC \d+\s{2,}.*\S\s{2,}.*\d{4}$")
_NUMBER = re.compile(r"^Request for Comments:\s*(\d+)", re.M)
_MONTH_YEAR = re.compile(
    r"\b(?:January|February|March|April|May|June|July|August|September|October|November|December)"
    r"(?: \d{1,2},)? \d{4}\b")
_HEADING = re.compile(
    r"^(?P<app>Appendix\s+)?(?P<num>(?:\d+|[A-Z])(?:\.\d+)*)(?P<dot>\.?)\s+(?P<title>\S.*)$")
_DOT_LEADER = re.compile(r"(?:\.\s?){4,}\s*\d+$")
_ENTRY = re.compile(r"^\[(?P<tag>[^\]\s]+)\](?:[ \t]{2,}|\n[ \t]+)\S.*(?:\n[ \t]+\S.*)*", re.M)

_GUARD = r"(?![\w'-]|\.[A-Za-z0-9])"
_SEP = r"(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or|through|to)\s+|\s*-\s*)"
# A section number may carry its title in parentheses: Section 15.12 ("The JSON Object").
_TITLE = r'(?:\s*\("[^"()]*"\)|\s+\([A-Z][^()]*\))?'
_SNUM = rf"(?:\d+(?:\.\d+)*|[A-Z](?:\.\d+)+){_GUARD}{_TITLE}"
_ANUM = rf"[A-Z](?:\.\d+)*{_GUARD}{_TITLE}"


def _cite(p: str) -> str:
    return rf"(?:\[(?P<{p}tag>[^\]\s]+)\]|RFC\s?(?P<{p}rfc>\d+)(?!\d))"


_REF = re.compile(
    rf"(?:{_cite('p')},?\s+)?"
    rf"(?:Sections?\s+(?P<sitems>{_SNUM}(?:{_SEP}{_SNUM})*)"
    rf"|(?:Appendix|Appendices|Appendixes)\s+(?P<aitems>{_ANUM}(?:{_SEP}{_ANUM})*))"
    r"(?:\s+of\s+(?:(?P<self>[Tt]his\s+(?:document|specification|memo|RFC)\b)"
    rf"|(?:[^\s\[\],;:()]*[^\s\[\].,;:()]\s+){{0,5}}?{_cite('o')}(?:\s+\[RFC\s?\d+\])?"
    r"|(?P<other>that\s+(?:document|specification)\b)"
    r"|(?P<bare>[A-Z][\w.-]*[A-Za-z0-9])))?"
    r"|\[(?P<tag>[^\]\s]+)\]"
    r"|(?<![/\w.-])RFCs?\s?(?P<rfcs>\d+(?:(?:\s*,\s*(?:and\s+|or\s+)?|\s+(?:and|or)\s+)\d+)*)(?!\d)"
)
_ITEM = re.compile(r"\d+(?:\.\d+)*|[A-Z](?:\.\d+)*")


def remove_furniture(lines: list[str]) -> list[str]:
    """Drop page footers, form feeds and running headers with the blank padding around them.

    A paragraph that runs over a page break is rejoined; a break that falls between
    paragraphs keeps one blank line. Which case applies is guessed from the line before
    the break: the generators pad every page, so the blank lines themselves say nothing.
    """
    out: list[str] = []
    in_break = False
    for raw in lines:
        line = raw.replace("\f", "").rstrip()
        if "\f" in raw:
            in_break = True
        if _FOOTER.match(line):
            while out and not out[-1]:
                out.pop()
            in_break = True
            continue
        if in_break and (not line or _HEADER.match(line)):
            continue
        if in_break and out:
            prev = out[-1]
            if prev[:1] != " " or line[:1] != " " or prev.endswith((".", ":", "!", "?")):
                out.append("")
        in_break = False
        out.append(line)
    return out


def front_text(lines: list[str], head_end: int, title_lines: list[str]) -> str:
    r"""The header block and the title as the unit's first lines: the header's left column, one cell a line
    (``Request for Comments: 6749``, ``Category: Standards Track``), then its right column (the authors, their
    organisations and the publication date, ``October 2012``), then the title. Each line is a cell of the
    source as written, so a quote of the date or an author is the source's own text.

    >>> front_text(["IETF                     D. Hardt, Ed.",
    ...             "Request for Comments: 6749   Microsoft",
    ...             "                          October 2012"], 3, ["The OAuth 2.0 Framework"]).split("\n")
    ['IETF', 'Request for Comments: 6749', 'D. Hardt, Ed.', 'Microsoft', 'October 2012', '', 'The OAuth 2.0 Framework']
    """
    left: list[str] = []
    right: list[str] = []
    for ln in lines[:head_end]:
        cells = re.split(r"\s{2,}", ln.rstrip())
        if ln[:1].isspace():  # an empty left column: the line is the right column's
            right.extend(c for c in cells if c)
            continue
        left.append(cells[0])
        right.extend(c for c in cells[1:] if c)
    return "\n".join([*left, *right, "", *title_lines])


# an author cell of the header: initials and a surname, maybe an editor's mark ("D. Hardt, Ed.", "N. Sakimura")
_AUTHOR = re.compile(r"(?:[A-Z][a-z]?\.\s?)+(?:-[A-Z]\.\s?)?\s*(?:[a-z]+\s)?[A-Z][\w'’-]+(?:\s[A-Z][\w'’-]+)?"
                     r"(?:,\s*Ed\.)?")


def author_cells(front: str) -> list[list[int]]:
    r"""``[start, end]`` of each author cell of the front text (its lines that are initials and a surname).

    >>> f = "IETF\nRequest for Comments: 6750\nM. Jones\nMicrosoft\nD. Hardt, Ed.\nIndependent\nOctober 2012"
    >>> [f[a:b] for a, b in author_cells(f)]
    ['M. Jones', 'D. Hardt, Ed.']
    """
    out: list[list[int]] = []
    at = 0
    for line in front.split("\n"):
        if _AUTHOR.fullmatch(line):
            out.append([at, at + len(line)])
        at += len(line) + 1
    return out


def date_cell(front: str, date: str) -> list[int] | None:
    r"""``[start, end]`` of the publication date's cell in the front text (the last cell that is the date).

    >>> f = "IETF\nRequest for Comments: 6749\nD. Hardt\nOctober 2012\n\nThe OAuth 2.0 Framework"
    >>> a, b = date_cell(f, "October 2012"); f[a:b]
    'October 2012'
    """
    at = front.rfind(f"\n{date}\n") if date else -1
    return [at + 1, at + 1 + len(date)] if at >= 0 else None


def _front_matter(lines: list[str], path: Path) -> tuple[int, str, dict[str, str], int, str]:
    """RFC number, title, header fields, the index of the first body line and the front matter's text
    (:func:`front_text`)."""
    head_end = next((i for i, ln in enumerate(lines) if not ln.strip()), len(lines))
    header = "\n".join(lines[:head_end])
    m = _NUMBER.search(header)
    fname = re.fullmatch(r"rfc0*(\d+)\.txt", path.name.lower())
    found = m or fname
    if found is None:
        raise AdapterError(f"{path} is not an RFC: its header has no 'Request for Comments: N' line "
                           "and its name is not rfcNNNN.txt. Remove it from the folder.")
    number = int(found.group(1))
    fields: dict[str, str] = {}
    for ln in lines[:head_end]:
        left = re.split(r"\s{2,}", ln.strip())[0]
        key, sep, value = left.partition(":")
        if sep and key != "Request for Comments":
            fields[key.strip().lower()] = value.strip()
        date = _MONTH_YEAR.search(ln)
        if date:
            fields["date"] = date.group(0)
    i = head_end
    while i < len(lines) and not lines[i].strip():
        i += 1
    title_lines = []
    while i < len(lines) and lines[i].strip():
        title_lines.append(lines[i].strip())
        i += 1
    while i < len(lines) and (not lines[i].strip() or lines[i].startswith(" ")):
        i += 1
    if i >= len(lines):
        raise AdapterError(f"{path} has no section headings after its title; is it an RFC in the "
                           "RFC Editor's plain-text layout?")
    return number, " ".join(title_lines), fields, i, front_text(lines, head_end, title_lines)


def _heading(line: str) -> tuple[str, str, bool] | None:
    """``(label, title, complete)`` for a numbered heading line in column 0."""
    m = _HEADING.match(line)
    if not m or _DOT_LEADER.search(line):
        return None
    num = m.group("num")
    if num.isalpha() and not (m.group("app") or m.group("dot")):
        return None
    title, *rest = re.split(r"\s{3,}", m.group("title"), maxsplit=1)
    return num, title, bool(rest)


def parse_body(lines: list[str]) -> tuple[str, list[Part], list[int], tuple[int, int]]:
    """Unit text, nested parts, heading start offsets and the table-of-contents span."""
    indents = Counter(len(ln) - len(ln.lstrip()) for ln in lines if ln.strip() and ln[0] == " ")
    common = indents.most_common(1)[0][0] if indents else 0
    out: list[str] = []
    pos = 0
    parts: list[Part] = []
    open_parts: list[tuple[int, Part]] = []
    heading_starts: list[int] = []
    toc = [-1, -1]
    title_part: Part | None = None

    def close(level: int) -> None:
        while open_parts and open_parts[-1][0] >= level:
            open_parts.pop()[1].end = pos

    for line in lines:
        if not line.strip():
            title_part = None
            if out and out[-1]:
                out.append("")
                pos += 1
            continue
        if line[0] != " ":
            title_part = None
            if toc[0] >= 0 and toc[1] < 0:
                toc[1] = pos
            head = _heading(line)
            if head is None:
                close(0)
                if line.strip().lower() == "table of contents":
                    toc[0] = pos
            else:
                label, title, complete = head
                level = label.count(".") + 1
                close(level)
                part = Part(label=label, title=title, start=pos, end=pos)
                parts.append(part)
                open_parts.append((level, part))
                heading_starts.append(pos)
                title_part = None if complete else part
        elif title_part is not None:
            title_part.title = f"{title_part.title} {line.strip()}"
        indent = len(line) - len(line.lstrip())
        line = line[common:] if indent >= common else line
        out.append(line)
        pos += len(line) + 1
    close(0)
    text = "\n".join(out).rstrip()
    for p in parts:
        p.end = min(p.end, len(text))
        while p.end > p.start and text[p.end - 1].isspace():
            p.end -= 1
    if toc[0] < 0:  # no table of contents: no span to skip (was: the whole text, so no reference was kept)
        return text, parts, heading_starts, (0, 0)
    return text, parts, heading_starts, (toc[0], toc[1] if toc[1] >= 0 else len(text))


def citation_map(text: str) -> tuple[dict[str, int], list[tuple[int, int]]]:
    """Citation tags of the reference list that name an RFC (``JWS`` → 7515), and the
    spans of the reference entries."""
    tags: dict[str, int] = {}
    spans: list[tuple[int, int]] = []
    for m in _ENTRY.finditer(text):
        spans.append((m.start(), m.end()))
        tag = m.group("tag")
        own = re.fullmatch(r"RFC\s?(\d+)", tag)
        cited = own or re.search(r"(?<![/\w.-])RFC\s?(\d+)(?!\d)", m.group(0)[len(tag) + 2:])
        if cited:
            tags[tag] = int(cited.group(1))
    return tags, spans


def _resolve(tag: str | None, number: str | None, tags: dict[str, int]) -> str | None:
    if number:
        return f"rfc-{int(number)}"
    own = re.fullmatch(r"RFC\s?(\d+)", tag or "")
    if own:
        return f"rfc-{int(own.group(1))}"
    return f"rfc-{tags[tag]}" if tag in tags else None


def extract_references(unit: Unit, heading_starts: list[int], toc: tuple[int, int]) -> list[Reference]:
    """All references in ``unit.text`` outside the table of contents."""
    text = unit.text
    tags, entries = citation_map(text)
    starts = set(heading_starts)
    refs: list[Reference] = []

    def add(m: re.Match[str], dst: str | None, part: str | None) -> None:
        refs.append(Reference(src_unit=unit.unit_id, src_part=part_at(unit, m.start()), start=m.start(),
                              end=m.end(), raw=m.group(0), dst_unit=dst, dst_part=part))

    for m in _REF.finditer(text):
        if toc[0] <= m.start() < toc[1] or m.start() in starts:
            continue
        items = m.group("sitems") or m.group("aitems")
        if items:
            if m.group("otag") or m.group("orfc"):
                dst = _resolve(m.group("otag"), m.group("orfc"), tags)
            elif m.group("other"):
                dst = None
            elif m.group("bare"):
                dst = _resolve(m.group("bare"), None, tags)
            elif m.group("ptag") or m.group("prfc"):
                dst = _resolve(m.group("ptag"), m.group("prfc"), tags)
            else:
                dst = unit.unit_id
            if dst is None:
                add(m, None, None)
                continue
            for label in _ITEM.findall(re.sub(r"\([^()]*\)", "", items)):
                add(m, dst, label)
        elif m.group("tag"):
            dst = _resolve(m.group("tag"), None, tags)
            if dst:
                add(m, dst, None)
        elif not any(s <= m.start() < e for s, e in entries):
            # Inside a reference entry, "RFC 6749" repeats the entry's own [RFC6749] tag.
            for number in re.findall(r"\d+", m.group("rfcs")):
                add(m, f"rfc-{int(number)}", None)
    return refs


class RfcAdapter:
    name: ClassVar[str] = "rfc"
    needs_path: ClassVar[bool] = True

    def load(self, path: Path | None) -> ParsedCorpus:
        files = require_dir(path, self.name, "*.txt")
        documents: list[Document] = []
        units: list[Unit] = []
        references: list[Reference] = []
        seen: dict[int, Path] = {}
        for file in files:
            raw = read_text(file).replace("\r\n", "\n").replace("\r", "\n").expandtabs(8)
            lines = remove_furniture(raw.split("\n"))
            number, title, fields, body_start, front = _front_matter(lines, file)
            if number in seen:
                raise AdapterError(f"{file} and {seen[number]} are both RFC {number}; keep one of them.")
            seen[number] = file
            body, parts, heading_starts, toc = parse_body(lines[body_start:])
            # the front matter (header and title) opens the text, so its date and authors can be quoted
            shift = len(front) + 2
            text = f"{front}\n\n{body}"
            parts = [p.model_copy(update={"start": p.start + shift, "end": p.end + shift}) for p in parts]
            heading_starts = [h + shift for h in heading_starts]
            toc = (toc[0] + shift, toc[1] + shift) if toc != (0, 0) else toc
            uid = f"rfc-{number}"
            meta = {"number": number, **fields}
            # where the header's date and authors are in the unit text: a question about when this RFC was
            # published, or who wrote it, is answered by quoting them (anchor_core.ask.dated)
            cell = date_cell(front, fields.get("date", ""))
            authors = author_cells(front)
            header = {"unit": uid, "label": f"RFC {number}", "date": cell, "authors": authors,
                      "author_names": [front[a:b] for a, b in authors]}
            doc_meta = {**meta, "front": header} if cell or authors else meta
            documents.append(Document(doc_id=uid, title=title, source=str(file),
                                      sha256=sha256_file(file), meta=doc_meta))
            unit = Unit(unit_id=uid, doc_id=uid, kind="file", heading=f"RFC {number}", title=title,
                        text=text, parts=parts, meta=dict(meta))
            units.append(unit)
            references.extend(extract_references(unit, heading_starts, toc))
        log.info("rfc: %d units, %d parts, %d references", len(units),
                 sum(len(u.parts) for u in units), len(references))
        return ParsedCorpus(documents=documents, units=units, references=references)

    def references_in(self, text: str, corpus: ParsedCorpus) -> list[Reference]:
        """RFCs and sections named in a question (``RFC 7636``, ``Section 4.4 of RFC 7233``), read
        with the same grammar as the RFCs' own text. A section with no RFC named
        (``Section 4.1.2``) has no target: the question is not a document of the corpus."""
        probe = capitalise_keywords(text, r"rfcs?|sections?|appendix|appendices", upper=("rfc", "rfcs"))
        refs = extract_references(question_unit(probe), [], (0, 0))
        return [r.model_copy(update={"raw": text[r.start:r.end],
                                     "dst_unit": None if r.dst_unit == QUESTION_UNIT else r.dst_unit})
                for r in refs]
