"""Settings read once from the environment and handed down; nothing else reads ``os.environ``."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=lambda: Path.home() / ".anchor")
    embedder: str = "minilm"
    es_url: str | None = None

    @property
    def db_path(self) -> Path:
        return self.home / "anchor.db"

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        home = Path(env["ANCHOR_HOME"]).expanduser() if env.get("ANCHOR_HOME") else Path.home() / ".anchor"
        return cls(home=home, embedder=env.get("ANCHOR_EMBEDDER", "minilm"), es_url=env.get("ANCHOR_ES_URL") or None)


def open_store(settings: Settings):
    """The embedded SQLite store of the workspace (the Elasticsearch store comes with its issue)."""
    from anchor_core.stores.sqlite import SQLiteStore

    return SQLiteStore(settings.db_path)
