"""Smoke test of the anchoring benchmark's metrics: hand-made WiCE-like rows, the lexical scorer with a
fixed threshold, the hash embedder. No ../shared data, no MiniLM."""

from __future__ import annotations

import json

import pytest

from anchor_core.embeddings import HashEmbedder
from anchor_core.scorers.lexical import LexicalScorer
from anchor_core.segment import split_sentences
from eval import anchor_bench as ab

ROWS = [
    {   # supported, quoted verbatim → true positive whose quote lies in the gold sentence
        "label": "supported", "supporting_sentences": [[1]],
        "claim": "Cats sleep for sixteen hours every day.",
        "evidence": ["(meta data) TITLE: Cats", "Cats sleep for sixteen hours every day.", "Their fur is soft."],
    },
    {   # supported, but paraphrased with no shared word → false negative (score 0)
        "label": "supported", "supporting_sentences": [[1]],
        "claim": "Felines doze through afternoons.",
        "evidence": ["(meta data) TITLE: Cats", "Cats sleep a lot.", "Their fur is soft."],
    },
    {   # not supported, one content word of three (moon, green, cheese) in the source → true negative (1/3)
        "label": "not_supported", "supporting_sentences": [[]],
        "claim": "The moon is green cheese.",
        "evidence": ["(meta data) TITLE: Moon", "The Moon orbits the Earth every month.", "Astronauts landed in 1969."],
    },
]


@pytest.fixture
def scorer(tmp_path):
    params = tmp_path / "lexical.json"
    params.write_text(json.dumps({"threshold": 0.5}), encoding="utf-8")
    return LexicalScorer(params_path=params)


def test_join_evidence_offsets():
    source, spans = ab.join_evidence(["ab", "", "cde"])
    assert source == "ab\n\ncde"
    assert [source[s:e] for s, e in spans] == ["ab", "", "cde"]


def test_wice_metrics_end_to_end(scorer):
    items = ab.wice_items(ROWS)
    assert items[2].gold == []  # empty annotated sets are dropped
    assert items[0].gold_spans == [items[0].spans[1]]
    preds, secs = ab.run_all(ab.anchor_anchorer(scorer, HashEmbedder()), [(it.claim, it.source) for it in items])
    assert secs >= 0
    assert [p.supported for p in preds] == [True, False, False]
    assert preds[0].method == "verbatim" and preds[0].score == 1.0
    assert preds[1].score == 0.0
    assert preds[2].score == pytest.approx(1 / 3, abs=1e-4)

    m = ab.wice_metrics(items, preds)
    # TP 1 (row 0), FN 1 (row 1), TN 1 (row 2), FP 0.
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == (1, 0, 1, 1)
    assert m["precision"] == 1.0 and m["recall"] == 0.5
    assert m["f1"] == pytest.approx(2 * 1.0 * 0.5 / 1.5, abs=1e-4)
    assert m["rejected"] == 1.0
    assert m["partial"] is None and m["n_partial"] == 0
    assert (m["exact"], m["returned"]) == (3, 3)  # best_anchor returns a span for every claim
    assert m["touches_gold"] == 1.0 and m["in_gold_share"] == 1.0
    assert (m["n_supported"], m["n_not_supported"], m["errors"]) == (2, 1, 0)

    # Sweep over the stored scores 1.0, 0.0, 0.33: at 0.2 row 2 flips to a false positive.
    low, high = ab.sweep(items, preds, [0.2, 0.9])
    assert (low["precision"], low["recall"], low["rejected"]) == (0.5, 0.5, 0.0)
    assert (high["precision"], high["recall"], high["rejected"]) == (1.0, 0.5, 1.0)


def test_wice_metrics_on_hand_built_predictions():
    evidence = ["meta", "one.", "two.", "three."]
    rows = [
        {"label": "supported", "supporting_sentences": [[1]], "claim": "a", "evidence": evidence},
        {"label": "supported", "supporting_sentences": [[2], [3]], "claim": "b", "evidence": evidence},
        {"label": "not_supported", "supporting_sentences": [], "claim": "c", "evidence": evidence},
        {"label": "not_supported", "supporting_sentences": [], "claim": "d", "evidence": evidence},
        {"label": "partially_supported", "supporting_sentences": [[1]], "claim": "e", "evidence": evidence},
    ]
    items = ab.wice_items(rows)
    src = items[0].source  # "meta\none.\ntwo.\nthree."
    preds = [
        ab.Pred(True, 5, 9, "one.", 0.9),        # TP, inside gold sentence 1
        ab.Pred(True, 0, 4, "meta", 0.8),        # TP, but the quote misses gold sentences 2 and 3
        ab.Pred(True, 10, 14, "WRONG", 0.7),     # FP, and its quote is not source[start:end]
        ab.Pred(False),                          # TN, nothing returned
        ab.Pred(True, 5, 9, "one.", 0.6),        # partial predicted supported
    ]
    assert src[5:9] == "one." and src[0:4] == "meta"
    m = ab.wice_metrics(items, preds)
    assert (m["tp"], m["fp"], m["fn"], m["tn"]) == (2, 1, 0, 1)
    assert m["precision"] == pytest.approx(0.6667, abs=1e-4)
    assert m["recall"] == 1.0
    assert m["f1"] == pytest.approx(0.8, abs=1e-4)
    assert m["rejected"] == 0.5
    assert m["partial"] == 1.0
    assert (m["exact"], m["returned"]) == (2, 3)
    assert m["touches_gold"] == 0.5
    assert m["in_gold_share"] == 0.5  # TP 1 lies wholly in gold, TP 2 not at all
    assert m["quote_chars_median"] == 4


def test_clapnq_items_and_metrics():
    passage = "Alpha is first. Beta is second. Gamma is third."
    rows = [
        {"id": "1", "passages": [{"text": passage}],
         "output": [{"answer": "", "selected_sentences": []},
                    {"answer": "Beta is second. Gamma is third.", "selected_sentences": ["Beta is second."]}]},
        {"id": "2", "passages": [{"text": passage}],
         "output": [{"answer": "Delta.", "selected_sentences": ["Not in the passage."]}]},
        {"id": "3", "passages": [{"text": passage}], "output": []},
    ]
    items, skipped = ab.clapnq_items(rows, lambda t: [s.text for s in split_sentences(t)])
    assert skipped == {"no_answer": 1, "selected_not_found": 1, "no_passage": 0}
    assert len(items) == 1 and items[0].selected == [(16, 31)]
    assert items[0].sentences == ["Beta is second.", "Gamma is third."]
    preds = [[ab.Pred(True, 16, 31, "Beta is second.", 0.9), ab.Pred(False, 32, 47, "Gamma is third.", 0.2)]]
    m = ab.clapnq_metrics(items, preds)
    assert (m["rows"], m["sentences"]) == (1, 2)
    assert m["overlap"] == 0.5 and m["supported"] == 0.5 and m["overlap_given_supported"] == 1.0
    assert (m["exact"], m["returned"]) == (2, 2)


def test_main_skips_without_data(tmp_path, capsys):
    assert ab.main(["--data", str(tmp_path / "absent"), "--out", str(tmp_path / "out")]) == 0
    assert "skipping" in capsys.readouterr().out
    assert not (tmp_path / "out.json").exists()
