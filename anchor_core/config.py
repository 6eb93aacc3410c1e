"""Settings read once from the environment and handed down; nothing else reads ``os.environ``."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from anchor_core.errors import ConfigError


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=lambda: Path.home() / ".anchor")
    embedder: str = "minilm"
    store: str = "sqlite"
    """``sqlite`` (the workspace file) or ``elasticsearch`` (ANCHOR_STORE)."""
    # Secrets (and a URL that may embed user:password): repr=False keeps them out of reprs, logs
    # and tracebacks that print the settings.
    es_url: str | None = field(default=None, repr=False)
    es_api_key: str | None = field(default=None, repr=False)
    es_username: str | None = None
    es_password: str | None = field(default=None, repr=False)
    es_ca_certs: Path | None = None
    es_verify_certs: bool = True
    es_timeout: float = 30.0
    es_retries: int = 3
    es_prefix: str = "anchor"
    es_shards: int = 1
    es_replicas: int = 1
    es_num_candidates: int = 200
    es_english: bool = False
    es_server_rrf: bool = False
    llm: Any = None
    """An :class:`anchor_core.ask.llm.LLMConfig` when GROQ_API_KEY or ANCHOR_LLM_BASE_URL is set, else None."""
    max_upload_mb: float = 50.0
    """Uploaded files larger than this fail with a message naming the limit (ANCHOR_MAX_UPLOAD_MB)."""

    @property
    def db_path(self) -> Path:
        return self.home / "anchor.db"

    @property
    def store_location(self) -> str:
        """Where corpora live, for messages (never with credentials)."""
        if self.store == "elasticsearch":
            from anchor_core.stores.elastic import redact_url

            return f"Elasticsearch at {redact_url(self.es_url or '?')}"
        return str(self.db_path)

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        home = Path(env["ANCHOR_HOME"]).expanduser() if env.get("ANCHOR_HOME") else Path.home() / ".anchor"
        return cls(home=home, embedder=env.get("ANCHOR_EMBEDDER", "minilm"), es_url=env.get("ANCHOR_ES_URL") or None,
                   llm=_llm_config(env), max_upload_mb=_number(env, "ANCHOR_MAX_UPLOAD_MB", 50.0, float, 0.001),
                   **_es_settings(env))


STORES = ("sqlite", "elasticsearch")


def _es_settings(env: dict[str, str]) -> dict[str, Any]:
    store = (env.get("ANCHOR_STORE") or "sqlite").strip().lower()
    if store not in STORES:
        raise ConfigError(f"ANCHOR_STORE must be one of {', '.join(STORES)}. Currently, the ANCHOR_STORE is {store!r}")
    ca = env.get("ANCHOR_ES_CA_CERTS")
    return dict(store=store,
                es_api_key=env.get("ANCHOR_ES_API_KEY") or None,
                es_username=env.get("ANCHOR_ES_USERNAME") or None,
                es_password=env.get("ANCHOR_ES_PASSWORD") or None,
                es_ca_certs=Path(ca).expanduser() if ca else None,
                es_verify_certs=_flag(env, "ANCHOR_ES_VERIFY_CERTS", True),
                es_timeout=_number(env, "ANCHOR_ES_TIMEOUT", 30.0, float),
                es_retries=_number(env, "ANCHOR_ES_RETRIES", 3, int, minimum=0),
                es_prefix=env.get("ANCHOR_ES_PREFIX") or "anchor",
                es_shards=_number(env, "ANCHOR_ES_SHARDS", 1, int),
                es_replicas=_number(env, "ANCHOR_ES_REPLICAS", 1, int, minimum=0),
                es_num_candidates=_number(env, "ANCHOR_ES_NUM_CANDIDATES", 200, int),
                es_english=_flag(env, "ANCHOR_ES_ENGLISH", False),
                es_server_rrf=_flag(env, "ANCHOR_ES_SERVER_RRF", False))


def _flag(env: dict[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    v = raw.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise ConfigError(f"{name} must be true or false. Currently, the {name} is {raw!r}")


def _number(env: dict[str, str], name: str, default, kind, minimum: float = 1):
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    try:
        v = kind(raw)
    except ValueError:
        raise ConfigError(f"{name} must be a number. Currently, the {name} is {raw!r}") from None
    if v < minimum:
        raise ConfigError(f"{name} must be at least {minimum}. Currently, the {name} is {raw!r}")
    return v


def _llm_config(env: dict[str, str]):
    from anchor_core.ask.llm import config_from_env

    return config_from_env(env)


def open_store(settings: Settings):
    """The configured store: the workspace's SQLite file, or Elasticsearch (health-checked on open)."""
    if settings.store == "elasticsearch":
        from anchor_core.stores.elastic import ElasticStore

        return ElasticStore.from_settings(settings)
    from anchor_core.stores.sqlite import SQLiteStore

    return SQLiteStore(settings.db_path)
