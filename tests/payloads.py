"""Hostile text for the escaping tests, and a check that rendered Markdown holds no live markup."""

from __future__ import annotations

import re

IMAGE = "![x](http://evil.example/p.png)"
SCRIPT = "<script>document.title='x'</script>"
ONERROR = "<img src=x onerror=alert(1)>"
JS_LINK = "[click](javascript:alert(1))"
RUN_ID = "\"><script>document.title='pwned'</script>"
ATTR_ID = "x'><script>document.title='pwned'</script>"  # the same, out of a single-quoted attribute
PAYLOADS = [IMAGE, SCRIPT, ONERROR, JS_LINK, RUN_ID, ATTR_ID]
HOSTILE = " ".join(PAYLOADS)

_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")  # a backslash-escaped ASCII punctuation character
_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)  # a code span: literal text in any renderer


def live_markup(markdown: str) -> list[str]:
    """The pieces of ``markdown`` a renderer would turn into tags, images or links."""
    bare = _ESCAPED.sub("", _CODE.sub("", markdown))
    found = re.findall(r"<[A-Za-z!/?]", bare) + re.findall(r"!?\[[^\]]*\]\(", bare)
    found += re.findall(r"javascript:[^\s]*\)", bare) if "](" in bare else []
    return found


def hostile_ask_report():
    """An answered ask report whose every free text (question, answer, claim, quote, source label,
    reference path, trace, notes, models) carries the payloads."""
    from anchor_core.report import CheckedClaim, ClaimAnchor, Report, Source, TraceEvent

    text = f"1. Providers shall keep logs {HOSTILE} for six months. 2. Deployers inform users."
    quote = f"Providers shall keep logs {HOSTILE} for six months."
    start = text.index(quote)
    src = Source(n=1, chunk_id="c1", unit_id="article-12", part="1", label=f"Article 12 {IMAGE}", doc_id="doc",
                 start=0, end=len(text), text=text, score=0.8, direct=False, path=f"article-12 ← {JS_LINK}",
                 followed_from=ONERROR, unit_sha256="ab" * 32)
    anchor = ClaimAnchor(source=1, unit_id="article-12", part="1", quote=quote, start=start, end=start + len(quote),
                         score=1.0, method="verbatim", threshold=0.5, unit_sha256="ab" * 32)
    claim = CheckedClaim(text=f"Providers keep logs {HOSTILE}.", cited=[1], supported=True, verdict="supported",
                         anchor=anchor, reasons=[f"matches {IMAGE}"])
    return Report(kind="ask", question=f"How long? {SCRIPT}", corpus="demo", corpus_version="v1", refused=False,
                     answer=f"Logs are kept {HOSTILE} [1].\n# {JS_LINK}", claims=[claim], sources=[src],
                     trace=[TraceEvent(stage="retrieve", message=f"retrieved {IMAGE}", decision=ONERROR)],
                     notes=[SCRIPT], models={"embedder": f"hash {RUN_ID}"})
