"""The contract every Store implementation passes. A concrete test module subclasses
:class:`StoreContract` and provides a ``store`` fixture (see test_sqlite.py)."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from anchor_core.chunking import chunk_unit
from anchor_core.embeddings import HashEmbedder
from anchor_core.errors import CorpusNotFound
from anchor_core.indexing import ingest, resolve_references
from anchor_core.models import Container, CorpusInfo, Document, Filters, ParsedCorpus, Reference
from ingest.containers import expand, members
from tests.conftest import unit


def chaptered_corpus() -> ParsedCorpus:
    """Two articles in Chapter II, and a final article whose "Chapter II" is a container reference."""
    ch = Container(id="chapter-ii", kind="chapter", label="Chapter II", title="Prohibited practices")
    units = [unit("article-5", "Manipulative widgets are prohibited."),
             unit("article-6", "Widgets that score people are prohibited."),
             unit("article-9", "Chapter II shall apply from 2 February 2025.")]
    units[0].containers = units[1].containers = [ch]
    raw = Reference(src_unit="article-9", start=0, end=10, raw="Chapter II", container="chapter-ii")
    return ParsedCorpus(documents=[Document(doc_id="doc")], units=units, references=expand([raw], members(units)))


def grouped_corpus() -> ParsedCorpus:
    docs = [Document(doc_id="hr", title="HR policy", groups=["hr"]),
            Document(doc_id="fin", title="Finance policy", groups=["finance"]),
            Document(doc_id="pub", title="Public notice")]
    units = [unit("hr-1", "Salaries of staff are reviewed every spring by the HR board.", doc_id="hr", kind="file"),
             unit("fin-1", "Invoices above ten thousand euros need two signatures.", doc_id="fin", kind="file"),
             unit("pub-1", "The office is open from nine to five on working days.", doc_id="pub", kind="file"),
             unit("rec-1", "Recital about salaries and invoices and the office.", doc_id="pub", kind="recital")]
    return ParsedCorpus(documents=docs, units=units)


def _doc_parts(doc_id: str, texts: list[str], groups: list[str] | None = None, page: int | None = None):
    """One document with one unit per text, chunked, with pages set when ``page`` is given."""
    doc = Document(doc_id=doc_id, title=f"{doc_id}.pdf", groups=groups or [], meta={"file": f"{doc_id}.pdf"})
    units = [unit(f"{doc_id}/{i}", t, doc_id=doc_id, kind="section") for i, t in enumerate(texts, start=1)]
    chunks = [c.model_copy(update={"page": page, "page_end": page + 1 if page else None})
              for u in units for c in chunk_unit(u)]
    return doc, units, chunks


class ReplaceDocumentsContract:
    """``replace_documents``: add or swap single documents inside a corpus, atomically."""

    def _put(self, store, name, docs_units_chunks, refs=(), remove=(), version=None, ref_sources=()):
        docs = [d for d, _, _ in docs_units_chunks]
        units = [u for _, us, _ in docs_units_chunks for u in us]
        chunks = [c for _, _, cs in docs_units_chunks for c in cs]
        info = CorpusInfo(name=name, adapter="uploads", version=version or uuid.uuid4().hex, embedder="hash-bow-384",
                          dim=384, documents=len(docs), units=len(units), chunks=len(chunks))
        store.replace_documents(info, docs, units, chunks, HashEmbedder().embed([c.embed_text for c in chunks]),
                                list(refs), remove=list(remove), ref_sources=list(ref_sources))
        return info

    def test_creates_the_corpus_and_keeps_pages(self, store):
        self._put(store, "up", [_doc_parts("a", ["Premiums are due monthly.", "Claims are paid in 30 days."],
                                           page=7)])
        info = store.corpus("up")
        assert info.adapter == "uploads"
        hits = store.search_bm25("up", ["premiums"], 5, Filters())
        c = store.get_chunks("up", [hits[0][0]])[hits[0][0]]
        assert (c.doc_id, c.page, c.page_end) == ("a", 7, 8)
        assert store.unit_chunks("up", "a/2", Filters())[0].page == 7
        assert store.unit_ids("up") == ["a/1", "a/2"]

    def test_other_documents_stay_untouched(self, store):
        self._put(store, "up", [_doc_parts("a", ["Premiums are due monthly."]),
                                _doc_parts("b", ["Travel is booked by the office."])])
        before_b = store.unit_chunks("up", "b/1", Filters())
        self._put(store, "up", [_doc_parts("a", ["Deductibles apply per claim.", "Premiums rise yearly."])])
        assert store.unit_ids("up") == ["b/1", "a/1", "a/2"]
        assert store.unit_ids("up", ["a"]) == ["a/1", "a/2"]
        assert store.unit_chunks("up", "b/1", Filters()) == before_b
        assert [d.doc_id for d in store.documents("up")] == ["a", "b"]
        assert [d.doc_id for d in store.documents("up", ["b", "nope", "b"])] == ["b"]  # only those asked
        assert store.documents("up", []) == []
        assert store.search_bm25("up", ["monthly"], 5, Filters()) == []  # a's old text is gone from BM25
        assert store.search_bm25("up", ["deductibles"], 5, Filters())[0][0].startswith("a/1")
        q = HashEmbedder().embed(["Premiums are due monthly."])[0]
        found = store.search_vector("up", q, 10, Filters())
        texts = {c.text for c in store.get_chunks("up", [cid for cid, _ in found]).values()}
        assert len(found) == 3 and "Premiums are due monthly." not in texts  # vectors reloaded, old ones gone

    def test_remove_drops_the_removed_documents_references_and_re_resolved_ones_are_swapped(self, store):
        a = _doc_parts("a", ["See clause 1 of b.", "And clause 1 of c."])
        b = _doc_parts("b", ["Clause one text. See a."])
        c = _doc_parts("c", ["Clause one of c."])
        r = Reference(src_unit="a/1", start=4, end=12, raw="clause 1", dst_unit="b/1", resolved=True)
        r2 = Reference(src_unit="a/2", start=4, end=12, raw="clause 1", dst_unit="c/1", resolved=True)
        back = Reference(src_unit="b/1", start=20, end=21, raw="a", dst_unit="a/1", resolved=True)
        self._put(store, "up", [a, b, c], refs=[r, r2, back])
        assert [x.dst_unit for x in store.references_to("up", ["b/1"])] == ["b/1"]
        unresolved = r.model_copy(update={"dst_unit": None, "resolved": False})
        # b goes (with the reference written in it); a/1's references are re-resolved; a/2's stay.
        self._put(store, "up", [], refs=[unresolved], remove=["b"], ref_sources=["a/1"])
        assert store.unit_ids("up") == ["a/1", "a/2", "c/1"]
        assert store.references_to("up", ["b/1"]) == [] and store.references_to("up", ["a/1"]) == []
        assert [(x.src_unit, x.resolved) for x in store.references("up")] == [("a/1", False), ("a/2", True)]
        assert store.get_units("up", ["b/1"]) == {}
        assert store.references_from("up", ["a/1", "a/2"]) == [r2]
        assert store.references_from("up", ["a/1", "a/2"], unresolved=True) == [unresolved, r2]
        # Replacing a document drops the references written in its old units.
        self._put(store, "up", [_doc_parts("c", ["Clause one of c, new."])])
        assert [x.src_unit for x in store.references("up")] == ["a/1", "a/2"]
        self._put(store, "up", [_doc_parts("a", ["No references now."])])
        assert store.references("up") == []

    def test_units_with_words_finds_who_may_mention_a_title(self, store):
        self._put(store, "up", [_doc_parts("a", ["Personal data follows the Data Processing Addendum.",
                                                 "Nothing about it here."]),
                                _doc_parts("b", ["The data team reads every processing log and addendum."]),
                                _doc_parts("c", ["Processing data."])])
        assert sorted(store.units_with_words("up", ["Data", "Processing", "Addendum"])) == ["a/1", "b/1"]
        assert sorted(store.units_with_words("up", ["processing", "data"])) == ["a/1", "b/1", "c/1"]
        assert store.units_with_words("up", ["Data", "Zebra"]) == []
        assert store.units_with_words("up", ["–"]) == []
        with pytest.raises(CorpusNotFound):
            store.units_with_words("nope", ["data"])

    def test_a_defined_term_is_found_through_the_index_on_every_store(self, store):
        from anchor_core import definitions

        self._put(store, "up", [_doc_parts("a", ["In this Part, “Client” has the meaning given in Rule 2.",
                                                 "‘Data processor’ means a person who processes data."]),
                                _doc_parts("b", ["A client means much to us; the Client signs."])])
        assert [(d.term, d.unit_id) for d in definitions.definitions_of("client", store, "up")] == [("Client", "a/1")]
        assert [d.unit_id for d in definitions.definitions_of("data processors", store, "up")] == ["a/2"]
        assert definitions.definitions_of("signs", store, "up") == []

    def test_a_versioned_name_is_found_only_as_written_on_every_store(self, store):
        from anchor_core.ask.gate import missing_versions

        self._put(store, "up", [_doc_parts("a", ["The OAuth 2.0 framework and Python 3.9 are described here."]),
                                _doc_parts("b", ["Section 2.1 defines the client."])])
        assert missing_versions("Is OAuth 2.0 like Python 3.9?", store, "up") == []
        # "2.1" and "OAuth" are both in the corpus, but never "OAuth 2.1"
        assert missing_versions("What did OAuth 2.1 remove from Python 3.9?", store, "up") == ["OAuth 2.1"]

    def test_a_word_in_each_of_two_chunks_of_a_unit_is_found(self, store):
        doc = Document(doc_id="d", title="d.txt", meta={"file": "d.txt"})
        u = unit("d/1", "Data Processing is described at length here. Addendum terms follow.", doc_id="d",
                 kind="section")
        cut = u.text.index("Addendum")
        chunks = [c.model_copy(update={"chunk_id": f"d/1:{i}", "start": a, "end": b, "text": u.text[a:b]})
                  for i, (a, b) in enumerate([(0, cut), (cut, len(u.text))])
                  for c in [chunk_unit(u)[0]]]
        self._put(store, "up", [(doc, [u], chunks)])
        assert store.units_with_words("up", ["Data", "Processing", "Addendum"]) == ["d/1"]

    def test_the_first_query_after_a_replace_sees_exactly_the_new_vectors(self, store):
        e = HashEmbedder()
        self._put(store, "up", [_doc_parts("a", ["Premiums are due monthly."]),
                                _doc_parts("b", ["Travel is booked by the office."])])
        q = e.embed(["Premiums are due monthly."])[0]
        assert store.search_vector("up", q, 1, Filters())[0][0].startswith("a/1")  # matrix cached
        self._put(store, "up", [_doc_parts("c", ["Premiums are due monthly."])], remove=["a"])
        hits = store.search_vector("up", q, 5, Filters())
        assert [h[0].split(":")[0] for h in hits][:1] == ["c/1"] and len(hits) == 2
        top = store.get_chunks("up", [hits[0][0]])[hits[0][0]]
        assert np.allclose(store.chunk_vectors("up", [top.chunk_id])[0], e.embed([top.embed_text])[0], atol=1e-6)
        assert store.search_vector("up", q, 5, Filters(documents=["b"]))[0][0].startswith("b/1")

    def test_groups_of_a_replaced_document_change(self, store):
        self._put(store, "up", [_doc_parts("a", ["Salaries are reviewed in spring."], groups=["hr"])])
        assert store.search_bm25("up", ["salaries"], 5, Filters(groups=["finance"])) == []
        self._put(store, "up", [_doc_parts("a", ["Salaries are reviewed in spring."], groups=["finance"])])
        assert store.search_bm25("up", ["salaries"], 5, Filters(groups=["finance"]))
        assert store.search_bm25("up", ["salaries"], 5, Filters(groups=["hr"])) == []
        assert store.search_vector("up", HashEmbedder().embed(["salaries"])[0], 5, Filters(groups=["hr"])) == []

    def test_known_terms_are_the_words_a_visible_chunk_writes(self, store):
        self._put(store, "up", [_doc_parts("a", ["Salaries are reviewed in spring."], groups=["hr"]),
                                _doc_parts("b", ["Travel is booked by the office."], groups=["finance"])])
        assert store.known_terms("up", ["salaries", "travel", "chatbots"], Filters()) == {"salaries", "travel"}
        # what the viewer's groups hide is not known to that viewer either
        assert store.known_terms("up", ["salaries", "travel"], Filters(groups=["finance"])) == {"travel"}
        assert store.known_terms("up", [], Filters()) == set()

    def test_failure_leaves_the_corpus_as_it_was(self, store):
        first = self._put(store, "up", [_doc_parts("a", ["Premiums are due monthly."]),
                                        _doc_parts("b", ["Travel is booked by the office."])])
        doc, units, chunks = _doc_parts("a", ["New premium text.", "More text."])
        chunks = [*chunks, chunks[0]]  # a duplicate chunk id fails midway through the write
        info = first.model_copy(update={"version": uuid.uuid4().hex})
        with pytest.raises(Exception):  # noqa: B017 - each store raises its own integrity error
            store.replace_documents(info, [doc], units, chunks, np.zeros((len(chunks), 384), np.float32), [])
        assert store.corpus("up").version == first.version
        assert store.search_bm25("up", ["monthly"], 5, Filters())[0][0].startswith("a/1")
        assert store.unit_ids("up") == ["a/1", "b/1"]

    def test_a_whole_corpus_replace_still_works_after(self, store, small_corpus):
        self._put(store, "up", [_doc_parts("a", ["Premiums are due monthly."])])
        ingest(store, HashEmbedder(), small_corpus, corpus="up", adapter="test")
        assert store.unit_ids("up") == ["article-1", "article-2", "annex-1"]
        assert store.search_bm25("up", ["premiums"], 5, Filters()) == []


class StoreContract(ReplaceDocumentsContract):
    @pytest.fixture
    def loaded(self, store, small_corpus):
        ingest(store, HashEmbedder(), small_corpus, corpus="widgets", adapter="test")
        return store

    def test_unknown_corpus_names_what_exists(self, loaded):
        with pytest.raises(CorpusNotFound, match="widgets"):
            loaded.corpus("nope")

    def test_info_counts(self, loaded):
        info = loaded.corpus("widgets")
        assert (info.units, info.references, info.unresolved) == (3, 1, 1)
        assert [c.name for c in loaded.corpora()] == ["widgets"]

    def test_known_terms_of_an_unknown_corpus_name_what_exists(self, loaded):
        with pytest.raises(CorpusNotFound, match="widgets"):
            loaded.known_terms("nope", ["widgets"], Filters())

    def test_bm25_ranks_matching_chunk_first(self, loaded):
        hits = loaded.search_bm25("widgets", ["recruitment", "staff"], 5, Filters())
        assert hits[0][0].startswith("annex-1")
        assert all(isinstance(s, float) for _, s in hits)

    def test_vector_search_finds_the_same_text(self, loaded):
        e = HashEmbedder()
        chunk = loaded.unit_chunks("widgets", "article-2", Filters())[0]
        hits = loaded.search_vector("widgets", e.embed([chunk.embed_text])[0], 3, Filters())
        assert hits[0][0] == chunk.chunk_id
        assert hits[0][1] == pytest.approx(1.0, abs=1e-5)

    def test_chunks_units_and_references_round_trip(self, loaded, small_corpus):
        units = loaded.get_units("widgets", ["article-2", "annex-1"])
        assert units["article-2"] == small_corpus.units[1]
        chunks = loaded.unit_chunks("widgets", "annex-1", Filters())
        for c in chunks:
            assert units["annex-1"].text[c.start:c.end] == c.text
        assert loaded.get_chunks("widgets", [chunks[0].chunk_id])[chunks[0].chunk_id] == chunks[0]
        refs = loaded.references_from("widgets", ["article-2"])
        assert [(r.dst_unit, r.src_part, r.resolved) for r in refs] == [("annex-1", "2", True)]
        assert len(loaded.references("widgets")) == 2
        many = loaded.units_chunks("widgets", ["annex-1", "article-2", "nope"], Filters())
        assert many["annex-1"] == chunks and len(many["article-2"]) == 2 and many["nope"] == []
        vecs = loaded.chunk_vectors("widgets", [chunks[0].chunk_id, "missing"])
        assert vecs.shape == (2, 384) and np.allclose(vecs[1], 0)

    def test_containers_and_container_references_round_trip(self, store):
        parsed = chaptered_corpus()
        info = ingest(store, HashEmbedder(), parsed, corpus="acts", adapter="test")
        assert (info.references, info.unresolved) == (2, 0)
        assert store.get_units("acts", ["article-5"])["article-5"].containers == parsed.units[0].containers
        back = store.references_to("acts", ["article-6"])
        assert [(r.src_unit, r.raw, r.container) for r in back] == [("article-9", "Chapter II", "chapter-ii")]
        assert {r.dst_unit for r in store.references_from("acts", ["article-9"])} == {"article-5", "article-6"}

    def test_replace_swaps_the_whole_corpus(self, loaded):
        ingest(loaded, HashEmbedder(), grouped_corpus(), corpus="widgets", adapter="test")
        assert loaded.search_bm25("widgets", ["widgets"], 5, Filters()) == []
        assert loaded.get_units("widgets", ["article-1"]) == {}
        assert loaded.references("widgets") == []

    def test_corpora_are_isolated(self, loaded):
        ingest(loaded, HashEmbedder(), grouped_corpus(), corpus="policies", adapter="test")
        assert all(cid.startswith(("hr", "fin", "pub", "rec"))
                   for cid, _ in loaded.search_bm25("policies", ["widgets", "salaries"], 10, Filters()))
        loaded.delete_corpus("policies")
        with pytest.raises(CorpusNotFound):
            loaded.corpus("policies")
        assert loaded.corpus("widgets").units == 3

    def test_filters_apply_before_the_top_k_cut(self, store):
        ingest(store, HashEmbedder(), grouped_corpus(), corpus="p", adapter="test")
        e = HashEmbedder()
        q = e.embed(["salaries of staff"])[0]
        for groups, allowed in [(["finance"], {"fin", "pub"}), (["hr"], {"hr", "pub"}), ([], {"pub"}),
                                (None, {"hr", "fin", "pub"})]:
            f = Filters(groups=groups, exclude_kinds=["recital"])
            bm = store.search_bm25("p", ["salaries", "invoices", "office"], 1, f)
            vec = store.search_vector("p", q, 1, f)
            assert len(bm) == 1 and len(vec) == 1  # k=1 still finds a visible chunk
            for cid, _ in bm + vec:
                assert cid.split("-")[0] in allowed
        only = Filters(documents=["fin"])
        assert {c.split("-")[0] for c, _ in store.search_vector("p", q, 10, only)} == {"fin"}
        with_recitals = store.search_bm25("p", ["recital"], 5, Filters())
        assert with_recitals and with_recitals[0][0].startswith("rec-1")
        assert store.search_bm25("p", ["recital"], 5, Filters(exclude_kinds=["recital"])) == []

    def test_a_second_instance_sees_a_replace(self, store, store_factory, small_corpus):
        ingest(store, HashEmbedder(), small_corpus, corpus="w", adapter="test")
        other = store_factory()
        e = HashEmbedder()
        q = e.embed(["salaries of staff"])[0]
        assert other.search_vector("w", q, 1, Filters())[0][0].startswith(("article", "annex"))
        ingest(store, HashEmbedder(), grouped_corpus(), corpus="w", adapter="test")
        assert other.search_vector("w", q, 1, Filters())[0][0].startswith("hr-1")


def raw_replace(store, parsed: ParsedCorpus, name: str) -> None:
    chunks = [c for u in parsed.units for c in chunk_unit(u)]
    refs, _ = resolve_references(parsed.units, parsed.references)
    info = CorpusInfo(name=name, adapter="test", version=uuid.uuid4().hex, units=len(parsed.units),
                      chunks=len(chunks), embedder="hash-bow-384", dim=384)
    store.replace_corpus(info, parsed.documents, parsed.units, chunks, HashEmbedder().embed([c.text for c in chunks]),
                         refs)

