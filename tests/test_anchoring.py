import pytest

from anchor_core.anchoring import (
    InputError,
    _needs,
    _number_units,
    anchor_claim,
    best_anchor,
    decompose,
    extra_sentences,
    source_index,
)
from anchor_core.embeddings import HashEmbedder
from anchor_core.scorers import make_scorer

SOURCE = (
    "Article 99\nPenalties\n"
    "1. Member States shall lay down the rules on penalties applicable to infringements of this Regulation.\n"
    "2. Non-compliance with the prohibition of the AI practices referred to in Article 5 shall be subject to "
    "administrative fines of up to EUR 35 000 000 or, if the offender is an undertaking, up to 7 % of its total "
    "worldwide annual turnover, whichever is higher.\n"
    "3. The Commission may adopt guidelines on the calculation of fines, e.g. for SMEs.\n"
    "Page 3 of 10\n"
)


@pytest.fixture(params=["lexical", "learned"])
def scorer(request):
    if request.param == "learned":
        return make_scorer("learned", embedder=HashEmbedder())
    return make_scorer("lexical")


def test_verbatim_quote_anchors_at_once_with_exact_offsets(scorer):
    claim = "administrative fines of up to EUR 35 000 000"
    a = anchor_claim(f"Infringements lead to {claim}.", SOURCE, scorer=scorer)
    a = anchor_claim(claim + " or 7 % of turnover", SOURCE, scorer=scorer) or a
    exact = anchor_claim("shall be subject to administrative fines of up to EUR 35 000 000", SOURCE, scorer=scorer)
    assert exact is not None and exact.method == "verbatim" and exact.score == 1.0
    assert SOURCE[exact.start:exact.end] == exact.quote
    assert exact.quote == "shall be subject to administrative fines of up to EUR 35 000 000"  # the matched part only


def test_near_verbatim_with_changed_whitespace_and_case(scorer):
    a = anchor_claim("member states  shall lay down the rules on penalties applicable", SOURCE, scorer=scorer)
    assert a is not None and a.method == "verbatim"
    assert SOURCE[a.start:a.end] == a.quote
    assert a.quote.startswith("Member States shall lay down")


def test_a_quote_with_curly_apostrophes_is_verbatim_as_the_source_writes_it(scorer):
    """Sources are matched after normalisation (curly quotes straightened); a claim copied from
    the source with its curly apostrophes must be normalised the same way, not scored 98/100."""
    source = "The provider’s technical documentation shall be kept at the national authorities’ disposal."
    claim = "The provider’s technical documentation shall be kept at the national authorities’ disposal."
    a = anchor_claim(claim, source, scorer=scorer)
    assert a is not None and a.method == "verbatim" and a.reasons[0] == "quoted verbatim"
    assert source[a.start:a.end] == a.quote and a.quote == claim.rstrip(".")
    straight = anchor_claim(claim.replace("’", "'"), source, scorer=scorer)   # typed with straight ones
    assert straight is not None and straight.reasons[0] == "quoted verbatim"


def test_paraphrase_is_anchored_to_the_right_sentence(scorer):
    a = best_anchor("Member States must set out the rules on penalties for infringements.", SOURCE, scorer=scorer)
    assert a is not None
    assert "rules on penalties" in a.quote and SOURCE[a.start:a.end] == a.quote


def test_number_drift_is_flagged_and_explained():
    a = best_anchor("Fines for prohibited AI practices can reach EUR 50 000 000.", SOURCE,
                    scorer=make_scorer("learned", embedder=HashEmbedder()))
    assert a is not None and "number_mismatch" in a.flags
    assert any("50 000 000" in r for r in a.reasons)
    assert not a.supported


def test_unrelated_claim_is_not_supported(scorer):
    assert anchor_claim("The moon orbits the earth every 27 days.", SOURCE, scorer=scorer) is None


def test_noise_lines_are_never_quoted(scorer):
    a = best_anchor("Page 3 of 10", SOURCE, scorer=scorer)
    assert a is None or "Page 3" not in a.quote


def test_used_sentences_are_avoided_when_another_is_as_good():
    src = "The fee is due in May. The fee is due in May. Something else entirely."
    lex = make_scorer("lexical")
    first = best_anchor("The fee is due in May.", src, scorer=lex)
    second = best_anchor("The fee is due in May", src, scorer=lex, used=set(first.sentences))
    assert first.start != second.start or first.method == "verbatim"


def test_bad_input_is_refused():
    with pytest.raises(InputError, match="claim is empty"):
        anchor_claim("  ", SOURCE)
    with pytest.raises(InputError, match="source is empty"):
        anchor_claim("a claim here", "")
    with pytest.raises(InputError, match="binary"):
        anchor_claim("a claim here", "abc\x00def")
    with pytest.raises(InputError, match="no sentences"):
        anchor_claim("a claim here", "Page 3 of 10")


def test_index_is_cached_per_source():
    assert source_index(SOURCE) is source_index(SOURCE)


@pytest.mark.parametrize("claim, atoms", [
    ("The provider must register the system; the deployer must keep logs.",
     ["The provider must register the system", "the deployer must keep logs"]),
    ("Fines reach EUR 35 million but SMEs pay the lower amount.",
     ["Fines reach EUR 35 million", "SMEs pay the lower amount"]),
    ("Cats and dogs are mammals.", ["Cats and dogs are mammals"]),
])
def test_decompose(claim, atoms):
    assert decompose(claim) == atoms


DATELINE_SOURCE = (
    "Published 7:33 a.m. ET Aug. 10, 2014\n"
    "The weather in the valley was mild all week.\n"
    "Local bakeries reported record sales of bread.\n"
    "The council met to discuss the parking rules.\n"
    "Regan Smith replaced Tony Stewart in the race at Watkins Glen on Sunday.\n"
)


def test_a_missing_date_is_taken_from_a_dateline_as_an_extra_span():
    claim = "Regan Smith took the place of Tony Stewart at Watkins Glen in 2014."
    with_extra = best_anchor(claim, DATELINE_SOURCE, scorer=make_scorer("lexical"))
    without = best_anchor(claim, DATELINE_SOURCE, scorer=make_scorer("lexical"), multi_span=False)
    assert without is not None and "number_mismatch" in without.flags
    assert with_extra is not None and with_extra.score > without.score and "number_mismatch" not in with_extra.flags
    assert "Regan Smith replaced" in with_extra.quote
    assert len(with_extra.extra_spans) == 1 and "Aug. 10, 2014" in with_extra.extra_spans[0].quote
    for span in [with_extra, *with_extra.extra_spans]:
        assert DATELINE_SOURCE[span.start:span.end] == span.quote


def test_nearly_verbatim_quote_with_another_number_is_scored_not_passed():
    claim = "In 2019 Regan Smith replaced Tony Stewart in the race at Watkins Glen."
    a = best_anchor(claim, DATELINE_SOURCE, scorer=make_scorer("lexical"), multi_span=False)
    assert a is not None and a.method != "verbatim" and not a.supported and "number_mismatch" in a.flags


def test_extra_spans_only_bring_numbers_not_names():
    # The name is elsewhere, but no number is missing: no extra span (names found elsewhere led to false passes).
    src = "Tony Stewart won many races.\nThe weather was mild.\nThe bakery sold bread.\nSmith drove the car on Sunday."
    a = best_anchor("Smith drove the car of Tony Stewart on Sunday.", src, scorer=make_scorer("lexical"))
    assert a is not None and a.extra_spans == []


def test_an_extra_span_states_a_count_next_to_what_it_counts():
    # "April 1" holds the number 1 but not the "1" of "Season 1"; "Season 1 premiered" does. Years are exempt.
    claim = "Season 1 of the show was released on Netflix in 2013."
    base = "Posted March 29, 2013\nThe show was released on Netflix.\nThe weather was mild.\nThe bakery sold bread.\n"

    def extras(source: str) -> list[str]:
        idx = source_index(source)
        w = next(w for w in idx.windows if w.text == "The show was released on Netflix.")
        chosen = extra_sentences(idx, _needs(claim), w.first, w.last, units=_number_units(claim))
        return [idx.sentences[i].text for i in chosen]

    assert extras(base + "New April 1: a film from 1984.") == ["Posted March 29, 2013"]
    assert extras(base + "Season 1 premiered in the spring.") == ["Posted March 29, 2013",
                                                                  "Season 1 premiered in the spring."]


def test_quote_is_shrunk_to_the_sentence_that_carries_the_claim():
    src = ("Member States shall lay down the rules on penalties. They shall notify the Commission. "
           "The rules shall be effective and proportionate.")
    scorer = make_scorer("lexical")
    a = best_anchor("Member States set the rules on penalties.", src, scorer=scorer)
    full = best_anchor("Member States set the rules on penalties.", src, scorer=scorer, shrink_margin=None)
    assert a is not None and a.quote == "Member States shall lay down the rules on penalties."
    assert len(a.quote) <= len(full.quote) and src[a.start:a.end] == a.quote


def test_the_closest_span_of_an_unsupported_claim_shares_its_words_not_a_title():
    # every window scores about 0 (the claim's number is in none): the title and the clause heading score a hair
    # more than the sentence the claim misstates, which is still the closest span to show
    src = ("Supplier Code of Conduct\n\n2. Child labour. Suppliers must not employ any person under the age of 16."
           "\n\n3. Working hours. Working hours must not exceed 60 hours per week, including overtime.")
    a = best_anchor("Suppliers may employ people aged 15", src, scorer=make_scorer("learned"))
    assert a is not None and not a.supported
    assert a.quote == "Suppliers must not employ any person under the age of 16."
    assert src[a.start:a.end] == a.quote


def test_compound_claim_is_supported_only_when_every_atom_is():
    claim = "Member States shall lay down the rules on penalties; the fines are paid to the United Nations."
    a = best_anchor(claim, SOURCE, scorer=make_scorer("lexical"))
    assert a is not None and not a.supported
    assert any("United Nations" in r for r in a.reasons)
    whole = best_anchor("Member States shall lay down the rules on penalties applicable to infringements; "
                        "the Commission may adopt guidelines on the calculation of fines.", SOURCE,
                        scorer=make_scorer("lexical"))
    assert whole is not None and whole.supported
    for span in [whole, *whole.extra_spans]:
        assert SOURCE[span.start:span.end] == span.quote


def test_a_heading_picked_with_the_sentence_that_holds_the_number_gives_way_to_that_sentence():
    # the learned scorer puts "1. DELIVERY" + the 1.2 sentence (brought in for its "7") a hair above 1.2 alone:
    # the quote was the heading, with the sentence that states the claim as an extra span
    text = ("SUPPLY AGREEMENT\n1. DELIVERY\n1.1 The Supplier shall deliver the Goods to the Customer.\n"
            "1.2 The Customer shall notify any defect within 7 days of delivery.\n")
    a = best_anchor("Defects must be notified within 7 days of delivery.", text,
                    scorer=make_scorer("learned", embedder=HashEmbedder()))
    assert a is not None and a.supported
    assert a.quote == "1.2 The Customer shall notify any defect within 7 days of delivery." and not a.extra_spans
    assert text[a.start:a.end] == a.quote


DEFINED = ("1. DEFINITIONS\n1.1 'Business Day' means a day other than a Saturday or Sunday.\n"
           "2. PAYMENT\n2.1 The Customer shall pay each invoice within 30 days of receipt.\n")


def test_a_definition_of_another_term_does_not_support_a_definition_claim(scorer):
    # the learned scorer put "Days means Business Days." at 0.99 on the 'Business Day' definition: the words
    # are shared, the definition is read backwards
    a = best_anchor("Days means Business Days.", DEFINED, scorer=scorer)
    assert a is not None and not a.supported
    assert "the quote defines ‘Business Day’, not what the claim defines (‘Days’)" in a.reasons
    noted = DEFINED + "Footnote 2: Days here means Business Days, as defined in clause 1.1.\n"
    a = best_anchor("Days means Business Days.", noted, scorer=scorer)
    assert a is not None and a.supported and a.quote.startswith("Footnote 2: Days here means Business Days")


def test_the_same_term_defined_in_other_words_is_still_read_as_its_definition():
    scorer = make_scorer("learned", embedder=HashEmbedder())
    for claim in ("A Business Day means any day other than a Saturday or a Sunday.",
                  "The term 'business days' refers to days other than Saturday or Sunday."):
        a = best_anchor(claim, DEFINED, scorer=scorer)
        assert a is not None and a.supported and "'Business Day' means" in a.quote, claim
