"""A question about when a work that a document of the corpus cites was published is answered from the citing
document's reference list (``anchor_core.ask.cited``)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from anchor_core.ask import AskSettings, ask
from anchor_core.ask.cited import asks_cited_date, entries, find
from anchor_core.ask.question import analyse
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.named import use_adapters
from anchor_core.stores.sqlite import SQLiteStore
from ingest import get_adapter
from ingest.rfc import RfcAdapter

DATA = Path(__file__).resolve().parent / "data" / "rfc"

REFS = """7.  References

   See [RFC2246] for the record layer; [RFC2246] is
   the version this memo was tested with.

   [RFC2119]    Bradner, S., "Key words for use in RFCs to Indicate
                Requirement Levels", BCP 14, RFC 2119, March 1997.

   [RFC2246]    Dierks, T. and C. Allen, "The TLS Protocol Version 1.0",
                RFC 2246, January 1999.

   [SEC1]       Standards for Efficient Cryptography Group, "SEC 1:
                Elliptic Curve Cryptography", Version 2.0, May 2009,
                <http://www.secg.org/sec1-v2.pdf>.

   [OAuth-HTTP-MAC]
                Hammer-Lahav, E., Ed., "HTTP Authentication: MAC Access
                Authentication", Work in Progress,
                draft-ietf-oauth-v2-http-mac-01, February 2012.
"""


def test_reference_entries_are_read_with_their_title_date_and_draft_mark():
    found = entries("rfc-1", REFS)
    assert [(e.label, e.title, e.date, e.draft) for e in found] == [
        ("RFC2119", "Key words for use in RFCs to Indicate Requirement Levels", "March 1997", ""),
        ("RFC2246", "The TLS Protocol Version 1.0", "January 1999", ""),
        ("SEC1", "SEC 1: Elliptic Curve Cryptography", "May 2009", ""),
        ("OAuth-HTTP-MAC", "HTTP Authentication: MAC Access Authentication", "February 2012", "Work in Progress")]
    # each entry is a span of the text: the whole entry, label to last character
    assert all(REFS[e.start:e.end] == e.text and e.text.startswith(f"[{e.label}]") for e in found)
    assert found[1].text.endswith("January 1999.")
    # a body line that opens with a citation is no entry ("[RFC2246] is the version ..." has no title)
    assert [e.label for e in found].count("RFC2246") == 1


@pytest.mark.parametrize("question, label, why", [
    ("Our spec cites the TLS protocol. What publication date does it give for TLS Protocol Version 1.0?",
     "RFC2246", "writes 100% of its title"),
    ("In what month and year was RFC 2119 published?", "RFC2119", "names RFC2119"),
    ("Which version of SEC 1 does it cite, and with what publication date?", "SEC1", "names SEC1"),
])
def test_the_cited_work_is_found_by_its_designation_or_title(question, label, why):
    got, reason = find(question, {"rfc-1": REFS})
    assert reason == "" and got is not None and (got.entry.label, got.why) == (label, why)


@pytest.mark.parametrize("question, why", [
    # a version the entry does not cite
    ("When was SEC 1 version 3.0 published?", "3.0"),
    # something else than the work's publication
    ("When was the very first individual draft of the TLS Protocol Version 1.0 published?", "first individual"),
    # no title written clearly more than another's
    ("When was that protocol published?", "title"),
])
def test_no_entry_answers_a_question_about_something_else(question, why):
    got, reason = find(question, {"rfc-1": REFS})
    assert got is None and why.lower() in reason.lower()


def test_the_citing_document_the_question_names_is_not_the_work_asked_about():
    refs = REFS + '\n   [RFC6750]    Jones, M., "Bearer Token Usage", RFC 6750, October 2012.\n'
    got, _ = find("What publication date does RFC 6750 give for RFC 2119?", {"rfc-6750": refs}, ["RFC 6750"])
    assert got is not None and got.entry.label == "RFC2119"


def test_only_a_question_about_a_publication_asks_for_a_cited_date():
    for q in ("What date does JWA give for the Secure Hash Standard?", "When was RFC 2119 published?",
              "In what month and year is that SWT version dated?"):
        assert asks_cited_date(q, analyse(q)), q
    for q in ("By when must the server publish its metadata?", "What does RFC 2119 define?"):
        assert not asks_cited_date(q, analyse(q)), q


@pytest.fixture(scope="module")
def rfc_store(tmp_path_factory):
    """The two test RFCs, RFC 6750's reference list with a draft added."""
    root = tmp_path_factory.mktemp("rfc")
    src = root / "src"
    shutil.copytree(DATA, src)
    text = (src / "rfc6750.txt").read_text(encoding="utf-8")
    entry = ("   [RFC7515]    Jones, M., Bradley, J., and N. Sakimura, \"JSON Web\n"
             "                Signature (JWS)\", RFC 7515, May 2015.\n")
    assert entry in text
    draft = ("\n   [OAuth-HTTP-MAC]\n                Hammer-Lahav, E., Ed., \"HTTP Authentication: MAC Access\n"
             "                Authentication\", Work in Progress,\n"
             "                draft-ietf-oauth-v2-http-mac-01, February 2012.\n")
    (src / "rfc6750.txt").write_text(text.replace(entry, entry + draft), encoding="utf-8")
    use_adapters(get_adapter)
    store = SQLiteStore(root / "a.db")
    ingest(store, HashEmbedder(), RfcAdapter().load(src), corpus="rfc", adapter="rfc")
    yield store
    use_adapters(None)


def test_ask_quotes_the_reference_entry_with_exact_offsets(rfc_store):
    rep = ask("RFC 6750 builds on HTTP/1.1. For our standards register, what publication date does RFC 6750 give for "
              "Hypertext Transfer Protocol -- HTTP/1.1?",
              store=rfc_store, embedder=HashEmbedder(), corpus="rfc", settings=AskSettings())
    assert not rep.refused and len(rep.claims) == 1
    c = rep.claims[0]
    assert c.supported and c.anchor is not None and c.anchor.unit_id == "rfc-6750"
    text = rfc_store.get_units("rfc", ["rfc-6750"])["rfc-6750"].text
    assert text[c.anchor.start:c.anchor.end] == c.anchor.quote
    assert c.anchor.quote.startswith("[RFC2616]") and c.anchor.quote.endswith("RFC 2616, June 1999.")
    assert rep.gate is not None and rep.gate.signals == {"cited": "RFC2616", "unit": "RFC 6750", "by": "title"}
    assert rep.assessment().state != "verified"  # a title the question writes may be another work's: not confirmed
    assert "references of RFC 6750 date it June 1999" in rep.gate.reason
    assert any(e.stage == "write" and "references of RFC 6750" in e.message for e in rep.trace)


def test_ask_refuses_a_publication_date_the_references_give_only_for_a_draft(rfc_store):
    rep = ask("RFC 6750 mentions MAC access authentication. In what month and year was HTTP Authentication: MAC "
              "Access Authentication published as an RFC?",
              store=rfc_store, embedder=HashEmbedder(), corpus="rfc", settings=AskSettings())
    assert rep.refused and rep.reason_code == "not_answered"
    assert "cite it only as a draft (Work in Progress, February 2012)" in rep.reason
    assert rep.gate is not None and rep.gate.signals.get("draft") == "Work in Progress"


def test_a_header_still_answers_for_a_document_of_the_corpus(rfc_store):
    rep = ask("Our API cites RFC 6749. In what month and year was that RFC published?", store=rfc_store,
              embedder=HashEmbedder(), corpus="rfc", settings=AskSettings())
    assert rep.gate is not None and rep.gate.signals.get("header") == "RFC 6749"


def test_a_cited_work_the_question_names_is_answered_and_verified(rfc_store):
    rep = ask("RFC 6750 uses the key words of RFC 2119. In what month and year was RFC 2119 published?",
              store=rfc_store, embedder=HashEmbedder(), corpus="rfc", settings=AskSettings())
    assert not rep.refused and rep.gate is not None and rep.gate.signals.get("by") == "name"
    assert [c.anchor.quote.split()[0] for c in rep.claims if c.anchor] == ["[RFC2119]"]
    assert rep.relevance is not None and rep.relevance.method == "reference list" and rep.relevance.addressed
    assert rep.assessment().state == "verified"


BODY = """4.  Security Considerations

   Clients should implement user login with an appropriate protocol,
   such as OpenID (cf. [OPENID]) or SAML (cf. [OASIS.saml-bind]).

   Algorithm substitution attacks have been discussed in detail in
   the context of Cryptographic Message Syntax (CMS) [RFC6211].

5.  References

   [OPENID]   openid.net, "OpenID Authentication 2.0".

   [OASIS.saml-bind]
              Maler, E., "Bindings and Profiles for the OASIS Security
              Assertion Markup Language (SAML) V1.1", September 2003.

   [RFC6211]  Schaad, J., "Cryptographic Message Syntax (CMS)
              Algorithm Identifier Protection Attribute", RFC 6211,
              April 2011.
"""


def test_a_work_is_found_by_the_sentence_that_cites_it():
    q = ("Our verifier's security review cites algorithm substitution attacks; the spec says these were discussed in "
         "detail for CMS and cites an RFC for it. For our bibliography, what publication date does it give for that "
         "RFC?")
    got, reason = find(q, {"rfc-1": BODY})
    assert reason == "" and got is not None and got.by == "context" and got.entry.label == "RFC6211"
    assert got.entry.date == "April 2011" and "describes the sentence that cites it" in got.why
    a, b = got.citing
    assert BODY[a:b].startswith("Algorithm substitution attacks") and BODY[a:b].endswith("(CMS) [RFC6211].")


@pytest.mark.parametrize("question, why", [
    # the sentence cites two works, the other one's entry fits more words, and the asking sentence names the one
    # whose entry gives no date
    ("The spec tells clients to implement user login with OpenID or with SAML bindings and profiles. What "
     "publication date does it give for the OpenID specification it cites there?", "OpenID"),
    # the same sentence, and no entry fits more of it
    ("The spec tells clients to implement user login with OpenID or SAML. What publication date does it give for "
     "the protocol it cites there?", "as well"),
    # the asking sentence gives the work a name that the entry of the described sentence's citation does not write
    ("The spec says substitution attacks were discussed in detail for CMS. In what month and year was the CMS "
     "Countersignature specification published?", "Countersignature"),
    # one shared word is no description of a sentence
    ("When was that protocol published?", "does not describe a sentence"),
    # a work the question names by its designation and no entry lists
    ("The spec discusses substitution attacks in detail for CMS. What publication date does it give for RFC 5652?",
     "names a work"),
])
def test_a_described_sentence_does_not_answer_for_another_work(question, why):
    got, reason = find(question, {"rfc-1": BODY})
    assert got is None and why.lower() in reason.lower()


def test_a_cited_work_described_by_its_citing_sentence_is_quoted_with_that_sentence(rfc_store):
    rep = ask("RFC 6750 says its WWW-Authenticate header field uses the framework defined by HTTP/1.1, and cites a "
              "document for it. For our register, what publication date does RFC 6750 give for that document?",
              store=rfc_store, embedder=HashEmbedder(), corpus="rfc", settings=AskSettings())
    assert not rep.refused and [c.supported for c in rep.claims] == [True, True]
    text = rfc_store.get_units("rfc", ["rfc-6750"])["rfc-6750"].text
    cites, entry = (c.anchor for c in rep.claims)
    assert cites is not None and entry is not None
    assert text[cites.start:cites.end] == cites.quote and cites.quote.endswith("defined by HTTP/1.1 [RFC2617].")
    assert text[entry.start:entry.end] == entry.quote and entry.quote.startswith("[RFC2617]")
    assert entry.quote.endswith("June 1999.")
    assert rep.gate is not None and rep.gate.signals == {"cited": "RFC2617", "unit": "RFC 6750", "by": "context"}
    assert "cites it:" in rep.answer and "references:" in rep.answer
    assert rep.assessment().state != "verified"  # the chosen sentence may describe another work: not confirmed
    assert any(e.stage == "write" and "the sentence that cites it" in e.message for e in rep.trace)
