"""Uploads index incrementally: a new document costs its own references plus the stored units it
changes, and the result equals re-resolving every uploaded document of the corpus from scratch."""

from __future__ import annotations

import pytest

from anchor_core.indexing import resolve_references
from anchor_core.models import Filters
from anchor_core.stores.sqlite import SQLiteStore
from ingest.uploads import ingest_uploads
from ingest.uploads.refs import find_references
from tests.stores.fake_es import FakeCluster
from tests.stores.test_elastic import fake_store

MSA = (b"MASTER AGREEMENT\n1. Services\nThe Supplier provides the services under clause 2.\n2. Data\n"
       b"Personal data is handled under clause 2 of the Data Processing Addendum and the Security Schedule "
       b"Annex.\n3. Fees\nFees are set out in Schedule 1.\nSCHEDULE 1\nFees are 10 EUR.\n")
DPA = (b"DATA PROCESSING ADDENDUM\n1. Scope\nThis addendum covers processing under the Master Agreement.\n"
       b"2. Security\n\"Personal Breach\" means a breach of security. The Processor encrypts data.\n"
       b"3. Breaches\nA Personal Breach is notified within 72 hours; see clause 2.\n")
DPA2 = (b"DATA PROCESSING ADDENDUM\n1. Scope\nThis addendum covers processing.\n2. Retention\n"
        b"Data is kept for one year.\n")
SEC = (b"SECURITY SCHEDULE ANNEX\n1. Controls\nAccess follows clause 1 of the Master Agreement and clause 3 "
       b"of the Data Processing Addendum.\n")
NOTE = b"Staff note\n\nThe Security Schedule Annex and the Data Processing Addendum apply to all vendors.\n"


def _full_recompute(store, corpus: str):
    """What the references of the corpus would be if every uploaded document were re-read."""
    docs = sorted((d for d in store.documents(corpus) if d.meta.get("upload")), key=lambda d: d.doc_id)
    units = list(store.get_units(corpus, store.unit_ids(corpus)).values())
    refs, _ = resolve_references(units, find_references(docs, units))
    return units, refs


def _key(r):
    return (r.src_unit, r.start, r.end, r.raw, r.dst_unit, r.dst_part, r.resolved, r.in_title)


@pytest.fixture(params=["sqlite", "elasticsearch"])
def store(request, tmp_path):
    return SQLiteStore(tmp_path / "anchor.db") if request.param == "sqlite" else fake_store(FakeCluster())


STEPS = [[("master.txt", MSA)], [("Data Processing Addendum.md", DPA)], [("note.txt", NOTE)],
         [("security-schedule-annex.txt", SEC)], [("Data Processing Addendum.md", DPA2)],
         [("Data Processing Addendum.md", DPA), ("note.txt", NOTE + b"Updated.")]]


def test_each_upload_ends_where_a_full_recompute_would(store, embedder):
    for files in STEPS:
        results = ingest_uploads(store, embedder, files, corpus="x")
        assert all(r.ok for r in results), [r.error for r in results]
        units, want = _full_recompute(store, "x")
        got = store.references("x")
        assert sorted(map(_key, got)) == sorted(map(_key, want)), [f for f, _ in files]
        info = store.corpus("x")
        chunks = sum(len(v) for v in store.units_chunks("x", [u.unit_id for u in units], Filters()).values())
        assert (info.documents, info.units, info.chunks) == (len(store.documents("x")), len(units), chunks)
        assert (info.references, info.unresolved) == (sum(r.resolved for r in want),
                                                      sum(not r.resolved for r in want))
    refs = store.references("x")
    # The note, uploaded before the annex, names it: the reference appeared when the annex arrived.
    assert any(r.src_unit.startswith("note/") and r.dst_unit == "security-schedule-annex/text" for r in refs)
    assert any(r.src_unit == "master/2" and r.dst_unit == "data-processing-addendum/2" for r in refs)


class Counting:
    """A store that records which reads an upload makes."""

    def __init__(self, inner) -> None:
        self.inner, self.calls, self.units_read = inner, [], 0

    def __getattr__(self, name):
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def call(*a, **kw):
            self.calls.append((name, a[1:] if len(a) > 1 else (), kw))
            out = attr(*a, **kw)
            if name == "get_units":
                self.units_read += len(out)
            return out
        return call


def test_an_upload_reads_what_it_changes_not_the_corpus(tmp_path, embedder):
    store = SQLiteStore(tmp_path / "anchor.db")
    files = [(f"policy-{i:03d}.md", f"# Staff Policy {i:03d}\n\n## 1. Scope\n\nThis covers topic {i}; the "
              f"Staff Policy {i + 1:03d} follows.\n\n## 2. Rules\n\nStaff follow clause 1.\n".encode())
             for i in range(60)]
    ingest_uploads(store, embedder, files, corpus="p")
    before = store.corpus("p")
    spy = Counting(store)
    new = ("policy-060.md", b"# Staff Policy 060\n\n## 1. Scope\n\nNew topic.\n\n## 2. Rules\n\nSee clause 1.\n")
    [res] = ingest_uploads(spy, embedder, [new], corpus="p")
    assert res.status == "ingested"
    names = [c[0] for c in spy.calls]
    assert "references" not in names  # never the whole reference list
    assert all(args for name, args, _ in spy.calls if name == "unit_ids")  # never every unit id
    assert spy.units_read <= 4  # policy 059's two units (it cites the new one), not 120
    info = store.corpus("p")
    assert (info.documents, info.units) == (before.documents + 1, before.units + 2)
    assert info.references == before.references + 2  # policy 059 now names 060; 060's own clause 1
    assert [r.dst_unit for r in store.references_from("p", ["policy-059/1"])] == ["policy-060/1"]


def test_deleting_a_document_unresolves_what_cited_it_and_keeps_the_counts_true(store, embedder):
    from anchor_core.workspace import delete_document

    for files in STEPS[:4]:
        ingest_uploads(store, embedder, files, corpus="x")
    n_refs = len(store.references("x"))
    info = delete_document(store, "x", "data-processing-addendum")
    refs = store.references("x")
    assert not any(r.src_unit.startswith("data-processing-addendum/") for r in refs)
    into = [r for r in refs if (r.dst_unit or "").startswith("data-processing-addendum/")]
    assert into and not any(r.resolved for r in into)
    assert len(refs) == n_refs - 2  # the two written in the addendum went with it
    assert store.corpus("x") == info
    assert (info.references, info.unresolved) == (sum(r.resolved for r in refs), sum(not r.resolved for r in refs))
    assert (info.documents, info.units) == (len(store.documents("x")), len(store.unit_ids("x")))
