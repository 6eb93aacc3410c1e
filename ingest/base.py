"""Shared pieces for corpus adapters.

An adapter answers three questions about a corpus: where the documents are, how they
split into units (with numbered parts), and what a reference looks like. It returns a
:class:`~anchor_core.models.ParsedCorpus`; chunking, reference resolution, embedding and
storage are done by :mod:`anchor_core.ingest` the same way for every adapter.
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import ClassVar, Protocol

from anchor_core.errors import AdapterError
from anchor_core.models import ParsedCorpus, Part, Reference, Unit


class Adapter(Protocol):
    name: ClassVar[str]
    needs_path: ClassVar[bool]

    def load(self, path: Path | None) -> ParsedCorpus: ...


def sha256_text(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def sha256_file(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def read_text(path: Path) -> str:
    """Read a UTF-8 text file, with an actionable error if it cannot be read."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as err:
        raise AdapterError(f"{path} is not UTF-8 text ({err.reason} at byte {err.start}); "
                           "convert it to UTF-8 or remove it from the folder.") from err
    except OSError as err:
        raise AdapterError(f"cannot read {path}: {err.strerror}. Check the path and its permissions.") from err


def require_dir(path: Path | None, adapter: str, pattern: str) -> list[Path]:
    """Files matching ``pattern`` under ``path``, or an error saying what is wrong."""
    if path is None:
        raise AdapterError(f"the {adapter} adapter needs a folder: anchor ingest {adapter} --path DIR")
    if not path.exists():
        raise AdapterError(f"{path} does not exist; give the folder that holds the {adapter} files with --path.")
    if path.is_file():
        files = [path]
    else:
        files = sorted(p for p in path.rglob(pattern) if p.is_file())
    if not files:
        raise AdapterError(f"{path} holds no {pattern} files for the {adapter} adapter; nothing was ingested.")
    return files


def part_at(unit: Unit, offset: int) -> str | None:
    """Label of the innermost part of ``unit`` that contains ``offset`` (None if none)."""
    best: Part | None = None
    for p in unit.parts:
        if p.start <= offset < p.end and (best is None or p.end - p.start < best.end - best.start):
            best = p
    return best.label if best else None


_WS = re.compile(r"[ \t\u00a0\u200e\u200f]+")


def tidy(text: str) -> str:
    """Collapse runs of spaces (not newlines) and strip each line."""
    lines = [_WS.sub(" ", line).strip() for line in text.split("\n")]
    return "\n".join(lines).strip()


def find_refs(unit: Unit, pattern: re.Pattern[str], target) -> list[Reference]:
    """Run ``pattern`` over the unit text; ``target(match)`` returns ``(dst_unit, dst_part)``
    or None to skip the match. Each reference records its source part and offsets."""
    refs: list[Reference] = []
    for m in pattern.finditer(unit.text):
        t = target(m)
        if t is None:
            continue
        dst_unit, dst_part = t
        refs.append(Reference(src_unit=unit.unit_id, src_part=part_at(unit, m.start()),
                              start=m.start(), end=m.end(), raw=m.group(0),
                              dst_unit=dst_unit, dst_part=dst_part))
    return refs


QUESTION_UNIT = "question"
"""``src_unit`` of the references an adapter finds in a question (``references_in``)."""


def question_unit(text: str) -> Unit:
    """A question dressed as a unit, so an adapter's own reference grammar can run over it;
    references found in it have ``src_unit == QUESTION_UNIT`` and offsets into ``text``."""
    return Unit(unit_id=QUESTION_UNIT, doc_id="", kind="passage", heading="", text=text)


def capitalise_keywords(text: str, keywords: str, upper: tuple[str, ...] = ()) -> str:
    """``text`` with each keyword of the regex alternation ``keywords`` written the way a corpus
    writes it (``upper`` ones in capitals) and a roman numeral right after it in capitals:
    ``annex iii`` -> ``Annex III``, ``pep 8`` -> ``PEP 8``. Same length as ``text``, so offsets
    found in the result hold for the original."""
    def fix(m: re.Match[str]) -> str:
        word, num = m.group("kw"), m.group("num")
        word = word.upper() if word.lower() in upper else word[:1].upper() + word[1:].lower()
        return word + m.group("sp") + (num.upper() if re.fullmatch(r"[ivxlc]+", num, re.I) else num)

    return re.sub(rf"\b(?P<kw>{keywords})\b(?P<sp>\s*)(?P<num>[ivxlc]+\b|\d*)", fix, text, flags=re.I)
