"""Hostile text for the escaping tests, and a check that rendered Markdown holds no live markup."""

from __future__ import annotations

import re

IMAGE = "![x](http://evil.example/p.png)"
SCRIPT = "<script>document.title='x'</script>"
ONERROR = "<img src=x onerror=alert(1)>"
JS_LINK = "[click](javascript:alert(1))"
RUN_ID = "\"><script>document.title='pwned'</script>"
PAYLOADS = [IMAGE, SCRIPT, ONERROR, JS_LINK, RUN_ID]
HOSTILE = " ".join(PAYLOADS)

_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")  # a backslash-escaped ASCII punctuation character
_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)  # a code span: literal text in any renderer


def live_markup(markdown: str) -> list[str]:
    """The pieces of ``markdown`` a renderer would turn into tags, images or links."""
    bare = _ESCAPED.sub("", _CODE.sub("", markdown))
    found = re.findall(r"<[A-Za-z!/?]", bare) + re.findall(r"!?\[[^\]]*\]\(", bare)
    found += re.findall(r"javascript:[^\s]*\)", bare) if "](" in bare else []
    return found
