"""A question for a country ("In which country must the officer be resident?", "Under which country's law ...?") is
answered by the name of one or by the class picked out by what follows it ("the Member State where the testing is
conducted"), not by the class alone ("Member States shall ensure ...", an actor), a capitalised title or a word such
as "premises" (``anchor_core.ask.question.answer_values``)."""

import pytest

from anchor_core.ask.question import answer_values


@pytest.mark.parametrize("text, question, values", [
    # a name, or initials, after a preposition of place
    ("A Representative Office must have a Principal Representative who is resident in the U.A.E. at all times.",
     "In which country must the representative be resident?", ["U.A.E."]),
    ("The register shall be kept in Ireland.", "In which country must the register be kept?", ["Ireland"]),
    # the class picked out by a relative clause or by "of his or her habitual residence"
    ("The market surveillance authority in the Member State where the testing is to be conducted shall approve it.",
     "In which country must the test subjects live?", ["Member State where the testing is to be conducted"]),
    ("A complaint may be lodged in the Member State of his or her habitual residence, place of work or place of the "
     "alleged infringement.", "In which country can I file a complaint?",
     ["Member State of his or her habitual residence"]),
    ("The law of the Member State to which the controller is subject should apply.",
     "Which country's exemptions apply to our processing?",
     ["Member State to which the controller is subject should apply"]),
    # any one of the class
    ("A notified body shall be established under the national law of a Member State.",
     "Under which country's law must it be established?", ["of a Member State"]),
    # the class as an actor, a title, or a description: no country
    ("Member States shall ensure that those certification bodies are accredited.",
     "In which country does the GDPR require a certification body to be established?", []),
    ("The function is carried out by an individual who is a Director, Partner or Senior Manager of the firm.",
     "In which country does that officer have to be resident?", []),
    ("The arrangement may designate a contact point for data subjects.",
     "In which country must that contact point be located?", []),
    # the question's own situation does not make it a country question
    ("The register shall be kept at its registered office.",
     "We asked which country to use. Where must the register be kept?", ["registered office"]),
])
def test_what_answers_a_country_question(text, question, values):
    assert answer_values(text, "place", question) == values


def test_a_city_question_still_wants_a_city_name_not_initials():
    assert answer_values("The register shall be kept in the UAE.", "place", "In which city must it be kept?") == []
    assert answer_values("The Board shall have its seat in Brussels.", "place",
                         "In which city does the Board meet?") == ["Brussels"]
