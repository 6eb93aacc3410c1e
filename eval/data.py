"""Where the evals and benchmarks find their labelled data and extra corpora.

The data is not shipped with Anchor (licences and size): ``ANCHOR_BENCH_DATA`` names a folder
holding ``corpora/`` (aiact, gdpr, peps, rfc, adgm) and ``bench/`` (wice, clapnq, xrefrag,
obliqa); without it the folder ``shared/data`` beside the checkout is used when it exists. A
script whose data is absent skips that set with a note and exits 0.
"""

from __future__ import annotations

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def data_root() -> Path:
    explicit = os.environ.get("ANCHOR_BENCH_DATA")
    return Path(explicit).expanduser() if explicit else REPO.parent / "shared" / "data"


DATA = data_root()
BENCH = DATA / "bench"
CORPORA = DATA / "corpora"
