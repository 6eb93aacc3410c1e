"""Anchor: grounded retrieval and claim verification.

The public verbs are importable from here (lazily, so the CLI starts fast):

    >>> from anchor_core import anchor_claim, verify_answer, retrieve
"""

from __future__ import annotations

import importlib

_EXPORTS = {
    "anchor_claim": "anchor_core.anchoring",
    "Anchor": "anchor_core.anchoring",
    "decompose": "anchor_core.anchoring",
    "verify_answer": "anchor_core.verify",
    "Report": "anchor_core.report",
    "check": "anchor_core.check",
    "retrieve": "anchor_core.retrieve",
    "RetrievalSettings": "anchor_core.retrieve",
}

__all__ = list(_EXPORTS)


def __getattr__(name: str):
    if name in _EXPORTS:
        return getattr(importlib.import_module(_EXPORTS[name]), name)
    raise AttributeError(f"module 'anchor_core' has no attribute {name!r}")
