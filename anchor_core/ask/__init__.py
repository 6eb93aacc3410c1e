"""Ask: a question in, an anchored answer or a reasoned refusal out (see :mod:`.pipeline`).

Names are imported lazily so that reading the LLM configuration does not load the pipeline.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "ask": "pipeline", "AskSettings": "pipeline", "LLM": "pipeline",
    "AskReport": "report", "CheckedClaim": "report", "ClaimAnchor": "report", "GateDecision": "report",
    "Source": "report", "TraceEvent": "report",
    "recheck": "rechecks", "Recheck": "rechecks",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"anchor_core.ask.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'anchor_core.ask' has no attribute {name!r}")
