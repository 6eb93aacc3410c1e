"""``anchor assess``: describe a system, get an applicability decision per topic, each anchored.

On a corpus with a topic map (``data/assess_<corpus>.json``; the EU AI Act ships one) every topic is
*decided* from the provisions the map assigns to it, and from no other:

``prohibited``
    the description against each point of Article 5(1): prohibited under the best point, or "not
    prohibited" because no point matches;
``high_risk``
    against each point of Annex III (Article 6(2)) and each act listed in Annex I (Article 6(1),
    a safety component of such a product): high-risk under which point, or "not high-risk";
``roles``
    provider or deployer from what the description says who does (:func:`role_from_text`: "we
    develop", "the office uses"), else from its similarity to the definitions of Article 3, or "not
    stated" with both lists clearly marked; the obligations (Articles 16-27) apply only to a
    high-risk system;
``transparency``
    which of Article 50(1)-(4) match, each with whose duty it is, or none;
``dates``
    from when each applying topic applies (Article 113).

A match is evidence, not a keyword: the description and each candidate point are embedded (MiniLM),
the similarity is put on the scale of a background of other system descriptions (how much closer
this description is to the point than descriptions usually are; per view of the point, the whole
point and its clauses), and the two thresholds of each topic — fitted on labelled descriptions
(``python -m eval.assess_bench --write``, recorded in ``data/assess_<corpus>_fit.json``) — split
"applies", "unclear — review" and "not applicable". Every listed provision carries its quote with
offsets into the stored unit text (``text[start:end] == quote``).

On a corpus without a map the old topic questions run through :func:`ask`, labelled as plain questions.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, Field

from anchor_core.ask import assess_map as amap
from anchor_core.ask.assess_map import Candidate
from anchor_core.embeddings import Embedder
from anchor_core.errors import QueryError
from anchor_core.models import Unit
from anchor_core.segment import split_sentences
from anchor_core.stores.base import Store

Status = Literal["applies", "unclear", "not_applicable"]
STATUS_TEXT = {"applies": "applies", "unclear": "unclear — review", "not_applicable": "not applicable"}
TOPIC_ORDER = ("prohibited", "high_risk", "roles", "transparency", "dates")


class Provision(BaseModel):
    """A provision a decision rests on, quoted verbatim: ``unit.text[start:end] == quote``."""

    label: str
    unit_id: str
    quote: str
    start: int
    end: int
    score: float = 0.0
    """The evidence score of the match (background-normalised similarity); 0 for a provision listed by the map."""
    supported: bool = True
    """True when the quote was found verbatim at its offsets in the stored unit text."""
    note: str = ""


class Considered(BaseModel):
    """A candidate point and its score, for the trace: why the decision went the way it did."""

    key: str
    label: str
    score: float


class Decision(BaseModel):
    topic: str
    title: str
    scope: str
    status: Status
    decision: str
    """One line: ``prohibited under Article 5(1)(f)``, ``not high-risk``, ``provider (from the description)``."""
    reason: str = ""
    provisions: list[Provision] = Field(default_factory=list)
    considered: list[Considered] = Field(default_factory=list)
    keys: list[str] = Field(default_factory=list)
    """The matched points in the bench's short form (``f``, ``III.4(a)``, ``6(1)``, ``1``, ``provider``)."""


class Topic(BaseModel):
    """A plain topic question (corpora without a topic map)."""

    topic: str
    question: str
    refused: bool
    reason: str = ""
    provisions: list[Provision] = Field(default_factory=list)


class Assessment(BaseModel):
    description: str
    corpus: str
    mapped: bool = True
    """False: no topic map for the corpus; ``topics`` are plain questions, not decisions."""
    decisions: list[Decision] = Field(default_factory=list)
    topics: list[Topic] = Field(default_factory=list)
    notes: list[str] = Field(default_factory=list)
    model: str = ""

    def decision(self, topic: str) -> Decision:
        for d in self.decisions:
            if d.topic == topic:
                return d
        raise KeyError(topic)

    def to_text(self) -> str:
        lines = [f"Assessment of: {self.description}", ""]
        lines += [f"note: {n}" for n in self.notes]
        if self.notes:
            lines.append("")
        for d in self.decisions:
            lines.append(f"{d.title} ({d.scope}): {STATUS_TEXT[d.status]}")
            lines.append(f"  {d.decision}")
            if d.reason:
                lines.append(f"  why: {d.reason}")
            for p in d.provisions:
                mark = "✓" if p.supported else "✗ quote not at its offsets"
                quote = " ".join(p.quote.split())
                quote = quote if len(quote) <= 200 else quote[:197].rstrip() + "..."
                extra = f" — {p.note}" if p.note else ""
                lines.append(f"  {mark} {p.label} [{p.unit_id} {p.start}:{p.end}]{extra}")
                lines.append(f"      “{quote}”")
            if d.considered:
                lines.append("  closest: " + "; ".join(f"{c.label} {c.score:+.2f}" for c in d.considered))
            lines.append("")
        for t in self.topics:
            lines.append(f"{t.topic} (plain question: {t.question})")
            if t.refused:
                lines.append(f"  not established: {t.reason}")
            for p in t.provisions:
                mark = "✓" if p.supported else "?"
                quote = " ".join(p.quote.split())[:160]
                lines.append(f"  {mark} {p.label:<14} [{p.start}:{p.end}] {p.score:.2f}  “{quote}”")
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"


# --------------------------------------------------------------------------------------
# Evidence: background-normalised similarity of a description to each candidate
# --------------------------------------------------------------------------------------

def views(text: str) -> list[str]:
    """What of a candidate is compared: the whole text, each of its lines (a point's sub-points, a
    defined term's definition) and each clause of four words or more (a long point is several
    conditions; a description usually matches one of them)."""
    lines = [re.sub(r"^\s*(?:\(\w+\)|\d+\.)\s*", "", x).strip() for x in text.split("\n")]
    lines = [x for x in lines if x]
    whole = " ".join(lines)
    out = [whole]
    for line in lines:
        if len(lines) > 1:
            out.append(line)
        out += [p.strip() for p in re.split(r";|,|\bshall\b|:|\.\s", line) if len(p.split()) >= 4]
    return list(dict.fromkeys(x for x in out if x))


def _scale(sims: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mean and spread of the background's similarities to each view (columns). Leaving out the most
    similar background rows (the systems of that very kind) was tried: it fitted worse on dev."""
    return sims.mean(0), np.maximum(sims.std(0), 1e-3)


class Evidence:
    """Scores descriptions against candidates on the scale of a background of descriptions.

    For each view ``v`` of a candidate, ``z = (cos(d, v) - mean_b cos(b, v)) / std_b cos(b, v)``
    over the background ``b``; a candidate scores the mean of its whole-text ``z`` and its best view's.
    """

    def __init__(self, embedder: Embedder, background: Sequence[str]) -> None:
        if len(background) < 3:
            raise ValueError(f"the background needs at least 3 descriptions. Currently, it has {len(background)}")
        self.embedder = embedder
        self.background = np.asarray(embedder.embed(list(background)), dtype=np.float32)
        self._views: dict[str, tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def _prepare(self, texts: Sequence[str]) -> None:
        todo = [t for t in dict.fromkeys(texts) if t not in self._views]
        if not todo:
            return
        # A clause that several candidates of one topic share ("the placing on the market, the putting
        # into service or the use of") tells them apart from nothing: only the whole text keeps it.
        seen: dict[str, int] = {}
        for t in dict.fromkeys(texts):
            for v in set(views(t)[1:]):
                seen[v] = seen.get(v, 0) + 1
        vs = [[x[0], *[v for v in x[1:] if seen.get(v, 0) < 2]] for x in (views(t) for t in todo)]
        flat = [v for x in vs for v in x]
        vecs = np.asarray(self.embedder.embed(flat), dtype=np.float32)
        i = 0
        for t, x in zip(todo, vs, strict=True):
            block = vecs[i:i + len(x)]
            i += len(x)
            self._views[t] = (block, *_scale(self.background @ block.T))

    def scores(self, description_vector: np.ndarray, texts: Sequence[str],
               background_mask: np.ndarray | None = None) -> np.ndarray:
        """One score per text. ``background_mask`` leaves background rows out (the bench leaves a
        dev description out of its own background)."""
        self._prepare(texts)
        out = np.zeros(len(texts), dtype=np.float32)
        for j, t in enumerate(texts):
            block, mean, std = self._views[t]
            if background_mask is not None:
                mean, std = _scale(self.background[background_mask] @ block.T)
            z = (block @ description_vector - mean) / std
            out[j] = (z[0] + z.max()) / 2
        return out


# --------------------------------------------------------------------------------------
# Candidates from the map
# --------------------------------------------------------------------------------------

def _roman_annex(unit: Unit) -> str:
    return str(unit.meta.get("roman") or unit.heading.removeprefix("Annex ").strip())


def _span_first_sentence(unit: Unit, start: int, end: int) -> tuple[int, int]:
    """The first sentence of ``unit.text[start:end]`` after its number (``1. ``), as offsets into the unit."""
    s = start + len(re.match(r"\s*(?:\d+\.\s*)?", unit.text[start:end]).group(0))  # type: ignore[union-attr]
    first = next(iter(split_sentences(unit.text[s:end])), None)
    if first is None:
        return s, end
    return s + first.start, s + first.end


@dataclass
class Candidates:
    prohibited: list[Candidate]
    annex_iii: list[Candidate]
    annex_i: list[Candidate]
    transparency: list[Candidate]
    roles: list[Candidate]
    units: dict[str, Unit]


def needed_units(m: dict[str, Any]) -> list[str]:
    ids = {c["unit"] for c in m["prohibited"]["candidates"]}
    hr = m["high_risk"]
    ids |= {hr["annex_iii"]["unit"], hr["annex_i"]["unit"], hr["annex_iii"]["via"]["unit"],
            hr["annex_i"]["via"]["unit"], hr["derogation"]["unit"]}
    ids |= {d["unit"] for d in m["roles"]["definitions"].values()}
    for role in ("provider", "deployer"):
        ids |= set(m["roles"][role]["units"])
    ids |= {c["unit"] for c in m["transparency"]["candidates"]}
    ids.add(m["dates"]["unit"])
    return sorted(ids)


def candidates(m: dict[str, Any], units: dict[str, Unit]) -> Candidates:
    """Every candidate point of the map, cut from the stored units."""
    p = m["prohibited"]
    prohibited = [c for spec in p["candidates"] for c in amap.point_candidates(
        units[spec["unit"]], spec.get("part"), lambda _pa, po: po or "",
        lambda _pa, po, spec=spec: p["label"].format(point=po or "", part=spec.get("part") or ""))]
    hr = m["high_risk"]
    a3 = units[hr["annex_iii"]["unit"]]
    roman = _roman_annex(a3)
    annex_iii = [c for part in a3.parts for c in amap.point_candidates(
        a3, part.label, lambda pa, po: f"{roman}.{pa}" + (f"({po})" if po else ""),
        lambda pa, po: f"Annex {roman}, point {pa}" + (f"({po})" if po else ""))]
    a1 = units[hr["annex_i"]["unit"]]
    annex_i = []
    for part in a1.parts:
        if "." not in part.label:
            continue  # a section heading, not a listed act
        section, _, n = part.label.partition(".")
        end = amap._first_line(a1.text, part.start, part.end)
        annex_i.append(Candidate("6(1)", f"Annex {_roman_annex(a1)}, Section {section}, point {n}", a1.unit_id,
                                 part.label, part.start, end, a1.text[part.start:end], a1.text[part.start:end]))
    t = m["transparency"]
    transparency = []
    for spec in t["candidates"]:
        u = units[spec["unit"]]
        for label in spec["parts"]:
            ps, pe = amap.part_span(u, label)
            s, e = _span_first_sentence(u, ps, pe)
            transparency.append(Candidate(label, t["label"].format(part=label), u.unit_id, label, s, e,
                                          u.text[s:e], u.text[s:e]))
    roles = []
    for role, spec in m["roles"]["definitions"].items():
        u = units[spec["unit"]]
        pt = amap.find_point(u, spec["point"])
        if pt is None:
            raise KeyError(f"{u.unit_id} has no point ({spec['point']})")
        roles.append(Candidate(role, f"{u.heading}({spec['point']})", u.unit_id, None, pt.start, pt.end,
                               u.text[pt.start:pt.end], u.text[pt.start:pt.end]))
    return Candidates(prohibited, annex_iii, annex_i, transparency, roles, units)


# --------------------------------------------------------------------------------------
# Decisions
# --------------------------------------------------------------------------------------

DEFAULT_THRESHOLDS: dict[str, dict[str, float]] = {
    t: {"lo": 1.5, "hi": 2.5} for t in ("prohibited", "annex_iii", "annex_i", "transparency")} | {
    "role": {"lo": 1.5, "hi": 1.5, "margin": 1.0}}


def _status(score: float, th: dict[str, float]) -> Status:
    return "applies" if score >= th["hi"] else "unclear" if score >= th["lo"] else "not_applicable"


def _prov(unit: Unit, label: str, start: int, end: int, score: float = 0.0, note: str = "") -> Provision:
    quote = unit.text[start:end]
    return Provision(label=label, unit_id=unit.unit_id, quote=quote, start=start, end=end, score=round(score, 3),
                     supported=unit.text[start:end] == quote and bool(quote), note=note)


def _from(c: Candidate, units: dict[str, Unit], score: float, note: str = "") -> Provision:
    return _prov(units[c.unit_id], c.label, c.start, c.end, score, note)


def _considered(cands: list[Candidate], scores: np.ndarray, n: int = 3) -> list[Considered]:
    order = np.argsort(-scores)[:n]
    return [Considered(key=cands[i].key, label=cands[i].label, score=round(float(scores[i]), 2)) for i in order]


def _part_first_line(unit: Unit, part: str, label: str, note: str = "") -> Provision:
    s, e = amap.part_span(unit, part)
    return _prov(unit, label, s, amap._first_line(unit.text, s, e), note=note)


@dataclass
class Scores:
    prohibited: np.ndarray
    annex_iii: np.ndarray
    annex_i: np.ndarray
    transparency: np.ndarray
    roles: np.ndarray
    description_vector: np.ndarray


def score_all(ev: Evidence, cs: Candidates, description: str, background_mask: np.ndarray | None = None) -> Scores:
    d = np.asarray(ev.embedder.embed([description]), dtype=np.float32)[0]

    def sc(cands: list[Candidate]) -> np.ndarray:
        return ev.scores(d, [c.text for c in cands], background_mask)

    return Scores(sc(cs.prohibited), sc(cs.annex_iii), sc(cs.annex_i), sc(cs.transparency), sc(cs.roles), d)


ROLES = ("provider", "deployer", "both")

# The two roles are defined by acts (Article 3(3) and (4)): a provider develops an AI system, or has it
# developed, and places it on the market or puts it into service under its own name; a deployer uses one
# under its authority. A description states a role when it says who does which: "we develop", "our
# start-up sells" (the writer's own organisation), "the welfare office uses", "run by the airport
# authority". A provider's act said of someone else ("a streaming service's AI releases music") states
# nothing about the reader; a person using an app for themselves ("users paste faces") deploys nothing.
_SELF = (r"\b(?:we|our(?:\s+[\w'-]+){0,3}?)\s+(?:(?:are|is|have|has|also|now|then|will|currently|already|"
         r"ourselves|plan\s+to|want\s+to|[a-z]+ly)\s+){0,2}")
_PROVIDER_ACTS = (r"(?:build|builds|built|building|develop|develops|developed|developing|make|makes|made|making|"
                  r"manufacture|manufactures|manufactured|sell|sells|sold|selling|offer|offers|offered|"
                  r"supply|supplies|supplied|train|trains|trained|design|designs|designed|create|creates|created|"
                  r"market|markets|marketed|provide|provides|provided)\b")
_DEPLOYER_ACTS = (r"(?:use|uses|used|using|run|runs|ran|operate|operates|operated|deploy|deploys|deployed|"
                  r"buy|buys|bought|purchase|purchased|license|licenses|licensed|install|installs|installed)\b")
_PRIVATE = r"(?:users?|customers?|consumers?|people|players?|shoppers?|students?|pupils?|visitors?|citizens?|anyone)"
_SELF_PROVIDES = re.compile(_SELF + _PROVIDER_ACTS + r"|\b(?:developed|built|made|released|trained|sold|offered|"
                            r"designed|created)\s+by\s+(?:us|our)\b", re.I)
_SELF_DEPLOYS = re.compile(_SELF + r"(?:(?:[\w-]+\s+){1,2}and\s+)?" + _DEPLOYER_ACTS, re.I)  # "we built it and use"
# someone else's use: a subject that is neither a private person nor the system itself ("a lawnmower that
# uses its camera") nor a function word ("for anyone to use"); "used to" is a habit, "used by" the passive
_NOT_USER = rf"(?!(?:{_PRIVATE}|that|which|it|its|this|to|and|or|can|may|will|would|could|should|must)\b)"
_OTHER_DEPLOYS = re.compile(rf"\b{_NOT_USER}[a-z]+\s+(?:plans? to |now )?{_DEPLOYER_ACTS}(?<!used)(?!\s+by\b)|"
                            rf"\b(?:used|run|operated|deployed|installed)\s+by\s+{_NOT_USER}", re.I)


def role_from_text(description: str) -> str | None:
    """The role a description states by its verbs (``provider``, ``deployer``, ``both``), ``None`` when
    it says nothing of who develops or uses the system.

    >>> [role_from_text(d) for d in ("We are building software that ranks job applicants.",
    ...     "Our HR department uses a purchased tool.", "A chatbot that we built ourselves and use internally.",
    ...     "Cameras run by the airport authority.", "A mobile app that lets users paste faces into films.")]
    ['provider', 'deployer', 'both', 'deployer', None]
    """
    provides = _SELF_PROVIDES.search(description) is not None
    deploys = _SELF_DEPLOYS.search(description) is not None
    if provides and deploys:
        return "both"
    if provides:
        return "provider"
    if deploys or _OTHER_DEPLOYS.search(description):
        return "deployer"
    return None


def decide(m: dict[str, Any], cs: Candidates, s: Scores, th: dict[str, dict[str, float]],
           role_given: str | None = None, description: str = "") -> list[Decision]:
    """The decision of every topic from the scores; ``role_given`` (provider, deployer, both) is the
    reviewer's statement of the role, used instead of the one read from the description: by its verbs
    (:func:`role_from_text`), else by its similarity to the definitions."""
    units = cs.units
    out: list[Decision] = []

    # prohibited practices: the best point of Article 5(1)
    p = m["prohibited"]
    i = int(np.argmax(s.prohibited))
    best, score = cs.prohibited[i], float(s.prohibited[i])
    st = _status(score, th["prohibited"])
    if st == "applies":
        dec = Decision(topic="prohibited", title=p["title"], scope=p["scope"], status=st,
                       decision=f"prohibited under {best.label}", keys=[best.key],
                       reason=f"the description matches {best.label} (score {score:+.2f})",
                       provisions=[_from(best, units, score)])
    elif st == "unclear":
        dec = Decision(topic="prohibited", title=p["title"], scope=p["scope"], status=st,
                       decision=f"review {best.label}: the closest point, not decided", keys=["unclear"],
                       reason=f"the closest point, {best.label}, scores {score:+.2f}: between 'not prohibited' "
                              f"({th['prohibited']['lo']:+.2f}) and 'prohibited' ({th['prohibited']['hi']:+.2f})",
                       provisions=[_from(best, units, score, "closest point, not decided")])
    else:
        dec = Decision(topic="prohibited", title=p["title"], scope=p["scope"], status=st, decision="not prohibited",
                       reason=p["none"], keys=["none"])
    dec.considered = _considered(cs.prohibited, s.prohibited)
    out.append(dec)

    # high-risk: Annex III (Article 6(2)) or Annex I (Article 6(1))
    hr = m["high_risk"]
    i3, i1 = int(np.argmax(s.annex_iii)), int(np.argmax(s.annex_i))
    b3, v3, b1, v1 = cs.annex_iii[i3], float(s.annex_iii[i3]), cs.annex_i[i1], float(s.annex_i[i1])
    st3, st1 = _status(v3, th["annex_iii"]), _status(v1, th["annex_i"])
    via3 = _part_first_line(units[hr["annex_iii"]["via"]["unit"]], hr["annex_iii"]["via"]["part"],
                            f"{units[hr['annex_iii']['via']['unit']].heading}({hr['annex_iii']['via']['part']})")
    via1 = _part_first_line(units[hr["annex_i"]["via"]["unit"]], hr["annex_i"]["via"]["part"],
                            f"{units[hr['annex_i']['via']['unit']].heading}({hr['annex_i']['via']['part']})")
    der = hr["derogation"]
    derogation = _part_first_line(units[der["unit"]], der["part"], f"{units[der['unit']].heading}({der['part']})",
                                  note="may exempt an Annex III system that poses no significant risk: review")
    margin3 = v3 - th["annex_iii"]["hi"]
    margin1 = v1 - th["annex_i"]["hi"]
    rank = {"applies": 2, "unclear": 1, "not_applicable": 0}
    route = ""
    if st3 != "not_applicable" or st1 != "not_applicable":
        route = "annex_iii" if (rank[st3], margin3) >= (rank[st1], margin1) else "annex_i"
    if route == "annex_iii":
        st = st3
        dec = Decision(topic="high_risk", title=hr["title"], scope=hr["scope"], status=st,
                       decision=(f"high-risk under {b3.label} (Article 6(2))" if st == "applies"
                                 else f"review {b3.label}: the closest point, not decided"),
                       keys=[b3.key if st == "applies" else "unclear"],
                       reason=f"the description matches {b3.label} (score {v3:+.2f})" if st == "applies" else
                       f"the closest point, {b3.label}, scores {v3:+.2f}: between 'not high-risk' "
                       f"({th['annex_iii']['lo']:+.2f}) and 'high-risk' ({th['annex_iii']['hi']:+.2f})",
                       provisions=[via3, _from(b3, units, v3, "" if st == "applies" else "closest point, not decided"),
                                   derogation])
    elif route == "annex_i":
        st = st1
        dec = Decision(topic="high_risk", title=hr["title"], scope=hr["scope"], status=st,
                       decision=("high-risk under Article 6(1): a safety component of (or itself) a product "
                                 f"covered by {b1.label}, if that product needs a third-party conformity assessment"
                                 if st == "applies" else
                                 f"review Article 6(1) with {b1.label}: the closest act, not decided"),
                       keys=["6(1)" if st == "applies" else "unclear"],
                       reason=f"the description matches the product legislation of {b1.label} (score {v1:+.2f})",
                       provisions=[via1, _from(b1, units, v1, "" if st == "applies" else "closest act, not decided")])
    else:
        dec = Decision(topic="high_risk", title=hr["title"], scope=hr["scope"], status="not_applicable",
                       decision="not high-risk", reason=hr["none"], keys=["none"])
    dec.considered = _considered(cs.annex_iii, s.annex_iii, 2) + _considered(cs.annex_i, s.annex_i, 1)
    out.append(dec)
    high = dec

    # roles: from the description against the definitions; obligations only for a high-risk system
    r = m["roles"]
    rs = {c.key: float(v) for c, v in zip(cs.roles, s.roles, strict=True)}
    thr = th["role"]
    pv, dv = rs.get("provider", 0.0), rs.get("deployer", 0.0)
    stated = role_from_text(description) if description and role_given is None else None
    if role_given is not None:
        role = role_given
    elif stated is not None:
        role = stated
    elif pv >= thr["hi"] and dv >= thr["hi"] and abs(pv - dv) < thr["margin"]:
        role = "both"
    elif pv >= thr["hi"] and pv - dv >= thr["margin"]:
        role = "provider"
    elif dv >= thr["hi"] and dv - pv >= thr["margin"]:
        role = "deployer"
    else:
        role = "not_stated"
    roles = ["provider", "deployer"] if role in ("both", "not_stated") else [role]
    source = "as given" if role_given is not None else "from the description"
    role_text = {"provider": f"provider ({source})", "deployer": f"deployer ({source})",
                 "both": f"provider and deployer ({source})",
                 "not_stated": "role not stated in the description"}[role]
    defs = [_from(c, units, rs[c.key], "definition") for c in cs.roles if c.key in roles]
    if high.status == "not_applicable":
        out.append(Decision(topic="roles", title=r["title"], scope=r["scope"], status="not_applicable",
                            decision=f"{role_text}; no high-risk obligations apply",
                            reason=f"the obligations of {r['scope']} are those of {r['applies_to']}, and the system "
                                   "was not found high-risk", provisions=defs, keys=[role],
                            considered=[Considered(key=c.key, label=c.label, score=round(rs[c.key], 2))
                                        for c in cs.roles]))
    else:
        provs = list(defs)
        for rl in roles:
            provs += _role_provisions(r[rl], units, rl)
        out.append(Decision(topic="roles", title=r["title"], scope=r["scope"], status=high.status,
                            decision=role_text + (": the obligations of both roles are listed" if role == "not_stated"
                                                  else "") + ("" if high.status == "applies" else
                                                              " (if the system is high-risk: see above)"),
                            reason=f"{r['scope']} apply to {r['applies_to']}", provisions=provs, keys=[role],
                            considered=[Considered(key=c.key, label=c.label, score=round(rs[c.key], 2))
                                        for c in cs.roles]))

    # transparency: each paragraph of Article 50(1)-(4) on its own
    t = m["transparency"]
    tp: list[Provision] = []
    keys: list[str] = []
    unclear: list[str] = []
    for c, v in zip(cs.transparency, s.transparency, strict=True):
        stt = _status(float(v), th["transparency"])
        whose = t["duty_of"].get(c.key, "")
        if stt == "applies":
            keys.append(c.key)
            tp.append(_from(c, units, float(v), f"a duty of the {whose}" if whose else ""))
        elif stt == "unclear":
            unclear.append(c.label)
            tp.append(_from(c, units, float(v), "unclear — review" + (f" (a duty of the {whose})" if whose else "")))
    if keys:
        labels = ", ".join(t["label"].format(part=k) for k in keys)
        dec = Decision(topic="transparency", title=t["title"], scope=t["scope"], status="applies",
                       decision=labels + (f"; unclear: {', '.join(unclear)}" if unclear else ""),
                       reason="the description matches " + labels, provisions=tp, keys=keys)
    elif unclear:
        dec = Decision(topic="transparency", title=t["title"], scope=t["scope"], status="unclear",
                       decision=f"review {', '.join(unclear)}: the closest, not decided", keys=["unclear"],
                       provisions=tp,
                       reason=f"closest paragraphs score between {th['transparency']['lo']:+.2f} and "
                              f"{th['transparency']['hi']:+.2f}")
    else:
        dec = Decision(topic="transparency", title=t["title"], scope=t["scope"], status="not_applicable",
                       decision="no transparency duty of Article 50", reason=t["none"], keys=[])
    dec.considered = _considered(cs.transparency, s.transparency, 4)
    out.append(dec)

    out.append(_dates(m, units, out, route))
    return out


def _role_provisions(spec: dict[str, Any], units: dict[str, Unit], role: str) -> list[Provision]:
    """The first sentence of each of the role's articles, its lead article first (Article 16: "Providers
    of high-risk AI systems shall:" and the points that follow are the list a reviewer works through)."""
    out = []
    for uid in [spec["lead"], *[u for u in spec["units"] if u != spec["lead"]]]:
        u = units[uid]
        first = u.parts[0] if u.parts else None
        s, e = _span_first_sentence(u, first.start, first.end) if first else \
            (0, amap._first_line(u.text, 0, len(u.text)))
        if u.text[s:e].rstrip().endswith(":"):  # a lead-in: quote the list it introduces with it
            lst = amap.points(u.text, s, first.end if first else len(u.text))
            e = lst[-1].end if lst else e
        out.append(_prov(u, u.heading + (f"({first.label})" if first else ""), s, e, note=f"{role}: {u.title}"))
    return out


def _date_of(m: dict[str, Any], units: dict[str, Unit], where: dict[str, Any], label_for: str) -> Provision:
    u = units[m["dates"]["unit"]]
    if "point" in where:
        pt = amap.find_point(u, where["point"])
        if pt is None:
            raise KeyError(f"{u.unit_id} has no point ({where['point']})")
        s, e, label = pt.start, pt.line_end, f"{u.heading}, point ({where['point']})"
    else:
        s, e = amap.line_span(u.text, int(where["line"]))
        label = u.heading
    return _prov(u, label, s, e, note=label_for)


_DATE = re.compile(r"\b\d{1,2} (?:January|February|March|April|May|June|July|August|September|October|November|"
                   r"December) \d{4}\b")


def _dates(m: dict[str, Any], units: dict[str, Unit], decided: list[Decision], route: str) -> Decision:
    dm = m["dates"]
    by = {d.topic: d for d in decided}
    provs: list[Provision] = []
    parts: list[str] = []
    wanted = [("prohibited", "prohibited", "prohibitions"),
              ("high_risk", "high_risk_annex_i" if route == "annex_i" else "high_risk_annex_iii",
               "high-risk obligations"),
              ("transparency", "transparency", "transparency duties")]
    for topic, key, what in wanted:
        d = by.get(topic)
        if d is None or d.status == "not_applicable":
            continue
        p = _date_of(m, units, dm["topics"][key], what + ("" if d.status == "applies" else " (if they apply)"))
        found = _DATE.search(p.quote)
        parts.append(f"{what}{'' if d.status == 'applies' else ' (if they apply)'}: from "
                     f"{found.group(0) if found else 'the date in ' + p.label}")
        provs.append(p)
    if not provs:
        g = _date_of(m, units, dm["general"], "the Regulation in general")
        found = _DATE.search(g.quote)
        return Decision(topic="dates", title=dm["title"], scope=dm["scope"], status="not_applicable",
                        decision="no topic applies, so no date of application is triggered",
                        reason="the Regulation applies in general from " + (found.group(0) if found else g.label),
                        provisions=[g])
    status: Status = "applies" if any(by[t].status == "applies" for t, _, _ in wanted if t in by
                                      and by[t].status != "not_applicable") else "unclear"
    return Decision(topic="dates", title=dm["title"], scope=dm["scope"], status=status, decision="; ".join(parts),
                    provisions=provs)


def thresholds(fit: dict[str, Any] | None) -> dict[str, dict[str, float]]:
    th = {k: dict(v) for k, v in DEFAULT_THRESHOLDS.items()}
    for k, v in ((fit or {}).get("thresholds") or {}).items():
        th.setdefault(k, {}).update({kk: float(vv) for kk, vv in v.items()})
    return th


# --------------------------------------------------------------------------------------
# Entry point
# --------------------------------------------------------------------------------------

PLAIN_TOPICS: list[tuple[str, str]] = [
    ("classification", "classification rules, high-risk systems: {d}"),
    ("prohibited practices", "prohibited practices: {d}"),
    ("provider obligations", "obligations of providers: {d}"),
    ("deployer obligations", "obligations of deployers or users: {d}"),
    ("transparency", "transparency obligations, information to natural persons: {d}"),
    ("deadlines", "date of application, entry into force: {d}"),
]


def _clean(description: str) -> str:
    d = " ".join((description or "").split()).rstrip(".")
    if len(d.split()) < 3:
        raise QueryError("describe the system in a sentence, e.g. 'a tool that ranks job applicants' CVs for "
                         "recruiters'")
    if len(d) > 4000:
        raise QueryError(f"the description is {len(d):,} characters long; keep it under 4,000 (a paragraph)")
    return d


_EVIDENCE: dict[tuple[str, str, int], Evidence] = {}


def evidence_for(embedder: Embedder, corpus: str, fit: dict[str, Any] | None) -> Evidence:
    background = list((fit or {}).get("background") or [])
    if len(background) < 3:
        raise QueryError(f"the assess fit for {corpus!r} has no background descriptions; "
                         "run python -m eval.assess_bench --write")
    key = (embedder.model_id, corpus, len(background))
    if key not in _EVIDENCE:
        _EVIDENCE[key] = Evidence(embedder, background)
    return _EVIDENCE[key]


def assess(description: str, *, store: Store, embedder: Embedder | None, corpus: str, k: int = 4,
           role: str | None = None) -> Assessment:
    """Decide applicability per topic for ``description`` over ``corpus``.

    Args:
        description: the system, in a sentence or a paragraph.
        store: the store holding ``corpus``.
        embedder: the corpus's embedder (the thresholds were fitted for MiniLM; another model is said).
        corpus: a stored corpus; with a topic map the topics are decided, else asked as plain questions.
        k: plain questions only: provisions per topic.
        role: ``provider``, ``deployer`` or ``both`` when the reviewer knows it (else read from the description).
    """
    d = _clean(description)
    if role is not None and role not in ROLES:
        raise QueryError(f"role must be one of {', '.join(ROLES)}. Currently, the role is {role!r}")
    m = amap.load(corpus)
    if m is None:
        return _plain(d, store=store, embedder=embedder, corpus=corpus, k=k)
    if embedder is None:
        raise QueryError("assess decides from embeddings: configure an embedder (ANCHOR_EMBEDDER=minilm)")
    ids = needed_units(m)
    units = store.get_units(corpus, ids)
    missing = [u for u in ids if u not in units]
    if missing:
        raise QueryError(f"corpus {corpus!r} lacks {', '.join(missing)}, which the {m['act']} topic map needs; "
                         f"re-ingest it with its adapter (anchor ingest {corpus})")
    fit = amap.load_fit(corpus)
    notes = []
    if fit is None:
        notes.append("no fitted thresholds for this corpus: default thresholds, decisions not calibrated")
    elif fit.get("model") and fit["model"] != embedder.model_id:
        notes.append(f"the thresholds were fitted with {fit['model']}; with {embedder.model_id} the decisions are "
                     "not calibrated")
    elif fit.get("test"):
        notes.append(measured(fit["test"], fit.get("test_baseline")))
    try:
        cs = candidates(m, units)
    except KeyError as err:
        raise QueryError(f"corpus {corpus!r} does not have the structure the {m['act']} topic map expects "
                         f"({err.args[0]}); re-ingest it with its adapter (anchor ingest {corpus})") from err
    ev = evidence_for(embedder, corpus, fit or {"background": []})
    s = score_all(ev, cs, d)
    return Assessment(description=d, corpus=corpus, decisions=decide(m, cs, s, thresholds(fit), role, d),
                      notes=notes, model=embedder.model_id)


def measured(test: dict[str, dict[str, int]], baseline: dict[str, dict[str, int]] | None = None) -> str:
    """How often each topic was right on the held-out descriptions, as the fit file records it, beside
    how often "not applicable" everywhere (role "not stated") was."""
    names = {"prohibited": "prohibited", "high_risk": "high-risk", "roles": "role", "transparency": "transparency"}
    parts = []
    for key, name in names.items():
        t = test.get(key)
        if t:
            n = sum(t.values())
            b = (baseline or {}).get(key)
            parts.append(f"{name} {t['correct']}/{n}" + (f" ({t['unclear']} unclear)" if t.get("unclear") else "")
                         + (f" [answering 'none': {b['correct']}/{n}]" if b else ""))
    n = sum(next(iter(test.values())).values()) if test else 0
    return (f"measured on {n} held-out descriptions (correct per topic): " + ", ".join(parts)
            + "; a decision is evidence for a reviewer, not a legal conclusion")


def _plain(d: str, *, store: Store, embedder: Embedder | None, corpus: str, k: int) -> Assessment:
    from anchor_core.ask.pipeline import AskSettings, ask
    from anchor_core.report import Report

    def provisions(r: Report) -> list[Provision]:
        out: list[Provision] = []
        labels = {s.n: s.label for s in r.sources}
        for c in sorted(r.claims, key=lambda c: -(c.anchor.score if c.anchor else 0)):
            a = c.anchor
            if a is None or any(p.unit_id == a.unit_id and p.start < a.end and a.start < p.end for p in out):
                continue  # atoms of one quoted sentence anchor to overlapping spans: list the provision once
            out.append(Provision(label=labels.get(a.source, a.unit_id), unit_id=a.unit_id, quote=a.quote,
                                 start=a.start, end=a.end, score=a.score, supported=c.supported))
        return sorted(out, key=lambda p: (p.unit_id, p.start))

    # The gate is off: a description is not a question. Every listed provision is still anchored and verified.
    settings = AskSettings(k=k, hops=1, gate=False)
    topics = []
    for name, template in PLAIN_TOPICS:
        q = template.format(d=d)
        r = ask(q, store=store, embedder=embedder, corpus=corpus, settings=settings)
        topics.append(Topic(topic=name, question=q, refused=r.refused, reason=r.reason, provisions=provisions(r)))
    note = (f"no topic map for corpus {corpus!r}: these are plain questions per topic, not applicability decisions "
            "(topic maps ship for: " + ", ".join(shipped_maps()) + ")")
    return Assessment(description=d, corpus=corpus, mapped=False, topics=topics, notes=[note])


def shipped_maps() -> list[str]:
    from importlib import resources

    return sorted(f.name.removeprefix("assess_").removesuffix(".json")
                  for f in (resources.files("anchor_core.ask") / "data").iterdir()
                  if f.name.startswith("assess_") and f.name.endswith(".json") and not f.name.endswith("_fit.json"))
