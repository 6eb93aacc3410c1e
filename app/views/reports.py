"""Reports: every saved ask/verify run — list, filter, open, review claims, export, re-check."""

from __future__ import annotations

import plotly.graph_objects as go
import resources as R
import streamlit as st
import widgets as W

from anchor_core import access, render
from anchor_core.report import Report
from anchor_core.reports import VERDICTS
from anchor_core.safe import html_escape, md_code, md_escape
from anchor_core.text import count

st.title("Reports")
st.caption("Every ask and verify run is saved in the workspace. Review each claim, export the report, "
           "or re-check its quotes against the current corpus.")

rs = R.safe(R.reports, what="Opening the saved reports")
if rs is None:
    st.stop()
viewer = R.viewer()
# Only runs whose access context the viewer covers are listed or opened (anchor_core.access).
mine = R.safe(lambda: access.visible_runs(rs, viewer, rs.list()), what="Listing saved runs", default=[])

with st.sidebar:
    st.subheader("Filter runs")
    kind = st.selectbox("Kind", ["all", "ask", "verify"], key="rep_kind")
    corpora = ["all", *sorted({s.corpus for s in mine if s.corpus})]
    W.valid_choice("rep_corpus", corpora)
    corpus = st.selectbox("Corpus", corpora, key="rep_corpus")
    review_state = st.selectbox("Review state", ["all", "not reviewed", "in review", "accepted", "needs work",
                                                 "rejected", "nothing to review"], key="rep_state")
    text = st.text_input("Title contains", key="rep_text")

with st.expander("Import an exported report (.json, .md, .html or .pdf)"):
    up = None
    if not viewer.signed_in and viewer.mode != "local":
        st.caption("Sign in to import a report: an imported run is saved under your name and groups.")
    else:
        up = st.file_uploader("Exported report", type=["json", "md", "html", "pdf"], key="rep_import")
    if up is not None and st.button("Import", key="rep_import_btn"):
        with R.guard("Importing"):
            imported = access.import_run(rs, viewer, render.read_export(up.getvalue(), name=up.name))
            st.session_state["open_run"] = imported.id
            st.success(f"Imported run {md_code(imported.id)} with {count(len(imported.reviews), 'reviewer mark')}.",
                       icon=":material/check:")

summaries = R.safe(lambda **kw: access.visible_runs(rs, viewer, rs.list(**kw)),
                   kind=None if kind == "all" else kind, corpus=None if corpus == "all" else corpus, text=text,
                   review_state=None if review_state == "all" else review_state,
                   what="Listing saved runs", default=[])
if not summaries:
    if mine:
        st.info("No saved run matches these filters.", icon=":material/filter_alt_off:")
    else:
        st.info("**No saved runs yet.** Ask a question or verify an answer: every run is saved here for review "
                "and export.", icon=":material/inbox:")
        c1, c2 = st.columns(2)
        c1.page_link("views/ask.py", label="Ask a question", icon=":material/question_answer:")
        c2.page_link("views/verify.py", label="Verify an answer", icon=":material/fact_check:")
    st.stop()

ids = [s.id for s in summaries]
titles = W.distinct_titles(summaries)
st.session_state["rep_ids"] = ids


def _open_selected() -> None:
    """A click on a row of the run list opens that run (the picker below follows)."""
    rows = st.session_state["rep_list"].selection.rows
    listed = st.session_state.get("rep_ids") or []
    if rows and rows[0] < len(listed):
        st.session_state["rep_open"] = listed[rows[0]]


st.caption(f"{count(len(summaries), 'saved run')} — click a row to open it.")
st.dataframe([{"created": s.created_at[:16].replace("T", " "), "kind": s.kind, "title": titles[s.id],
               "result": (a := s.assessment).short, "corpus": s.corpus or "—", "claims": s.claims,
               "review": s.review_state, "headline": a.headline} for s in summaries],
             hide_index=True, width="stretch", key="rep_list", on_select=_open_selected, selection_mode="single-row",
             column_config={"title": st.column_config.TextColumn("title", width="large"),
                            "claims": st.column_config.NumberColumn("claims", width="small"),
                            "kind": st.column_config.TextColumn("kind", width="small")})

with st.expander("Charts: score distribution and supported share", expanded=False):
    runs = [r for r in (R.safe(access.open_run, rs, viewer, s.id) for s in summaries[:200]) if r is not None]
    c1, c2 = st.columns(2)
    scores = go.Figure()
    for status, color in (("supported", "#17692e"), ("flagged", "#c48a00"), ("contradicted", "#a11"),
                          ("not_found", "#d55")):
        xs = [c.anchor.score for r in runs for c in r.claims if c.status == status and c.anchor]
        if xs:
            scores.add_trace(go.Histogram(x=xs, name=status, marker_color=color, xbins={"size": 0.05},
                                          opacity=0.8))
    thresholds = sorted({round(c.anchor.threshold, 2) for r in runs for c in r.claims if c.anchor})
    for t in thresholds[:3]:
        scores.add_vline(x=t, line_dash="dot", annotation_text=f"threshold {t:.2f}")
    scores.update_layout(barmode="stack", title="Support scores of claims", xaxis_title="score",
                         yaxis_title="claims", height=340, margin={"t": 50, "b": 40})
    c1.plotly_chart(scores, width="stretch", key="rep_scores")
    frac = go.Figure()
    for k_, color in (("ask", "#1f5fae"), ("verify", "#7a3fb0")):
        pts = [r for r in runs if r.kind == k_ and not r.refused]
        if pts:
            frac.add_trace(go.Scatter(x=[r.created_at for r in pts], y=[r.verified_fraction for r in pts],
                                      mode="markers", name=k_, marker={"color": color, "size": 9},
                                      text=[html_escape(r.title) for r in pts],  # Plotly reads <a>, <br>…
                                      hovertemplate="%{text}<br>%{y:.0%}"))
    frac.update_layout(title="Share of claims supported per run (automatic check, before review)",
                       yaxis={"tickformat": ".0%", "range": [-0.05, 1.05]},
                       height=340, margin={"t": 50, "b": 40})
    c2.plotly_chart(frac, width="stretch", key="rep_fraction")

wanted = st.session_state.pop("open_run", None)
if wanted in ids:
    st.session_state["rep_open"] = wanted
elif st.session_state.get("rep_open") not in ids:
    st.session_state["rep_open"] = ids[0]
run_id = st.selectbox("Open run", ids, key="rep_open",
                      format_func=lambda i: f"{titles[i]} · {W.created(summaries[ids.index(i)].created_at)}")

run: Report | None = R.safe(access.open_run, rs, viewer, run_id, what="Opening the run")
if run is None:
    st.stop()
st.divider()
store = R.safe(R.store, what="Opening the store")

if run.kind == "ask":
    W.show_ask_run(run, store, key="review")
else:
    st.subheader("Verification: " + md_escape(run.title, inline=True))
    W.run_facts(run)
    W.metrics(run)
    W.answer_block(run)
    shown = run.claims
    if shown:
        c1, c2 = st.columns([5, 6], gap="large")
        with c1:
            options: list[int] = list(range(len(shown)))
            assessed = run.assessment()  # once, not once per claim label
            pick = st.radio("Claims — select one to see its evidence", options,
                            format_func=lambda i: W.claim_label(run, i + 1, assessed),
                            key=f"review_vclaim_{run.id}")
        with c2:
            W.claim_evidence(run, (pick or 0) + 1)

claims = run.claims
if claims:
    st.subheader("Review")
    latest = run.latest_reviews
    states = run.assessment().claims
    W.table([{"claim": i, "status": states[i - 1].label, "text": c.text,
              "verdict": VERDICTS[latest[i].verdict] if i in latest else "not reviewed",
              "by": latest[i].reviewer if i in latest else "",
              "at": W.created(latest[i].at) if i in latest else "",
              "comment": latest[i].comment if i in latest else ""} for i, c in enumerate(claims, 1)],
            key="review_table")
    if not viewer.signed_in and viewer.mode != "local":
        st.caption("Sign in to mark claims: every mark is stored with who made it.")
    else:
        # The form keeps what was typed: a mark that cannot be saved (no name yet, no comment for a
        # rejection) leaves claim, verdict and comment as they were; a saved one clears the comment only.
        with st.form(f"review_form_{run.id}", clear_on_submit=False, border=True):
            c1, c2 = st.columns([2, 3])
            c1.selectbox("Claim", list(range(1, len(claims) + 1)), key=f"rev_claim_{run.id}",
                         format_func=lambda i: f"{i}. {claims[i - 1].text[:70]}")
            c1.radio("Verdict", list(VERDICTS), format_func=VERDICTS.get, horizontal=True,
                     key=f"rev_verdict_{run.id}")
            c2.text_area("Comment", key=f"rev_comment_{run.id}", height=100,
                         placeholder="Why (required for rejected and needs work)")
            if viewer.mode == "local" and not viewer.name:
                c2.text_input("Your name, stored with the mark (asked once)", key="rev_name",
                              placeholder="e.g. Dana Reviewer")
            st.form_submit_button("Save mark", type="primary", icon=":material/done:", on_click=W.save_mark,
                                  args=(rs, run.id, len(claims)))
    if err := st.session_state.pop("rep_error", None):
        st.error(f"Saving the mark: {err}", icon=":material/error:")
    if flash := st.session_state.pop("rep_flash", None):
        st.success(md_escape(flash), icon=":material/check:")
    if run.reviews:
        with st.expander(f"Review history ({count(len(run.reviews), 'mark')})"):
            for r in reversed(run.reviews):
                st.markdown(f"{R.VERDICT_BADGE[r.verdict]} claim {r.claim} · "
                            f"**{md_escape(r.reviewer, inline=True)}** · {md_escape(W.created(r.at))}"
                            + (f" — {md_escape(r.comment, inline=True)}" if r.comment else ""))

st.subheader("Export and re-check")
cols = st.columns(4)
for col, (fmt, label) in zip(cols, [("pdf", "PDF"), ("html", "HTML"), ("markdown", "Markdown"), ("json", "JSON")]):
    data = R.safe(render.export, run, fmt, what=f"Preparing the {label} export")
    if data is not None:
        col.download_button(label, data, file_name=render.filename(run, fmt), mime=render.FORMATS[fmt][1],
                            icon=":material/download:", key=f"dl_{fmt}_{run.id}")
if run.kind == "ask":
    if st.button("Re-check against current corpus", icon=":material/published_with_changes:",
                 help="Is each quote still in the corpus, word for word, where it was?"):
        with R.guard("Re-checking"):
            from anchor_core.recheck import recheck

            st.session_state[f"recheck_{run.id}"] = recheck(run, store)
    if (result := st.session_state.get(f"recheck_{run.id}")) is not None:
        W.recheck_view(result)
else:
    st.caption("A verify run is checked against the source texts saved with it; re-run it on Verify with "
                    "new versions of the sources.")

if viewer.unrestricted:  # deleting a run drops its reviewer marks: admins and the local operator only
    with st.expander("Delete this run"):
        st.caption("Deletes the run and its reviewer marks from the workspace. Export it first to keep a copy.")
        if st.checkbox("I understand", key=f"del_ok_{run.id}") and st.button("Delete run", type="secondary",
                                                                                key=f"del_{run.id}"):
            with R.guard("Deleting the run"):
                access.require_admin(viewer, "Deleting a saved run")
                rs.delete(run.id)
                st.rerun()
