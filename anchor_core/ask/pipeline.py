"""``ask``: retrieve → hop → gate → (rewrite → retrieve again, once) → write → decompose → anchor → report.

Each stage is a function over typed records and emits a :class:`TraceEvent` (stage, decision,
scores, timing) through ``on_event`` as it finishes, so the CLI can print "what it did" and the
dashboard can show the run live. The result is a :class:`~anchor_core.report.Report`: an answer whose every claim
is anchored to an exact span of a stored unit (``unit.text[start:end] == quote``), or a refusal
with its reason.

Without an LLM everything runs offline: the gate's borderline cases go to the offline judge, the
extractive writer quotes the best source sentences, and claims are split by rules. With an LLM
(:mod:`anchor_core.ask.llm`) a small model judges borderline evidence, a large one writes, and
the decomposition is asked of the model; any LLM failure falls back to the offline path and the
trace says so.
"""

from __future__ import annotations

import hashlib
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from pydantic import BaseModel, Field, field_validator

from anchor_core import definitions, tables
from anchor_core.access import readable
from anchor_core.anchoring import VERBATIM_MIN_WORDS, InputError, decompose
from anchor_core.ask import answerable as answerable_mod
from anchor_core.ask import cited as cited_mod
from anchor_core.ask import dated as dated_mod
from anchor_core.ask import gate as gate_mod
from anchor_core.ask import scope as scope_mod
from anchor_core.ask.llm import ChatClient, LLMAuthError, LLMConfig, LLMError, make_client
from anchor_core.ask.question import VALUE_KINDS, QuestionAnalysis, analyse, answer_values
from anchor_core.ask.relevance import relevance
from anchor_core.ask.writers import Draft, DraftClaim, ExtractiveWriter, LLMWriter, llm_decompose, llm_judge
from anchor_core.check import Reader, check
from anchor_core.crossencoder import default_reader
from anchor_core.embeddings import Embedder, Progress
from anchor_core.errors import QueryError
from anchor_core.models import Chunk, CorpusInfo, Document, Hit, Unit
from anchor_core.pages import marks_in
from anchor_core.report import (
    REFUSAL_TEXT,
    CheckedClaim,
    ClaimAnchor,
    GateDecision,
    Relevance,
    Report,
    Source,
    TraceEvent,
)
from anchor_core.retrieve import RetrievalSettings, hit_of, retrieve
from anchor_core.scorers import DEFAULT_SCORER, SCORERS, Scorer, build_scorer
from anchor_core.scorers.text import stem
from anchor_core.stores.base import Store
from anchor_core.text import STOP_WORDS, count, words


class AskSettings(BaseModel):
    k: int = Field(5, ge=1, le=50)
    hops: int = Field(1, ge=0, le=3)
    include_recitals: bool = False
    groups: list[str] | None = None
    scorer: str = DEFAULT_SCORER
    """A name in :data:`anchor_core.scorers.SCORERS`; built without an embedder (as in the CLI and the bench)."""
    writer: str = Field("auto", pattern="^(auto|extractive|llm)$")
    """``auto``: the LLM writer when an LLM is configured, else the extractive writer."""
    gate: bool = True
    """``False`` answers from whatever was retrieved (the ablation's naive configuration)."""
    verify: bool = True
    """Let verification change the outcome: refuse when no claim of the draft is supported. Claims are
    anchored and marked either way; ``False`` is the ablation's configurations without verification."""
    rewrite: bool = True

    @field_validator("scorer")
    @classmethod
    def _known_scorer(cls, v: str) -> str:
        if v not in SCORERS:
            raise ValueError(f"scorer must be one of {', '.join(SCORERS)}. Currently, the scorer is {v!r}")
        return v

    def retrieval(self) -> RetrievalSettings:
        return RetrievalSettings(k=self.k, hops=self.hops, include_recitals=self.include_recitals, groups=self.groups)


@dataclass
class LLM:
    """A configured LLM: the client and the models for each job."""

    client: ChatClient
    writer_model: str
    judge_model: str

    @classmethod
    def from_config(cls, config: LLMConfig) -> LLM:
        return cls(make_client(config), config.writer_model, config.judge_model)


_FOREIGN = frozenset("""
der die das und ist nicht ein eine wie was wer welche sind für mit von auf les des est une pour qui que dans sont pas
el los las una por para con del como qué quién cuál son il lo della sono che per non het een van zijn niet
""".split())


def _language_problem(question: str) -> str | None:
    ws = words(question)
    if len(ws) < 4:
        return None
    english = sum(w in STOP_WORDS for w in ws)
    foreign = sum(w in _FOREIGN for w in ws)
    if foreign >= 2 and foreign > english:
        return ("the question does not look like English; the corpus, the scorer and the writer work in English, "
                "so ask it in English")
    return None


_SCORERS: dict[str, Scorer] = {}


def _scorer(name: str, llm: LLM | None) -> Scorer:
    """Scorers by name, built once per process (the learned scorer reads its coefficients file); one that
    needs the LLM is built for this run's LLM."""
    if SCORERS[name].needs:
        return build_scorer(name, llm=llm)
    if name not in _SCORERS:
        _SCORERS[name] = build_scorer(name)
    return _SCORERS[name]


class _Memo:
    """The run's embedder, remembering single texts: retrieval and the gate both need the question's
    vector, and a second forward pass is the slowest thing a warm ask would do."""

    def __init__(self, inner: Embedder) -> None:
        self.inner, self.model_id, self.dim = inner, inner.model_id, inner.dim
        self.seen: dict[str, np.ndarray] = {}

    def embed(self, texts: Sequence[str], *, progress: Progress | None = None) -> np.ndarray:
        if len(texts) != 1:
            return self.inner.embed(texts, progress=progress)
        v = self.seen.get(texts[0])
        if v is None:
            v = self.seen[texts[0]] = self.inner.embed(texts, progress=progress)[0]
        return v[None, :]


class _Run:
    def __init__(self, on_event: Callable[[TraceEvent], None] | None) -> None:
        self.events: list[TraceEvent] = []
        self.on_event = on_event
        self.notes: list[str] = []
        self.scope = ""
        """What the search was narrowed to, when the question names one document of several."""
        self.documents: list[str] | None = None
        """The documents searched, when narrowed (:func:`_scoped`); the corpus statistics (term weights) stay the
        corpus's."""

    def emit(self, stage: str, message: str, *, t0: float, decision: str = "", **data) -> None:
        e = TraceEvent(stage=stage, message=message, decision=decision, data=data,
                       ms=round((time.perf_counter() - t0) * 1000, 1))
        self.events.append(e)
        if self.on_event is not None:
            self.on_event(e)


def unit_label(unit: Unit | None, unit_id: str, part: str | None) -> str:
    """``Article 6(2)``, ``Annex III(4)``; a bare clause number (uploaded documents) reads ``§6.2``."""
    head = unit.heading if unit is not None else unit_id
    if re.fullmatch(r"\d+(\.\d+)*", head):
        if part and part.startswith(head + "."):
            return f"§{part}"
        head = f"§{head}"
    return f"{head}({part})" if part else head


def _sources(hits: list[Hit], units: dict[str, Unit], relevance: dict[str, float]) -> list[Source]:
    labels = {(h.unit_id, h.part): unit_label(units.get(h.unit_id), h.unit_id, h.part) for h in hits}
    # when the sources come from several documents, a label that does not say which ("§3" of two uploaded
    # contracts: a bare clause number, or a label two of them share) is prefixed with its document
    if len({h.doc_id for h in hits}) > 1:
        docs_of: dict[str, set[str]] = {}
        for h in hits:
            docs_of.setdefault(labels[(h.unit_id, h.part)], set()).add(h.doc_id)
        for h in hits:
            label = labels[(h.unit_id, h.part)]
            if h.document and (label.startswith("§") or len(docs_of[label]) > 1):
                labels[(h.unit_id, h.part)] = f"{h.document} {label}"
    out = []
    for n, h in enumerate(hits, start=1):
        # Retrieval shows a followed hit only with the hit it was followed from, so the label is always
        # one of these sources; a unit that is not shown is never named.
        followed = labels.get((h.via[0].unit_id, h.via[0].part)) if h.via else None
        u = units.get(h.unit_id)
        out.append(Source(n=n, chunk_id=h.chunk_id, unit_id=h.unit_id, part=h.part, label=labels[(h.unit_id, h.part)],
                          heading=h.heading, doc_id=h.doc_id, document=h.document, page=h.page, start=h.start,
                          end=h.end, text=h.text, score=round(relevance.get(h.chunk_id, 0.0), 4), direct=not h.via,
                          path=h.path if h.via else "", followed_from=followed, named=h.named,
                          reference=(h.via[0].through or h.via[0].raw) if h.via else "",
                          unit_sha256=hashlib.sha256(u.text.encode()).hexdigest() if u else "",
                          pages=marks_in(u, h.start, h.end) if u else []))
    return out


def _relevance(question: str, hits: list[Hit], *, store: Store, info: CorpusInfo,
               embedder: Embedder | None) -> tuple[dict[str, float], np.ndarray | None, np.ndarray | None]:
    if embedder is None or not hits or info.embedder != embedder.model_id:
        return {}, None, None
    qvec = embedder.embed([question])[0]
    vecs = store.chunk_vectors(info.name, [h.chunk_id for h in hits])
    sims = vecs @ qvec
    return {h.chunk_id: float(s) for h, s in zip(hits, sims)}, qvec, vecs


def _retrieve(question: str, run: _Run, *, store, embedder, info: CorpusInfo, settings: AskSettings,
              label: str = ""):
    corpus = info.name
    t = time.perf_counter()
    mode = "hybrid" if embedder is not None else "bm25"
    rs = settings.retrieval().model_copy(update={"mode": mode})
    result = retrieve(question, store=store, embedder=embedder, corpus=corpus, settings=rs)
    if run.documents is not None:
        # the named document's hits keep their ranks and the other documents' leave; only when none of its
        # passages is among them is the search run again inside it (and the documents linked to it)
        scope = set(run.documents)
        shown = {h.unit_id for h in result.hits if h.doc_id in scope and not h.via}
        # a followed passage stays with the passage it was followed from
        kept = [h for h in result.hits if h.doc_id in scope and (not h.via or h.via[0].unit_id in shown)]
        if not shown:
            result = retrieve(question, store=store, embedder=embedder, corpus=corpus,
                              settings=rs.model_copy(update={"documents": run.documents}))
        else:
            result = result.model_copy(update={"hits": kept})
    direct = [h for h in result.hits if not h.via]
    followed = [h for h in result.hits if h.via]
    units = store.get_units(corpus, sorted({h.unit_id for h in result.hits} |
                                           {v.unit_id for h in result.hits for v in h.via}))
    rel, qvec, vecs = _relevance(question, result.hits, store=store, info=info, embedder=embedder)
    best = max(rel.values(), default=0.0)
    # a reference as written ('Annex III'), or a term the question asks about (definition of ‘deployer’)
    named = [f"{h.label} ({h.named})" if h.named.startswith(definitions.FETCHED) else f"{h.label} ('{h.named}')"
             for h in direct if h.named]
    run.emit("retrieve", f"{label}retrieved {len(direct)} chunks ({mode}), best score {best:.2f}"
             + (f"; named in the question: {', '.join(named)}" if named else "")
             + "".join(f"; {n}" for n in result.notes), t0=t,
             hits=[h.label for h in direct], timings_ms=result.timings_ms)
    if settings.hops:
        t = time.perf_counter()
        if followed:
            into = ", ".join(unit_label(units.get(h.unit_id), h.unit_id, h.part) for h in followed)
            run.emit("hop", f"followed citations into {into}", t0=t, paths=[h.path for h in followed],
                     why=[h.why for h in followed])
        else:
            run.emit("hop", "no citations to follow from the retrieved chunks", t0=t)
    return result.hits, units, rel, qvec, vecs


def _visible_documents(store: Store, corpus: str, groups: list[str] | None) -> list[Document]:
    """The corpus's documents the viewer may read (``groups`` as :class:`AskSettings` holds them: ``None`` is
    unrestricted, else public documents and those sharing a group)."""
    return [d for d in store.documents(corpus) if readable(d, groups)]


def _scope(question: str, run: _Run, *, store: Store, info: CorpusInfo, groups: list[str] | None) -> None:
    """Narrow the search (``run.documents``) to the document the question names and the documents linked to it by
    a reference, when the corpus holds several and the question names one (:mod:`anchor_core.ask.scope`). Only
    documents the viewer may read are named, counted or searched."""
    t = time.perf_counter()
    visible = _visible_documents(store, info.name, groups)
    filters = RetrievalSettings(groups=groups).filters
    found, _ = scope_mod.asked_document(question, visible,
                                        lambda w, d: scope_mod.passage_share(store, info.name, w, d, filters))
    if found is None:
        return
    readable = {d.doc_id for d in visible}
    linked = [d for d in scope_mod.linked_documents(store, info.name, found.doc_id) if d in readable]
    run.emit("retrieve", f"the question names {found.title} ({found.why}): searched it"
             + (f" and the {len(linked)} document{'s' if len(linked) != 1 else ''} linked to it by a reference"
                if linked else " only"), t0=t, documents=[found.doc_id, *linked])
    run.scope = f"searched only {found.title}" + (" and the documents it cites or that cite it" if linked else "")
    run.notes.append(f"{run.scope}: the question {found.why}")
    run.documents = [found.doc_id, *linked]


def _gate(question: str, hits, units, qvec, vecs, run: _Run, *, store, info: CorpusInfo, settings: AskSettings,
          weights: dict[str, float], llm: LLM | None, analysis: QuestionAnalysis, label: str = "",
          embedder: Embedder | None = None) -> GateDecision:
    t = time.perf_counter()
    sig = gate_mod.signals(question, hits, store=store, corpus=info.name, filters=settings.retrieval().filters,
                           qvec=qvec, hit_vectors=vecs, total=info.chunks,
                           weights={w: weights[w] for w in gate_mod.content_terms(question)})
    profile = gate_mod.gate_profile(info.adapter)
    dense = float(max(vecs @ qvec)) if qvec is not None and vecs is not None and len(vecs) else 0.0
    found = answerable_mod.assess(question, hits, weights=weights, dense=dense, analysis=analysis,
                                  answers=answerable_mod.answer_scores(question, hits), embedder=embedder,
                                  units={uid: u.text for uid, u in units.items()})
    d = gate_mod.decide(sig, hits=hits, model=profile, answerability=found)
    if d.verdict == "borderline" and llm is None and "tied" in d.signals:
        d.verdict = "weak"  # the answerability threshold was fitted offline; no offline rule overrides it
    elif d.verdict == "borderline":
        if llm is not None:
            try:
                ok, why = llm_judge(llm.client, llm.judge_model, question, _sources(hits, units, {}))
                d.judge = llm.judge_model
            except LLMError as e:
                run.notes.append(f"LLM judge unavailable ({e}); the offline judge decided")
                ok, why = gate_mod.offline_judge(sig, profile)
                d.judge = "offline"
        else:
            ok, why = gate_mod.offline_judge(sig, profile)
            d.judge = "offline"
        d.verdict = "pass" if ok else "weak"
        d.reason = f"borderline ({d.score:.2f}); {d.judge} judge: {why}"
        if not ok:
            d.code = "term_missing" if sig.missing and "tied" not in d.signals else "not_answered"
    run.emit("gate", label + _gate_message(d), t0=t, decision=d.verdict, score=round(d.score, 3), signals=d.signals)
    return d


# a question that names an act's recitals or its preamble asks what they say
_NAMES_RECITALS = re.compile(r"\b(?:recitals?|preamble)\b", re.I)


def _has_recitals(store, info: CorpusInfo) -> bool:
    """Whether the corpus holds recitals (units of kind ``recital``), which retrieval leaves out by default.
    Read on refusals only (about 10 ms for the 13,000 unit ids of the ADGM rulebooks)."""
    # an adapter's "recital-12", an uploaded act's "eu-ai-act/recital-12"
    ids = [u for u in store.unit_ids(info.name) if u.rsplit("/", 1)[-1].startswith("recital")]
    return bool(ids) and any(u.kind == "recital" for u in store.get_units(info.name, ids[:1]).values())


def _gate_weights(store, info: CorpusInfo, question: str, analysis: QuestionAnalysis, filters,
                  weights: dict[str, float] | None = None) -> dict[str, float]:
    """IDF of the question's content terms (``weights``, when the caller has them already) and of the focus words
    that content_terms keeps out ("long", "days"): what the answerability test weighs."""
    total = max(info.chunks, 1)
    if weights is None:
        weights = gate_mod.term_weights(store, info.name, gate_mod.content_terms(question), filters, total)
    extra = [p for p in analysis.parts if p not in weights]
    return {**weights, **gate_mod.term_weights(store, info.name, extra, filters, total)}


def _recital_hint(question: str, run: _Run, *, store, embedder, info: CorpusInfo, settings: AskSettings,
                  llm: LLM | None, analysis: QuestionAnalysis) -> str:
    """When a refusal was decided without the recitals, whether the same retrieval and answerability test pass
    with recitals included, and on which recitals. A refusal stays a refusal (recitals explain an act and are
    not binding), but its reason says where to look ("" when the test fails with them too). On the AI Act and
    GDPR fresh sets the hint named a recital for 5 of 21 refused answerable questions and 6 of 103 refused
    unanswerable ones (the gate's own errors), so it points, it does not answer."""
    if settings.include_recitals or not settings.gate or not _has_recitals(store, info):
        return ""
    s2 = settings.model_copy(update={"include_recitals": True})
    hits, units, _, qvec, vecs = _retrieve(question, run, store=store, embedder=embedder, info=info, settings=s2,
                                           label="recitals included: ")
    recitals = [h for h in hits if h.kind == "recital"]
    if not recitals:
        return ""
    weights = _gate_weights(store, info, question, analysis, s2.retrieval().filters)
    d = _gate(question, hits, units, qvec, vecs, run, store=store, info=info, settings=s2, weights=weights, llm=llm,
              analysis=analysis, label="recitals included: ", embedder=embedder)
    if d.verdict != "pass":
        return ""
    named = ", ".join(dict.fromkeys(unit_label(units.get(h.unit_id), h.unit_id, None) for h in recitals[:3]))
    return (f"recitals were left out of this search; with them, {named} passes the same test (recitals explain the "
            "act and are not binding): ask again with recitals included (--recitals, or Recitals in the sidebar) "
            "to read it")


def _gate_message(d: GateDecision) -> str:
    if d.verdict == "pass" and not d.judge:
        return f"passed on evidence alone ({d.score:.2f}): {d.reason}"
    if d.verdict == "pass":
        return f"passed: {d.reason}"
    if d.verdict == "refuse":
        return f"refused: {d.reason}"
    return f"weak: {d.reason}"


def rewrite_query(question: str) -> str:
    """The offline rewrite: the question's content terms, names first (drops the phrasing that
    dilutes BM25 and the embedding)."""
    terms = gate_mod.content_terms(question)
    names = [t for t in terms if t in gate_mod.names(question)]
    return " ".join(dict.fromkeys([*names, *terms])) or question


def _refusal(question, corpus, info_version, run: _Run, code: str, reason: str, *, sources, gate, models,
             settings, t_all, threshold: float, claims: list[CheckedClaim] | None = None) -> Report:
    t = time.perf_counter()
    run.emit("report", f"refused: {reason}", t0=t, decision="refuse", code=code)
    return Report(kind="ask", question=question, corpus=corpus, corpus_version=info_version, refused=True,
                  reason=reason or REFUSAL_TEXT.get(code, ""), reason_code=code, sources=sources, gate=gate,
                  claims=claims or [],
                  trace=run.events, models=models, threshold=threshold, settings=settings.model_dump(),
                  notes=run.notes, timings_ms={"total": round((time.perf_counter() - t_all) * 1000, 1)})


def ask(question: str, *, store: Store, embedder: Embedder | None, corpus: str,
        settings: AskSettings | None = None, llm: LLM | None = None, scorer: Scorer | None = None,
        on_event: Callable[[TraceEvent], None] | None = None) -> Report:
    """Answer ``question`` from ``corpus`` with every claim anchored, or refuse with a reason."""
    s = settings or AskSettings()
    t_all = time.perf_counter()
    run = _Run(on_event)
    if not isinstance(question, str) or not question.strip():
        raise QueryError("the question is empty; type what you want to know")
    question = " ".join(question.split())
    info = store.corpus(corpus)  # CorpusNotFound names the corpora that exist
    scorer = scorer or _scorer(s.scorer, llm)
    embedder = _Memo(embedder) if embedder is not None else None
    models = {"embedder": embedder.model_id if embedder else "none (BM25 only)", "scorer": scorer.name,
              "judge": llm.judge_model if llm else "offline", "writer": "", "decomposer": ""}

    problem = _language_problem(question)
    if problem:
        return _refusal(question, corpus, info.version, run, "bad_question", problem, sources=[], gate=None,
                        models=models, settings=s, t_all=t_all, threshold=scorer.threshold)

    if not s.include_recitals and _NAMES_RECITALS.search(question) and _has_recitals(store, info):
        # "According to the GDPR recitals, ...", "the AI Act's preamble says ...": the asker wants the recitals read
        s = s.model_copy(update={"include_recitals": True})
        run.notes.append("the question names the recitals (the preamble), so they were searched too")
        run.emit("retrieve", "the question names the recitals (the preamble): recitals included in the search",
                 t0=time.perf_counter())
    _scope(question, run, store=store, info=info, groups=s.groups)
    hits, units, rel, qvec, vecs = _retrieve(question, run, store=store, embedder=embedder, info=info, settings=s)
    # IDF of the question's terms in this corpus (0 = never mentioned): the gate and the writer both weigh by it
    weights = gate_mod.term_weights(store, corpus, gate_mod.content_terms(question), s.retrieval().filters,
                                    max(info.chunks, 1))
    qa = analyse(question)  # the asked kind and focus: the answerability test and the relevance check share it
    gate_weights = _gate_weights(store, info, question, qa, s.retrieval().filters, weights)
    decision: GateDecision | None = None
    header = _dated_header(question, qa, hits, run, store=store, info=info, settings=s)
    if header is None:
        cited = _cited_date(question, qa, hits, run, store=store, info=info, settings=s)
        if isinstance(cited, GateDecision):  # the reference list cites the asked work only as a draft
            return _refusal(question, corpus, info.version, run, cited.code or "not_answered", cited.reason,
                            sources=_sources(hits, units, rel), gate=cited, models=models, settings=s, t_all=t_all,
                            threshold=scorer.threshold)
        header = cited
    if header is not None:
        # the document's own header dates it: quoted whole, it is the answer (the body never says "published")
        hits, units, decision, draft = header
        if qvec is not None and hits[0].chunk_id not in rel:  # the header's chunk, scored as retrieval scores hits
            rel = {**rel, hits[0].chunk_id: float(store.chunk_vectors(corpus, [hits[0].chunk_id])[0] @ qvec)}
        return _finish(question, corpus, info, hits, units, rel, decision, draft, run, s=s, scorer=scorer,
                       models=models, gate_weights=gate_weights, embedder=embedder, qa=qa, t_all=t_all)
    if s.gate:
        decision = _gate(question, hits, units, qvec, vecs, run, store=store, info=info, settings=s,
                         weights=gate_weights, llm=llm, analysis=qa, embedder=embedder)
        if decision.verdict == "weak" and s.rewrite and decision.code != "term_missing":
            t = time.perf_counter()
            q2 = rewrite_query(question)
            run.emit("rewrite", f"evidence weak: retrying with '{q2}'", t0=t, decision="rewrite", query=q2)
            hits2, units2, rel2, qvec2, vecs2 = _retrieve(q2, run, store=store, embedder=embedder, info=info,
                                                          settings=s, label="second try: ")
            d2 = _gate(question, hits2, units2, qvec2, vecs2, run, store=store, info=info, settings=s,
                       weights=gate_weights, llm=llm, analysis=qa, embedder=embedder)
            if d2.verdict == "pass" or d2.score > decision.score:
                hits, units, rel, decision = hits2, units2, rel2, d2
        if decision.verdict in ("weak", "refuse"):
            sources = _sources(hits, units, rel)
            code = decision.code or "not_answered"
            reason = decision.reason
            hint = _recital_hint(question, run, store=store, embedder=embedder, info=info, settings=s, llm=llm,
                                 analysis=qa)
            if hint:
                run.notes.append(hint)
                reason = f"{reason}; {hint}" if reason else hint
            if run.scope:
                reason = f"{reason} ({run.scope})" if reason else run.scope
            return _refusal(question, corpus, info.version, run, code, reason, sources=sources,
                            gate=decision, models=models, settings=s, t_all=t_all, threshold=scorer.threshold)

    sources = _sources(hits, units, rel)
    if not sources:
        return _refusal(question, corpus, info.version, run, "no_evidence", REFUSAL_TEXT["no_evidence"], sources=[],
                        gate=decision, models=models, settings=s, t_all=t_all, threshold=scorer.threshold)

    draft = _write(question, sources, run, settings=s, llm=llm, weights=weights, embedder=embedder, units=units,
                   cited=cited_titles(store, corpus, units, [x.unit_id for x in sources]))
    if draft.refused:
        models["writer"] = draft.writer
        return _refusal(question, corpus, info.version, run, "writer_refused",
                        f"the writer refused after reading the sources: {draft.reason}", sources=sources,
                        gate=decision, models=models, settings=s, t_all=t_all, threshold=scorer.threshold)
    return _finish(question, corpus, info, hits, units, rel, decision, draft, run, s=s, scorer=scorer, llm=llm,
                   models=models, gate_weights=gate_weights, embedder=embedder, qa=qa, t_all=t_all)


def _finish(question: str, corpus: str, info: CorpusInfo, hits: list[Hit], units: dict[str, Unit],
            rel: dict[str, float], decision: GateDecision | None, draft: Draft, run: _Run, *, s: AskSettings,
            scorer: Scorer, models: dict[str, str], gate_weights: dict[str, float], embedder: Embedder | None,
            qa: QuestionAnalysis, t_all: float, llm: LLM | None = None) -> Report:
    """Decompose, anchor and check a written draft, then report it (or refuse when no claim holds)."""
    sources = _sources(hits, units, rel)
    models["writer"] = draft.writer
    claims, models["decomposer"] = _decompose(draft, run, llm=llm)
    # An extractive writer's claims are its quotes: only a writer's own words are worth the contradiction reader.
    reader = default_reader() if draft.writer.startswith("llm") else None
    if reader is not None:
        models["reader"] = reader.name
    checked = _anchor(claims, sources, units, run, scorer=scorer, reader=reader)
    if s.verify and checked and not any(c.supported for c in checked):
        # The failed claims stay in the refusal, so a reviewer sees which ones the sources contradict.
        verdicts = ", ".join(f"{n} {v.replace('_', ' ')}" for v in ("contradicted", "not_found")
                             if (n := sum(c.verdict == v for c in checked)))
        return _refusal(question, corpus, info.version, run, "all_unsupported",
                        f"{REFUSAL_TEXT['all_unsupported']} ({len(checked)} checked: {verdicts})", sources=sources,
                        gate=decision, models=models, settings=s, t_all=t_all, threshold=scorer.threshold,
                        claims=checked)
    t = time.perf_counter()
    bad = sum(not c.supported for c in checked)
    run.emit("report", f"checked {count(len(checked), 'statement')}, {bad} not supported", t0=t,
             decision="answer" if not bad else "answer_with_flags")
    signals = decision.signals if decision is not None else {}
    header = signals.get("header")
    if signals.get("cited") and signals.get("by") == "name":
        # the question names the cited work ("RFC 3218", "SEC 1") and asks when it was published (anchor_core.ask.
        # cited): the located entry's date answers it, as a header's date cell does
        addresses = _located_relevance(checked, question, dated=True, focus=f"the publication of {signals['cited']}",
                                       held="the entry's date", method="reference list")
    elif header:
        # the question asks when this document was published, or who wrote it, and nothing else
        # (anchor_core.ask.dated): a supported quote of the header's date cell, or of an author cell, answers it
        dated = signals.get("asks") == "date"
        addresses = _located_relevance(checked, question, dated=dated,
                                       focus=f"the {'publication' if dated else 'authors'} of {header}",
                                       held=f"the header's {'date' if dated else 'authors'}", method="document header")
    else:
        addresses = relevance(question, read_in_place(claims, [c.text for c in checked]), weights=gate_weights,
                              embedder=embedder, analysis=qa)
        addresses.claims = lead_ins_carry(claims, addresses.claims)
        addresses = asked_unit_quoted(addresses, qa, hits, units, checked)
    return Report(kind="ask", question=question, corpus=corpus, corpus_version=info.version, refused=False,
                  answer=draft.answer, claims=checked, relevance=addresses, sources=sources, gate=decision,
                  trace=run.events, models=models, threshold=scorer.threshold, settings=s.model_dump(), notes=run.notes,
                  timings_ms={"total": round((time.perf_counter() - t_all) * 1000, 1)})


def _dated_header(question: str, qa: QuestionAnalysis, hits: list[Hit], run: _Run, *, store: Store,
                  info: CorpusInfo, settings: AskSettings
                  ) -> tuple[list[Hit], dict[str, Unit], GateDecision, Draft] | None:
    """When the question asks when a document of the corpus was published, or who wrote it, and its header says
    (:mod:`anchor_core.ask.dated`): the hits with the header's chunk first, the units, a passing gate decision
    that says why, and a draft quoting the header's cells. ``None`` otherwise (the trace says why when the
    question did ask about a publication or the authors)."""
    if not dated_mod.asks_header(question, qa):
        return None
    t = time.perf_counter()
    named = {h.unit_id: h.named for h in hits if h.named and not h.via}
    found, why = dated_mod.find(question, qa, _visible_documents(store, info.name, settings.groups), named)
    unit = store.get_units(info.name, [found.unit_id]).get(found.unit_id) if found else None
    chunks = store.unit_chunks(info.name, found.unit_id, settings.retrieval().filters) if found else []
    first = next((c for c in chunks if c.start <= found.quotes[0][0] < c.end), None) if found else None
    if found is None or unit is None or first is None or any(not unit.text[a:b].strip() for a, b in found.quotes):
        run.emit("gate", f"not answered from a document header: {why or 'its header is not stored'}", t0=t)
        return None
    label = unit_label(unit, unit.unit_id, None)
    top = hit_of(first, 1.0, heading=unit.heading).model_copy(update={"document": found.title})
    kept, units = _put_first(top, hits, store, info)
    what = "when it was published" if found.asks == "date" else "who wrote it"
    reason = (f"asks {what}, of {label} (the question {found.why}); its header "
              + (f"gives the date, {found.value}" if found.asks == "date" else f"names its authors, {found.value}"))
    decision = GateDecision(verdict="pass", score=1.0, reason=reason, signals={"header": label, "asks": found.asks})
    run.emit("gate", f"passed: {reason}", t0=t, decision="pass", score=1.0, signals=decision.signals)
    # the cells that answer, each a claim: a header's other cells (another RFC's "Request for Comments: 8174", a
    # title that a body sentence restates) would be checked against every source and may read as contradicted
    claims = [DraftClaim(text=unit.text[a:b], cited=[1], unit_id=unit.unit_id, start=a, end=b) for a, b in found.quotes]
    answer = "\n".join((f"{label} ({found.title}), header: " if i == 0 else "  ") + f"“{c.text}” [1]"
                        for i, c in enumerate(claims))
    draft = Draft(answer=answer, claims=claims, writer="extractive")
    run.emit("write", f"quoted the header of {label}", t0=t, decision="write")
    return kept, units, decision, draft


def _located_relevance(checked: list[CheckedClaim], question: str, *, dated: bool, focus: str, held: str,
                       method: str) -> Relevance:
    """Relevance of an answer located by the source's structure (a header's cells, a reference entry): each
    supported claim addresses the question, a date question's only when it holds a date."""
    marks = [c.supported and (not dated or bool(answer_values(c.text, "date", question))) for c in checked]
    return Relevance(addressed=any(marks), kind="date" if dated else "person_or_body", focus=focus, claims=marks,
                     reason="" if any(marks) else f"no supported claim holds {held}", method=method)


def _put_first(top: Hit, hits: list[Hit], store: Store, info: CorpusInfo,
               then: Sequence[Hit] = ()) -> tuple[list[Hit], dict[str, Unit]]:
    """``top`` (a chunk a located answer quotes) first, then ``then`` (other chunks it quotes), then the retrieved
    hits, as many as were retrieved; and the units they and their reference paths need."""
    first = [top, *then]
    ids = {h.chunk_id for h in first}
    kept = [*first, *(h for h in hits if h.chunk_id not in ids)][:max(len(hits), len(first))]
    needed = {h.unit_id for h in kept} | {v.unit_id for h in kept for v in h.via}
    return kept, store.get_units(info.name, sorted(needed))


def _cited_date(question: str, qa: QuestionAnalysis, hits: list[Hit], run: _Run, *, store: Store,
                info: CorpusInfo, settings: AskSettings
                ) -> tuple[list[Hit], dict[str, Unit], GateDecision, Draft] | GateDecision | None:
    """When the question asks when a work that a document of the corpus cites was published, and a reference list
    dates it (:mod:`anchor_core.ask.cited`): as :func:`_dated_header`, with the entry quoted whole. A refusal
    decision when the entry cites the work only as a draft; ``None`` otherwise (the trace says why)."""
    if not cited_mod.asks_cited_date(question, qa):
        return None
    t = time.perf_counter()
    documents = _visible_documents(store, info.name, settings.groups)
    fronts = {str(d.meta["front"]["label"]): str(d.meta["front"].get("unit") or "") for d in documents
              if isinstance(d.meta.get("front"), dict) and d.meta["front"].get("label")}
    # the documents the question names cite; their reference lists are read, else those of the retrieved units
    citing = [label for label in fronts if dated_mod.writes_designation(question, label)]
    names = {a.lower() for d in documents for a in re.findall(r"\(([A-Z][A-Za-z0-9]{1,10})\)", d.title)}
    unit_ids = [fronts[label] for label in citing if fronts[label]] or list(dict.fromkeys(h.unit_id for h in hits))
    read = store.get_units(info.name, unit_ids)
    docs = {read[u].doc_id for u in unit_ids if u in read}
    titles = [d.title for d in documents if d.doc_id in docs]
    found, why = cited_mod.find(question, {u: read[u].text for u in unit_ids if u in read}, citing, names, titles)
    if found is None:
        run.emit("gate", f"not answered from a reference list: {why}", t0=t)
        return None
    entry = found.entry
    unit = read[entry.unit_id]
    label = unit_label(unit, unit.unit_id, None)
    if entry.draft and not re.search(r"\bdraft\b", dated_mod.asking_clause(question), re.I):
        reason = (f"the question asks when “{entry.title}” was published; the references of {label} cite it only as "
                  f"a draft ({entry.draft}, {entry.date}), and the sources give no publication date for it")
        run.emit("gate", f"refused: {reason}", t0=t, decision="refuse", score=0.0)
        return GateDecision(verdict="refuse", score=0.0, code="not_answered", reason=reason,
                            signals={"cited": entry.label, "draft": entry.draft})
    chunks = store.unit_chunks(info.name, entry.unit_id, settings.retrieval().filters)
    over = sorted((c for c in chunks if c.start < entry.end and entry.start < c.end), key=lambda c: c.start)
    if not over or over[0].start > entry.start or max(c.end for c in over) < entry.end:
        run.emit("gate", f"not answered from a reference list: the chunk of {entry.label}'s entry is not stored", t0=t)
        return None
    top = _spanning(over, unit)
    shown = [top]
    if found.citing is not None:
        # the body sentence the question describes is shown and quoted first: it is why this entry was chosen
        x, y = found.citing
        around = sorted((c for c in chunks if c.start < y and x < c.end), key=lambda c: c.start)
        if not around or around[0].start > x or max(c.end for c in around) < y:
            run.emit("gate", f"not answered from a reference list: the chunk citing {entry.label} is not stored", t0=t)
            return None
        if not (top.start <= x and y <= top.end):
            if {c.chunk_id for c in around} & {c.chunk_id for c in over}:
                run.emit("gate", f"not answered from a reference list: the sentence citing {entry.label} runs into "
                         "its entry", t0=t)
                return None
            shown.append(_spanning(around, unit))
    kept, units = _put_first(shown[0], hits, store, info, then=shown[1:])
    reason = (f"asks when {entry.label} (“{entry.title}”) was published (the question {found.why}); the references "
              f"of {label} date it {entry.date}")
    decision = GateDecision(verdict="pass", score=1.0, reason=reason,
                            signals={"cited": entry.label, "unit": label, "by": found.by})
    run.emit("gate", f"passed: {reason}", t0=t, decision="pass", score=1.0, signals=decision.signals)
    claim = DraftClaim(text=unit.text[entry.start:entry.end], cited=[1], unit_id=unit.unit_id, start=entry.start,
                       end=entry.end, located=True)
    answer = f"{label}, references: “{claim.text}” [1]"
    claims = [claim]
    if found.citing is not None:
        x, y = found.citing
        n = 1 if len(shown) == 1 else 2
        cites = DraftClaim(text=unit.text[x:y], cited=[n], unit_id=unit.unit_id, start=x, end=y, located=True)
        claims = [cites, claim]
        answer = f"{label} cites it: “{cites.text}” [{n}]\n\n{answer}"
    draft = Draft(answer=answer, claims=claims, writer="extractive")
    run.emit("write", f"quoted the entry for {entry.label} in the references of {label}"
             + (" and the sentence that cites it" if found.citing is not None else ""), t0=t, decision="write")
    return kept, units, decision, draft


def _spanning(chunks: list[Chunk], unit: Unit) -> Hit:
    """One hit on the unit text that ``chunks`` (in order, contiguous) cover: an entry or a sentence that runs over
    a chunk boundary is shown whole."""
    a, b = chunks[0].start, max(c.end for c in chunks)
    return hit_of(chunks[0], 1.0, heading=unit.heading).model_copy(update={"start": a, "end": b,
                                                                            "text": unit.text[a:b]})


def cited_titles(store: Store, corpus: str, units: dict[str, Unit],
                 unit_ids: Sequence[str]) -> dict[str, list[tuple[int, int, str]]]:
    """For each of ``units`` named in ``unit_ids`` (the sources' units), the spans of the containers its
    text cites (offsets in the unit text) with the container's title: "Chapters I and II shall apply from
    2 February 2025" cites "Chapter II — Prohibited AI practices". The extractive writer reads a sentence
    with them, as the index reads a chunk (:func:`anchor_core.indexing.name_cited_containers`). A
    container the unit sits in is left out (its title is the unit's own topic). Cited units' and parts'
    titles are not added: on the answer bench they gained nothing and cost a PEP answer
    (eval/results/answers.md)."""
    units = {k: units[k] for k in dict.fromkeys(unit_ids) if k in units}
    if not units:
        return {}
    own = {uid: {c.id for c in u.containers} for uid, u in units.items()}
    refs = [r for r in store.references_from(corpus, sorted(units)) if r.resolved and r.container and
            not r.in_title and r.dst_unit and r.container not in own.get(r.src_unit, set())]
    member: dict[str, str] = {}
    for r in refs:  # one member unit per container carries its title
        member.setdefault(r.container or "", r.dst_unit or "")
    members = store.get_units(corpus, sorted(set(member.values())))
    titles = {cid: next((c.display for c in u.containers if c.id == cid and c.title), "")
              for cid, uid in member.items() if (u := members.get(uid)) is not None}
    out: dict[str, list[tuple[int, int, str]]] = {}
    for r in refs:
        span = (r.start, r.end, titles.get(r.container or "", ""))
        if span[2] and span not in out.get(r.src_unit, []):
            out.setdefault(r.src_unit, []).append(span)
    return out


def _write(question: str, sources: list[Source], run: _Run, *, settings: AskSettings, llm: LLM | None,
           weights: dict[str, float], embedder: Embedder | None = None,
           units: dict[str, Unit] | None = None,
           cited: dict[str, list[tuple[int, int, str]]] | None = None) -> Draft:
    t = time.perf_counter()
    terms = list(weights)
    weights = {t: (w or 1.0) for t, w in weights.items()}
    if settings.writer == "llm" and llm is None:
        run.notes.append("the LLM writer was asked for but no LLM is configured (set GROQ_API_KEY or "
                         "ANCHOR_LLM_BASE_URL); the extractive writer wrote the answer")
    if llm is not None and settings.writer in ("auto", "llm"):
        try:
            draft = LLMWriter(llm.client, llm.writer_model).write(question, sources, terms, weights)
            run.notes += draft.notes
            what = "refused" if draft.refused else f"wrote {len(draft.claims)} sentences"
            run.emit("write", f"{draft.writer} {what}", t0=t, decision="refuse" if draft.refused else "write")
            return draft
        except LLMAuthError as e:
            note = f"LLM writer failed: {e}; the extractive writer answered instead"
        except LLMError as e:
            note = f"LLM writer failed ({e}); the extractive writer answered instead"
        run.notes.append(note)
        run.emit("write", note, t0=t, decision="fallback")
        t = time.perf_counter()
    # the run's embedder ranks sentences by question → sentence similarity (None: lexical ranking)
    texts = {k: u.text for k, u in (units or {}).items()}
    draft = ExtractiveWriter(embedder=embedder).write(question, sources, terms, weights, units=texts, cited=cited)
    run.notes += draft.notes
    what = "found no sentence to quote" if draft.refused else f"quoted {count(len(draft.claims), 'source sentence')}"
    run.emit("write", f"extractive writer {what}", t0=t, decision="refuse" if draft.refused else "write")
    return draft


def _decompose(draft: Draft, run: _Run, *, llm: LLM | None) -> tuple[list[DraftClaim], str]:
    t = time.perf_counter()
    if llm is not None and draft.writer.startswith("llm"):
        try:
            claims = llm_decompose(llm.client, llm.judge_model, draft.answer)
            if claims:
                run.emit("decompose", f"{llm.judge_model} split the answer into {len(claims)} claims", t0=t)
                return claims, f"llm:{llm.judge_model}"
        except LLMError as e:
            run.notes.append(f"LLM decomposition failed ({e}); split by rules")
    if draft.writer == "extractive":
        # A quoted source sentence is one claim: its verbatim anchor proves all of it, and splitting it
        # would only make fragments such as "to evaluate candidates".
        run.emit("decompose", f"{count(len(draft.claims), 'quoted sentence')}, each checked whole", t0=t)
        return list(draft.claims), "none (quoted sentences)"
    out = [DraftClaim(text=a, cited=c.cited) for c in draft.claims for a in _atoms(c.text)]
    run.emit("decompose", f"split the answer into {len(out)} claims (rules)", t0=t)
    return out, "rules"


def read_in_place(claims: list[DraftClaim], texts: list[str]) -> list[str]:
    r"""The claims' ``texts`` as the relevance check reads them: an enumerated point after the lead-in it is
    quoted under (and that lead-in after its own), because the two are one provision: "(a) the technical
    documentation referred to in Article 11;" keeps for ten years what "The provider shall, for a period
    ending 10 years ..., keep at the disposal of the national competent authorities:" says it keeps.

    A table row is read under its header row, a line below it (:mod:`anchor_core.tables` reads the header's units
    into the row's numbers).

    >>> read_in_place([DraftClaim("Lead:"), DraftClaim("(a) one;", lead=0)], ["Lead:", "(a) one;"])
    ['Lead:', 'Lead: (a) one;']
    >>> read_in_place([DraftClaim("Item | Fee (USD)"), DraftClaim("Renewal | 1,200", lead=0)],
    ...               ["Item | Fee (USD)", "Renewal | 1,200"])[1]
    'Item | Fee (USD)\nRenewal | 1,200'
    """
    if len(claims) != len(texts):  # claims split by a decomposer are read alone
        return texts
    out: list[str] = []
    for i, (c, text) in enumerate(zip(claims, texts)):
        lead = c.lead if c.lead is not None and 0 <= c.lead < i else None
        joint = "\n" if lead is not None and tables.is_row(texts[lead]) and tables.is_row(text) else " "
        out.append(text if lead is None else f"{out[lead]}{joint}{text}")
    return out


def asked_unit_quoted(rel: Relevance, qa: QuestionAnalysis, hits: Sequence[Hit], units: dict[str, Unit],
                      checked: Sequence[CheckedClaim]) -> Relevance:
    """A question whose only topic is the unit it names ("What does section 3 require?", "What does Article 10
    say?": every focus word is the reference's or the unit's heading's) is addressed by a supported quote of that
    unit, though the quote never repeats "section 3" (the relevance check reads the quote's words only). A quote
    of another unit that cites it ("The duties imposed by section 3 are enforceable by ...") is not; nor is any
    quote when the question asks something of the unit ("What fee does section 3 set?": "fee" is no word of the
    reference or the heading)."""
    if rel.addressed or not qa.parts or rel.kind in VALUE_KINDS:
        return rel
    named = {h.unit_id for h in hits if h.named and not h.via}
    said = {stem(w) for h in hits if h.unit_id in named for w in words(f"{h.named} {h.heading}")}
    said |= {stem(w) for uid in named if (u := units.get(uid)) is not None for w in words(f"{u.heading} {u.title}")}
    if not named or any(stem(p) not in said for p in qa.parts):
        return rel
    marks = [c.supported and c.anchor is not None and c.anchor.unit_id in named for c in checked]
    if not any(marks):
        return rel
    return rel.model_copy(update={"addressed": True, "reason": "", "claims": [a or b for a, b in zip(marks, rel.claims)]
                                  if len(rel.claims) == len(marks) else marks,
                                  "method": f"{rel.method}; the named unit quoted"})


def lead_ins_carry(claims: list[DraftClaim], marks: list[bool]) -> list[bool]:
    """``marks`` (does each claim carry the answer?) with a lead-in marked as its points are: a lead-in quoted
    over a point that carries the answer ("4. Employment, workers' management and access to self-employment:"
    over "(a) AI systems intended to be used for the recruitment ...") is part of that answer.

    >>> lead_ins_carry([DraftClaim("4. Employment:"), DraftClaim("(a) recruitment;", lead=0)], [False, True])
    [True, True]
    """
    if len(claims) != len(marks):
        return marks
    out = list(marks)
    for i in range(len(claims) - 1, -1, -1):  # points come after their lead-ins: a nested lead-in passes it up
        lead = claims[i].lead
        if out[i] and lead is not None and 0 <= lead < i:
            out[lead] = True
    return out


def _atoms(text: str) -> list[str]:
    try:
        return decompose(text)
    except InputError:
        return [text]


def _anchor(claims: list[DraftClaim], sources: list[Source], units: dict[str, Unit], run: _Run, *,
            scorer: Scorer, reader: Reader | None = None) -> list[CheckedClaim]:
    t = time.perf_counter()
    # Every claim against every retrieved source (a marker is the writer's hint, checked as wrong_source);
    # no embedder: the scorer was calibrated without the dense candidate search.
    out = check(claims, sources, scorer=scorer, embedder=None, units={k: u.text for k, u in units.items()},
                reader=reader)
    _writer_spans(claims, out, units, sources, threshold=scorer.threshold)
    bad = sum(not c.supported for c in out)
    run.emit("anchor", f"checked {count(len(out), 'statement')}, {bad} unsupported", t0=t,
             decision="ok" if not bad else "flags", scores=[c.anchor.score if c.anchor else 0.0 for c in out])
    return out


def _writer_spans(claims: list[DraftClaim], checked: list[CheckedClaim], units: dict[str, Unit],
                  sources: list[Source] | None = None, *, threshold: float = 0.0) -> None:
    """A quote the extractive writer took keeps the writer's offsets when the checker anchored it in the
    same place: the highlighted span is then the printed quote, character for character (the checker
    trims a closing colon or semicolon, and may start a word later).

    A quote shorter than the checker's verbatim search takes (``May 2015``, a five-word list point) is scored
    against whole sentences instead and may land on another sentence; it is anchored at the writer's offsets,
    which hold exactly its text, as a verbatim quote. So is a quote the writer located by the source's structure
    (``DraftClaim.located``: a reference list's entry, which is no sentence the checker reads)."""
    for dc, cc in zip(claims, checked):
        a = cc.anchor
        u = units.get(dc.unit_id or "")
        src = next((x for x in sources or [] if x.unit_id == dc.unit_id and x.n in dc.cited
                    and x.start <= (dc.start or 0) < x.end), None)
        if (u is not None and src is not None and dc.start is not None and dc.end is not None
                and u.text[dc.start:dc.end] == dc.text and (len(dc.text.split()) < VERBATIM_MIN_WORDS or dc.located)
                and (a is None or a.unit_id != dc.unit_id or not (a.start < dc.end and dc.start < a.end))):
            cc.anchor = ClaimAnchor(source=src.n, unit_id=src.unit_id, part=src.part, doc_id=src.doc_id,
                                    **src.span_pages(dc.start, dc.end), quote=dc.text, start=dc.start,
                                    end=dc.end, score=1.0, method="verbatim",
                                    threshold=a.threshold if a is not None else threshold, unit_sha256=src.unit_sha256)
            cc.supported, cc.verdict, cc.contradiction, cc.flags = True, "supported", None, []
            cc.reasons = [f"quoted verbatim from [{src.n}] at the writer's offsets"]
            if len(cc.atoms) == 1:
                cc.atoms[0] = cc.atoms[0].model_copy(update={"supported": True, "anchor": cc.anchor,
                                                             "reasons": cc.reasons})
            continue
        if (a is None or u is None or dc.start is None or dc.end is None or not cc.supported
                or a.unit_id != dc.unit_id or not (a.start < dc.end and dc.start < a.end)
                or u.text[dc.start:dc.end] != dc.text):
            continue
        cc.anchor = a.model_copy(update={"quote": dc.text, "start": dc.start, "end": dc.end})
        if len(cc.atoms) == 1 and cc.atoms[0].anchor is not None:
            cc.atoms[0].anchor = cc.anchor
