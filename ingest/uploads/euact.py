"""An EU act uploaded as EUR-Lex publishes it (the Official Journal's HTML page, or a Word copy of it), read as the
bundled AI Act and GDPR adapters read theirs (:func:`ingest.eurlex.parse_regulation`).

The generic splitter (:mod:`ingest.uploads.structure`) reads an act's numbered paragraphs ("2. This Regulation lays
down:") as clauses of their own and its recitals as one preamble; an act is better read by its own grammar:
``recital-N`` units (kind ``recital``, left out of retrieval unless asked for, as for the bundled acts),
``article-N`` units with their paragraphs as parts and their chapter and section as containers, and ``annex-N``
units. A text is taken for an act when it writes the preamble's "Whereas:", the enacting formula ("HAVE ADOPTED
THIS REGULATION / DIRECTIVE / DECISION") and an "Article 1" heading, each as a line of its own, and the parser
finds at least two articles; anything else goes to the generic splitter.

Unit and container ids are the document's (``eu-ai-act/article-5``, ``eu-ai-act/chapter-ii``), so that two acts
uploaded into one corpus keep theirs apart; ``meta`` carries the ``ns`` and ``key`` that
:mod:`ingest.uploads.refs` resolves "Article 5" and "Annex III" with.
"""

from __future__ import annotations

import re

from anchor_core.models import Unit
from ingest.eurlex import parse_regulation
from ingest.uploads.extract import Extracted
from ingest.uploads.structure import Structure, series_key

_WHEREAS = re.compile(r"^Whereas\b", re.M)
_ADOPTED = re.compile(r"^HAVE ADOPTED THIS (?:REGULATION|DIRECTIVE|DECISION)\b", re.M)
_ARTICLE_1 = re.compile(r"^Article 1$", re.M)
MIN_ARTICLES = 2
# "REGULATION (EU) 2024/1689 OF THE EUROPEAN PARLIAMENT AND OF THE COUNCIL", "DIRECTIVE (EU) 2022/2555 ...",
# "COMMISSION IMPLEMENTING REGULATION (EU) No 910/2014 ..."
_DESIGNATION = re.compile(r"^(?:[A-Z]+\s+){0,3}(?P<kind>REGULATION|DIRECTIVE|DECISION)\s+"
                          r"\((?P<series>EU|EC|EU, Euratom|EEC)\)\s+(?:No\s+)?(?P<number>\d{2,4}/\d{1,4})\b", re.M)
# the short title an act gives itself at the end of its long title: "... (Artificial Intelligence Act)"
_SHORT_NAME = re.compile(r"\((?P<name>[A-Z][^()]{2,80}(?:Act|Regulation|Directive|Decision))\)\s*$")


def act_title(text: str) -> str:
    r"""The act's designation and short title as the bundled adapters write them: "Regulation (EU) 2024/1689
    (Artificial Intelligence Act)"; the designation alone when the act gives itself no short title; ``""`` when
    no designation opens the text.

    >>> act_title("REGULATION (EU) 2016/679 OF THE EUROPEAN PARLIAMENT\nof 27 April 2016\non the protection of "
    ...           "natural persons (General Data Protection Regulation)\n(Text with EEA relevance)")
    'Regulation (EU) 2016/679 (General Data Protection Regulation)'
    """
    m = _DESIGNATION.search(text[:5000])
    if m is None:
        return ""
    title = f"{m.group('kind').capitalize()} ({m.group('series')}) {m.group('number')}"
    for line in [ln.strip() for ln in text[m.end():m.end() + 3000].split("\n")][1:8]:
        if line.startswith(("(Text with", "THE EUROPEAN", "THE COUNCIL", "THE EUROPEAN COMMISSION", "Whereas")):
            break
        if short := _SHORT_NAME.search(line):
            return f"{title} ({short.group('name')})"
    return title


def is_act(text: str) -> bool:
    """Whether ``text`` (one line per block) reads as an EU act: recitals, the enacting formula, then articles."""
    return bool(_WHEREAS.search(text) and _ADOPTED.search(text) and _ARTICLE_1.search(text))


def split_act(ex: Extracted, doc_id: str) -> Structure | None:
    """The units of an EU act, or ``None`` when ``ex`` is no act (:func:`is_act`) or the parser finds fewer than
    :data:`MIN_ARTICLES` articles. Not for PDFs: the EUR-Lex parser reads
    blank-line separated blocks (a line each in HTML and Word, Markdown's own), which a PDF's wrapped lines are
    not."""
    if ex.page_starts or not is_act(ex.text):
        return None
    # the parser reads blank-line separated blocks: Markdown (EUR-Lex's own) has them, HTML and Word one per line
    parsed = parse_regulation("\n\n".join(ex.text.split("\n")) if ex.blocks else ex.text, doc_id)
    if sum(u.kind == "article" for u in parsed) < MIN_ARTICLES:
        return None
    units: list[Unit] = []
    cursor = 0
    for u in parsed:
        kind, _, num = u.unit_id.partition("-")
        ns, key = {"article": ("body", num), "annex": ("annex", series_key(str(u.meta.get("roman", num)))),
                   "recital": ("recital", num)}.get(kind, (kind, num))
        first = u.text.split("\n", 1)[0][:80]
        at = ex.text.find(first, cursor) if first else -1
        if at >= 0:
            cursor = at
        containers = [c.model_copy(update={"id": f"{doc_id}/{c.id}"}) for c in u.containers]
        units.append(u.model_copy(update={
            "unit_id": f"{doc_id}/{u.unit_id}", "containers": containers,
            "meta": {**u.meta, "doc_start": max(at, 0), "ns": ns, "key": key, "grammar": "eurlex"}}))
    counts = [(sum(u.kind == k for u in units), k, plural) for k, plural in (("article", "articles"),
                                                                              ("recital", "recitals"),
                                                                              ("annex", "annexes"))]
    chapters = {c.id for u in units for c in u.containers if c.kind == "chapter"}
    how = ", ".join(f"{n} {plural if n != 1 else k}" for n, k, plural in counts if n)
    if chapters:
        how += f", {len(chapters)} chapter{'s' if len(chapters) != 1 else ''}"
    return Structure(found=True, how=f"EU act: {how}", units=units, title=act_title(ex.text))
