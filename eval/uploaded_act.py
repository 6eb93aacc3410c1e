"""An EU act uploaded as a user would (EUR-Lex's HTML page, or its Markdown) against the same act through its
adapter: the structure each gives, and what ``anchor ask`` does on the act's dev questions over each.

    python -m eval.uploaded_act --workspace /tmp/ws                 # the AI Act's HTML page, and the GDPR's Markdown
    python -m eval.uploaded_act --workspace /tmp/ws --acts aiact

The upload goes through :func:`anchor_core.workspace.upload_files` (what ``anchor ingest --path`` and the
dashboard run), the adapter corpus through the adapter (``anchor ingest aiact``), both embedded with MiniLM into
the workspace's store. Gold units are the adapter's ids (``article-5``); an upload's carry the document's
(``eu-ai-act/article-5``), which is stripped before comparing. Reads ``$ANCHOR_BENCH_DATA/corpora`` (the shared
data); skips cleanly without it. Nothing is fitted here.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from anchor_core import workspace
from anchor_core.ask import AskSettings, ask
from anchor_core.errors import CorpusNotFound
from anchor_core.named import use_adapters
from anchor_core.stores.sqlite import SQLiteStore
from eval.answerability import ensure, workspace_embedder
from eval.data import CORPORA
from ingest import get_adapter

HERE = Path(__file__).resolve().parent
# the act, the file a user would upload (under the shared corpora), and its dev questions
ACTS = {"aiact": ("aiact/eu-ai-act.html", "aiact.jsonl"), "gdpr": ("gdpr/eu-gdpr-act-full.md", "gdpr.jsonl")}


def uploaded(store: SQLiteStore, emb, act: str) -> tuple[str, str]:
    """The upload corpus of ``act`` (made once per workspace) and its document id."""
    rel, _ = ACTS[act]
    corpus = f"{act}-upload"
    try:
        store.corpus(corpus)
    except CorpusNotFound:
        path = CORPORA / rel
        res = workspace.upload_files(store, emb, [(path.name, path.read_bytes())], corpus=corpus)
        print(f"uploaded {path.name} into {corpus}: {res[0].summary()}", flush=True)
    return corpus, store.documents(corpus)[0].doc_id


def run(store, emb, corpus: str, rows: list[dict], prefix: str = "") -> list[dict]:
    out = []
    for r in rows:
        rep = ask(r["question"], store=store, embedder=emb, corpus=corpus, settings=AskSettings())
        units = {c.anchor.unit_id.removeprefix(prefix) for c in rep.claims if c.anchor is not None and c.supported}
        out.append({"id": r["id"], "unanswerable": r.get("type") == "unanswerable", "refused": rep.refused,
                    "gold_quoted": bool(units & set(r.get("gold", [])))})
    return out


def tally(rows: list[dict]) -> str:
    u = [r for r in rows if r["unanswerable"]]
    a = [r for r in rows if not r["unanswerable"]]
    gold = sum(r["gold_quoted"] for r in a if not r["refused"])
    return (f"unanswerable refused {sum(r['refused'] for r in u)}/{len(u)}; answerable falsely refused "
            f"{sum(r['refused'] for r in a)}/{len(a)}; answered with a gold unit quoted {gold}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--workspace", type=Path, required=True, help="folder for the store and the embedding cache")
    ap.add_argument("--acts", default=",".join(ACTS), help=f"comma-separated, of: {', '.join(ACTS)}")
    args = ap.parse_args(argv)
    if not CORPORA.exists():
        print(f"skipped: no shared corpora at {CORPORA} (set ANCHOR_BENCH_DATA)")
        return 0
    args.workspace.mkdir(parents=True, exist_ok=True)
    store, emb = SQLiteStore(args.workspace / "anchor.db"), workspace_embedder(args.workspace)
    use_adapters(get_adapter)
    for act in args.acts.split(","):
        if act not in ACTS:
            print(f"unknown act {act!r}; choose from {', '.join(ACTS)}", file=sys.stderr)
            return 2
        rows = [json.loads(line) for line in (HERE / "questions" / ACTS[act][1]).read_text("utf-8").splitlines()
                if line.strip()]
        adapter = ensure(store, emb, act)
        upload, doc = uploaded(store, emb, act)
        for name, corpus in (("adapter", adapter), ("upload", upload)):
            info = store.corpus(corpus)
            print(f"{act} {name}: {info.units} units, {info.chunks} chunks, {info.references} references")
        a = run(store, emb, adapter, rows)
        b = run(store, emb, upload, rows, prefix=f"{doc}/")
        print(f"{act} adapter ({len(rows)} dev questions): {tally(a)}")
        print(f"{act} upload  ({len(rows)} dev questions): {tally(b)}")
        moved = [x["id"] for x, y in zip(a, b) if (x["refused"], x["gold_quoted"]) != (y["refused"], y["gold_quoted"])]
        print(f"{act}: {len(moved)} questions differ: {', '.join(moved)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
