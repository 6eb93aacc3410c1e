"""What every page shares: cached resources (store, saved reports, models) and error display.

Resources are cached with ``st.cache_resource`` keyed by the workspace settings, so each server
process opens the store once and loads a model once, and only the pages that need a model load
it. Every library call of a page runs inside :func:`guard`, which turns an error into a visible
message that says what to do, never a traceback.
"""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

import streamlit as st
from pydantic import ValidationError

from anchor_core import access
from anchor_core.access import Viewer
from anchor_core.config import Settings
from anchor_core.errors import AnchorError, ConfigError
from anchor_core.reports import ReportStore
from anchor_core.safe import md_escape
from anchor_core.stores import open_store

log = logging.getLogger("anchor.app")

STATUS_BADGE = {"supported": ":green-badge[:material/check: supported]",
                "flagged": ":orange-badge[:material/flag: flagged]",
                "contradicted": ":red-badge[:material/block: contradicted]",
                "not_found": ":red-badge[:material/close: not found]"}
VERDICT_BADGE = {"accepted": ":green-badge[accepted]", "rejected": ":red-badge[rejected]",
                 "needs_work": ":orange-badge[needs work]"}


def settings() -> Settings:
    """The workspace settings; a bad variable stops the page with its one-line message."""
    try:
        return Settings.from_env()
    except ConfigError as err:
        log.warning("bad setting: %s", err)
        st.error(f"Anchor is not configured correctly: {err} (restart `anchor dashboard` after the change).",
                 icon=":material/settings_alert:")
        st.stop()


@st.cache_resource(show_spinner=False)
def _store(key: str):
    return open_store(Settings.from_env())


def raw_store():
    """The corpus store of the workspace (SQLite by default), opened once per server process.
    Pages read through :func:`store`, which applies the viewer's access."""
    s = settings()
    return _store(repr(s))


def store() -> access.ScopedStore:
    """The store as the current viewer sees it: every read filtered to the viewer's documents,
    writes for admins (and the local operator) only."""
    return access.scoped(raw_store(), viewer())


_REVIEWER_FILE = "reviewer-name.txt"


def remembered_reviewer() -> str:
    """The reviewer name last entered in this workspace (local single-user mode), or empty."""
    try:
        return (settings().home / _REVIEWER_FILE).read_text(encoding="utf-8").strip()[:200]
    except OSError:
        return ""


def remember_reviewer(name: str) -> None:
    """Keep the local reviewer's name in the workspace, so it is asked once, not once per visit."""
    try:
        home = settings().home
        home.mkdir(parents=True, exist_ok=True)
        (home / _REVIEWER_FILE).write_text(" ".join(name.split())[:200], encoding="utf-8")
    except OSError as err:  # a read-only workspace: the name still holds for this session
        log.warning("could not remember the reviewer name: %s", err)


# -- who is looking ----------------------------------------------------------------------------
# request_headers and oidc_claims are the two places a request's identity is read; tests replace
# them (AppTest can seed st.user but not request headers).


def request_headers() -> list[tuple[str, str]]:
    """Every ``(name, value)`` header of the browser's request, a header sent twice twice."""
    h = st.context.headers
    return [(k, v) for k in h for v in h.get_all(k)]


def oidc_claims() -> dict:
    """``st.user``: the claims of the signed-in user's ID token, with ``is_logged_in``."""
    return st.user.to_dict()


def oidc_configured() -> bool:
    """True when ``.streamlit/secrets.toml`` has an ``[auth]`` section, so ``st.login`` can work."""
    try:
        return bool(st.secrets.get("auth"))
    except Exception:  # no secrets file at all
        return False


def viewer() -> Viewer:
    """Who the current session serves, from the identity source ``ANCHOR_AUTH`` names."""
    auth = settings().auth
    if auth.mode == "local":
        return access.local_viewer(str(st.session_state.get("reviewer") or ""))
    if auth.mode == "proxy":
        return access.viewer_from_headers(request_headers(), auth)
    return access.viewer_from_claims(oidc_claims(), groups_claim=auth.groups_claim, admin_group=auth.admin_group)


@st.cache_resource(show_spinner=False)
def _reports(path: str) -> ReportStore:
    return ReportStore(path)


def reports() -> ReportStore:
    return _reports(str(settings().home / ReportStore.FILE))


@st.cache_resource(show_spinner=False)
def _embedder(kind: str):
    """The embedder ``kind`` with its model loaded, once per server process; a second caller (a
    page while the background warm-up loads it) waits for the first load instead of loading twice."""
    from anchor_core.embeddings import make_embedder

    e = make_embedder(kind)
    load = getattr(e, "_load", None)
    if callable(load):
        load()  # pay the model load here, not inside the first question
    return e


def embedder():
    with st.spinner("Loading the embedding model (once per server)…"):
        return _embedder(settings().embedder)


def warm_embedder(delay: float = 1.0) -> None:
    """Load the model in a background thread once the page is on screen, so the first question does
    not wait for it. Importing torch holds the interpreter for seconds: run inside the page script it
    kept the first paint from reaching the browser (issue 15: first render ≤ 2 s)."""
    kind = settings().embedder

    def work() -> None:
        time.sleep(delay)  # let the server send the page that asked for the warm-up first
        try:
            _embedder(kind)  # no script context needed: the resource cache is per process
        except Exception as err:  # the page that needs the model shows the error, with what to install
            log.warning("warming the embedding model %s failed: %s", kind, err)

    threading.Thread(target=work, name=f"anchor-warm-{kind}", daemon=True).start()


@st.cache_resource(show_spinner=False)
def _scorer(name: str, embedder_kind: str | None, llm_key: str):
    from anchor_core.scorers import SCORERS, build_scorer

    emb = _embedder(embedder_kind) if embedder_kind and SCORERS[name].uses_embedder else None
    return build_scorer(name, embedder=emb, llm=llm() if SCORERS[name].needs else None)


def scorer(name: str, *, with_embedder: bool = True):
    """The scorer ``name`` from the registry, built once per server process."""
    s = settings()
    return _scorer(name, s.embedder if with_embedder else None, repr(s.llm))


def scorer_choices() -> list[str]:
    """The registry's scorers the dashboard can build: the LLM judge only when an LLM is configured
    (no page takes a local NLI model folder)."""
    from anchor_core.scorers import scorer_names

    return scorer_names(can_give=["llm"] if settings().llm is not None else [])


@st.cache_resource(show_spinner=False)
def _llm(key: str):
    from anchor_core.ask.pipeline import LLM

    config = settings().llm
    return LLM.from_config(config) if config else None


def llm():
    """The configured LLM (``GROQ_API_KEY`` or ``ANCHOR_LLM_BASE_URL``) or None: the offline path."""
    return _llm(repr(settings().llm))


def _message(err: BaseException) -> str:
    """What to tell the user about ``err``, as Markdown: the error's own text is escaped (it may quote
    an uploaded file, an answer or an export)."""
    detail = md_escape(str(err))
    if isinstance(err, AnchorError):
        return detail
    if isinstance(err, ValidationError):
        return md_escape("; ".join(e["msg"].removeprefix("Value error, ") for e in err.errors()))
    if isinstance(err, sqlite3.OperationalError) and "locked" in str(err):
        return ("The store is busy: another process (for example a running `anchor ingest`) holds its write lock. "
                "Wait until it finishes and try again; nothing was lost.")
    if isinstance(err, sqlite3.DatabaseError):
        return (f"The store could not be read ({detail}). If another program is writing to it, wait and try again; "
                "if the file is damaged, move it away and ingest again.")
    name = type(err).__name__
    if "Connection" in name or "Transport" in name or "Timeout" in name:
        return (f"The store could not be reached ({name}: {detail}). If ANCHOR_ES_URL points at Elasticsearch, "
                "check that it is running (`docker compose up -d elasticsearch`), or unset it to use the "
                "embedded store.")
    return f"Something went wrong ({name}: {detail}). Nothing was saved; try again, and report it if it persists."


@contextmanager
def guard(what: str = "") -> Iterator[None]:
    """Show any error of the block as a message (with what was being done), not a traceback."""
    try:
        yield
    except Exception as err:  # a page must never show a traceback
        log.warning("%s failed: %s", what or "action", err, exc_info=not isinstance(err, AnchorError))
        st.error(f"{md_escape(what) + ': ' if what else ''}{_message(err)}", icon=":material/error:")


def safe(fn, *args, what: str = "", default=None, **kw):
    """``fn(*args, **kw)``, or ``default`` with the error shown."""
    ok = False
    result = default
    with guard(what):
        result = fn(*args, **kw)
        ok = True
    return result if ok else default
