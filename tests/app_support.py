"""Helpers for the dashboard tests: a workspace with the AI Act (hash embedder) and an AppTest on a page."""

from __future__ import annotations

import os
from pathlib import Path

import streamlit as st
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from anchor_core.config import Settings
from anchor_core.embeddings import HashEmbedder
from anchor_core.indexing import ingest
from anchor_core.models import ParsedCorpus
from anchor_core.stores import open_store
from anchor_core.workspace import mark_demo_offered
from ingest import load_adapter_corpus
from tests.conftest import REPO

APP = REPO / "app" / "main.py"
DEMO_Q = "Is an AI system used to evaluate job applicants considered high risk?"


def settings() -> Settings:
    return Settings.from_env()


def home() -> Path:
    return Path(os.environ["ANCHOR_HOME"])


def store():
    return open_store(settings())


def ingest_aiact():
    s = store()
    info = ingest(s, HashEmbedder(), load_adapter_corpus("aiact", None), corpus="aiact", adapter="aiact")
    mark_demo_offered(home())
    return s, info


def ingest_parsed(parsed: ParsedCorpus, corpus: str = "widgets"):
    s = store()
    ingest(s, HashEmbedder(), parsed, corpus=corpus, adapter="test")
    mark_demo_offered(home())
    return s


def app(page: str | None = None) -> AppTest:
    """The dashboard, run once on ``page`` (``views/ask.py`` …)."""
    st.cache_resource.clear()  # stores are keyed by workspace, but a fresh start per test is clearer
    # as app/.streamlit/config.toml sets it for the real server (AppTest does not read that file)
    st_config.set_option("runner.magicEnabled", False)
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.run()
    if page:
        at.switch_page(page).run()
    return at


def texts(at: AppTest) -> str:
    """Everything readable on the page, joined (markdown, captions, alerts, html bodies)."""
    parts: list[str] = []
    for kind in ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader"):
        parts += [str(e.value) for e in getattr(at, kind)]
    parts += [h.value for h in at.get("html")]
    return "\n".join(parts)


def button(at: AppTest, label: str):
    found = [b for b in at.button if b.label == label]
    if not found:
        raise AssertionError(f"no button {label!r}; buttons: {[b.label for b in at.button]}")
    return found[0]


def no_traceback(at: AppTest) -> None:
    assert not at.exception, [e.value for e in at.exception]


def tables(at: AppTest) -> list:
    """Every table on the page as a DataFrame, as a reader sees it: the full-text tables (``st.table``,
    whose Markdown cells are escaped: the backslashes undone here) and the data grids."""
    import re

    def shown(v):
        return re.sub(r"\\(.)", r"\1", v) if isinstance(v, str) else v

    return [t.value.map(shown) for t in at.table] + [df.value for df in at.dataframe]


def table_with(at: AppTest, column: str):
    """The first table on the page that has ``column``."""
    found = [t for t in tables(at) if column in t.columns]
    if not found:
        raise AssertionError(f"no table with a {column!r} column; tables: {[list(t.columns) for t in tables(at)]}")
    return found[0]


def wait_for_job(at: AppTest, seconds: float = 120) -> AppTest:
    """Wait until the workspace's ingest job (a thread of the dashboard) finished, then redraw; without
    any job (the click was refused) the page is left as it is (its message stays readable)."""
    import sys
    import time

    jobs = sys.modules.get("jobs")
    job = jobs.JOBS.get(str(home())) if jobs is not None else None
    if job is None:
        return at
    end = time.monotonic() + seconds
    while job is not None and job.state == "running" and time.monotonic() < end:
        time.sleep(0.1)
    return at.run()
