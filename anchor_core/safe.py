"""Untrusted text into Markdown and HTML, shown as the characters it is and never as markup.

Source sentences, claims, questions, reviewer comments, run ids and corpus names come from
documents and exports that anyone may have written. Whatever renders them (the dashboard's
``st.markdown``, a Markdown viewer opening an export, a browser opening an HTML export) must show
``![x](http://evil.example/p.png)`` or ``<script>`` as text: no image is fetched, no tag is live.

>>> md_escape("Article 6(2) <b>bold</b>")
'Article 6\\\\(2\\\\) &lt;b&gt;bold&lt;/b&gt;'

which a Markdown renderer shows as ``Article 6(2) <b>bold</b>``.
"""

from __future__ import annotations

import html
import json
import re
from typing import Any

# ASCII punctuation that starts inline Markdown anywhere (links, images, emphasis, code, tables,
# strikethrough, math, Streamlit's :color[...] directives). Backslash escapes render as the bare
# character in CommonMark, GFM and Streamlit.
_INLINE = re.compile(r"([\\`*_{}\[\]()#!|~$])")
# What starts a block only at the start of a line: list items (- + 1. 1)), setext underlines (= -).
_LINE_MARK = re.compile(r"^(?=[-+=])", re.MULTILINE)
_LINE_NUMBER = re.compile(r"^(\d+)\.", re.MULTILINE)
_LEADING_SPACE = re.compile(r"^[ \t]+", re.MULTILINE)  # four spaces would make an indented code block


def md_escape(text: str, *, inline: bool = False) -> str:
    """``text`` for a Markdown document, rendered as exactly these characters.

    HTML's ``& < >`` become entities (``<script>`` is inert ``&lt;script&gt;`` text even in the
    raw file); Markdown's punctuation gets a backslash; line-start list and heading markers and
    leading indentation are neutralised. ``inline=True`` also folds newlines into spaces, for
    text inside a list item, a heading or a label.

    >>> md_escape("![x](http://evil.example/p.png)")
    '\\\\!\\\\[x\\\\]\\\\(http://evil.example/p.png\\\\)'
    """
    if inline:
        text = " ".join(text.split())
    text = html.escape(text, quote=False)
    text = _INLINE.sub(r"\\\1", text)
    text = _LEADING_SPACE.sub("", text)
    text = _LINE_MARK.sub(r"\\", text)
    return _LINE_NUMBER.sub(r"\1\\.", text)


def md_code(text: str) -> str:
    """``text`` as a Markdown code span (ids, names): literal whatever it holds.

    >>> md_code("a`b")
    '``a`b``'
    """
    text = " ".join(text.split())  # a newline could end the paragraph and start a block
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def html_escape(text: Any) -> str:
    """``str(text)`` for HTML element content or a quoted attribute value."""
    return html.escape(str(text), quote=True)


def json_for_html(data: Any) -> str:
    """JSON for a ``<script type="application/json">`` element or an HTML comment: ``<``, ``>`` and
    ``&`` are written as ``\\u`` escapes (equivalent inside JSON strings, the only place they can
    occur), so ``</script>``, ``<!--`` or ``-->`` in the data can never end the element.
    ``json.loads`` returns exactly ``data``."""
    text = json.dumps(data, ensure_ascii=False)
    return (text.replace("&", "\\u0026").replace("<", "\\u003c").replace(">", "\\u003e")
            .replace("\u2028", "\\u2028").replace("\u2029", "\\u2029"))
