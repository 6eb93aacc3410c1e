"""References inside and across uploaded documents.

Run over the units of new or replaced documents, and over the stored units whose references
they can change (a new document can resolve references written in the others), returning raw
references that
:func:`anchor_core.indexing.resolve_references` then marks resolved or not:

- ``clause 12.3``, ``Clauses 4 and 5``, ``section 4.2(b)``, ``as defined in Section 1``,
  ``Article 5`` → the body unit (and the numbered part when the unit has it);
- ``Schedule 2``, ``Annex II``, ``Appendix A``, ``paragraph 3 of Schedule 2`` → that unit; ``A.8.13`` → that
  part of the document's lettered annex (or appendix) when it has one;
- ``paragraph (b) above``, ``sub-paragraph (ii)`` → the list item of the same unit;
- ``clause 4 of the Data Processing Addendum`` or a bare mention of another uploaded
  document's title → that document; ``of this Agreement`` stays in the document; ``Article 9
  of Regulation (EU) 2016/679`` points outside the corpus and is kept unresolved;
- defined terms: ``"Insured Person" means ...`` (or ``(the "Supplier")``) makes each later use
  of *Insured Person* in another part a reference to the definition (once per part).

An EU act read by its own grammar (:mod:`ingest.uploads.euact`) keeps that grammar for its references too
(:func:`ingest.eurlex_refs.extract_references`: "Article 6(2)", "paragraphs 1 to 4" of the same article, "point
(a) of Annex III", "Chapters I and II" and "Section 4 of Chapter III" expanded to their articles), with the act's
own ids.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Callable
from pathlib import PurePosixPath

from anchor_core.models import Container, Document, Reference, Unit
from ingest.base import part_at
from ingest.containers import expand, members
from ingest.eurlex_refs import _numbers, container_references, extract_references
from ingest.uploads.structure import BODY, SERIES, series_key

_NUM = r"\d{1,3}(?:\.\d{1,3})*(?:\([a-z0-9]{1,4}\))*"
_BODY_REF = re.compile(
    rf"\b(?P<kw>(?:sub-?)?clauses?|sections?|articles?|paragraphs?)\s+(?P<nums>{_NUM}"
    rf"(?:\s*(?:,|and|or|to|-|–)\s*{_NUM})*)", re.I)
# "§ 164.404", "§ 164.404(a)(2)", "§§ 164.404 and 164.406", "§ 5": a section by its whole number, with its parts
_SIGN_NUM = r"\d{1,5}(?:\.\d{1,5})*[a-z]?(?:\([a-z0-9]{1,4}\))*"
_SIGN_REF = re.compile(rf"§§?\s*(?P<nums>{_SIGN_NUM}(?:\s*(?:,|and|or|through|to|-|–)\s*(?:§\s*)?{_SIGN_NUM})*)")
_SERIES_REF = re.compile(r"\b(?P<kw>schedules?|annex(?:es)?|appendix|appendices|exhibits?)\s+"
                         r"(?P<n>\d{1,3}|[IVXLC]{1,6}\b|[A-Z]\b)", re.I)
_OF = re.compile(r"\s+(?:of|in|to|under)\s+(?:the\s+)?(?P<where>this\s+(?:Agreement|Contract|Policy|Deed|Document"
                 r"|Schedule|Annex|Appendix)\b|(?:Schedule|Annex|Appendix|Exhibit)\s+(?:\d{1,3}|[IVXLC]{1,6}\b|"
                 r"[A-Z]\b)|[A-Z][\w\-]*(?:\s+(?:[A-Z(][\w\-)/]*|\d{2,4}/\d+|of|and|on|for))*)")
_LETTERED_REF = re.compile(r"(?<![\w.])(?P<num>[A-Z](?:\.\d{1,3}){1,4})(?![\w]|\.\d)")
_ITEM_REF = re.compile(r"\b(?:sub-?)?paragraphs?\s+\((?P<x>[a-z]{1,2}|[ivx]{1,5})\)"
                       r"(?:\s+of\s+(?:clause|section|article)\s+(?P<num>\d{1,3}(?:\.\d{1,3})*))?"
                       r"|\((?P<y>[a-z]{1,2}|[ivx]{1,5})\)\s+(?P<dir>above|below)\b", re.I)
_DEFINES = re.compile(r"[\"“](?P<t>[A-Z][\w’'\-]*(?:\s+[\w’'\-]+){0,5})[\"”]\s*(?:,\s*)?"
                      r"(?:means|shall mean|has the meaning|includes|refers to|:)")
_INLINE_DEF = re.compile(r"\((?:the\s+|each\s+a\s+|together\s+the\s+|hereinafter\s+)?[\"“](?P<t>[A-Z][^\"”\n]{1,50})"
                         r"[\"”]\)")
_GENERIC = {"Agreement", "Contract", "Policy", "Deed", "Terms", "Conditions", "Document", "Addendum", "Order"}
_TERM_STOP = {"Agreement", "This Agreement", "Party", "Parties"}


class Catalogue:
    """Where targets are: per document, its body units, series units, parts and defined terms.

    ``documents`` are every uploaded document of the corpus (their titles are what a reference can
    name); ``units`` those at hand. A document whose units are not at hand is read through
    ``load(doc_id)`` the first time a reference needs it, so re-resolving a few units reads the
    documents they name, not the corpus."""

    def __init__(self, documents: list[Document], units: list[Unit],
                 load: Callable[[str], list[Unit]] | None = None) -> None:
        self.docs = {d.doc_id: d for d in documents}
        self.units: dict[str, Unit] = {}
        self._load = load
        self._loaded: set[str] = set()
        self._body: dict[tuple[str, str], str] = {}
        self._series: dict[tuple[str, str, str], str] = {}
        self._first: dict[str, str] = {}
        self.labels: dict[str, set[str]] = {}
        self._terms: dict[str, dict[str, tuple[str, str | None]]] = defaultdict(dict)
        by_doc: dict[str, list[Unit]] = defaultdict(list)
        for u in units:
            by_doc[u.doc_id].append(u)
        for doc_id, us in by_doc.items():
            self._add(doc_id, us)
        # Title patterns are compiled only for the units whose text passes a cheap word check, so a
        # corpus of many documents costs a substring test per title, not a regex compile.
        self._names: list[tuple[str, str, str, str]] = []
        for d in documents:
            for name in title_names(d.title, str(d.meta.get("file", ""))):
                words = name.casefold().split()
                self._names.append((name, d.doc_id, words[0], words[-1]))

    def _add(self, doc_id: str, units: list[Unit]) -> None:
        self._loaded.add(doc_id)
        for u in units:
            self.units[u.unit_id] = u
            ns, key = u.meta.get("ns"), str(u.meta.get("key", ""))
            self._first.setdefault(u.doc_id, u.unit_id)
            self.labels[u.unit_id] = {p.label for p in u.parts}
            if ns == "body":
                self._body[(u.doc_id, key)] = u.unit_id
            elif ns in SERIES:
                self._series[(u.doc_id, ns, key)] = u.unit_id
        for u in units:
            for rx in (_DEFINES, _INLINE_DEF):
                for m in rx.finditer(u.text):
                    term = " ".join(m.group("t").split())
                    if len(term) >= 3 and term not in _TERM_STOP and term not in self._terms[u.doc_id]:
                        self._terms[u.doc_id][term] = (u.unit_id, part_at(u, m.start()))

    def _need(self, doc_id: str) -> None:
        if doc_id not in self._loaded:
            self._loaded.add(doc_id)
            if self._load is not None and doc_id in self.docs:
                self._add(doc_id, self._load(doc_id))

    def members(self, doc_id: str) -> dict[str, list[str]]:
        """The document's containers and the units they hold (:func:`ingest.containers.members`)."""
        self._need(doc_id)
        return members(u for u in self.units.values() if u.doc_id == doc_id)

    def body(self, doc_id: str, key: str) -> str | None:
        self._need(doc_id)
        return self._body.get((doc_id, key))

    def series(self, doc_id: str, ns: str, key: str) -> str | None:
        self._need(doc_id)
        return self._series.get((doc_id, ns, key))

    def first(self, doc_id: str) -> str | None:
        self._need(doc_id)
        return self._first.get(doc_id)

    def terms(self, doc_id: str) -> dict[str, tuple[str, str | None]]:
        self._need(doc_id)
        return self._terms.get(doc_id, {})

    def named_in(self, text: str) -> list[tuple[re.Pattern[str], str]]:
        """The title patterns that may match in ``text``, in document order: a cheap word check
        first, so a unit is not run through every title of a large corpus."""
        low = text.casefold()
        return [(_title_pattern(name), doc_id) for name, doc_id, a, b in self._names if a in low and b in low]

    def doc_named(self, where: str) -> str | None:
        for rx, doc_id in self.named_in(where):
            if rx.fullmatch(where.strip()) or rx.match(where.strip()):
                return doc_id
        return None

    def part_of(self, unit_id: str, label: str) -> str | None:
        """The deepest existing part for ``label`` (``12.3(b)`` → ``12.3`` if there is no (b))."""
        labels = self.labels.get(unit_id, set())
        while label:
            if label in labels:
                return label
            cut = max(label.rfind("("), label.rfind("."))
            label = label[:cut] if cut > 0 else ""
        return None


@functools.lru_cache(maxsize=65536)
def title_names(title: str, file: str = "") -> list[str]:
    """The names by which other documents can mention a document: its title and its file name,
    when two words or more and 8 to 80 characters long."""
    names = {title.strip()}
    stem = PurePosixPath(file).stem
    names.add(re.sub(r"[_\-]+", " ", stem).strip())
    return sorted(n for n in names if len(n.split()) >= 2 and 8 <= len(n) <= 80)


@functools.lru_cache(maxsize=4096)
def _title_pattern(name: str) -> re.Pattern[str]:
    return re.compile(r"(?<!\w)" + r"\s+".join(map(re.escape, name.split())) + r"(?!\w)", re.I)


def find_references(documents: list[Document], units: list[Unit], catalogue: Catalogue | None = None
                    ) -> list[Reference]:
    """Raw references of ``units`` (uploaded units of one corpus); see the module docstring.
    ``catalogue`` (default: one of ``documents`` and ``units``) is where targets are looked up."""
    cat = catalogue or Catalogue(documents, units)
    out: list[Reference] = []
    for u in units:
        if u.meta.get("grammar") == "eurlex":
            act = act_references(u, cat.members)
            out += act
            out += [r for r in _documents(u, cat) if not any(a.start <= r.start < a.end for a in act)]
            continue
        structural = _structural(u, cat)
        spans = [(r.start, r.end) for r in structural]
        out += structural
        out += _items(u, cat)
        out += _terms(u, cat)
        # "clause 2 of the Data Processing Addendum" is one reference, not two.
        out += [r for r in _documents(u, cat) if not any(a <= r.start < b for a, b in spans)]
        if u.containers:  # "Chapters I and II", "Section 2 of this Chapter": the units they hold
            out += chapter_references(u.text, u.doc_id, u.unit_id, u.containers, cat.members, part_of=_parts_of(u))
    return out


def _parts_of(u: Unit) -> Callable[[int], str | None]:
    return lambda at: part_at(u, at)


def chapter_references(text: str, doc_id: str, src_unit: str, within: list[Container],
                       members_of: Callable[[str], dict[str, list[str]]],
                       part_of: Callable[[int], str | None] | None = None) -> list[Reference]:
    """References to the chapters, sections, parts and titles of document ``doc_id`` written in ``text`` (a
    unit's, sitting in ``within``, or a question's), one per member unit
    (:func:`ingest.eurlex_refs.container_references`, on the document's own container ids, and
    :func:`part_references`)."""
    refs = container_references(text, src_unit=src_unit, within=_bare(within, f"{doc_id}/"), part_of=part_of)
    if parts := part_references(text, src_unit, part_of):  # most texts name no part: the members are not read
        taken = [(r.start, r.end) for r in refs]
        held = members_of(doc_id)
        refs += [r for r in parts
                 if f"{doc_id}/{r.container}" in held and not any(a < r.end and r.start < b for a, b in taken)]
    return _in_document(doc_id, refs, members_of)


_PART_NUM = r"(?:\d{1,3}|[IVXLC]{1,6}|[A-Z])"
# "Part 2", "Parts 1 and 3", "Title IV": a statute's or a contract's parts and titles (not "Part A of Schedule 2",
# a part of a schedule, nor "Part 2 of the Companies Act", another act's)
_PARTS = re.compile(rf"\b(?P<kw>Part|Title)s?\s+(?P<nums>{_PART_NUM}(?:(?:\s*,\s*|\s+(?:and|or|to)\s+){_PART_NUM})*)"
                    r"(?![\w(]|\.\d)(?!\s+of\s+(?:the\s+|this\s+)?(?:Schedule|Annex|Appendix|Exhibit|[A-Z][\w-]*\s+Act)\b)")


def part_references(text: str, src_unit: str, part_of: Callable[[int], str | None] | None = None) -> list[Reference]:
    """"Part 2", "Parts 1 and 2", "Title IV" in ``text``: one reference per container named, on the document's own
    container ids (``part-2``, ``title-iv``), with no target yet; :func:`chapter_references` keeps those the
    document has.

    >>> [(r.raw, r.container) for r in part_references("Parts 1 and 2 apply; Part A of Schedule 2 does not.", "u")]
    [('Parts 1 and 2', 'part-1'), ('Parts 1 and 2', 'part-2')]
    """
    if "Part" not in text and "Title" not in text:
        return []
    refs: list[Reference] = []
    for m in _PARTS.finditer(text):
        nums = m.group("nums")
        letters = re.findall(r"[A-Z]+", nums)
        if nums[:1].isdigit() or all(set(x) <= set("IVXLC") for x in letters):  # "2 to 4", "II and III": ranges
            values = _numbers(nums, numeral=not nums[:1].isdigit())
        else:  # "A and B": letters as written
            values = letters
        kind = m.group("kw").lower()
        for n in dict.fromkeys(values):
            refs.append(Reference(src_unit=src_unit, src_part=part_of(m.start()) if part_of else None,
                                  start=m.start(), end=m.end(), raw=m.group(0), container=f"{kind}-{n.lower()}"))
    return refs


def act_references(u: Unit, members_of: Callable[[str], dict[str, list[str]]]) -> list[Reference]:
    """The references of a unit of an EU act (or of a question put to one, ``doc_id`` set to the act's), read with
    the EUR-Lex grammar on the act's own ids (``article-6``) and returned with the document's
    (``eu-ai-act/article-6``); a reference to a chapter or section becomes one to each of its articles.
    ``members_of(doc_id)``: the document's containers and the units they hold (:func:`ingest.containers.members`)."""
    prefix = f"{u.doc_id}/"
    bare = u.model_copy(update={"unit_id": u.unit_id.removeprefix(prefix),
                                "containers": _bare(u.containers, prefix)})
    found = [r.model_copy(update={"src_unit": u.unit_id}) for r in extract_references(bare)]
    return _in_document(u.doc_id, found, members_of)


def _bare(containers: list[Container], prefix: str) -> list[Container]:
    return [c.model_copy(update={"id": c.id.removeprefix(prefix)}) for c in containers]


def _in_document(doc_id: str, refs: list[Reference], members_of: Callable[[str], dict[str, list[str]]]
                 ) -> list[Reference]:
    """``refs``, read on a document's own ids, with the document's ids (``article-6`` → ``doc/article-6``), and a
    reference to a chapter or section made one to each unit it holds."""
    prefix = f"{doc_id}/"
    out = [r.model_copy(update={"dst_unit": prefix + r.dst_unit if r.dst_unit else None,
                                "container": prefix + r.container if r.container else None}) for r in refs]
    return expand(out, members_of(doc_id)) if any(r.container for r in out) else out


def _ref(u: Unit, start: int, end: int, dst_unit: str | None, dst_part: str | None = None) -> Reference:
    return Reference(src_unit=u.unit_id, src_part=part_at(u, start), start=start, end=end, raw=u.text[start:end],
                     dst_unit=dst_unit, dst_part=dst_part)


def _where(u: Unit, end: int, cat: Catalogue) -> tuple[str, str | None, int] | None:
    """What an ``of ...`` after a reference names: ``("doc", doc_id, end)``, ``("series", unit_id, end)``,
    ``("external", None, end)``; None when nothing follows."""
    m = _OF.match(u.text, end)
    if not m:
        return None
    where = m.group("where")
    if where.lower().startswith("this "):
        return "doc", u.doc_id, m.end()
    sm = re.match(r"(Schedule|Annex|Appendix|Exhibit)\s+(\S+)", where)
    if sm:
        return "series", cat.series(u.doc_id, sm.group(1).lower(), series_key(sm.group(2))), m.end()
    doc = cat.doc_named(where)
    if doc:
        return "doc", doc, m.end()
    if where in _GENERIC:  # "clause 5 of the Agreement": this document
        return "doc", u.doc_id, m.end()
    if len(where.split()) >= 2:  # another document, not (yet) uploaded: counted, not guessed
        return "external", None, m.end()
    if re.match(r"(?:Regulation|Directive|Act|Decision|Law|Code|Rules?|Order)\b", where) or \
            re.search(r"\b(?:Act|Regulations?|Directive|Code|Ordinance|Rules)\b", where):
        return "external", None, m.end()
    return None


def structural_references(u: Unit, cat: Catalogue) -> list[Reference]:
    """The clause, section, article, schedule and annex references of ``u`` (no list items, terms or titles)."""
    return _structural(u, cat)


def _structural(u: Unit, cat: Catalogue) -> list[Reference]:
    refs: list[Reference] = []
    spans: list[tuple[int, int]] = []
    inside_items = [m.span() for m in _ITEM_REF.finditer(u.text) if m.group("num")]
    for m in _BODY_REF.finditer(u.text):
        if any(a <= m.start() < b for a, b in inside_items):
            continue
        kw = m.group("kw").lower()
        where = _where(u, m.end(), cat)
        nums = re.findall(_NUM, m.group("nums"))
        end = where[2] if where else m.end()
        spans.append((m.start(), end))
        for num in nums:
            top = num.split(".")[0].split("(")[0]
            if where and where[0] == "external":
                refs.append(_ref(u, m.start(), end, None))
                continue
            if where and where[0] == "series":
                target = where[1]
                refs.append(_ref(u, m.start(), end, target, cat.part_of(target, num) if target else None))
                continue
            doc = where[1] if where else u.doc_id
            if kw.startswith("paragraph") and u.meta.get("ns") in SERIES and not where:
                refs.append(_ref(u, m.start(), end, u.unit_id, cat.part_of(u.unit_id, num)))
                continue
            own = f"{u.meta.get('key')}({num})"
            if kw.startswith("paragraph") and not where and own in cat.labels.get(u.unit_id, set()):
                # "paragraphs 2 to 5" in Article 10, whose numbered paragraphs are 10(1), 10(2), ...: its own
                refs.append(_ref(u, m.start(), end, u.unit_id, own))
                continue
            if not kw.startswith(("paragraph", *BODY, "sub")):
                continue
            # "section 164.404" of a regulation whose sections are numbered whole (§ 164.404), else clause 4's 4.2
            whole = num.split("(")[0]
            target = (cat.body(doc, whole) or cat.body(doc, top)) if doc else None
            refs.append(_ref(u, m.start(), end, target, cat.part_of(target, num) if target else None))
    for m in _SIGN_REF.finditer(u.text):
        where = _where(u, m.end(), cat)
        end = where[2] if where else m.end()
        spans.append((m.start(), end))
        for num in re.findall(_SIGN_NUM, m.group("nums")):
            if where and where[0] != "doc":
                refs.append(_ref(u, m.start(), end, None))  # "§ 552 of title 5": another text
                continue
            doc = where[1] if where else u.doc_id
            key, _, rest = num.partition("(")
            target = cat.body(doc, key) if doc else None
            refs.append(_ref(u, m.start(), end, target, cat.part_of(target, num) if target and rest else None))
    for m in _SERIES_REF.finditer(u.text):
        if any(a <= m.start() < b for a, b in spans):
            continue  # "paragraph 3 of Schedule 2" was taken above
        kw = m.group("kw").lower()
        ns = next(s for s in SERIES if kw.startswith(s[:5]))
        where = _where(u, m.end(), cat)
        doc = where[1] if where and where[0] == "doc" else u.doc_id
        end = where[2] if where and where[0] == "doc" else m.end()
        target = cat.series(doc, ns, series_key(m.group("n"))) if doc else None
        refs.append(_ref(u, m.start(), end, target))
    for m in _LETTERED_REF.finditer(u.text):
        # "A.8.13" (or "control A.8.13"): a part of the document's lettered annex or appendix that has it; any
        # other "A.1" (a figure, a table of another text) is no reference
        if any(a <= m.start() < b for a, b in spans) or not u.doc_id:
            continue
        for ns in SERIES:
            target = cat.series(u.doc_id, ns, m.group("num")[0].lower())
            if target is not None and m.group("num") in cat.labels.get(target, set()):
                refs.append(_ref(u, m.start(), m.end(), target, m.group("num")))
                break
    return refs


def _items(u: Unit, cat: Catalogue) -> list[Reference]:
    refs = []
    items = [p for p in u.parts if p.label.endswith(")")]
    for m in _ITEM_REF.finditer(u.text):
        x = m.group("x") or m.group("y")
        if m.group("num"):  # "paragraph (a) of clause 2.2"
            num = m.group("num")
            target = cat.body(u.doc_id, num.split(".")[0])
            refs.append(_ref(u, m.start(), m.end(), target, cat.part_of(target, f"{num}({x})") if target else None))
            continue
        here = part_at(u, m.start()) or ""
        parent = here.rsplit("(", 1)[0] if here.endswith(")") else here
        same = [p for p in items if p.label.endswith(f"({x})")]
        if not same:
            refs.append(_ref(u, m.start(), m.end(), None))
            continue
        sibling = [p for p in same if p.label.rsplit("(", 1)[0] == parent]
        if sibling:
            best = sibling[0]
        elif m.group("dir") == "below":
            best = next((p for p in same if p.start > m.start()), same[-1])
        else:
            best = next((p for p in reversed(same) if p.start < m.start()), same[0])
        refs.append(_ref(u, m.start(), m.end(), u.unit_id, best.label))
    return refs


def _terms(u: Unit, cat: Catalogue) -> list[Reference]:
    terms = cat.terms(u.doc_id)
    if not terms:
        return []
    refs = []
    seen: set[tuple[str | None, str]] = set()
    taken: list[tuple[int, int]] = []
    for term in sorted(terms, key=len, reverse=True):  # "Insured Person" before "Person"
        dst_unit, dst_part = terms[term]
        rx = re.compile(r"(?<![\w\"“])" + re.escape(term) + r"(?:s|es)?(?![\w\"”])")
        for m in rx.finditer(u.text):
            if any(a <= m.start() < b for a, b in taken):
                continue
            src_part = part_at(u, m.start())
            if (u.unit_id, src_part) == (dst_unit, dst_part) or (src_part, term) in seen:
                continue
            seen.add((src_part, term))
            taken.append(m.span())
            refs.append(_ref(u, m.start(), m.end(), dst_unit, dst_part))
    return refs


def _documents(u: Unit, cat: Catalogue) -> list[Reference]:
    refs = []
    seen: set[tuple[str | None, str]] = set()
    for rx, doc_id in cat.named_in(u.text):
        if doc_id == u.doc_id:
            continue
        for m in rx.finditer(u.text):
            src_part = part_at(u, m.start())
            if (src_part, doc_id) in seen:
                continue
            seen.add((src_part, doc_id))
            refs.append(_ref(u, m.start(), m.end(), cat.first(doc_id)))
    return refs
