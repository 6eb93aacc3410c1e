"""Elasticsearch request bodies, checked without a server."""

import numpy as np
import pytest

from anchor_core.chunking import chunk_unit
from anchor_core.embeddings import HashEmbedder
from anchor_core.models import CorpusInfo, Filters
from anchor_core.stores import elastic_bodies as B
from tests.stores.contract import grouped_corpus


def test_mapping_pins_the_vector_index_and_the_fields():
    body = B.index_body(dim=384, shards=3, replicas=2)
    props = body["mappings"]["properties"]
    assert props["vector"] == {"type": "dense_vector", "dims": 384, "index": True, "similarity": "cosine",
                               "index_options": {"type": "int8_hnsw", "m": 16, "ef_construction": 100}}
    assert props["body"] == {"type": "text", "analyzer": "standard"}  # no english subfield unless asked
    for f in ("corpus", "doc_id", "unit_id", "chunk_id", "part", "groups", "src_unit", "dst_unit", "type"):
        assert props[f] == {"type": "keyword"}, f
    for f in ("start", "end", "page", "page_end"):
        assert props[f] == {"type": "integer"}
    assert props["text"] == {"type": "text", "index": False}  # stored for display, not a second BM25 field
    assert body["mappings"]["dynamic"] == "strict"
    assert body["mappings"]["_meta"]["anchor_schema"] == B.SCHEMA
    idx = body["settings"]["index"]
    assert (idx["number_of_shards"], idx["number_of_replicas"], idx["refresh_interval"]) == (3, 0, "-1")
    assert "mapping" not in idx
    assert B.serving_settings(2) == {"index": {"number_of_replicas": 2, "refresh_interval": None}}


def test_mapping_options():
    body = B.index_body(english=True, keep_source_vectors=True, dim=768)
    assert body["mappings"]["properties"]["body"]["fields"] == {"english": {"type": "text", "analyzer": "english"}}
    assert body["settings"]["index"]["mapping"] == {"exclude_source_vectors": False}
    assert body["mappings"]["properties"]["vector"]["dims"] == 768
    with pytest.raises(ValueError, match="dim must be greater than 0"):
        B.index_body(dim=0)


def test_names_never_collide_and_patterns_stay_inside_one_corpus():
    assert B.encode_name("aiact") == "aiact"
    names = ["hr", "Hr", "h-r", "h r", "h+r", "h_r", "h.r", "_x", "ü"]
    encoded = [B.encode_name(n) for n in names]
    assert len(set(encoded)) == len(names)
    assert all("-" not in e and e == e.lower() for e in encoded)
    # corpus "a"'s wildcard must not reach corpus "a-b"'s indices
    import fnmatch
    assert not fnmatch.fnmatchcase(B.index_name("anchor", "a-b", "v1"), B.index_pattern("anchor", "a"))
    assert fnmatch.fnmatchcase(B.index_name("anchor", "a", "v1"), B.index_pattern("anchor", "a"))
    assert not fnmatch.fnmatchcase(B.index_name("anchor", "a", "v1"), B.alias_pattern("anchor"))
    assert fnmatch.fnmatchcase(B.alias_name("anchor", "a"), B.alias_pattern("anchor"))
    assert len(B.doc_id("chunk", "x" * 1000)) < 100


def _records():
    parsed = grouped_corpus()
    chunks = [c for u in parsed.units for c in chunk_unit(u)]
    vectors = HashEmbedder().embed([c.embed_text for c in chunks])
    info = CorpusInfo(name="p", adapter="t", version="v1", dim=384, chunks=len(chunks))
    return parsed, chunks, vectors, info


def test_bulk_actions_denormalise_access_and_end_with_the_corpus_record():
    parsed, chunks, vectors, info = _records()
    vectors[1] = 0  # a zero vector has no cosine: left out of the kNN index
    actions = list(B.bulk_actions("idx", info, parsed.documents, parsed.units, chunks, vectors, [], seq_start=10))
    assert [a["_op_type"] for a in actions[:-1]] == ["create"] * (len(actions) - 1)
    assert actions[-1]["_id"] == "corpus" and actions[-1]["_source"]["seq_end"] == 10 + len(actions) - 1
    assert [a["_source"]["seq"] for a in actions[:-1]] == list(range(10, 10 + len(actions) - 1))
    chunk_src = {a["_source"]["chunk_id"]: a["_source"] for a in actions if a["_source"]["type"] == "chunk"}
    hr = chunk_src["hr-1:0"]
    assert (hr["groups"], hr["public"]) == (["hr"], False)
    assert chunk_src["pub-1:0"]["groups"] == [] and chunk_src["pub-1:0"]["public"] is True
    assert len(hr["vector"]) == 384 and all(isinstance(x, float) for x in hr["vector"])
    assert "vector" not in chunk_src[chunks[1].chunk_id]
    assert hr["body"] == f"{chunks[0].lead}\n{chunks[0].text}"
    assert B.chunk_from_source(hr) == chunks[0]
    assert all(a["_index"] == "idx" for a in actions)
    with pytest.raises(ValueError, match="vectors"):
        list(B.bulk_actions("idx", info, parsed.documents, parsed.units, chunks, vectors[:1], []))


@pytest.mark.parametrize("filters, expected", [
    (Filters(), []),
    (Filters(groups=[]), [{"bool": {"should": [{"term": {"public": True}}], "minimum_should_match": 1}}]),
    (Filters(groups=["hr", "fin"]), [{"bool": {"should": [{"term": {"public": True}},
                                                          {"terms": {"groups": ["hr", "fin"]}}],
                                               "minimum_should_match": 1}}]),
    (Filters(documents=["a"], exclude_kinds=["recital"]),
     [{"terms": {"doc_id": ["a"]}}, {"bool": {"must_not": [{"terms": {"kind": ["recital"]}}]}}]),
])
def test_filter_clauses(filters, expected):
    assert B.filter_clauses("c", filters) == [{"term": {"type": "chunk"}}, {"term": {"corpus": "c"}}, *expected]


def test_msearch_sends_match_and_knn_with_the_same_filters():
    f = Filters(groups=["hr"], exclude_kinds=["recital"], documents=["hr", "pub"])
    vec = np.ones(384, np.float32)
    lines = B.msearch_body("anchor-corpus-p", "p", ["salaries", "staff"], vec, 50, f, num_candidates=200)
    assert [lines[0], lines[2]] == [{"index": "anchor-corpus-p"}] * 2
    bm25, knn = lines[1], lines[3]
    assert bm25["query"]["bool"]["must"] == [{"match": {"body": {"query": "salaries staff", "operator": "or"}}}]
    assert bm25["size"] == 50 and bm25["_source"] == ["chunk_id"]
    k = knn["knn"]
    assert (k["field"], k["k"], k["num_candidates"], knn["size"]) == ("vector", 50, 200, 50)
    assert k["rescore_vector"] == {"oversample": 2.0}
    assert bm25["query"]["bool"]["filter"] == k["filter"] == B.filter_clauses("p", f)
    assert len(k["query_vector"]) == 384
    assert "query" not in knn  # top-level knn: the filter applies during the graph search


def test_num_candidates_is_clamped_between_k_and_ten_thousand():
    assert B.num_candidates_for(50, 10) == 50
    assert B.num_candidates_for(50, 20_000) == 10_000
    assert B.knn_body("c", np.ones(3), 5, Filters(), num_candidates=100, oversample=1)["knn"].get(
        "rescore_vector") is None


def test_english_subfield_query():
    q = B.bm25_body("c", ["testing"], 5, Filters(), english=True)["query"]["bool"]["must"][0]
    assert q == {"multi_match": {"query": "testing", "fields": ["body", "body.english"], "type": "most_fields"}}


def test_rrf_retriever_body():
    body = B.rrf_body("c", ["a"], np.ones(4), 5, Filters(groups=["g"]), num_candidates=100, rank_constant=60,
                      window=50)
    rrf = body["retriever"]["rrf"]
    assert (rrf["rank_constant"], rrf["rank_window_size"], body["size"]) == (60, 50, 5)
    std, knn = rrf["retrievers"]
    assert std["standard"]["query"]["bool"]["filter"] == knn["knn"]["filter"] == B.filter_clauses("c", Filters(
        groups=["g"]))


def test_terms_lookup_for_hops_and_alias_swap():
    body = B.terms_body("src_unit", ["article-6"], record="ref", corpus="c", size=1000,
                        extra=[{"term": {"resolved": True}}])
    assert body["query"]["bool"]["filter"] == [{"term": {"type": "ref"}}, {"term": {"corpus": "c"}},
                                               {"terms": {"src_unit": ["article-6"]}}, {"term": {"resolved": True}}]
    assert body["sort"] == [{"seq": "asc"}]
    swap = B.alias_swap_actions("a", "new", ["old1"])
    assert swap == {"actions": [{"remove": {"index": "old1", "alias": "a", "must_exist": True}},
                                {"add": {"index": "new", "alias": "a"}}]}
    assert B.alias_swap_actions("a", "new", []) == {"actions": [{"add": {"index": "new", "alias": "a"}}]}


def test_copy_body_keeps_other_documents_and_their_references_only():
    body = B.copy_body("old", "new", "c", ["d1"], ["d1/1", "d2/3"])
    q = body["source"]["query"]["bool"]
    records, refs = q["should"]
    assert q["filter"] == [{"term": {"corpus": "c"}}] and q["minimum_should_match"] == 1
    assert records["bool"]["must_not"] == [{"terms": {"doc_id": ["d1"]}}]
    assert {"terms": {"type": ["doc", "unit", "chunk"]}} in records["bool"]["filter"]
    assert refs["bool"] == {"filter": [{"term": {"type": "ref"}}],
                            "must_not": [{"terms": {"src_unit": ["d1/1", "d2/3"]}}]}
    assert body["dest"] == {"index": "new", "op_type": "create"}


def test_word_body_needs_the_tokens_as_a_phrase_and_can_narrow_to_units():
    body = B.word_body("c", "Data-Processing", ["u1"])
    q = body["query"]["bool"]
    assert q["must"] == [{"match_phrase": {"body": {"query": "Data-Processing"}}}]
    assert {"terms": {"unit_id": ["u1"]}} in q["filter"] and {"term": {"type": "chunk"}} in q["filter"]
    assert body["_source"] == ["unit_id"]


def test_a_reference_keeps_its_container_in_a_keyword_field():
    from anchor_core.models import Reference

    mapping = B.index_body()["mappings"]["properties"]
    r = Reference(src_unit="article-113", start=3, end=20, raw="Chapters I and II", dst_unit="article-5",
                  resolved=True, container="chapter-ii")
    src = B.reference_source("c", r, 7)
    assert src["container"] == "chapter-ii"
    assert B.reference_from_source(src) == r
    assert B.reference_from_source({k: v for k, v in src.items() if k != "container"}).container is None
    assert mapping["container"] == mapping["dst_unit"] == {"type": "keyword"}
