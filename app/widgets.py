"""Rendering shared by the pages: the live ask trace, answers and refusals, a claim's evidence,
the empty state. Pure display over library records; every computation is a library call.

Every text of a run, a corpus or an import goes through ``md_escape`` / ``md_code`` before it
reaches Markdown (``st.markdown``, captions, alerts, widget labels): an imported export or a
crafted source sentence shows as text, never as an image, a link or a tag. No script carries data."""

from __future__ import annotations

import hashlib
import time

import resources as R
import streamlit as st
from jobs import JOBS

from anchor_core import access, workspace
from anchor_core.assessment import Assessment
from anchor_core.report import Report
from anchor_core.safe import md_code, md_escape
from anchor_core.text import count

STAGES = {"retrieve": "Retrieve", "hop": "Hop", "gate": "Gate", "rewrite": "Rewrite", "write": "Write",
          "decompose": "Claims", "anchor": "Anchor", "report": "Report"}
DECISION_COLOR = {"pass": "green", "answer": "green", "borderline": "orange", "rewrite": "orange",
                  "fallback": "orange", "answer_with_flags": "orange", "weak": "orange", "refuse": "red"}


SCORER_LABEL = {"learned": "Trained model", "lexical": "Word overlap", "llm": "Language model judge"}
WRITER_LABEL = {"auto": "Automatic", "extractive": "Quotes from the sources", "llm": "Language model"}


def scorer_label(name: str) -> str:
    """A scorer's plain name for a picker, with the technical name beside it."""
    return f"{SCORER_LABEL[name]} ({name})" if name in SCORER_LABEL else name


def empty_store(store) -> None:
    """The clear empty state: no corpus yet, with the two ways out (for those who may add one)."""
    if not R.viewer().unrestricted:
        st.info("**No corpus you may read yet.** Documents are added by an administrator (members of the admin "
                "group, ANCHOR_AUTH_ADMIN_GROUP) or on the server's command line; public documents are open to "
                "everyone, the others to their groups.", icon=":material/inbox:")
        return
    if JOBS.running(str(R.settings().home)):
        st.info("**The demo corpus is being loaded** — its progress is shown above; this page fills in when it is "
                "ready.", icon=":material/hourglass_top:")
        return
    st.info("**No corpus yet — upload one.** Add documents on the Corpora page, or load the EU AI Act demo corpus "
            "to try Anchor right away.", icon=":material/inbox:")
    c1, c2 = st.columns(2)
    c1.page_link("views/corpora.py", label="Upload documents", icon=":material/upload_file:")
    if c2.button("Load the AI Act demo corpus", icon=":material/download:"):
        start_demo(store)
        st.rerun()


def store_and_corpora():
    """The viewer's store and the names of the corpora it may read, for a page that works on one
    corpus; a failure to open it, or a store with no corpus, is shown here and ends the page."""
    store = R.safe(R.store, what="Opening the store")
    if store is None:
        st.stop()
    corpora = R.safe(store.corpora, what="Reading the corpora", default=[])
    if not corpora:
        empty_store(store)
        st.stop()
    return store, [c.name for c in corpora]


def corpus_choice(names: list[str], key: str) -> str:
    """The corpus select box under ``key``, starting on the demo corpus when there is one."""
    if st.session_state.get(key) not in names:
        st.session_state[key] = workspace.DEMO_CORPUS if workspace.DEMO_CORPUS in names else names[0]
    return st.selectbox("Corpus", names, key=key)


# -- the shared ingest job ------------------------------------------------------------------------


def start_demo(store):
    """Start loading the demo corpus as the workspace's ingest job, or attach to the one running."""
    s = R.settings()
    kind = s.embedder

    def work(job):
        job.step(0, 0, "loading the embedding model")
        emb = workspace.ingest_embedder(R._embedder(kind), s)
        job.step(0, 0, "reading the regulation")
        return workspace.ingest_demo(store, emb, s.home, progress=lambda d, t: job.step(d, t, "embedding"))

    return JOBS.start(str(s.home), "the EU AI Act demo corpus", work, kind="demo", explain=R._message)[0]


def start_upload(store, files: list[tuple[str, bytes]], *, corpus: str, groups: list[str]):
    """Ingest uploaded files as the workspace's ingest job; its result is the per-file table rows."""
    s = R.settings()
    kind = s.embedder

    def work(job):
        job.step(0, 0, "loading the embedding model")
        emb = workspace.ingest_embedder(R._embedder(kind), s)

        def progress(p) -> None:
            extra = (f" (about {workspace.duration(p.estimate.seconds)} in all)"
                     if p.estimate is not None and p.estimate.large and p.estimate.seconds else "")
            job.step(p.done, p.total, f"file {p.index + 1} of {p.files}, {p.name}: {p.stage}{extra}")

        results = workspace.upload_files(store, emb, files, corpus=corpus, groups=groups,
                                         max_mb=s.max_upload_mb, progress=progress)
        return [file_result_row(r) for r in results]

    what = f"{count(len(files), 'file')} into corpus {corpus}"
    return JOBS.start(str(s.home), what, work, kind="upload", explain=R._message)[0]


def job_status() -> None:
    """The workspace's ingest job, if there is one: live progress (rate, time left) while it runs, in
    every tab and after a reload; once finished, a note (success once per session, a failure until
    dismissed)."""
    home = str(R.settings().home)
    job = JOBS.get(home)
    if job is None:
        return
    view = job.snapshot()
    if view.state == "running":
        _job_progress(home, view.id)
        return
    seen = st.session_state.setdefault("jobs_seen", set())
    if view.state == "done" and view.id not in seen and view.kind == "demo":
        seen.add(view.id)
        info = view.result
        st.toast(f"Loaded {view.what}: {count(info.units, 'unit')}, {count(info.chunks, 'passage')}, "
                 f"{count(info.references, 'cross-reference')}.", icon=":material/check_circle:")
    elif view.state == "failed":
        c1, c2 = st.columns([5, 1], vertical_alignment="center")
        c1.error(f"Loading {md_escape(view.what)} stopped: {view.error}", icon=":material/error:")
        if c2.button("Try again", key=f"job_retry_{view.id}"):
            JOBS.forget(home, view.id)
            st.rerun()


@st.fragment(run_every=1.0)
def _job_progress(home: str, job_id: str) -> None:
    job = JOBS.get(home)
    view = job.snapshot() if job is not None else None
    if view is None or view.id != job_id or view.state != "running":
        st.rerun()  # finished (or replaced): draw the whole page again, with the corpus
        return
    with st.container(border=True, key="ingest_job"):
        st.markdown(f"**{'Loading' if view.kind == 'demo' else 'Ingesting'} {md_escape(view.what)}** — shared by "
                    "every tab; reloading does not restart it.")
        st.progress(view.fraction, text=view.text())


def run_ask(question: str, *, store, corpus: str, settings) -> str | None:
    """Run the ask pipeline with its trace shown live in a status box; save the report; its run id."""
    from anchor_core.ask import ask
    from anchor_core.workspace import use_adapter_grammars

    use_adapter_grammars()  # units the question names ("Annex III") are fetched directly

    t0 = time.perf_counter()
    status = st.status("Retrieving evidence…", expanded=True)

    def on_event(e) -> None:
        color = DECISION_COLOR.get(e.decision, "gray")
        decision = f" :{color}-badge[{md_escape(e.decision, inline=True)}]" if e.decision else ""
        took = f" · {e.ms:.0f} ms" if e.ms else ""
        status.markdown(f"**{_stage(e.stage)}**{decision} — {md_escape(e.message, inline=True)}{took}")
        status.update(label=f"{_stage(e.stage)}: {md_escape(e.message, inline=True)}")

    run_id = None
    with R.guard("Asking"):
        with status:
            emb = R.embedder()
            # The scorer the CLI's ask uses, with its calibrated threshold: ask anchors without the
            # embedder (the learned scorer with the embedding feature is another model, threshold 0.43).
            scorer = R.scorer(settings.scorer, with_embedder=False)
        report = ask(question, store=store, embedder=emb, corpus=corpus, settings=settings, llm=R.llm(),
                     scorer=scorer, on_event=on_event)
        run_id = access.save_run(R.reports(), R.viewer(), report).id
        took = time.perf_counter() - t0
        label = (f"Refused after {took:.1f} s: {md_escape(report.reason, inline=True)}" if report.refused else
                 f"Answered in {took:.1f} s — {count(report.checked, 'claim')} checked: "
                 f"{md_escape(report.assessment().headline, inline=True)}")
        status.update(label=label, state="error" if report.refused else "complete", expanded=False)
    if run_id is None:
        status.update(label="Stopped: see the message below", state="error", expanded=False)
    return run_id


def _stage(stage: str) -> str:
    return STAGES.get(stage) or md_escape(stage, inline=True)


def refusal_card(rep: Report) -> None:
    with st.container(border=True):
        st.markdown("### :red[:material/block:] Not answered")
        tech = f"refusal code {rep.reason_code}"
        if rep.gate:
            g = rep.gate
            th = ", ".join(f"{k} {v:.2f}" for k, v in g.thresholds.items())
            tech = f"gate {g.verdict}, evidence score {g.score:.2f}" + (f" (thresholds {th})" if th else "") + \
                f"; {tech}"
        # A tooltip is Markdown too: everything of the run in it is escaped.
        st.markdown(f"**Why it was not answered:** {md_escape(rep.reason)}", help=md_escape(tech, inline=True))
        if rep.sources:
            st.markdown(f"**What was found** ({count(len(rep.sources), 'passage')}, not enough to answer):")
            for s in rep.sources:
                st.markdown(f"- **\\[{s.n}\\] {md_escape(s.label, inline=True)}**{source_place(s)}{_reached(s)} — "
                            f"{_snippet(s.text, 220)}")
        else:
            st.markdown("Nothing relevant was found.")
        st.caption("Rephrase with the document's own terms, widen the access groups or the number of passages, "
                   "or pick another corpus.")


def source_place(s) -> str:
    """`` · travel-policy.pdf, page 2`` for a retrieved passage (escaped), or empty."""
    bits = [b for b in (s.document, f"page {s.page}" if s.page else "") if b]
    return (" · " + md_escape(", ".join(bits), inline=True)) if bits else ""


def _reached(s) -> str:
    if s.direct or not (s.followed_from or s.path):
        return ""
    return " · reached by following a cross-reference from " + md_escape(readable_path(s.followed_from or s.path),
                                                                          inline=True)


def readable_path(path: str) -> str:
    """A reference path as the document names its parts: ``annex-3(4) ← article-80(1)`` reads
    ``Annex 3(4) ← Article 80(1)`` (unit ids turned into words; the order is kept)."""
    def one(p: str) -> str:
        head, _, part = p.strip().partition("(")
        name = head.rsplit("/", 1)[-1].replace("-", " ").replace("_", " ").strip()
        name = name[:1].upper() + name[1:]
        return name + (f"({part}" if part else "")

    return " ← ".join(one(p) for p in path.split("←"))


def _snippet(text: str, n: int) -> str:
    """The first ``n`` characters of ``text`` on one line, escaped for Markdown."""
    t = " ".join(text.split())
    return md_escape(t if len(t) <= n else t[: n - 1] + "…")


STATUS_ICON = {"supported": ":green[:material/check_circle:]", "flagged": ":orange[:material/flag:]",
               "contradicted": ":red[:material/block:]", "not_found": ":red[:material/cancel:]"}
REVIEW_ICON = {"rejected": ":red[:material/thumb_down:]", "needs_work": ":orange[:material/edit_note:]"}
HEADLINE_STYLE = {"verified": ("green", ":material/verified:"), "unconfirmed": ("orange", ":material/help:"),
                  "not_verified": ("red", ":material/gpp_bad:"), "refused": ("red", ":material/block:")}
RELEVANCE_METRIC = {"addressed": "addressed", "not_addressed": "not addressed", "not_checked": "not checked",
                    "no_question": "no question"}


def claim_place(run: Report, c) -> str:
    """Where a claim's quote is, as a reviewer names it: the document's file name (or the source id of
    a verify run) and the page, e.g. ``travel-policy.pdf, page 2``; empty without an anchor."""
    a = c.anchor
    if a is None:
        return ""
    src = run.source(a.source)
    name = (src.document or src.doc_id or src.label) if src is not None and run.kind == "ask" else \
        (src.label if src is not None else a.unit_id)
    return name + (f", {a.where_on_pages}" if a.page else "")


def claim_label(run: Report, index: int, a: Assessment | None = None) -> str:
    """Claim ``index`` (1-based) for a picker: its badge (a reviewer's rejection or request for work over
    the automatic verdict, an acceptance beside it), its text and where its quote is (file, page).
    ``a``: the run's assessment, when the caller has it (a picker labels every claim on every rerun)."""
    c, s = run.claims[index - 1], (a or run.assessment()).claims[index - 1]
    icon = REVIEW_ICON.get(s.review or "", STATUS_ICON[c.status])
    mark = f" · {md_escape(s.label, inline=True)}" if s.review else ""
    place = f" :gray[— {md_escape(w, inline=True)}]" if (w := claim_place(run, c)) else ""
    return f"{icon} {index}. {_snippet(c.text, 160)}{place}{mark}"


def run_facts(run: Report, suffix: str = "") -> None:
    """How a verify run was checked, in words; the technical names and threshold on hover."""
    scorer = run.models.get("scorer", "")
    emb = "" if run.models.get("embedder") in (None, "", "none") else run.models["embedder"]
    how = SCORER_LABEL.get(scorer, scorer or "unknown")
    st.caption(f"Checked by {md_escape(how.lower(), inline=True)}, "
               + ("comparing meaning and words" if emb else "comparing words only")
               + f" · run {md_code(run.id)}{suffix}",
               help=md_escape(f"scorer {scorer or 'unknown'} (support threshold {run.threshold or 0:.2f}), "
                              f"embedder {emb or 'none'}", inline=True))


def answer_block(run: Report) -> None:
    """The answer as text, each claim followed by its number (the picker's numbers); no raw ``<cite>``
    tags, one paragraph per quoted passage."""
    from anchor_core.render import answer_segments

    parts = []
    for text, n in answer_segments(run):
        parts.append(md_escape(text) + (f" :blue-badge[{n}]" if n else ""))
    with st.container(border=True, key=f"answer_{run.id or 'new'}"):
        st.markdown("".join(parts) or "*(empty answer)*")


def claim_badge(run: Report, index: int, a: Assessment | None = None) -> str:
    """The claim's badges: the reviewer's mark overrides the automatic verdict, which stays beside it."""
    c, s = run.claims[index - 1], (a or run.assessment()).claims[index - 1]
    who = md_escape(s.reviewer, inline=True)
    if s.review == "rejected":
        return f":red-badge[:material/thumb_down: rejected by {who}] automatic: {R.STATUS_BADGE[c.status]}"
    if s.review == "needs_work":
        return f":orange-badge[:material/edit_note: needs work ({who})] automatic: {R.STATUS_BADGE[c.status]}"
    if s.review == "accepted":
        return f"{R.STATUS_BADGE[c.status]} :green-badge[:material/thumb_up: accepted by {who}]"
    return R.STATUS_BADGE[c.status]


def headline(run: Report, a: Assessment | None = None) -> None:
    """The run's honest state in one line, coloured by it, with the three checks beneath."""
    a = a or run.assessment()
    # Markdown in a box, not st.error: an alert is how the pages say that an action failed.
    color, icon = HEADLINE_STYLE[a.state]
    box = st.container(border=True)
    box.markdown(f"#### :{color}[{icon} {md_escape(a.headline, inline=True)}]")
    if not run.refused:
        box.caption(f"Quotes: {md_escape(a.faithfulness.text, inline=True)} · Relevance: "
                   f"{md_escape(a.relevance.text, inline=True)} · Support: {md_escape(a.support.text, inline=True)}"
                   + (f" · Reviewers: {a.accepted} accepted, {a.rejected} rejected, {a.needs_work} needs work"
                      if a.accepted or a.rejected or a.needs_work else ""))


def metrics(run: Report) -> None:
    """The headline, then the counts: the run's state first, never a bare 'verified' percentage."""
    a = run.assessment()
    headline(run, a)
    claims = run.claims
    # Two rows, so that no word is cut off at 1024 px: the two states are words, the rest counts.
    words = st.columns(2)
    words[0].metric("Result", a.short)
    words[1].metric("Relevance", RELEVANCE_METRIC[a.relevance.state])
    cols = st.columns(5)
    cols[0].metric("Supported", sum(c.status == "supported" for c in claims))
    cols[1].metric("Flagged", sum(c.status == "flagged" for c in claims))
    cols[2].metric("Contradicted", sum(c.status == "contradicted" for c in claims))
    cols[3].metric("Not found", sum(c.status == "not_found" for c in claims))
    cols[4].metric("Rejected", a.rejected, help="claims whose latest reviewer mark is rejected")


def show_ask_run(run: Report, store, *, key: str = "ask") -> None:
    rep = run
    st.subheader(md_escape(rep.question, inline=True))
    st.caption(f"corpus {md_code(rep.corpus)} · {md_escape(run.created_at[:19].replace('T', ' '))} UTC · "
               f"run {md_code(run.id)}")
    for note in rep.notes:
        st.info(md_escape(note), icon=":material/info:")
    if rep.refused:
        headline(rep)
        refusal_card(rep)
        if rep.claims:  # an answer drafted and refused because no claim held: show why each failed
            st.markdown("**The drafted claims, none supported**")
            for c in rep.claims:
                line = f"- {R.STATUS_BADGE[c.status]} {md_escape(c.text, inline=True)}"
                if c.contradiction is not None:
                    line += f" — the source says: “{md_escape(c.contradiction.quote, inline=True)}”"
                st.markdown(line)
    else:
        metrics(run)
        left, right = st.columns([5, 6], gap="large")
        with left:
            st.markdown("**Answer**")
            answer_block(rep)
            claims = run.claims
            if claims:
                a = run.assessment()
                pick = st.radio("Claims — select one to see its evidence", range(len(claims)),
                                format_func=lambda i: claim_label(run, i + 1, a), key=f"{key}_claim_{run.id}")
            else:
                pick = None
        with right:
            if pick is not None:
                claim_evidence(run, pick + 1, store)
    with st.expander(f"Passages found ({len(rep.sources)})"):
        for s in rep.sources:
            how = " · found by the search" if s.direct else (_reached(s) or " · reached by a cross-reference")
            if s.named:  # 'Annex III', or the definition of a term the question asks about
                how = " · named in the question (" + md_escape(s.named, inline=True) + ")"
            st.markdown(f"**\\[{s.n}\\] {md_escape(s.label, inline=True)}**{source_place(s)}{how}  \n"
                        f"{_snippet(s.text, 400)}", help=md_escape(f"search score {s.score:.3f}; unit {s.unit_id}"
                                                                     + (f"; path {s.path}" if s.path else ""),
                                                                     inline=True))
    with st.expander("What it did"):
        for e in rep.trace:
            decision = (f" :{DECISION_COLOR.get(e.decision, 'gray')}-badge[{md_escape(e.decision, inline=True)}]"
                        if e.decision else "")
            st.markdown(f"**{_stage(e.stage)}**{decision} — {md_escape(e.message, inline=True)}"
                        + (f" · {e.ms:.0f} ms" if e.ms else ""))
        if rep.models:
            st.caption("Models: " + ", ".join(f"{md_escape(k)} {md_code(v)}" for k, v in rep.models.items() if v))
    if key == "ask" and st.button("Review and export this run", icon=":material/rate_review:"):
        st.session_state["open_run"] = run.id
        st.switch_page("views/reports.py")


def _unit_text(rep: Report, c, store) -> tuple[str | None, str]:
    """The current stored text of the anchor's unit and a warning when it no longer matches the run."""
    try:
        unit = store.get_units(rep.corpus, [c.unit_id]).get(c.unit_id)
    except Exception as err:  # corpus deleted in another tab, store locked, ES down
        return None, f"The source could not be read from the store ({R._message(err)}); showing the saved quote."
    if unit is None:
        return None, (f"{md_code(c.unit_id)} is no longer in corpus {md_code(rep.corpus)}; "
                      "showing the quote saved with the run.")
    if c.unit_sha256 and hashlib.sha256(unit.text.encode()).hexdigest() != c.unit_sha256:
        if unit.text[c.start:c.end] != c.quote:
            return None, (f"{md_code(c.unit_id)} changed since this run and the quote is no longer at its offsets; "
                          "showing the saved quote. Re-check the run on the Reports page.")
    return unit.text, ""


def claim_evidence(run: Report, index: int, store=None) -> None:
    """Claim ``index`` (1-based): its verdict, its quote highlighted inside the surrounding source text,
    and the facts. Ask runs read the unit from the store; verify runs the source saved with the run."""
    c = run.claims[index - 1]
    assessed = run.assessment()
    cs = assessed.claims[index - 1]
    st.markdown(f"**Claim {index}** {claim_badge(run, index, assessed)}")
    st.markdown(f"> {md_escape(c.text, inline=True)}")
    if cs.review in ("rejected", "needs_work") and cs.comment:
        st.caption(f"Reviewer {md_escape(cs.reviewer, inline=True)}: {md_escape(cs.comment, inline=True)}")
    if cs.verbatim is False:
        st.error("The quote is not verbatim at its offsets in the text kept with the run.", icon=":material/rule:")
    if cs.addresses is False:
        st.warning("This claim does not carry the answer the question asks for.", icon=":material/help:")
    for r in c.reasons:
        st.caption(md_escape(r))
    if c.flags:
        st.warning("Check: " + md_escape(", ".join(f.replace("_", " ") for f in c.flags)), icon=":material/flag:")
    a = c.anchor
    if a is None:
        st.error("No sentence in the sources supports this claim.", icon=":material/search_off:")
        return
    if c.status == "contradicted" and c.contradiction is not None:
        st.error("Contradicted: the sources state otherwise — “" + md_escape(c.contradiction.quote, inline=True)
                 + "”", icon=":material/block:")
    elif c.status == "not_found":
        st.error("Not found: the closest sentence is shown, but it does not support the claim "
                 f"(score {a.score:.2f} < threshold {a.threshold:.2f}).", icon=":material/search_off:")
    if run.kind == "verify":
        src = run.source(a.source)
        text, warning = (src.text if src else None), ""
    else:
        text, warning = _unit_text(run, a, store)
    if warning:
        st.warning(warning, icon=":material/history:")
    if text is None:
        text, start, end = a.quote, 0, len(a.quote)
    else:
        start, end = a.start, a.end
    # The source text goes through the sanitiser (no JavaScript); the scroll script is a constant.
    st.html(workspace.highlight_html(text, start, end, mark_id=f"q-{index}"))
    st.html(SCROLL_SCRIPT, unsafe_allow_javascript=True)
    src = run.source(a.source)
    plain = [f"**From** {md_escape(claim_place(run, c) or a.unit_id, inline=True)}"
             + (f" · {md_escape(src.label, inline=True)}" if src is not None and run.kind == "ask" else "")]
    match = "word for word" if a.method == "verbatim" else f"by {md_escape(a.method, inline=True)}"
    plain.append(f"**Match** {match}: score {a.score:.2f}, needed {a.threshold:.2f}")
    if path := run.path(c):
        plain.append(f"**Reached by following** {md_escape(readable_path(path), inline=True)}")
    st.markdown("  \n".join(plain))
    facts = {"unit" if run.kind == "ask" else "source": md_escape(a.unit_id, inline=True)}
    if a.part:
        facts["part"] = md_escape(a.part, inline=True)
    if a.page:
        facts["page"] = f"{a.page}–{a.page_end}" if a.page_end else str(a.page)
    facts["offsets"] = f"[{a.start}:{a.end}]"
    facts["score"] = f"{a.score:.2f} ({md_escape(a.method, inline=True)}, threshold {a.threshold:.2f})"
    if path:
        facts["reference path"] = md_escape(path, inline=True)
    if a.unit_sha256:
        facts["sha256"] = md_escape(a.unit_sha256[:16]) + "…"
    with st.expander("Technical details (to re-check the quote)"):
        st.markdown("  \n".join(f"**{k}** {v}" for k, v in facts.items()))
    if len(c.atoms) > 1:
        st.markdown("**Parts of the claim**")
        for t in c.atoms:
            mark = ":green[:material/check:]" if t.supported else ":red[:material/close:]"
            where = ""
            if t.anchor:
                s = run.source(t.anchor.source)
                where = (f" → {md_code(s.label if s else t.anchor.unit_id)} "
                         f"\\[{t.anchor.start}:{t.anchor.end}\\]")
            st.markdown(f"{mark} {md_escape(t.text, inline=True)}{where}")


# Scroll each source box (not the page) so its highlighted quote sits a third of the way down.
# Streamlit may re-mount the element after the script ran, so watch for a few seconds and
# scroll each box instance once (marked with data-anchored), leaving the reader's own scrolling alone.
# A constant: it finds the boxes by class and holds no data, so nothing in a run can reach the script.
# No '<' or '&' in the code: the HTML sanitiser would escape them and break the script.
SCROLL_SCRIPT = ("<script>(function(){var n=0;function go(){"
                 "document.querySelectorAll('.anchor-source').forEach(function(b){"
                 "var m=b.querySelector('mark');"
                 "if(m ? (m.textContent ? (b.clientHeight ? !b.dataset.anchored : false) : false) : false){"
                 "b.dataset.anchored='1';"
                 "b.scrollTop+=m.getBoundingClientRect().top-b.getBoundingClientRect().top-b.clientHeight/3;}});"
                 "n+=1;if(n !== 50){setTimeout(go,100);}}go();})();</script>")


def valid_choice(key: str, options: list, *, many: bool = False) -> None:
    """Drop a kept choice that is no longer on offer (a corpus deleted since, a unit of another
    corpus), so the picker falls back to its default instead of failing."""
    ss = st.session_state
    if key not in ss:
        return
    if many:
        ss[key] = [v for v in ss[key] or [] if v in options]
    elif ss[key] not in options:
        del ss[key]


def created(at: str) -> str:
    """A run's time as the lists show it: ``2026-12-01 14:32 UTC``."""
    return at[:16].replace("T", " ") + " UTC"


def distinct_titles(summaries) -> dict[str, str]:
    """Each run's title, numbered where runs share one (``… (2)`` for the second in time), so two
    identical verify runs can be told apart in a list or a picker."""
    by_title: dict[str, list] = {}
    for s in sorted(summaries, key=lambda s: s.created_at):
        by_title.setdefault(s.title, []).append(s)
    out = {}
    for title, same in by_title.items():
        for n, s in enumerate(same, 1):
            out[s.id] = f"{title} ({n})" if len(same) > 1 else title
    return out


def table(rows: list[dict], *, key: str | None = None) -> None:
    """A table that shows every cell's full text, wrapped (``st.table``, cells escaped; a data grid cuts
    long text off at the column width). A column with mixed kinds of values (a page count beside an empty
    cell) is shown as text, so Arrow never sees a column it cannot type."""
    if not rows:
        return
    cols = list(dict.fromkeys(k for r in rows for k in r))
    mixed = {c for c in cols if len({type(r.get(c)) for r in rows if r.get(c) not in (None, "")}) > 1}
    clean = [{c: ("" if r.get(c) is None else str(r[c])) if c in mixed or r.get(c) is None else r[c]
              for c in cols} for r in rows]
    for c in cols:  # an all-number column with gaps: the gaps become empty text, the column text
        if c not in mixed and any(r.get(c) is None for r in rows):
            for r in clean:
                r[c] = str(r[c])
    # st.table renders each cell as Markdown: every text of a run or a file is escaped (a comment
    # holding "![x](http://…)" shows as those characters and loads nothing).
    shown = [{c: md_escape(v, inline=True) if isinstance(v, str) else v for c, v in r.items()} for r in clean]
    with st.container(key=key) if key else st.container():
        st.table(shown, hide_index=True)


def corpora_table(rows: list[dict]) -> None:
    """The stored corpora, one row each, narrow enough for 1024 px: the counts in words in one
    column, the store (the same for every corpus) once beneath."""
    table([{"corpus": r["corpus"],
            "contents": f"{count(r['documents'], 'document')}, {count(r['units'], 'unit')}, "
                        f"{count(r['chunks'], 'passage')}",
            "cross-references": f"{r['references']:,} resolved" + (f", {r['unresolved']:,} not resolved"
                                                                  if r["unresolved"] else ""),
            "last ingest": r["last ingest"], "search model": r["embedder"], "read as": r["adapter"]}
           for r in rows], key="corpora_table")
    if rows:
        st.caption(f"Stored in {md_escape(rows[0]['store'], inline=True)}")


def file_result_row(r) -> dict:
    """One row of the per-file upload results table: the file's name, what became of it, and why."""
    notes = r.error or "; ".join(r.warnings)
    if r.ok and r.structure:
        notes = r.structure + ("; " + notes if notes else "")
    contents = (f"{count(r.units, 'unit')}, {count(r.chunks, 'passage')}, {count(r.references, 'cross-reference')}"
                if r.ok else "")
    return {"file": r.name, "status": r.status, "pages": r.pages or None, "contents": contents, "notes": notes}


def unit_reader(store, corpus: str, unit_id: str | None, names: dict[str, str] | None = None) -> None:
    """A unit's text with what it cites and what cites it (counted as the graph counts them)."""
    from graph import links

    if not unit_id:
        return
    unit = R.safe(lambda: store.get_units(corpus, [unit_id]).get(unit_id), what=f"Reading {unit_id}")
    if unit is None:
        st.warning(f"{md_code(unit_id)} is not in corpus {md_code(corpus)} any more (deleted in another tab?).",
                   icon=":material/warning:")
        return
    kind = (names or {}).get(unit.kind, unit.kind)
    with st.container(border=True):
        st.markdown(f"**{md_escape(unit.heading, inline=True)}**"
                    + (f" — {md_escape(unit.title, inline=True)}" if unit.title else "")
                    + f"  \n{md_escape(kind)} · document {md_code(unit.doc_id)} · {len(unit.text):,} characters",
                    help=md_escape(f"unit id {unit.unit_id}, kind {unit.kind}", inline=True))
        st.html(workspace.highlight_html(unit.text, 0, 0, mark_id="unit-text", max_height="24em"))
        link = R.safe(links, store, corpus, unit_id, what="Reading the references")
        if link is None:
            return
        heads = R.safe(lambda: store.get_units(corpus, [*link.cites, *link.cited_by]), default={}) or {}

        def named(uid: str) -> str:
            return heads[uid].heading if uid in heads else uid

        if link.cites:
            st.caption(f"Cites {count(len(link.cites), 'other unit')}: "
                       + md_escape(", ".join(sorted(named(u) for u in link.cites))))
        if link.cited_by:
            st.caption(f"Cited by {count(len(link.cited_by), 'unit')}: "
                       + md_escape(", ".join(sorted(named(u) for u in link.cited_by))))
        if link.within:
            st.caption("Refers to its own parts: " + md_escape(", ".join(sorted(set(link.within)))))
        if link.unresolved:
            st.caption("Names outside this corpus (not linked): " + md_escape(", ".join(sorted(set(link.unresolved)))))


# -- reviewing and re-checking -----------------------------------------------------------------


def save_mark(rs, run_id: str, n_claims: int) -> None:
    """The review form's submit (a callback, so it may set the sidebar's reviewer name before that
    widget is drawn). Saves the mark from the form's state; on success clears the comment and moves
    to the next claim, on failure leaves everything as typed and says why."""
    ss = st.session_state
    name = " ".join(str(ss.get("rev_name") or "").split())
    if name and R.settings().auth.mode == "local":
        ss["reviewer"] = name
        R.remember_reviewer(name)
        ss.pop("rev_name", None)
        ss.get("kept_input", {}).pop("rev_name", None)  # asked once: not put back on another page
    claim_no = ss.get(f"rev_claim_{run_id}") or 1
    try:
        mark = rs.review(run_id, claim_no, ss.get(f"rev_verdict_{run_id}") or "accepted",
                         reviewer=access.reviewer_name(R.viewer()), comment=ss.get(f"rev_comment_{run_id}") or "")
    except Exception as err:  # shown above the form's neighbours; the typed text stays
        R.log.info("mark not saved: %s", err)
        ss["rep_error"] = R._message(err)
        return
    from anchor_core.reports import VERDICTS

    ss[f"rev_comment_{run_id}"] = ""
    ss[f"rev_claim_{run_id}"] = claim_no % n_claims + 1
    ss["rep_flash"] = (f"Claim {mark.claim} marked {VERDICTS[mark.verdict]} by {mark.reviewer} at "
                       f"{created(mark.at)}.")


RECHECK_WORDS = {"unchanged": ":green[:material/check_circle:] unchanged",
                 "same": ":green[:material/check_circle:] quote in place (the text changed elsewhere)",
                 "moved": ":orange[:material/swap_vert:] moved", "changed": ":orange[:material/difference:] reworded",
                 "gone": ":red[:material/cancel:] gone", "no_anchor": ":gray[:material/remove:] no quote to check"}
RECHECK_TABLE = {"unchanged": "unchanged", "same": "quote in place", "moved": "moved", "changed": "reworded",
                 "gone": "gone", "no_anchor": "no quote"}


def recheck_view(result) -> None:
    """A re-check: one row per quote in words, then each reworded quote as it was and as it is, side by
    side with the differences marked and named, and each gone quote as it was saved."""
    from anchor_core.recheck import diff

    if result.corpus_version_now == "deleted":
        st.warning(f"Corpus {md_code(result.corpus)} was deleted since this run: every quote is gone.",
                   icon=":material/delete_forever:")
    elif result.corpus_version_then != result.corpus_version_now:
        st.info(f"Corpus {md_code(result.corpus)} was re-ingested since this run (version "
                f"{md_code(result.corpus_version_then[:12])} then, {md_code(result.corpus_version_now[:12])} now).",
                icon=":material/update:")
    table([{"quote": i, "status": RECHECK_TABLE[c.status], "unit": c.unit_id or "—", "detail": c.detail}
           for i, c in enumerate(result.checks, 1)], key="recheck_table")
    for i, c in enumerate(result.checks, 1):
        if c.status == "changed" and c.old is not None and c.quote is not None:
            with st.container(border=True):
                st.markdown(f"**Quote {i}** {RECHECK_WORDS['changed']} · {md_escape(c.unit_id or '', inline=True)}")
                for what in c.changes:
                    st.markdown(f"- {md_escape(what, inline=True)}")
                left, right = st.columns(2)
                ops = diff(c.old, c.quote)
                left.caption("Then (saved with the run)")
                left.html(_diff_html(ops, side="old"))
                right.caption("Now (in the corpus)")
                right.html(_diff_html(ops, side="new"))
        elif c.status == "gone" and c.old:
            st.markdown(f"**Quote {i}** {RECHECK_WORDS['gone']} — saved: “{md_escape(c.old, inline=True)}”")
    if result.intact:
        st.success("All quotes are still in the corpus.", icon=":material/verified:")
    else:
        st.warning("Some quotes changed or are gone: re-read those claims before relying on the report.",
                   icon=":material/warning:")


def _diff_html(ops, *, side: str) -> str:
    """One side of a word diff as HTML: the words only on this side marked (escaped text, no script)."""
    import html as h

    tag, style = ("del", "background:#fbe3e3;color:#8a1010") if side == "old" else \
        ("ins", "background:#dff3e4;color:#135c27")
    out = []
    for op, was, now in ops:
        text = was if side == "old" else now
        if not text:
            continue
        if op == "equal":
            out.append(h.escape(text))
        else:
            out.append(f"<{tag} style='{style};text-decoration:none;font-weight:600;border-radius:3px;"
                       f"padding:0 2px'>{h.escape(text)}</{tag}>")
    return ("<div class='anchor-diff' style='line-height:1.55;padding:.5em .7em;border:1px solid #e3e6ec;"
            f"border-radius:6px;background:#fafbfc'>{''.join(out)}</div>")
