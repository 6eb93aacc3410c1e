import json

import pytest

from anchor_core.cli import main
from anchor_core.scorers import make_scorer
from anchor_core.verify import CiteError, parse_answer, verify_answer

SOURCES = {
    "art99": "1. Member States shall lay down the rules on penalties applicable to infringements of this Regulation. "
             "2. Non-compliance with Article 5 shall be subject to administrative fines of up to EUR 35 000 000.",
    "art4": "Providers and deployers of AI systems shall take measures to ensure a sufficient level of AI literacy "
            "of their staff.",
}
LEX = make_scorer("lexical")


def test_paired_and_marker_tags():
    segs = parse_answer('Intro words here. <cite id="art4">Providers must ensure AI literacy of staff</cite>. '
                        'Fines reach EUR 35 000 000.<cite id="art99"/>\nUncited closing sentence here.', SOURCES)
    assert [(s.text, s.cite_ids) for s in segs] == [
        ("Intro words here.", []), ("Providers must ensure AI literacy of staff", ["art4"]),
        ("Fines reach EUR 35 000 000.", ["art99"]), ("Uncited closing sentence here.", [])]
    assert segs[-1].line == 2


@pytest.mark.parametrize("answer, message", [
    ('<cite id="art9">x y z</cite>', "unknown source id 'art9'; did you mean 'art99'?"),
    ('<cite>x y z</cite>', "without an id"),
    ('a b c <cite id="art4">x y z', "line 1: <cite> is never closed"),
    ('a b c\nd e f </cite>', "line 2: </cite> without an opening"),
    ('<cite id="art4">x y z <cite id="art99">u v w</cite>', "never closed before the next <cite>"),
])
def test_malformed_tags_name_the_line_and_fix(answer, message):
    with pytest.raises(CiteError, match=message.replace("(", r"\(").replace("?", r"\?")):
        parse_answer(answer, SOURCES)


def test_verify_answer_report():
    answer = ('<cite id="art99">Member States shall lay down the rules on penalties applicable to infringements'
              '</cite>. <cite id="art4">Deployers must pay staff a bonus of EUR 500</cite>.')
    r = verify_answer(answer, SOURCES, scorer=LEX)
    assert [c.verdict for c in r.claims] == ["supported", "unsupported"]
    assert r.verified_fraction == 0.5 and not r.passed
    a = r.claims[0].anchor
    assert SOURCES["art99"][a.start:a.end] == a.quote
    assert "not supported by cited source art4" in r.claims[1].reason
    md, js, ht = r.to_markdown(), json.loads(r.to_json()), r.to_html()
    assert "Verified: 50%" in md and js["verified_fraction"] == 0.5 and "<table>" in ht
    assert js["sources"]["art99"] and len(js["sources"]["art99"]) == 64


def test_compound_claim_needs_every_atom():
    answer = ('<cite id="art99">Member States shall lay down the rules on penalties; '
              'the fines are paid to the United Nations</cite>')
    c = verify_answer(answer, SOURCES, scorer=LEX).claims[0]
    assert len(c.atoms) == 2 and c.verdict == "partially_supported"


def test_no_claims_is_not_a_pass():
    r = verify_answer("Ok.", SOURCES, scorer=LEX)
    assert r.claims == [] and r.verified_fraction == 0.0 and not r.passed and "no claims" in r.note


def test_uncited_answer_is_checked_against_all_sources():
    r = verify_answer("Providers and deployers shall ensure a sufficient level of AI literacy of their staff.",
                      SOURCES, scorer=LEX)
    assert r.claims[0].verdict == "supported" and r.claims[0].atoms[0].source_id == "art4"


def test_cli_verify_exit_codes(tmp_path, capsys):
    ans = tmp_path / "a.txt"
    ans.write_text('<cite id="art4">Providers and deployers shall ensure a sufficient level of AI literacy</cite>.')
    src = tmp_path / "s.json"
    src.write_text(json.dumps(SOURCES))
    out = tmp_path / "r.json"
    assert main(["verify", "-a", str(ans), "-s", str(src), "--scorer", "lexical", "--no-embedder",
                 "--format", "json", "--output", str(out)]) == 0
    assert json.loads(out.read_text())["verified_fraction"] == 1.0
    ans.write_text('<cite id="art4">Deployers must pay a bonus of EUR 500 to staff</cite>.')
    assert main(["verify", "-a", str(ans), "-s", str(src), "--scorer", "lexical", "--no-embedder"]) == 1
    assert main(["verify", "-a", str(ans), "-s", str(src), "--scorer", "lexical", "--no-embedder",
                 "--fail-under", "0"]) == 0
    ans.write_text('<cite id="art5">x y z</cite>')
    assert main(["verify", "-a", str(ans), "-s", str(src), "--scorer", "lexical", "--no-embedder"]) == 2
    assert "did you mean 'art4'" in capsys.readouterr().err
    ans.write_bytes(b"\xff\xfe bad")
    assert main(["verify", "-a", str(ans), "-s", str(src), "--no-embedder"]) == 2
    folder = tmp_path / "srcs"
    folder.mkdir()
    (folder / "art4.txt").write_text(SOURCES["art4"])
    ans.write_text('<cite id="art4">Providers and deployers shall ensure a sufficient level of AI literacy</cite>.')
    assert main(["verify", "-a", str(ans), "-s", str(folder), "--scorer", "lexical", "--no-embedder"]) == 0
