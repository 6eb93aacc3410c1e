"""Settings read once from the environment and handed down; nothing else reads ``os.environ``.

A bad value is a :class:`ConfigError` whose one-line message names the variable, the value
and what is allowed, e.g. ``ANCHOR_STORE is 'mongo'; allowed: sqlite, elasticsearch``; the CLI
prints it and exits 2, the dashboard shows it instead of the page.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, TypeVar

from anchor_core.errors import ConfigError

GROQ_URL = "https://api.groq.com/openai/v1"
DEFAULT_WRITER = "openai/gpt-oss-120b"
DEFAULT_JUDGE = "openai/gpt-oss-20b"

LLMProvider = Literal["groq", "openai-compatible"]
StoreKind = Literal["sqlite", "elasticsearch"]


def redact_url(url: str) -> str:
    """``https://user:secret@host:9200`` → ``https://host:9200``: URLs are shown, credentials never."""
    return re.sub(r"//[^/@]*@", "//", url)


@dataclass(frozen=True)
class LLMConfig:
    """Where the LLM writer and judge live; the key never appears in a repr or a message."""

    provider: LLMProvider
    base_url: str
    api_key: str | None
    writer_model: str = DEFAULT_WRITER
    judge_model: str = DEFAULT_JUDGE
    timeout: float = 30.0
    retries: int = 2

    def __repr__(self) -> str:  # never show the key
        return (f"LLMConfig(provider={self.provider!r}, base_url={self.base_url!r}, "
                f"api_key={'***' if self.api_key else None}, writer_model={self.writer_model!r}, "
                f"judge_model={self.judge_model!r})")


AUTH_MODES = ("oidc", "proxy", "local")


@dataclass(frozen=True)
class AuthSettings:
    """Who the dashboard's viewer is (:mod:`anchor_core.access` turns a request into a ``Viewer``).

    ``oidc`` (default): Streamlit's ``st.login`` with the provider in ``.streamlit/secrets.toml``
    ``[auth]``; groups from the ID-token claim ``groups_claim``. ``proxy``: an authenticating proxy
    in front sends the user and groups in headers, and the shared secret in ``secret_header``.
    ``local``: the single local operator, who sees every document. No identity means public
    documents only."""

    mode: str = "oidc"
    groups_claim: str = "groups"
    admin_group: str = "anchor-admins"
    user_header: str = "X-Forwarded-User"
    groups_header: str = "X-Forwarded-Groups"
    secret_header: str = "X-Anchor-Proxy-Secret"
    proxy_secret: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class SQLiteSettings:
    """The embedded store: one file in the workspace."""

    path: Path

    @property
    def location(self) -> str:
        return str(self.path)


@dataclass(frozen=True)
class ElasticSettings:
    """An Elasticsearch 9.x cluster (the ``ANCHOR_ES_*`` variables). Secrets, and a URL that may embed
    user:password, stay out of the repr, logs and tracebacks that print the settings."""

    url: str | None = field(default=None, repr=False)
    api_key: str | None = field(default=None, repr=False)
    username: str | None = None
    password: str | None = field(default=None, repr=False)
    ca_certs: Path | None = None
    verify_certs: bool = True
    timeout: float = 30.0
    retries: int = 3
    prefix: str = "anchor"
    shards: int = 1
    replicas: int = 1
    num_candidates: int = 200
    english: bool = False
    server_rrf: bool = False

    @property
    def location(self) -> str:
        """Where corpora live, for messages (never with credentials)."""
        return f"Elasticsearch at {redact_url(self.url or '?')}"


@dataclass(frozen=True)
class Settings:
    home: Path = field(default_factory=lambda: Path.home() / ".anchor")
    embedder: str = "minilm"
    store: StoreKind = "sqlite"
    """``sqlite`` (the workspace file) or ``elasticsearch`` (ANCHOR_STORE)."""
    elasticsearch: ElasticSettings = field(default_factory=ElasticSettings)
    llm: LLMConfig | None = None
    """Set when GROQ_API_KEY or ANCHOR_LLM_BASE_URL is set; None is the offline path."""
    max_upload_mb: float = 50.0
    """Uploaded files larger than this fail with a message naming the limit (ANCHOR_MAX_UPLOAD_MB)."""
    auth: AuthSettings = field(default_factory=AuthSettings)
    """How the dashboard knows its viewer (ANCHOR_AUTH and ANCHOR_AUTH_*)."""
    answer_model: str = "off"
    """``off`` (the default): the answerability gate decides on its explainable features; ``answers``: it also
    reads the retrieved passages with the trained cross-encoder, which changed no decision on the questions measured
    and makes ``ask`` about 1.7 times slower (ANCHOR_ANSWER_MODEL)."""
    reader_model: str = "contradicts"
    """``contradicts``: a supported claim whose quote the trained contradiction reader judges to state
    otherwise is flagged ``may_state_otherwise``; ``off``: no reading (ANCHOR_READER_MODEL)."""

    @property
    def sqlite(self) -> SQLiteSettings:
        """The embedded store's settings: its file lives in the workspace."""
        return SQLiteSettings(self.home / "anchor.db")

    @property
    def db_path(self) -> Path:
        return self.sqlite.path

    @property
    def store_location(self) -> str:
        """Where corpora live, for messages (never with credentials)."""
        return self.elasticsearch.location if self.store == "elasticsearch" else self.sqlite.location

    @classmethod
    def from_env(cls, env: dict[str, str] | None = None) -> Settings:
        env = dict(os.environ if env is None else env)
        home = Path(env["ANCHOR_HOME"]).expanduser() if env.get("ANCHOR_HOME") else Path.home() / ".anchor"
        if home.exists() and not home.is_dir():
            raise invalid("ANCHOR_HOME", env["ANCHOR_HOME"], "a folder (this is a file)")
        return cls(home=home, embedder=_choice(env, "ANCHOR_EMBEDDER", EMBEDDERS, "minilm"),
                   store=_choice(env, "ANCHOR_STORE", STORES, "sqlite"),
                   elasticsearch=elastic_settings(env), llm=llm_config(env),
                   max_upload_mb=_number(env, "ANCHOR_MAX_UPLOAD_MB", 50.0, 0.001),
                   auth=auth_settings(env),
                   answer_model=_choice(env, "ANCHOR_ANSWER_MODEL", ANSWER_MODELS, "off"),
                   reader_model=_choice(env, "ANCHOR_READER_MODEL", READER_MODELS, "contradicts"))


STORES: tuple[StoreKind, ...] = ("sqlite", "elasticsearch")
ANSWER_MODELS = ("answers", "off")
READER_MODELS = ("contradicts", "off")
EMBEDDERS = ("minilm", "minilm-fp32", "minilm-int8", "hash")
"""Names ``anchor_core.embeddings.make_embedder`` builds (kept here so reading settings imports no model code)."""


def invalid(name: str, raw: str, allowed: str) -> ConfigError:
    """The one-line message for a bad setting: the variable, its value, what is allowed."""
    return ConfigError(f"{name} is {raw!r}; allowed: {allowed}. Fix or unset {name} and run again")


Choice = TypeVar("Choice", bound=str)


def _choice(env: dict[str, str], name: str, allowed: tuple[Choice, ...], default: Choice) -> Choice:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    value = raw.strip().lower()
    for a in allowed:
        if a == value:
            return a
    raise invalid(name, raw, ", ".join(allowed))


def _url(env: dict[str, str], name: str, example: str) -> str | None:
    raw = env.get(name) or ""
    if not raw:
        return None
    if not raw.startswith(("http://", "https://")):
        raise invalid(name, raw, f"a URL starting with http:// or https://, e.g. {example}")
    return raw


def _readable_file(env: dict[str, str], name: str) -> Path | None:
    raw = env.get(name)
    if not raw:
        return None
    path = Path(raw).expanduser()
    try:
        with path.open("rb"):
            pass
    except IsADirectoryError:
        raise invalid(name, raw, "a readable certificate file (PEM); this is a folder") from None
    except OSError as err:
        raise invalid(name, raw, f"a readable certificate file (PEM); it cannot be read ({err.strerror})") from None
    return path


def elastic_settings(env: dict[str, str]) -> ElasticSettings:
    """The ``ANCHOR_ES_*`` variables (read even on SQLite, so a typo fails before a move to Elasticsearch)."""
    return ElasticSettings(url=_url(env, "ANCHOR_ES_URL", "http://localhost:9200"),
                           api_key=env.get("ANCHOR_ES_API_KEY") or None,
                           username=env.get("ANCHOR_ES_USERNAME") or None,
                           password=env.get("ANCHOR_ES_PASSWORD") or None,
                           ca_certs=_readable_file(env, "ANCHOR_ES_CA_CERTS"),
                           verify_certs=_flag(env, "ANCHOR_ES_VERIFY_CERTS", True),
                           timeout=_number(env, "ANCHOR_ES_TIMEOUT", 30.0),
                           retries=_number(env, "ANCHOR_ES_RETRIES", 3, minimum=0),
                           prefix=env.get("ANCHOR_ES_PREFIX") or "anchor",
                           shards=_number(env, "ANCHOR_ES_SHARDS", 1),
                           replicas=_number(env, "ANCHOR_ES_REPLICAS", 1, minimum=0),
                           num_candidates=_number(env, "ANCHOR_ES_NUM_CANDIDATES", 200),
                           english=_flag(env, "ANCHOR_ES_ENGLISH", False),
                           server_rrf=_flag(env, "ANCHOR_ES_SERVER_RRF", False))


def _flag(env: dict[str, str], name: str, default: bool) -> bool:
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    v = raw.strip().lower()
    if v in ("1", "true", "yes", "on"):
        return True
    if v in ("0", "false", "no", "off"):
        return False
    raise invalid(name, raw, "true or false (also 1/0, yes/no, on/off)")


Num = TypeVar("Num", int, float)


def _number(env: dict[str, str], name: str, default: Num, minimum: float = 1) -> Num:
    """``env[name]`` read as the type of ``default`` (an int default: a whole number)."""
    raw = env.get(name)
    if raw is None or raw.strip() == "":
        return default
    kind = type(default)
    what = "a whole number" if kind is int else "a number"
    try:
        v = kind(raw)
    except ValueError:
        raise invalid(name, raw, f"{what} of at least {minimum:g}, e.g. {default:g}") from None
    if not math.isfinite(v) or v < minimum:
        raise invalid(name, raw, f"{what} of at least {minimum:g}, e.g. {default:g}")
    return v


_HEADER = re.compile(r"^[A-Za-z0-9-]{1,64}$")
_CLAIM = re.compile(r"^[A-Za-z0-9_.:/-]{1,128}$")
MIN_SECRET = 16


def _name(env: dict[str, str], var: str, default: str, pattern: re.Pattern, allowed: str) -> str:
    raw = env.get(var)
    if raw is None or raw.strip() == "":
        return default
    if not pattern.match(raw.strip()):
        raise invalid(var, raw, allowed)
    return raw.strip()


def auth_settings(env: dict[str, str]) -> AuthSettings:
    """``ANCHOR_AUTH`` and its ``ANCHOR_AUTH_*`` companions. Proxy mode needs a shared secret: anyone
    who reaches the Streamlit port directly could otherwise send any user and groups."""
    mode = _choice(env, "ANCHOR_AUTH", AUTH_MODES, "oidc")
    header = "an HTTP header name (letters, digits and '-')"
    secret = env.get("ANCHOR_AUTH_PROXY_SECRET") or None
    if mode == "proxy" and (secret is None or len(secret) < MIN_SECRET):
        shown = "unset" if secret is None else f"{len(secret)} characters long"
        raise ConfigError(f"ANCHOR_AUTH is 'proxy' but ANCHOR_AUTH_PROXY_SECRET is {shown}; allowed: a random "
                          f"secret of at least {MIN_SECRET} characters that the proxy sends in its secret header. "
                          "Set ANCHOR_AUTH_PROXY_SECRET (or another ANCHOR_AUTH) and run again")
    return AuthSettings(
        mode=mode,
        groups_claim=_name(env, "ANCHOR_AUTH_GROUPS_CLAIM", "groups", _CLAIM,
                           "an ID-token claim name such as groups or roles"),
        admin_group=_name(env, "ANCHOR_AUTH_ADMIN_GROUP", "anchor-admins", re.compile(r"^\S{1,128}$"),
                          "one group name without spaces, e.g. anchor-admins"),
        user_header=_name(env, "ANCHOR_AUTH_USER_HEADER", "X-Forwarded-User", _HEADER, header),
        groups_header=_name(env, "ANCHOR_AUTH_GROUPS_HEADER", "X-Forwarded-Groups", _HEADER, header),
        secret_header=_name(env, "ANCHOR_AUTH_SECRET_HEADER", "X-Anchor-Proxy-Secret", _HEADER, header),
        proxy_secret=secret)


def llm_config(env: dict[str, str]) -> LLMConfig | None:
    """``ANCHOR_LLM_BASE_URL`` (any OpenAI-compatible server, key in ``ANCHOR_LLM_API_KEY`` if it
    needs one) wins over ``GROQ_API_KEY``; neither set means no LLM (the offline path)."""
    timeout = _number(env, "ANCHOR_LLM_TIMEOUT", 30.0, 0.1)
    writer = env.get("ANCHOR_LLM_MODEL") or DEFAULT_WRITER
    judge = env.get("ANCHOR_LLM_JUDGE_MODEL") or DEFAULT_JUDGE
    url = _url(env, "ANCHOR_LLM_BASE_URL", "http://localhost:8080/v1")
    if url:
        return LLMConfig("openai-compatible", url.rstrip("/"), env.get("ANCHOR_LLM_API_KEY") or None, writer, judge,
                         timeout)
    if env.get("GROQ_API_KEY"):
        return LLMConfig("groq", GROQ_URL, env["GROQ_API_KEY"], writer, judge, timeout)
    return None

