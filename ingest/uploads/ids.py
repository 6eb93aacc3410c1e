"""Document ids of uploaded files, made from their names.

``Travel Policy.pdf`` → ``travel-policy``: the name without its extension, letters and digits
kept, every other run of characters turned into ``-``. Letters of any script are kept
(NFKC-normalised and case-folded, so ``Договор.md`` → ``договор`` and a decomposed macOS file
name gives the same id as a composed one); a name with no letter or digit at all gets
``document-`` and a short hash of the name. ASCII names give exactly the ids they always did.

An id is also stable across re-uploads: a file whose name is already stored in the corpus gets
that document's id back, whatever the id was derived from when it was stored. Two different
names never share an id, neither inside one batch nor with a stored document of another name:
the later one is given another id deterministically and the caller is told.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import PurePosixPath

from anchor_core.models import Document

_ASCII_RUNS = re.compile(r"[^a-z0-9]+")


def name_slug(text: str) -> str:
    """``Policies/Travel Policy`` → ``policies-travel-policy``; ``Договор`` → ``договор``; ``""`` if
    nothing usable remains. Only letters, digits (any script) and ``-`` appear in the result."""
    if text.isascii():
        return _ASCII_RUNS.sub("-", text.lower()).strip("-")
    out: list[str] = []
    for ch in unicodedata.normalize("NFKC", text).casefold():
        kind = unicodedata.category(ch)[0]
        if kind in "LN" or (kind == "M" and out and out[-1] != "-"):  # a mark belongs to the letter before it
            out.append(ch)
        elif out and out[-1] != "-":
            out.append("-")
    return "".join(out).strip("-")


def _hash(name: str) -> str:
    return hashlib.sha256(unicodedata.normalize("NFKC", name).encode()).hexdigest()[:8]


def _stem(name: str) -> str:
    p = PurePosixPath(name)
    return str(p.with_suffix("")) if p.suffix else name


def base_id(name: str) -> str:
    """The id a file name asks for before collisions are resolved."""
    return name_slug(_stem(name)) or f"document-{_hash(name)}"


def _alternatives(name: str) -> Iterable[str]:
    """Ids to try, in order, when :func:`base_id` is taken by another name."""
    first = base_id(name)
    longer = name_slug(name) if name_slug(_stem(name)) else first
    if longer and longer != first:
        yield longer  # "a/b.md" next to "a-b.md" → "a-b-md", as ids have always been made
    else:
        longer = first
    k = 2
    while True:
        yield f"{longer}-{k}"
        k += 1


@dataclass
class Assigned:
    doc_id: str
    warning: str | None = None
    """Set when the name's own id was taken by another name and this one was chosen instead."""


def _nfc(name: str) -> str:
    return unicodedata.normalize("NFC", name)


def _stored_name(doc: Document) -> str:
    return str(doc.meta.get("file") or doc.source)


def _same_file(doc: Document, name: str) -> bool:
    if doc.meta.get("upload"):
        return _nfc(str(doc.meta.get("file"))) == _nfc(name)
    # Another adapter's document (``ingest/files.py`` stores the path): the same file when the
    # path ends with the uploaded name.
    src, name = _nfc(PurePosixPath(doc.source.replace("\\", "/")).as_posix()), _nfc(name)
    return src == name or src.endswith("/" + name)


def _free(uid: str, name: str, taken: set[str], stored: dict[str, Document]) -> bool:
    doc = stored.get(uid)
    return uid not in taken and (doc is None or _same_file(doc, name))


def doc_ids(names: list[str], stored: dict[str, Document]) -> list[Assigned]:
    """One id per name, in order; ``stored`` are the corpus's documents by id.

    A name stored before keeps its document's id (so it replaces or skips it); every other name
    gets :func:`base_id`, or the first free alternative when that id belongs to another name of the
    batch or of the corpus, with a warning saying so.

    Example:
        >>> [a.doc_id for a in doc_ids(["Договор.md", "Политика.md", "文件.md", "Travel Policy.pdf"], {})]
        ['договор', 'политика', '文件', 'travel-policy']
    """
    by_name: dict[str, str] = {}
    for doc_id, doc in sorted(stored.items()):
        if doc.meta.get("upload") and doc.meta.get("file"):
            by_name.setdefault(_nfc(str(doc.meta["file"])), doc_id)
    out: list[Assigned | None] = [None] * len(names)
    taken: set[str] = set()
    for i, name in enumerate(names):  # stored names first, so a new name cannot take their id
        uid = by_name.get(_nfc(name))
        if uid is not None and uid not in taken:
            out[i] = Assigned(uid)
            taken.add(uid)
    for i, name in enumerate(names):
        if out[i] is not None:
            continue
        uid = base_id(name)
        warning = None
        if not _free(uid, name, taken, stored):
            holder = next((n for n, a in zip(names, out) if a is not None and a.doc_id == uid), None)
            holder = holder or _stored_name(stored[uid])
            wanted, uid = uid, next(c for c in _alternatives(name) if _free(c, name, taken, stored))
            warning = f"the id {wanted!r} already belongs to {holder}, so this file is stored as {uid!r}"
        out[i] = Assigned(uid, warning)
        taken.add(uid)
    return [a for a in out if a is not None]
