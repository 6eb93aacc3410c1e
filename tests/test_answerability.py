"""Question analysis, answerability from the answering passage, and answer relevance (issue 14)."""

import pytest

from anchor_core.ask import AskSettings, ask
from anchor_core.ask.question import acronym_in, analyse, expressions, lay_acronyms, predict_kind
from anchor_core.ask.relevance import relevance
from anchor_core.embeddings import HashEmbedder
from anchor_core.stores.sqlite import SQLiteStore
from tests.ask_fixtures import drone_store


@pytest.mark.parametrize("question, kind", [
    ("How long must we keep CCTV footage?", "duration"),
    ("Within how many hours must a personal data breach be notified?", "duration"),
    ("How much does a notified body charge to certify a high-risk AI system?", "amount"),
    ("What is the maximum administrative fine for engaging in a prohibited AI practice?", "amount"),
    ("What percentage of turnover can the fine be?", "percentage"),
    ("How many members does the European Data Protection Board have?", "count"),
    ("How long must a PKCE code verifier be?", "count"),
    ("How long must the authentication tag be when content is encrypted with AES GCM?", "count"),  # a length
    ("How long must the logs be kept when the system is high-risk?", "duration"),
    ("By what date must each Member State have a sandbox up and running?", "date"),
    ("Who sits on the European AI Board?", "person_or_body"),
    ("Which authority is the lead supervisor for a company in several countries?", "person_or_body"),
    ("In which country can I file a complaint?", "place"),
    ("Do chatbots have to tell users they are talking to a machine?", "yes_no"),
    ("If a distributor puts its own brand on a system, does it take on the provider's obligations?", "yes_no"),
    ("Which documents must the provider keep?", "list"),
    ("What has to be written into a data processing agreement with a vendor?", "list"),
    ("How do you declare build-system requirements for a package?", "procedure"),
    # a scene-setting sentence and a conditional "when" do not ask for a date
    ("Our head of trading has left the firm. How quickly must we ask the regulator to withdraw his status?",
     "duration"),
    ("When setting up the risk management process, do we have to consider effects on minors?", "yes_no"),
    # "count" the verb asks for no number; the noun does
    ("Which types of data count as sensitive categories?", "list"),
    ("What is the maximum count of retries?", "count"),
    # a rate named by several words is still a rate; "the name of the person" asks for a person
    ("What is the maximum false positive rate allowed for remote biometric identification?", "percentage"),
    ("What is the rate limit of the endpoint?", "other"),
    ("What is the name of the person who chairs the Board?", "person_or_body"),
    ("What is the name of the company that runs the registry?", "person_or_body"),
    ("What is the name of the regulation?", "other"),
    # "which company" asks for a body, "what minimum score" for a number
    ("Which company hosts the documentation?", "person_or_body"),
    ("Which firm must appoint the officer?", "person_or_body"),
    ("What minimum score must a new project reach on the quality check?", "count"),
    # "how long does X have to be" asks for a length as "how long must X be" does, after a condition too; a
    # verb after "be" makes it a period again
    ("If our JWE uses A128CBC-HS256, how long does the content encryption key have to be?", "count"),
    ("How long does a notified body have to be accredited before it can work?", "duration"),
    ("If a breach happens, how long do we have to be notified?", "duration"),
    # "how long, in bits" names the unit of a length; "in days" names a period's
    ("How long, in bits, should a generated token value be according to the threat model?", "count"),
    ("How long, in days, must the logs be kept?", "duration"),
    # "how many euros" asks for a sum, as "how much" does
    ("Up to how many euros can a notified body be fined?", "amount"),
    ("How many US dollars must the firm hold?", "amount"),
    # a "term" of office is a period; the term a question asks about is a word, not a period
    ("What is the term of office of the chair?", "duration"),
    ("What does the term 'deployer' mean?", "definition"),
    ("Several provisions carve out 'sensitive operational data'. What exactly does that term cover?", "list"),
])
def test_answer_kind_is_read_from_the_question(question, kind):
    assert predict_kind(question) == kind


def test_focus_keeps_every_part_of_a_multi_word_focus():
    a = analyse("What is the retention period for CCTV footage?")
    assert a.kind == "duration" and a.value
    assert a.parts == ["retention", "cctv", "footage"]  # "period" names the kind, not the subject
    assert analyse("How many days' notice must a processor give?").numeric


def test_expressions_of_a_kind_skip_references():
    assert expressions("not later than 72 hours after having become aware of it", "duration") == ["72 hours"]
    # an ordinal day counted from an event is a period ("enter into force on the twentieth day following ...")
    assert expressions("shall enter into force on the twentieth day following that of its publication", "duration") \
        == ["twentieth day following"]
    assert expressions("on the 30th day after its adoption", "duration") == ["30th day after"]
    assert expressions("the second paragraph of Article 4", "duration") == []
    assert expressions("in the first year of operation of the system", "duration") == []
    assert expressions("fines of up to EUR 35 000 000 or up to 7 % of turnover", "amount")
    assert expressions("in accordance with Article 62(2) and Annex VII point 4.3", "count") == []
    assert expressions("2. The Board shall be composed of one representative per Member State.", "count") == []


def test_names_are_told_by_their_capitals_in_case_insensitive_patterns():
    # lower-case words are not a body's or a place's name ("the modality", "providers placing ... in the Union")
    assert expressions("(e) the modality (e.g. text, image) and format of inputs and outputs;", "person_or_body") == []
    assert expressions("providers placing on the market or putting into service AI systems", "place") == []
    assert expressions("The European Artificial Intelligence Board is established.", "person_or_body") == [
        "The European Artificial Intelligence Board"]
    assert "Abu Dhabi Global Market" in " ".join(expressions("It is located in Abu Dhabi Global Market.", "place"))


def test_acronyms_used_as_common_nouns_are_not_foreign_names():
    assert lay_acronyms("Can we offer bonuses for CFD trading, and does a clinic need a DPO?") == {"cfd", "dpo"}
    assert "gdpr" not in lay_acronyms("What is the maximum fine under the GDPR for unlawful profiling?")
    assert acronym_in("gdpr", ["Regulation (EU) 2016/679 (General Data Protection Regulation)"])


def test_relevance_is_false_for_a_side_provision():
    q = "How long must deployers keep the logs of a high-risk AI system?"
    side = "Deployers shall use such systems in accordance with the instructions for use."
    lead = "Deployers of high-risk AI systems shall keep the logs automatically generated by that system."
    r = relevance(q, [side, lead])
    assert not r.addressed and r.kind == "duration" and r.claims == [False, False]
    assert "states no period" in r.reason and "logs" in r.reason
    ok = relevance(q, [lead + " The logs shall be kept for a period of at least six months."])
    assert ok.addressed and ok.claims == [True]


def test_relevance_needs_the_focus_not_only_the_kind():
    r = relevance("What is the maximum fine for drone operators?", ["Registration shall be renewed every three years."])
    assert not r.addressed and "about" in r.reason


def test_the_words_a_corpus_knows_do_not_pass_for_the_whole_question():
    q = "Do chatbots have to tell users they are talking to a machine?"
    claim = ["High-risk AI systems shall be designed with appropriate human-machine interface tools."]
    # the corpus writes "users" and "machine" only: one of them in the claim is a fifth of the question, not half
    weights = {"chatbots": 0.0, "tell": 0.0, "users": 2.0, "talking": 0.0, "machine": 2.0}
    assert not relevance(q, claim, weights=weights).addressed  # was addressed: "machine" is half of what is known
    known = {"providers": 1.0, "inform": 1.0, "persons": 1.0, "interacting": 1.0}
    assert relevance("Must providers inform persons they are interacting with an AI?",
                     ["Providers shall inform natural persons that they are interacting with an AI system."],
                     weights=known).addressed


@pytest.fixture
def store(tmp_path) -> SQLiteStore:
    return drone_store(tmp_path / "ask.db")


def _ask(store, q):
    return ask(q, store=store, embedder=HashEmbedder(), corpus="drones", settings=AskSettings())


def test_a_value_the_passage_does_not_state_is_refused_with_the_missing_part(store):
    # Article 3 covers registration at length but states no fee
    r = _ask(store, "How much does it cost to register a drone?")
    assert r.refused and r.reason_code == "not_answered"
    assert "state no amount" in r.reason and "register" in r.reason
    assert r.gate.signals["kind"] == "amount" and r.gate.signals["tied"] == 0.0


def test_a_value_stated_next_to_its_focus_is_answered_and_relevance_filled(store):
    r = _ask(store, "How often must a drone operator renew the registration?")
    assert not r.refused, r.reason
    assert r.gate.signals["expression"] == "three years"
    assert r.relevance is not None and r.relevance.kind == "duration"
    assert r.relevance.addressed and len(r.relevance.claims) == len(r.claims)


@pytest.mark.model
class TestAIAct:
    @pytest.fixture(scope="class")
    def aiact(self, aiact_minilm_home):
        return SQLiteStore(aiact_minilm_home.home / "anchor.db")

    def test_a_lay_word_question_is_answered_from_article_50(self, aiact, minilm):
        r = ask("Do chatbots have to tell users they are talking to a machine?", store=aiact, embedder=minilm,
                corpus="aiact", settings=AskSettings())
        # was refused: first "the corpus never mentions 'chatbots', 'tell', 'talking'", then (score fusion) Article
        # 71(4) and the units it cites filled the slots. BM25 now weighs by the share of the question's words the
        # AI Act writes (two of five here), so the dense rank-1 hit, Article 50(1), leads.
        assert not r.refused, r.reason
        assert "article-50" in {s.unit_id for s in r.sources}
        assert r.relevance is not None

    @pytest.mark.xfail(strict=True, reason="known defect: Article 50(1) is the first source, but the extractive "
                       "writer quotes Article 14(1) ('human-machine interface': the one sentence sharing a question "
                       "word); the headline says the answer does not address the question. Weighing unknown words "
                       "at the top IDF in the writer lost two answers on the answers bench (eval/README.md)")
    def test_the_chatbot_answer_quotes_article_50(self, aiact, minilm):
        r = ask("Do chatbots have to tell users they are talking to a machine?", store=aiact, embedder=minilm,
                corpus="aiact", settings=AskSettings())
        assert r.claims and r.claims[0].anchor is not None and r.claims[0].anchor.unit_id == "article-50"

    def test_a_quote_that_only_shares_the_known_words_is_not_called_an_answer(self, aiact, minilm):
        # the writer's Article 14(1) quote shares only "machine" with the chatbot question: the relevance check
        # (word overlap weighed by the share of the question the corpus knows) says it does not address it
        r = ask("Do chatbots have to tell users they are talking to a machine?", store=aiact, embedder=minilm,
                corpus="aiact", settings=AskSettings())
        assert r.relevance is not None and not r.relevance.addressed
        assert "article-14" in {c.anchor.unit_id for c in r.claims if c.anchor is not None}

    def test_a_notified_body_fee_is_refused_naming_the_missing_amount(self, aiact, minilm):
        r = ask("How much does a notified body charge to certify a high-risk AI system?", store=aiact,
                embedder=minilm, corpus="aiact", settings=AskSettings())
        assert r.refused and r.reason_code == "not_answered"
        assert "notified body" in r.reason and "no amount" in r.reason


@pytest.mark.parametrize("question, noun", [
    ("How many members does the European AI Board have?", "members"),
    ("After how many failed password attempts should a server lock the account?", "attempts"),
    ("How many core developers voted for the steering council model?", "developers"),
    ("What is the maximum number of signatures one JWS may carry?", "signatures"),
    ("What is the minimum length, in characters, of a client secret?", "characters"),
    ("What minimum key length must be used?", None),
])
def test_a_count_question_names_what_it_counts(question, noun):
    from anchor_core.ask.question import counted

    assert counted(question) == noun


def test_a_count_answers_only_next_to_the_counted_noun():
    from anchor_core.ask.answerable import counts_next_to
    from anchor_core.scorers.text import stem

    assert counts_next_to("The Board shall be composed of 27 members.", stem("members"))
    assert counts_next_to("A secret of at least 32 characters is required.", stem("characters"))
    # a number elsewhere in the sentence, or one inside a reference, is not a count of members
    assert not counts_next_to("Members of the Board are appointed under Article 65(2) for a term.", stem("members"))
    assert not counts_next_to("In 2024 the Board met its members in Brussels and Paris to discuss.", stem("members"))
    # a number written before a unit of measure measures in that unit: "200 GB download/month" counts no download
    assert not counts_next_to("They offer 5 GB for $90/month, with 200 GB download/month.", stem("downloads"))
    assert counts_next_to("The server keeps at most 16 bytes.", stem("bytes"))


class _WordVectors:
    """A fake embedder with fixed unit vectors per word: "countries" and "states" close, the rest apart."""

    model_id = "fake-words"
    VEC = {"countries": (1.0, 0.0, 0.0), "states": (0.8, 0.6, 0.0), "member": (0.0, 1.0, 0.0),
           "bytes": (0.0, 0.0, 1.0), "bits": (0.0, 0.1, 0.995)}

    def embed(self, texts):
        import numpy as np

        return np.array([self.VEC.get(t, (0.0, 0.6, 0.8)) for t in texts])


def test_a_count_question_s_noun_matches_the_corpus_s_word_for_it_by_the_embedder():
    from anchor_core.ask.answerable import count_synonyms, counts_next_to, number_followers
    from anchor_core.scorers.text import stem

    text = "The Commission may act where the infringement affects persons in at least three Member States."
    followers = number_followers(text)
    assert followers == {"member", "states"}
    also = count_synonyms("countries", followers, _WordVectors(), threshold=0.55)
    assert also == frozenset({"states"})
    assert counts_next_to(text, stem("countries"), also=also)
    assert not counts_next_to(text, stem("countries"))  # the question's own word alone does not find it
    # the corpus's word counts only after the number: "States" before it counts nothing
    assert not counts_next_to("Member States shall notify 12 authorities.", stem("countries"), also=also)
    # no embedder, no synonyms; and a unit of measure is never another's synonym, however close the vectors
    assert count_synonyms("countries", followers, None) == frozenset()
    assert count_synonyms("bytes", {"bits"}, _WordVectors(), threshold=0.5) == frozenset()


def test_assess_ties_a_count_written_in_the_corpus_s_word_only_with_an_embedder():
    from anchor_core.ask.answerable import assess

    hits = [_hit("a", "The Commission may adopt a joint decision where the infringement affects persons in at "
                      "least three Member States.")]
    q = "In at least how many EU countries must an infringement affect persons for a joint decision?"
    weights = {w: 2.0 for w in ("countries", "infringement", "affect", "persons", "joint", "decision", "eu")}
    weights["eu"] = 0.0
    without = assess(q, hits, weights=weights)
    with_vectors = assess(q, hits, weights=weights, embedder=_WordVectors())
    assert without.tied == 0.0
    assert with_vectors.tied > 0.5 and with_vectors.expression == "three"


def test_a_count_of_times_is_answered_by_once_only_about_the_asked_event():
    from anchor_core.ask.answerable import assess

    hits = [_hit("a", "The Chair shall be elected for a term of five years, renewable once."),
            _hit("b", "The Board shall meet in plenary at the request of its Chair.")]
    weights = {w: 2.0 for w in ("chair's", "term", "renewed", "board", "meet", "year", "office")}
    # "renewable once" counts the times the term can be renewed ...
    renewed = assess("How many times can the Chair's term of office be renewed?", hits, weights=weights)
    assert renewed.tied >= 0.5 and renewed.expression in ("once", "five")
    assert "renewable once" in renewed.sentence
    # ... not how many times a year the Board meets: "year" is the period asked about, not the event
    met = assess("How many times a year must the Board meet?", hits, weights=weights)
    assert met.tied == 0.0 and met.expression == ""


def test_how_many_of_a_list_is_answered_by_a_quantifier_over_the_list():
    from anchor_core.ask.answerable import assess

    hits = [_hit("a", "A transfer to a third country shall take place only on one of the following conditions: "
                      "(a) the data subject has explicitly consented; (b) the transfer is necessary for a contract."),
            _hit("b", "The system shall not be considered high-risk where any of the following conditions is "
                      "fulfilled: (a) it performs a narrow procedural task; (b) it improves a completed activity.")]
    weights = {w: 2.0 for w in ("listed", "conditions", "transfer", "meet", "system", "fulfil", "high-risk",
                                "derogation", "considered", "avoid")}
    # "how many of the listed conditions" asks what share of a list is needed: "one of the following", "any of
    # the following" state it
    transfer = assess("How many of the listed derogation conditions does the transfer have to meet?", hits,
                      weights=weights)
    assert transfer.tied > 0.0 and transfer.expression == "one of the following"
    system = assess("How many of the listed conditions must a system fulfil to avoid being considered high-risk?",
                    hits, weights=weights)
    assert system.tied > 0.0 and system.expression == "any of the following"
    # a count of the list itself is not stated by either: "one" there is a determiner
    total = assess("How many conditions does the transfer rule list in total?", hits, weights=weights)
    assert total.tied == 0.0 and total.expression == ""


def test_a_person_or_body_is_someone_who_acts_not_a_capitalised_term_or_a_technical_acronym():
    from anchor_core.ask.answerable import assess

    weights = {w: 2.0 for w in ("organisation", "certifies", "client", "libraries", "conformant", "oauth")}
    q = "Which organisation certifies OAuth client libraries as conformant?"
    # the passages write "token", "revocation", "security" in lower case: "Token Revocation" is a term, and the URL
    # of an endpoint is a thing
    terms = [_hit("a", "Client libraries MUST follow the Token Revocation procedure; the URL of the endpoint is "
                       "published. A client library is conformant when its token revocation and security "
                       "checks pass.")]
    assert assess(q, terms, weights=weights).tied == 0.0
    # an acronym the sentence uses as an actor, and a body noun, are someone
    actor = [_hit("a", "The OIDF shall certify OAuth client libraries as conformant.")]
    assert assess(q, actor, weights=weights).expression == "OIDF"
    body = [_hit("a", "The certification body certifies OAuth client libraries as conformant.")]
    assert "body" in assess(q, body, weights=weights).expression


@pytest.mark.parametrize("text, expected", [
    ("Trips abroad must be approved by the department head before booking.", "head"),
    ("Leave must be approved by the HR director.", "the HR director"),
    ("Claims are checked by the finance team.", "team"),
    ("The chairperson convenes the meetings.", "chairperson"),
])
def test_an_organisation_s_roles_and_units_are_persons_or_bodies(text, expected):
    from anchor_core.ask.question import answer_values

    assert any(expected in v for v in answer_values(text, "person_or_body", "Who must approve it?"))


def test_a_list_quantifier_before_the_counted_noun_and_a_range_s_upper_end_answer_a_count():
    from anchor_core.ask.answerable import assess

    hits = [_hit("a", "The Commission may add a use case where both of the following conditions are fulfilled: "
                      "(a) the systems are intended for an area listed; (b) they pose a risk of harm."),
            _hit("b", "Each core team member can assign zero to five stars to each candidate.")]
    weights = {w: 2.0 for w in ("conditions", "met", "commission", "add", "use", "case", "stars", "candidate",
                                "maximum", "number", "give")}
    both = assess("How many conditions have to be met before the Commission can add a use case?", hits,
                  weights=weights)
    assert both.tied > 0.0 and both.expression == "both of the following"
    stars = assess("What is the maximum number of stars I can give a single candidate?", hits, weights=weights)
    assert stars.tied > 0.0 and stars.expression == "five"
    # a range's lower end is no maximum
    assert assess("What is the maximum number of stars?", [_hit("b", "One may give five to ten stars.")],
                  weights=weights).expression == "ten"


def test_a_sum_written_after_its_currency_is_read_whole():
    assert expressions("a minimum indemnity cover of US$150,000.", "amount") == ["US$150,000"]
    assert expressions("fines of up to EUR 35 000 000 or 7 %", "amount")[0] == "EUR 35 000 000"


def _hit(unit: str, text: str, heading: str = "", via=None):
    from anchor_core.models import Hit

    return Hit(chunk_id=f"{unit}:0", unit_id=unit, doc_id="d", kind="article", part=None, heading=heading, start=0,
               end=len(text), text=text, score=0.5, via=via or [])


def test_a_value_ties_to_the_focus_only_in_its_own_sentence_not_through_a_linked_unit():
    """The penalty article that cites Article 4 is about what Article 4 is about (``focus`` reads
    both), but a deadline in one provision is not the deadline of an actor named only in another."""
    from anchor_core.ask.answerable import assess
    from anchor_core.models import PathStep

    q = "How many hours does a processor have to notify the controller?"
    deadline = _hit("art-33", "The controller shall notify the authority not later than 72 hours after it.")
    linked = _hit("art-28", "The processor shall assist the controller.",
                  via=[PathStep(unit_id="art-33", part=None, to_unit="art-28", to_part=None, kind="cites",
                                raw="Article 28", depth=1)])
    weights = {w: 2.0 for w in ("processor", "notify", "controller", "hours")}
    a = assess(q, [deadline, linked], weights=weights)
    assert a.expression == "72 hours"
    assert a.tied < 1.0 <= a.focus + 1e-9  # "processor" is in the linked unit, not in the sentence with the value
    whole = assess(q, [_hit("art-33", "The processor shall notify the controller not later than 72 hours after it.")],
                   weights=weights)
    assert whole.tied == pytest.approx(1.0)
    # a sentence that writes the reference itself is read with the unit it names
    citing = _hit("art-33", "The controller shall notify, as set out in Article 28, within 72 hours.")
    assert assess(q, [citing, linked], weights=weights).tied == pytest.approx(1.0)


def test_a_focus_part_only_the_heading_holds_ties_the_value_half_as_much():
    from anchor_core.ask.answerable import HEADING_SHARE, assess

    q = "How many years of experience must a member of the Shari'a board have?"
    weights = {w: 2.0 for w in ("experience", "member", "shari'a", "board")}
    under = assess(q, [_hit("ifr-3.5", "A firm must keep, for six years, records of its decisions.",
                            heading="Shari'a board members")], weights=weights)
    inside = assess(q, [_hit("ifr-3.5", "A member of the Shari'a board must have six years of experience.")],
                    weights=weights)
    assert inside.tied == pytest.approx(1.0)
    assert under.tied == pytest.approx(HEADING_SHARE * 3 / 4)  # member, shari'a, board: heading only; no experience


def test_the_parts_that_tell_retrieved_sentences_apart_weigh_most_in_tied_local():
    """Every passage about notified bodies writes "notifying authority"; only one writes "withdraw", and not
    beside the period: the period belongs to another step, which ``tied_local`` sees more sharply than ``tied``."""
    from anchor_core.ask.answerable import assess

    q = "Within how many days must the notifying authority withdraw the designation?"
    weights = {w: 2.0 for w in ("notifying", "authority", "withdraw", "designation")}
    passages = [
        _hit("art-36", "The notifying authority shall withdraw the designation where the body ceased its activity. "
                       "The notifying authority shall inform the Commission within 10 days of the designation."),
        _hit("art-30", "The notifying authority shall monitor the notified body. "
                       "The notifying authority shall keep records of the designation."),
    ]
    other_step = assess(q, passages, weights=weights)
    assert other_step.expression == "10 days"
    assert other_step.tied == pytest.approx(0.75)  # notifying, authority, designation: all but the action
    assert other_step.tied_local < other_step.tied - 0.15  # "withdraw" is what tells the sentences apart
    stated = assess(q, [_hit("art-36", "The notifying authority shall withdraw the designation within 10 days."),
                        passages[1]], weights=weights)
    assert stated.tied == pytest.approx(1.0) and stated.tied_local == pytest.approx(1.0)
    assert set(stated.features()) >= {"tied", "tied_local", "tied_asked"}


def test_tied_asked_reads_the_asking_sentence_not_the_situation_told_before_it():
    from anchor_core.ask.answerable import assess
    from anchor_core.ask.question import asked_sentence

    q = "Our notified body stopped its conformity assessment activities. Within how many days must it inform us?"
    assert asked_sentence(q) == "Within how many days must it inform us?"
    weights = {w: 2.0 for w in ("notified", "body", "stopped", "conformity", "assessment", "activities", "inform")}
    told = assess(q, [_hit("art-36", "A notified body that stopped its conformity assessment activities shall "
                                     "keep its files for 10 days.")], weights=weights)
    assert told.tied > 0.8  # the situation's words are all there
    assert told.tied_asked == pytest.approx(0.0)  # the asked action ("inform") is not
    # a question of one sentence: the same as tied
    one = assess("Within how many days must a notified body inform us?",
                 [_hit("art-36", "A notified body shall inform the authority within 10 days.")], weights=weights)
    assert one.tied_asked == one.tied


def test_a_question_asking_for_a_status_code_is_answered_only_by_one():
    from anchor_core.ask.answerable import assess, reason

    q = "What status code does a resource server return when a bearer token has expired?"
    weights = {w: 2.0 for w in ("resource", "server", "return", "bearer", "token", "expired")}
    silent = [_hit("rfc-6750", "The resource server rejects an expired bearer token and returns an error.")]
    stated = [_hit("rfc-6750", "For an expired bearer token the resource server returns the HTTP 401 (Unauthorized) "
                               "status code.")]
    a = assess(q, silent, weights=weights)
    assert a.focus > 0.8 and a.tied == 0.0 and a.asked == "status"
    assert "state no status code" in reason(a)
    b = assess(q, stated, weights=weights)
    assert b.tied > 0.8 and b.expression == "HTTP 401 (Unauthorized)"
    assert not relevance(q, [silent[0].text]).addressed and relevance(q, [stated[0].text]).addressed
    assert "states no status code" in relevance(q, [silent[0].text]).reason


@pytest.mark.parametrize("question, text, answers", [
    ("What is the name of the person who chairs the Board?", "The Board is chaired by Jane Smith.", True),
    # a body, the title of an office or an institution's name is not a person's name
    ("What is the name of the person who chairs the Board?", "The AI Office shall convene the Board.", False),
    ("What is the name of the person who chairs the Board?", "The Chair shall be elected by the Board.", False),
    ("Who is the current Chief Executive of the Regulator?",
     "The Board and the President of the Appeals Panel may remove the Chief Executive.", False),
    # nor is the name of an institution or a publication, though it is two capitalised words
    ("What is the name of the person who chairs the Board?",
     "The Commission shall take into account the positions of the European Parliament.", False),
    # the role may come after the body's name, and the body's own name (a possessive in the question) is no answer
    ("What is the name of the AI Office's executive director?", "The AI Office is headed by Jane Smith.", True),
    ("What is the name of the AI Office's executive director?",
     "(47) 'AI Office' means the Commission's function of contributing to the implementation.", False),
    # who appoints, or which body decides, is answered by a body
    ("Who appoints the Chief Executive?", "The Chief Executive shall be appointed by the Board.", True),
])
def test_a_question_asking_for_a_person_s_name_is_answered_only_by_one(question, text, answers):
    from anchor_core.ask.question import answer_values

    assert predict_kind(question) == "person_or_body"
    assert bool(answer_values(text, "person_or_body", question)) is answers


@pytest.mark.parametrize("text, answers", [
    ("An individual must be at least 18 years old to perform a Controlled Function.", True),
    ("An individual below the age of 16 years may not perform a Controlled Function.", True),
    ("An individual may perform a Controlled Function only if approved by the Regulator.", False),
    ("An individual must have been approved for at least 18 months.", False),  # a period, not an age
])
def test_a_question_asking_for_an_age_is_answered_only_by_an_age(text, answers):
    from anchor_core.ask.answerable import assess

    q = "What is the minimum age for an individual to perform a Controlled Function?"
    weights = {w: 2.0 for w in ("individual", "perform", "controlled", "function", "child", "consent")}
    a = assess(q, [_hit("gen-8.6", text)], weights=weights)
    assert a.asked == "age"
    assert (a.tied > 0) is answers


def test_a_value_does_not_answer_for_what_its_sentence_exempts():
    from anchor_core.ask.answerable import assess

    passage = [_hit("funds-13.5.5", "A REIT other than a Qualified Investor Fund may borrow an amount not exceeding "
                                    "65% of the gross asset value of the Fund.")]
    weights = {w: 2.0 for w in ("reit", "qualified", "investor", "fund", "borrow", "gross", "asset", "public")}
    exempted = assess("What share of its gross asset value may a REIT that is a Qualified Investor Fund borrow?",
                      passage, weights=weights)
    assert exempted.tied == 0.0 and exempted.expression == ""
    assert exempted.focus == pytest.approx(1.0)  # the passage is about the question; it states no value for it
    covered = assess("What share of its gross asset value may a REIT that is a Public Fund borrow?", passage,
                     weights={**weights, "public": 0.0})
    assert covered.expression == "65%" and covered.tied > 0.5


def test_how_many_hours_is_not_answered_by_a_calendar_date():
    from anchor_core.ask.answerable import assess

    passage = [_hit("art-4", "Providers shall ensure the training of their staff by 2 August 2026.")]
    weights = {w: 2.0 for w in ("training", "staff", "providers", "ensure")}
    counted = assess("How many hours of training must the staff of providers complete?", passage, weights=weights)
    assert counted.tied == 0.0 and counted.expression == ""
    # a deadline may be a date: "by when" is answered by it
    deadline = assess("How long do providers have to ensure the training of their staff?", passage, weights=weights)
    assert deadline.tied > 0 and "2 August" in deadline.expression


@pytest.mark.parametrize("question, text, answers", [
    # a period one step of the calendar from the asked unit answers; one further off does not
    ("How many days does the controller have to reply?", "The controller shall reply within one month.", True),
    ("How many days does the processor have to notify?", "It shall notify within 72 hours.", True),
    ("Within how many hours must a breach be notified?", "The Commission shall act within six months.", False),
    ("How many days does the body have to decide?", "The certificate is valid for one year.", False),
    ("How many hours a week does the manager spend?", "Releases are spaced at least 4 weeks apart.", False),
    ("How many days should a refresh token stay valid?", "The token expires in one hour.", False),  # under a day
    ("How many days does the firm have to reply?", "The firm shall reply within 48 hours.", True),
    ("How long must the logs be kept?", "The logs shall be kept for six months.", True),  # no unit asked
    # an amount in another currency does not answer "in US dollars"; one that names none is left to the rest
    ("What is the maximum penalty in US dollars?", "The fine shall not exceed 200,000,000 Dirhams.", False),
    ("What is the maximum penalty in US dollars?", "The fine shall not exceed USD 50,000.", True),
    ("Above what cash amount in dirhams must it be reported?", "Transactions above USD15,000 are reported.", False),
    ("What is the fee in euros?", "The fee is EUR 5 000 per application.", True),
    # nor does a period that counts more than a hundred of the asked unit
    ("Within how many hours must the provider act?", "The provider shall act within 30 days.", False),
    ("Within how many hours must the provider act?", "The provider shall act within 3 days.", True),
    ("How many days may the testing last?", "The testing shall not last longer than six months.", False),
    ("How many days does a customer have to cancel?", "The customer may cancel within two months.", True),
])
def test_a_value_in_a_unit_far_from_the_asked_one_does_not_answer(question, text, answers):
    from anchor_core.ask.question import answer_values, predict_kind

    kind = predict_kind(question)
    assert kind in ("duration", "amount")
    assert bool(answer_values(text, kind, question)) is answers
    assert answer_values(text, kind) != []  # without the question the value is still a value of its kind


@pytest.mark.parametrize("text, answers", [
    ("The Board shall have its seat in Brussels.", True),
    ("The Authority is located in Abu Dhabi Global Market Square.", True),
    # an institution or a description names no city
    ("The AI Office shall also attend the Board's meetings, without taking part in the votes.", False),
    ("The Board shall be composed of the head of one supervisory authority of each Member State.", False),
    ("The Board shall meet at its premises in accordance with Article 5.", False),
    # a capitalised title is no city, nor a name with an article before it
    ("It enters into force on its publication in the Official Journal of the European Union.", False),
    ("The Foundation is the legal entity that provides the Package Index as a community service.", False),
])
def test_a_question_asking_for_a_city_is_answered_by_the_name_of_one(text, answers):
    from anchor_core.ask.question import answer_values

    question = "In which city does the European Board hold its meetings?"
    assert predict_kind(question) == "place"
    assert bool(answer_values(text, "place", question)) is answers


@pytest.mark.parametrize("question, text, answers", [
    # "in which year" asks for a point on the calendar: a period does not answer it ...
    ("In which year do the rules on AI models apply?", "The rules on AI models apply for three years.", False),
    ("On what date does the Regulation apply?", "The Regulation shall apply within six months.", False),
    ("In which year do the rules apply?", "It shall apply from 2 August 2025.", True),
    # ... while a deadline asked "by when" may be a date or a period
    ("By when must the controller reply?", "The controller shall reply within one month.", True),
    ("By when must the controller reply?", "The controller shall reply by 25 May 2018.", True),
])
def test_a_question_asking_for_a_calendar_point_is_not_answered_by_a_period(question, text, answers):
    from anchor_core.ask.answerable import accepted_kinds
    from anchor_core.ask.question import answer_values, predict_kind

    kind = predict_kind(question)
    assert kind == "date"
    assert any(answer_values(text, k, question) for k in accepted_kinds(question, kind)) is answers
    assert relevance(question, [text]).addressed is answers


def test_a_question_asking_for_a_longest_or_shortest_period_is_not_answered_by_a_date():
    from anchor_core.ask.answerable import accepted_kinds

    assert accepted_kinds("What minimum notice period must an employer give?", "duration") == ("duration",)
    assert accepted_kinds("What is the maximum retention period for logs?", "duration") == ("duration",)
    assert accepted_kinds("How long must logs be kept?", "duration") == ("duration", "date")  # "until 2030" answers
    # "how long is X" asks how long X lasts: "shall apply from 2 August 2025" is no length
    assert accepted_kinds("How long is the term of office of the chair of the Board?", "duration") == ("duration",)
    assert accepted_kinds("How long are certificates valid?", "duration") == ("duration",)


def test_a_value_the_question_itself_states_is_its_premise_not_its_answer():
    from anchor_core.ask.question import answer_values

    q = "Police asked for judicial authorisation within 24 hours. How long does the judge have to decide?"
    assert answer_values("It shall request authorisation within 24 hours.", "duration", q) == []
    assert answer_values("The judge shall decide within 48 hours.", "duration", q) == ["48 hours"]
    # a bare count the question also writes may still be the answer ("between two functions")
    assert answer_values("A call passes between two functions.", "count", "How many between two functions?")


@pytest.mark.parametrize("question, text, answers", [
    # a question that asks for a limit is answered by a value stated as one ...
    ("What is the maximum fine for a prohibited practice?", "It is subject to fines of up to EUR 35 000 000.", True),
    ("What is the highest fine?", "The Commission may impose fines not exceeding 3 % of turnover.", True),
    ("What is the minimum RSA key size?", "A key of size 2048 bits or larger MUST be used.", True),
    ("What minimum iteration count is advised?", "A minimum iteration count of 1000 is RECOMMENDED.", True),
    ("What is the longest a line may be?", "No line should be longer than 79 characters.", True),
    ("How many sandboxes must each country set up at a minimum?", "Each shall establish at least one sandbox.", True),
    # ... not by a number that merely shares the sentence
    ("How many redirect URIs can a client register at most?", "The server MUST compare the two URIs.", False),
    ("What is the maximum number of arguments a function may take?",
     "A function in Argument Clinic that takes four parameters is one example.", False),
    ("What is the maximum lifetime of an access token?", "The token will expire in one hour.", False),
    ("What is the minimum length of a project name?", "The lines between these two roles are blurry.", False),
    ("What is the maximum length of a name?", "A name is between 2 and 64 characters long.", True),
    # ... and by one in the asked direction: "more than one" is no maximum, "up to" no minimum
    ("What is the maximum number of signatures a JWS may carry?", "It can be secured with more than one signature.",
     False),
    ("What is the minimum key size?", "Keys of up to 4096 bits are used.", False),
    ("What is the maximum fine?", "Fines shall not exceed EUR 10 000.", True),
    ("What is the longest a line may be?", "No line should be longer than 79 characters.", True),
    ("What is the minimum key size?", "A key of 2048 bits or larger MUST be used.", True),
])
def test_a_question_asking_for_a_limit_is_answered_by_a_value_stated_as_one(question, text, answers):
    from anchor_core.ask.question import answer_values, asks_bound, predict_kind

    kind = predict_kind(question)
    assert asks_bound(question)
    assert bool(answer_values(text, kind, question)) is answers, (kind, answer_values(text, kind))


@pytest.mark.parametrize("question, text", [
    ("How long does the token live?", "The token will expire in one hour."),
    ("How many URIs does the server compare?", "The server MUST compare the two URIs."),
])
def test_a_question_asking_for_no_limit_takes_any_value_of_its_kind(question, text):
    from anchor_core.ask.question import answer_values, asks_bound, predict_kind

    assert not asks_bound(question)
    assert answer_values(text, predict_kind(question), question) != []


def test_a_year_like_number_that_counts_a_plural_noun_is_a_count_not_a_year():
    text = "A key of size 2048 bits or larger MUST be used."
    assert expressions(text, "date") == [] and expressions(text, "count") == ["2048"]
    # a year stays a year where a word that dates stands before it, or nothing is counted after it
    assert expressions("It applies from 2 August 2026 and in 2027 providers shall act.", "date") == [
        "2 August 2026", "2027"]
    assert expressions("The review takes place in 2028.", "count") == []
    # the day or the year of a date counts nothing
    assert expressions("Unless deployed by Sept 01 2014, the PEP removes three mirrors.", "count") == ["three"]
    # a number joined to a measure noun measures, it dates nothing ("2048-bit keys")
    assert expressions('only RSA with 2048-bit keys ("RSA1_5") MUST be supported', "date") == []


def test_a_sum_asked_in_a_currency_is_not_answered_by_a_share():
    from anchor_core.ask.answerable import assess

    passage = [_hit("rule-7", "The penalty for a breach shall not exceed 10% of the annual turnover of the firm.")]
    weights = {w: 2.0 for w in ("penalty", "breach", "firm")}
    in_dollars = assess("What is the maximum penalty in US dollars for a breach by a firm?", passage, weights=weights)
    assert in_dollars.tied == 0.0 and in_dollars.expression == ""
    # without a currency, a fine may be a share of turnover
    plain = assess("What is the maximum penalty for a breach by a firm?", passage, weights=weights)
    assert plain.tied > 0 and plain.expression == "10%"


def test_a_reference_is_not_a_name():
    """"Chapter III" or the "(EU)" of "Regulation (EU) 2016/679" answer no "who" question."""
    text = "Paragraphs 1 to 4 shall not affect the obligations set out in Chapter III and Regulation (EU) 2016/679."
    assert expressions(text, "person_or_body") == []
    assert expressions(text, "place") == []
    assert expressions("The obligations of Chapter III bind the European Data Protection Board.",
                       "person_or_body") == ["the European Data Protection Board"]
    # an acronym that modifies a noun names no body ("AI systems"); one before a verb is the body's name
    assert expressions("Providers of AI systems shall keep the EU database.", "person_or_body") == []
    assert expressions("The FSRA may impose a fine; ENISA shall assist.", "person_or_body") == ["FSRA", "ENISA"]
    # nor is a determiner that opens the sentence part of a name ("The URLs" names nobody; the team is a body)
    assert expressions("The URLs on docs.python.org are controlled by the infrastructure team.",
                       "person_or_body") == ["team"]
    # a determiner capitalised because it opens the sentence is not part of a place's name
    assert expressions("The Commission shall act.", "place") == []
    assert expressions("It sits in New York.", "place") == ["New York"]


def test_a_vague_frequency_answers_how_often_but_not_how_many():
    from anchor_core.ask.question import answer_values

    text = "These arrangements must be kept up to date and regularly tested."
    assert answer_values(text, "duration", "How often must we test the arrangements?") == ["regularly"]
    assert answer_values(text, "duration", "How many times a year must we test them?", numeric=True) == []


def test_a_character_range_of_a_grammar_is_not_a_count():
    assert expressions('using the unreserved characters [A-Z] / [a-z] / [0-9] / "-"', "count") == []
    assert expressions("at least [32] characters and 43 octets", "count") == ["43"]


def test_a_number_inside_a_reference_range_markup_or_web_address_is_not_a_value():
    # a range or series goes with its reference word; markup may glue the number to it
    assert expressions("5. Paragraphs 1 to 4 shall not apply where and insofar as:", "count") == []
    assert expressions("As :pep:`20` says, readability counts.", "count") == []
    assert expressions("open an issue at <https://github.com/pypa/pypi-support/issues/new?labels=PEP+541>",
                       "count") == []
    # a number after the reference is still a value when a unit follows it
    assert expressions("Article 5 and 6 months later", "duration") == ["6 months"]
    assert expressions("within 14 days of Article 12(3)", "count") == ["14"]


def test_a_name_or_place_made_of_the_question_s_own_words_does_not_answer_it():
    from anchor_core.ask.answerable import assess
    from anchor_core.ask.question import answer_values

    q = "Who is the current Chief Executive of the FSRA?"
    assert answer_values("The Chief Executive", "person_or_body", q) == []
    assert answer_values("The Chief Executive is appointed by the Board.", "person_or_body",
                         "Who appoints the Chief Executive of the FSRA?") == ["the Board"]
    assert answer_values("The AI Office is located within the Commission.", "place",
                         "In which city is the AI Office located?") == []
    # a number is the answer even when the question holds the same number
    assert answer_values("Surround top-level functions with two blank lines.", "count",
                         "How many empty lines go between two top-level functions?") == ["two"]
    weights = {w: 2.0 for w in ("current", "chief", "executive", "fsra")}
    echo = assess(q, [_hit("u-1", "The Chief Executive", heading="The Chief Executive")], weights=weights)
    assert echo.tied == 0.0 and echo.focus >= 0.5


def _one_unit_store(tmp_path, corpus: str, title: str, unit_id: str, text: str, heading: str) -> SQLiteStore:
    """A store holding one corpus of one document with one unit (hash embeddings)."""
    from anchor_core.indexing import ingest
    from anchor_core.models import Document, ParsedCorpus
    from tests.conftest import unit

    st = SQLiteStore(tmp_path / "a.db")
    ingest(st, HashEmbedder(), ParsedCorpus(documents=[Document(doc_id="doc", title=title)],
                                            units=[unit(unit_id, text, heading=heading)]),
           corpus=corpus, adapter="test")
    return st


def test_a_place_in_the_situation_is_not_a_reason_to_refuse_one_in_the_asked_sentence_is(tmp_path):
    """"We are established in Belgium. Where must we apply?": the corpus never writes Belgium, but the question
    asks where to apply, which it answers; "Which fee does the Belgian office charge?" asks about Belgium."""
    text = ("A conformity assessment body shall submit an application for notification to the notifying authority "
            "of the Member State in which it is established.")
    st = _one_unit_store(tmp_path, "act", "Act", "article-29", text, "Application for notification")
    s = AskSettings()
    told = ask("Our conformity assessment body is established in Belgium. To the notifying authority of which "
               "Member State must it submit its application for notification?", store=st, embedder=HashEmbedder(),
               corpus="act", settings=s)
    assert told.reason_code != "term_missing" and told.gate.signals["missing_names"] == []
    asked = ask("Which notifying authority in Belgium receives the application for notification?", store=st,
                embedder=HashEmbedder(), corpus="act", settings=s)
    assert asked.refused and asked.reason_code == "term_missing" and "'belgium'" in asked.reason


def test_a_word_that_opens_a_sentence_is_not_a_name():
    from anchor_core.ask.gate import names

    q = "We doubt the body is competent. Apart from the notifying authority, which body investigates? Leaving it?"
    assert names(q) == set()
    # written in capitals or with a capital inside, a word that opens a sentence is still a name
    assert names("Is the Data Act relevant? GDPR aside, which law applies? OpenAI asks.") == {
        "data", "act", "gdpr", "openai"}


def test_a_function_word_before_a_version_is_no_name():
    """"When 3.2 came out" opens a sentence with a capitalised "When": the corpus need not write "When 3.2"."""
    from anchor_core.ask.gate import versioned_names

    q = "We still run Python 3.2. When 3.2 came out, how long was it maintained? Since 3.4, what changed?"
    assert versioned_names(q) == ["Python 3.2"]
    assert versioned_names("Until 2.7, and after TLS 1.3 and OAuth 2.1?") == ["TLS 1.3", "OAuth 2.1"]


def test_a_version_the_corpus_never_writes_is_a_missing_name(tmp_path):
    """"OAuth 2.1" is another name than the "OAuth 2.0" a corpus covers: refused as a name the corpus
    never mentions, while the version it does write is answered from it."""
    from anchor_core.ask.gate import versioned_names

    text = ("The OAuth 2.0 authorization framework defines four grant types: authorization code, implicit, "
            "resource owner password credentials and client credentials.")
    st = _one_unit_store(tmp_path, "oauth", "OAuth", "section-1", text, "1. Introduction")
    assert versioned_names("Which grant types were removed in OAuth 2.1, per Section 4.1?") == ["OAuth 2.1"]
    settings = AskSettings()
    r = ask("Which grant types were removed in OAuth 2.1?", store=st, embedder=HashEmbedder(), corpus="oauth",
            settings=settings)
    assert r.refused and r.reason_code == "term_missing" and "'OAuth 2.1'" in r.reason
    ok = ask("Which grant types does OAuth 2.0 define?", store=st, embedder=HashEmbedder(), corpus="oauth",
             settings=settings)
    assert "OAuth 2.0" not in ok.gate.signals["missing_names"]
    # named with the capitalised words before it, looked up without them
    from anchor_core.ask.gate import missing_versions
    assert missing_versions("Is the IETF OAuth 2.1 draft final?", st, "oauth") == ["IETF OAuth 2.1"]
    assert missing_versions("Does the IETF OAuth 2.0 framework define grants?", st, "oauth") == []


def test_a_technical_name_told_in_the_situation_is_the_askers_own(tmp_path):
    """A versioned or technical name refuses only where the asking sentence names it (or its version), as a
    capitalised name does: "we register a tenant_id parameter" is the asker's circumstance."""
    text = ("The OAuth 2.0 authorization framework defines four grant types: authorization code, implicit, "
            "resource owner password credentials and client credentials.")
    st = _one_unit_store(tmp_path, "oauth", "OAuth", "section-1", text, "1. Introduction")
    settings = AskSettings()
    r = ask("Our server adds a tenant_id parameter on OAuth 2.1 clients. Which grant types does the framework "
            "define?", store=st, embedder=HashEmbedder(), corpus="oauth", settings=settings)
    assert r.reason_code != "term_missing" and not r.gate.signals["missing_names"]
    r = ask("We still run OAuth 2.1 somewhere. Which grant types were removed in 2.1?", store=st,
            embedder=HashEmbedder(), corpus="oauth", settings=settings)
    assert r.refused and r.reason_code == "term_missing" and "'OAuth 2.1'" in r.reason


def test_a_host_name_at_the_end_of_the_askers_compound_is_looked_up_alone(tmp_path):
    from anchor_core.ask.gate import missing_versions

    st = _one_unit_store(tmp_path, "peps", "PEPs", "pep-512", "Patches were uploaded to bugs.python.org for review.",
                         "Motivation")
    assert missing_versions("Why was the upload-a-patch-to-bugs.python.org process replaced?", st, "peps") == []
    assert missing_versions("Why was the upload-a-patch-to-issues.python.org process replaced?", st, "peps") == [
        "upload-a-patch-to-issues.python.org"]


def test_a_file_host_or_identifier_the_corpus_never_writes_is_a_missing_name(tmp_path):
    """"pyproject.toml" is a name: a corpus that never writes it does not cover the question, though it
    writes "project"; one that it does write ("setup.cfg", "client_secret") is no reason to refuse."""
    from anchor_core.ask.gate import missing_versions

    text = ("A project declares its metadata in setup.cfg. The client authenticates with its client_secret, "
            "and the project's documentation is served from docs.python.org.")
    st = _one_unit_store(tmp_path, "pkg", "Packaging", "section-1", text, "1. Packaging")
    assert missing_versions("How do you declare build requirements for a project in pyproject.toml?", st,
                            "pkg") == ["pyproject.toml"]
    assert missing_versions("What goes into setup.cfg, and where is client_secret sent?", st, "pkg") == []
    assert missing_versions("Which company hosts docs.python.org?", st, "pkg") == []
    r = ask("How do you declare build requirements for a project in pyproject.toml?", store=st,
            embedder=HashEmbedder(), corpus="pkg", settings=AskSettings())
    assert r.refused and r.reason_code == "term_missing" and "'pyproject.toml'" in r.reason


def test_bounded_one_frequencies_and_irregular_plurals_are_values():
    from anchor_core.ask.answerable import counts_next_to
    from anchor_core.scorers.text import stem

    # "one" is a determiner, unless a bound makes it a count
    assert expressions("Member States shall establish at least one AI regulatory sandbox.", "count") == ["one"]
    assert expressions("one of the two serializations", "count") == ["two"]
    assert expressions("The officer must report semi-annually, and twice a year to the board.", "duration") == [
        "semi-annually", "twice a year"]
    # "two natural persons" counts people
    assert counts_next_to("verified and confirmed by at least two natural persons", stem("people"))
    assert not counts_next_to("verified by the persons concerned, as set out in 2 cases", stem("people"))


def test_a_refusal_names_the_focus_as_the_question_writes_it(store):
    r = _ask(store, "How much does it cost to register a drone?")
    assert r.refused and "register a drone" in r.reason
    assert "“" in r.reason and "”" in r.reason  # quoted: the asker's words need not be a noun phrase
    assert analyse("What is the annual budget of the AI Office in euros?").focus == \
        "the annual budget of the AI Office in euros"


def test_an_acronym_spelled_out_is_still_the_question_s_own_words():
    from anchor_core.ask.question import fits_kind

    q = "Who sits on the European AI Board?"
    assert fits_kind("1. A European Artificial Intelligence Board (the ‘Board’) is hereby established.",
                     "person_or_body", question=q) == 0.0
    assert fits_kind("2. The Board shall be composed of one representative per Member State.", "person_or_body",
                     question=q) == 1.0


def test_a_value_of_another_defined_term_with_the_same_head_does_not_answer():
    from anchor_core.ask.answerable import assess

    q = "How much professional indemnity cover, in US dollars, must a Trust Service Provider carry?"
    weights = {w: 2.0 for w in ("professional", "indemnity", "cover", "trust", "service", "provider", "carry")}
    other = _hit("tpp-1", "A Third Party Provider must maintain professional indemnity cover of US$150,000.")
    named = _hit("tsp-2", "A Trust Service Provider must maintain professional indemnity cover.")
    a = assess(q, [other, named], weights=weights)
    assert a.tied == 0.0 and a.focus > 0.8  # the topic is there, the value is not its
    # the same value written for the asked term (or for a short form of it) answers
    own = _hit("tsp-3", "A Trust Service Provider must maintain professional indemnity cover of US$150,000.")
    short = _hit("tsp-4", "The Provider must maintain professional indemnity cover of US$150,000.")
    assert assess(q, [own, named], weights=weights).expression == "US$150,000"
    assert assess(q, [short, named], weights=weights).tied > 0.5


@pytest.mark.parametrize("question, text, answers", [
    ("How long does the Commission take to approve a code of practice?",
     "If, by 2 August 2025, a code of practice cannot be finalised, the Commission may approve it.", False),
    ("How long does the Commission take to approve a code of practice?",
     "The Commission shall regularly monitor and approve the codes of practice.", False),
    ("How long does the Commission take to approve a code of practice?",
     "The Commission shall approve a code of practice within three months.", True),
    # a question that asks how often as well takes a frequency
    ("How long and how often does the Commission approve a code of practice?",
     "The Commission shall regularly monitor and approve the codes of practice.", True),
])
def test_how_long_is_answered_by_a_length_of_time_not_a_deadline_or_a_frequency(question, text, answers):
    from anchor_core.ask.answerable import assess

    weights = {w: 2.0 for w in ("commission", "take", "approve", "code", "practice")}
    assert (assess(question, [_hit("art-56", text)], weights=weights).tied > 0) is answers


@pytest.mark.parametrize("question, text, answers", [
    # what usually happens, or how many so far, is not what a rule states
    ("How long does a notified body's conformity assessment usually take?",
     "The notified body shall carry out the conformity assessment within two weeks.", False),
    ("How many notified bodies have been designated so far?",
     "Each Member State shall designate at least one notified body.", False),
    # a sentence that speaks of practice does answer it
    ("How long does a notified body's conformity assessment usually take?",
     "A conformity assessment by a notified body typically takes three months.", True),
])
def test_a_question_about_practice_is_not_answered_by_a_rule(question, text, answers):
    from anchor_core.ask.answerable import assess

    weights = {w: 2.0 for w in ("notified", "body", "bodies", "conformity", "assessment", "designated", "take")}
    assert (assess(question, [_hit("art-30", text)], weights=weights).tied > 0) is answers


def test_a_refusal_names_what_the_asking_sentence_is_about_not_the_situation_told_before_it():
    from anchor_core.ask.answerable import asked_focus, assess, reason

    q = ("During a market inspection last autumn we handed the authority our source code and trade secrets. "
         "From what date does the confidentiality article start to apply?")
    a = analyse(q)
    assert asked_focus(q, a) == "the confidentiality article start to apply"
    assert "source code" in a.focus  # the whole question's focus still holds the situation
    weights = {w: 2.0 for w in a.parts}
    text = ("The confidentiality article applies to authorities that receive source code and trade secrets "
            "during a market inspection.")
    ans = assess(q, [_hit("art-78", text)], weights=weights)
    why = reason(ans)
    assert why.startswith("the sources describe “the confidentiality article start to apply” but state no date"), why
    assert "source code" not in why and "autumn" not in why
    # one sentence: the focus is the question's own
    one = "From what date does the confidentiality article start to apply?"
    assert asked_focus(one, analyse(one)) == analyse(one).focus
    # a passage that addresses too little of the question is measured, and named, against all of it
    q2 = "We handed the authority our source code. How must the authority protect the confidential information?"
    a2 = analyse(q2)
    assert not a2.value
    far = assess(q2, [_hit("art-1", "This Regulation lays down harmonised rules.")],
                 weights={w: 2.0 for w in a2.parts})
    assert reason(far).startswith("no retrieved passage addresses “") and "source code" in reason(far), reason(far)
    assert "best passage covers 0%" in reason(far)


def test_a_period_bounded_by_an_event_answers_how_long_but_not_how_many_days_or_how_often():
    from anchor_core.ask.answerable import assess

    passage = [_hit("art-72", "The post-market monitoring system shall collect and analyse data on the performance "
                              "of high-risk AI systems throughout their lifetime.")]
    weights = {w: 2.0 for w in ("post-market", "monitoring", "system", "collect", "analyse", "data", "performance")}
    how_long = assess("For how long must the post-market monitoring system collect and analyse data on performance?",
                      passage, weights=weights)
    assert how_long.tied > 0.5 and how_long.expression == "throughout their lifetime"
    days = assess("For how many days must the post-market monitoring system collect data on performance?",
                  passage, weights=weights)
    assert days.expression == ""
    often = assess("How often must the post-market monitoring system collect and analyse data on performance?",
                   passage, weights=weights)
    assert often.expression == ""


def test_an_open_count_of_the_asked_noun_answers_a_count():
    from anchor_core.ask.question import answer_values

    text = "The Commission shall designate one or more Union AI testing support structures."
    assert answer_values(text, "count", "How many testing support structures must the Commission designate?") == [
        "one or more"]
    # what it counts must be the asked noun, and no list ("one or more of the following circumstances")
    assert answer_values(text, "count", "How many experts must the Commission designate?") == []
    assert answer_values("It fails in one or more of the following circumstances.", "count",
                         "How many circumstances did the FSRA list?") == []


def test_one_of_the_asked_noun_said_without_a_number_answers_a_count():
    from anchor_core.ask.question import answer_values

    q = "How many sets of technical documentation must we draw up?"
    assert answer_values("A single set of technical documentation shall be drawn up.", "count", q) == ["A single"]
    # "a single" before another noun counts that one
    assert answer_values("A single contact point shall keep the technical documentation.", "count", q) == []


def test_a_list_of_named_organisations_or_places_is_answered_only_by_their_names():
    """"Which audit firms", "with which third countries": the issue's "list of named things". A passage that writes
    the class ("an auditor", "Member States", a capitalised defined term such as "Fund Auditor") names none of
    them; one that names them ("ENISA", "CENELEC") does."""
    from anchor_core.ask.answerable import accepted_kinds, assess, reason

    q = "Which audit firms does the regulator accept as auditors of funds?"
    assert accepted_kinds(q, "list") == ("person_or_body",)
    assert accepted_kinds("Which third countries have an arrangement with the Union?", "list") == ("place",)
    # a class, a description of one or a singular body is no list of names
    assert accepted_kinds("Which kinds of organisations must appoint an officer?", "list") == ()
    assert accepted_kinds("Which documents must the auditor keep?", "list") == ()
    weights = {w: 2.0 for w in ("audit", "firms", "regulator", "accept", "auditors", "funds")}
    described = [_hit("a", "A fund manager must appoint an auditor of funds. The Fund Auditor must be accepted by "
                           "the regulator, and every audit firm must be registered as an auditor.")]
    a = assess(q, described, weights=weights)
    assert a.tied == 0.0 and a.asked == "names"
    assert "state no names" in reason(a)
    named = [_hit("a", "The regulator accepts Deloitte, KPMG and Mazars as auditors of funds.")]
    b = assess(q, named, weights=weights)
    assert b.tied > 0.0 and b.expression in ("Deloitte", "KPMG", "Mazars")


def test_a_named_place_list_is_not_answered_by_the_member_states_as_a_class():
    from anchor_core.ask.question import answer_values

    q = "Which Member States have lowered the age of consent for children?"
    text = "Member States may provide by law for a lower age, provided that it is not below 13 years."
    assert answer_values(text, "place", q) == []
    # nor does a country question take the class as an actor for a country (session 55): the class picked out by
    # what follows it answers ("the Member State where ...", tests/test_country_questions.py)
    assert answer_values(text, "place", "In which country is the age set?") == []
    picked = "The age is that set by the law of the Member State where the child resides."
    assert answer_values(picked, "place", "In which country is the age set?")


def test_a_question_whose_every_focus_word_the_corpus_never_writes_has_no_lexical_evidence(tmp_path):
    """Not vacuously covered: "Which courts have jurisdiction over disputes?" over a contract that names no court
    passed the gate at 0.96 and quoted the liability cap."""
    from anchor_core import workspace
    from anchor_core.ask import AskSettings, ask
    from anchor_core.ask.answerable import assess
    from anchor_core.ask.relevance import relevance
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.stores.sqlite import SQLiteStore

    cap = "The Supplier's total liability under this Agreement shall not exceed the Charges paid in 12 months."
    q = "Which courts have jurisdiction over disputes?"
    none_known = {"courts": 0.0, "jurisdiction": 0.0, "disputes": 0.0}
    found = assess(q, [_hit("a", cap)], weights=none_known)
    assert found.focus == 0.0 and found.tied == 0.0 and set(found.unknown) == set(none_known)
    assert not relevance(q, [cap], weights=none_known).addressed
    # a question with some focus word the corpus writes is weighed on those words, as before
    found = assess("Which supplier liability cap applies to disputes?", [_hit("a", cap)],
                   weights={"supplier": 1.0, "liability": 2.0, "cap": 0.0, "disputes": 0.0})
    assert found.focus > 0.5
    store = SQLiteStore(tmp_path / "a.db")
    workspace.upload_files(store, HashEmbedder(), [("msa.md", ("# Agreement\n\n## 9. Liability\n\n" + cap).encode())],
                           corpus="msa")
    rep = ask(q, store=store, embedder=HashEmbedder(), corpus="msa", settings=AskSettings())
    assert rep.refused and "courts" in rep.reason


def test_a_value_next_to_another_version_or_act_than_the_asked_one_does_not_tie():
    """ "On what date was the release candidate of 3.2.5 published?" is not answered by the line of 3.5.0's; a line of
    the asked release series, or one under a heading that names it, is."""
    from anchor_core.ask.answerable import assess

    q = "Python 3.2.5 was a regression-fix release. On what date was its release candidate published?"
    weights = {w: 2.0 for w in ("python", "regression-fix", "release", "candidate", "published")}
    other = assess(q, [_hit("pep-478", "- 3.5.0 release candidate 2: August 25, 2015")], weights=weights)
    assert other.tied == 0.0 and other.expression == ""
    own = assess(q, [_hit("pep-392", "- 3.2.5 release candidate 1: 2013-05-03")], weights=weights)
    assert own.tied > 0 and own.expression
    under = assess(q, [_hit("pep-392", "- release candidate 1: 2013-05-03", heading="Python 3.2.5 schedule")],
                   weights=weights)
    assert under.tied > 0
    series = assess("When was the last Python 3.3 maintenance release candidate published?",
                    [_hit("pep-398", "- 3.3.5 release candidate 1: March 2, 2014")], weights=weights)
    assert series.tied > 0  # 3.3.5 is a release of 3.3


def test_an_acronym_as_an_object_or_in_a_heading_names_no_one():
    """"Who implemented the timeout sockets?" was answered from "packages such as Twisted which implement async
    servers using SSL have to require ..." (SSL read as an actor before "have") and "Who implemented the cycle GC?"
    from the heading "Implemented / Final PEPs:" ("PEPs" never written in lower case): an acronym names someone as
    a subject or after "by", and is no sign of a name inside a capitalised phrase."""
    from anchor_core.ask.question import names_someone

    common = frozenset("final packages such as which implement async servers using have to require".split())
    assert not names_someone("SSL", "packages which implement async servers using SSL have to require", common)
    assert names_someone("IANA", "Registration is done by IANA.", common)
    assert names_someone("PSF", "The rights are held and the PSF will grant them.", common)
    assert not names_someone("Final PEPs", "Implemented / Final PEPs:", common)
    assert names_someone("Jive Communications", "Eduardo Gueiros, Jive Communications", common)


@pytest.mark.parametrize("text, value", [
    ("The Wolfsberg Group is an association of thirteen global banks.", "thirteen"),
    ("The committee has seventeen members.", "seventeen"),
    ("It should not exceed eighty pages.", "eighty"),
    ("A dozen firms replied.", "dozen"),
])
def test_every_cardinal_written_as_a_word_is_a_count(text, value):
    """"How many global banks make up the Wolfsberg Group?" was refused: "thirteen" was missing from the count
    words (so were fourteen and sixteen to nineteen, seventy, eighty)."""
    from anchor_core.ask.question import expressions

    assert value in expressions(text, "count")

