import json
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from anchor_core.cli import main
from anchor_core.render import to_html, to_json, to_markdown
from anchor_core.scorers import make_scorer
from anchor_core.verify import CiteError, _tags, parse_answer, verify_answer

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
    assert [c.verdict for c in r.claims] == ["supported", "not_found"]
    assert r.verified_fraction == 0.5 and not r.passed
    a = r.claims[0].anchor
    assert SOURCES["art99"][a.start:a.end] == a.quote
    assert "not supported by cited source art4" in " ".join(r.claims[1].reasons)
    md, js, ht = to_markdown(r), json.loads(to_json(r)), to_html(r)
    assert "not verified: 1 of 2 claims supported, 1 not found" in md and js["verified_fraction"] == 0.5
    assert js["assessment"]["state"] == "not_verified" and "class='claim not_found'" in ht
    art99 = next(s for s in js["sources"] if s["unit_id"] == "art99")
    assert art99["unit_sha256"] and len(art99["unit_sha256"]) == 64 and art99["text"] == SOURCES["art99"]


def test_compound_claim_needs_every_atom():
    answer = ('<cite id="art99">Member States shall lay down the rules on penalties; '
              'the fines are paid to the United Nations</cite>')
    c = verify_answer(answer, SOURCES, scorer=LEX).claims[0]
    assert len(c.atoms) == 2 and c.verdict == "partially_supported"


def test_no_claims_is_not_a_pass():
    r = verify_answer("Ok.", SOURCES, scorer=LEX)
    assert r.claims == [] and r.verified_fraction == 0.0 and not r.passed and "no claims" in " ".join(r.notes)


def test_uncited_answer_is_checked_against_all_sources():
    r = verify_answer("Providers and deployers shall ensure a sufficient level of AI literacy of their staff.",
                      SOURCES, scorer=LEX)
    assert r.claims[0].verdict == "supported" and r.claims[0].atoms[0].anchor.unit_id == "art4"


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


@pytest.mark.parametrize("answer, ids", [
    ('Providers must ensure AI literacy.<cite ID="art4"/>', ["art4"]),
    ('Providers must ensure AI literacy.<CITE Id = "art4" />', ["art4"]),
    ('Providers must ensure AI literacy.<cite title="1 > 0" id=\'art4\'/>', ["art4"]),
    ('Providers must ensure AI literacy.<cite data-id="art99" id="art4" data-x=art99/>', ["art4"]),
    ('Providers must ensure AI literacy.<cite id=art4/>', ["art4"]),
    ('Providers must ensure AI literacy.<cite id=art4,art99 />', ["art4", "art99"]),
    ('Providers must ensure AI literacy.<cite id="art4,art99"></cite>', ["art4", "art99"]),
    ('<cite\n  title="a>b"\n  id="art4">Providers must ensure AI literacy.</cite>', ["art4"]),
])
def test_cite_tags_are_read_as_html_reads_them(answer, ids):
    (seg,) = parse_answer(answer, SOURCES)
    assert seg.text == "Providers must ensure AI literacy." and seg.cite_ids == ids


def test_text_that_only_looks_like_a_tag_stays_claim_text():
    segs = parse_answer('Fines are < EUR 10 and > EUR 5 here. <citex id="art4">is not a cite</citex> at all.', SOURCES)
    assert [s.text for s in segs] == ["Fines are < EUR 10 and > EUR 5 here.",
                                      '<citex id="art4">is not a cite</citex> at all.']
    assert all(s.cite_ids == [] for s in segs)


@pytest.mark.parametrize("answer, message", [
    ('Providers must ensure AI literacy.<cite data-id="art4"/>', "line 1: <cite> without an id"),
    ('a b c\nProviders must ensure AI literacy.<cite id="art4"', "line 2: a <cite> tag that never ends"),
    ('a b c\n\nProviders must ensure.<cite id="art4>x y z', "line 3: a <cite> tag that never ends"),
    ('Providers must ensure AI literacy.<cite id/>', "line 1: <cite> with an empty id"),
    ('Providers must ensure AI literacy.</cite', "line 1: </cite without its closing '>'"),
])
def test_malformed_attributes_name_the_line(answer, message):
    with pytest.raises(CiteError, match=re.escape(message)):
        parse_answer(answer, SOURCES)


def test_cli_malformed_tag_exits_2_naming_the_line(tmp_path, capsys):
    ans, src = tmp_path / "a.txt", tmp_path / "s.json"
    ans.write_text('Intro words here.\nProviders shall ensure AI literacy.<cite id="art4 title=x>')
    src.write_text(json.dumps(SOURCES))
    assert main(["verify", "-a", str(ans), "-s", str(src), "--scorer", "lexical", "--no-embedder"]) == 2
    assert "line 2: a <cite> tag that never ends" in capsys.readouterr().err


# -- property: any spelling of a tag parses as the canonical one --------------------------------

WORDS = ["providers", "shall", "keep", "logs", "Article", "6(2)", "EUR", "500", ">", "<", "a>b", "x=y", "'q'"]
VALUE_CHARS = st.sampled_from(list("ab z>/<=-") + ["\u00e9"])


@st.composite
def spelled_tag(draw, ids: list[str], *, marker: bool) -> str:
    """``<cite …>`` (or a self-closing marker) citing ``ids``, with decoy attributes in random order,
    random name case, random quoting and random whitespace, and ``>`` inside quoted values."""
    def case(name: str) -> str:
        return "".join(c.upper() if draw(st.booleans()) else c for c in name)

    def ws() -> str:
        return draw(st.text(alphabet=" \t\n", min_size=1, max_size=3))

    def attr(name: str, value: str, may_unquote: bool) -> str:
        quotes = ['"', "'"] + ([""] if may_unquote else [])
        q = draw(st.sampled_from([q for q in quotes if not q or q not in value]))
        eq = draw(st.sampled_from(["=", " = ", "=\t"]))
        return f"{case(name)}{eq}{q}{value}{q}"

    id_value = ",".join(ids) if draw(st.booleans()) else ", ".join(ids)
    attrs = [attr("id", id_value, " " not in id_value)]
    decoy = draw(st.sampled_from(list(SOURCES)))
    for name in draw(st.lists(st.sampled_from(["data-id", "title", "class", "data-src", "data-cite-id"]),
                              unique=True, max_size=3)):
        value = decoy if name.endswith("id") else draw(st.text(alphabet=VALUE_CHARS, max_size=8))
        attrs.append(attr(name, value, value != "" and re.fullmatch(r"[^\s\"'=<>`/]+", value) is not None))
    attrs = draw(st.permutations(attrs))
    end = draw(st.sampled_from(["/>", " />", "/ >"])) if marker else draw(st.sampled_from([">", " >"]))
    return f"<{case('cite')}" + "".join(ws() + a for a in attrs) + end


@st.composite
def answers(draw):
    """The same answer twice: with canonical tags, and with each tag spelled at random."""
    canonical, spelled = [], []
    for _ in range(draw(st.integers(1, 3))):
        words = " ".join(draw(st.lists(st.sampled_from(WORDS), min_size=3, max_size=7)))
        claim = words[0].upper() + words[1:]
        ids = draw(st.lists(st.sampled_from(list(SOURCES)), min_size=1, max_size=2, unique=True))
        form = draw(st.sampled_from(["pair", "marker", "empty-pair"]))
        if form == "pair":
            canonical.append(f'<cite id="{",".join(ids)}">{claim}</cite>. ')
            closing = draw(st.sampled_from(["</cite>", "</CITE>", "</Cite >"]))
            spelled.append(f"{draw(spelled_tag(ids, marker=False))}{claim}{closing}. ")
        elif form == "marker":
            canonical.append(f'{claim}.<cite id="{",".join(ids)}"/> ')
            spelled.append(f"{claim}.{draw(spelled_tag(ids, marker=True))} ")
        else:
            canonical.append(f'{claim}.<cite id="{",".join(ids)}"/> ')
            spelled.append(f"{claim}.{draw(spelled_tag(ids, marker=False))}</cite> ")
    return "".join(canonical), "".join(spelled)


@settings(max_examples=200, deadline=None)
@given(answers())
def test_any_spelling_of_the_tags_parses_to_the_same_claims(pair):
    canonical, spelled = pair
    want = [(s.text, s.cite_ids) for s in parse_answer(canonical, SOURCES)]
    assert want and all(ids for _, ids in want)
    assert [(s.text, s.cite_ids) for s in parse_answer(spelled, SOURCES)] == want


@settings(max_examples=200, deadline=None)
@given(st.lists(st.tuples(st.text(alphabet=st.sampled_from(list("ab .>\n")), max_size=12),
                          st.sampled_from(list(SOURCES)), st.booleans()), min_size=1, max_size=4), st.data())
def test_tag_offsets_are_exact(parts, data):
    answer, want = "", []
    for text, sid, marker in parts:
        answer += text
        tag = data.draw(spelled_tag([sid], marker=marker))
        want.append((len(answer), len(answer) + len(tag), tag))
        answer += tag
    assert [(t.start, t.end, answer[t.start:t.end]) for t in _tags(answer)] == want


@pytest.mark.parametrize("bound", ["nan", "NaN", "inf", "-inf", "-1", "2", "1.0001"])
def test_cli_fail_under_must_be_a_fraction(tmp_path, capsys, bound):
    ans, src = tmp_path / "a.txt", tmp_path / "s.json"
    ans.write_text("Providers and deployers shall ensure a sufficient level of AI literacy.")
    src.write_text(json.dumps(SOURCES))
    assert main(["verify", "-a", str(ans), "-s", str(src), "--scorer", "lexical", f"--fail-under={bound}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--fail-under must be a number from 0 to 1" in err


@pytest.mark.parametrize("bound, code", [("0", 0), ("1", 0), ("0.5", 0)])
def test_cli_fail_under_bounds_are_accepted(tmp_path, bound, code):
    ans, src = tmp_path / "a.txt", tmp_path / "s.json"
    ans.write_text("Providers and deployers shall ensure a sufficient level of AI literacy of their staff.")
    src.write_text(json.dumps(SOURCES))
    assert main(["verify", "-a", str(ans), "-s", str(src), "--scorer", "lexical", "--fail-under", bound]) == code


def test_an_unsupported_claim_s_reasons_name_the_span_they_are_about():
    src = {"art26": "Deployers must not use the system for other purposes. "
                    "Deployers shall keep the logs for at least six months, unless Union law provides otherwise."}
    r = verify_answer('Deployers shall keep the logs for at least three months.<cite id="art26"/>', src,
                      scorer=make_scorer("learned"))
    c = r.claims[0]
    assert c.verdict == "contradicted" and "six months" in c.contradiction.quote
    closest = next(x for x in c.reasons if "the closest span" in x)
    a = c.atoms[0].anchor
    assert f"characters {a.start}–{a.end}" in closest and src["art26"][a.start:a.end] == a.quote
    assert a.quote.split()[0] in closest  # its opening words, so a reader knows which sentence is meant
    # what was missing is said of that span, not of "the source", which does hold "keep", "logs" and "six"
    assert any("not in that span" in x for x in c.reasons)
    assert not any("not in source" in x or "not in the quoted span" in x for x in c.reasons)
    # a supported claim's reasons are about its own quote
    ok = verify_answer('The fine is up to EUR 35 000 000 for breaches of Article 5.<cite id="art99"/>', SOURCES,
                       scorer=LEX).claims[0]
    assert not any("that span" in x for x in ok.reasons)
