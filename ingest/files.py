"""A folder of plain ``.txt`` and ``.md`` files: one document and one unit per file.

Parts come from the file's own headings (markdown ``#`` headings, or numbered headings like
``4.2 Records`` in plain text), so ``Section 4.2`` and links between files can be followed.
The text is kept as written (only line endings are normalised) so offsets stay honest.
"""

from __future__ import annotations

import logging
import re
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from anchor_core.errors import AdapterError
from anchor_core.models import Document, ParsedCorpus, Part, Reference, Unit
from ingest.base import part_at, read_text, require_dir, sha256_file

log = logging.getLogger(__name__)

SUFFIXES = (".md", ".txt")
_MD_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)(?:[ \t]+#+)?[ \t]*$", re.M)
_FENCE = re.compile(r"^[ \t]*(```|~~~)", re.M)
# "4.2 Records" or "1. Scope": a short capitalised line, not a numbered sentence.
_TXT_HEADING = re.compile(r"^(\d{1,3}(?:\.\d{1,3})*)\.?[ \t]+([A-Z][^\n.:;]{0,70})[ \t]*$", re.M)
_NUMBERED = re.compile(r"^(\d+(?:\.\d+)*)\.?[ \t]+(.*)$")
_SECTION = re.compile(r"\b[Ss]ection[ \t]+(\d+(?:\.\d+)*)(?![\d.]*\d)")
_LINK = re.compile(r"\[([^\]\n]*)\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")


def slug(rel: PurePosixPath) -> str:
    """``policies/travel.md`` -> ``policies-travel``."""
    s = re.sub(r"[^a-z0-9]+", "-", str(rel.with_suffix("")).lower()).strip("-")
    return s or "file"


def _fenced_spans(text: str) -> list[tuple[int, int]]:
    """Spans of fenced code blocks, whose ``# comment`` lines are not headings."""
    spans, opened = [], None
    for m in _FENCE.finditer(text):
        if opened is None:
            opened = m
        elif m.group(1) == opened.group(1):
            spans.append((opened.start(), m.end()))
            opened = None
    if opened is not None:
        spans.append((opened.start(), len(text)))
    return spans


def _headings(text: str, markdown: bool) -> list[tuple[int, int, str, str, str]]:
    """``(offset, depth, label, title, heading text)`` for every heading line, in order."""
    out = []
    if markdown:
        fenced = _fenced_spans(text)
        for m in _MD_HEADING.finditer(text):
            if any(a <= m.start() < b for a, b in fenced):
                continue
            title = m.group(2).strip()
            num = _NUMBERED.match(title)
            # "## 4.2 Records" is cited as "Section 4.2"; other headings by their text.
            if num and num.group(2):
                out.append((m.start(), len(m.group(1)), num.group(1), num.group(2).strip(), title))
            else:
                out.append((m.start(), len(m.group(1)), title, title, title))
    else:
        for m in _TXT_HEADING.finditer(text):
            out.append((m.start(), m.group(1).count(".") + 1, m.group(1), m.group(2).strip(), m.group(0)))
    return out


def _parts(text: str, heads: list[tuple[int, int, str, str, str]]) -> list[Part]:
    """Nested parts: each heading's section runs to the next heading of the same or a
    higher level, so a ``##`` part contains its ``###`` parts."""
    parts: list[Part] = []
    seen: dict[str, int] = {}
    for i, (start, depth, label, title, _) in enumerate(heads):
        end = next((h[0] for h in heads[i + 1:] if h[1] <= depth), len(text))
        end = start + len(text[start:end].rstrip())
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} ({seen[label]})"
        parts.append(Part(label=label, start=start, end=end, title=title))
    return parts


class FilesAdapter:
    name = "files"
    needs_path = True

    def load(self, path: Path | None) -> ParsedCorpus:
        files = self._files(path)
        assert path is not None
        root = path if path.is_dir() else path.parent
        texts: dict[Path, str] = {}
        for f in files:  # read all first: one unreadable file stops the ingest, naming it
            text = read_text(f).replace("\r\n", "\n").replace("\r", "\n").removeprefix("\ufeff")
            if not text.strip():
                log.warning("skipping %s: the file is empty", f)
                continue
            texts[f] = text
        if not texts:
            raise AdapterError(f"{path} holds only empty .txt/.md files: no text to ingest.")

        ids: dict[Path, str] = {}
        taken: set[str] = set()
        for f in texts:
            base = uid = slug(PurePosixPath(f.relative_to(root).as_posix()))
            n = 1
            while uid in taken:  # "a/b.md" and "a-b.md" both slug to "a-b"
                n += 1
                uid = f"{base}-{n}"
            taken.add(uid)
            ids[f] = uid

        by_path = {f.resolve(): uid for f, uid in ids.items()}
        documents, units, refs = [], [], []
        for f, text in texts.items():
            markdown = f.suffix.lower() == ".md"
            heads = _headings(text, markdown)
            title = next((h[4] for h in heads if h[1] == 1), "") if markdown else ""
            rel = f.relative_to(root).as_posix()
            documents.append(Document(doc_id=ids[f], title=title or f.stem, source=str(f),
                                      sha256=sha256_file(f)))
            unit = Unit(unit_id=ids[f], doc_id=ids[f], kind="file", heading=f.stem, title=title, text=text,
                        parts=_parts(text, heads), meta={"path": rel})
            units.append(unit)
            refs.extend(self._refs(unit, f, by_path))
        return ParsedCorpus(documents=documents, units=units, references=refs)

    def _files(self, path: Path | None) -> list[Path]:
        if path is None or not path.exists():
            require_dir(path, self.name, "*.md")  # raises the "give a folder" message
        assert path is not None
        root = path if path.is_dir() else path.parent
        keep = []
        for f in [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file()):
            rel = f.relative_to(root)
            if any(p.startswith(".") for p in rel.parts):
                continue  # .git, .DS_Store and friends are not documents
            if f.suffix.lower() in SUFFIXES:
                keep.append(f)
            else:
                log.warning("ignoring %s: only .txt and .md files are read", rel)
        if not keep:
            raise AdapterError(f"{path} holds no .txt or .md files for the {self.name} adapter; "
                               "nothing was ingested.")
        return keep

    @staticmethod
    def _refs(unit: Unit, f: Path, by_path: dict[Path, str]) -> list[Reference]:
        labels = {p.label for p in unit.parts}
        refs: list[Reference] = []

        def add(m: re.Match[str], dst_unit: str | None, dst_part: str | None = None) -> None:
            refs.append(Reference(src_unit=unit.unit_id, src_part=part_at(unit, m.start()), start=m.start(),
                                  end=m.end(), raw=m.group(0), dst_unit=dst_unit, dst_part=dst_part))

        for m in _SECTION.finditer(unit.text):
            # A section this file does not have stays unresolved rather than pointing nowhere.
            if m.group(1) in labels:
                add(m, unit.unit_id, m.group(1))
            else:
                add(m, None)
        for m in _LINK.finditer(unit.text):
            target = unquote(m.group(2).split("#", 1)[0])
            if not target or re.match(r"^[a-z][a-z0-9+.-]*:", target, re.I):
                continue  # same-page anchors and web links are not corpus references
            if Path(target).suffix.lower() not in SUFFIXES:
                continue
            add(m, by_path.get((f.parent / target).resolve()))
        return refs
