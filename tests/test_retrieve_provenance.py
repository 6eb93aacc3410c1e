"""Every provenance label says what happened: who cites whom, and from which shown hit a unit was followed."""

from anchor_core.cli import _render
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import Document, Hit, ParsedCorpus, PathStep, Retrieval
from anchor_core.retrieve import RetrievalSettings, retrieve
from anchor_core.stores.sqlite import SQLiteStore
from tests.conftest import ref, unit


def _store(tmp_path, units, refs):
    s = SQLiteStore(tmp_path / "p.db")
    ingest(s, HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="doc")], units=units, references=refs),
           corpus="w", adapter="test")
    return s


def test_also_cited_by_points_the_right_way_for_backward_hops(tmp_path):
    a1 = unit("article-1", "Harbour cranes shall be inspected; see Article 2.")
    a2 = unit("article-2", "Harbour cranes inspection records are kept.")
    a3 = unit("article-3", "Harbour fees.")
    s = _store(tmp_path, [a1, a2, a3], [ref(a1, "Article 2", "article-2")])
    r = retrieve("harbour cranes inspected records", store=s, embedder=HashEmbedder(), corpus="w",
                 settings=RetrievalSettings(k=3, hops=1, hop_slots=1, mode="bm25"))
    by = {h.unit_id: h.cited_by for h in r.hits}
    # Article 1 cites Article 2: the forward hop from 1 and the backward hop from 2 both say so.
    assert by == {"article-1": [], "article-2": ["article-1"], "article-3": []}


def test_followed_from_always_names_a_shown_hit(tmp_path):
    a1 = unit("article-1", "Tea kettles whistle loudly and tea kettles whistle.")
    a2 = unit("article-2", "Tea kettles whistle; see Annex II.")
    x2 = unit("annex-2", "Ships and anchors.", kind="annex")
    s = _store(tmp_path, [a1, a2, x2], [ref(a2, "Annex II", "annex-2")])
    for k in (1, 2, 3):
        r = retrieve("tea kettles whistle loudly", store=s, embedder=HashEmbedder(), corpus="w",
                     settings=RetrievalSettings(k=k, hops=1, mode="bm25", hop_decay=1.0, hop_floor=1.0))
        shown = {(h.unit_id, h.part) for h in r.hits}
        assert len(r.hits) == min(k, 3)
        for h in r.hits:
            if h.via:
                assert (h.via[0].unit_id, h.via[0].part) in shown, (k, h.path)
            assert set(h.cited_by) <= {x.label for x in r.hits}


def test_a_part_label_with_spaces_prints_its_whole_route():
    h = Hit(chunk_id="c", unit_id="pep-287", doc_id="pep-287", kind="file", part="Docstring Strings", start=0,
            end=1, text="x", score=0.1, rank=1,
            via=[PathStep(unit_id="pep-257", to_unit="pep-287", to_part="Docstring Strings", kind="cited_by")])
    assert h.route == "→ pep-257"
    out = _render(Retrieval(question="docstring conventions", corpus="peps", hits=[h]), 40)
    assert "via → pep-257" in out and "Strings)" not in out.split("score")[1].split("\n")[0]


def test_a_named_hit_and_notes_are_printed():
    h = Hit(chunk_id="c", unit_id="annex-3", doc_id="d", kind="annex", start=0, end=1, text="x", score=0.1, rank=1,
            named="Annex III")
    out = _render(Retrieval(question="q", corpus="aiact", hits=[h], notes=["'Article 999' in the question is not in "
                                                                            "this corpus"]), 40)
    assert "named in the question (Annex III)" in out and "note: 'Article 999'" in out


def test_followed_hits_from_one_hit_can_be_limited(tmp_path):
    a1 = unit("article-1", "Lifeboats shall be inspected; see Annex I and Annex II.")
    x1 = unit("annex-1", "Oars and buckets.", kind="annex")
    x2 = unit("annex-2", "Flares and whistles.", kind="annex")
    s = _store(tmp_path, [a1, x1, x2], [ref(a1, "Annex I", "annex-1"), ref(a1, "Annex II", "annex-2")])

    def followed(**kw):
        r = retrieve("lifeboats inspected", store=s, embedder=HashEmbedder(), corpus="w",
                     settings=RetrievalSettings(k=3, hops=1, mode="bm25", candidates=1, hop_slots=2, **kw))
        return sorted(h.unit_id for h in r.hits if h.via)
    assert followed() == ["annex-1", "annex-2"]
    assert len(followed(hop_per_parent=1)) == 1


def test_a_reference_to_another_paragraph_brings_that_paragraphs_own_references(tmp_path):
    """Article 5(2) uses 'the objectives referred to in paragraph 1'; paragraph 1 names Annex II, so Annex II
    is one hop from 5(2), and the step says which paragraph wrote the reference."""
    text = ("1. Identification is allowed only for the offences listed in Annex II.\n"
            "2. Police identification of suspects in public spaces is allowed only for the objectives of paragraph 1.")
    a5 = unit("article-5", text, parts=[("1", text.split("\n")[0]), ("2", text.split("\n")[1])])
    x2 = unit("annex-2", "Terrorism; trafficking in human beings; murder; kidnapping.", kind="annex")
    a9 = unit("article-9", "Fees for boats.")
    s = _store(tmp_path, [a5, x2, a9], [ref(a5, "Annex II", "annex-2"), ref(a5, "paragraph 1", "article-5", "1")])
    settings = dict(k=2, hops=1, mode="bm25", hop_decay=1.0, hop_floor=1.0, per_unit=1)
    r = retrieve("police identification of suspects in public spaces", store=s, embedder=HashEmbedder(),
                 corpus="w", settings=RetrievalSettings(**settings))
    assert [(h.unit_id, h.part) for h in r.hits][0] == ("article-5", "2")
    annex = next(h for h in r.hits if h.unit_id == "annex-2")
    step = annex.via[0]
    assert (step.unit_id, step.part, step.raw, step.through, step.depth) == ("article-5", "2", "Annex II",
                                                                             "paragraph 1", 1)
    assert "through 'paragraph 1'" in annex.why
    off = retrieve("police identification of suspects in public spaces", store=s, embedder=HashEmbedder(),
                   corpus="w", settings=RetrievalSettings(**settings, through_parts=False))
    assert all(h.unit_id != "annex-2" for h in off.hits)
