"""Corpus adapters: each turns one kind of source into documents, units and references."""

from __future__ import annotations

import importlib
from pathlib import Path

from anchor_core.errors import AdapterError
from anchor_core.models import ParsedCorpus

ADAPTERS: dict[str, str] = {
    "aiact": "ingest.eurlex:AIActAdapter",
    "gdpr": "ingest.eurlex:GDPRAdapter",
    "peps": "ingest.peps:PepsAdapter",
    "rfc": "ingest.rfc:RfcAdapter",
    "adgm": "ingest.adgm:AdgmAdapter",
    "files": "ingest.files:FilesAdapter",
}


# Corpora that no adapter loads but whose questions have a reference grammar: ``anchor ingest`` with no adapter
# name, and the dashboard's uploads, store their corpus under the adapter name "uploads".
GRAMMARS: dict[str, str] = {"uploads": "ingest.uploads.grammar:UploadsGrammar"}


def get_adapter(name: str):
    """The adapter instance registered under ``name`` (or, for ``uploads``, the grammar its questions are read
    with)."""
    try:
        target = ADAPTERS[name] if name in ADAPTERS else GRAMMARS[name]
    except KeyError:
        raise AdapterError(
            f"unknown corpus adapter {name!r}; choose one of: {', '.join(sorted(ADAPTERS))}"
        ) from None
    module, _, cls = target.partition(":")
    return getattr(importlib.import_module(module), cls)()


def load_adapter_corpus(adapter_name: str, path: Path | None) -> ParsedCorpus:
    """The corpus the adapter ``adapter_name`` parses from ``path`` (the shells look adapters up;
    the core indexes what they return)."""
    adapter = get_adapter(adapter_name)
    if path is None and getattr(adapter, "needs_path", True):
        raise AdapterError(f"the {adapter_name} adapter needs --path (the folder or file holding the corpus), "
                           f"e.g. anchor ingest {adapter_name} --path ./{adapter_name}; the README's adapter "
                           "table says where to get each corpus")
    return adapter.load(path)
