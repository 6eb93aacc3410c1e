"""The dashboard with Elasticsearch configured but not running: a message that says what to do on
every page, never a traceback."""

from __future__ import annotations

import pytest

from tests import app_support as A


@pytest.mark.parametrize("page", [None, "views/corpora.py", "views/reports.py", "views/verify.py"])
def test_elasticsearch_down_is_a_visible_message(monkeypatch, page):
    monkeypatch.setenv("ANCHOR_STORE", "elasticsearch")
    monkeypatch.setenv("ANCHOR_ES_URL", "http://127.0.0.1:9")  # nothing listens on the discard port
    monkeypatch.setenv("ANCHOR_ES_TIMEOUT", "2")
    monkeypatch.setenv("ANCHOR_ES_RETRIES", "0")
    at = A.app(page)
    A.no_traceback(at)
    if page in (None, "views/corpora.py"):  # the pages that open the store say why it failed
        text = A.texts(at)
        assert "cannot reach Elasticsearch at http://127.0.0.1:9" in text, text[:600]
        assert "docker compose up -d elasticsearch" in text  # says what to do
