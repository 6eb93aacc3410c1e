"""Safety and reliability probes, run from the outside: each probe drives the ``anchor`` command
(or the store it wrote) the way a user or an attacker would, and says passed or failed with what
it saw. Prints tried / passed / failed per area and writes ``bench/results/probes.json``.

    python -m bench.probes                 # every area
    python -m bench.probes --area errors   # one area: errors, injection, loss, cite, access, scale
    python -m bench.probes --show-passed   # list the passed probes too

Areas:
- ``errors``: bad settings, bad paths, FIFOs and devices, corrupt files, a locked store, an
  unreachable Elasticsearch. Expected: exit 2 for a broken invocation (1 only for "some files
  failed" or "below threshold"), one message line, no traceback, no hang.
- ``injection``: hostile Markdown/HTML in sources, claims and questions, through ``verify`` and
  ``ask`` into Markdown, HTML and JSON outputs. Expected: no live tag, image or link in Markdown
  or HTML; JSON keeps the text exactly.
- ``loss``: file names in many scripts, re-uploads, PDFs whose body lines near the page edges
  differ only in digits. Expected: one document per file, stable ids, every body line stored.
- ``cite``: ``<cite>`` tags in odd but valid spellings. Expected: the claims cite what the tag says.
- ``access``: documents of groups a and b citing each other. Expected: a group-a query never
  shows group-b text (retrieve, hops, ask).
- ``scale``: adding one small document to a corpus of 30 and of 300 documents. Expected: the
  cost of the add does not grow with the corpus (ratio ≤ 3).

Everything runs in temporary folders with the hash embedder (no model), so the probes take a
minute or two and need nothing outside the checkout.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "bench" / "results" / "probes.json"

IMAGE = "![x](http://evil.example/p.png)"
SCRIPT = "<script>document.title='x'</script>"
ONERROR = "<img src=x onerror=alert(1)>"
JS_LINK = "[click](javascript:alert(1))"
COMMENT_END = "--><script>document.title='y'</script><!--"  # ends the comment that carries the record
PAYLOADS = [IMAGE, SCRIPT, ONERROR, JS_LINK, COMMENT_END]


@dataclass
class Probe:
    area: str
    name: str
    passed: bool
    detail: str = ""


@dataclass
class Run:
    rc: int | None
    out: str
    err: str
    seconds: float


@dataclass
class Probes:
    work: Path
    results: list[Probe] = field(default_factory=list)

    def env(self, **extra: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("ANCHOR_", "GROQ_"))}
        env.update(PYTHONPATH=str(ROOT), ANCHOR_HOME=str(self.work / "home"), ANCHOR_EMBEDDER="hash",
                   HF_HUB_OFFLINE="1")
        env.update(extra)
        return env

    def anchor(self, *argv: str, env: dict[str, str] | None = None, timeout: float = 60,
               stdin: str | None = None) -> Run:
        t = time.perf_counter()
        try:
            p = subprocess.run([sys.executable, "-m", "anchor_core.cli", *argv], env=env or self.env(),
                               cwd=self.work, capture_output=True, text=True, timeout=timeout, input=stdin)
        except subprocess.TimeoutExpired as e:
            out = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
            return Run(None, out, f"timed out after {timeout:.0f}s", time.perf_counter() - t)
        return Run(p.returncode, p.stdout, p.stderr, time.perf_counter() - t)

    def record(self, area: str, name: str, passed: bool, detail: str = "") -> None:
        self.results.append(Probe(area, name, bool(passed), detail))


def _message_lines(err: str) -> list[str]:
    """stderr without progress-bar lines."""
    lines = [ln for ln in err.splitlines() if ln.strip() and "it/s]" not in ln and "s/it]" not in ln]
    if lines and lines[0].startswith("usage: ") and re.match(r"anchor[\w -]*: error: ", lines[-1]):
        return lines[-1:]  # argparse: the usage, then one error line
    return lines


def check_error(p: Probes, name: str, run: Run, codes: tuple[int, ...] = (2,)) -> None:
    lines = _message_lines(run.err)
    problems = []
    if run.rc is None:
        problems.append("hung")
    elif run.rc not in codes:
        problems.append(f"exit {run.rc}, wanted {'/'.join(map(str, codes))}")
    if "Traceback" in run.err or "Traceback" in run.out:
        problems.append("traceback")
    if run.rc not in (None, 0) and not lines and not run.out.strip():
        problems.append("no message")
    if len(lines) > 1 and run.rc == 2:
        problems.append(f"{len(lines)} stderr lines")
    shown = (lines[-1] if lines else run.out.strip().splitlines()[-1:] or [""])
    p.record("errors", name, not problems, "; ".join(problems) or (shown if isinstance(shown, str) else shown[0])[:160])


# -- errors ---------------------------------------------------------------------------------------------

def probe_errors(p: Probes) -> None:
    w = p.work
    (w / "answer.txt").write_text('Providers keep logs for six months.<cite id="a"/>')
    (w / "sources.json").write_text(json.dumps({"a": "Providers shall keep logs for six months."}))
    a, s = str(w / "answer.txt"), str(w / "sources.json")
    a_file = w / "a-file"
    a_file.write_text("x")
    settings = {
        "store mongo": {"ANCHOR_STORE": "mongo"},
        "embedder unknown": {"ANCHOR_EMBEDDER": "bert-huge"},
        "upload limit not a number": {"ANCHOR_MAX_UPLOAD_MB": "fifty"},
        "upload limit nan": {"ANCHOR_MAX_UPLOAD_MB": "nan"},
        "upload limit negative": {"ANCHOR_MAX_UPLOAD_MB": "-5"},
        "ES URL without scheme": {"ANCHOR_STORE": "elasticsearch", "ANCHOR_ES_URL": "localhost:9200"},
        "ES timeout inf": {"ANCHOR_STORE": "elasticsearch", "ANCHOR_ES_TIMEOUT": "inf"},
        "ES verify-certs not a boolean": {"ANCHOR_STORE": "elasticsearch", "ANCHOR_ES_VERIFY_CERTS": "maybe"},
        "ES CA certs missing": {"ANCHOR_STORE": "elasticsearch", "ANCHOR_ES_CA_CERTS": str(w / "none.pem")},
        "LLM URL without scheme": {"ANCHOR_LLM_BASE_URL": "llm.local:8080/v1"},
        "LLM timeout zero": {"ANCHOR_LLM_BASE_URL": "http://127.0.0.1:9/v1", "ANCHOR_LLM_TIMEOUT": "0"},
        "ANCHOR_HOME is a file": {"ANCHOR_HOME": str(a_file)},
    }
    for name, extra in settings.items():
        check_error(p, f"setting: {name}", p.anchor("corpora", env=p.env(**extra)))
    down = p.env(ANCHOR_STORE="elasticsearch", ANCHOR_ES_URL="http://127.0.0.1:9", ANCHOR_ES_TIMEOUT="2",
                 ANCHOR_ES_RETRIES="0")
    check_error(p, "Elasticsearch unreachable: corpora", p.anchor("corpora", env=down))
    check_error(p, "Elasticsearch unreachable: retrieve", p.anchor("retrieve", "x", "--mode", "bm25", env=down))

    check_error(p, "verify --output into a missing folder",
                p.anchor("verify", "-a", a, "-s", s, "--output", str(w / "missing" / "r.md")))
    check_error(p, "verify --output onto a folder", p.anchor("verify", "-a", a, "-s", s, "--output", str(w)))
    for bad in ("nan", "inf", "-1", "2", "half"):
        check_error(p, f"verify --fail-under {bad}", p.anchor("verify", "-a", a, "-s", s, "--fail-under", bad))
    deep = w / "deep.json"
    deep.write_text("[" * 100_000 + "]" * 100_000)
    check_error(p, "verify: sources JSON nested 100,000 deep", p.anchor("verify", "-a", a, "-s", str(deep)))
    (w / "notjson.json").write_text("{'a': 1,")
    check_error(p, "verify: malformed sources JSON", p.anchor("verify", "-a", a, "-s", str(w / "notjson.json")))
    (w / "bad-cite.txt").write_text('Providers keep logs <cite id="a">for six months.')
    check_error(p, "verify: <cite> never closed", p.anchor("verify", "-a", str(w / "bad-cite.txt"), "-s", s))
    (w / "unknown-cite.txt").write_text('Providers keep logs for six months.<cite id="zz"/>')
    check_error(p, "verify: unknown cite id", p.anchor("verify", "-a", str(w / "unknown-cite.txt"), "-s", s))
    check_error(p, "verify: missing answer file", p.anchor("verify", "-a", str(w / "nope.txt"), "-s", s))
    check_error(p, "verify: answer is a folder", p.anchor("verify", "-a", str(w), "-s", s))
    (w / "latin1.txt").write_bytes("Providers keep logs for six months \xe9.".encode("latin-1"))
    check_error(p, "verify: answer not UTF-8", p.anchor("verify", "-a", str(w / "latin1.txt"), "-s", s), (0, 1, 2))
    if hasattr(os, "mkfifo"):
        fifo = w / "fifo"
        os.mkfifo(fifo)
        check_error(p, "verify -a FIFO", p.anchor("verify", "-a", str(fifo), "-s", s, timeout=20))
        check_error(p, "ingest --path FIFO", p.anchor("ingest", "--path", str(fifo), "--corpus", "x", "-q",
                                                     timeout=20))
    check_error(p, "ingest --path /dev/zero", p.anchor("ingest", "--path", "/dev/zero", "--corpus", "x", "-q",
                                                       timeout=20))
    empty = w / "empty"
    empty.mkdir()
    check_error(p, "ingest an empty folder", p.anchor("ingest", "--path", str(empty), "--corpus", "x", "-q"))
    check_error(p, "ingest without --corpus", p.anchor("ingest", "--path", str(empty), "-q"))
    check_error(p, "ingest an unknown adapter", p.anchor("ingest", "nosuch", "--path", str(empty), "-q"))
    check_error(p, "retrieve from an unknown corpus", p.anchor("retrieve", "x", "--corpus", "nosuch"))
    check_error(p, "delete an unknown corpus", p.anchor("delete", "nosuch"))
    check_error(p, "recheck a file that is not a report", p.anchor("recheck", s))
    bad = w / "bad"
    bad.mkdir()
    (bad / "broken.pdf").write_bytes(b"%PDF-1.7\n1 0 obj << /Type /Catalog >> endobj\ntrailer <<>>\n%%EOF")
    (bad / "broken.docx").write_bytes(b"PK\x03\x04 this is not a zip archive")
    (bad / "binary.txt").write_bytes(bytes(range(256)) * 8)
    for f in sorted(bad.iterdir()):
        run = p.anchor("ingest", "--path", str(f), "--corpus", "broken", "-q")
        # A file that cannot be read is that file's failure (exit 1, the summary says why), not a crash.
        ok = run.rc in (1, 2) and "Traceback" not in run.err + run.out and ("failed" in run.out or run.err)
        p.record("errors", f"ingest a corrupt {f.suffix} file", ok,
                 (run.out.strip().splitlines() or [run.err.strip()])[0][:160] if ok else
                 f"exit {run.rc}: {(run.err or run.out)[-200:]}")
    probe_locked_store(p)


def probe_locked_store(p: Probes) -> None:
    """A writer holds the store's write lock; a read-only command must still answer at once."""
    home = p.work / "locked"
    env = p.env(ANCHOR_HOME=str(home))
    docs = p.work / "locked-docs"
    docs.mkdir()
    (docs / "policy.md").write_text("# Policy\n\nStaff shall lock their screens when they leave the desk.\n")
    first = p.anchor("ingest", "--path", str(docs), "--corpus", "pol", "-q", env=env)
    db = next(home.glob("*.db"), None) if home.exists() else None
    db = next((f for f in home.glob("*.db") if "cache" not in f.name), db) if home.exists() else None
    if first.rc != 0 or db is None:
        p.record("errors", "read while a writer holds the store", False, f"setup failed: {first.err[-200:]}")
        return
    held = threading.Event()
    release = threading.Event()

    def writer() -> None:
        con = sqlite3.connect(db, timeout=5)
        con.execute("BEGIN IMMEDIATE")
        held.set()
        release.wait(60)
        con.rollback()
        con.close()

    t = threading.Thread(target=writer)
    t.start()
    held.wait(10)
    try:
        for argv in (("corpora",), ("retrieve", "lock screens", "--corpus", "pol", "--mode", "bm25")):
            run = p.anchor(*argv, env=env, timeout=30)
            ok = run.rc == 0 and run.seconds < 15
            p.record("errors", f"{argv[0]} while a writer holds the store", ok,
                     f"exit {run.rc} in {run.seconds:.1f}s" + ("" if ok else f": {run.err[-160:]}"))
    finally:
        release.set()
        t.join()


# -- injection ------------------------------------------------------------------------------------------

_ESCAPED = re.compile(r"\\[!-/:-@\[-`{-~]")
_CODE = re.compile(r"(`+)(?!`).*?(?<!`)\1(?!`)", re.S)


def live_markdown(md: str) -> list[str]:
    """The pieces of Markdown a renderer would turn into tags, images or links."""
    # The embedded record sits in an HTML comment, which no renderer shows; if a payload could end
    # the comment early, what follows is left in the text and is found below.
    md = re.sub(r"<!-- anchor-report-json\n.*?-->", "", md, flags=re.S)
    bare = _ESCAPED.sub("", _CODE.sub("", md))
    return (re.findall(r"<(?:script|img|iframe|svg|a)\b", bare, re.I)
            + re.findall(r"!?\[[^\]]*\]\((?:http|javas)", bare))


def live_html(html: str) -> list[str]:
    """Payload markup that survived into an HTML document unescaped."""
    return [x for x in ("<script>document.title", "<img src=x onerror", 'href="javascript:', "src=\"http://evil")
            if x in html]


def probe_injection(p: Probes) -> None:
    w = p.work / "inj"
    w.mkdir()
    hostile = " ".join(PAYLOADS)
    source = f"Providers shall keep the logs {hostile} for at least six months."
    (w / "sources.json").write_text(json.dumps({"a": source, f"b{IMAGE}": f"Deployers inform users {SCRIPT}."}))
    (w / "answer.txt").write_text(f'Providers keep logs {hostile} for six months.<cite id="a"/> '
                                  f"An uncited claim with {ONERROR} and {JS_LINK} in it.")
    for fmt, ext in (("markdown", "md"), ("html", "html"), ("json", "json")):
        out = w / f"verify.{ext}"
        run = p.anchor("verify", "-a", str(w / "answer.txt"), "-s", str(w / "sources.json"), "--format", fmt,
                       "--output", str(out))
        if not out.exists():
            p.record("injection", f"verify --format {fmt}", False, f"no output (exit {run.rc}): {run.err[-160:]}")
            continue
        text = out.read_text()
        if fmt == "json":
            kept = all(x in json.loads(text).get("answer", "") for x in PAYLOADS)
            p.record("injection", "verify JSON keeps hostile text exactly", kept, "" if kept else "text changed")
        else:
            live = live_markdown(text) if fmt == "markdown" else live_html(text)
            p.record("injection", f"verify --format {fmt}: no live markup", not live, ", ".join(live)[:160])
    docs = w / "docs"
    docs.mkdir()
    (docs / "hostile.md").write_text(
        f"# Logging policy\n\n1. Providers shall keep the logs {hostile} for at least six months.\n\n"
        f"2. Deployers shall inform the users {SCRIPT} before use.\n")
    env = p.env(ANCHOR_HOME=str(w / "home"))
    up = p.anchor("ingest", "--path", str(docs), "--corpus", "hostile", "-q", env=env)
    if up.rc != 0:
        p.record("injection", "ask over a hostile upload", False, f"upload failed: {up.err[-160:]}")
        return
    question = f"How long must providers keep the logs? {IMAGE}"
    for ext in ("md", "html", "json"):
        out = w / f"ask.{ext}"
        run = p.anchor("ask", question, "--corpus", "hostile", "--output", str(out), env=env)
        if not out.exists():
            p.record("injection", f"ask --output .{ext}", False, f"no output (exit {run.rc}): {run.err[-160:]}")
            continue
        text = out.read_text()
        if ext == "json":
            p.record("injection", "ask JSON keeps the question exactly", IMAGE in text.replace("\\/", "/"))
        else:
            live = live_markdown(text) if ext == "md" else live_html(text)
            p.record("injection", f"ask --output .{ext}: no live markup", not live, ", ".join(live)[:160])
    run = p.anchor("ask", question, "--corpus", "hostile", env=env)
    p.record("injection", "ask terminal output has no ANSI/control characters from the source",
             not re.search(r"[\x00-\x08\x1b]", run.out), "")


# -- loss -----------------------------------------------------------------------------------------------

NAMES = ["Договор.md", "Политика.md", "文件.md", "合同.md", "عقد.md", "Σύμβαση.md", "חוזה.md", "अनुबंध.md",
         "契約書.md", "계약.md", "contrat-été.md", "contrat-ete.md", "Contract 1.md", "contract_1.md",
         "policy.md", "policy.txt", "ØRESUND.md", "🙂.md"]


def _store_documents(home: Path, corpus: str) -> list:
    sys.path.insert(0, str(ROOT))
    from anchor_core.stores.sqlite import SQLiteStore

    db = next(f for f in home.glob("*.db") if "cache" not in f.name)
    store = SQLiteStore(db)
    try:
        return store.documents(corpus)
    finally:
        store.close()


def _store_text(home: Path, corpus: str) -> str:
    from anchor_core.stores.sqlite import SQLiteStore

    db = next(f for f in home.glob("*.db") if "cache" not in f.name)
    store = SQLiteStore(db)
    try:
        units = store.get_units(corpus, store.unit_ids(corpus))
        return "\n".join(u.text for u in units.values())
    finally:
        store.close()


def probe_loss(p: Probes) -> None:
    w = p.work / "loss"
    docs = w / "docs"
    docs.mkdir(parents=True)
    for i, n in enumerate(NAMES):
        (docs / n).write_text(f"# Document {i}\n\nThis is the text of document number {i}, named {n}.\n")
    env = p.env(ANCHOR_HOME=str(w / "home"))
    run = p.anchor("ingest", "--path", str(docs), "--corpus", "names", "-q", env=env)
    if run.rc != 0:
        p.record("loss", "file names in many scripts", False, f"exit {run.rc}: {run.err[-200:]}")
        return
    stored = _store_documents(w / "home", "names")
    ids = sorted(d.doc_id for d in stored)
    p.record("loss", f"{len(NAMES)} files with names in many scripts -> {len(NAMES)} documents",
             len(set(ids)) == len(NAMES), f"{len(set(ids))} distinct ids: {', '.join(ids)}"[:200])
    unreadable = [n for n in NAMES if any(ch.isalpha() for ch in n.rsplit(".", 1)[0])
                  and not any(ch.isalpha() and ch.lower() in d for d in ids for ch in n.rsplit(".", 1)[0])]
    p.record("loss", "document ids keep the letters of the name", not unreadable,
             f"no letter kept for {', '.join(unreadable)}" if unreadable else "")
    one_home = w / "home-one-by-one"
    for n in NAMES:
        single = w / "single" / n.replace(".", "_")
        single.mkdir(parents=True)
        (single / n).write_bytes((docs / n).read_bytes())
        p.anchor("ingest", "--path", str(single / n), "--corpus", "names", "-q", env=p.env(ANCHOR_HOME=str(one_home)))
    one = _store_documents(one_home, "names")
    p.record("loss", f"the same {len(NAMES)} files uploaded one command at a time -> {len(NAMES)} documents",
             len(one) == len(NAMES), f"{len(one)} documents")
    again = p.anchor("ingest", "--path", str(docs), "--corpus", "names", "-q", env=env)
    ids2 = sorted(d.doc_id for d in _store_documents(w / "home", "names"))
    p.record("loss", "re-upload of the same files changes nothing", again.rc == 0 and ids2 == ids
             and f"{len(NAMES)} unchanged" in again.out, again.out.strip().splitlines()[-1][:160] if again.out else "")
    (docs / "Договор.md").write_text("# Document 0\n\nA new version of the contract.\n")
    third = p.anchor("ingest", "--path", str(docs / "Договор.md"), "--corpus", "names", "-q", env=env)
    after = _store_documents(w / "home", "names")
    p.record("loss", "a new version replaces only its own document",
             third.rc == 0 and len(after) == len(NAMES) and "replaced" in third.out, third.out.strip()[:160])
    for pages in (3, 30):
        pdf, body = _edge_pdf(pages)
        pdir = w / f"pdf{pages}"
        pdir.mkdir()
        (pdir / f"ledger-{pages}.pdf").write_bytes(pdf)
        home = w / f"home-pdf{pages}"
        run = p.anchor("ingest", "--path", str(pdir), "--corpus", "ledger", "-q", env=p.env(ANCHOR_HOME=str(home)))
        if run.rc != 0:
            p.record("loss", f"{pages}-page PDF: every body line stored", False, f"exit {run.rc}: {run.err[-200:]}")
            continue
        text = " ".join(_store_text(home, "ledger").split())
        lost = [b for b in body if b not in text]
        furniture = text.count("ACME Holdings - Internal")
        p.record("loss", f"{pages}-page PDF: every body line near the page edges stored", not lost,
                 f"{len(lost)} of {len(body)} lost" + (f", e.g. {lost[0]!r}" if lost else ""))
        p.record("loss", f"{pages}-page PDF: the running header removed", furniture == 0,
                 f"{furniture} copies left")


def _edge_pdf(pages: int) -> tuple[bytes, list[str]]:
    """A PDF whose first and last body lines on each page differ from page to page only in digits,
    under a true running header and a page-number footer."""
    from fpdf import FPDF

    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    body: list[str] = []
    for n in range(1, pages + 1):
        pdf.add_page()
        pdf.set_font("Helvetica", size=8)
        pdf.set_xy(20, 8)
        pdf.cell(0, 4, "ACME Holdings - Internal")
        pdf.set_font("Helvetica", size=10)
        lines = [f"Invoice {1000 + n} was paid on day {n} of the period."]
        lines += [f"Entry {n}.{k}: the ledger records payment reference {n * 37 + k} for supplier {k}."
                  for k in range(1, 6)]
        lines += [f"Balance carried forward to page {n + 1}: {n * 1250} euros."]
        # The first line sits at the top edge under the header, the last at the bottom edge just
        # above the footer: the lines a header/footer repair is tempted to take.
        ys = [16 + 6 * k for k in range(len(lines) - 1)] + [282]
        for y, ln in zip(ys, lines):
            pdf.set_xy(20, y)
            pdf.cell(0, 5, ln)
            body.append(ln)
        pdf.set_font("Helvetica", size=8)
        pdf.set_xy(20, 290)
        pdf.cell(0, 4, f"Page {n} of {pages}")
    return bytes(pdf.output()), body


# -- cite -----------------------------------------------------------------------------------------------

def probe_cite(p: Probes) -> None:
    w = p.work / "cite"
    w.mkdir()
    sources = {"a": "Providers shall keep logs for six months.", "b": "Deployers shall inform the users.",
               "a>b": "A source whose id holds an angle bracket."}
    (w / "sources.json").write_text(json.dumps(sources))
    cases = {
        'upper-case ID': ('Providers keep logs for six months.<CITE ID="a"/>', [["a"]]),
        'attributes in any order': ('<cite title="t" id="b">Deployers inform the users.</cite>', [["b"]]),
        'quoted > in another attribute': ('<cite title="x > y" id="a">Providers keep logs for six months.</cite>',
                                          [["a"]]),
        'data-id is not the id': ('<cite data-id="b" id="a">Providers keep logs for six months.</cite>', [["a"]]),
        'single quotes': ("<cite id='b'>Deployers inform the users.</cite>", [["b"]]),
        'unquoted id': ("Deployers inform the users.<cite id=b/>", [["b"]]),
        'two ids': ('Both rules apply to operators here.<cite id="a,b"/>', [["a", "b"]]),
        'marker after each sentence': ('Providers keep logs for six months.<cite id="a"/> Deployers inform the '
                                       'users.<cite id="b"></cite>', [["a"], ["b"]]),
        'an id holding >': ('<cite id="a>b">This source id holds an angle bracket.</cite>', [["a>b"]]),
        'other tags stay text': ('Providers keep <b>logs</b> for six months.<cite id="a"/>', [["a"]]),
    }
    for name, (answer, want) in cases.items():
        f = w / "answer.txt"
        f.write_text(answer)
        run = p.anchor("verify", "-a", str(f), "-s", str(w / "sources.json"), "--format", "json", "--fail-under", "0",
                       "--no-save")
        try:
            report = json.loads(run.out)
            ids = {src["n"]: src["unit_id"] for src in report.get("sources", [])}
            got = [sorted(c["cite_ids"]) if "cite_ids" in c else sorted(ids[n] for n in c.get("cited", []))
                   for c in report["claims"]]
        except (ValueError, KeyError, TypeError):
            p.record("cite", name, False, f"exit {run.rc}: {(run.err or run.out)[-160:]}")
            continue
        p.record("cite", name, got == [sorted(x) for x in want], f"claims cite {got}")
    for name, answer in {"a cite tag never closed": 'Providers keep logs <cite id="a" for six months.',
                         "a closing tag without an opening": "Providers keep logs.</cite>",
                         "a cite without an id": "<cite>Providers keep logs for six months.</cite>"}.items():
        (w / "answer.txt").write_text(answer)
        run = p.anchor("verify", "-a", str(w / "answer.txt"), "-s", str(w / "sources.json"))
        check_error(p, name, run)
        p.results[-1].area = "cite"


# -- access ---------------------------------------------------------------------------------------------

def probe_access(p: Probes) -> None:
    w = p.work / "access"
    for g in ("a", "b"):
        (w / g).mkdir(parents=True)
    (w / "a" / "alpha-policy.md").write_text(
        "# Alpha policy\n\n1. Staff shall encrypt laptops as set out in the Beta procedure.\n\n"
        "2. The Beta procedure applies to every laptop.\n")
    secret = "The master key is kept in vault seven under code ZEBRA-41."
    (w / "b" / "beta-procedure.md").write_text(f"# Beta procedure\n\n1. {secret}\n\n2. Laptops are encrypted "
                                               "with the master key.\n")
    env = p.env(ANCHOR_HOME=str(w / "home"))
    for g in ("a", "b"):
        run = p.anchor("ingest", "--path", str(w / g), "--corpus", "acl", "--group", g, "-q", env=env)
        if run.rc != 0:
            p.record("access", "setup", False, f"upload failed: {run.err[-160:]}")
            return
    queries = ["How are laptops encrypted?", "Where is the master key kept?", "vault seven ZEBRA-41"]
    for q in queries:
        for argv in (("retrieve", q, "--corpus", "acl", "--group", "a", "--hops", "2", "--json"),
                     ("ask", q, "--corpus", "acl", "--group", "a", "--json")):
            run = p.anchor(*argv, env=env)
            leaked = "kept in vault seven under code" in run.out  # no question holds these words
            p.record("access", f"{argv[0]} as group a: {q!r}", run.rc in (0, 1) and not leaked,
                     "group b text shown" if leaked else f"exit {run.rc}")
    run = p.anchor("retrieve", "vault seven ZEBRA-41", "--corpus", "acl", "--group", "b", "--json", env=env)
    p.record("access", "retrieve as group b finds its own document", "kept in vault seven under code" in run.out,
             f"exit {run.rc}")
    probe_dashboard_access(p, w / "home")


def probe_dashboard_access(p: Probes, home: Path) -> None:
    """The dashboard's read paths, called as the dashboard calls them: the viewer's scoped store,
    the workspace helpers and the reports database."""
    sys.path.insert(0, str(ROOT))
    from anchor_core import access, render, workspace
    from anchor_core.ask import AskSettings, ask
    from anchor_core.embeddings import HashEmbedder
    from anchor_core.reports import ReportStore
    from anchor_core.retrieve import RetrievalSettings, retrieve
    from anchor_core.scorers import make_scorer
    from anchor_core.stores.sqlite import SQLiteStore

    secret = "kept in vault seven under code"
    raw = SQLiteStore(home / "anchor.db")
    claims = {"is_logged_in": True, "email": "ana@example.com", "groups": ["a"]}
    red = access.viewer_from_claims(claims, groups_claim="groups", admin_group="anchor-admins")
    blue = access.viewer_from_claims({**claims, "email": "bo@example.com", "groups": ["b"]}, groups_claim="groups",
                                     admin_group="anchor-admins")
    nobody = access.anonymous("oidc")
    store = access.scoped(raw, red)
    b_units = raw.unit_ids("acl", [d.doc_id for d in raw.documents("acl") if "b" in d.groups])
    reads = {
        "corpora counts": lambda: store.corpora(),
        "document list": lambda: store.documents("acl"),
        "unit reader (units by id)": lambda: store.get_units("acl", b_units),
        "unit chunks": lambda: store.units_chunks("acl", b_units, access.filters_for(red)),
        "Verify's corpus sources": lambda: workspace.unit_sources(store, "acl", b_units),
        "reference graph": lambda: workspace.corpus_graph(store, "acl", include_isolated=True),
        "references to group b units": lambda: store.references_to("acl", b_units),
        "retrieve with 3 hops, no group given": lambda: retrieve(
            "Where is the master key kept? vault seven", store=store, embedder=HashEmbedder(), corpus="acl",
            settings=RetrievalSettings(k=8, hops=3)),
    }
    for name, read in reads.items():
        try:
            shown = repr(read())
        except Exception as err:  # noqa: BLE001 - a refusal is fine, a leak is not
            shown = f"{type(err).__name__}: {err}"
        p.record("access", f"dashboard as group a: {name}", secret not in shown, "group b text shown"
                 if secret in shown else "")
    rs = ReportStore(home / "probe-reports.db")
    settings = AskSettings(k=6, hops=2, writer="extractive", scorer="lexical")
    mine = access.save_run(rs, red, ask("How are laptops encrypted?", store=store, embedder=HashEmbedder(),
                                        corpus="acl", settings=settings, scorer=make_scorer("lexical")))
    theirs_report = ask("Where is the master key kept?", store=access.scoped(raw, blue), embedder=HashEmbedder(),
                        corpus="acl", settings=settings, scorer=make_scorer("lexical"))
    theirs = access.save_run(rs, blue, theirs_report)
    listed = {r.id for r in access.visible_runs(rs, red, rs.list())}
    p.record("access", "Reports page as group a lists only runs it may open", theirs.id not in listed and
             mine.id in listed, f"listed {len(listed)} of 2")
    try:
        access.open_run(rs, red, theirs.id)
        opened = True
    except Exception:  # noqa: BLE001
        opened = False
    p.record("access", "Reports page as group a cannot open a group b run by id", not opened)
    exported = "".join(render.export(access.open_run(rs, red, mine.id), f).decode(errors="replace")
                       for f in ("markdown", "json", "html"))
    p.record("access", "exports of a group a run hold no group b text", secret not in exported)
    anon = access.scoped(raw, nobody)
    p.record("access", "not signed in: group documents are hidden (default-deny)",
             not anon.documents("acl") and not anon.corpora())
    try:
        store.delete_corpus("acl")
        refused = False
    except access.AccessDenied:
        refused = True
    p.record("access", "a non-admin cannot delete a corpus", refused and bool(raw.documents("acl")))
    raw.close()


# -- scale ----------------------------------------------------------------------------------------------

def probe_scale(p: Probes) -> None:
    w = p.work / "scale"
    times = {}
    sizes = (30, 300)
    for n in sizes:
        docs = w / f"docs{n}"
        docs.mkdir(parents=True)
        for i in range(n):
            (docs / f"note-{i:04d}.md").write_text(f"# Note {i}\n\nThis note {i} refers to Note {(i + 1) % n}. "
                                                   f"Clause {i} applies to supplier {i * 7}.\n")
        env = p.env(ANCHOR_HOME=str(w / f"home{n}"))
        run = p.anchor("ingest", "--path", str(docs), "--corpus", "notes", "-q", env=env, timeout=900)
        if run.rc != 0:
            p.record("scale", f"build a corpus of {n}", False, run.err[-160:])
            return
        took = []
        for k in range(3):
            one = w / f"one{n}-{k}"
            one.mkdir()
            (one / f"new-note-{k}.md").write_text(f"# New note {k}\n\nThis new note refers to Note 3.\n")
            run = p.anchor("ingest", "--path", str(one), "--corpus", "notes", "-q", env=env, timeout=900)
            m = re.search(r"in (\d+(?:\.\d+)?)s -> corpus", run.out)
            took.append(float(m.group(1)) if m else run.seconds)
        times[n] = sorted(took)[1]  # the median of three adds, as the command reports it
    small, big = (max(times[n], 0.05) for n in sizes)  # the command prints tenths of a second
    ratio = big / small
    p.record("scale", f"adding one document: corpus of {sizes[1]} vs {sizes[0]} (median of 3)", ratio <= 3,
             f"{times[sizes[0]]:.1f}s vs {times[sizes[1]]:.1f}s (ratio {ratio:.1f})")


AREAS: dict[str, Callable[[Probes], None]] = {
    "errors": probe_errors, "injection": probe_injection, "loss": probe_loss, "cite": probe_cite,
    "access": probe_access, "scale": probe_scale}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--area", choices=sorted(AREAS), action="append", help="run only this area (repeatable)")
    ap.add_argument("--show-passed", action="store_true")
    ap.add_argument("--keep", action="store_true", help="keep the temporary folder")
    args = ap.parse_args(argv)
    work = Path(tempfile.mkdtemp(prefix="anchor-probes-"))
    probes = Probes(work)
    t0 = time.perf_counter()
    try:
        for name in args.area or AREAS:
            area_dir = work / name
            area_dir.mkdir()
            probes.work = area_dir
            try:
                AREAS[name](probes)
            except Exception as err:  # noqa: BLE001 - a probe that crashes is a failed probe, not a crashed run
                probes.record(name, "probe ran", False, f"{type(err).__name__}: {err}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"{'area':<10} {'tried':>5} {'passed':>6} {'failed':>6}")
    areas = list(dict.fromkeys(r.area for r in probes.results))
    for a in areas:
        rs = [r for r in probes.results if r.area == a]
        print(f"{a:<10} {len(rs):>5} {sum(r.passed for r in rs):>6} {sum(not r.passed for r in rs):>6}")
    total = len(probes.results)
    print(f"{'all':<10} {total:>5} {sum(r.passed for r in probes.results):>6} "
          f"{sum(not r.passed for r in probes.results):>6}   ({time.perf_counter() - t0:.0f}s)")
    for r in probes.results:
        if not r.passed or args.show_passed:
            print(f"  {'PASS' if r.passed else 'FAIL'} [{r.area}] {r.name}: {r.detail}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps([r.__dict__ for r in probes.results], indent=1, ensure_ascii=False))
    return 1 if any(not r.passed for r in probes.results) else 0


if __name__ == "__main__":
    sys.exit(main())
