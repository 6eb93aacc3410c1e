from anchor_core.scorers.text import analyse, parse_number, split_sentences, stem


def numbers(text: str) -> list[str]:
    return [t.key for t in analyse(text) if t.kind == "number"]


def test_stem_folds_inflections():
    assert {stem(w) for w in ("process", "processes", "processing", "processed")} == {"process"}
    assert stem("applies") == stem("applied") == stem("apply")
    assert stem("agreed") == stem("agree")
    assert stem("status") == "status"


def test_amounts_normalise_to_one_value():
    forms = ["35 000 000", "35,000,000", "35 million", "EUR 35 000 000", "35.000.000", "35\u00a0000\u00a0000"]
    assert {numbers(f)[0] for f in forms} == {"#35000000"}
    assert numbers("1.5 billion") == ["#1500000000"]
    assert numbers("five million") == ["#5000000"]


def test_decimals_dates_and_ordinals():
    assert parse_number("41.3") == 41.3
    assert parse_number("4,5") == 4.5
    assert numbers("On November 2, 2004 in the 1990s, the 3rd time") == ["#2", "#2004", "#1990", "#3"]


def test_amount_flag_marks_currency_and_scale():
    toks = [t for t in analyse("EUR 35 000 000 and 12 days and 3 billion") if t.kind == "number"]
    assert [t.amount for t in toks] == [True, False, True]


def test_contracted_negation_matches_not():
    assert "not" in {t.key for t in analyse("It doesn't apply")}


def test_split_sentences():
    assert split_sentences("It began in 2009. Flynn joined in 2014. ") == ["It began in 2009.", "Flynn joined in 2014."]


def test_must_and_shall_match():
    assert [t.key for t in analyse("must")] == [t.key for t in analyse("shall")]


def test_short_year_range_is_the_full_year_but_iso_dates_are_not():
    from anchor_core.scorers.text import analyse

    keys = [t.key for t in analyse("the 2018–19 season, 2018-2019, 2004-10-19, a 5-4 win") if t.kind == "number"]
    assert keys == ["#2018", "#2019", "#2018", "#2019", "#2004", "#10", "#19", "#5", "#4"]
