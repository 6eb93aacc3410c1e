"""Shared fixtures: a temporary workspace per test and a deterministic embedder.

Tests that need the real MiniLM model are marked ``model``; everything else uses
:class:`~anchor_core.embeddings.HashEmbedder`, which proves the plumbing without a model.
"""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

import pytest

from anchor_core.embeddings import HashEmbedder
from anchor_core.models import Document, ParsedCorpus, Part, Reference, Unit

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "data"


@pytest.fixture(autouse=True)
def _workspace(request, tmp_path, monkeypatch):
    monkeypatch.setenv("ANCHOR_HOME", str(tmp_path / "home"))
    monkeypatch.setenv("ANCHOR_EMBEDDER", "hash")
    # The answerability cross-encoder is a real model, opt-in (ANCHOR_ANSWER_MODEL=answers): unit tests run the
    # gate on its fallback features (deterministic, no torch), as the default does; tests marked ``model`` run it.
    # The same for the contradiction reader that flags supported claims (anchor_core.check).
    if request.node.get_closest_marker("model") is None:
        monkeypatch.setenv("ANCHOR_ANSWER_MODEL", "off")
        monkeypatch.setenv("ANCHOR_READER_MODEL", "off")
    else:
        monkeypatch.setenv("ANCHOR_ANSWER_MODEL", "answers")  # opt-in: the default does not run it
        monkeypatch.delenv("ANCHOR_READER_MODEL", raising=False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    # The dashboard tests run as the local operator unless they choose a sign-in mode themselves
    # (tests/test_app_auth.py); without a setting the dashboard would serve public documents only.
    monkeypatch.setenv("ANCHOR_AUTH", "local")


@pytest.fixture
def embedder() -> HashEmbedder:
    return HashEmbedder()


@pytest.fixture
def browser():
    """Debian's chromium, driven by Playwright with no browser download (the test is skipped without either),
    closed after the test."""
    from tests.test_browser import ARGS, CHROMIUM

    if not CHROMIUM.exists():
        pytest.skip("Debian's chromium is not installed (apt-get install chromium); .ci/run installs it")
    sync_api = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (requirements.txt)")
    with sync_api.sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=ARGS)
        try:
            yield launched
        finally:
            launched.close()


@pytest.fixture(scope="session")
def minilm():
    from anchor_core.embeddings import MiniLMEmbedder

    e = MiniLMEmbedder()
    e._load()
    return e


@dataclass(frozen=True)
class IngestedHome:
    home: Path
    stdout: str
    """What ``anchor ingest aiact`` printed (the README shows it)."""


@pytest.fixture(scope="session")
def aiact_minilm_home(tmp_path_factory) -> IngestedHome:
    """A workspace where ``anchor ingest aiact`` ran with the real model, as a user runs it
    (shared by the model tests and the README check; ingesting once saves a minute)."""
    from anchor_core.cli import main

    home = tmp_path_factory.mktemp("aiact-minilm") / "home"
    out = io.StringIO()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("ANCHOR_HOME", str(home))
        mp.setenv("ANCHOR_EMBEDDER", "minilm")
        mp.setenv("HF_HUB_OFFLINE", "1")
        with contextlib.redirect_stdout(out):
            assert main(["ingest", "aiact"]) == 0
    return IngestedHome(home, out.getvalue())


def unit(unit_id: str, text: str, *, doc_id: str = "doc", kind: str = "article", heading: str | None = None,
         title: str = "", parts: list[tuple[str, str]] | None = None) -> Unit:
    """A unit whose parts are given as (label, exact substring of text)."""
    ps = []
    for label, sub in parts or []:
        start = text.index(sub)
        ps.append(Part(label=label, start=start, end=start + len(sub)))
    return Unit(unit_id=unit_id, doc_id=doc_id, kind=kind, heading=heading or unit_id, title=title, text=text, parts=ps)


def ref(src: Unit, raw: str, dst_unit: str | None, dst_part: str | None = None) -> Reference:
    start = src.text.index(raw)
    part = next((p.label for p in src.parts if p.start <= start < p.end), None)
    return Reference(src_unit=src.unit_id, src_part=part, start=start, end=start + len(raw), raw=raw,
                     dst_unit=dst_unit, dst_part=dst_part)


@pytest.fixture
def small_corpus() -> ParsedCorpus:
    """Two articles and an annex, with Article 2(2) pointing at Annex 1 point 2."""
    a1 = unit("article-1", "1. This Regulation lays down rules on widget safety.\n2. It applies to widget makers.",
              heading="Article 1", title="Subject matter",
              parts=[("1", "1. This Regulation lays down rules on widget safety."),
                                                               ("2", "2. It applies to widget makers.")])
    a2 = unit("article-2", "1. Widgets shall be tested before sale.\n2. Widgets listed in Annex I shall be registered.",
              heading="Article 2", title="Testing", parts=[("1", "1. Widgets shall be tested before sale."),
                                                          ("2", "2. Widgets listed in Annex I shall be registered.")])
    x1 = unit("annex-1", "1. Blue widgets used in kitchens.\n2. Red widgets used for recruitment of staff.",
              kind="annex", heading="Annex I", title="Registered widgets",
              parts=[("1", "1. Blue widgets used in kitchens."),
                     ("2", "2. Red widgets used for recruitment of staff.")])
    refs = [ref(a2, "Annex I", "annex-1"), ref(x1, "Blue", None)]
    return ParsedCorpus(documents=[Document(doc_id="doc", title="Widget Act")], units=[a1, a2, x1], references=refs)
