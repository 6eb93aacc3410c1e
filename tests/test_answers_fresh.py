"""The split of the spent held-out rounds that ``eval.answers_fresh`` trains and validates on, and its pair labels."""

import pickle

from anchor_core.models import Hit
from eval import answers_fresh as F


def hit(text: str, unit: str) -> Hit:
    return Hit(chunk_id=f"c-{unit}-{len(text)}", unit_id=unit, doc_id="d", kind="article", heading="Article 9",
               start=0, end=len(text), text=text, score=1.0)


def test_rounds_are_split_by_time_and_the_unrun_ones_are_never_read():
    spent = F.spent_sets()
    assert not set(F.HELD_OUT) & set(spent)
    assert set(F.VALIDATION) <= set(spent)
    train = F.training_sets()
    assert train and not set(train) & set(F.VALIDATION)
    newest = {F.corpus_of(s): int(s[len(F.corpus_of(s)):]) for s in F.HELD_OUT}
    for s in spent:  # nothing newer than the held-out round of its corpus (round 22 and later are unrun too)
        assert int(s[len(F.corpus_of(s)):] or 1) < newest[F.corpus_of(s)]
    assert F.corpus_of("aiact19") == "aiact" and F.corpus_of("adgm") == "adgm"


def test_pairs_label_the_fact_passage_one_and_leave_gold_passages_without_it_out(tmp_path):
    fact = "within 14 days"
    rows = [{"id": "q1", "set": "x", "question": "How soon must the firm notify?", "answerable": True,
             "fact": fact, "gold": ["rule-1"],
             "hits": [hit("The firm must notify the Regulator within 14  days of the change.", "rule-1"),
                      hit("The firm must keep records of every notification.", "rule-1"),
                      hit("A fee is payable on application.", "rule-7")]},
            {"id": "q2", "set": "x", "question": "How much is the notification fee?", "answerable": False,
             "fact": "", "gold": [], "hits": [hit("A fee is payable on application.", "rule-7")]}]
    (tmp_path / "fresh-rows-adgm3.pkl").write_bytes(pickle.dumps(rows))
    pairs = F.fresh_pairs(tmp_path, ["adgm3"])
    got = [(p["q"][:8], p["p"].split(". ", 1)[-1][:20], p["y"], p["src"]) for p in pairs]
    assert got == [("How soon", "The firm must notify", 1, "fresh-pos"),  # the fact, whitespace aside
                   ("How soon", "A fee is payable on ", 0, "fresh-other"),  # outside the gold units, no fact
                   ("How much", "A fee is payable on ", 0, "fresh-unanswerable")]
    assert {p["corpus"] for p in pairs} == {"adgm"} and {p["group"] for p in pairs} == {"fresh:q1", "fresh:q2"}
