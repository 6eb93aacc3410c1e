"""Python Enhancement Proposals as reStructuredText files (``pep-0008.rst``).

One document and one unit (kind ``file``) per PEP: ``pep-8``. The unit text is the body
after the RFC-822 style header, with heading adornment lines (``=====``) dropped and runs
of blank lines collapsed, so it reads as plain text while inline markup stays verbatim.
Every section, at any depth, is a part labelled with its title as written; a subsection
part lies inside its parent's range.

References: ``PEP 8``, ``PEPs 8 and 257``, ``:pep:`257```, ``:pep:`text <7>``` and
``:pep:`8#anchor``` (the anchor becomes the part when it is the slug of exactly one
section title of the target PEP). Header fields such as ``Replaces: 3000`` are not body
text, so they never produce references.
"""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import ClassVar

from anchor_core.errors import AdapterError
from anchor_core.models import Document, ParsedCorpus, Part, Reference, Unit
from ingest.base import capitalise_keywords, part_at, question_unit, read_text, require_dir, sha256_file

log = logging.getLogger(__name__)

_FIELD = re.compile(r"^([A-Za-z][A-Za-z0-9-]*):[ \t]*(.*)$")
# Any punctuation character docutils accepts as a section adornment, repeated.
_ADORN = re.compile(r"""^([!-/:-@\[-`{-~])\1{2,}[ \t]*$""")
_NUM = r"\d{1,4}(?![\d.]\d|\w)"
_REF = re.compile(
    r":pep:`(?P<role>[^`]*)`"
    rf"|\bPEPs[ \t]*\n?[ \t]*(?P<list>{_NUM}(?:(?:[ \t]*,[ \t]*|,?\s+(?:and|or)\s+){_NUM})*)"
    rf"|\bPEP(?:-|[ \t]*\n?[ \t]*)(?P<one>{_NUM})"
)
_ROLE_TARGET = re.compile(r"(?:^|<)\s*(\d+)(?:#([\w.-]+))?\s*>?\s*$")


def slug(title: str) -> str:
    """The id docutils gives a section title, which ``:pep:`8#anchor``` links use."""
    return re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")


@dataclass
class _Pep:
    number: int
    fields: dict[str, str]
    text: str
    parts: list[Part] = field(default_factory=list)


def parse_header(lines: list[str], path: Path) -> tuple[dict[str, str], int]:
    """Header fields and the index of the first body line; AdapterError if not a PEP."""
    fields: dict[str, str] = {}
    key = None
    i = 0
    while i < len(lines) and not lines[i].strip():
        i += 1
    while i < len(lines) and lines[i].strip():
        line = lines[i]
        m = _FIELD.match(line)
        if m and not line[0].isspace():
            key = m.group(1).lower()
            fields[key] = m.group(2).strip()
        elif key is not None and line[0].isspace():
            fields[key] = f"{fields[key]} {line.strip()}".strip()
        else:
            break
        i += 1
    if not re.fullmatch(r"\d+", fields.get("pep", "")):
        raise AdapterError(f"{path} is not a PEP: it has no 'PEP: <number>' header line. "
                           "Remove it from the folder or give the folder of pep-NNNN.rst files.")
    return fields, i


def _heading_at(lines: list[str], i: int) -> tuple[str, str, int] | None:
    """``(title, style, lines used)`` if a section title starts at line ``i``."""
    if i + 1 >= len(lines):
        return None
    over = _ADORN.match(lines[i])
    if over and i + 2 < len(lines):
        title, under = lines[i + 1], _ADORN.match(lines[i + 2])
        if (under and under.group(1) == over.group(1) and title.strip()
                and not _ADORN.match(title) and len(lines[i].rstrip()) >= len(title.strip())):
            return title.strip(), "over" + over.group(1), 3
    title, under = lines[i], _ADORN.match(lines[i + 1])
    if (under and title.strip() and not title[0].isspace() and not _ADORN.match(title)
            and len(lines[i + 1].rstrip()) >= len(title.rstrip())):
        return title.strip(), under.group(1), 2
    return None


def parse_body(lines: list[str]) -> tuple[str, list[Part]]:
    """Readable body text and its nested section parts."""
    out: list[str] = []
    pos = 0
    styles: list[str] = []  # docutils ranks heading styles in order of first use
    open_parts: list[tuple[int, Part]] = []
    parts: list[Part] = []

    def emit(line: str) -> None:
        nonlocal pos
        if not line.strip():
            if not out or not out[-1]:
                return
            line = ""
        out.append(line)
        pos += len(line) + 1

    def close(level: int) -> None:
        while open_parts and open_parts[-1][0] >= level:
            open_parts.pop()[1].end = pos

    i = 0
    while i < len(lines):
        heading = _heading_at(lines, i) if (i == 0 or not lines[i - 1].strip()) else None
        if heading is None:
            emit(lines[i].rstrip())
            i += 1
            continue
        title, style, used = heading
        if style not in styles:
            styles.append(style)
        level = styles.index(style)
        close(level)
        part = Part(label=title, title=title, start=pos, end=pos)
        parts.append(part)
        open_parts.append((level, part))
        emit(title)
        i += used
    close(0)
    text = "\n".join(out).rstrip()
    for p in parts:
        p.end = min(p.end, len(text))
        while p.end > p.start and text[p.end - 1].isspace():
            p.end -= 1
    return text, parts


def _pep(path: Path) -> _Pep:
    lines = read_text(path).replace("\r\n", "\n").replace("\r", "\n").expandtabs(8).split("\n")
    if lines and lines[0].startswith("\ufeff"):
        lines[0] = lines[0][1:]
    fields, body_start = parse_header(lines, path)
    text, parts = parse_body(lines[body_start:])
    # Leading blank lines were skipped by emit(); parts start offsets already match.
    return _Pep(number=int(fields["pep"]), fields=fields, text=text, parts=parts)


def _targets(m: re.Match[str]) -> list[tuple[int, str | None]]:
    if m.group("role") is not None:
        t = _ROLE_TARGET.search(m.group("role"))
        return [(int(t.group(1)), t.group(2))] if t else []
    if m.group("list") is not None:
        return [(int(n), None) for n in re.findall(r"\d+", m.group("list"))]
    return [(int(m.group("one")), None)]


def extract_references(unit: Unit, anchors: dict[str, dict[str, str | None]]) -> list[Reference]:
    """References in ``unit.text``; ``anchors[unit_id][slug]`` names the part an anchor
    points at (None when two sections share the slug, so the link stays unit-level)."""
    refs: list[Reference] = []
    for m in _REF.finditer(unit.text):
        for number, anchor in _targets(m):
            dst = f"pep-{number}"
            part = anchors.get(dst, {}).get(slug(anchor)) if anchor else None
            refs.append(Reference(src_unit=unit.unit_id, src_part=part_at(unit, m.start()),
                                  start=m.start(), end=m.end(), raw=m.group(0),
                                  dst_unit=dst, dst_part=part))
    return refs


class PepsAdapter:
    name: ClassVar[str] = "peps"
    needs_path: ClassVar[bool] = True

    def load(self, path: Path | None) -> ParsedCorpus:
        files = require_dir(path, self.name, "*.rst")
        documents: list[Document] = []
        units: list[Unit] = []
        seen: dict[int, Path] = {}
        for file in files:
            pep = _pep(file)
            if pep.number in seen:
                raise AdapterError(f"{file} and {seen[pep.number]} are both PEP {pep.number}; "
                                   "keep one of them in the folder.")
            seen[pep.number] = file
            uid = f"pep-{pep.number}"
            title = pep.fields.get("title", "")
            meta = {k: pep.fields[k] for k in ("status", "type", "created") if k in pep.fields}
            documents.append(Document(doc_id=uid, title=title, source=str(file),
                                      sha256=sha256_file(file), meta=meta))
            units.append(Unit(unit_id=uid, doc_id=uid, kind="file", heading=f"PEP {pep.number}",
                              title=title, text=pep.text, parts=pep.parts, meta=dict(meta)))
        anchors = section_anchors(units)
        references = [r for unit in units for r in extract_references(unit, anchors)]
        log.info("peps: %d units, %d parts, %d references", len(units),
                 sum(len(u.parts) for u in units), len(references))
        return ParsedCorpus(documents=documents, units=units, references=references)

    def references_in(self, text: str, corpus: ParsedCorpus) -> list[Reference]:
        """PEPs named in a question (``PEP 484``, ``pep 8``, ``:pep:`8#naming```), read with the same
        grammar as the PEPs' own text; offsets and ``raw`` are the question's."""
        probe = capitalise_keywords(text, r"pep", upper=("pep",))
        return [r.model_copy(update={"raw": text[r.start:r.end]})
                for r in extract_references(question_unit(probe), section_anchors(corpus.units))]


def section_anchors(units: list[Unit]) -> dict[str, dict[str, str | None]]:
    """``{unit id: {slug: section label}}``, None for a slug two sections share."""
    anchors: dict[str, dict[str, str | None]] = {}
    for unit in units:
        by_slug: dict[str, str | None] = {}
        for p in unit.parts:
            s = slug(p.label)
            by_slug[s] = None if s in by_slug else p.label
        anchors[unit.unit_id] = by_slug
    return anchors
