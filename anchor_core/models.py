"""Typed records passed between pipeline stages.

Offsets are half-open ``[start, end)`` character offsets into the stored unit text,
so ``unit.text[chunk.start:chunk.end] == chunk.text`` always holds.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

UnitKind = Literal["article", "annex", "recital", "section", "passage", "file", "page"]


def utcnow() -> datetime:
    return datetime.now(UTC)


class Document(BaseModel):
    """One source file (or logical document) of a corpus."""

    doc_id: str
    title: str = ""
    source: str = ""
    sha256: str = ""
    groups: list[str] = Field(default_factory=list)
    """Access groups. Empty means public: visible to every query."""
    meta: dict[str, Any] = Field(default_factory=dict)


class Part(BaseModel):
    """A numbered subdivision of a unit: a paragraph of an article, a point of an annex,
    a numbered section of an RFC. ``label`` is how references name it (``"2"``, ``"4.1.2"``)."""

    label: str
    start: int
    end: int
    title: str = ""


ContainerKind = Literal["part", "title", "chapter", "section", "schedule"]


class Container(BaseModel):
    """Structure above a unit that the source states: ``Chapter II — Prohibited AI practices``.
    ``id`` is unique in the corpus (``chapter-iii-section-2``); ``label`` is how the source
    names it (``Section 2``), ``title`` its heading as printed in the source (may be empty)."""

    id: str
    kind: ContainerKind
    label: str
    title: str = ""

    @property
    def display(self) -> str:
        """``Chapter II — Prohibited AI practices`` (the label alone when it has no title)."""
        return f"{self.label} — {self.title}" if self.title else self.label


class Unit(BaseModel):
    """A structural unit that references point at: ``article-6``, ``annex-3``, ``pep-8``."""

    unit_id: str
    doc_id: str
    kind: UnitKind
    heading: str
    """Display label, e.g. ``Article 6`` or ``Annex III``."""
    title: str = ""
    text: str
    parts: list[Part] = Field(default_factory=list)
    containers: list[Container] = Field(default_factory=list)
    """The containers the unit sits in, outermost first (Chapter III, then its Section 2);
    empty when the source states none above the unit."""
    meta: dict[str, Any] = Field(default_factory=dict)

    @model_validator(mode="after")
    def _parts_inside_text(self) -> Unit:
        n = len(self.text)
        for p in self.parts:
            if not (0 <= p.start <= p.end <= n):
                raise ValueError(
                    f"part {p.label!r} of {self.unit_id} has offsets [{p.start}, {p.end}) "
                    f"outside the unit text of length {n}"
                )
        return self

    @property
    def lead_in(self) -> str:
        """Heading lead-in prepended to chunk text for embedding and display. The titles of the
        unit's own containers are not part of it: measured on the AI Act dev set they cost direct
        hits (a chapter title such as "High-risk AI systems" is shared by 44 articles and pulls
        them above the annexes a question asks about). A chunk that *cites* a container carries
        that container's title instead (:func:`anchor_core.indexing.name_cited_containers`)."""
        return f"{self.heading}. {self.title}." if self.title else f"{self.heading}."

    def part_text(self, label: str) -> str:
        for p in self.parts:
            if p.label == label:
                return self.text[p.start : p.end]
        raise KeyError(f"{self.unit_id} has no part {label!r}")


class Chunk(BaseModel):
    """A retrievable slice of one unit. ``text == unit.text[start:end]``."""

    chunk_id: str
    unit_id: str
    doc_id: str
    kind: UnitKind
    part: str | None = None
    start: int
    end: int
    text: str
    lead: str = ""
    """Heading lead-in (``Article 6. Classification rules ...``), embedded with the text."""
    page: int | None = None
    """First page (1-based) of a paged source (PDF) the chunk's text comes from; None otherwise."""
    page_end: int | None = None
    """Last page of the chunk's text (equal to ``page`` unless it crosses a page break)."""

    @property
    def embed_text(self) -> str:
        return f"{self.lead} {self.text}".strip()


class Reference(BaseModel):
    """An explicit cross-reference found in a unit's text: ``Article 6(2)`` at [start, end)."""

    src_unit: str
    src_part: str | None = None
    start: int
    end: int
    raw: str
    in_title: bool = False
    """True when found in the unit's title (``Annex III — High-risk AI systems referred to in
    Article 6(2)``): offsets are then into ``unit.title`` and the reference applies to every
    chunk of the unit, whose lead-in carries the title."""
    dst_unit: str | None = None
    dst_part: str | None = None
    resolved: bool = False
    container: str | None = None
    """Set when the reference names a container (``Chapters I and II``): the id of the container
    whose member ``dst_unit`` is. A container reference is stored as one reference per member,
    all with the same ``raw`` and offsets (see :mod:`ingest.containers`)."""

    @property
    def target_label(self) -> str:
        if self.dst_unit is None:
            return "?"
        return f"{self.dst_unit}({self.dst_part})" if self.dst_part else self.dst_unit


class ParsedCorpus(BaseModel):
    """What an adapter hands the ingest step: documents, units and raw references."""

    documents: list[Document]
    units: list[Unit]
    references: list[Reference] = Field(default_factory=list)


class CorpusInfo(BaseModel):
    """A stored corpus and the facts of its last ingest."""

    name: str
    adapter: str
    version: str
    created_at: datetime = Field(default_factory=utcnow)
    documents: int = 0
    units: int = 0
    chunks: int = 0
    references: int = 0
    unresolved: int = 0
    embedder: str = ""
    dim: int = 0
    chunking: str = "structural"
    source: str = ""


StepKind = Literal["cites", "cited_by"]


def unit_part_label(unit_id: str, part: str | None) -> str:
    """``article-6(2)``: a unit id with its part, the way hits and paths name a place."""
    return f"{unit_id}({part})" if part else unit_id


class PathStep(BaseModel):
    """One step of a reference path: the hop from the unit (and part) of an earlier hit to the unit
    it led to. ``kind`` is ``cites`` when the earlier unit refers to the reached one (followed
    forward) and ``cited_by`` when the reached unit refers to the earlier one (followed backward);
    ``raw`` is the reference as written (``Article 6(2)``); ``depth`` is the hop it was taken in
    (1: from a direct hit)."""

    unit_id: str
    part: str | None = None
    to_unit: str = ""
    to_part: str | None = None
    kind: StepKind = "cites"
    raw: str = ""
    depth: int = Field(1, ge=1)
    through: str = ""
    """Set when ``raw`` is written in another part of the earlier unit that the earlier part refers to
    ("for the objectives referred to in *paragraph 1*": ``through="paragraph 1"``, ``raw="Annex II"``,
    written in paragraph 1); the step is still one hop from the earlier hit."""

    @property
    def label(self) -> str:
        return unit_part_label(self.unit_id, self.part)

    @classmethod
    def from_label(cls, label: str, kind: StepKind = "cites", depth: int = 1) -> PathStep:
        """A step from an old export's string form, ``article-6(2)``: a trailing ``(...)`` is the part."""
        unit_id, sep, rest = label.partition("(")
        if sep and rest.endswith(")"):
            return cls(unit_id=unit_id, part=rest[:-1] or None, kind=kind, depth=depth)
        return cls(unit_id=label, kind=kind, depth=depth)


class Hit(BaseModel):
    """One retrieved chunk. ``via`` is the reference path that reached it, nearest first: a chunk of
    ``annex-3`` reached from ``article-6`` part 2 has one step, ``PathStep(unit_id="article-6",
    part="2", to_unit="annex-3", kind="cites")``. Direct hits have an empty ``via``."""

    chunk_id: str
    unit_id: str
    doc_id: str
    kind: UnitKind
    part: str | None = None
    heading: str = ""
    start: int
    end: int
    text: str
    score: float
    rank: int = 0
    page: int | None = None
    """First page of the chunk in a paged source (PDF), else None."""
    document: str = ""
    """Title or file name of the hit's document."""
    via: list[PathStep] = Field(default_factory=list)
    bm25_rank: int | None = None
    dense_rank: int | None = None
    cited_by: list[str] = Field(default_factory=list)
    """Other hits of the same result whose references point at this chunk."""
    named: str = ""
    """The reference as the question wrote it (``Annex III``) when the question names this unit;
    such a hit is fetched directly and has an empty ``via``."""
    why: str = ""
    """For a followed hit: why it was taken (which shown hit cites it, and the scores compared)."""

    @model_validator(mode="before")
    @classmethod
    def _old_string_path(cls, data: Any) -> Any:
        """Exports written before paths were typed hold ``via: ["article-6(2)"]`` and a parallel
        ``via_kind``; read them as steps."""
        if not isinstance(data, dict) or not any(isinstance(v, str) for v in data.get("via") or []):
            return data
        via = data["via"]
        kinds = list(data.get("via_kind") or []) + ["cites"] * len(via)
        steps = [PathStep.from_label(v, kinds[i], depth=len(via) - i) if isinstance(v, str) else v
                 for i, v in enumerate(via)]
        tos = [(data.get("unit_id", ""), data.get("part"))] + [(s.unit_id, s.part) if isinstance(s, PathStep)
                                                                 else ("", None) for s in steps]
        for s, (to_unit, to_part) in zip(steps, tos):
            if isinstance(s, PathStep):
                s.to_unit, s.to_part = to_unit, to_part
        return {k: v for k, v in data.items() if k != "via_kind"} | {"via": steps}

    @property
    def via_kind(self) -> list[StepKind]:
        """The direction of each step of ``via``."""
        return [s.kind for s in self.via]

    @property
    def label(self) -> str:
        return unit_part_label(self.unit_id, self.part)

    @property
    def path(self) -> str:
        """The label, then each step back to a direct hit; the arrow points from the citing
        provision to the cited one: ``annex-3(4) ← article-6(2)`` (Article 6(2) cites Annex III),
        ``article-43(1) → annex-7(3)`` (Article 43(1) cites Annex VII, which was a hit)."""
        return f"{self.label} {self.route}" if self.via else self.label

    @property
    def route(self) -> str:
        """The steps of ``path`` without the hit's own label (``← article-6(2)``), built from the
        steps, never by splitting ``path``: a part label may hold spaces (a PEP section title)."""
        return " ".join(f"{'←' if step.kind == 'cites' else '→'} {step.label}" for step in self.via)


class Retrieval(BaseModel):
    """The result of one retrieval: ranked hits and how long each step took."""

    question: str
    corpus: str
    hits: list[Hit]
    timings_ms: dict[str, float] = Field(default_factory=dict)
    settings: dict[str, Any] = Field(default_factory=dict)
    notes: list[str] = Field(default_factory=list)
    """What the trace should say beyond the hits: references in the question that lead nowhere,
    named units that did not fit."""


class Filters(BaseModel):
    """Restrictions applied inside the store, before ranking.

    ``groups=None`` means unrestricted (the local operator sees everything); a list means
    the query sees public documents (no groups) and documents sharing one of the groups. The
    dashboard never chooses this itself: :func:`anchor_core.access.filters_for` makes it from the
    signed-in viewer (``None`` only in local mode or for an admin).
    """

    documents: list[str] | None = None
    groups: list[str] | None = None
    exclude_kinds: list[str] = Field(default_factory=list)
