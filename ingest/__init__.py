"""Corpus adapters: each turns one kind of source into documents, units and references."""

from __future__ import annotations

import importlib

from anchor_core.errors import AdapterError

ADAPTERS: dict[str, str] = {
    "aiact": "ingest.eurlex:AIActAdapter",
    "gdpr": "ingest.eurlex:GDPRAdapter",
    "peps": "ingest.peps:PepsAdapter",
    "rfc": "ingest.rfc:RfcAdapter",
    "adgm": "ingest.adgm:AdgmAdapter",
    "files": "ingest.files:FilesAdapter",
}


def get_adapter(name: str):
    """The adapter instance registered under ``name``."""
    try:
        target = ADAPTERS[name]
    except KeyError:
        raise AdapterError(
            f"unknown corpus adapter {name!r}; choose one of: {', '.join(sorted(ADAPTERS))}"
        ) from None
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)()
