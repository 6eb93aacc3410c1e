"""Upload benchmarks: a generated 200-page text PDF through ``ingest_uploads`` end to end, and
the cost of adding small documents to a growing corpus.

    python -m bench.uploads [--pages 200] [--embedder minilm|minilm-fp32|minilm-int8|hash]
    python -m bench.uploads --growth [--sizes 10,100,300,1000] [--repeat 3] [--embedder hash]

``--growth`` fills a fresh corpus with small Markdown policies (two clauses each, a reference
to the next policy's clause and a mention of an earlier one by title, so every add resolves
references in both directions), and at each corpus size times single-document adds (median of
``--repeat``) and one batch of 10, wall and CPU, plus the first vector query after an add.
Writes ``bench/results/uploads-growth.json``.

The PDF is made with reportlab: numbered clauses with sub-clauses and list items, a running
header, a ``Page N of M`` footer and words hyphenated across line breaks, ~45 lines a page.
It is ingested cold (fresh store, no embedding cache) and the time is split into extraction
(pypdf text, repair, structure, references are part of "store"), embedding and the store
write. Prints a table and writes ``bench/results/uploads.json``; target ≥ 20 pages/s on 2 cores.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import platform
import tempfile
import time
from pathlib import Path

TOPICS = ["premium", "claims", "notices", "liability", "confidentiality", "termination", "data protection",
          "sub-contracting", "audit", "insurance", "force majeure", "governing law"]


def make_pdf(pages: int) -> bytes:
    """A long contract, about 45 lines a page, with furniture the pipeline must remove."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, invariant=1)
    clause, sub = 1, 0
    for p in range(1, pages + 1):
        c.setFont("Helvetica", 8)
        c.drawString(72, 810, "Master Services Agreement - Benchmark Edition - Confidential")
        c.setFont("Helvetica", 9)
        y = 780
        while y > 70:
            if sub == 0:
                c.drawString(72, y, f"{clause}. {TOPICS[clause % len(TOPICS)].upper()}")
                sub = 1
            else:
                topic = TOPICS[(clause + sub) % len(TOPICS)]
                other = TOPICS[(clause * 7 + sub * 3) % len(TOPICS)]
                lines = [f"{clause}.{sub} The Supplier shall comply with the {topic} obligations in clause "
                         f"{max(1, clause - 1)}.{sub} and",
                         f"Schedule {1 + clause % 3}, and shall keep {other} records of each Service for the audit",
                         f"(a) notify the Customer of any {other} matter in writing within ten Business Days; and",
                         f"(b) take reasonable steps to limit any {topic} loss, including indem-",
                         f"nification of third parties where paragraph (a) above applies to {other}."]
                for line in lines:
                    c.drawString(72, y, line)
                    y -= 13
                sub += 1
                if sub > 6:
                    clause, sub = clause + 1, 0
            y -= 13
        c.setFont("Helvetica", 8)
        c.drawString(280, 40, f"Page {p} of {pages}")
        c.showPage()
    c.save()
    return buf.getvalue()


def policy(i: int) -> tuple[str, bytes]:
    """A small uploaded policy (about 300 bytes) that cites policy ``i + 1`` and names policy ``i // 2``."""
    topic, other = TOPICS[i % len(TOPICS)], TOPICS[(i * 7) % len(TOPICS)]
    text = (f"# Staff Policy {i:04d}\n\n## 1. Scope\n\nThis policy covers {topic} for every team; personal "
            f"data follows clause 2 of the Staff Policy {i + 1:04d}.\n\n## 2. Rules\n\nStaff keep {other} "
            f"records as set out in clause 1 and in the Staff Policy {i // 2:04d}.\n")
    return f"policy-{i:04d}.md", text.encode()


def growth(args: argparse.Namespace) -> int:
    import statistics

    import numpy as np

    from anchor_core.embeddings import make_embedder
    from anchor_core.models import Filters
    from anchor_core.stores.sqlite import SQLiteStore
    from ingest.uploads import ingest_uploads

    sizes = sorted(int(x) for x in args.sizes.split(","))
    embedder = make_embedder(args.embedder)
    q = embedder.embed(["personal data records of staff"])[0]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "anchor.db")
        n = 0

        def add(count: int) -> tuple[float, float, float]:
            nonlocal n
            files = [policy(n + j) for j in range(count)]
            w, c = time.perf_counter(), time.process_time()
            results = ingest_uploads(store, embedder, files, corpus="grow")
            w, c = time.perf_counter() - w, time.process_time() - c
            bad = [r for r in results if r.status != "ingested"]
            if bad:
                raise SystemExit(f"growth benchmark: {bad[0].name}: {bad[0].status} {bad[0].error}")
            n += count
            t = time.perf_counter()
            store.search_vector("grow", q, 5, Filters())
            return w, c, time.perf_counter() - t

        for size in sizes:
            if size > n:
                add(size - n)  # fill up to the size in one batch (not timed)
            at = n
            singles = [add(1) for _ in range(args.repeat)]
            batch = add(10)
            row = {"documents": at, "add1_wall_s": statistics.median(s[0] for s in singles),
                   "add1_cpu_s": statistics.median(s[1] for s in singles),
                   "query_after_add_s": statistics.median(s[2] for s in singles),
                   "add10_wall_s": batch[0], "add10_cpu_s": batch[1]}
            rows.append(row)
            print(f"{at:6d} documents: add 1 {row['add1_wall_s']:7.3f}s wall {row['add1_cpu_s']:7.3f}s cpu | "
                  f"add 10 {row['add10_wall_s']:7.3f}s wall {row['add10_cpu_s']:7.3f}s cpu | first query after "
                  f"an add {row['query_after_add_s'] * 1000:6.1f} ms", flush=True)
        info = store.corpus("grow")
        store.close()
    out = {"embedder": embedder.model_id, "repeat": args.repeat, "rows": rows, "final_documents": info.documents,
           "final_references": info.references, "final_unresolved": info.unresolved, "cpus": os.cpu_count(),
           "load_average": [round(x, 2) for x in os.getloadavg()], "numpy": np.__version__}
    path = Path(args.out if args.out != DEFAULT_OUT else Path(DEFAULT_OUT).with_name("uploads-growth.json"))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, indent=2) + "\n")
    print(f"final corpus: {info.documents} documents, {info.references} references ({info.unresolved} unresolved); "
          f"load average {out['load_average']}")
    return 0


DEFAULT_OUT = str(Path(__file__).parent / "results" / "uploads.json")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pages", type=int, default=200)
    ap.add_argument("--growth", action="store_true", help="time small adds into a growing corpus")
    ap.add_argument("--sizes", default="10,100,300,1000")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--embedder", choices=["minilm", "minilm-fp32", "minilm-int8", "hash"],
                    default=os.environ.get("ANCHOR_EMBEDDER", "minilm"))
    ap.add_argument("--out", default=DEFAULT_OUT)
    args = ap.parse_args(argv)
    if args.growth:
        return growth(args)

    from anchor_core.embeddings import make_embedder
    from anchor_core.stores.sqlite import SQLiteStore
    from ingest.uploads import ingest_uploads

    t = time.perf_counter()
    pdf = make_pdf(args.pages)
    gen_s = time.perf_counter() - t
    embedder = make_embedder(args.embedder)
    if hasattr(embedder, "_load"):
        embedder._load()  # model load is a per-process cost, not a per-document one: measured apart
    with tempfile.TemporaryDirectory() as tmp:
        store = SQLiteStore(Path(tmp) / "anchor.db")
        t = time.perf_counter()
        [res] = ingest_uploads(store, embedder, [("benchmark.pdf", pdf)], corpus="bench")
        total = time.perf_counter() - t
        store.close()
    if res.status != "ingested":
        raise SystemExit(f"benchmark file failed: {res.error}")
    extract_s, embed_s = res.timings.get("extract", 0.0), res.timings.get("embed", 0.0)
    rest = total - extract_s - embed_s - res.timings.get("read", 0.0)
    out = {
        "pages": res.pages, "bytes": len(pdf), "embedder": embedder.model_id, "units": res.units,
        "chunks": res.chunks, "references": res.references, "unresolved": res.unresolved,
        "structure": res.structure, "repairs": res.repairs,
        "seconds_total": round(total, 2), "pages_per_s": round(res.pages / total, 1),
        "seconds_extract": round(extract_s, 2), "seconds_embed": round(embed_s, 2),
        "seconds_refs_and_store": round(rest, 2),
        "share_extract": round(extract_s / total, 3), "share_embed": round(embed_s / total, 3),
        "share_refs_and_store": round(rest / total, 3), "pdf_generation_s": round(gen_s, 2),
        "cpus": os.cpu_count(), "python": platform.python_version(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    Path(args.out).write_text(json.dumps(out, indent=2) + "\n")
    print(f"{out['pages']} pages, {out['chunks']} chunks ({embedder.model_id}) in {total:.1f}s: "
          f"{out['pages_per_s']} pages/s (target >= 20)")
    print(f"  extraction (pypdf, repair, structure) {extract_s:6.2f}s  {out['share_extract']:.0%}")
    print(f"  embedding                            {embed_s:6.2f}s  {out['share_embed']:.0%}")
    print(f"  references + store write             {rest:6.2f}s  {out['share_refs_and_store']:.0%}")
    print(f"  structure: {res.structure}; repairs: {res.repairs}; load average {out['load_average']}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
