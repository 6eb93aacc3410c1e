"""Document text → units with numbered parts, split on the document's own numbering.

What counts as structure, line by line (a heading starts a line and follows the end of a
sentence, a blank line or another heading, so a wrapped line that happens to begin with
"Section 4.2 applies" is not one):

- keyword headings: ``Clause 12``, ``Section 4.2``, ``Article 5`` (the body), ``Schedule 3``,
  ``Annex II``, ``Appendix A``, ``Exhibit 1`` (each its own series); the rest of the line is
  the title; a section sign names a section by its whole number (``§ 164.404 Notification to
  individuals.`` is section ``164.404``, as a US regulation numbers them, not part 404 of 164);
- bare numbers: ``12.`` / ``12`` followed by a short capitalised title (``12. TERMINATION``)
  start body unit 12 when the numbering goes forward; ``12.3`` / ``12.3.1`` are numbered
  parts of unit 12 (a ``2.1`` with no ``2.`` heading before it opens unit 2); inside a
  schedule or annex, numbers are that schedule's own paragraphs; under a keyword heading
  (``Article 4``), an untitled ``2. The provider shall ...`` is that unit's paragraph ``4(2)``;
- a statute's subsections ``(1)``, ``(2)`` under a numbered section are parts ``2(1)``, ``2(2)`` (numbered in
  order from ``(1)``), as "section 2(2)" cites them; a line ending in a dash ("must—") is a lead-in;
- list items ``(a)``, ``(b)``, ``(i)``, ``(ii)`` become parts labelled after their parent
  (``12.3(b)``, ``3(1)(a)``) and stay inside the parent's chunk;
- ``SCHEDULE 1`` (or ``Annex II``) alone on its line takes the next line as its title when that line is one
  (``RELEVANT PUBLIC AUTHORITIES``; a standard's ``(normative)`` line between them is skipped); its paragraphs
  ``1 A police force.`` are its parts, numbered in order, whether they read as titles or as sentences, and so are a
  lettered annex's ``A.5.1 Policies for information security: ...`` (part ``A.5.1``);
- a short line in capitals (``DEFINITIONS``) or a markup heading (HTML ``<h2>``, Markdown
  ``##``, Word "Heading 2") without a number starts a named unit;
- an act's recitals, ``(12) ...`` paragraphs after a ``Whereas:`` line and before its enacting
  formula ("HAVE ADOPTED ...") or first article, are ``recital-N`` units (kind ``recital``, left out
  of retrieval unless asked for, as the bundled acts' recitals are);
- in a document whose body has keyword headings (``Article 4``), or bare-numbered sections under ``PART 1``
  headings (a statute), ``CHAPTER II``, ``PART 3``, ``TITLE IV`` and a ``SECTION 2`` among articles (with a
  title on the same line or the next) are
  containers of the units that follow, not units (:attr:`Unit.containers`, ids
  ``doc/chapter-ii``, ``doc/chapter-ii-section-2``), and "Chapter II" in the text reaches their
  units.

When none of that is found, the document is cut into sized windows with overlap (per page
for a PDF) and :attr:`Structure.found` says so. In a PDF a line that does not end a sentence may be
wrapped text, so the line after it starts no heading; HTML and Word lines are whole blocks and never
wrapped. An EU act as EUR-Lex publishes it is read by its own grammar instead
(:mod:`ingest.uploads.euact`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from anchor_core.chunking import chunk_unit
from anchor_core.models import Chunk, Container, Part, Unit
from anchor_core.pages import pages_of
from ingest.containers import capitals_kept, heading_title
from ingest.uploads.extract import Extracted

BODY = ("clause", "section", "article")
SERIES = ("schedule", "annex", "appendix", "exhibit")
_KW = "|".join(k.capitalize() + "|" + k.upper() for k in (*BODY, *SERIES))
_KW_HEAD = re.compile(rf"^(?:#+\s*)?(?P<kw>{_KW})\s+(?P<num>\d{{1,3}}(?:\.\d{{1,3}})*|[IVXLC]{{1,6}}|[A-Z])"
                      r"(?![\w.]*\w)\.?(?:\s*[:.\-–—]\s*|\s+|$)(?P<title>.*)$")
_SIGN_HEAD = re.compile(r"^(?:#+\s*)?§\s*(?P<num>\d{1,5}(?:\.\d{1,5})*[a-z]?)\.?(?:\s+(?P<title>.*))?$")
# a container above the units: "CHAPTER II", "Part 3 — Supervision", "TITLE IV"; a SECTION is one only among articles
_CONTAINER_HEAD = re.compile(r"^(?:#+\s*)?(?P<kw>CHAPTER|Chapter|PART|Part|TITLE|Title|SECTION|Section)\s+"
                             r"(?P<num>[IVXLC]{1,6}|\d{1,3}|[A-Z])(?![\w.])\.?(?:\s*[:.\-–—]\s*|\s+|$)(?P<title>.*)$")
_WHEREAS = re.compile(r"^Whereas\b[:,]?\s*$")
_RECITAL = re.compile(r"^\((?P<n>\d{1,3})\)\s+\S")
_ENACTING = re.compile(r"^HAVE ADOPTED THIS\b")
_NUM_HEAD = re.compile(r"^(?:#+\s*)?(?P<num>\d{1,3}(?:\.\d{1,3}){0,3})(?P<dot>\.?)[ \t]+(?P<title>\S.*)$")
_RUN_IN = re.compile(r"^(?P<title>[A-Z][^.:;!?]{0,58}[^\s.:;!?])[.:]\s+[A-Z(\"“]")
_ITEM = re.compile(r"^\(?(?P<i>[a-z]{1,2}|[ivx]{1,5}|[A-Z])\)[ \t]+\S")
_SUBSECTION = re.compile(r"^\((?P<n>\d{1,3})\)[ \t]+\S")
# a lettered annex's numbered controls or clauses: "A.5.1 Policies for information security: ..."
_LETTER_HEAD = re.compile(r"^(?:#+\s*)?(?P<num>[A-Z](?:\.\d{1,3}){1,4})\.?[ \t]+(?P<title>\S.*)$")
# a standard's annex says what kind it is on a line of its own before its title: "Annex A" / "(normative)" / "Title"
_ANNEX_KIND = re.compile(r"^\((?:normative|informative)\)$", re.I)
_SENTENCE_END = re.compile(r"[.;:!?)\]\"”’—]$")  # "must—": a statute's lead-in before its paragraphs
_ROMAN = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100}
WINDOW, OVERLAP = 800, 100
SECTION = 4000
"""Unstructured text without pages is stored as units of at most this many characters, cut at a
paragraph, line or sentence end: a unit is what a reviewer reads and what a claim is anchored in,
so a long text must not become one huge unit."""
SHORT_LINE = 50


def roman(s: str) -> int | None:
    s = s.lower()
    if not s or any(c not in _ROMAN for c in s):
        return None
    total = 0
    for a, b in zip(s, s[1:] + " "):
        v = _ROMAN[a]
        total += -v if b in _ROMAN and _ROMAN[b] > v else v
    return total


def series_key(num: str) -> str:
    """``II`` → ``2``, ``3`` → ``3``, ``A`` → ``a``: how a schedule or annex number is stored."""
    if num.isdigit():
        return str(int(num))
    r = roman(num) if len(num) > 1 or num in "IVX" else None
    return str(r) if r else num.lower()


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")[:60] or "section"


@dataclass
class _Head:
    start: int
    ns: str  # "body", a SERIES name, "named", "preamble"
    key: str
    heading: str
    title: str
    kind: str


@dataclass
class _PartHead:
    start: int
    depth: int
    label: str
    title: str = ""
    item: bool = False


@dataclass
class Structure:
    found: bool
    how: str
    """What was found, for the per-file summary: ``numbered clauses (14 units, 37 parts)``."""
    units: list[Unit] = field(default_factory=list)
    title: str = ""
    """The document's title as its own text states it (an EU act's designation), when that is known."""


def _lines(text: str):
    pos = 0
    for line in text.split("\n"):
        yield pos, line
        pos += len(line) + 1


def _heading_like(title: str) -> bool:
    t = title.strip()
    return bool(t) and len(t) <= 80 and (t[0].isupper() or t[0] in "\"“‘(") and not t.endswith((",", ";"))


_SENTENCE_WORD = re.compile(r"\b(?:shall|must|may|will|is|are|has|have)\b|\b(?:in|of|to|the|and|or|by|for|with|a|an)$",
                            re.I)


def _titled(title: str) -> bool:
    """A numbered line's rest that is a heading ("Scope", "TERMINATION"), not a sentence ("The registered office is
    in Abu Dhabi.") or the first line of a wrapped one ("The Board shall keep the register referred to in")."""
    t = title.strip()
    return (_heading_like(t) and len(t) <= 60 and not t.endswith((".", ":", ";", "!", "?"))
            and not _SENTENCE_WORD.search(t))


def _caps_heading(s: str) -> bool:
    letters = [c for c in s if c.isalpha()]
    return (4 <= len(letters) and len(s) <= 60 and len(s.split()) <= 6 and all(c.isupper() for c in letters)
            and not s.endswith((",", ";", ":")))


class _Splitter:
    """One pass over the lines of a document, collecting unit and part headings. ``containers``: read chapter, part,
    title and section headings as containers of the units that follow (a second pass, once the first found keyword
    headings such as "Article 4")."""

    def __init__(self, ex: Extracted, containers: bool = False, body_kw: str = "") -> None:
        self.ex = ex
        self.with_containers = containers
        self.first_kw = body_kw  # the body's keyword as the first pass found it
        # words the text writes in capitals inside sentences ("AI"): a heading in capitals keeps them in sentence case
        self.capitals = capitals_kept(ex.text.split("\n")) if containers else set()
        self.open: list[Container] = []  # the containers the next unit sits in, outermost first
        self.unit_containers: dict[int, list[Container]] = {}  # index of the unit in heads → its containers
        self.container_title = False  # the last container heading had no title on its line
        self.recitals = 0  # 1 after "Whereas:", 2 once a recital opened, 0 again after the enacting formula
        self.heads: list[_Head] = []
        self.parts: list[tuple[int, _PartHead]] = []  # (index of the unit in heads, part)
        self.used: set[tuple[str, str]] = set()
        self.last_top = 0
        self.series_mode = False
        self.keyword_body = False  # the current unit opened with a keyword heading ("Article 4")
        self.body_kw = ""  # the keyword of the body's first keyword heading ("article")
        self.untitled = False  # that heading's line held no title: the next line may be it ("Article 4" / "Scope")
        self.numbered: tuple[str, int] | None = None  # innermost numbered part: (label, depth)
        self.unit_marked = False  # the current unit opened at a heading the markup marks (<h2>, "## ", Word's)
        self.items: list[tuple[str, str, int]] = []  # open list items: (style, letter, depth)
        self.hints = {h.start: h for h in ex.headings}
        levels = sorted({h.level for h in ex.headings})
        # A lone top-level markup heading (the page's <h1>) is the document's title, not a unit.
        self.top_level = next((lv for lv in levels if sum(h.level == lv for h in ex.headings) > 1), None)
        if self.top_level is None and levels:
            self.top_level = levels[-1] if len(levels) > 1 or len(ex.headings) > 1 else None

    # -- recording ------------------------------------------------------------------------

    def unit(self, h: _Head, keyword: bool = False) -> None:
        self.keyword_body = keyword and h.ns == "body"
        self.untitled = keyword and not h.title
        if self.open and h.ns == "body":
            self.unit_containers[len(self.heads)] = list(self.open)
        self.heads.append(h)
        self.used.add((h.ns, h.key))
        self.numbered = None
        self.items.clear()

    def part(self, p: _PartHead) -> None:
        self.parts.append((len(self.heads) - 1, p))

    def numbered_part(self, num: str, title: str, at: int) -> bool:
        """``12.3`` in the body: a part of unit 12 (opening unit 12 if the numbering reaches it)."""
        top = num.split(".")[0]
        cur = self.heads[-1] if self.heads else None
        if cur is None or cur.ns != "body" or cur.key != top:
            k = int(top)
            # "9.1 Service Credits are ..." after clause 2: a numbered paragraph of clause 9 (an excerpt, or a
            # heading the extraction lost), when it goes forward and its text starts as a sentence does
            if ("body", top) in self.used or not (self.last_top < k <= self.last_top + 3 or
                                                  (self.last_top == 0 and k <= 3) or
                                                  (k > self.last_top and title[:1].isupper())):
                return False
            self.unit(_Head(at, "body", top, top, "", "section"))
            self.last_top = k
        depth = num.count(".") + 1
        self.numbered = (num, depth)
        self.items.clear()
        self.part(_PartHead(at, depth, num, title if _heading_like(title) and len(title) <= 60 else ""))
        return True

    def list_item(self, letter: str, at: int) -> None:
        if letter.isupper():
            style = "upper"
        elif roman(letter) and (letter != "i" or not any(st == "alpha" and x == "h" for st, x, _ in self.items)) \
                and (letter == "i" or any(st == "roman" for st, _, _ in self.items)):
            style = "roman"
        elif len(letter) == 1:
            style = "alpha"
        else:
            return
        while self.items and self.items[-1][0] != style:
            if any(st == style for st, _, _ in self.items):
                self.items.pop()
            else:
                break
        if self.items and self.items[-1][0] == style:
            self.items.pop()
        base = self.numbered[0] if self.numbered else self.heads[-1].key
        depth = (self.numbered[1] if self.numbered else 1) + len(self.items) + 1
        label = base + "".join(f"({x})" for _, x, _ in self.items) + f"({letter})"
        self.items.append((style, letter, depth))
        self.part(_PartHead(at, depth, label, item=True))

    # -- scanning -------------------------------------------------------------------------

    def run(self) -> None:
        prev_ok, first = True, True
        for start, line in _lines(self.ex.text):
            s = line.strip()
            if not s:
                prev_ok = True
                continue
            at = start + len(line) - len(line.lstrip())
            kw_head = _KW_HEAD.match(s)  # "Article 4 Scope", "ANNEX III": read once, for every rule below
            if self.recitals:
                if _ENACTING.match(s) or kw_head:
                    self.recitals = 0  # the recitals end where the enacting terms or the articles begin
                elif (r := _RECITAL.match(s)) and ("recital", r.group("n")) not in self.used:
                    self.unit(_Head(at, "recital", r.group("n"), f"Recital ({r.group('n')})", "", "recital"))
                    prev_ok, first = True, False
                    continue
            elif not self.heads and _WHEREAS.match(s):
                self.recitals = 1
            if self.container_title:
                self.container_title = False
                if _titled(s) or _caps_heading(s):  # "CHAPTER II" then "SUPERVISION" on a line of its own
                    self.open[-1] = self.open[-1].model_copy(update={"title": self.title_case(s)})
                    prev_ok, first = True, False
                    continue
            if self.untitled and _ANNEX_KIND.match(s):
                prev_ok, first = True, False
                continue  # "Annex A" / "(normative)": the title is on the next line
            if self.untitled:
                self.untitled = False
                if _titled(s) and len(s) <= 120 and not _NUM_HEAD.match(s) and not kw_head and not _ITEM.match(s):
                    self.heads[-1].title = s  # "Article 4" then "Scope" on a line of its own
                    prev_ok, first = True, False
                    continue
            hint = self.hints.get(at) or self.hints.get(start)
            # a line that is a keyword heading and nothing else ("Article 16", "ANNEX III") is one even after a line
            # that does not end a sentence (a long section title above it): wrapped prose does not break that way
            alone = kw_head is not None and not kw_head.group("title").strip()
            opened = len(self.heads)
            is_head = self.line(s, at, hint, prev_ok or hint is not None or alone, first, kw_head)
            if len(self.heads) > opened:
                self.unit_marked = hint is not None
            if not is_head and self.heads and (prev_ok or self.items):
                sub = _SUBSECTION.match(s)
                if not (sub and self.subsection(int(sub.group("n")), at)) and (it := _ITEM.match(s)):
                    self.list_item(it.group("i"), at)
            first = False
            # A heading follows a finished sentence or a short line (a title); a long line that
            # does not end a sentence is wrapped text, and its next line cannot start a heading
            # (unless lines are blocks, as in HTML and Word, where none is wrapped).
            prev_ok = self.ex.blocks or is_head or bool(_SENTENCE_END.search(s)) or len(s) <= SHORT_LINE

    def line(self, s: str, at: int, hint, may_head: bool, first: bool, m: re.Match[str] | None) -> bool:
        """Whether line ``s`` is a heading (recording it); ``m``: its :data:`_KW_HEAD` match."""
        if not may_head:
            return False
        if self.with_containers and (c := _CONTAINER_HEAD.match(s)) and len(c.group("title")) <= 120 \
                and not c.group("title")[:1].islower():
            return self.container(c.group("kw").lower(), c.group("num"), c.group("title").strip())
        sign = _SIGN_HEAD.match(s)
        if sign and len(sign.group("title") or "") <= 120:
            return self.section_sign(sign.group("num"), (sign.group("title") or "").strip(), at)
        # a title starts with a capital ("Annex I up to date." is a wrapped sentence going on, not a heading)
        if m and len(m.group("title")) <= 120 and not m.group("title")[:1].islower():
            return self.keyword(m.group("kw").lower(), m.group("num"), m.group("title").strip(), at)
        n = _NUM_HEAD.match(s)
        if n:
            return self.number(n.group("num"), n.group("title").strip(), at, marked=hint is not None)
        if self.series_mode and self.heads and (lt := _LETTER_HEAD.match(s)) \
                and lt.group("num")[0].lower() == self.heads[-1].key:
            return self.lettered(lt.group("num"), lt.group("title").strip(), at)
        if hint is not None and self.top_level is not None:
            name = s.lstrip("#").strip()
            if hint.level > self.top_level and self.heads:
                self.numbered = None
                self.items.clear()
                self.part(_PartHead(at, hint.level - self.top_level + 1, name, name))
                return True
            if hint.level == self.top_level:
                self.named(name, at)
                return True
            return False
        if not first and _caps_heading(s):
            self.named(s, at)
            return True
        return False

    def keyword(self, kw: str, num: str, title: str, at: int) -> bool:
        if kw in SERIES:
            key = series_key(num)
            if (kw, key) in self.used:
                return False
            # "SCHEDULE 1" alone on its line: the next line may be its title ("RELEVANT PUBLIC AUTHORITIES")
            self.unit(_Head(at, kw, key, f"{kw.capitalize()} {num}", title, "annex"), keyword=True)
            self.series_mode = True
            return True
        if self.series_mode and self.heads:  # "Section 2" inside a schedule is its own paragraph
            self.numbered = (num, num.count(".") + 1)
            self.items.clear()
            self.part(_PartHead(at, num.count(".") + 1, num, title))
            return True
        top, _, rest = num.partition(".")
        if not top.isdigit():
            return False
        if rest:
            return self.numbered_part(num, title, at)
        if self.body_kw and kw != self.body_kw:
            return False  # "SECTION 2" among articles groups them; it is no article of its own
        if ("body", top) in self.used:
            return False
        self.body_kw = kw
        self.unit(_Head(at, "body", top, f"{kw.capitalize()} {top}", title, "section"), keyword=True)
        self.last_top = int(top)
        return True

    def container(self, kw: str, num: str, title: str) -> bool:
        """``CHAPTER II`` or ``Part 3 — Supervision``: the units that follow sit in it. A section sits in the open
        chapter (or part, or title); a chapter closes the sections and chapters open before it."""
        if kw == "section" and "section" in (self.body_kw, self.first_kw):
            return False  # the body's own sections ("Section 4") are its units
        order = ("title", "part", "chapter", "section")
        keep = [c for c in self.open if order.index(c.kind) < order.index(kw)]
        base = keep[-1].id if keep and kw == "section" else ""
        cid = f"{base}-section-{num.lower()}" if base else f"{kw}-{num.lower()}"
        label = f"{kw.capitalize()} {num}"
        self.open = [*keep, Container(id=cid, kind=kw, label=label, title=self.title_case(title) if title else "")]
        self.container_title = not title
        self.numbered = None
        self.items.clear()
        return True

    def title_case(self, s: str) -> str:
        """A container's heading as its title: in sentence case when printed in capitals, keeping the text's own
        capitalised words (``PROHIBITED AI PRACTICES`` → ``Prohibited AI practices``)."""
        return heading_title(s.strip().rstrip("."), self.capitals)

    def section_sign(self, num: str, title: str, at: int) -> bool:
        """``§ 164.404 Notification to individuals.``: section ``164.404`` of the body, numbered as written."""
        if ("body", num) in self.used or self.series_mode:
            return False
        self.unit(_Head(at, "body", num, f"§ {num}", title.rstrip("."), "section"), keyword=True)
        return True

    def number(self, num: str, title: str, at: int, marked: bool = False) -> bool:
        comps = num.split(".")
        if self.series_mode and self.heads:
            if not (_heading_like(title) or title[:1] in "\"“("):
                # "4 The Financial Conduct Authority, for the purposes of ...": a schedule's paragraph written as a
                # sentence, when it is the next number of the schedule's paragraphs
                prev = self.numbered[0] if self.numbered else "0"
                if not (len(comps) == 1 and title[:1].isupper() and prev.isdigit() and int(num) == int(prev) + 1):
                    return False
                title = ""
            self.numbered = (num, len(comps))
            self.items.clear()
            self.part(_PartHead(at, len(comps), num, title if len(title) <= 60 else ""))
            return True
        if len(comps) > 1:
            return self.numbered_part(num, title, at)
        k = int(num)
        run_in = _RUN_IN.match(title)
        # A numbered line that is no heading itself, in a unit whose heading says what it is: the unit's numbered
        # paragraph, not a clause of the document. "2. This Regulation lays down:" under "Article 1" is the
        # article's paragraph 2; "1. Book economy class." under the heading "Rules" (or "2. Equipment") that the
        # markup marks (a Word, HTML or Markdown numbered list) is the section's paragraph "rules(1)".
        if self.heads and not marked and not _titled(title) and not (
                run_in and _heading_like(run_in.group("title"))) and (self.keyword_body or (
                    self.unit_marked and self.top_level is not None and self.heads[-1].ns in ("named", "body"))):
            return self.paragraph(k, at)
        # a heading the markup marks ("## 9. Limitation of liability") may skip numbers; a bare line may not
        forward = (self.last_top == 0 and k <= 3) or self.last_top < k <= self.last_top + 3 or \
            (marked and k > self.last_top)
        if not forward or ("body", str(k)) in self.used:
            return False
        # a run-in heading ("5. Corrective action. A supplier must correct ...") titles the clause; a clause
        # with no title ("12. The Supplier shall deliver the goods within 30 days of ...") starts one when it is
        # the very next number
        if run_in and _heading_like(run_in.group("title")):
            title = run_in.group("title")
        elif not _heading_like(title):
            if k != self.last_top + 1 or not title[:1].isupper():
                return False
            title = ""
        self.unit(_Head(at, "body", str(k), str(k), title, "section"))
        self.last_top = k
        return True

    def paragraph(self, k: int, at: int) -> bool:
        """Numbered paragraph ``k`` of the current keyword-headed unit, labelled as the unit's ``4(2)``."""
        label = f"{self.heads[-1].key}({k})"
        self.numbered = (label, 2)
        self.items.clear()
        self.part(_PartHead(at, 2, label))
        return True

    def lettered(self, num: str, title: str, at: int) -> bool:
        """``A.5.1 Policies for information security: ...`` in Annex A: its part ``A.5.1``, titled by its run-in
        heading (or by the line, when the line is a heading)."""
        run_in = re.match(r"(?P<t>[^.:;]{2,80}):\s", title)
        name = run_in.group("t") if run_in and _heading_like(run_in.group("t")) else title if _titled(title) else ""
        self.numbered = (num, num.count("."))
        self.items.clear()
        self.part(_PartHead(at, num.count("."), num, name))
        return True

    def subsection(self, k: int, at: int) -> bool:
        """``(2) A retention notice may not ...`` in a numbered section: the section's subsection ``2(2)``, as a
        statute numbers them (and cites them: "section 2(2)"), when the numbering goes on in order from ``(1)``.
        Not under a numbered part (``2.1``), whose ``(1)`` is no subsection of the section."""
        cur = self.heads[-1]
        if cur.ns != "body":
            return False
        prefix = f"{cur.key}("
        if self.numbered is None:
            last = 0
        elif self.numbered[0].startswith(prefix) and self.numbered[0][len(prefix):-1].isdigit():
            last = int(self.numbered[0][len(prefix):-1])
        else:
            return False
        return k == last + 1 and self.paragraph(k, at)

    def named(self, name: str, at: int) -> None:
        base = key = slug(name)
        k = 1
        while ("named", key) in self.used:
            k += 1
            key = f"{base}-{k}"
        self.unit(_Head(at, "named", key, name[:80], "", "section"))


def _page_marks(page_starts: list[int], a: int, b: int) -> list[list[int]]:
    """``[[offset in unit, page], ...]`` for the unit ``[a, b)`` of the document text."""
    if not page_starts:
        return []
    first = max(i for i, s in enumerate(page_starts) if s <= a or i == 0) + 1
    marks = [[0, first]]
    marks += [[s - a, i + 1] for i, s in enumerate(page_starts) if a < s < b]
    return marks


def split(ex: Extracted, doc_id: str, title: str) -> Structure:
    """Units of one document; see the module docstring. An EU act as EUR-Lex publishes it is read by its own
    grammar (:mod:`ingest.uploads.euact`)."""
    from ingest.uploads.euact import split_act  # it builds on this module's Structure

    act = split_act(ex, doc_id)
    if act is not None:
        return act
    sp = _Splitter(ex)
    sp.run()
    if sp.body_kw in ("article", "clause", "section") or any(h.heading.startswith("§") for h in sp.heads) or (
            any(h.ns == "body" for h in sp.heads) and any(h.ns == "named" and _CONTAINER_HEAD.match(h.heading)
                                                          for h in sp.heads)):
        # the body is numbered by keyword headings, or by bare numbers under "PART 1" headings (a statute's
        # sections): chapters, parts and titles above them are containers
        again = _Splitter(ex, containers=True, body_kw=sp.body_kw)
        again.run()
        if again.unit_containers:
            sp = again
    text = ex.text
    heads = sp.heads
    n_parts = sum(1 for _, p in sp.parts if not p.item)
    found = len(heads) >= 2 or (len(heads) == 1 and n_parts >= 2)
    if not found:
        return _windows(ex, doc_id, title)
    units: list[Unit] = []
    bounds = [h.start for h in heads] + [len(text)]
    lead = text[:bounds[0]].strip()
    # A lead that is the document's title is already in every chunk's lead-in, so it is not a unit;
    # any other lead, even one short line ("Clause 4.1 applies from day 30."), is body text.
    if lead and _plain(lead) != _plain(title):
        heads = [_Head(0, "preamble", "preamble", "Preamble", "", "section"), *heads]
        bounds = [0, *bounds]
        shift = 1
    else:
        shift = 0
    taken: set[str] = set()
    for i, h in enumerate(heads):
        a, b = bounds[i], bounds[i + 1]
        body = text[a:b].rstrip()
        uid = _unit_id(doc_id, h, taken)
        my_parts = [p for ui, p in sp.parts if ui + shift == i]
        unit_parts = _nest(my_parts, a, body)
        meta = {"doc_start": a, "ns": h.ns, "key": h.key}
        marks = _page_marks(ex.page_starts, a, a + len(body))
        if marks:
            meta["pages"] = marks
        within = [c.model_copy(update={"id": f"{doc_id}/{c.id}"}) for c in sp.unit_containers.get(i - shift, [])]
        units.append(Unit(unit_id=uid, doc_id=doc_id, kind=h.kind, heading=h.heading, title=h.title[:120],
                          text=body, parts=unit_parts, meta=meta, containers=within))
    kinds = {h.ns for h in heads}
    desc = []
    clauses = sum(h.ns == "body" for h in heads)
    if clauses:
        desc.append(f"{clauses} numbered clause{'s' if clauses > 1 else ''}")
    for ns in SERIES:
        k = sum(h.ns == ns for h in heads)
        if k:
            desc.append(f"{k} {ns}{('es' if ns.endswith('x') else 's') if k > 1 else ''}")
    named = sum(h.ns == "named" for h in heads)
    if named:
        desc.append(f"{named} headed section{'s' if named > 1 else ''}")
    recitals = sum(h.ns == "recital" for h in heads)
    if recitals:
        desc.append(f"{recitals} recital{'s' if recitals > 1 else ''}")
    if "preamble" in kinds:
        desc.append("a preamble")
    if n_parts:
        desc.append(f"{n_parts} numbered part{'s' if n_parts != 1 else ''}")
    items = sum(1 for _, p in sp.parts if p.item)
    if items:
        desc.append(f"{items} list item{'s' if items > 1 else ''}")
    return Structure(found=True, how=", ".join(desc), units=units)


def _plain(line: str) -> str:
    """A line as a title compares: no Markdown heading marks, spaces collapsed, case folded."""
    return " ".join(line.lstrip("#").split()).casefold()


def _unit_id(doc_id: str, h: _Head, taken: set[str]) -> str:
    if h.ns == "body":
        kw = h.heading.split()[0].lower() if " " in h.heading else ""
        key = f"{kw}-{h.key}" if kw in BODY else f"section-{h.key}" if kw == "§" else h.key
    elif h.ns in SERIES or h.ns == "recital":
        key = f"{h.ns}-{h.key}"
    else:
        key = h.key
    uid, k = f"{doc_id}/{key}", 1
    while uid in taken:
        k += 1
        uid = f"{doc_id}/{key}-{k}"
    taken.add(uid)
    return uid


def _nest(parts: list[_PartHead], a: int, body: str) -> list[Part]:
    """Part spans (unit-relative): each runs to the next part of the same or a shallower depth,
    trailing whitespace excluded."""
    out: list[Part] = []
    seen: dict[str, int] = {}
    for i, p in enumerate(parts):
        end = next((q.start for q in parts[i + 1:] if q.depth <= p.depth), a + len(body))
        start, stop = p.start - a, min(end - a, len(body))
        while stop > start and body[stop - 1].isspace():
            stop -= 1
        label = p.label
        seen[label] = seen.get(label, 0) + 1
        if seen[label] > 1:
            label = f"{label} ({seen[label]})"
        out.append(Part(label=label, start=start, end=stop, title=p.title))
    return out


def size_sections(text: str, limit: int = SECTION) -> list[tuple[int, int]]:
    """``[start, end)`` spans of at most ``limit`` characters that together hold every
    non-space character of ``text``, each cut at the last paragraph break before the limit, else
    the last line break, else the last sentence end, else the last space (hard cut for one
    unbroken run). Spans carry no leading or trailing whitespace.

    >>> size_sections("One.\\n\\nTwo.", limit=6)
    [(0, 4), (6, 10)]
    """
    spans: list[tuple[int, int]] = []
    a, n = 0, len(text)
    while True:
        while a < n and text[a].isspace():
            a += 1
        if a >= n:
            return spans
        if n - a <= limit:
            b = n
        else:
            window = text[a:a + limit]
            cut = next((i + len(sep) for sep in ("\n\n", "\n", ". ", " ") if (i := window.rfind(sep)) > limit // 4),
                       limit)
            b = a + cut
        end = b
        while end > a and text[end - 1].isspace():
            end -= 1
        spans.append((a, end))
        a = b


def _windows(ex: Extracted, doc_id: str, title: str) -> Structure:
    """No structure: one unit per page (PDF), or units of at most ``SECTION`` characters, cut into windows."""
    text = ex.text
    units: list[Unit] = []
    if ex.page_starts:
        bounds = [*ex.page_starts, len(text)]
        for i in range(len(ex.page_starts)):
            a, b = bounds[i], bounds[i + 1]
            body = text[a:b].rstrip()
            if not body.strip():
                continue
            units.append(Unit(unit_id=f"{doc_id}/p{i + 1}", doc_id=doc_id, kind="page", heading=f"Page {i + 1}",
                              title=title, text=body,
                              meta={"doc_start": a, "ns": "page", "key": str(i + 1), "pages": [[0, i + 1]]}))
        how = f"none found: {len(units)} page{'s' if len(units) != 1 else ''} cut into windows"
    else:
        spans = size_sections(text)
        if len(spans) == 1:
            a, b = spans[0]
            units.append(Unit(unit_id=f"{doc_id}/text", doc_id=doc_id, kind="file", heading=title or doc_id,
                              text=text[a:b], meta={"doc_start": a, "ns": "text", "key": "text"}))
            how = "none found: the text is cut into windows"
        else:
            for n, (a, b) in enumerate(spans, 1):
                units.append(Unit(unit_id=f"{doc_id}/s{n}", doc_id=doc_id, kind="file",
                                  heading=f"{title or doc_id}, part {n} of {len(spans)}", text=text[a:b],
                                  meta={"doc_start": a, "ns": "text", "key": f"s{n}"}))
            how = (f"none found: the text is cut into {len(spans)} parts of at most {SECTION} characters "
                   "at paragraph ends, and those into windows")
    return Structure(found=False, how=f"{how} of {WINDOW} characters with {OVERLAP} overlap", units=units)


def chunks_of(unit: Unit, structured: bool, doc_title: str) -> list[Chunk]:
    """Chunks of an uploaded unit with their pages. Structured units are cut along numbered
    parts, list items staying inside their parent's chunk; unstructured ones into windows."""
    if structured:
        shadow = unit.model_copy(update={"parts": [p for p in unit.parts if not p.label.endswith(")")]})
        chunks = chunk_unit(shadow, "structural")
    else:
        chunks = chunk_unit(unit, "fixed", window=WINDOW, overlap=OVERLAP)
    paged = bool(unit.meta.get("pages"))
    lead = f"{doc_title} — {unit.lead_in}" if doc_title and structured else (
        f"{doc_title}, {unit.heading}." if doc_title else unit.lead_in)
    out = []
    for c in chunks:
        upd: dict = {"lead": lead}
        pages = pages_of(unit, c.start, c.end) if paged else None
        if pages is not None:
            upd["page"], upd["page_end"] = pages
        out.append(c.model_copy(update=upd))
    return out
