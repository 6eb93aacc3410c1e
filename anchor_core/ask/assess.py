"""``anchor assess``: describe a system, get the provisions that apply, each anchored.

The description is asked as a fixed set of topic questions (classification, prohibited practices,
obligations by role, transparency, deadlines) through the :func:`ask` pipeline with the gate off (a description is not
a question) and verification on, so every provision listed comes with an anchored quote. The topics follow the EU
AI Act's structure; on another corpus they still run, as plain questions.
"""

from __future__ import annotations

from pydantic import BaseModel, Field

from anchor_core.ask.pipeline import AskSettings, ask
from anchor_core.embeddings import Embedder
from anchor_core.errors import QueryError
from anchor_core.report import Report
from anchor_core.stores.base import Store

TOPICS: list[tuple[str, str]] = [
    ("classification", "high-risk AI systems listed in Annex III, classification rules of Article 6: {d}"),
    ("prohibited practices", "prohibited AI practices of Article 5: {d}"),
    ("provider obligations", "obligations of providers of high-risk AI systems: {d}"),
    ("deployer obligations", "obligations of deployers of high-risk AI systems: {d}"),
    ("transparency", "transparency obligations, information to natural persons: {d}"),
    ("deadlines", "date of application of this Regulation, entry into force: {d}"),
]


class Provision(BaseModel):
    label: str
    unit_id: str
    quote: str
    start: int
    end: int
    score: float
    supported: bool


class Topic(BaseModel):
    topic: str
    question: str
    refused: bool
    reason: str = ""
    provisions: list[Provision] = Field(default_factory=list)


class Assessment(BaseModel):
    description: str
    corpus: str
    topics: list[Topic]

    def to_text(self) -> str:
        lines = [f"Assessment of: {self.description}", ""]
        for t in self.topics:
            lines.append(f"{t.topic}")
            if t.refused:
                lines.append(f"  not established: {t.reason}")
            for p in t.provisions:
                mark = "✓" if p.supported else "?"
                quote = " ".join(p.quote.split())[:160]
                lines.append(f"  {mark} {p.label:<14} [{p.start}:{p.end}] {p.score:.2f}  “{quote}”")
            lines.append("")
        return "\n".join(lines)


def _provisions(r: Report) -> list[Provision]:
    out: list[Provision] = []
    labels = {s.n: s.label for s in r.sources}
    for c in sorted(r.claims, key=lambda c: -(c.anchor.score if c.anchor else 0)):
        a = c.anchor
        if a is None or any(p.unit_id == a.unit_id and p.start < a.end and a.start < p.end for p in out):
            continue  # atoms of one quoted sentence anchor to overlapping spans: list the provision once
        out.append(Provision(label=labels.get(a.source, a.unit_id), unit_id=a.unit_id, quote=a.quote, start=a.start,
                             end=a.end, score=a.score, supported=c.supported))
    return sorted(out, key=lambda p: (p.unit_id, p.start))


def assess(description: str, *, store: Store, embedder: Embedder | None, corpus: str, k: int = 4) -> Assessment:
    d = " ".join(description.split()).rstrip(".")
    if len(d.split()) < 2:
        raise QueryError("describe the system in a few words, e.g. 'a CV-screening tool used by a bank'")
    # The gate is off: a description is not a question, and its words ("CV-screening") need not be
    # in the corpus. Every listed provision is still anchored and verified.
    settings = AskSettings(k=k, hops=1, gate=False)
    topics = []
    for name, template in TOPICS:
        q = template.format(d=d)
        r = ask(q, store=store, embedder=embedder, corpus=corpus, settings=settings)
        topics.append(Topic(topic=name, question=q, refused=r.refused, reason=r.reason, provisions=_provisions(r)))
    return Assessment(description=d, corpus=corpus, topics=topics)
