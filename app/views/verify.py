"""Verify: an answer written elsewhere (with or without <cite> tags) and its sources → a per-claim report."""

from __future__ import annotations

import resources as R
import streamlit as st
import widgets as W

from anchor_core import access, workspace
from anchor_core.safe import md_escape
from anchor_core.scorers import scorer_help

st.title("Verify an answer")
st.caption('Cite with `<cite id="src">claim</cite>` or a marker after the sentence, `Claim.<cite id="src"/>`; '
           "sentences without a tag are checked against every source.")

def kept_files(key: str, files) -> list[tuple[str, bytes]]:
    """The files of uploader ``key``, kept in the session: a visit to another page empties an uploader
    (Streamlit cannot refill one), so the files it held stay listed and are used until removed."""
    store_key = f"{key}_kept"
    if files:
        st.session_state[store_key] = [(f.name, f.getvalue()) for f in files]
    elif st.session_state.get(f"{key}_seen") and st.session_state.get("page_before") == st.session_state.get(
            "page_now"):  # the reviewer removed them from the uploader just now (not: came back to the page)
        st.session_state[store_key] = []
    st.session_state[f"{key}_seen"] = bool(files)
    kept = st.session_state.get(store_key) or []
    if kept and not files:
        c1, c2 = st.columns([4, 1], vertical_alignment="center")
        c1.caption("Kept from before: " + md_escape(", ".join(n for n, _ in kept), inline=True))
        if c2.button("Remove", key=f"{key}_forget", icon=":material/close:"):
            st.session_state[store_key] = []
            st.rerun()
    return kept


# The pasted-sources table: the editor's own state is its edits to the data it was given, and it
# is dropped on another page; its rows are kept and handed back as the data when it is drawn anew.
if "verify_sources_table" not in st.session_state:
    st.session_state["verify_sources_base"] = st.session_state.get("verify_sources_rows") or [{"id": "", "text": ""}]

left, right = st.columns(2, gap="large")
with left:
    st.markdown("**Answer**")
    answer_text = st.text_area("Paste the answer", key="verify_answer", height=220,
                               placeholder='High-risk AI systems shall be designed to allow logging.<cite id="art12"/>')
    answer_files = kept_files("verify_answer_file", [f] if (f := st.file_uploader(
        "…or upload it (.txt, .md)", type=["txt", "md"], key="verify_answer_file")) else [])

with right:
    st.markdown("**Sources**")
    source_files = kept_files("verify_source_files", st.file_uploader(
        "Upload sources: PDF, Word, HTML, .txt/.md (id = file name) or .json {id: text}",
        type=["pdf", "docx", "html", "htm", "txt", "md", "json"], accept_multiple_files=True,
        key="verify_source_files"))
    pasted = st.data_editor(st.session_state["verify_sources_base"], num_rows="dynamic", key="verify_sources_table",
                            column_config={"id": st.column_config.TextColumn("id", width="small"),
                                           "text": st.column_config.TextColumn("text", width="large")},
                            width="stretch")
    st.session_state["verify_sources_rows"] = [dict(r) for r in pasted or []]
    store = R.safe(R.store, what="Opening the store")
    corpora = [c.name for c in R.safe(store.corpora, default=[])] if store is not None else []
    unit_ids: list[str] = []
    corpus = None
    if corpora:
        with st.expander("…or use units of a stored corpus as sources",
                         expanded=bool(st.session_state.get("verify_units"))):
            W.valid_choice("verify_corpus", corpora)
            corpus = st.selectbox("Corpus", corpora, key="verify_corpus")
            offered = R.safe(store.unit_ids, corpus, default=[])
            W.valid_choice("verify_units", offered, many=True)
            unit_ids = st.multiselect("Units", offered, key="verify_units",
                                      placeholder="e.g. article-6")

with st.sidebar:
    st.subheader("Verify settings")
    scorers = R.scorer_choices()
    scorer_name = st.selectbox("How claims are checked", scorers, key="verify_scorer", format_func=W.scorer_label,
                               help=scorer_help(scorers) + " (technical: support scorer).")
    st.session_state.setdefault("verify_semantic", True)
    semantic = st.toggle("Compare meaning, not only words", key="verify_semantic",
                         help="Use the embedding model for dense search and the similarity feature "
                              "(loads the model once; technical: semantic similarity).")

if st.button("Verify", type="primary", icon=":material/fact_check:"):
    with R.guard("Verifying"):
        from anchor_core.verify import verify_answer

        answer = (workspace.decode_upload(answer_files[0][0], answer_files[0][1], "answer")
                  if answer_files and not answer_text.strip() else answer_text)
        read = workspace.read_source_files(source_files)
        sources = read.texts
        for row in pasted or []:
            sid, text = str(row.get("id") or "").strip(), str(row.get("text") or "")
            if text.strip():
                sources[sid or f"pasted-{len(sources) + 1}"] = text
        if corpus and unit_ids:
            sources.update(workspace.unit_sources(store, corpus, unit_ids))
        if not answer.strip():
            st.warning("Paste or upload the answer to verify.", icon=":material/edit:")
        elif not sources:
            st.warning("Give at least one source: upload files, paste a text with its id, or pick corpus units.",
                       icon=":material/source:")
        else:
            with st.spinner("Verifying each claim…"):
                emb = R.embedder() if semantic else None
                report = verify_answer(answer, sources, scorer=R.scorer(scorer_name, with_embedder=semantic),
                                       embedder=emb, pages=read.pages, notes=read.notes)
            st.session_state["verify_run"] = access.save_run(R.reports(), R.viewer(), report).id

run_id = st.session_state.get("verify_run")
run = R.safe(access.open_run, R.reports(), R.viewer(), run_id, what="Opening the last verification") \
    if run_id else None
if run is not None and run.kind == "verify":
    st.divider()
    st.subheader("Verification report")
    W.run_facts(run, " · saved — review and export it on the Reports page")
    for note in run.notes:
        st.warning(md_escape(note), icon=":material/warning:")
    W.metrics(run)
    W.answer_block(run)
    claims = run.claims
    if claims:
        c1, c2 = st.columns([5, 6], gap="large")
        with c1:
            assessed = run.assessment()  # once, not once per claim label
            pick = st.radio("Claims — select one to see its evidence", range(len(claims)),
                            format_func=lambda i: W.claim_label(run, i + 1, assessed),
                            key=f"verify_claim_{run.id}")
        with c2:
            W.claim_evidence(run, pick + 1)
    if st.button("Review and export this run", icon=":material/rate_review:"):
        st.session_state["open_run"] = run.id
        st.switch_page("views/reports.py")
elif not run_id:
    st.info("Paste an answer and its sources, then press **Verify**.", icon=":material/lightbulb:")
