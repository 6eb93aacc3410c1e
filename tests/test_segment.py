from __future__ import annotations

import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchor_core.segment import MAX_SENTENCE_CHARS, Sentence, is_noise, sentences, split_sentences
from eval.segmenter_bench import TRICKY, case_text

REPO = Path(__file__).resolve().parents[1]
AIACT = REPO / "ingest" / "data" / "aiact" / "eu-ai-act-full.md"
RFC = REPO / "tests" / "data" / "rfc" / "rfc6749.txt"
WICE = REPO.parent / "shared" / "data" / "bench" / "wice" / "claim_dev.jsonl"
GDPR = REPO.parent / "shared" / "data" / "corpora" / "gdpr" / "eu-gdpr-act-full.md"


def texts(text: str) -> list[str]:
    found = split_sentences(text)
    for s in found:
        assert text[s.start : s.end] == s.text
        assert s.text == s.text.strip()
    return [s.text for s in found]


@pytest.fixture(scope="module")
def aiact() -> str:
    return AIACT.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def aiact_sentences(aiact: str) -> list[Sentence]:
    return split_sentences(aiact)


@pytest.mark.parametrize(("name", "parts"), TRICKY, ids=[name for name, _ in TRICKY])
def test_tricky_cases(name: str, parts: list[str]) -> None:
    text, gold = case_text(parts)
    assert texts(text) == [p.strip() for p in parts], name
    assert {s.start for s in split_sentences(text)[1:]} == gold


def test_sentence_is_frozen_and_offsets_index_the_original() -> None:
    text = "  First one.   Second one.\n"
    found = split_sentences(text)
    assert found == [Sentence(2, 12, "First one."), Sentence(15, 26, "Second one.")]
    with pytest.raises(AttributeError):
        found[0].start = 0  # type: ignore[misc]


def test_empty_and_blank_text() -> None:
    assert split_sentences("") == []
    assert split_sentences(" \n\n\t ") == []
    assert texts("no final stop") == ["no final stop"]


def test_enumerated_items_on_lines_are_sentences() -> None:
    text = (
        "3. By derogation from paragraph 2, an AI system shall not be high-risk. The first subparagraph\n"
        "shall apply where any of the following conditions is fulfilled:\n\n"
        "(a)   the AI system is intended to perform a narrow procedural task;  \n  \n"
        "(b)   the AI system is intended to improve the result of a human activity; or  \n  \n"
        "(c)   the AI system is intended to perform a preparatory task.\n"
    )
    assert texts(text) == [
        "3. By derogation from paragraph 2, an AI system shall not be high-risk.",
        "The first subparagraph\nshall apply where any of the following conditions is fulfilled:",
        "(a)   the AI system is intended to perform a narrow procedural task;",
        "(b)   the AI system is intended to improve the result of a human activity; or",
        "(c)   the AI system is intended to perform a preparatory task.",
    ]


def test_wrapped_reference_to_points_does_not_split() -> None:
    text = "AI systems referred to in points\n(a) and (b) of paragraph 1 shall be registered;\n(c) or not."
    assert texts(text)[0] == "AI systems referred to in points\n(a) and (b) of paragraph 1 shall be registered;"


def test_numbered_paragraph_labels_are_not_sentence_ends() -> None:
    assert texts("1. Providers shall act.\n2. Deployers shall act.") == [
        "1. Providers shall act.",
        "2. Deployers shall act.",
    ]
    assert texts("4.1.2.  Authorization Response\n\nThe server issues a code.") == [
        "4.1.2.  Authorization Response",
        "The server issues a code.",
    ]


def test_citation_with_page_abbreviation_at_line_start_does_not_split() -> None:
    text = "(23) Directive 2006/42/EC of 17\nMay 2006 on machinery ([OJ L 157, 9.6.2006,\np. 24](./link))."
    assert texts(text) == [text]


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("Smith v. Jones was decided. It stands.", ["Smith v. Jones was decided.", "It stands."]),
        ("At 10 a.m. The meeting began.", ["At 10 a.m.", "The meeting began."]),
        ("Mr. Smith met Mrs. Jones. They spoke.", ["Mr. Smith met Mrs. Jones.", "They spoke."]),
        ("He was smarter than I. But he lost.", ["He was smarter than I.", "But he lost."]),
        ("J. R. R. Tolkien wrote it. Others read it.", ["J. R. R. Tolkien wrote it.", "Others read it."]),
        ("apples, pears, etc. The rest is fruit.", ["apples, pears, etc.", "The rest is fruit."]),
        ("See Arts. 5 and 6. Then stop.", ["See Arts. 5 and 6.", "Then stop."]),
        ("It uses TLS 1.2. Version 1.3 is better.", ["It uses TLS 1.2.", "Version 1.3 is better."]),
        ("What is it? It is “a system.” Fine!", ["What is it?", "It is “a system.”", "Fine!"]),
        ("The term (see Art. 3) is defined. Next.", ["The term (see Art. 3) is defined.", "Next."]),
        ("Yahoo! is a company. It exists.", ["Yahoo! is a company.", "It exists."]),
        ("The URL is https://example.org/a.Html today.", ["The URL is https://example.org/a.Html today."]),
    ],
)
def test_inline_rules(text: str, expected: list[str]) -> None:
    assert texts(text) == expected


def test_heading_lines() -> None:
    text = "Some introductory sentence without a stop\nTable Of Results\n\nThe results follow."
    assert texts(text) == ["Some introductory sentence without a stop", "Table Of Results", "The results follow."]
    # A wrapped title whose last line looks like a heading stays whole when the line above
    # ends in a connector.
    text = "laying down harmonised rules on artificial intelligence and amending the\nArtificial Intelligence Act"
    assert len(texts(text)) == 1


def test_markdown_headings_and_tables() -> None:
    text = "# Title\nFirst line of text.\n| a | b |\n| 1 | 2 |\nAfter the table."
    assert texts(text) == ["# Title", "First line of text.", "| a | b |", "| 1 | 2 |", "After the table."]


def test_long_sentences_are_cut_at_semicolons() -> None:
    clause = "the provider shall document the data sources used for training the system in detail"
    text = "; ".join([clause] * 40) + "."
    found = split_sentences(text)
    assert len(found) > 1
    assert all(len(s.text) <= MAX_SENTENCE_CHARS for s in found)
    assert all(s.text.endswith((";", ".")) for s in found)
    assert all(text[s.start : s.end] == s.text for s in found)


def test_long_sentence_without_punctuation_is_still_cut() -> None:
    text = "word " * 700
    found = split_sentences(text)
    assert all(len(s.text) <= MAX_SENTENCE_CHARS for s in found)
    assert "".join(s.text.replace(" ", "") for s in found) == text.replace(" ", "")


def test_pdf_style_text() -> None:
    text = (
        "The provider shall keep the technical docu-\n"
        "mentation for ten years after the system has\n"
        "been placed on the market.The authority may\n"
        "request it.\n"
        "- 12 -\n"
        "Page 3 of 10\n"
        "It must be provided in an oﬃcial language.\n"
    )
    found = sentences(text)
    assert [s.text for s in found] == [
        "The provider shall keep the technical docu-\nmentation for ten years after the system has\n"
        "been placed on the market.",
        "The authority may\nrequest it.",
        "It must be provided in an oﬃcial language.",
    ]


_PIECES = [
    "The provider",
    "shall",
    "act",
    "Art.",
    "No.",
    "e.g.",
    "U.S.",
    "4.1.2",
    "3.5 %",
    "(a)",
    "(ii)",
    "1.",
    "—",
    ".",
    ". ",
    ";",
    ": ",
    "?",
    "!",
    '"',
    "”",
    ")",
    "(",
    "end.Next",
    "[RFC6749]",
    "Page 3 of 10",
    "#",
    " ",
    " ",
    "  ",
    "\n",
    "\n\n",
    "\n  \n",
    "\t",
    "\u00a0",
    "\u200b",
    "\r\n",
    "\x0c",
]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), max_size=60).map("".join))
def test_offset_contract_on_random_text(text: str) -> None:
    previous_end = 0
    for s in split_sentences(text):
        assert text[s.start : s.end] == s.text
        assert s.text and not s.text[0].isspace() and not s.text[-1].isspace()
        assert previous_end <= s.start < s.end <= len(text)
        assert len(s.text) <= MAX_SENTENCE_CHARS
        previous_end = s.end


# --------------------------------------------------------------------------------------
# Noise
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [
        "[12] A. Smith, B. Jones, Deep learning for law. In Proc. of ACL, 2019.",
        "[3] Smith, J. and Doe, A. Title of the paper. Journal of Things, 3(2), 1-10, 2020.",
        "Smith, J. (2020). Title of the work. Journal of Things, 3(2), 1-10.",
        "Smith, J., & Doe, A. (2019). A study of things. Publisher.",
        '[RFC6749] Hardt, D., Ed., "The OAuth 2.0 Authorization Framework", RFC 6749, October 2012.',
        'Hardt, D., Ed., "The OAuth 2.0 Authorization Framework", RFC 6749, October 2012.',
        "doi:10.1145/3442188.3445922",
        "DOI: 10.1016/j.artint.2020.103",
        "https://eur-lex.europa.eu/eli/reg/2024/1689/oj",
        "Available at: https://example.org/paper.pdf",
        "arXiv:2101.00001v2 [cs.CL] 1 Jan 2021",
        "John Smith1, Jane Doe2 1University of X, 2Institute of Y",
        "john.smith@example.org, jane.doe@example.org",
        "Contact: john.smith@example.org",
        "Page 3 of 10",
        "page 12",
        "- 12 -",
        "— 7 —",
        "12",
        "Hardt                        Standards Track                    [Page 5]",
        "RFC 6749                        OAuth 2.0                   October 2012",
        "Official Journal of the European Union L 1689/12",
        "EN Official Journal of the European Union L 1689/12 12.7.2024",
        "2024/1689   12.7.2024",
        "OJ L, 2024/1689, 12.7.2024 ELI: http://data.europa.eu/eli/reg/2024/1689/oj",
        "ELI: http://data.europa.eu/eli/reg/2024/1689/oj",
        "Copyright (c) 2012 IETF Trust and the persons identified as the document authors.",
        "© 2024 Example Corp. All rights reserved.",
        "1. Introduction ....................................................4",
        "4.1.2. Authorization Response .............................26",
        "Table of Contents",
        "* * *",
        "",
        # a README's badges: images (their alt text is no sentence) inside links
        "[![PyPI version](https://badge.fury.io/py/pypdf.svg)](https://badge.fury.io/py/pypdf)\n"
        "[![Python Support](https://img.shields.io/pypi/pyversions/pypdf.svg)](https://pypi.org/project/pypdf/)",
        "![Logo](docs/logo.png)",
    ],
)
def test_noise_lines(line: str) -> None:
    assert is_noise(line)


@pytest.mark.parametrize(
    "sentence",
    [
        "High-risk AI systems shall be designed and developed in such a way that they achieve an appropriate level "
        "of accuracy.",
        "This Regulation shall enter into force on the twentieth day following that of its publication in the "
        "Official Journal of the European Union.",
        "The references of which have been published in the Official Journal of the European Union.",
        "Regulation (EU) 2016/679 of the European Parliament and of the Council of 27 April 2016 (OJ L 119, "
        "4.5.2016, p. 1).",
        "(a) the AI system is intended to perform a narrow procedural task;",
        "Article 6(2) applies to the AI systems listed in Annex III.",
        "Information about the current status of this document may be obtained at "
        "http://www.rfc-editor.org/info/rfc6749.",
        "Complaints may be sent to the AI Office at EC-AI-OFFICE@ec.europa.eu, which shall reply within one month "
        "of receipt.",
        "Providers shall put in place a policy to comply with Union copyright law.",
        "Copyright holders may reserve their rights under Article 4(3) of Directive (EU) 2019/790.",
        "Smith, the provider, shall document the results, see Section 4.1.2 of [RFC6749].",
        "The fine shall be up to EUR 35 000 000 or 7 % of worldwide annual turnover.",
        "In 2019, researchers at the University of Oxford found that 3 of 10 systems failed.",
        "Article 6",
        "Classification rules for high-risk AI systems",
        "The client MUST NOT use the authorization code more than once [RFC6749].",
        # prose around an image, and a link's text, are sentences
        "The flow is shown in the diagram below: ![Flow](flow.png)",
        "See the [migration guide](https://pypdf.readthedocs.io/en/latest/user/migration-1-to-2.html) for details.",
    ],
)
def test_not_noise(sentence: str) -> None:
    assert not is_noise(sentence)


def test_sentences_drops_noise() -> None:
    text = "The rule applies.\n\nPage 3 of 10\n\n[1] A. Smith, Paper title. In Proc. of X, 2019.\n\nIt ends."
    assert [s.text for s in sentences(text)] == ["The rule applies.", "It ends."]


def test_rfc_page_furniture_and_toc_are_noise() -> None:
    text = RFC.read_text(encoding="utf-8")
    found = split_sentences(text)
    noise = [s.text for s in found if is_noise(s.text)]
    assert any("[Page 2]" in t for t in noise)
    assert any(t.startswith("RFC 6749") for t in noise)
    assert any("Roles ....." in t for t in noise)
    assert all(text[s.start : s.end] == s.text for s in found)
    kept = [s.text for s in sentences(text)]
    assert "This is an Internet Standards Track document." in kept


# --------------------------------------------------------------------------------------
# Whole corpora
# --------------------------------------------------------------------------------------


def test_ai_act_offsets_lengths_and_no_noise(aiact: str, aiact_sentences: list[Sentence]) -> None:
    assert len(aiact_sentences) > 2000
    previous_end = 0
    for s in aiact_sentences:
        assert aiact[s.start : s.end] == s.text
        assert s.text == s.text.strip()
        assert s.start >= previous_end
        assert len(s.text) <= MAX_SENTENCE_CHARS
        previous_end = s.end
    flagged = [s.text for s in aiact_sentences if is_noise(s.text)]
    # Only the running head, the ELI line and separators without any words are flagged.
    assert all(not any(c.isalpha() for c in t) or t.startswith(("2024/1689", "ELI:")) for t in flagged), flagged
    assert len(flagged) <= 25


def test_ai_act_known_sentences(aiact_sentences: list[Sentence]) -> None:
    found = {s.text for s in aiact_sentences}
    assert "(a)   the AI system is intended to perform a narrow procedural task;" in found
    assert (
        "2. In addition to the high-risk AI systems referred to in paragraph 1, AI\nsystems referred to in Annex III "
        "shall be considered to be high-risk." in found
    )
    assert "Classification rules for high-risk AI systems" in found


@pytest.mark.skipif(not GDPR.exists(), reason="GDPR text (../shared/data) not available")
def test_gdpr_offsets_and_no_noise() -> None:
    text = GDPR.read_text(encoding="utf-8")
    found = split_sentences(text)
    assert all(text[s.start : s.end] == s.text and len(s.text) <= MAX_SENTENCE_CHARS for s in found)
    flagged = [s.text for s in found if is_noise(s.text)]
    assert all(not any(c.isalpha() for c in t) for t in flagged), flagged  # only "---|---" and "* * *"
    assert any(s.text.startswith("1\\. Processing shall be lawful only if") for s in found)


@pytest.mark.skipif(not WICE.exists(), reason="WiCE data (../shared/data) not available")
def test_wice_boundaries_after_full_stops_are_recovered() -> None:
    rows = [json.loads(line) for line in WICE.read_text(encoding="utf-8").splitlines()[:60] if line.strip()]
    hit = total = 0
    for row in rows:
        evidence = [e for e in row["evidence"] if e.strip()]
        text, _ = case_text([e + " " for e in evidence[:-1]] + evidence[-1:])
        predicted = {s.start for s in split_sentences(text)}
        pos = 0
        for e, following in zip(evidence, evidence[1:]):
            pos += len(e) + 1
            if e.rstrip().endswith((".", "!", "?")) and following[:1].isupper():
                total += 1
                hit += pos in predicted
    assert total > 500
    assert hit / total > 0.95


def test_a_stop_before_a_symbol_no_sentence_opens_with_does_not_end_the_sentence():
    """An RFC's ABNF alternatives (`"-" / "." / "_"`) and assignments keep their sentence whole."""
    text = ('code_verifier = high-entropy cryptographic random STRING using the\n   unreserved characters '
            '[A-Z] / [a-z] / [0-9] / "-" / "." / "_" / "~"\n   from Section 2.3 of [RFC3986], with a minimum '
            'length of 43 characters\n   and a maximum length of 128 characters.\n\n   ABNF for "code_verifier" '
            'is as follows.')
    got = [s.text for s in split_sentences(text)]
    assert len(got) == 2 and got[0].endswith("maximum length of 128 characters.")
    assert all(text[s.start:s.end] == s.text for s in split_sentences(text))


def test_a_fenced_code_block_is_one_passage_blank_lines_and_all() -> None:
    text = ("Read a file:\n\n```python\nfrom pypdf import PdfReader\n\nreader = PdfReader(\"example.pdf\")\n"
            "print(len(reader.pages))\n```\n\nIt prints the page count. Then it stops.")
    found = split_sentences(text)
    assert [s.text for s in found] == [
        "Read a file:",
        "```python\nfrom pypdf import PdfReader\n\nreader = PdfReader(\"example.pdf\")\nprint(len(reader.pages))\n```",
        "It prints the page count.", "Then it stops."]
    assert all(text[s.start:s.end] == s.text for s in found)
    # an unclosed fence is no block: the text splits at its blank lines as any other
    assert [s.text for s in split_sentences("Run:\n\n```\npip install x\n\nThen go.")] == \
        ["Run:", "```\npip install x", "Then go."]


@pytest.mark.parametrize("text, first", [
    # a provision's keyword heading in sentence case, however long the lines below it
    ("Article 2 Obligations of manufacturers\n1. Manufacturers shall:\n(a) keep a register of complaints;\n"
     "(b) inform the authority within 15 days.", "Article 2 Obligations of manufacturers"),
    # a statute's bare-numbered section heading above its subsection (1)
    ("2 Powers to require retention of certain data\n(1) The Secretary of State may, by giving a retention notice, "
     "require an operator to retain data.", "2 Powers to require retention of certain data"),
])
def test_a_sentence_case_heading_is_no_part_of_the_first_sentence(text, first):
    found = split_sentences(text)
    assert found[0].text == first
    assert all(text[s.start:s.end] == s.text for s in found)


@pytest.mark.parametrize("text", [
    # a wrapped line that opens with a reference is prose going on, not a heading
    "The provider shall comply with the requirements laid down in\nArticle 5 of Regulation (EU) 2016/679 and\n"
    "Directive 2002/58/EC without delay.",
    # a table of contents entry wrapped onto its page number
    "Appendix C.  Notes on Implementing base64url Encoding without\n             Padding ........................ 54",
    # a wrapped sentence whose next line opens with a number is no numbered heading
    "The notice must be given within\n30 days of the request.",
])
def test_lines_that_only_look_like_headings_stay_in_their_sentence(text):
    assert len(split_sentences(text)) == 1
