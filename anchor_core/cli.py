"""``anchor`` command line: a thin shell over the library (collect input, call the core, render)."""

from __future__ import annotations

import argparse
import json
import logging
import math
import os
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError

from anchor_core.config import Settings
from anchor_core.errors import AnchorError, CorpusNotFound
from anchor_core.scorers import DEFAULT_SCORER, SCORERS, scorer_help, scorer_names
from anchor_core.stores import open_store

if TYPE_CHECKING:
    from anchor_core.workspace import SourceFiles

DEFAULT_CORPUS = "aiact"


def _embedder(settings: Settings, store=None, corpus: str | None = None):
    """The configured embedder, or (given a stored corpus) the model that corpus was embedded with."""
    from anchor_core.embeddings import corpus_embedder, make_embedder

    configured = make_embedder(settings.embedder)
    if store is None or corpus is None:
        return configured
    try:
        recorded = store.corpus(corpus).embedder
    except CorpusNotFound:
        return configured
    return corpus_embedder(configured, recorded)


def _groups(args: argparse.Namespace) -> list[str]:
    """``--groups a,b`` and repeated ``--group a`` together."""
    out = [g.strip() for g in (args.groups or "").split(",") if g.strip()]
    return sorted({*out, *(args.group or [])})


def _upload_estimates(path: Path, embedder) -> list[str]:
    """``contract.txt: 50.0 MB, about 71,429 chunks, about 60 min with minilm`` for each file
    whose upload will take long, said before any work starts."""
    from ingest.uploads.estimate import estimate
    from ingest.uploads.pipeline import collect

    out = []
    for up in collect([path]):
        try:
            size = up.path.stat().st_size if up.path else len(up.data or b"")
        except OSError:
            continue  # the upload itself reports an unreadable file
        est = estimate(up.name, size, embedder)
        if est.large:
            out.append(f"{est.summary()} (estimated from the size; it is counted before embedding starts)")
    return out


def cmd_upload(args: argparse.Namespace, settings: Settings) -> int:
    """``anchor ingest --path FILE_OR_DIR --corpus NAME``: uploaded documents, one result per file."""
    from tqdm import tqdm

    from anchor_core.embed_cache import CachedEmbedder
    from ingest.uploads import ingest_uploads

    if not args.path or not args.corpus:
        raise AnchorError("uploading documents needs --path FILE_OR_DIR and --corpus NAME, e.g. "
                          "anchor ingest --path contracts/ --corpus contracts")
    path = Path(args.path).expanduser()
    if not path.exists():
        raise AnchorError(f"{path} does not exist; give a file or a folder of PDF, Word, HTML, Markdown or text files")
    _regular_or_folder(path)
    t0 = time.perf_counter()
    store = open_store(settings)
    embedder = CachedEmbedder(_embedder(settings, store, args.corpus), settings.home / "embedding-cache.db")
    for line in _upload_estimates(path, embedder):
        print(line)
    # shown after half a second: an empty folder or a quick upload prints its summary alone, not a "0file" bar
    bar = tqdm(total=0, unit="file", file=sys.stderr, disable=args.quiet, desc=f"uploading into {args.corpus}",
               delay=0.5)

    def progress(p) -> None:
        if p.stage == "embed" and p.estimate is not None and p.estimate.large:
            bar.write(f"embedding {p.estimate.summary()}", file=sys.stdout)
        bar.total = p.files
        bar.n = max(bar.n, p.index + (1 if p.stage == "done" else 0))
        step = f"{p.done}/{p.total} chunks" if p.stage == "embed" and p.total else ""
        bar.set_postfix_str(f"{p.name} {p.stage} {step}".strip()[-60:])

    results = ingest_uploads(store, embedder, [path], corpus=args.corpus, groups=_groups(args) or None,
                             max_mb=args.max_mb or settings.max_upload_mb, progress=progress)
    bar.n = bar.total
    bar.close()
    if not results:
        raise AnchorError(f"{path} holds no files to ingest")
    for r in results:
        print(r.summary())
        for w in r.warnings:
            print(f"    warning: {w}")
    failed = sum(not r.ok for r in results)
    counts = {s: sum(r.status == s for r in results) for s in ("ingested", "replaced", "skipped-identical")}
    from anchor_core.text import count

    print(f"{count(len(results), 'file')}: {counts['ingested']} ingested, {counts['replaced']} replaced, "
          f"{counts['skipped-identical']} unchanged, {failed} failed, in {time.perf_counter() - t0:.1f}s "
          f"-> corpus {args.corpus} in {settings.store_location}")
    return 1 if failed else 0


def cmd_ingest(args: argparse.Namespace, settings: Settings) -> int:
    from tqdm import tqdm

    from anchor_core.indexing import EmbedRate, ingest
    from ingest import load_adapter_corpus

    if args.name in (None, "uploads"):
        return cmd_upload(args, settings)

    t0 = time.perf_counter()
    path = Path(args.path).expanduser() if args.path else None
    parsed = load_adapter_corpus(args.name, path)
    corpus = args.corpus or args.name
    store = open_store(settings)
    # tqdm's own rate would count the cached vectors that arrive at once; EmbedRate counts the model's.
    bar = tqdm(total=0, unit="chunk", desc=f"embedding {corpus}", file=sys.stderr, disable=args.quiet,
               bar_format="{desc}: {percentage:3.0f}%|{bar}| {n_fmt}/{total_fmt} chunks [{elapsed}{postfix}]")
    rate = EmbedRate()

    def progress(done: int, total: int) -> None:
        bar.total = total
        bar.n = done
        bar.set_postfix_str(rate.update(done, total), refresh=False)
        bar.refresh()

    from anchor_core.embed_cache import CachedEmbedder

    embedder = CachedEmbedder(_embedder(settings), settings.home / "embedding-cache.db")
    info = ingest(store, embedder, parsed, corpus=corpus, adapter=args.name,
                  source=str(path or f"{args.name} demo corpus"), chunking=args.chunking,
                  groups=_groups(args) or None, progress=progress)
    bar.close()
    from anchor_core.text import count

    print(f"corpus {info.name}: {count(info.documents, 'document')}, {count(info.units, 'unit')}, "
          f"{count(info.chunks, 'chunk')}, {count(info.references + info.unresolved, 'reference')} "
          f"({info.references} resolved, {info.unresolved} unresolved) in {time.perf_counter() - t0:.1f}s "
          f"({count(embedder.hits, 'embedding')} reused from the cache) "
          f"-> {settings.store_location}")
    return 0


def _render(result, show_text: int) -> str:
    lines = [f"question: {result.question}", f"corpus:   {result.corpus}", ""]
    for h in result.hits:
        how = ("via " + h.route) if h.via else (f"named in the question ({h.named})" if h.named else "direct")
        if h.cited_by:
            how += f" (also cited by {', '.join(h.cited_by)})"
        lines.append(f"{h.rank:>2}. {h.label:<22} score {h.score:.4f}  {how}")
        where = f"  [{h.document}, page {h.page}]" if h.page is not None else ""
        lines.append(f"    {h.heading}{where}")
        snippet = " ".join(h.text.split())
        lines.append(f"    {snippet[:show_text]}{'…' if len(snippet) > show_text else ''}")
    lines.append("")
    lines += [f"note: {n}" for n in result.notes]
    lines.append("timings (ms): " + ", ".join(f"{k} {v:.1f}" for k, v in result.timings_ms.items()))
    return "\n".join(lines)


def cmd_retrieve(args: argparse.Namespace, settings: Settings) -> int:
    from anchor_core.retrieve import RetrievalSettings, retrieve

    rs = RetrievalSettings(k=args.k, hops=args.hops, mode=args.mode, include_recitals=args.recitals,
                           groups=args.group)
    store = open_store(settings)
    store.corpus(args.corpus)  # fail on an unknown corpus before loading a model
    embedder = None if args.mode == "bm25" else _embedder(settings, store, args.corpus)
    from anchor_core.workspace import use_adapter_grammars

    use_adapter_grammars()
    result = retrieve(args.question, store=store, embedder=embedder, corpus=args.corpus, settings=rs)
    if args.json:
        print(json.dumps({
            "question": result.question,
            "hits": [{"unit_id": h.unit_id, "part": h.part, "chunk_id": h.chunk_id, "score": h.score, "rank": h.rank,
                      "via": [v.unit_id for v in h.via], "via_kind": h.via_kind,
                      "steps": [v.model_dump() for v in h.via], "path": h.path,
                      "cited_by": h.cited_by, "named": h.named, "why": h.why, "document": h.document,
                      "page": h.page,
                      "text": h.text} for h in result.hits],
            "notes": result.notes,
            "timings_ms": result.timings_ms,
        }, ensure_ascii=False, indent=2))
    else:
        print(_render(result, args.width))
    return 0


def cmd_corpora(args: argparse.Namespace, settings: Settings) -> int:
    store = open_store(settings)
    infos = store.corpora()
    if not infos:
        print(f"no corpora in {settings.store_location}; run `anchor ingest aiact` to load the demo corpus.")
        return 0
    for c in infos:
        print(f"{c.name:<12} {c.adapter:<6} {c.units:>6} units {c.chunks:>6} chunks {c.references:>6} refs "
              f"({c.unresolved} unresolved)  {c.chunking}  {c.embedder}  {c.created_at:%Y-%m-%d %H:%M}")
    return 0


def cmd_delete(args: argparse.Namespace, settings: Settings) -> int:
    open_store(settings).delete_corpus(args.name)
    print(f"deleted corpus {args.name}")
    return 0


def app_script() -> Path:
    """``main.py`` of the installed dashboard package (``app/`` of the checkout in an editable install)."""
    import importlib.util

    spec = importlib.util.find_spec("anchor_app")
    folders = list(spec.submodule_search_locations or []) if spec else []
    script = Path(folders[0]) / "main.py" if folders else None
    if script is None or not script.is_file():
        raise AnchorError("the dashboard (package anchor_app) is not installed; reinstall Anchor "
                          "(pip install -e . from the checkout, or pip install .)")
    return script


def dashboard_command(args: argparse.Namespace) -> list[str]:
    """The ``streamlit run`` command line for the dashboard; its theme and upload limit come from
    the script-level ``.streamlit/config.toml`` beside ``main.py``."""
    # anchor_app.serve is ``streamlit`` with the pages' modules imported first (a faster first visit).
    return [sys.executable, "-m", "anchor_app.serve", "run", str(app_script()), "--server.port", str(args.port),
            "--server.address", args.host, "--server.headless", "true" if args.no_browser else "false"]


DASHBOARD_MODES = {
    "local": "local single-user mode (ANCHOR_AUTH=local): no sign-in, every document visible.",
    "oidc": "OIDC through Streamlit (ANCHOR_AUTH=oidc, the default): visitors who are not signed in see public "
            "documents only; the provider goes in .streamlit/secrets.toml [auth] (README, \"Sign-in and access "
            "groups\"). For single-user use: anchor dashboard --local.",
    "proxy": "trusted proxy headers (ANCHOR_AUTH=proxy): requests without the proxy's secret header see public "
             "documents only.",
}


def cmd_dashboard(args: argparse.Namespace, settings: Settings) -> int:
    import importlib.util

    if importlib.util.find_spec("streamlit") is None:
        raise AnchorError("the dashboard needs Streamlit: pip install -r requirements.txt (or pip install streamlit)")
    cmd = dashboard_command(args)
    env = dict(os.environ)
    mode = "local" if args.local else settings.auth.mode
    if args.local:
        env["ANCHOR_AUTH"] = "local"  # the dashboard reads its settings again in its own process
    print(f"Anchor dashboard on http://{args.host}:{args.port} (workspace {settings.home}); Ctrl-C stops it. "
          "On the first start (for the local operator or an admin) it loads the EU AI Act demo corpus.",
          file=sys.stderr)
    print(f"Sign-in: {DASHBOARD_MODES[mode]}", file=sys.stderr)
    if mode == "local" and args.host not in ("127.0.0.1", "localhost", "::1"):
        print(f"warning: local single-user mode on {args.host}: anyone who reaches this port sees every document",
              file=sys.stderr)
    return run_forwarding(cmd, env)


def run_forwarding(cmd: list[str], env: dict[str, str]) -> int:
    """Run ``cmd`` and pass a stop signal on to it: a service manager (or ``kill``) that stops
    ``anchor dashboard`` must stop the server too, not leave it running with nobody to stop it."""
    import signal
    import subprocess

    proc = subprocess.Popen(cmd, env=env)

    def forward(signum: int, _frame: object) -> None:
        proc.send_signal(signum)

    stops = [getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name)]
    before = {sig: signal.signal(sig, forward) for sig in stops}
    try:
        rc = proc.wait()
        return 128 - rc if rc < 0 else rc  # killed by signal N: the shell's 128 + N
    except KeyboardInterrupt:  # Ctrl-C reached the server too (same process group); let it finish
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
        return 0
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def cmd_export_corpus(args: argparse.Namespace, settings: Settings) -> int:
    from anchor_core.transfer import export_corpus

    counts = export_corpus(open_store(settings), args.name, Path(args.file))
    print(f"exported corpus {args.name} from {settings.store_location}: " +
          ", ".join(f"{v} {k}s" for k, v in counts.items()) + f" -> {args.file}")
    return 0


def cmd_import_corpus(args: argparse.Namespace, settings: Settings) -> int:
    from anchor_core.transfer import import_corpus

    info = import_corpus(open_store(settings), Path(args.file), name=args.name)
    print(f"imported corpus {info.name} ({info.units} units, {info.chunks} chunks, {info.embedder}) "
          f"-> {settings.store_location}")
    return 0


def _regular_or_folder(path: Path) -> None:
    """A pipe, socket or device would block or never end: refuse it before reading."""
    if not path.is_dir() and not path.is_file():
        raise AnchorError(f"{path} is not a regular file (a pipe, socket or device); save the content to a file "
                          "and give that file")


def _output_path(raw: str | None) -> Path | None:
    """``--output FILE``, checked before the run so a long run does not fail at its very end."""
    if not raw:
        return None
    path = Path(raw).expanduser()
    if path.is_dir():
        raise AnchorError(f"--output {raw} is a folder; give a file name, e.g. {path / 'report.json'}")
    if not path.parent.is_dir():
        raise AnchorError(f"--output {raw}: the folder {path.parent} does not exist; create it first")
    return path


def _write(path: Path, data: str | bytes) -> None:
    try:
        path.write_bytes(data if isinstance(data, bytes) else data.encode("utf-8"))
    except OSError as err:
        raise AnchorError(f"cannot write {path}: {err.strerror}; choose another --output") from None


def _read_bytes(path: Path, what: str) -> bytes:
    if path.exists():
        _regular_or_folder(path)
    try:
        return path.read_bytes()
    except OSError as err:
        raise AnchorError(f"cannot read the {what} {path}: {err.strerror}") from err


def _read_text(path: Path, what: str) -> str:
    data = _read_bytes(path, what)
    if b"\x00" in data[:4096]:
        raise AnchorError(f"the {what} {path} looks binary (NUL bytes); give a UTF-8 text file")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise AnchorError(f"the {what} {path} is not UTF-8 (byte {err.start}); convert it to UTF-8") from err


def load_sources(path: Path, answer: Path | None = None) -> SourceFiles:
    """Sources from a folder (id = file name without extension), one file, or a JSON object {id: text}: text and
    Markdown files as written, PDF, Word and HTML files read as uploads are (see
    :func:`anchor_core.workspace.read_source_files`). ``answer``: the answer being verified, never one of its own
    sources when it sits in the sources folder (it would support every one of its claims)."""
    from anchor_core.workspace import DOCUMENT_SOURCES, TEXT_SOURCES, read_source_files

    kinds = "a folder of .txt/.md/.pdf/.docx/.html files, one such file, or a JSON file {id: text}"
    if not path.exists():
        raise AnchorError(f"sources {path} do not exist; give {kinds}")
    if path.is_dir():
        files = sorted(p for p in path.iterdir() if p.is_file() and p.suffix.lower() in TEXT_SOURCES + DOCUMENT_SOURCES)
        skipped = [p for p in files if answer is not None and p.resolve() == answer.resolve()]
        files = [p for p in files if p not in skipped]
        if not files:
            raise AnchorError(f"{path} holds no .txt, .md, .pdf, .docx or .html sources"
                              + (" besides the answer itself" if skipped else ""))
    else:
        if answer is not None and path.resolve() == answer.resolve():
            raise AnchorError(f"{path} is the answer itself; give the documents it cites as the sources")
        files, skipped = [path], []
    out = read_source_files([(p.name, _read_bytes(p, "source")) for p in files], other_as_json=True)
    out.notes += [f"{p.name} is the answer being verified: it is not one of its sources" for p in skipped]
    if not out.texts:
        raise AnchorError(f"{path} holds no sources; give {kinds}")
    return out


def cmd_verify(args: argparse.Namespace, settings: Settings) -> int:
    from anchor_core import render
    from anchor_core.scorers import build_scorer
    from anchor_core.verify import verify_answer

    # float() also takes "nan" and "inf"; a NaN bound would make every run pass.
    if not math.isfinite(args.fail_under) or not 0.0 <= args.fail_under <= 1.0:
        raise AnchorError(f"--fail-under must be a number from 0 to 1 (the verified fraction); "
                          f"got {args.fail_under}")
    output = _output_path(args.output)
    answer = _read_text(Path(args.answer), "answer")
    given = load_sources(Path(args.sources), answer=Path(args.answer))
    for note in given.notes:
        print(f"note: {note}", file=sys.stderr)
    sources = given.texts
    # No embedder unless asked: on WiCE the MiniLM feature lowered precision and cost 55x the time.
    embedder = _embedder(settings) if args.embedder and not args.no_embedder else None
    llm = _llm(settings) if "llm" in SCORERS[args.scorer].needs else None
    scorer = build_scorer(args.scorer, embedder=embedder, llm=llm, model_dir=args.model_dir)
    report = verify_answer(answer, sources, scorer=scorer, embedder=embedder, pages=given.pages, notes=given.notes)
    report = _saved(report, args, settings)
    if output:
        _write(output, render.export(report, args.format))
        print(f"{report.assessment().headline} -> {output}")
    elif args.format == "pdf":
        raise AnchorError("--format pdf needs --output FILE.pdf")
    else:
        print(render.export(report, args.format).decode())
    if args.require_verified and not report.assessment().verified:
        return 1
    return 0 if report.claims and report.verified_fraction >= args.fail_under else 1


def _saved(report, args: argparse.Namespace, settings: Settings):
    """The run saved in the workspace's reports database (listed by `anchor reports` and the dashboard's
    Reports page), unless ``--no-save``; the line saying so goes to stderr, beside the output."""
    if args.no_save:
        return report
    from anchor_core.reports import ReportStore

    reports = ReportStore.in_home(settings.home)
    report = reports.save(report)
    # The access context the dashboard checks before listing the run: an ask run with --group saw
    # public documents and those groups'; anything else ran as the local operator, who sees every
    # document, so only admins (and local mode) may open it there.
    groups = getattr(args, "group", None)
    reports.set_access(report.id, sorted(groups) if groups else None, "anchor CLI (local operator)")
    print(f"saved as run {report.id} (anchor reports show {report.id})", file=sys.stderr)
    return report


def _llm(settings: Settings, no_llm: bool = False):
    if settings.llm is None or no_llm:
        return None
    from anchor_core.ask import LLM

    return LLM.from_config(settings.llm)


def cmd_ask(args: argparse.Namespace, settings: Settings) -> int:
    from anchor_core import render
    from anchor_core.ask import AskSettings, ask

    s = AskSettings(k=args.k, hops=args.hops, include_recitals=args.recitals, groups=args.group, scorer=args.scorer,
                    writer=args.writer)
    output = _output_path(args.output)
    store = open_store(settings)
    store.corpus(args.corpus)  # fail on an unknown corpus before loading a model
    from anchor_core.workspace import use_adapter_grammars

    use_adapter_grammars()
    report = ask(args.question, store=store, embedder=_embedder(settings, store, args.corpus), corpus=args.corpus,
                 settings=s, llm=_llm(settings, args.no_llm))
    report = _saved(report, args, settings)
    if output:
        _write(output, render.export(report, render.format_for(output)))
    print(render.to_json(report) if args.json else render.to_text(report))
    return 1 if report.refused and args.fail_on_refusal else 0


def _read_report(raw: str):
    """A report from any export of any run (JSON, Markdown, HTML, PDF; the CLI's or the dashboard's)."""
    from anchor_core import render

    path = Path(raw).expanduser()
    if not path.exists():
        raise AnchorError(f"no report at {path}; save one with `anchor ask ... --output report.json` or "
                          "`anchor reports export RUN FILE`")
    _regular_or_folder(path)
    try:
        data = path.read_bytes()
    except OSError as err:
        raise AnchorError(f"cannot read the report {path}: {err.strerror}") from None
    try:
        return render.read_export(data, name=str(path))
    except render.ExportError as err:
        raise AnchorError(f"{err}; give an export of an ask or verify run (.json, .md, .html or .pdf)") from None


def cmd_recheck(args: argparse.Namespace, settings: Settings) -> int:
    from anchor_core.recheck import recheck

    report = _read_report(args.report)
    if report.kind == "ask":
        result = recheck(report, open_store(settings))
    else:
        result = recheck(report, sources=load_sources(Path(args.sources)).texts if args.sources else None)
    print(result.model_dump_json(indent=2) if args.json else result.to_text())
    return 0 if result.intact else 1


def cmd_reports(args: argparse.Namespace, settings: Settings) -> int:
    """``anchor reports list|show|mark|export|import``: the review trail without the browser."""
    from anchor_core import render
    from anchor_core.reports import VERDICTS, ReportStore

    rs = ReportStore.in_home(settings.home)
    if args.action == "list":
        rows = rs.list(kind=args.kind, corpus=args.corpus, text=args.text or "", review_state=args.state,
                       limit=args.limit)
        if not rows:
            print(f"no saved runs{' match' if rs.count() else ''} in {rs.path}")
        for r in rows:
            a = r.assessment
            print(f"{r.id:<12} {r.created_at[:16].replace('T', ' ')}  {r.kind:<6} {r.corpus or '-':<10} "
                  f"{a.short:<13} {r.claims:>3} claims  {r.review_state:<17} {r.title} — {a.headline}")
        return 0
    report = rs.get(args.run)
    if args.action == "show":
        print(render.to_json(report) if args.json else render.to_markdown(report, record=False))
        return 0
    if args.action == "mark":
        reviewer = args.reviewer or os.environ.get("ANCHOR_REVIEWER", "")
        mark = rs.review(report.id, args.claim, args.verdict, reviewer=reviewer, comment=args.comment or "")
        print(f"claim {mark.claim} of run {report.id} marked {VERDICTS[mark.verdict]} by {mark.reviewer} at {mark.at}")
        return 0
    path = _output_path(args.file) or Path(args.file)
    fmt = args.format or render.format_for(path)
    _write(path, render.export(report, fmt))
    print(f"exported run {report.id} as {fmt} -> {path}")
    return 0


def cmd_reports_import(args: argparse.Namespace, settings: Settings) -> int:
    from anchor_core.reports import ReportStore

    run = ReportStore.in_home(settings.home).import_run(_read_report(args.file))
    print(f"imported run {run.id} ({run.kind}, {len(run.claims)} claims, {len(run.reviews)} reviewer marks)")
    return 0


def cmd_assess(args: argparse.Namespace, settings: Settings) -> int:
    from anchor_core.ask.assess import assess
    from anchor_core.embed_cache import CachedEmbedder

    store = open_store(settings)
    store.corpus(args.corpus)
    embedder = CachedEmbedder(_embedder(settings, store, args.corpus), settings.home / "embedding-cache.db")
    result = assess(args.description, store=store, embedder=embedder, corpus=args.corpus, k=args.k,
                    role=args.role)
    print(result.model_dump_json(indent=2) if args.json else result.to_text(), end="" if not args.json else "\n")
    return 0


def _evidence_args(p: argparse.ArgumentParser, verb: str) -> None:
    """The question and the retrieval options that ``retrieve`` and ``ask`` share."""
    p.add_argument("question")
    p.add_argument("--corpus", default=DEFAULT_CORPUS)
    p.add_argument("--k", type=int, default=5)
    p.add_argument("--hops", type=int, default=1)
    p.add_argument("--recitals", action="store_true", help="include recitals (excluded by default: not binding)")
    p.add_argument("--group", action="append", help=f"{verb} as a member of this access group (repeatable)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="anchor", description="Grounded retrieval and claim verification over a corpus.")
    p.add_argument("-v", "--verbose", action="store_true", help="log what the library does")
    sub = p.add_subparsers(dest="command", required=True)

    ing = sub.add_parser("ingest", help="ingest a corpus (replaces a corpus of the same name)")
    ing.add_argument("name", nargs="?", help="adapter: aiact, gdpr, peps, rfc, adgm, files; leave it out (or say "
                     "uploads) to add documents (PDF, Word, HTML, Markdown, text) from --path to --corpus")
    ing.add_argument("--path", help="folder or file of the corpus (not needed for aiact, the demo corpus)")
    ing.add_argument("--groups", help="comma-separated access groups given to every document, e.g. hr,legal")
    ing.add_argument("--max-mb", type=float, help="uploads: refuse files larger than this "
                     "(default ANCHOR_MAX_UPLOAD_MB or 50)")
    ing.add_argument("--corpus", help="store under this corpus name (default: the adapter name)")
    ing.add_argument("--chunking", choices=["structural", "fixed"], default="structural")
    ing.add_argument("--group", action="append", help="access group given to every document (repeatable)")
    ing.add_argument("-q", "--quiet", action="store_true", help="no progress bar")
    ing.set_defaults(func=cmd_ingest)

    ret = sub.add_parser("retrieve", help="show the evidence a question retrieves, with reference paths")
    _evidence_args(ret, "query")
    ret.add_argument("--mode", choices=["hybrid", "bm25", "dense"], default="hybrid")
    ret.add_argument("--json", action="store_true", help="print JSON")
    ret.add_argument("--width", type=int, default=220, help="characters of text shown per hit")
    ret.set_defaults(func=cmd_retrieve)

    ver = sub.add_parser("verify", help="verify an answer with <cite id=...> tags against its sources")
    ver.add_argument("-a", "--answer", required=True, help="answer text file")
    ver.add_argument("-s", "--sources", required=True,
                     help="a folder of sources (.txt, .md, .pdf, .docx, .html: the file name without its extension "
                          "is the cite id), one such file, or a JSON {id: text}")
    ver.add_argument("--format", choices=["markdown", "json", "html", "pdf"], default="markdown")
    ver.add_argument("--output", help="write the report here instead of printing it")
    ver.add_argument("--no-save", action="store_true", help="do not save the run in the reports database")
    ver.add_argument("--fail-under", type=float, default=1.0,
                     help="exit 1 when the verified fraction (the share of claims the automatic check supports; "
                          "reviewer marks and quote checks aside) is below this (default 1.0: every claim)")
    ver.add_argument("--require-verified", action="store_true",
                     help="also exit 1 unless the report's headline is 'verified' (every claim supported without "
                          "drift flags, every quote verbatim at its offsets)")
    verify_scorers = scorer_names(can_give=["model_dir", "llm"])
    ver.add_argument("--scorer", choices=verify_scorers, default=DEFAULT_SCORER, help=scorer_help(verify_scorers))
    ver.add_argument("--model-dir", help="local model folder for --scorer nli")
    ver.add_argument("--embedder", action="store_true",
                     help="add dense candidate search and the embedding feature (slower; no better on WiCE)")
    ver.add_argument("--no-embedder", action="store_true", help="the default; kept for old scripts")
    ver.set_defaults(func=cmd_verify)

    ask = sub.add_parser("ask", help="answer a question from a corpus, every claim anchored, or refuse with a reason")
    _evidence_args(ask, "ask")
    ask_scorers = scorer_names(can_give=["llm"])
    ask.add_argument("--scorer", choices=ask_scorers, default=DEFAULT_SCORER, help=scorer_help(ask_scorers))
    ask.add_argument("--writer", choices=["auto", "extractive", "llm"], default="auto",
                     help="auto: the LLM when GROQ_API_KEY or ANCHOR_LLM_BASE_URL is set, else extractive")
    ask.add_argument("--no-llm", action="store_true", help="stay offline even when an LLM is configured")
    ask.add_argument("--json", action="store_true", help="print the full report as JSON")
    ask.add_argument("--output", help="also write the report (.json, .md, .html or .pdf by extension)")
    ask.add_argument("--no-save", action="store_true", help="do not save the run in the reports database")
    ask.add_argument("--fail-on-refusal", action="store_true", help="exit 1 when it refuses")
    ask.set_defaults(func=cmd_ask)

    rc = sub.add_parser("recheck", help="re-verify a saved report's quotes: an ask run against the current "
                        "corpus, a verify run against its sources")
    rc.add_argument("report", help="any export of a run: .json, .md, .html or .pdf (CLI or dashboard)")
    rc.add_argument("-s", "--sources", help="verify runs: new versions of the sources (folder or JSON {id: text}); "
                    "default the texts saved with the run")
    rc.add_argument("--json", action="store_true")
    rc.set_defaults(func=cmd_recheck)

    rep = sub.add_parser("reports", help="saved runs and reviewer marks (the dashboard's Reports page)")
    rsub = rep.add_subparsers(dest="action", required=True)
    rl = rsub.add_parser("list", help="saved runs, newest first")
    rl.add_argument("--kind", choices=["ask", "verify"])
    rl.add_argument("--corpus")
    rl.add_argument("--text", help="title contains")
    rl.add_argument("--state", choices=["not reviewed", "in review", "accepted", "needs work", "rejected",
                                        "nothing to review"], help="review state")
    rl.add_argument("--limit", type=int, default=50)
    rl.set_defaults(func=cmd_reports)
    rsh = rsub.add_parser("show", help="one run: claims, quotes, hashes, gate, marks")
    rsh.add_argument("run")
    rsh.add_argument("--json", action="store_true", help="the full record")
    rsh.set_defaults(func=cmd_reports)
    rm = rsub.add_parser("mark", help="mark a claim accepted, rejected or needs_work (appended to its history)")
    rm.add_argument("run")
    rm.add_argument("claim", type=int, help="claim number (1-based)")
    rm.add_argument("verdict", choices=["accepted", "rejected", "needs_work"])
    rm.add_argument("-m", "--comment", help="why (required for rejected and needs_work)")
    rm.add_argument("--reviewer", help="your name (default ANCHOR_REVIEWER)")
    rm.set_defaults(func=cmd_reports)
    rx = rsub.add_parser("export", help="write a run with its marks as Markdown, JSON, HTML or PDF")
    rx.add_argument("run")
    rx.add_argument("file")
    rx.add_argument("--format", choices=["markdown", "json", "html", "pdf"], help="default: by the file's extension")
    rx.set_defaults(func=cmd_reports)
    ri = rsub.add_parser("import", help="store a run read back from any export, with its marks")
    ri.add_argument("file")
    ri.set_defaults(func=cmd_reports_import)

    asm = sub.add_parser("assess", help="describe an AI system; get an applicability decision per topic (prohibited, "
                         "high-risk, roles, transparency, dates), each with its anchored provisions")
    asm.add_argument("description")
    asm.add_argument("--corpus", default=DEFAULT_CORPUS)
    asm.add_argument("--k", type=int, default=4, help="provisions per topic (corpora without a topic map only)")
    asm.add_argument("--role", choices=["provider", "deployer", "both"],
                     help="your role, when you know it (default: read from the description, else 'not stated')")
    asm.add_argument("--json", action="store_true")
    asm.set_defaults(func=cmd_assess)

    dash = sub.add_parser("dashboard", help="start the reviewer's dashboard in the browser (Streamlit)")
    dash.add_argument("--port", type=int, default=8501)
    dash.add_argument("--host", default="127.0.0.1", help="address to listen on (default: this machine only)")
    dash.add_argument("--no-browser", action="store_true", help="do not open a browser window")
    dash.add_argument("--local", action="store_true",
                      help="local single-user mode without sign-in: you see every document (sets ANCHOR_AUTH=local)")
    dash.set_defaults(func=cmd_dashboard)

    sub.add_parser("corpora", help="list stored corpora").set_defaults(func=cmd_corpora)
    dele = sub.add_parser("delete", help="delete a stored corpus")
    dele.add_argument("name")
    dele.set_defaults(func=cmd_delete)
    exp = sub.add_parser("export-corpus", help="write a stored corpus (with vectors) to a JSONL file")
    exp.add_argument("name")
    exp.add_argument("file")
    exp.set_defaults(func=cmd_export_corpus)
    imp = sub.add_parser("import-corpus", help="load an exported corpus into the configured store (ANCHOR_STORE)")
    imp.add_argument("file")
    imp.add_argument("--name", help="store under this corpus name (default: the exported name)")
    imp.set_defaults(func=cmd_import_corpus)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING,
                        format="%(levelname)s %(name)s: %(message)s")
    if not args.verbose:
        # The Elasticsearch client logs each failed retry with its traceback; the store turns the
        # final failure into one message that says what to do, so the retries stay quiet.
        for name in ("elastic_transport", "elasticsearch", "urllib3"):
            logging.getLogger(name).setLevel(logging.CRITICAL)
        # pypdf logs its repair notes on a damaged or unusual PDF ("EOF marker not found"); the upload says per file
        # what failed and what to do, so they show only with --verbose
        logging.getLogger("pypdf").setLevel(logging.ERROR)
    try:
        settings = Settings.from_env()
        return args.func(args, settings)
    except AnchorError as err:
        print(f"error: {err}", file=sys.stderr)
        return 2
    except ValidationError as err:
        msgs = "; ".join(e["msg"].removeprefix("Value error, ") for e in err.errors())
        print(f"error: {msgs}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        # The reader went away (``anchor verify ... | head``): stop quietly, as other tools do, and keep
        # Python from failing again when it flushes stdout at exit.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except Exception as err:  # a broken invocation must never end in a traceback (and exit 1 means "below threshold")
        if args.verbose:
            raise
        print(f"error: {type(err).__name__}: {str(err).splitlines()[0] if str(err) else 'unexpected failure'} "
              "(run again with -v to see where; please report it)", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
