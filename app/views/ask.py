"""Ask: a question in; the live pipeline trace; an anchored answer or a refusal card."""

from __future__ import annotations

import resources as R
import streamlit as st
import widgets as W

from anchor_core import access, workspace
from anchor_core.safe import md_escape
from anchor_core.scorers import scorer_help

st.title("Ask")
st.caption("Answers are written only from retrieved provisions; every claim is anchored to an exact quote.")

store = R.safe(R.store, what="Opening the store")
if store is None:
    st.stop()
corpora = R.safe(store.corpora, what="Reading the corpora", default=[])
if not corpora:
    W.empty_store(store)
    st.stop()

names = [c.name for c in corpora]
with st.sidebar:
    st.subheader("Ask settings")
    if st.session_state.get("ask_corpus") not in names:
        st.session_state["ask_corpus"] = workspace.DEMO_CORPUS if workspace.DEMO_CORPUS in names else names[0]
    corpus = st.selectbox("Corpus", names, key="ask_corpus")
    viewer = R.viewer()
    st.caption(f"Asking as **{md_escape(viewer.label, inline=True)}**: {md_escape(viewer.access_label)}. "
               "Your groups come from your sign-in.")
    k = st.slider("Sources (k)", 1, 15, 5, key="ask_k")
    hops = st.slider("Reference hops", 0, 3, 1, key="ask_hops",
                     help="Follow explicit cross-references (“Article 6(2)” → “Annex III”) this many steps.")
    recitals = st.toggle("Include recitals", False, key="ask_recitals", help="Recitals are not binding.")
    scorers = R.scorer_choices()
    scorer_name = st.selectbox("Support scorer", scorers, key="ask_scorer", help=scorer_help(scorers))
    has_llm = R.safe(R.llm, what="Reading the LLM configuration") is not None
    writer = st.selectbox("Writer", ["auto", "extractive", "llm"], key="ask_writer",
                          help="extractive: quotes the best source sentences, offline. llm: needs GROQ_API_KEY or "
                               "ANCHOR_LLM_BASE_URL. auto: the LLM when configured.")
    st.caption("LLM configured" if has_llm else "No LLM configured: the offline extractive writer answers.")

with st.form("ask_form"):
    question = st.text_area("Question", key="ask_question", height=90,
                            placeholder=workspace.DEMO_QUESTION if corpus == workspace.DEMO_CORPUS else
                            "What do you want to know from this corpus?")
    c1, c2, _ = st.columns([1, 2, 3])
    asked = c1.form_submit_button("Ask", type="primary", icon=":material/send:")
    demo = c2.form_submit_button("Ask the demo question", disabled=corpus != workspace.DEMO_CORPUS)

if asked or demo:
    q = workspace.DEMO_QUESTION if demo else question
    if not q or not q.strip():
        st.warning("Type a question first — for example: " + workspace.DEMO_QUESTION, icon=":material/edit:")
    else:
        from anchor_core.ask import AskSettings

        ask_settings = AskSettings(k=k, hops=hops, include_recitals=recitals, groups=access.visible_groups(viewer),
                                   scorer=scorer_name, writer=writer)
        run_id = W.run_ask(q, store=store, corpus=corpus, settings=ask_settings)
        if run_id:
            st.session_state["ask_run"] = run_id

run_id = st.session_state.get("ask_run")
if run_id:
    run = R.safe(access.open_run, R.reports(), R.viewer(), run_id, what="Opening the last answer")
    if run is not None and run.kind == "ask":
        W.show_ask_run(run, store)
else:
    st.info(f"Ask a question about **{md_escape(corpus, inline=True)}**. The pipeline trace appears live; "
            "then select a claim to see its quote inside the source.", icon=":material/lightbulb:")

R.safe(R.warm_embedder, what="Loading the embedding model")
