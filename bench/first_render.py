"""Dashboard first render: seconds from opening the page to the Ask page's question box on screen.

``python -m bench.first_render`` builds a warm workspace (the AI Act ingested, the demo already
offered), starts the dashboard as a user does, and opens it in Debian's headless Chromium: the
first visit to a freshly started server, then reloads. Target (issue 15): ≤ 2 s on a warm workspace.
"""

from __future__ import annotations

import argparse
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHROMIUM = "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _warm_workspace(home: Path, embedder: str) -> None:
    from anchor_core.config import Settings
    from anchor_core.embeddings import make_embedder
    from anchor_core.indexing import ingest
    from anchor_core.stores import open_store
    from anchor_core.workspace import mark_demo_offered
    from ingest import load_adapter_corpus

    os.environ["ANCHOR_HOME"] = str(home)
    os.environ["ANCHOR_EMBEDDER"] = embedder
    store = open_store(Settings.from_env())
    if not store.corpora():
        ingest(store, make_embedder(embedder), load_adapter_corpus("aiact", None), corpus="aiact", adapter="aiact")
    mark_demo_offered(home)


def measure(home: Path, embedder: str, visits: int) -> list[float]:
    from playwright.sync_api import sync_playwright

    port = _free_port()
    env = {**os.environ, "ANCHOR_HOME": str(home), "ANCHOR_EMBEDDER": embedder, "ANCHOR_AUTH": "local",
           "STREAMLIT_BROWSER_GATHER_USAGE_STATS": "false"}
    argv = [sys.executable, "-m", "anchor_app.serve", "run", str(REPO / "app" / "main.py"), "--server.port", str(port),
            "--server.address", "127.0.0.1", "--server.headless", "true"]
    proc = subprocess.Popen(argv, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(url + "/_stcore/health", timeout=2):
                    break
            except OSError:
                time.sleep(0.2)
        times = []
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
            page = browser.new_page(viewport={"width": 1400, "height": 900})
            for _ in range(visits):
                t0 = time.perf_counter()
                page.goto(url, wait_until="commit")
                page.get_by_label("Question").wait_for(state="visible", timeout=120_000)
                times.append(time.perf_counter() - t0)
            browser.close()
        return times
    finally:
        os.killpg(proc.pid, 15)
        proc.wait(timeout=20)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m bench.first_render", description=__doc__.split("\n\n")[0])
    ap.add_argument("--home", type=Path, help="a workspace to use (default: a new one with the AI Act)")
    ap.add_argument("--embedder", default=os.environ.get("ANCHOR_EMBEDDER", "hash"),
                    help="the embedder of the workspace and the dashboard (default: hash, no model load)")
    ap.add_argument("--serve-embedder", help="the dashboard's embedder, when another than the workspace's "
                    "(e.g. minilm, to include the background model load; default: --embedder)")
    ap.add_argument("--visits", type=int, default=4, help="page loads after the server started (default 4)")
    args = ap.parse_args(argv)
    home = args.home or Path(tempfile.mkdtemp(prefix="anchor-first-render-")) / "home"
    _warm_workspace(home, args.embedder)
    times = measure(home, args.serve_embedder or args.embedder, args.visits)
    print(f"first visit to a fresh server: {times[0]:.2f} s")
    if len(times) > 1:
        print(f"reloads: median {statistics.median(times[1:]):.2f} s, max {max(times[1:]):.2f} s")
    print(f"load average {os.getloadavg()[0]:.1f}; target ≤ 2 s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
