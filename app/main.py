"""Anchor dashboard: ``anchor dashboard`` (or ``streamlit run app/main.py``).

The entry script only sets up navigation, who is signed in (the sidebar says so, with the mode and
the groups) and the first-start demo corpus;
each page is a short top-to-bottom script in ``app/views/`` over the library.
"""

from __future__ import annotations

import re

import streamlit as st

st.set_page_config(page_title="Anchor — grounded answers", page_icon="⚓", layout="wide")

import resources as R  # noqa: E402  (the app folder is on sys.path when Streamlit runs this script)
import widgets as W  # noqa: E402
from jobs import JOBS  # noqa: E402
from style import LAYOUT_CSS  # noqa: E402

from anchor_core import workspace  # noqa: E402
from anchor_core.safe import md_code, md_escape  # noqa: E402

pages = {
    "Work": [
        st.Page("views/ask.py", title="Ask", icon=":material/question_answer:", default=True),
        st.Page("views/verify.py", title="Verify", icon=":material/fact_check:"),
        st.Page("views/assess.py", title="Assess", icon=":material/gavel:"),
        st.Page("views/reports.py", title="Reports", icon=":material/assignment_turned_in:"),
    ],
    "Library": [st.Page("views/corpora.py", title="Corpora", icon=":material/library_books:")],
}
page = st.navigation(pages)

st.html(LAYOUT_CSS)  # constant CSS, no data

# What a reviewer typed or chose on a page survives a visit to another page. Streamlit drops the
# state of a widget that was not drawn in a run, and a browser that opens a page starts its widgets
# empty even where the server still holds a value (streamlit/streamlit#6146). So every run notes
# the current values here; a value whose state was dropped is put back, and on the first run of a
# page every noted value is written again, which makes the server send it to the widget. Never on a
# later run of the same page: writing a live widget's value would overwrite what the reviewer is
# typing into it at that moment (a corpus name, while an upload reruns the page). File uploaders,
# buttons and the data editor cannot be set this way; Verify keeps those itself.
KEEP = re.compile(r"(ask_(corpus|k|hops|recitals|scorer|writer|question|claim_.*)|verify_(answer|corpus|units|scorer"
                  r"|semantic|claim_.*)|rep_(kind|corpus|state|text|open)|review_.*|rev_(claim|verdict"
                  r"|comment)_.*|rev_name|cp_(corpus|doc|recitals|unit|scope)|up_(into|new_name|existing|groups)"
                  r"|reviewer|assess_(corpus|description))")
_kept: dict = st.session_state.setdefault("kept_input", {})
for _key in [k for k in st.session_state if KEEP.fullmatch(str(k))]:
    _kept[_key] = st.session_state[_key]
_new_page = st.session_state.get("page_now") != page.url_path
for _key, _value in _kept.items():
    if _new_page or _key not in st.session_state:
        st.session_state[_key] = _value


def identity() -> None:
    """Who you are, your groups and the sign-in mode, plainly, with sign-in / sign-out."""
    mode = R.settings().auth.mode
    st.subheader("Signed in" if R.viewer().signed_in and mode != "local" else "Access")
    if mode == "local":
        if "reviewer" not in st.session_state:
            st.session_state["reviewer"] = R.remembered_reviewer()
        st.text_input("Reviewer", key="reviewer", placeholder="your name",
                      on_change=lambda: R.remember_reviewer(str(st.session_state.get("reviewer") or "")),
                      help="Stored with every mark you make on a claim and remembered in this workspace "
                           "(local single-user mode only).")
        st.warning("**Local single-user mode** (`ANCHOR_AUTH=local`): no sign-in; you see every document. "
                   "Anyone who can reach this port can too.", icon=":material/person:")
        return
    v = R.viewer()
    who = md_escape(v.label, inline=True) + (f" ({md_escape(v.email, inline=True)})"
                                               if v.email and v.email != v.label else "")
    st.markdown(f"**{who}**  \n" + ("admin · " if v.is_admin else "")
                + f"sees {md_escape(v.access_label, inline=True)}")
    how = {"oidc": "OIDC sign-in (`st.login`)", "proxy": "trusted proxy headers"}[mode]
    st.caption(f"Mode: {how}" + (f" · groups from claim {md_code(R.settings().auth.groups_claim)}"
                                 if mode == "oidc" else ""))
    if v.note:
        st.caption(md_escape(v.note))
    if mode == "oidc":
        if v.signed_in:
            st.button("Sign out", on_click=st.logout, icon=":material/logout:", key="sign_out")
        elif R.oidc_configured():
            st.button("Sign in", on_click=st.login, type="primary", icon=":material/login:", key="sign_in")
        else:
            st.caption("Sign-in is not configured: add an `[auth]` section to `.streamlit/secrets.toml` "
                       "(README, “Sign-in and access groups”), or start `anchor dashboard --local` for "
                       "single-user use.")


with st.sidebar:
    identity()
    st.caption(f"Workspace `{R.settings().home}`")


def first_start() -> None:
    """On the very first start (empty store, demo never offered) load the AI Act demo corpus, as the
    workspace's shared ingest job: a reload or a second tab shows the same job's progress (as it
    does for an upload's job)."""
    if not R.viewer().unrestricted:
        return  # loading the demo is an ingest: admins and the local operator only
    home = str(R.settings().home)
    if JOBS.get(home) is None:
        store = R.safe(R.store, what="Opening the store")
        if store is None or not R.safe(workspace.needs_demo, store, R.settings().home, what="Checking the store",
                                       default=False):
            return
        W.start_demo(store)
    W.job_status()


first_start()
# Which page the previous run drew: Verify tells a reviewer's removing a file from coming back to it.
st.session_state["page_before"], st.session_state["page_now"] = st.session_state.get("page_now"), page.url_path
page.run()
