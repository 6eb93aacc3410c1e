"""Corpora: upload documents, see what is stored, delete with confirmation, explore the reference network."""

from __future__ import annotations

import graph as G
import resources as R
import streamlit as st
import widgets as W
from jobs import JOBS

from anchor_core import workspace
from anchor_core.errors import AnchorError
from anchor_core.safe import md_escape
from anchor_core.text import count

st.title("Corpora")

store = R.safe(R.store, what="Opening the store")
if store is None:
    st.stop()
corpora = R.safe(store.corpora, what="Reading the corpora", default=[])
names = [c.name for c in corpora]

admin = R.viewer().unrestricted  # ingest, upload and delete: admins and the local operator only

# -- upload -------------------------------------------------------------------------------------
if not admin:
    st.caption("Adding and deleting documents is for administrators (the admin group, "
               "ANCHOR_AUTH_ADMIN_GROUP). You see the documents you may read: "
               f"{md_escape(R.viewer().access_label)}.")
if admin:
    with st.container(border=True):
        st.subheader("Add documents")
        files = st.file_uploader("Drop PDF, Word, HTML, Markdown or text files (several at once)",
                                 type=workspace.UPLOAD_TYPES, accept_multiple_files=True, key="up_files")
        # Always one slot for the estimate, so the fields below keep their place when files are dropped:
        # a field that moves is drawn anew, and whatever was being typed into it would be lost.
        with st.container():  # the model's spinner, the warning and the caption all stay in this slot
            if files:
                estimates = R.safe(workspace.upload_estimates, [(f.name, f.size) for f in files],
                                   workspace.ingest_embedder(R.embedder(), R.settings()), default=[])
                long = [e for e in estimates if e.large]
                if long:
                    st.warning("A long upload: " + "; ".join(e.summary() for e in long) + " (estimated from the "
                               "size). If it is interrupted, embedding resumes where it stopped on the next upload "
                               "of the file.", icon=":material/schedule:")
                elif estimates:
                    st.caption(f"{count(sum(e.chunks for e in estimates), 'chunk')} or so to embed, "
                               f"about {workspace.duration(sum(e.seconds or 0 for e in estimates))}.")
        c1, c2, c3 = st.columns([2, 3, 3])
        into = c1.radio("Into", ["new corpus", "existing corpus"], key="up_into", disabled=not names)
        if into == "new corpus" or not names:
            target = c2.text_input("New corpus name", key="up_new_name", placeholder="e.g. contracts")
        else:
            W.valid_choice("up_existing", names)
            target = c2.selectbox("Corpus", names, key="up_existing")
        known_groups = sorted({g for n in names for g in R.safe(workspace.corpus_groups, store, n, default=[])})
        groups = c3.multiselect("Access groups", known_groups, accept_new_options=True, key="up_groups",
                                help="Only queries in one of these groups see the documents. Empty: public.")
        home = str(R.settings().home)
        busy = JOBS.running(home)
        if busy is not None:
            st.caption(f"Another ingest is running ({md_escape(busy.what)}): one at a time per workspace. Its "
                       "progress is shown at the top of the page.")
        if st.button("Ingest", type="primary", icon=":material/upload:", disabled=not files or busy is not None):
            with R.guard("Ingesting"):
                corpus = workspace.check_corpus_name(target or "")
                if into == "new corpus" and corpus in names:
                    raise AnchorError(f"a corpus named {corpus!r} already exists; choose “existing corpus” "
                                                "to add these files to it, or another name")
                W.start_upload(store, [(f.name, f.getvalue()) for f in files], corpus=corpus, groups=groups)
                st.session_state.pop("up_results", None)
                st.rerun()
        done = JOBS.get(home)
        if done is not None and done.kind == "upload" and done.state == "done" and done.result is not None:
            st.session_state["up_results"] = done.result  # every tab sees the last upload's results
        if st.session_state.get("up_results"):
            rows = st.session_state["up_results"]
            bad = [r for r in rows if r["status"] == "failed"]
            (st.warning if bad else st.success)(
                f"{len(rows) - len(bad)} of {count(len(rows), 'file')} stored"
                + (": see the errors below." if bad else "."),
                icon=":material/warning:" if bad else ":material/check:")
            W.table(rows, key="up_results_table")

# -- what is stored -----------------------------------------------------------------------------
st.subheader("Stored corpora")
if not corpora:
    W.empty_store(store)
    st.stop()
W.corpora_table(R.safe(workspace.corpus_rows, store, default=[]))

if (nxt := st.session_state.pop("cp_unit_next", None)) is not None:
    st.session_state["cp_unit"] = nxt  # a unit clicked on the graph: set before its picker is drawn
W.valid_choice("cp_corpus", names)
corpus = st.selectbox("Corpus", names, key="cp_corpus")
docs = R.safe(store.documents, corpus, what=f"Reading the documents of {corpus}", default=[])
tab_docs, tab_graph = st.tabs(["Documents", "Reference network"])

with tab_docs:
    W.table([{"document": d.doc_id, "title": d.title, "groups": ", ".join(d.groups) or "public",
              "pages": d.meta.get("pages"), "source": d.source} for d in docs], key="documents_table")
    c1, c2 = st.columns(2)
    if admin:
        W.valid_choice("cp_doc", [d.doc_id for d in docs])
        doc_id = c1.selectbox("Document", [d.doc_id for d in docs], key="cp_doc")
        if c1.button("Delete document…", disabled=not doc_id, icon=":material/delete:"):
            st.session_state["pending_delete"] = ("document", corpus, doc_id)
        if c2.button(f"Delete corpus {md_escape(corpus, inline=True)}…", icon=":material/delete_forever:"):
            st.session_state["pending_delete"] = ("corpus", corpus, None)
    pending = st.session_state.get("pending_delete") if admin else None
    if pending:
        what, p_corpus, p_doc = pending
        with st.container(border=True):
            d, c = md_escape(str(p_doc), inline=True), md_escape(p_corpus, inline=True)
            st.warning(f"Delete document **{d}** from corpus **{c}**?" if what == "document" else
                       f"Delete corpus **{c}** with all its documents?"
                       " Saved reports stay; re-check will then report their quotes as gone.",
                       icon=":material/warning:")
            y, n = st.columns(2)
            if y.button("Yes, delete", type="primary", key="confirm_delete"):
                st.session_state.pop("pending_delete", None)
                with R.guard("Deleting"):
                    if what == "document":
                        workspace.delete_document(store, p_corpus, p_doc)
                    else:
                        store.delete_corpus(p_corpus)
                    st.session_state["cp_flash"] = f"Deleted {what} {p_doc or p_corpus}."
                    st.rerun()
            if n.button("Cancel", key="cancel_delete"):
                st.session_state.pop("pending_delete", None)
                st.rerun()
    if flash := st.session_state.pop("cp_flash", None):
        st.success(md_escape(flash), icon=":material/check:")

with tab_graph:
    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    scope = c2.radio("Show", ["around the selected unit", "the whole corpus"], horizontal=True, key="cp_scope",
                     help="Around the selected unit: the units it cites and the units that cite it, with arrows. "
                          "The whole corpus: every unit with a reference, the most cited named.")
    recitals = c2.toggle("Include recitals", False, key="cp_recitals", help="Recitals are not binding.")
    ids_all = R.safe(store.unit_ids, corpus, default=[])
    units = R.safe(store.get_units, corpus, ids_all, what="Reading the units", default={})
    names = G.kind_names(units.values())
    counts = R.safe(G.corpus_counts, store, corpus, what="Counting the references", default={})
    pickable = sorted((u for u in units if recitals or units[u].kind != "recital"),
                      key=lambda u: (-counts.get(u, (0, 0))[1], units[u].heading))
    if not pickable:
        st.info("This corpus has no units to show.", icon=":material/hub:")
        st.stop()
    if st.session_state.get("cp_unit") not in pickable:
        st.session_state["cp_unit"] = pickable[0]
    unit_id = c1.selectbox("Unit", pickable, key="cp_unit",
                           format_func=lambda u: f"{units[u].heading}" + (f" — {units[u].title[:70]}"
                                                                          if units[u].title else ""))
    if scope == "the whole corpus":
        graph = R.safe(workspace.corpus_graph, store, corpus, include_recitals=recitals,
                       what="Building the reference network")
        fig = G.whole(graph, units, names, counts) if graph is not None and graph.nodes else None
        caption = (f"{count(len(graph.nodes), 'unit')}, {count(len(graph.edges), 'link')}; node size = how often a "
                   "unit is cited, the 12 most cited are named" + (f"; {count(graph.hidden, 'unit')} without "
                                                                    "references hidden" if graph.hidden else "")
                   if graph is not None else "")
    else:
        center = units[unit_id]
        link = R.safe(G.links, store, corpus, unit_id, what="Reading the references", default=G.Links())
        near = {u: units[u] for u in [*link.cites, *link.cited_by]
                if u in units and (recitals or units[u].kind != "recital")}
        fig = G.neighbourhood(center, near, link, names, counts)
        caption = (f"{center.heading}: cites {count(len(link.cites), 'other unit')}, cited by "
                   f"{count(len(link.cited_by), 'unit')}; an arrow points from the citing unit to the cited one"
                   + ("; dotted orange arrows link through a chapter or section" if link.through else ""))
        if center.containers:
            caption = f"{center.heading} sits in " + " › ".join(c.display for c in center.containers) + ". " + caption
    if fig is None:
        st.info("No resolved references between units of this corpus: nothing to draw.", icon=":material/hub:")
    else:
        event = st.plotly_chart(fig, on_select="rerun", selection_mode="points",
                                key=f"graph_{corpus}_{scope[:3]}_{unit_id}", width="stretch")
        st.caption(md_escape(caption) + ". Click a unit to read it and see its neighbourhood.")
        clicked = [p.get("customdata") for p in (event.selection.points if event else []) if p.get("customdata")]
        if clicked and clicked[0] in pickable and clicked[0] != unit_id:
            st.session_state["cp_unit_next"] = clicked[0]
            st.rerun()
    W.unit_reader(store, corpus, unit_id, names)
