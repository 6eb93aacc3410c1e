"""Uploaded files → documents, units, chunks, references and vectors, stored atomically.

:func:`ingest_uploads` is what the CLI (``anchor ingest --path``) and the dashboard's upload
page call. Each file is read, checked and extracted on its own: a bad file fails with a
message saying what is wrong and what to do, and the other files of the batch go on. All
files that succeeded are written in one :meth:`Store.replace_documents` transaction, so the
stored corpus moves from one consistent version to the next or not at all. The write touches
the new documents and the stored units whose references they change, not the whole corpus.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import Literal

import numpy as np

from anchor_core.embeddings import Embedder
from anchor_core.errors import AnchorError, CorpusNotFound, StoreError
from anchor_core.indexing import Change, resolve_references, write
from anchor_core.models import Chunk, CorpusInfo, Document, Reference, Unit, utcnow
from anchor_core.stores.base import Store
from ingest.uploads.detect import detect_format
from ingest.uploads.errors import UploadError
from ingest.uploads.estimate import Estimate, estimate
from ingest.uploads.extract import extract
from ingest.uploads.ids import doc_ids
from ingest.uploads.refs import Catalogue, find_references, title_names
from ingest.uploads.structure import chunks_of, split

log = logging.getLogger(__name__)

DEFAULT_MAX_MB = 50.0
Status = Literal["ingested", "replaced", "skipped-identical", "failed"]


@dataclass
class Upload:
    """One file to ingest: its name (may include folders, ``policies/travel.pdf``), its bytes or a
    path to read them from, and access groups for this file alone (added to the batch's groups)."""

    name: str
    data: bytes | None = None
    path: Path | None = None
    groups: list[str] = field(default_factory=list)


@dataclass
class FileResult:
    """What happened to one file."""

    name: str
    status: Status = "failed"
    doc_id: str = ""
    format: str = ""
    version: int = 0
    pages: int = 0
    units: int = 0
    chunks: int = 0
    references: int = 0
    """References written in this document that resolve to a unit of the corpus."""
    unresolved: int = 0
    structure_found: bool = False
    structure: str = ""
    warnings: list[str] = field(default_factory=list)
    repairs: dict[str, int] = field(default_factory=dict)
    error: str | None = None
    sha256: str = ""
    size: int = 0
    timings: dict[str, float] = field(default_factory=dict)
    """Seconds spent on this file: ``read``, ``extract`` (text, repair, structure), ``embed``."""
    estimate: Estimate | None = None
    """What embedding this file was expected to cost, said before it started."""

    @property
    def ok(self) -> bool:
        return self.status != "failed"

    def summary(self) -> str:
        if self.status == "failed":
            return f"{self.name}: FAILED: {self.error}"
        if self.status == "skipped-identical":
            return f"{self.name}: skipped, identical to the stored version {self.version}"
        pages = f"{self.pages} pages, " if self.pages else ""
        how = "structure: " + self.structure if self.structure_found else "no structure: " + self.structure
        return (f"{self.name}: {self.status} as {self.doc_id} (version {self.version}, {self.format}), {pages}"
                f"{self.units} units, {self.chunks} chunks, {self.references} references "
                f"({self.unresolved} unresolved); {how}")


@dataclass
class Progress:
    """A progress report: file ``index`` (0-based) of ``files`` is at ``stage`` (``read``, ``extract``,
    ``embed``, ``store``, ``done``); ``done``/``total`` count chunks while embedding."""

    name: str
    index: int
    files: int
    stage: str
    done: int = 0
    total: int = 0
    estimate: Estimate | None = None
    """At the start of ``embed``: the chunks to embed (counted), those already cached, and the time it will take."""


def collect(files: Iterable[Upload | tuple[str, bytes] | str | Path]) -> list[Upload]:
    """Normalise the accepted inputs; folders are walked (hidden files skipped), names relative to them."""
    out: list[Upload] = []
    for f in files:
        if isinstance(f, Upload):
            out.append(f)
        elif isinstance(f, tuple):
            out.append(Upload(name=str(f[0]), data=f[1]))
        else:
            p = Path(f).expanduser()
            if p.is_dir():
                for q in sorted(x for x in p.rglob("*") if x.is_file()):
                    rel = q.relative_to(p)
                    if not any(part.startswith(".") for part in rel.parts):
                        out.append(Upload(name=rel.as_posix(), path=q))
            else:
                out.append(Upload(name=p.name, path=p))
    return out


def _read(up: Upload, max_bytes: int) -> bytes:
    limit = f"{max_bytes / 1e6:g} MB"
    if up.data is not None:
        data = up.data
    else:
        assert up.path is not None
        try:
            size = up.path.stat().st_size
            if size > max_bytes:
                raise UploadError(f"the file is {size / 1e6:.1f} MB, over the upload limit of {limit}; split it or "
                                  "raise ANCHOR_MAX_UPLOAD_MB")
            data = up.path.read_bytes()
        except OSError as err:
            raise UploadError(f"cannot read the file: {err.strerror}") from None
    if len(data) > max_bytes:
        raise UploadError(f"the file is {len(data) / 1e6:.1f} MB, over the upload limit of {limit}; split it or "
                          "raise ANCHOR_MAX_UPLOAD_MB")
    return data


def ingest_uploads(store: Store, embedder: Embedder, files: Iterable[Upload | tuple[str, bytes] | str | Path], *,
                   corpus: str, groups: list[str] | None = None, max_mb: float = DEFAULT_MAX_MB,
                   progress: Callable[[Progress], None] | None = None) -> list[FileResult]:
    """Ingest uploaded files into ``corpus`` (created if absent), one result per file.

    Args:
        store: where the corpus lives.
        embedder: must be the corpus's embedder if the corpus exists.
        files: ``(name, bytes)`` pairs, :class:`Upload` records, or paths of files and folders.
        corpus: the corpus name.
        groups: access groups given to every file of the batch (empty: public documents).
        max_mb: files larger than this fail with a message naming the limit.
        progress: called with a :class:`Progress` as each file moves through the stages.

    Returns:
        One :class:`FileResult` per file, in input order: ``ingested``, ``replaced`` (a stored
        document of the same name had other bytes; its version goes up), ``skipped-identical``,
        or ``failed`` with ``error`` saying why.

    Raises:
        StoreError: the corpus exists with another embedder (nothing is read or written).

    Example:
        >>> files = [("contract.pdf", pdf_bytes)]  # doctest: +SKIP
        >>> results = ingest_uploads(store, embedder, files, corpus="contracts")  # doctest: +SKIP
        >>> results[0].status, results[0].pages, results[0].structure  # doctest: +SKIP
        ('ingested', 3, '6 numbered clauses, 1 schedule, a preamble, 12 numbered parts, 3 list items')
    """
    if max_mb <= 0:
        raise ValueError(f"max_mb must be greater than 0. Currently, the max_mb is {max_mb}")
    t_batch = time.perf_counter()
    uploads = collect(files)
    try:
        prev = store.corpus(corpus)
    except CorpusNotFound:
        prev = None
    if prev is not None and prev.chunks and prev.embedder != embedder.model_id:
        raise StoreError(f"corpus {corpus!r} was embedded with {prev.embedder} but the current embedder is "
                         f"{embedder.model_id}; upload into another corpus or set ANCHOR_EMBEDDER to match.")
    stored = {d.doc_id: d for d in store.documents(corpus)} if prev else {}
    by_hash = {d.sha256: d for d in stored.values() if d.sha256}
    batch_groups = sorted(set(groups or []))
    max_bytes = int(max_mb * 1e6)
    results = [FileResult(name=up.name) for up in uploads]
    new_docs: list[Document] = []
    new_units: list[Unit] = []
    new_chunks: list[Chunk] = []
    vectors: list[np.ndarray] = []
    pending: list[FileResult] = []
    seen_hashes: dict[str, str] = {}

    def tell(i: int, stage: str, done: int = 0, total: int = 0, estimate: Estimate | None = None) -> None:
        if progress:
            progress(Progress(uploads[i].name, i, len(uploads), stage, done, total, estimate))

    assigned = doc_ids([up.name for up in uploads], stored)
    for i, (up, ids, res) in enumerate(zip(uploads, assigned, results)):
        res.doc_id = doc_id = ids.doc_id
        if ids.warning:
            res.warnings.append(ids.warning)
        try:
            tell(i, "read")
            t = time.perf_counter()
            data = _read(up, max_bytes)
            res.size = len(data)
            res.sha256 = sha = hashlib.sha256(data).hexdigest()
            res.timings["read"] = time.perf_counter() - t
            doc_groups = sorted({*batch_groups, *up.groups})
            old = stored.get(doc_id)
            same = old if old is not None and old.sha256 == sha else None
            if same is None and sha in by_hash and by_hash[sha].doc_id not in {d.doc_id for d in new_docs}:
                other = by_hash[sha]
                if other.doc_id != doc_id and stored.get(doc_id) is None:
                    same = other
            if same is not None and sorted(same.groups) == doc_groups:
                res.status, res.doc_id = "skipped-identical", same.doc_id
                res.version = int(same.meta.get("version", 1))
                res.format = str(same.meta.get("format", ""))
                if same.doc_id != doc_id:
                    res.warnings.append(f"the same bytes are stored as {same.meta.get('file', same.doc_id)}")
                continue
            if sha in seen_hashes:
                res.status = "skipped-identical"
                res.warnings.append(f"the same bytes as {seen_hashes[sha]} earlier in this upload")
                continue
            seen_hashes[sha] = up.name
            tell(i, "extract")
            t = time.perf_counter()
            fmt, warnings = detect_format(up.name, data)
            res.format = fmt
            res.warnings += warnings
            ex = extract(fmt, data)
            res.warnings += ex.warnings
            title = ex.title or PurePosixPath(up.name).stem
            structure = split(ex, doc_id, title)
            title = structure.title or title  # an EU act's designation, not its web page's file name
            chunks = [c for u in structure.units for c in chunks_of(u, structure.found, title)]
            res.timings["extract"] = time.perf_counter() - t
            texts = [c.embed_text for c in chunks]
            missing = getattr(embedder, "missing", None)
            cached = len(chunks) - min(missing(texts), len(chunks)) if callable(missing) else 0
            res.estimate = estimate(up.name, len(data), embedder, chunks=len(chunks), cached=cached)
            if res.estimate.large:
                log.info("%s", res.estimate.summary())
            tell(i, "embed", 0, len(chunks), res.estimate)
            t = time.perf_counter()
            done = 0

            def tick(n: int, i: int = i, total: int = len(chunks)) -> None:
                nonlocal done
                done += n
                tell(i, "embed", done, total)

            vecs = embedder.embed(texts, progress=tick)
            res.timings["embed"] = time.perf_counter() - t
        except UploadError as err:
            res.status, res.error = "failed", str(err)
            continue
        except AnchorError:
            raise  # a missing model or a broken store is not this file's fault
        except Exception as err:  # noqa: BLE001 - a parser bug on one odd file must not sink the batch
            # The file's result carries the message; the traceback is for `-v` (debug) only.
            log.warning("unexpected error reading %s: %s: %s", up.name, type(err).__name__, err,
                        exc_info=log.isEnabledFor(logging.DEBUG))
            res.status, res.error = "failed", f"could not read the file ({type(err).__name__}: {err})"
            continue
        version = int(old.meta.get("version", 1)) + 1 if old is not None else 1
        history = [*old.meta.get("versions", []), _version_record(old)] if old is not None else []
        res.status = "replaced" if old is not None else "ingested"
        res.version, res.pages, res.units, res.chunks = version, ex.pages, len(structure.units), len(chunks)
        res.structure_found, res.structure = structure.found, structure.how
        res.repairs = {**ex.repairs}
        removed = removed_summary(ex.repairs, ex.removed)
        if removed:
            res.warnings.append(removed)
        if old is not None and sorted(old.groups) != doc_groups and old.sha256 == sha:
            res.warnings.append("same content; access groups changed")
        new_docs.append(Document(
            doc_id=doc_id, title=title, source=up.name, sha256=sha, groups=doc_groups,
            meta={"file": up.name, "format": fmt, "size": len(data), "pages": ex.pages,
                  "page_starts": ex.page_starts, "version": version, "versions": history,
                  "uploaded_at": utcnow().isoformat(), "structure": structure.how,
                  "structure_found": structure.found, "repairs": ex.repairs, "removed_lines": ex.removed,
                  "upload": True}))
        for u in structure.units:
            if ex.edits:
                a, b = u.meta["doc_start"], u.meta["doc_start"] + len(u.text)
                u.meta["repairs"] = [[s - a, e - a, orig] for s, e, orig in ex.edits if a <= s <= b]
        new_units += structure.units
        new_chunks += chunks
        vectors.append(vecs)
        pending.append(res)
        tell(i, "done")

    if not new_docs:
        return results
    for res in pending:
        tell(results.index(res), "store")
    try:
        info, refs = _write(store, embedder, corpus, prev, stored, new_docs, new_units, new_chunks,
                            np.vstack(vectors))
    except Exception as err:
        for res in pending:
            res.status, res.error = "failed", f"nothing was stored: the store write failed ({err})"
        raise
    by_doc: dict[str, list[Reference]] = {}
    unit_doc = {u.unit_id: u.doc_id for u in new_units}
    for r in refs:
        if r.src_unit in unit_doc:
            by_doc.setdefault(unit_doc[r.src_unit], []).append(r)
    for res in pending:
        mine = by_doc.get(res.doc_id, [])
        res.references = sum(r.resolved for r in mine)
        res.unresolved = sum(not r.resolved for r in mine)
    log.info("uploaded %d of %d files into %s (version %s) in %.1fs", len(pending), len(uploads), corpus,
             info.version, time.perf_counter() - t_batch)
    return results


def removed_summary(counts: dict[str, int], distinct: list[str]) -> str:
    """``removed 6 running header/footer lines (2 distinct): 'ACME - Confidential'; 'Draft'; and 3
    page numbers``, so a reader can check that nothing else went; then what was moved (a PDF's
    page-foot notes, :mod:`ingest.uploads.pdfnotes`)."""
    lines, pages = counts.get("header", 0) + counts.get("footer", 0), counts.get("page", 0)
    notes = counts.get("footnotes", 0)
    numbers = f"{pages} page number{'s' if pages != 1 else ''}"
    moved = (f"stored {notes} footnote{'s' if notes != 1 else ''} printed at the foot of a page as 'Footnote N:' "
             f"lines, before a sentence that runs over the page break") if notes else ""
    if not lines:
        removed = f"removed {numbers}" if pages else ""
    else:
        shown = "; ".join(repr(x) for x in distinct[:3]) + ("; ..." if len(distinct) > 3 else "")
        removed = (f"removed {lines} running header/footer line{'s' if lines != 1 else ''} ({len(distinct)} "
                   f"distinct): {shown}" + (f"; and {numbers}" if pages else ""))
    return ", and ".join(x for x in (removed, moved) if x)


def _version_record(doc: Document) -> dict:
    return {"version": int(doc.meta.get("version", 1)), "sha256": doc.sha256, "size": doc.meta.get("size"),
            "file": doc.meta.get("file", doc.source), "uploaded_at": doc.meta.get("uploaded_at")}


def _write(store: Store, embedder: Embedder, corpus: str, prev: CorpusInfo | None, stored: dict[str, Document],
           docs: list[Document], units: list[Unit], chunks: list[Chunk], vectors: np.ndarray
           ) -> tuple[CorpusInfo, list[Reference]]:
    """Find the references of the new documents, re-resolve the stored units whose references
    they change, and write only that (:func:`anchor_core.indexing.write`).

    A stored unit's references can change when a new or replaced document is what it names
    (its title or file name appears in the unit: found through the store's full-text index) or
    when it pointed into a replaced document's old units (found through the reference index).
    Those units, and the documents their references name, are read; nothing else is."""
    new = {d.doc_id: d for d in docs}
    uploaded = sorted({**{k: d for k, d in stored.items() if d.meta.get("upload")}, **new}.values(),
                      key=lambda d: d.doc_id)
    replaced = sorted(set(new) & set(stored))
    old_ids = store.unit_ids(corpus, replaced) if prev and replaced else []
    new_ids = {u.unit_id for u in units}
    gone = set(old_ids) - new_ids
    candidates: set[str] = set()
    into_old = {r.src_unit for r in store.references_to(corpus, old_ids)} if old_ids else set()
    candidates |= into_old
    if prev is not None:
        for d in docs:
            for name in title_names(d.title, str(d.meta.get("file", ""))):
                candidates |= set(store.units_with_words(corpus, name.split()))
    candidates -= new_ids | set(old_ids)
    found = store.get_units(corpus, sorted(candidates)) if candidates else {}
    upload_ids = {d.doc_id for d in uploaded}
    sources = [u for u in found.values() if u.doc_id in upload_ids]
    adapter_sources = sorted(u for u, x in found.items() if x.doc_id not in upload_ids and u in into_old)

    def load(doc_id: str) -> list[Unit]:
        return list(store.get_units(corpus, store.unit_ids(corpus, [doc_id])).values())

    cat = Catalogue(uploaded, units, load=load if prev else None)
    raw = find_references(uploaded, units + sources, cat)
    refs, _ = resolve_references(list(cat.units.values()), raw)
    # Another adapter's references are kept, except that a target that left becomes unresolved.
    for r in store.references_from(corpus, adapter_sources, unresolved=True) if adapter_sources else []:
        refs.append(r.model_copy(update={"resolved": False, "dst_unit": None, "dst_part": None})
                    if r.dst_unit in gone else r)
    rewritten = sorted(u.unit_id for u in sources) + adapter_sources
    change = Change(docs, units, chunks, vectors, refs, ref_sources=rewritten)
    info = write(store, embedder, change, corpus=corpus, prev=prev, adapter="uploads", source="uploads")
    return info, refs
