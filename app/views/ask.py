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

store, names = W.store_and_corpora()
with st.sidebar:
    st.subheader("Ask settings")
    corpus = W.corpus_choice(names, "ask_corpus")
    viewer = R.viewer()
    st.caption(f"Asking as **{md_escape(viewer.label, inline=True)}**: {md_escape(viewer.access_label)}. "
               "Your groups come from your sign-in.")
    st.session_state.setdefault("ask_k", 5)
    st.session_state.setdefault("ask_hops", 1)
    k = st.slider("Number of passages", 1, 15, key="ask_k",
                  help="How many passages the search hands to the answer (technical: k).")
    hops = st.slider("Follow cross-references", 0, 3, key="ask_hops",
                     help="How many steps to follow explicit references such as “Article 6(2)” → “Annex III” "
                          "(technical: reference hops).")
    recitals = st.toggle("Include recitals", False, key="ask_recitals",
                         help="Recitals explain a regulation but are not binding (technical: include_recitals).")
    scorers = R.scorer_choices()
    scorer_name = st.selectbox("How claims are checked", scorers, key="ask_scorer", format_func=W.scorer_label,
                               help=scorer_help(scorers) + " (technical: support scorer).")
    has_llm = R.safe(R.llm, what="Reading the LLM configuration") is not None
    writer = st.selectbox("Who writes the answer", ["auto", "extractive", "llm"], key="ask_writer",
                          format_func=W.WRITER_LABEL.get,
                          help="Quotes from the sources: composed offline from the best source sentences. "
                               "Language model: needs GROQ_API_KEY or ANCHOR_LLM_BASE_URL. Automatic: the language "
                               "model when one is configured (technical: writer auto / extractive / llm).")
    st.caption("A language model is configured." if has_llm else
               "No language model configured: answers are composed from quotes of the sources, offline.")

# Not a form: a form sends what was typed only when it is submitted, and a question typed but not yet
# asked would be lost on a visit to another page.
question = st.text_area("Question", key="ask_question", height=90,
                        placeholder=workspace.DEMO_QUESTION if corpus == workspace.DEMO_CORPUS else
                        "What do you want to know from this corpus?")
c1, c2, _ = st.columns([1, 2, 3])
asked = c1.button("Ask", type="primary", icon=":material/send:")
demo = c2.button("Ask the demo question", disabled=corpus != workspace.DEMO_CORPUS)

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
