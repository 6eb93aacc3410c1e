"""Ask latency with and without the ``answers`` cross-encoder (``ANCHOR_ANSWER_MODEL``), on the bundled AI Act.

    python -m bench.ask_latency [--questions 20] [--workspace DIR]

The bundled AI Act is ingested with MiniLM into a workspace (a temporary one, or ``--workspace`` when it already holds
the ``aiact`` corpus). Each setting then runs in a fresh process, as a user's ``anchor ask`` does: the first question's
time (imports, the embedder and, with ``answers``, torch and the cross-encoder's weights loading) and the mean time of
the following questions (``eval/questions/aiact.jsonl``, warm). It prints both settings, their ratio and whether they
refused the same questions, and writes ``bench/results/ask_latency.json``. The load average is printed because the
machine is shared. See ``bench/README.md``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
QUESTIONS = BENCH.parent / "eval" / "questions" / "aiact.jsonl"
RESULTS = BENCH / "results" / "ask_latency.json"
SETTINGS = ("off", "answers")


def questions(n: int) -> list[str]:
    rows = [json.loads(line) for line in QUESTIONS.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [r["question"] for r in rows[:n]]


def prepare(ws: Path) -> None:
    """The bundled AI Act in ``ws`` (MiniLM, structural chunks), unless it is there already."""
    from anchor_core.embeddings import make_embedder
    from anchor_core.errors import CorpusNotFound
    from anchor_core.indexing import ingest
    from anchor_core.stores.sqlite import SQLiteStore
    from ingest import get_adapter

    store = SQLiteStore(ws / "anchor.db")
    emb = make_embedder("minilm")
    try:
        if store.corpus("aiact").embedder == emb.model_id:
            return
    except CorpusNotFound:
        pass
    t = time.perf_counter()
    ingest(store, emb, get_adapter("aiact").load(None), corpus="aiact", adapter="aiact")
    print(f"ingested the AI Act into {ws} in {time.perf_counter() - t:.0f} s", flush=True)


def child(ws: Path, n: int) -> dict:
    """One setting, in this process: the first question cold, the rest warm."""
    t0 = time.perf_counter()
    from anchor_core.ask import AskSettings, ask
    from anchor_core.embeddings import make_embedder
    from anchor_core.named import use_adapters
    from anchor_core.stores.sqlite import SQLiteStore
    from ingest import get_adapter

    use_adapters(get_adapter)
    store, emb = SQLiteStore(ws / "anchor.db"), make_embedder("minilm")
    qs = questions(n)
    refused = []
    first = 0.0
    t = time.perf_counter()
    for i, q in enumerate(qs):
        rep = ask(q, store=store, embedder=emb, corpus="aiact", settings=AskSettings())
        refused.append(rep.refused)
        if i == 0:
            first = time.perf_counter() - t0
            t = time.perf_counter()
    warm = (time.perf_counter() - t) / max(len(qs) - 1, 1)
    return {"first_s": round(first, 2), "per_question_s": round(warm, 3), "questions": len(qs), "refused": refused}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--questions", type=int, default=20)
    ap.add_argument("--workspace", default="", help="a workspace that holds (or will hold) the aiact corpus")
    ap.add_argument("--child", default="", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    if args.child:
        print(json.dumps(child(Path(args.workspace), args.questions)))
        return 0
    with tempfile.TemporaryDirectory() as tmp:
        ws = Path(args.workspace) if args.workspace else Path(tmp)
        ws.mkdir(parents=True, exist_ok=True)
        prepare(ws)
        out: dict[str, dict] = {}
        for setting in SETTINGS:
            env = {**os.environ, "ANCHOR_ANSWER_MODEL": setting}
            run = subprocess.run([sys.executable, "-m", "bench.ask_latency", "--child", setting, "--workspace", str(ws),
                                  "--questions", str(args.questions)], env=env, cwd=BENCH.parent, capture_output=True,
                                 text=True, check=True)
            out[setting] = {**json.loads(run.stdout.strip().splitlines()[-1]),
                            "load_average": [round(x, 2) for x in os.getloadavg()]}
            r = out[setting]
            print(f"ANCHOR_ANSWER_MODEL={setting:8} first question {r['first_s']:6.2f} s, "
                  f"then {r['per_question_s']:.3f} s per question ({r['questions'] - 1} questions), "
                  f"refused {sum(r['refused'])}; load {r['load_average']}", flush=True)
    off, on = out["off"], out["answers"]
    summary = {"ratio_per_question": round(on["per_question_s"] / max(off["per_question_s"], 1e-9), 2),
               "ratio_first": round(on["first_s"] / max(off["first_s"], 1e-9), 2),
               "same_refusals": off["refused"] == on["refused"]}
    print(f"with the cross-encoder: {summary['ratio_per_question']}x per question, {summary['ratio_first']}x for the "
          f"first; the same refusals: {summary['same_refusals']}")
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    RESULTS.write_text(json.dumps({"settings": out, **summary}, indent=1) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
