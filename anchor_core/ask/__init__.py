"""Ask: a question in, an anchored answer or a reasoned refusal out (see :mod:`.pipeline`).

Names are imported lazily so that reading the LLM configuration does not load the pipeline.
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "ask": "ask.pipeline", "AskSettings": "ask.pipeline", "LLM": "ask.pipeline",
    "Report": "report", "CheckedClaim": "report", "ClaimAnchor": "report", "GateDecision": "report",
    "Source": "report", "TraceEvent": "report",
    "recheck": "recheck", "Recheck": "recheck",
}

__all__ = sorted(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(f"anchor_core.{_EXPORTS[name]}"), name)
    raise AttributeError(f"module 'anchor_core.ask' has no attribute {name!r}")
