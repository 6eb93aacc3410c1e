from anchor_core.scorers.features import ALL_FEATURES, LEXICAL_FEATURES, pair_features, reasons_for

SRC = "Providers of high-risk AI systems shall not place the system on the market before 2 August 2026."


def test_identical_text_is_ideal():
    v = pair_features(SRC, SRC, cosine=1.0).values
    assert list(v) == list(ALL_FEATURES)
    assert v["cov_uni"] == v["cov_bi"] == v["entity_cov"] == 1.0
    for f in ("missing_share", "missing_run", "numbers_missing", "years_conflict", "years_missing", "negation_mismatch",
              "modality_mismatch", "qualifier_dropped"):
        assert v[f] == 0.0, f


def test_without_cosine_the_embedding_feature_is_absent():
    assert list(pair_features(SRC, SRC).values) == list(LEXICAL_FEATURES)


def test_numbers_years_and_amounts():
    a = pair_features("The fine is EUR 35 000 000 from 2018.", "A fine of 35 million euros applies from 2019.")
    assert a.values["numbers_missing"] == 0.0 and a.values["years_conflict"] == 1.0 and a.values["years_missing"] == 0
    assert reasons_for(a, "years_conflict") == ["number 2019 not in the quoted span"]
    b = pair_features("The fine is EUR 35 000 000.", "The fine is EUR 20 000 000.")
    assert b.values["numbers_missing"] == 1.0
    assert reasons_for(b, "numbers_missing") == ["amount 20 000 000 not in the quoted span"]


def test_negation_on_either_side():
    a = pair_features(SRC, SRC.replace("shall not place", "shall place"))
    assert a.values["negation_mismatch"] == 1.0 and a.negation == "negation differs: source says 'shall not'"
    b = pair_features("The controller shall notify the authority.", "The controller does not notify the authority.")
    assert b.negation == "negation differs: claim says 'does not', source does not"
    # a negation elsewhere in the window, about other content, is not a mismatch
    c = pair_features("The controller shall notify the authority. Processors are not covered.",
                      "The controller shall notify the authority.")
    assert c.values["negation_mismatch"] == 0.0
    assert pair_features("It applies without prejudice to Article 5.", "It applies.").values["negation_mismatch"] == 0


def test_modality_change():
    a = pair_features("Member States may designate an authority.", "Member States shall designate an authority.")
    assert a.values["modality_mismatch"] == 1.0 and a.modality == ("may", "shall")
    assert reasons_for(a, "modality_mismatch") == ["modality differs: source 'may', claim 'shall'"]
    same = pair_features("Member States must designate an authority.", "Member States shall designate an authority.")
    assert same.values["modality_mismatch"] == 0.0


def test_qualifier_dropped_only_when_it_governs_the_matched_sentence():
    src = "Where the processing is based on consent, the controller shall keep records. Data may be stored."
    a = pair_features(src, "The controller shall keep records.")
    assert a.values["qualifier_dropped"] == 1.0 and a.qualifier == "where"
    kept = pair_features(src, "Where processing is based on consent, the controller shall keep records.")
    assert kept.values["qualifier_dropped"] == 0.0
    other = pair_features("Fees are paid unless waived. The controller shall keep records.",
                          "The controller shall keep records.")
    assert other.values["qualifier_dropped"] == 0.0
    unless = pair_features("The provider shall register the system, unless it is exempted.",
                           "The provider shall register the system.")
    assert reasons_for(unless, "qualifier_dropped") == ["qualifier dropped: source says 'unless', claim does not"]


def test_entities_and_missing_words():
    a = pair_features("The regulation protects personal data.", "The GDPR protects personal data of Europeans.")
    assert a.values["entity_cov"] == 0.0
    assert reasons_for(a, "entity_cov") == ["entity 'GDPR' not in the quoted span",
                                            "entity 'Europeans' not in the quoted span"]
    b = pair_features("The regulation protects personal data.", "The regulation protects sensitive health data.")
    assert b.values["cov_uni"] == 0.6
    assert reasons_for(b, "cov_uni") == ["claim words not in the quoted span: 'sensitive', 'health'"]


def test_negation_and_qualifier_count_only_in_the_sentence_that_states_the_claim():
    from anchor_core.scorers.features import pair_features

    claim = "The committee approved the new budget for the school."
    premise = ("The committee approved the new budget for the school on Monday. "
               "The committee did not approve the school trip, unless parents pay.")
    a = pair_features(premise, claim)
    assert a.negation is None and a.qualifier is None
    flipped = pair_features("The committee did not approve the new budget for the school.", claim)
    assert flipped.negation is not None
