"""Chat-completion clients: Groq (the ``groq`` package) or any OpenAI-compatible endpoint.

Both speak the same wire format (``POST …/chat/completions``). Configuration comes from the
environment through :class:`LLMConfig` (read once by :func:`anchor_core.config.llm_config`); the API key is never
logged, printed or put into an error message.

Failures are typed so the pipeline can fall back and say why: :class:`LLMAuthError` (a wrong key:
retrying will not help), :class:`LLMUnavailable` (unreachable, timed out, rate-limited after the
retries, a server error).
"""

from __future__ import annotations

import logging
import time
from typing import Any, Protocol, cast

import httpx

from anchor_core.config import LLMConfig
from anchor_core.errors import AnchorError, ConfigError

log = logging.getLogger(__name__)



class LLMError(AnchorError):
    """The LLM could not give an answer."""


class LLMAuthError(LLMError):
    """The endpoint rejected the credentials."""


class LLMUnavailable(LLMError):
    """Unreachable, timed out, rate-limited or failing after retries."""


class ChatClient(Protocol):
    provider: str

    def complete(self, messages: list[dict], *, model: str, temperature: float = 0.0,
                 max_tokens: int = 800, json_mode: bool = False) -> str: ...


class HTTPChatClient:
    """OpenAI-compatible ``/chat/completions`` over httpx, with retries on 429/5xx/timeouts."""

    provider = "openai-compatible"

    def __init__(self, config: LLMConfig, transport: httpx.BaseTransport | None = None) -> None:
        self.config = config
        headers = {"Authorization": f"Bearer {config.api_key}"} if config.api_key else {}
        self._http = httpx.Client(base_url=config.base_url, headers=headers, timeout=config.timeout,
                                  transport=transport)

    def complete(self, messages: list[dict], *, model: str, temperature: float = 0.0,
                 max_tokens: int = 800, json_mode: bool = False) -> str:
        body: dict = {"model": model, "messages": messages, "temperature": temperature, "max_tokens": max_tokens}
        if json_mode:
            body["response_format"] = {"type": "json_object"}
        last = ""
        for attempt in range(self.config.retries + 1):
            try:
                r = self._http.post("/chat/completions", json=body)
            except httpx.TimeoutException:
                last = f"timed out after {self.config.timeout:.0f} s"
            except httpx.HTTPError as e:
                last = f"unreachable ({type(e).__name__})"
            else:
                if r.status_code in (401, 403):
                    raise LLMAuthError(f"the LLM endpoint {self.config.base_url} rejected the API key (HTTP "
                                       f"{r.status_code}); check ANCHOR_LLM_API_KEY / GROQ_API_KEY")
                if r.status_code == 429 or r.status_code >= 500:
                    last = f"HTTP {r.status_code}{' (rate-limited)' if r.status_code == 429 else ''}"
                    wait = _retry_after(r) if r.status_code == 429 else 0.5 * 2 ** attempt
                    if attempt < self.config.retries:
                        time.sleep(min(wait, 5.0))
                    continue
                if r.status_code >= 400:
                    raise LLMError(f"the LLM endpoint answered HTTP {r.status_code}: {r.text[:200]}")
                try:
                    return r.json()["choices"][0]["message"]["content"] or ""
                except (ValueError, KeyError, IndexError, TypeError):
                    raise LLMError(f"the LLM endpoint sent a response that is not a chat completion: "
                                   f"{r.text[:200]!r}") from None
            if attempt < self.config.retries:
                time.sleep(0.5 * 2 ** attempt)
        raise LLMUnavailable(f"the LLM at {self.config.base_url} failed after {self.config.retries + 1} attempts: "
                             f"{last}")


def _retry_after(r: httpx.Response) -> float:
    try:
        return float(r.headers.get("retry-after", "1"))
    except ValueError:
        return 1.0


class GroqChatClient:
    """Groq through its official client (which speaks the same API); errors mapped to ours."""

    provider = "groq"

    def __init__(self, config: LLMConfig) -> None:
        try:
            import groq
        except ImportError as e:  # groq is the optional `llm` extra
            raise ConfigError("GROQ_API_KEY is set but the groq package is missing: install the llm extra "
                              "(pip install -e '.[llm]', or pip install groq), or unset GROQ_API_KEY") from e
        self._groq = groq
        base = config.base_url.removesuffix("/openai/v1")
        self._client = groq.Groq(api_key=config.api_key, base_url=base, timeout=config.timeout,
                                 max_retries=config.retries)
        self.config = config

    def complete(self, messages: list[dict], *, model: str, temperature: float = 0.0,
                 max_tokens: int = 800, json_mode: bool = False) -> str:
        g = self._groq
        kw: dict[str, Any] = {"response_format": {"type": "json_object"}} if json_mode else {}
        # The groq stubs type each message as one of their per-role TypedDicts; ours are plain
        # {"role", "content"} dicts of that shape.
        wire = cast("list[Any]", messages)
        try:
            r = self._client.chat.completions.create(model=model, messages=wire, temperature=temperature,
                                                     max_tokens=max_tokens, **kw)
        except g.AuthenticationError:
            raise LLMAuthError("Groq rejected the API key (HTTP 401); check GROQ_API_KEY") from None
        except (g.APIConnectionError, g.APITimeoutError, g.RateLimitError, g.InternalServerError) as e:
            raise LLMUnavailable(f"Groq failed after retries: {type(e).__name__}") from None
        except g.APIStatusError as e:
            raise LLMError(f"Groq answered HTTP {e.status_code}") from None
        return r.choices[0].message.content or ""


def make_client(config: LLMConfig) -> ChatClient:
    return GroqChatClient(config) if config.provider == "groq" else HTTPChatClient(config)
