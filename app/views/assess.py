"""Assess: a system description in; an applicability decision per topic, each with its quoted provisions."""

from __future__ import annotations

import resources as R
import streamlit as st
import widgets as W

from anchor_core.safe import md_escape

st.title("Assess")
st.caption("Describe an AI system: each topic of the AI Act is decided (applies, unclear — review, not applicable) "
           "from the provisions of that topic only, and every provision is quoted from the stored text.")

store, names = W.store_and_corpora()
with st.sidebar:
    st.subheader("Assess settings")
    corpus = W.corpus_choice(names, "assess_corpus")

EXAMPLE = "A tool that ranks job applicants' CVs for recruiters and shortlists candidates for interviews"
description = st.text_area("System description", key="assess_description", height=90, placeholder=EXAMPLE)
c1, c2, _ = st.columns([1, 2, 3])
go = c1.button("Assess", type="primary", icon=":material/gavel:")
example = c2.button("Assess the example")

if go or example:
    d = EXAMPLE if example else description
    if not d or not d.strip():
        st.warning("Describe the system first — for example: " + EXAMPLE, icon=":material/edit:")
    else:
        from anchor_core.ask.assess import assess

        with st.spinner("Deciding each topic…"):
            result = R.safe(assess, d, store=store, embedder=R.embedder(), corpus=corpus, what="Assessing")
        if result is not None:
            st.session_state["assess_result"] = result.model_dump(mode="json")

STATUS = {"applies": ":red[applies]", "unclear": ":orange[unclear — review]",
          "not_applicable": ":green[not applicable]"}

shown = st.session_state.get("assess_result")
if shown:
    from anchor_core.ask.assess import Assessment

    a = Assessment.model_validate(shown)
    st.markdown(f"**Assessment of:** {md_escape(a.description)}  \ncorpus `{md_escape(a.corpus, inline=True)}`")
    for note in a.notes:
        st.info(md_escape(note), icon=":material/info:")
    for dec in a.decisions:
        st.subheader(f"{dec.title}")
        st.markdown(f"{STATUS[dec.status]} · {md_escape(dec.decision)}  \n"
                    f"*{md_escape(dec.scope)}*" + (f" · why: {md_escape(dec.reason)}" if dec.reason else ""))
        for p in dec.provisions:
            note = f" — {md_escape(p.note)}" if p.note else ""
            st.markdown(f"**{md_escape(p.label, inline=True)}** `{md_escape(p.unit_id, inline=True)}` "
                        f"[{p.start}:{p.end}]{note}\n\n> {md_escape(' '.join(p.quote.split()))}")
        if dec.considered:
            st.caption("closest: " + md_escape("; ".join(f"{c.label} {c.score:+.2f}" for c in dec.considered)))
    for t in a.topics:
        st.subheader(md_escape(t.topic))
        st.caption(f"plain question: {md_escape(t.question)}")
        if t.refused:
            st.markdown(f"not established: {md_escape(t.reason)}")
        for p in t.provisions:
            st.markdown(f"**{md_escape(p.label, inline=True)}** [{p.start}:{p.end}]\n\n"
                        f"> {md_escape(' '.join(p.quote.split()))}")
    st.download_button("Download JSON", a.model_dump_json(indent=2), file_name="assessment.json",
                       mime="application/json", icon=":material/download:")
else:
    st.info("Describe a system (what it does, for whom, and whether you build it or use it).",
            icon=":material/lightbulb:")
