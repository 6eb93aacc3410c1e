"""A real browser on the real server: `anchor dashboard` on a free port, Debian's headless Chromium
driven by Playwright, the demo question asked, the anchored quote seen, a screenshot saved."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from anchor_core.reports import ReportStore
from tests import app_support as A
from tests.conftest import REPO

pytestmark = pytest.mark.browser
CHROMIUM = Path("/usr/bin/chromium")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout: float = 60) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if proc.poll() is not None:
            tail = proc.stderr.read().decode()[-2000:] if proc.stderr else "(see its log file)"
            raise AssertionError(f"the dashboard exited with {proc.returncode}: {tail}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.3)
    raise AssertionError(f"the dashboard did not answer at {url} within {timeout}s")


@contextlib.contextmanager
def running(argv: list[str], port: int, env: dict[str, str], cwd: Path | None = None,
            log: Path | None = None) -> Iterator[str]:
    """The dashboard started by ``argv`` in its own process group, healthy at the yielded URL, and
    stopped (the whole group: `anchor dashboard` and its streamlit child) afterwards. ``log``: a file
    that receives the server's log (stderr), for a test to read."""
    err = open(log, "wb") if log is not None else subprocess.PIPE  # noqa: SIM115 (closed below)
    proc = subprocess.Popen(argv, env=env, cwd=cwd, stdout=subprocess.DEVNULL, stderr=err,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        _wait_healthy(url, proc)
        yield url
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
        if log is not None:
            err.close()


def streamlit_argv(port: int, *extra: str) -> list[str]:
    """``streamlit run`` on the checkout's app, headless on ``127.0.0.1:port``."""
    return [sys.executable, "-m", "streamlit", "run", str(REPO / "app" / "main.py"), "--server.port", str(port),
            "--server.address", "127.0.0.1", "--server.headless", "true", *extra]


@pytest.fixture
def server(tmp_path):
    A.ingest_aiact()  # hash embedder, into the test's ANCHOR_HOME
    port = _free_port()
    anchor = shutil.which("anchor")
    cmd = [anchor] if anchor else [sys.executable, "-m", "anchor_core.cli"]
    env = {**os.environ, "ANCHOR_EMBEDDER": "hash", "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    with running([*cmd, "dashboard", "--port", str(port), "--no-browser"], port, env) as url:
        yield url


def test_ask_the_demo_question_in_a_real_browser(browser, server, tmp_path):
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.goto(server, wait_until="domcontentloaded")
    page.get_by_role("button", name="Ask the demo question").click(timeout=60_000)
    mark = page.locator(".anchor-source mark").first
    mark.wait_for(state="visible", timeout=60_000)
    quote = mark.inner_text().strip()
    page.get_by_text("Answered in").first.wait_for(timeout=30_000)
    # the long source box scrolled itself so that the quote is inside its visible area
    page.wait_for_function("""() => { const m = document.querySelector('.anchor-source mark');
        const b = m && m.closest('.anchor-source'); if (!b) return false;
        const mr = m.getBoundingClientRect(), br = b.getBoundingClientRect();
        return mr.top >= br.top && mr.top < br.bottom; }""", timeout=10_000)
    mark.evaluate("m => m.closest('.anchor-source').scrollIntoView({block: 'center'})")
    shot = tmp_path / "dashboard-ask.png"
    page.screenshot(path=str(shot), full_page=True)
    assert shot.exists() and shot.stat().st_size > 10_000
    runs = ReportStore(A.home() / "reports.db").list()
    assert runs and runs[0].kind == "ask" and runs[0].claims >= 1
    first = ReportStore(A.home() / "reports.db").get(runs[0].id).claims[0].anchor
    # the highlighted text in the browser is the first claim's anchored quote, exactly
    assert len(quote.split()) >= 5 and " ".join(quote.split()) == " ".join(first.quote.split())


@pytest.mark.parametrize("run_id", ["RUN_ID", "ATTR_ID"])
def test_a_crafted_export_imported_on_reports_runs_nothing_and_loads_nothing(browser, server, tmp_path, run_id):
    """The stored-XSS report: a crafted export (hostile run id, question, answer, quote, comment) imported
    on the Reports page must not change document.title, open a dialog, or fetch the remote image."""
    from anchor_core import render
    from tests import payloads
    from tests.payloads import HOSTILE, IMAGE, hostile_ask_report

    crafted = ReportStore(tmp_path / "elsewhere.db")
    run = crafted.save(hostile_ask_report(), run_id=getattr(payloads, run_id))
    crafted.review(run.id, 1, "needs_work", reviewer=f"Eve {IMAGE}", comment=f"see {HOSTILE}")
    export = tmp_path / "crafted.html"
    export.write_bytes(render.export(crafted.get(run.id), "html"))
    local = server.split("//", 1)[1]
    requests: list[str] = []
    dialogs: list[str] = []
    page = browser.new_page(viewport={"width": 1440, "height": 1000})
    page.on("request", lambda r: requests.append(r.url))
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    # nothing leaves the machine even if a fetch were attempted; the request is still recorded
    page.route("**/*", lambda route: route.continue_() if local in route.request.url else route.abort())
    page.goto(server + "/reports", wait_until="domcontentloaded")
    page.get_by_text("Import an exported report").first.click(timeout=60_000)
    title = page.title()
    page.locator("input[type=file]").first.set_input_files(str(export))
    page.get_by_role("button", name="Import", exact=True).click(timeout=30_000)
    page.get_by_text("Imported run").first.wait_for(timeout=30_000)
    page.locator(".anchor-source mark").first.wait_for(state="visible", timeout=30_000)
    page.wait_for_timeout(2_000)  # time for any injected script or image to act
    assert page.title() == title and title.startswith("Anchor")
    assert page.evaluate("document.title") == title
    # the payloads are on the page as text
    assert page.get_by_text(IMAGE).count() >= 1
    assert page.locator("img[src*='evil'], img[onerror], script:not([type])", has_text="pwned").count() == 0
    page.screenshot(path=str(tmp_path / "crafted-import.png"), full_page=True)
    assert not dialogs, dialogs
    assert not [u for u in requests if "evil.example" in u], requests
    assert all(local in u or u.startswith("data:") for u in requests), [u for u in requests if local not in u]
