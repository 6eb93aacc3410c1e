"""The extractive writer: sentences chosen by how well they answer, whole byte-exact quotes, colon
lead-ins with their points, conservative Yes/No openings, one quote per line in every format."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from anchor_core.ask.question import fits_kind, predict_kind
from anchor_core.ask.writers import ExtractiveWriter, embed_cached
from anchor_core.embeddings import HashEmbedder
from anchor_core.report import CheckedClaim, ClaimAnchor, Report, Source
from anchor_core.segment import MAX_SENTENCE_CHARS, split_sentences
from anchor_core.text import words

ARTICLE_5 = (
    "1. The following AI practices shall be prohibited:\n"
    "(a) the use of an AI system that deploys subliminal techniques beyond a person's consciousness;\n"
    "(b) the use of an AI system that exploits the vulnerabilities of a specific group of persons;\n"
    "(c) the use of AI systems for the social scoring of natural persons leading to either of the following:\n"
    "(i) detrimental treatment in unrelated social contexts;\n"
    "(ii) detrimental treatment that is disproportionate;\n"
    "(d) the use of AI systems to infer emotions of a natural person in the areas of workplace and education "
    "institutions, except where the use is intended for medical or safety reasons;\n"
    "(e) the use of AI systems that create facial recognition databases through untargeted scraping of images;\n"
    "(f) the use of biometric categorisation systems that deduce race or political opinions;\n"
    "(g) the use of real-time remote biometric identification in publicly accessible spaces;\n"
    "(h) the use of AI systems for risk assessments of natural persons based solely on profiling.\n"
    "Point (h) is without prejudice to other Union law."
)
ARTICLE_26 = ("7. Before putting into service or using a high-risk AI system at the workplace, deployers who are "
              "employers shall inform workers' representatives and the affected workers that they will be subject "
              "to the use of the high-risk AI system. This information shall be provided in accordance with the "
              "rules laid down in Union and national law.")
ARTICLE_2 = ("3. This Regulation does not apply to AI systems placed on the market exclusively for military, "
             "defence or national security purposes, regardless of the type of entity carrying out those activities.")


def source(n: int, unit_id: str, text: str, *, label: str = "", prefix: str = "", score: float = 0.5) -> Source:
    """A source whose chunk starts ``len(prefix)`` characters into its unit (offsets must add up)."""
    return Source(n=n, chunk_id=f"c{n}", unit_id=unit_id, label=label or unit_id, doc_id="doc",
                  start=len(prefix), end=len(prefix) + len(text), text=text, score=score)


def terms(question: str) -> tuple[list[str], dict[str, float]]:
    ts = [w for w in words(question) if len(w) > 3]
    return ts, {t: 1.0 for t in ts}


def write(question: str, sources: list[Source], units: dict[str, str] | None = None, **kw):
    ts, ws = terms(question)
    return ExtractiveWriter(**kw).write(question, sources, ts, ws, units=units)


def printed(answer: str) -> list[str]:
    return re.findall(r"“(.*?)”\s*\[\d+\]", answer, re.S)


def test_a_colon_lead_in_brings_its_points_and_counts_the_rest():
    unit = "Article 5. Prohibited practices.\n" + ARTICLE_5
    src = source(1, "article-5", ARTICLE_5, label="Article 5(1)", prefix=unit[: unit.index("1. The")])
    d = write("Which AI practices are prohibited?", [src], max_points=3)
    lines = d.answer.splitlines()
    assert lines[0] == "Article 5(1): “1. The following AI practices shall be prohibited:” [1]"  # colon kept
    quoted = printed(d.answer)
    assert len(quoted) == 4 and all(q.startswith("(") for q in quoted[1:])
    # the points quoted are top-level ones; a nested "(i)" is never taken for point (i)
    assert not any(q.startswith(("(i)", "(ii)")) for q in quoted)
    assert re.fullmatch(r"  … and 5 more of Article 5\(1\) \(.*\)", lines[-1]), lines[-1]
    for c in d.claims:  # byte-exact: the printed quote is the stored unit text at the claim's offsets
        assert unit[c.start:c.end] == c.text
        assert f"“{c.text}”" in d.answer


def test_a_lead_in_brings_the_fenced_code_block_it_introduces():
    text = ("For using pypdf with AES encryption or decryption, install extra dependencies:\n\n"
            "```\npip install pypdf[crypto]\n```\n\nThe library is pure Python and needs nothing else to run.")
    src = source(1, "install", text, label="Installation")
    d = write("What do I need to install to use AES encryption with pypdf?", [src])
    lines = d.answer.splitlines()
    assert lines[0] == ("Installation: “For using pypdf with AES encryption or decryption, install extra "
                        "dependencies:” [1]")
    assert "```\npip install pypdf[crypto]\n```" in printed(d.answer)
    # the block ends at its closing fence: the next sentence is no point of the lead-in
    assert not any(line.startswith("  “The library") for line in lines)
    for c in d.claims:
        assert text[c.start:c.end] == c.text
    # a block with a blank line inside is still one point, quoted whole
    spaced = source(1, "use", "Read a file:\n\n```python\nfrom pypdf import PdfReader\n\n"
                              "reader = PdfReader(\"a.pdf\")\n```", label="Usage")
    d = write("How do I read a file with PdfReader?", [spaced])
    assert "```python\nfrom pypdf import PdfReader\n\nreader = PdfReader(\"a.pdf\")\n```" in printed(d.answer)
    # an unclosed fence is no block: the sentences after the lead-in are not taken as its points
    open_fence = source(1, "run", "Run it:\n\n```\npip install x\n\nThe tool reports every file it has read.",
                        label="Run")
    d = write("How do I run it?", [open_fence])
    assert not any(line.startswith("  “The tool") for line in d.answer.splitlines())
    # no fence after the colon: nothing is linked
    plain = source(1, "install", "Install it with pip:\n\nThen import it in your code as usual.", label="Install")
    d = write("How do I install it?", [plain])
    assert "```" not in d.answer


def test_points_past_the_chunk_are_counted_from_the_unit_text_not_quoted():
    cut = ARTICLE_5.index("(c)")
    chunk = ARTICLE_5[:cut].rstrip("\n")
    src = source(1, "article-5", chunk, label="Article 5(1)")
    d = write("Which AI practices are prohibited?", [src], units={"article-5": ARTICLE_5})
    assert all(t in chunk for t in printed(d.answer))
    more = d.answer.splitlines()[-1]
    assert more.startswith("  … and 6 more of Article 5(1) ((c), (d), (e), (f), (g), (h))"), more


def test_a_point_that_answers_is_quoted_under_its_lead_in():
    src = source(1, "article-5", ARTICLE_5, label="Article 5(1)")
    d = write("Which AI practices are prohibited?", [src])
    assert "(d) the use of AI systems to infer emotions" not in d.answer or "prohibited:" in d.answer
    d = write("May an employer infer the emotions of workers in the workplace with an AI system?", [src])
    assert printed(d.answer)[:2] == [ARTICLE_5.splitlines()[0], ARTICLE_5.splitlines()[6]]


def test_a_long_sentence_is_quoted_whole_never_cut_at_the_segmenter_limit():
    clauses = ", ".join(f"the provider has documented requirement number {i} in the file" for i in range(40))
    text = f"For high-risk systems the provider shall follow the procedure where {clauses}. Other text follows."
    assert len(text) > MAX_SENTENCE_CHARS
    assert len(split_sentences(text)) > 2  # the segmenter's default still cuts it (for the checker)
    assert [s.text for s in split_sentences(text, max_chars=None)][-1] == "Other text follows."
    d = write("Which procedure must the provider of high-risk systems follow?", [source(1, "article-43", text)])
    quote = printed(d.answer)[0]
    assert quote == text[: text.index(". Other") + 1]
    assert not re.search(r"\w\.”", d.answer.replace(quote, "")), "a full stop was added to a quote"


@pytest.mark.parametrize("question, sources, opening", [
    ("Can we use AI systems to infer the emotions of a natural person in the workplace?",
     [source(1, "article-5", ARTICLE_5, label="Article 5(1)")], "No"),
    ("Does an employer have to inform workers' representatives before using a high-risk AI system at the "
     "workplace?", [source(1, "article-26", ARTICLE_26, label="Article 26(7)")], "Yes"),
    ("Does the Regulation apply to AI systems used exclusively for military purposes?",
     [source(1, "article-2", ARTICLE_2, label="Article 2(3)")], "No"),
    # the rule found is about something else: no reading
    ("Can we sell a chatbot that tells jokes to customers?",
     [source(1, "article-5", ARTICLE_5, label="Article 5(1)")], "The sources say:"),
    # a yes/no question of no settled form
    ("Is an AI system that ranks job applicants a high-risk system?",
     [source(1, "article-26", ARTICLE_26, label="Article 26(7)")], "The sources say:"),
])
def test_yes_no_opens_with_yes_or_no_only_when_the_quoted_rule_settles_it(question, sources, opening):
    d = write(question, sources)
    first = d.answer.splitlines()[0]
    assert first.startswith(opening), d.answer
    if opening in ("Yes", "No"):
        assert "the writer's reading of" in first and any("not a checked claim" in n for n in d.notes)
        assert not any(c.text.startswith(opening) for c in d.claims)  # the reading is not passed off as a quote


def test_a_lead_in_alone_never_settles_a_yes_no_question():
    lead_only = source(1, "article-5", ARTICLE_5.split("\n(a)")[0])
    assert write("Can we use the following AI practices?", [lead_only]).answer.startswith("The sources say:")
    with_points = source(1, "article-5", ARTICLE_5)
    d = write("Can we use the following AI practices?", [with_points])  # the list: which case is asked is unknown
    assert d.answer.startswith("The sources say:"), d.answer


def test_non_yes_no_questions_never_open_with_yes_or_no():
    d = write("Which practices shall be prohibited?", [source(1, "article-5", ARTICLE_5)])
    assert not re.match(r"(Yes|No|The sources say)\b", d.answer)


class _Boom:
    model_id = "boom"
    dim = 4

    def embed(self, texts, *, progress=None):
        raise RuntimeError("model crashed")


class _Counting(HashEmbedder):
    def __init__(self) -> None:
        super().__init__()
        self.model_id = "counting-test"
        self.seen: list[str] = []

    def embed(self, texts, *, progress=None):
        self.seen += list(texts)
        return super().embed(texts, progress=progress)


def test_without_an_embedder_or_with_a_failing_one_the_answer_is_still_written():
    srcs = [source(1, "article-26", ARTICLE_26), source(2, "article-2", ARTICLE_2)]
    q = "Must deployers inform the workers before using a high-risk system at the workplace?"
    plain = write(q, srcs)
    assert printed(plain.answer)[0].startswith("7. Before putting into service")
    crashed = write(q, srcs, embedder=_Boom())
    assert crashed.answer == plain.answer


def test_sentence_embeddings_are_batched_and_cached_by_text():
    emb = _Counting()
    srcs = [source(1, "article-26", ARTICLE_26), source(2, "article-2", ARTICLE_2)]
    write("Must deployers inform the workers?", srcs, embedder=emb)
    first = list(emb.seen)
    assert len(first) == len(set(first)) >= 3
    write("Must deployers inform the workers?", srcs, embedder=emb)
    assert emb.seen == first  # the second run embedded nothing new
    vecs = embed_cached(emb, [first[1], first[1]])
    assert vecs.shape[0] == 2 and np.allclose(vecs[0], vecs[1])


def test_the_embedder_changes_which_sentence_answers():
    """The cosine is a real ranking term: an embedder that prefers a sentence moves it to the top."""
    a = "The provider shall keep the documentation for ten years after placing on the market."
    b = "The provider shall keep the documentation available to the national authorities."

    class Prefers:
        dim = 2

        def __init__(self, liked: str) -> None:
            self.liked = liked
            self.model_id = f"prefers-test-{liked[-12:]}"  # the sentence cache is keyed by model id

        def embed(self, texts, *, progress=None):
            return np.array([[1.0, 0.0] if (t == self.liked or t.endswith("?")) else [0.0, 1.0] for t in texts])

    q = "Where must the provider keep the documentation?"
    srcs = [source(1, "article-18", a + " " + b)]
    for liked in (a, b):
        d = write(q, srcs, embedder=Prefers(liked), max_sentences=1, dense_weight=5.0)
        assert printed(d.answer) == [liked]


def test_the_asking_sentence_outweighs_the_situation_told_before_it():
    """A question that tells its situation first is answered about what it asks: the sentence that covers the
    asking sentence beats the one that covers the situation, though the latter writes more of the question's
    words. A question of one sentence is ranked as before."""
    situation = "Where a notified body has stopped its activities, its certificates remain valid for 90 days."
    asked = "The competent authority shall withdraw the designation within 30 days."
    srcs = [source(1, "article-36", situation + " " + asked)]
    q = ("Our notified body stopped its activities and its certificates remain valid. "
         "Within how many days must the competent authority withdraw the designation?")
    assert printed(write(q, srcs, max_sentences=1, asked_weight=0.0).answer) == [situation]
    assert printed(write(q, srcs, max_sentences=1).answer) == [asked]
    one = "Within how many days must the competent authority withdraw the designation of the body?"
    assert (printed(write(one, srcs, max_sentences=2, asked_weight=0.0).answer)
            == printed(write(one, srcs, max_sentences=2).answer))


def test_a_period_with_a_number_fits_a_duration_question_better_than_a_vague_one():
    assert fits_kind("Bugfix updates follow approximately every 2 months.", "duration") == 1.0
    assert fits_kind("Releases are not guaranteed on a regular basis.", "duration") == 0.5
    assert fits_kind("It shall notify without undue delay.", "duration") == 0.5
    assert fits_kind("It shall be done by 2 August 2026.", "duration") == 1.0


def test_fits_kind_reads_the_shape_of_the_asked_answer():
    assert fits_kind("The report shall be made within 15 days.", "duration") == 1.0
    assert fits_kind("The report shall be made.", "duration") == 0.0
    assert fits_kind("Providers shall ensure compliance.", "yes_no") == 0.0  # every rule reads so: no signal
    assert fits_kind("(a) the name of the provider;", "list", point=True) == 0.5
    assert fits_kind("‘deployer’ means a natural or legal person using an AI system.", "definition") == 1.0


def _report(draft, sources: list[Source]) -> Report:
    claims = [CheckedClaim(text=c.text, cited=c.cited, supported=True, verdict="supported",
                           anchor=ClaimAnchor(source=c.cited[0], unit_id=c.unit_id or "", quote=c.text,
                                              start=c.start or 0, end=c.end or 0, score=1.0, method="verbatim",
                                              threshold=0.5))
              for c in draft.claims]
    return Report(kind="ask", question="q?", corpus="demo", corpus_version="v1", refused=False,
                  answer=draft.answer, claims=claims, sources=sources)


def test_several_quotes_are_separate_lines_in_text_markdown_html_and_the_segments():
    from anchor_core.render import answer_segments, plain_answer, to_html, to_markdown, to_text

    srcs = [source(1, "article-26", ARTICLE_26, label="Article 26(7)"),
            source(2, "article-2", ARTICLE_2, label="Article 2(3)")]
    d = write("Must deployers inform workers, and does the Regulation apply to military AI systems?", srcs,
              min_gain=0.0)
    assert len(d.claims) >= 2
    r = _report(d, srcs)
    text = to_text(r)
    quote_lines = [ln for ln in text.splitlines() if "“" in ln and "[" in ln]
    assert len(quote_lines) >= 2 and all(ln.count("“") == 1 for ln in quote_lines)
    paragraphs = [p for p in plain_answer(r).split("\n\n") if p.strip()]
    assert len(paragraphs) >= len(d.claims)
    assert all(sum(c.text in p for c in d.claims) <= 1 for p in paragraphs)  # never two quotes in one paragraph
    assert [n for _, n in answer_segments(r) if n] == list(range(1, len(d.claims) + 1))
    html = to_html(r)
    answer_html = html[html.index("<h2>Answer</h2>"):html.index("<h2>Claims</h2>")]
    assert answer_html.count("<p>") >= len(d.claims)
    md = to_markdown(r, record=False)
    md_answer = md[md.index("## Answer"):md.index("## Claims")]
    assert md_answer.count("\n\n") >= len(d.claims) + 1


def test_an_rfc_quote_keeps_its_line_breaks_and_stays_one_paragraph():
    from anchor_core.render import answer_segments

    text = ("   The authorization server MUST require the following clients to\n"
            "   register their redirection endpoint:\n\n"
            "   o  Public clients.\n\n"
            "   o  Confidential clients utilizing the implicit grant type.\n")
    src = source(1, "rfc-6749", text, label="RFC 6749(3.1.2.2)")
    d = write("Which clients must register their redirection endpoint?", [src])
    assert "clients to\n   register" in d.answer  # byte-exact, wrapped as stored
    r = _report(d, [src])
    segs = [t for t, n in answer_segments(r) if n]
    assert segs and all(t in text for t in segs)


def test_bad_settings_get_a_clear_message():
    with pytest.raises(ValueError, match="max_points must be greater than 0"):
        ExtractiveWriter(max_points=0)
    with pytest.raises(ValueError, match="max_sentences must be greater than 0"):
        ExtractiveWriter(max_sentences=0)


def test_no_quotable_sentence_is_a_refusal_not_an_error():
    d = write("What is the fine?", [source(1, "x", "Section 4")])
    assert d.refused and d.reason


LABELS = Path(__file__).resolve().parents[1] / "eval" / "questions" / "aiact.jsonl"


def test_every_answer_sentence_label_is_stored_text_of_its_unit_and_part():
    from ingest import get_adapter

    units = {u.unit_id: u for u in get_adapter("aiact").load(None).units}
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    answerable = [r for r in rows if r["type"] != "unanswerable"]
    assert answerable and all(r.get("answer_sentences") for r in answerable)
    for r in rows:
        if r["type"] == "unanswerable":
            assert "answer_sentences" not in r and "expected_yes_no" not in r
            continue
        assert (r["answer_kind"] == "yes_no") == ("expected_yes_no" in r), r["id"]
        assert r.get("expected_yes_no", "yes") in ("yes", "no", "unclear")
        for s in r["answer_sentences"]:
            u = units[s["unit"]]
            at = u.text.find(s["text"])
            assert at >= 0, (r["id"], s["text"][:60])
            if s["part"] is not None:
                part = next(p for p in u.parts if p.label == s["part"])
                assert any(part.start <= a and a + len(s["text"]) <= part.end
                           for a in [m.start() for m in re.finditer(re.escape(s["text"]), u.text)]), r["id"]


def test_a_list_ends_at_the_next_numbered_paragraph_of_the_unit():
    unit = ("4. Employment and workers' management:\n"
            "(a) AI systems intended to be used for the recruitment or selection of natural persons;\n"
            "(b) AI systems intended to be used to make decisions affecting terms of work-related relationships.\n"
            "5. Access to essential private services:\n"
            "(a) AI systems intended to be used to evaluate the eligibility of natural persons for benefits;\n"
            "(b) AI systems intended to be used to evaluate the creditworthiness of natural persons.")
    chunk = unit[: unit.index("(b) AI systems intended to be used to make")].rstrip("\n")
    d = write("Which employment AI systems are listed?", [source(1, "annex-3", chunk, label="Annex III(4)")],
              units={"annex-3": unit})
    assert d.answer.splitlines()[-1] == "  … and 1 more of Annex III(4) ((b))", d.answer


def test_a_lead_in_finds_its_points_in_another_retrieved_chunk_of_the_same_unit():
    cut = ARTICLE_5.index("(d)")
    first, second = ARTICLE_5[:cut].rstrip("\n"), ARTICLE_5[cut:]
    a = source(1, "article-5", first, label="Article 5(1)")
    b = Source(n=2, chunk_id="c2", unit_id="article-5", label="Article 5(1)", doc_id="doc", start=cut,
               end=len(ARTICLE_5), text=second, score=0.4)
    d = write("Which AI practices are prohibited?", [a, b], units={"article-5": ARTICLE_5}, max_points=8)
    by_text = {c.text: c for c in d.claims}
    assert ARTICLE_5.splitlines()[0] in by_text
    later = [c for c in d.claims if c.text.startswith(("(d)", "(e)", "(f)", "(g)", "(h)"))]
    assert later and all(c.cited == [2] for c in later)  # each point cites the chunk that holds it
    for c in d.claims:
        assert ARTICLE_5[c.start:c.end] == c.text
    assert "more" not in d.answer  # all eight points were retrieved and shown


def test_a_sentence_cut_by_a_chunk_boundary_is_not_quoted():
    unit = ("Providers shall keep the logs automatically generated by their systems for a period of at least six "
            "months. Deployers shall inform the natural persons concerned.")
    cut = unit.index("for a period")
    chunk = source(1, "article-19", unit[:cut].rstrip())  # a fixed-size chunk ending mid-sentence
    d = write("How long must providers keep the logs?", [chunk], units={"article-19": unit})
    assert d.refused or all(c.text != unit[:cut].rstrip() for c in d.claims)


ARTICLE_71 = "2. The data listed in Section A of Annex VIII shall be entered into the EU database by the provider."
ANNEX_8 = ("Section A — The following information shall be provided by providers:\n"
           "1. The name, address and contact details of the provider;\n"
           "2. The AI system trade name;\n"
           "3. A description of the intended purpose of the AI system.")


def test_a_sentence_that_hands_its_content_to_a_listed_annex_brings_the_list():
    q = "What must a provider enter into the EU database when it registers?"
    srcs = [source(1, "article-71", ARTICLE_71, label="Article 71(2)", score=0.8),
            source(2, "annex-8", ANNEX_8, label="Annex VIII(A)", score=0.4)]
    d = write(q, srcs, max_sentences=2)
    quotes = printed(d.answer)
    assert quotes[0] == ARTICLE_71
    # the list the sentence points to follows it, its points quoted, not only the sentence that says where it is
    assert "1. The name, address and contact details of the provider;" in quotes
    assert d.answer.index("Annex VIII(A):") > d.answer.index("Article 71(2):")
    for c in d.claims:  # every quote is still a byte-exact span of its source
        src = next(s for s in srcs if s.unit_id == c.unit_id)
        assert src.text[c.start - src.start:c.end - src.start] == c.text


def test_a_reference_that_hands_nothing_over_or_two_paragraphs_bring_no_list():
    q = "What must a provider enter into the EU database when it registers?"

    def answer(article_71: str, unit: str, text: str, label: str) -> str:
        return write(q, [source(1, "article-71", article_71, label="Article 71(2)", score=0.8),
                         source(2, unit, text, label=label, score=0.1)], max_sentences=2).answer

    assert "Annex VIII(A):" in answer(ARTICLE_71, "annex-8", ANNEX_8, "Annex VIII(A)")  # the control
    pursuant = ARTICLE_71.replace("The data listed in Section A of Annex VIII",
                                  "The data required pursuant to Annex VIII")
    assert "Annex VIII(A):" not in answer(pursuant, "annex-8", ANNEX_8, "Annex VIII(A)")
    # "as set out in Article 47": Article 47's two numbered paragraphs are not a list
    a47 = ("2. The declaration shall state the system meets the requirements.\n"
           "3. The declaration shall be kept up to date.")
    hands = ARTICLE_71.replace("The data listed in Section A of Annex VIII", "The data set out in Article 47")
    assert "Article 47:" not in answer(hands, "article-47", a47, "Article 47")
    assert "Article 47:" in answer(hands, "article-47", a47 + "\n4. The declaration shall be signed.", "Article 47")


def test_a_list_reached_through_the_reference_the_sentence_writes_is_brought_too():
    """Retrieval followed 'paragraph 1' of Article 5(2) on to Annex II (paragraph 1 names it): the sentence
    hands its content to paragraph 1, and the list that paragraph's reference led to is quoted under it."""
    q = "For which offences may the police use the system?"
    a52 = "2. The police use for the objectives referred to in paragraph 1 shall comply with safeguards."
    annex = ("Offences referred to in Article 5(1):\n— acts of terrorism,\n— trafficking in human beings,\n"
             "— murder or grievous bodily injury.")
    parent = source(1, "article-5", a52, label="Article 5(2)", score=0.8)
    followed = source(2, "annex-2", annex, label="Annex II", score=0.1).model_copy(
        update={"followed_from": "Article 5(2)", "reference": "paragraph 1", "direct": False})
    answer = write(q, [parent, followed], max_sentences=2).answer
    assert answer.index("Article 5(2):") < answer.index("Annex II:")
    assert "— acts of terrorism," in answer and "— murder or grievous bodily injury." in answer
    # without the followed link the sentence names no list, and none is brought
    alone = followed.model_copy(update={"followed_from": None, "reference": ""})
    assert "Annex II:" not in write(q, [parent, alone], max_sentences=1).answer


def test_one_word_points_are_quoted_and_bullets_are_counted_not_named():
    q = "Which offences are listed?"
    annex = "The following offences are listed:\n" + "\n".join(
        f"— {w}," for w in ("terrorism", "sabotage", "kidnapping", "murder", "robbery", "fraud", "piracy", "arson"))
    d = write(q, [source(1, "annex-2", annex, label="Annex II")], max_points=6)
    quotes = printed(d.answer)
    assert "— terrorism," in quotes or "— sabotage," in quotes  # a one-word point is a list item, not a title
    assert len([x for x in quotes if x.startswith("— ")]) == 6
    assert d.answer.rstrip().endswith("… and 2 more of Annex II")  # not "(—, —)"


def test_a_competing_value_close_behind_is_quoted_beside_the_first():
    """Two validity periods for the same certificates: the reviewer sees both, not whichever won by a
    hair; with the margin off, only the first is quoted (it adds no question word)."""
    q = "How long do the certificates stay valid?"
    s = [source(1, "art-36", "The certificates may remain valid for a period of nine months after cessation."),
         source(2, "art-44", "The certificates shall be valid for the period they indicate, which shall not exceed "
                          "five years.")]
    both = write(q, s)
    assert "nine months" in both.answer and "five years" in both.answer
    one = write(q, s, alt_margin=0.0, tie_margin=0.0)
    assert ("nine months" in one.answer) != ("five years" in one.answer)
    # a sentence without a value of the asked kind is not a rival
    other = write(q, [s[0], source(2, "art-44", "The certificates shall state the period of their validity.")])
    assert "state the period" not in other.answer


def test_a_sentence_is_read_with_the_titles_of_the_containers_it_cites():
    """"Chapters I and II shall apply from ..." says nothing about prohibitions in its own words; read with
    the title of the chapter it cites, it is the sentence that answers "when do the prohibitions apply?"."""
    text = ("The Regulation shall apply from 2 August 2026. However:\n"
            "(a) Chapters I and II shall apply from 2 February 2025;\n"
            "(b) Article 6(1) shall apply from 2 August 2027.")
    q = "From when do the prohibited AI practices apply?"
    span = (text.index("Chapters I and II"), text.index("Chapters I and II") + len("Chapters I and II"))
    cited = {"article-113": [(*span, "Chapter II — Prohibited AI practices")]}
    srcs = [source(1, "article-113", text)]

    class Topical:
        """Cosine 1 for a text that shares the question's topic word, else 0."""
        dim = 2
        model_id = "topical-test"

        def embed(self, texts, *, progress=None):
            return np.array([[1.0, 0.0] if "rohibit" in t else [0.0, 1.0] for t in texts])

    ts, ws = terms(q)
    plain = ExtractiveWriter(embedder=Topical(), max_sentences=1).write(q, srcs, ts, ws)
    read = ExtractiveWriter(embedder=Topical(), max_sentences=1).write(q, srcs, ts, ws, cited=cited)
    assert printed(read.answer) == ["(a) Chapters I and II shall apply from 2 February 2025;"]
    assert printed(plain.answer) != printed(read.answer)  # the title, not the sentence's words, decided
    assert "Prohibited" not in read.answer  # the title steers the choice; the quote stays the stored text


def test_a_list_that_adds_a_question_word_is_quoted_by_its_best_answering_point():
    """The definition took the question's main words; a list whose point (e) adds "footage" earns a place,
    and the point quoted from it is the one that answers best, (d) on emotions at the workplace."""
    definition = "(39) 'emotion recognition system' means an AI system for the purpose of inferring emotions."
    article_5 = ARTICLE_5.replace("through untargeted scraping of images", "through scraping of CCTV footage")
    q = "Can we use software that infers the emotions of staff from webcam footage at work?"

    class Workplace:
        dim = 2
        model_id = "workplace-test"

        def embed(self, texts, *, progress=None):
            return np.array([[1.0, 0.0] if ("emotion" in t or t.endswith("?")) else [0.0, 1.0] for t in texts])

    srcs = [source(1, "article-3", definition, score=0.9), source(2, "article-5", article_5, score=0.5)]
    quotes = printed(write(q, srcs, embedder=Workplace(), max_sentences=2).answer)
    assert any(x.startswith("(d) the use of AI systems to infer emotions") for x in quotes)
    assert not any(x.startswith("(e)") for x in quotes)


def test_a_provision_of_another_unit_that_ties_with_the_first_is_quoted_beside_it():
    """Two provisions the ranking cannot tell apart are both quoted, though the second adds no question
    word; a close sentence of the same unit, or one clearly behind, is not."""
    q = "Are open-source model releases exempt from the documentation duties?"
    a53 = "Points (a) and (b) shall not apply to open-source model releases, unless they present systemic risk."
    a54 = "The obligation set out in this Article shall not apply to open-source model releases."
    both = write(q, [source(1, "article-53", a53), source(2, "article-54", a54)])
    assert a53 in printed(both.answer) and a54 in printed(both.answer)
    one = write(q, [source(1, "article-53", a53), source(2, "article-54", a54)], tie_margin=0.0)
    assert len(printed(one.answer)) == 1
    # the same unit's other paragraph is the same provision, not a rival
    same = write(q, [source(1, "article-53", a53), source(2, "article-53", a54)])
    assert len(printed(same.answer)) == 1
    # nor is a provision clearly behind (its source ranks much lower)
    behind = write(q, [source(1, "article-53", a53), source(2, "article-54", a54, score=0.1)])
    assert printed(behind.answer) == [a53]


def test_rfc_bullets_and_definition_list_terms_are_the_points_of_a_lead_in():
    """An RFC lists with "o  " bullets and with definition lists ("invalid_grant:  The ..."): both are the
    points of the lead-in before them."""
    text = ("The following additional error code is defined for the token revocation endpoint:\n\n"
            "unsupported_token_type:  The authorization server does not support the revocation of the "
            "presented token type.\n\n"
            "invalid_token_hint:  The hint names a token type the server does not know.\n\n"
            "Clients also follow these steps:\n\n"
            "o  The client sends the token.\n\n"
            "o  The server revokes the token.")
    q = "Which error does a revocation endpoint return for a token type it does not support?"
    d = write(q, [source(1, "rfc-7009", text)])
    quotes = printed(d.answer)
    assert quotes[0].startswith("The following additional error code")
    assert any(x.startswith("unsupported_token_type:") for x in quotes)
    from anchor_core.ask.writers import _all_candidates
    cands = _all_candidates([source(1, "rfc-7009", text)], {})
    lead = next(c for c in cands if c.text.startswith("Clients also"))
    assert [p.text for p in lead.points] == ["o  The client sends the token.", "o  The server revokes the token."]
    first = next(c for c in cands if c.text.startswith("The following"))
    assert [p.marker for p in first.points] == ["unsupported_token_type:", "invalid_token_hint:"]


# RFC 6750's error codes as the RFC lays them out: a term on a line of its own, its definition indented
# below it in several sentences, the status code in the last
RFC_6750_ERRORS = ("   When a request fails, the server includes one of the following error codes:\n\n"
                   "     invalid_request\n"
                   "           The request is missing a required parameter.  The server SHOULD respond\n"
                   "           with the HTTP 400 (Bad Request) status code.\n\n"
                   "     invalid_token\n"
                   "           The access token provided is expired, revoked, malformed, or invalid.\n"
                   "           The server SHOULD respond with the HTTP 401 (Unauthorized) status code.\n\n"
                   "   If the request lacks any authentication information, the server SHOULD NOT include an error "
                   "code.")


def test_an_rfc_definition_list_runs_on_over_the_further_sentences_of_each_term():
    """RFC 6750's error codes: a term on a line of its own, its definition indented below it, often in
    several sentences; the list goes on to the next term and ends at a line back at the lead-in's depth."""
    text = RFC_6750_ERRORS
    from anchor_core.ask.writers import _all_candidates
    cands = _all_candidates([source(1, "rfc-6750", text)], {})
    lead = next(c for c in cands if c.text.startswith("When a request fails"))
    assert [p.marker for p in lead.points] == ["invalid_request", "invalid_token"]
    after = next(c for c in cands if c.text.startswith("If the request lacks"))
    assert after.lead is None and after not in lead.points
    q = "Which error code does the server return when the access token has expired or been revoked?"
    quotes = printed(write(q, [source(1, "rfc-6750", text)]).answer)
    assert quotes[0].startswith("When a request fails") and any(x.startswith("invalid_token") for x in quotes)


def test_a_status_code_question_quotes_the_point_s_sentence_that_gives_the_status():
    """"What status code ...?" asks for an HTTP status: the sentence of the matching error code that
    gives it is quoted with that error code, not the error code alone or another code's status."""
    from anchor_core.ask.writers import _all_candidates

    text = RFC_6750_ERRORS
    cands = _all_candidates([source(1, "rfc-6750", text)], {})
    status = next(c for c in cands if "401" in c.text)
    assert status.continues is not None and status.continues.marker == "invalid_token"
    q = "What status code does the server return when the access token has expired or been revoked?"
    quotes = printed(write(q, [source(1, "rfc-6750", text)]).answer)
    assert any("HTTP 401 (Unauthorized)" in x for x in quotes), quotes
    assert not any("HTTP 400" in x for x in quotes), quotes
    at = next(i for i, x in enumerate(quotes) if "HTTP 401" in x)
    assert at > 0 and quotes[at - 1].startswith("invalid_token")  # quoted after the error code it belongs to
    # and read with it by the relevance check: the status sentence continues its point
    d = write(q, [source(1, "rfc-6750", text)])
    status_claim = next(i for i, c in enumerate(d.claims) if "HTTP 401" in c.text)
    assert d.claims[d.claims[status_claim].lead].text.startswith("invalid_token")


@pytest.mark.parametrize("question, text, fits", [
    ("What status code does the server return?", "The server responds with the HTTP 401 (Unauthorized) status code.",
     1.0),
    ("What status code does the server return?", "A successful response MUST use the 200 OK HTTP status code.", 1.0),
    ("What status code does the server return?", "invalid_token  The access token is expired.", 0.0),  # an error code
    ("Which error should the token endpoint return?", "invalid_grant  The grant is invalid or expired.", 1.0),
    ("Which error should the token endpoint return?", "The endpoint returns an error.", 0.0),
])
def test_a_question_asking_for_a_code_wants_a_code(question, text, fits):
    assert fits_kind(text, predict_kind(question), question=question) == fits


def test_a_version_number_is_one_term_not_its_digits():
    """"3.6.0" in the question picks the 3.6.0 line of a release schedule, not 2.6's line that shares its
    digits and more of its words."""
    schedule = ("Release schedule:\n\n- 2.6 final: Python 2.6 final is planned to come out on 2008-10-01\n\n"
                "- 3.6.0 final: 2016-12-23")
    from anchor_core.text import query_terms

    q = "On what day did the final Python 3.6.0 come out?"
    ts = query_terms(q)  # as ask passes them: "3", "6", "0" are terms too
    d = ExtractiveWriter(max_sentences=1).write(q, [source(1, "pep-494", schedule)], ts, {t: 1.0 for t in ts})
    assert any(x.startswith("- 3.6.0 final") for x in printed(d.answer))


def test_an_entry_of_a_references_section_is_never_quoted():
    text = ("Translated documentation will be hosted on python.org under a language tag.\n\n"
            "[22] [Python-Dev] Translated Python documentation: doc vs docs\n"
            "   (https://mail.python.org/pipermail/python-dev/2017-February/147472.html)\n\n"
            "[RFC6749]  Hardt, D., Ed., \"The OAuth 2.0 Authorization Framework\", RFC 6749, October 2012.")
    from anchor_core.ask.writers import _all_candidates
    texts = [c.text for c in _all_candidates([source(1, "pep-545", text)], {})]
    assert texts == ["Translated documentation will be hosted on python.org under a language tag."]


def test_a_json_example_is_data_not_a_sentence_to_quote():
    """An example response written out as JSON shares the question's words ("refresh_token", "expires")
    but states nothing; the writer quotes the sentence around it instead."""
    from anchor_core.ask.writers import _quotable

    example = ('   An example successful response:\n\n'
               '     {\n'
               '       "access_token":"2YotnFZFEjr1zCsicMWpAA",\n'
               '       "token_type":"example",\n'
               '       "expires_in":3600,\n'
               '       "refresh_token":"tGzv3JOkF0XG5Qx2TlKWIA"\n'
               '     }\n\n'
               '   The authorization server MUST NOT issue a refresh token when the refresh token has expired.\n')
    json_part = example[example.index("{"):example.index("}") + 1]
    assert not _quotable(json_part)
    assert not _quotable('[\n  "RS256", "ES256", "PS256", "EdDSA", "HS256", "HS384", "HS512", "RS384"\n]')
    assert _quotable("The response is a JSON object with the members listed below.")
    q = "What does the token endpoint return when the refresh token has expired?"
    quotes = printed(write(q, [source(1, "rfc-6749", example)]).answer)
    assert quotes and not any(x.lstrip().startswith("{") or '"access_token"' in x for x in quotes), quotes


def test_points_are_read_with_their_lead_in_when_the_answer_s_relevance_is_checked():
    from anchor_core.ask.pipeline import read_in_place
    from anchor_core.ask.relevance import relevance

    src = source(1, "article-5", ARTICLE_5, label="Article 5(1)")
    q = "Which AI practices are prohibited?"
    d = write(q, [src], max_points=3)
    assert d.claims[0].lead is None and [c.lead for c in d.claims[1:]] == [0, 0, 0]
    texts = [c.text for c in d.claims]
    alone = relevance(q, texts)
    assert alone.claims[0] and not any(alone.claims[1:])  # a point alone names no prohibited practice
    read = read_in_place(d.claims, texts)
    assert read[1] == f"{texts[0]} {texts[1]}"
    assert relevance(q, read).claims == [True] * 4  # the points are the answer
    # a value stated by the lead-in carries to the points it keeps
    art18 = ("1. The provider shall, for a period ending 10 years after the high-risk AI system has been placed on "
             "the market, keep at the disposal of the national competent authorities:\n"
             "(a) the technical documentation referred to in Article 11;\n"
             "(b) the documentation concerning the quality management system referred to in Article 17;")
    q = "How long must providers keep the technical documentation?"
    d = write(q, [source(1, "article-18", art18, label="Article 18(1)")])
    texts = [c.text for c in d.claims]
    assert len(texts) == 3 and not relevance(q, texts).claims[1]
    assert relevance(q, read_in_place(d.claims, texts)).claims == [True, True, True]
    # claims that a decomposer split are read alone
    assert read_in_place(d.claims[:2], texts) == texts


def test_a_lead_in_over_a_point_that_carries_the_answer_carries_it_too():
    from anchor_core.ask.pipeline import lead_ins_carry, read_in_place
    from anchor_core.ask.relevance import relevance

    annex = ("4. Employment, workers’ management and access to self-employment:\n"
             "(a) AI systems intended to be used for the recruitment or selection of natural persons, to analyse "
             "and filter job applications, and to evaluate candidates;\n"
             "(b) AI systems intended to be used to make decisions affecting terms of work-related relationships.")
    q = "Which AI systems used to evaluate job applicants are listed?"
    d = write(q, [source(1, "annex-iii", annex, label="Annex III(4)")])
    texts = [c.text for c in d.claims]
    marks = relevance(q, read_in_place(d.claims, texts)).claims
    assert d.claims[0].lead is None and marks[1] and not marks[0]  # the heading alone names no such system
    assert lead_ins_carry(d.claims, marks)[:2] == [True, True]
    assert lead_ins_carry(d.claims, [False] * len(texts)) == [False] * len(texts)  # nothing to pass up


CLAUSE_2 = ("2.1 The Customer shall pay each invoice within 30 days of receipt. Late payments bear interest.\n"
            "Footnote 2: Days here means Business Days, as defined in clause 1.1.\n"
            "Footnote *: Invoices sent by post count from the day after posting.\n"
            "2.2 The Supplier may suspend the Services if an invoice is unpaid for 60 days.\n"
            "Footnote 3: Suspension requires 10 Business Days' prior written notice.\n")


def test_a_quoted_sentence_brings_the_notes_stored_after_its_paragraph():
    d = write("How long does the customer have to pay an invoice?", [source(1, "contract/2", CLAUSE_2)],
              max_sentences=1)
    assert printed(d.answer) == ["2.1 The Customer shall pay each invoice within 30 days of receipt.",
                                 "Footnote 2: Days here means Business Days, as defined in clause 1.1.",
                                 "Footnote *: Invoices sent by post count from the day after posting."]
    # each note is a claim of its own, quoted byte for byte where it stands
    for c in d.claims:
        assert CLAUSE_2[c.start:c.end] == c.text


def test_notes_of_another_paragraph_or_outside_the_sources_are_not_brought():
    d = write("When may the supplier suspend the services?", [source(1, "contract/2", CLAUSE_2)], max_sentences=1)
    quoted = printed(d.answer)
    assert quoted[0].startswith("2.2 The Supplier may suspend")
    assert quoted[1:] == ["Footnote 3: Suspension requires 10 Business Days' prior written notice."]
    # the chunk ends before its paragraph's note: nothing is brought that the checker cannot see
    cut = CLAUSE_2[: CLAUSE_2.index("Footnote 3")]
    unit = {"contract/2": CLAUSE_2}
    d = write("When may the supplier suspend the services?", [source(1, "contract/2", cut)], units=unit,
              max_sentences=1)
    assert printed(d.answer) == ["2.2 The Supplier may suspend the Services if an invoice is unpaid for 60 days."]


DEFINITIONS = ("For the purposes of this Regulation:\n"
               "(1) ‘personal data’ means any information relating to an identified or identifiable natural person;\n"
               "(2) ‘processing’ means any operation which is performed on personal data, such as collection, "
               "recording, structuring, storage, adaptation or erasure;\n"
               "(3) ‘restriction of processing’ means the marking of stored personal data with the aim of limiting "
               "their processing in the future;\n")


def test_a_definition_question_is_answered_by_the_definition_of_its_term_not_one_that_holds_it():
    # "'restriction of processing' means the marking of stored personal data" writes more of the question's words
    # ("storing" / "stored", "data") than "'processing' means ...", but defines another term
    src = source(1, "article-4", DEFINITIONS, label="Article 4")
    d = write("Our backup provider keeps copies of our data. How does the GDPR define 'processing', and does merely "
              "storing data count?", [src])
    quoted = printed(d.answer)
    assert quoted[0] == "For the purposes of this Regulation:"
    assert quoted[1].startswith("(2) ‘processing’ means any operation")
    assert fits_kind(DEFINITIONS.splitlines()[3], "definition", question="How does the GDPR define 'processing'?") \
        == 0.5
