"""The workspace as the dashboard sees it: the demo corpus on first start, the corpora table, the
reference network of a corpus, document deletion, and a quote shown inside its source text.

Everything here is plain library code over the :class:`~anchor_core.stores.base.Store` protocol,
so the dashboard pages stay thin and the CLI or tests can call the same functions.
"""

from __future__ import annotations

import html
import logging
from collections.abc import Callable
from pathlib import Path

import numpy as np
from pydantic import BaseModel, Field

from anchor_core.config import Settings
from anchor_core.embeddings import Embedder
from anchor_core.errors import AnchorError
from anchor_core.models import CorpusInfo
from anchor_core.stores.base import Store

log = logging.getLogger(__name__)

DEMO_CORPUS = "aiact"
DEMO_QUESTION = "Is an AI system used to evaluate job applicants considered high risk?"
_DEMO_MARKER = ".demo-offered"


# -- first start ------------------------------------------------------------------------------


def use_adapter_grammars() -> None:
    """Questions are read with each corpus adapter's reference grammar (units they name are
    fetched directly); the core does not look adapters up itself."""
    from anchor_core.named import use_adapters
    from ingest import get_adapter

    use_adapters(get_adapter)


def needs_demo(store: Store, home: Path) -> bool:
    """True on a first start: the store is empty and the demo was never loaded or declined.

    Once offered, an empty store stays empty (the reviewer may have deleted the demo on purpose)
    and the dashboard shows its empty state instead."""
    return not (home / _DEMO_MARKER).exists() and not store.corpora()


def mark_demo_offered(home: Path) -> None:
    home.mkdir(parents=True, exist_ok=True)
    (home / _DEMO_MARKER).touch()


def ingest_demo(store: Store, embedder: Embedder, home: Path,
                progress: Callable[[int, int], None] | None = None) -> CorpusInfo:
    """Ingest the bundled EU AI Act as corpus ``aiact`` (about a minute with MiniLM on two cores)."""
    from anchor_core.indexing import ingest
    from ingest import load_adapter_corpus

    parsed = load_adapter_corpus(DEMO_CORPUS, None)
    info = ingest(store, embedder, parsed, corpus=DEMO_CORPUS, adapter=DEMO_CORPUS,
                  source=f"{DEMO_CORPUS} demo corpus", progress=progress)
    mark_demo_offered(home)
    return info


def ingest_embedder(embedder: Embedder, settings: Settings) -> Embedder:
    """The embedder wrapped in the workspace's embedding cache, so re-ingests reuse vectors."""
    from anchor_core.embed_cache import CachedEmbedder

    return CachedEmbedder(embedder, settings.home / "embedding-cache.db")


# -- corpora ----------------------------------------------------------------------------------


def store_backend(store: Store) -> str:
    store = getattr(store, "inner", store)  # the store behind a viewer's access.ScopedStore
    name = type(store).__name__
    if name == "SQLiteStore":
        return f"SQLite ({getattr(store, 'path', '')})"
    if "Elastic" in name:
        return f"Elasticsearch ({getattr(store, 'url', '') or getattr(store, 'es_url', '')})".replace(" ()", "")
    return name


def corpus_rows(store: Store) -> list[dict]:
    """One row per corpus for the corpora table."""
    backend = store_backend(store)
    return [{"corpus": c.name, "documents": c.documents, "units": c.units, "chunks": c.chunks,
             "references": c.references, "unresolved": c.unresolved, "adapter": c.adapter,
             "last ingest": c.created_at.strftime("%Y-%m-%d %H:%M"), "embedder": c.embedder, "store": backend}
            for c in store.corpora()]


def corpus_groups(store: Store, corpus: str) -> list[str]:
    """The access groups that documents of ``corpus`` carry."""
    return sorted({g for d in store.documents(corpus) for g in d.groups})


def delete_document(store: Store, corpus: str, doc_id: str) -> CorpusInfo:
    """Remove one document (its units, chunks and vectors) from ``corpus`` in one transaction.

    References of the remaining units are re-resolved: a reference into the removed document
    becomes unresolved rather than pointing at nothing. Deleting the last document deletes the
    corpus (returns the old record)."""
    from anchor_core.indexing import Change, write

    info = store.corpus(corpus)
    docs = {d.doc_id for d in store.documents(corpus)}
    if doc_id not in docs:
        raise AnchorError(f"corpus {corpus!r} has no document {doc_id!r} (it may have been deleted in another tab); "
                          f"documents: {', '.join(sorted(docs)[:10]) or 'none'}")
    if docs == {doc_id}:
        store.delete_corpus(corpus)
        return info
    gone = set(store.unit_ids(corpus, [doc_id]))
    # Only the units that cite the removed document change: their references into it become unresolved.
    sources = sorted({r.src_unit for r in store.references_to(corpus, sorted(gone))} - gone)
    refs = [r.model_copy(update={"resolved": False}) if r.dst_unit in gone else r
            for r in store.references_from(corpus, sources, unresolved=True)]
    change = Change([], [], [], np.zeros((0, max(info.dim, 1)), np.float32), refs, remove=[doc_id],
                    ref_sources=sources)
    return write(store, None, change, corpus=corpus, prev=info)


def _all_filters():
    from anchor_core.models import Filters

    return Filters()


# -- the reference network --------------------------------------------------------------------


class GraphNode(BaseModel):
    unit_id: str
    label: str
    kind: str
    title: str = ""
    x: float
    y: float
    cited_by: int
    cites: int


class CorpusGraph(BaseModel):
    corpus: str
    nodes: list[GraphNode]
    edges: list[tuple[str, str, int]]
    """(citing unit, cited unit, number of references)."""
    hidden: int = 0
    """Units left out (no resolved reference in or out, or recitals when excluded)."""
    through: list[tuple[str, str, int]] = Field(default_factory=list)
    """(citing unit, cited unit, number of references) for pairs linked only by references to a
    container ("Chapter III, Section 2" to each of its articles): drawn apart and left out of the
    layout, which they would otherwise pull into one knot."""


def _layout(n: int, edges: list[tuple[int, int]], iterations: int = 120, seed: int = 7) -> np.ndarray:
    """Fruchterman–Reingold force layout in numpy: deterministic, good enough for a few hundred nodes."""
    rng = np.random.default_rng(seed)
    pos = rng.uniform(-1, 1, (n, 2))
    if n <= 1:
        return pos
    k = np.sqrt(4.0 / n)
    src = np.array([a for a, _ in edges], dtype=int)
    dst = np.array([b for _, b in edges], dtype=int)
    temp = 0.2
    for _ in range(iterations):
        delta = pos[:, None, :] - pos[None, :, :]
        dist = np.linalg.norm(delta, axis=-1) + 1e-9
        disp = (delta / dist[..., None] * (k * k / dist)[..., None]).sum(axis=1)
        if len(src):
            d = pos[src] - pos[dst]
            dl = np.linalg.norm(d, axis=1)[:, None] + 1e-9
            f = d / dl * (dl * dl / k)
            np.add.at(disp, src, -f)
            np.add.at(disp, dst, f)
        length = np.linalg.norm(disp, axis=1)[:, None] + 1e-9
        pos += disp / length * np.minimum(length, temp)
        temp *= 0.97
    pos -= pos.mean(axis=0)
    return pos / (np.abs(pos).max() or 1.0)


def corpus_graph(store: Store, corpus: str, *, include_recitals: bool = False, include_isolated: bool = False
                 ) -> CorpusGraph:
    """Units of ``corpus`` as nodes and resolved references between units as edges, laid out."""
    refs = [r for r in store.references(corpus) if r.resolved and r.dst_unit and r.dst_unit != r.src_unit]
    counts: dict[tuple[str, str], int] = {}
    through: dict[tuple[str, str], int] = {}
    for r in refs:
        key = (r.src_unit, r.dst_unit or "")
        bucket = through if r.container else counts
        bucket[key] = bucket.get(key, 0) + 1
    through = {k: c for k, c in through.items() if k not in counts}
    all_ids = store.unit_ids(corpus)
    linked = {u for pair in counts for u in pair}
    ids = [u for u in all_ids if include_isolated or u in linked]
    units = store.get_units(corpus, ids)
    ids = [u for u in ids if u in units and (include_recitals or units[u].kind != "recital")]
    index = {u: i for i, u in enumerate(ids)}
    edges = [(s, d, c) for (s, d), c in counts.items() if s in index and d in index]
    pos = _layout(len(ids), [(index[s], index[d]) for s, d, _ in edges])
    cited_by = {u: 0 for u in ids}
    cites = {u: 0 for u in ids}
    for s, d, _ in edges:
        cites[s] += 1
        cited_by[d] += 1
    nodes = [GraphNode(unit_id=u, label=units[u].heading, kind=units[u].kind, title=units[u].title,
                       x=float(pos[i, 0]), y=float(pos[i, 1]), cited_by=cited_by[u], cites=cites[u])
             for i, u in enumerate(ids)]
    return CorpusGraph(corpus=corpus, nodes=nodes, edges=edges, hidden=len(all_ids) - len(ids),
                       through=[(s, d, c) for (s, d), c in through.items() if s in index and d in index])


# -- a quote inside its source ----------------------------------------------------------------


def highlight_html(text: str, start: int, end: int, *, mark_id: str = "anchor-quote",
                   max_height: str = "22em") -> str:
    """The whole source text, escaped, with ``text[start:end]`` marked, in a scrollable box.

    Offsets outside the text (a stale report) highlight nothing rather than a wrong span."""
    ok = 0 <= start <= end <= len(text)
    before, quote, after = (text[:start], text[start:end], text[end:]) if ok else (text, "", "")
    e = html.escape
    return (f"<div class='anchor-source' style='max-height:{e(max_height)};overflow-y:auto;white-space:pre-wrap;"
            "border:1px solid rgba(128,128,128,.35);border-radius:6px;padding:.6em .8em;line-height:1.5;"
            f"font-size:.92em'>{e(before)}<mark id='{e(mark_id)}' style='background:#ffe27a;color:#111;"
            f"padding:0 .1em;border-radius:3px'>{e(quote)}</mark>{e(after)}</div>")


# -- verify inputs ----------------------------------------------------------------------------


def decode_upload(name: str, data: bytes, what: str = "file") -> str:
    """UTF-8 text of an uploaded text file, or an error that says what to give instead."""
    if b"\x00" in data[:4096]:
        raise AnchorError(f"the {what} {name} looks binary; give a UTF-8 text file (.txt, .md or .json)")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        raise AnchorError(f"the {what} {name} is not UTF-8 (byte {err.start}); save it as UTF-8 and upload again"
                          ) from err


TEXT_SOURCES = (".txt", ".md", ".markdown", ".text")
DOCUMENT_SOURCES = (".pdf", ".docx", ".html", ".htm")
"""Verify sources read as documents (their text extracted as an upload's is), beside plain text kept as written."""


class SourceFiles(BaseModel):
    """Verify sources read from files: each text by its id, and where the pages of a PDF begin in it."""

    texts: dict[str, str] = Field(default_factory=dict)
    pages: dict[str, list[int]] = Field(default_factory=dict)
    """Per source read from a PDF: the offsets in its text where pages 1, 2, ... begin."""
    notes: list[str] = Field(default_factory=list)
    """What reading the files changed or could not keep (a PDF's running headers removed, a Word note moved)."""


def read_source_files(files: list[tuple[str, bytes]], *, other_as_json: bool = False) -> SourceFiles:
    """Sources from files: ``.json`` holds ``{id: text}``; a text file (``.txt``, ``.md``) is one source kept as
    written; a PDF, Word or HTML file is one source whose text is read as an upload's is (pages, Word numbering
    and notes, visible HTML text), so a quote's offsets and page refer to that text. The id is the file name
    without its extension; ``other_as_json``: a file of any other extension is read as JSON too (the command
    line's ``--sources sources.data``), not as text."""
    import json

    out = SourceFiles()
    for name, data in files:
        sid = Path(name).stem
        if name.lower().endswith(DOCUMENT_SOURCES):
            from ingest.uploads.detect import detect_format
            from ingest.uploads.errors import UploadError
            from ingest.uploads.extract import extract
            from ingest.uploads.pipeline import removed_summary

            try:
                fmt, warned = detect_format(name, data)
                ex = extract(fmt, data)
            except UploadError as err:
                raise AnchorError(f"the source {name} cannot be read: {err}") from None
            out.texts[sid] = ex.text
            if ex.page_starts:
                out.pages[sid] = list(ex.page_starts)
            out.notes += [f"{name}: {w}" for w in [*warned, *ex.warnings]]
            removed = removed_summary(ex.repairs, ex.removed)
            if removed:
                out.notes.append(f"{name}: {removed} before checking; quotes and offsets refer to the text as read")
            continue
        text = decode_upload(name, data, "source")
        if name.lower().endswith(".json") or (other_as_json and not name.lower().endswith(TEXT_SOURCES)):
            try:
                obj = json.loads(text)
            except json.JSONDecodeError as err:
                raise AnchorError(f"{name} is not valid JSON (line {err.lineno}: {err.msg}); "
                                  'expected {"id": "text", ...}') from err
            except RecursionError:
                raise AnchorError(f"{name} is nested too deeply to be a sources file; expected a flat JSON object "
                                  '{"id": "text", ...}') from None
            if not isinstance(obj, dict) or not all(isinstance(v, str) for v in obj.values()):
                raise AnchorError(f"{name} must be a JSON object mapping source ids to their text")
            out.texts.update(obj)
        else:
            out.texts[sid] = text
    return out


def unit_sources(store: Store, corpus: str, unit_ids: list[str]) -> dict[str, str]:
    """Units of a stored corpus as verify sources (id = unit id, text = the stored unit text)."""
    units = store.get_units(corpus, unit_ids)
    missing = [u for u in unit_ids if u not in units]
    if missing:
        raise AnchorError(f"corpus {corpus!r} has no units {', '.join(missing[:5])}; they may have been deleted")
    return {u: units[u].text for u in unit_ids}


# -- uploads ----------------------------------------------------------------------------------

UPLOAD_TYPES = ["pdf", "docx", "html", "htm", "md", "markdown", "txt"]
_NAME = __import__("re").compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_corpus_name(name: str) -> str:
    name = name.strip()
    if not _NAME.match(name):
        raise AnchorError(f"corpus name {name!r} is not usable: use 1–64 letters, digits, '.', '_' or '-', "
                          "starting with a letter or digit (e.g. contracts-2026)")
    return name


def upload_estimates(files: list[tuple[str, int]], embedder: Embedder) -> list:
    """What uploading ``(name, size)`` files will cost: one ``ingest.uploads.estimate.Estimate``
    each (chunks from the size, time from the embedder's measured or known throughput)."""
    from ingest.uploads.estimate import estimate

    return [estimate(name, size, embedder) for name, size in files]


def duration(seconds: float) -> str:
    """``45 s``, ``12 min``, ``1.5 h``."""
    from ingest.uploads.estimate import duration as say

    return say(seconds)


def upload_files(store: Store, embedder: Embedder, files: list[tuple[str, bytes]], *, corpus: str,
                 groups: list[str] | None = None, max_mb: float | None = None,
                 progress: Callable | None = None) -> list:
    """Ingest uploaded ``(name, bytes)`` files into ``corpus`` (created if absent) with
    :func:`ingest.uploads.ingest_uploads`: one ``FileResult`` per file, with its status and any error.
    ``progress`` receives ``ingest.uploads.Progress`` records."""
    from ingest.uploads import ingest_uploads

    if not files:
        raise AnchorError("no files to ingest; drop one or more files first")
    limit = {"max_mb": max_mb} if max_mb else {}
    return ingest_uploads(store, embedder, files, corpus=check_corpus_name(corpus), groups=groups or None,
                          progress=progress, **limit)
