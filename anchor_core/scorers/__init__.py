"""Support scorers: how well a source span supports a claim, as a score in [0, 1] and a verdict.

All scorers share one protocol (:class:`Scorer`): ``score(premises, hypotheses)`` over parallel
lists, ``explain(premise, hypothesis)`` for human reasons, and a ``threshold`` (supported when
``score >= threshold``).

:data:`SCORERS` is the one registry every shell reads: the CLI's ``--scorer`` choices, the
dashboard's select boxes and the anchoring bench list its names, and :func:`build_scorer` builds
any of them from what the caller has (an embedder, an LLM, a model folder), so no caller needs to
know which scorer takes what:

================  ==========================================================  ======================
name              what the score is                                           needs
================  ==========================================================  ======================
``learned``       learned lexical-semantic support score (not an entailment   optional ``embedder``
                  probability): logistic regression over pair features
``lexical``       content-token coverage, numbers matched by value            nothing
``nli``           softmax probability of a local cross-encoder's              ``model_dir``
                  entailment/supported label
``llm``           an LLM judge's JSON verdict                                 ``llm`` (a key or URL)
================  ==========================================================  ======================

:func:`make_scorer` is the low-level constructor (a name and that scorer's own keyword
arguments). The NLI scorer imports torch and transformers only when it is built.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, Protocol, runtime_checkable

from anchor_core.errors import ConfigError

if TYPE_CHECKING:
    from anchor_core.embeddings import Embedder

Need = Literal["model_dir", "llm"]


@runtime_checkable
class Scorer(Protocol):
    name: str
    threshold: float

    def score(self, premises: list[str], hypotheses: list[str]) -> list[float]: ...

    def explain(self, premise: str, hypothesis: str) -> list[str]: ...


class _Chat(Protocol):
    def complete(self, messages: list[dict], *, model: str, temperature: float = 0.0, max_tokens: int = 800,
                 json_mode: bool = False) -> str: ...


class JudgeLLM(Protocol):
    """What the LLM judge needs of a configured LLM (:class:`anchor_core.ask.pipeline.LLM` is one)."""

    @property
    def client(self) -> _Chat: ...

    @property
    def judge_model(self) -> str: ...


def _lexical(**kw: Any) -> Scorer:
    from anchor_core.scorers.lexical import LexicalScorer

    return LexicalScorer(**kw)


def _learned(**kw: Any) -> Scorer:
    from anchor_core.scorers.learned import LearnedScorer

    return LearnedScorer(**kw)


def _nli(**kw: Any) -> Scorer:
    if kw.get("model_dir") is None:
        raise ConfigError("the nli scorer needs model_dir: the folder of a local sequence-classification model "
                          "(e.g. a MiniCheck or NLI cross-encoder saved with save_pretrained).")
    from anchor_core.scorers.nli import NLIScorer

    return NLIScorer(**kw)


def _llm(**kw: Any) -> Scorer:
    if kw.get("complete") is None:
        raise ConfigError("the llm scorer needs complete: a callable that sends a prompt to a model and "
                          "returns its answer.")
    from anchor_core.scorers.llm import LLMJudge

    return LLMJudge(**kw)


def judge_completion(llm: JudgeLLM) -> Callable[[str], str]:
    """The LLM judge's ``complete``: one user message to the configured judge model, JSON answer."""

    def complete(prompt: str) -> str:
        return llm.client.complete([{"role": "user", "content": prompt}], model=llm.judge_model, json_mode=True)

    return complete


@dataclass(frozen=True)
class ScorerInfo:
    """One registered scorer: what to show a user, what it needs, how to build it."""

    name: str
    description: str
    """One line for help texts and select boxes."""
    factory: Callable[..., Scorer]
    needs: tuple[Need, ...] = ()
    """What it cannot be built without, beyond the optional embedder."""
    uses_embedder: bool = False
    params: str | None = None
    """The calibration file (``data/<params>``) whose threshold is the default; None: an uncalibrated 0.5."""

    def default_threshold(self, *, with_embedder: bool = False) -> float:
        """The threshold the scorer uses unless told otherwise (from its calibration record)."""
        if self.params is None:
            return 0.5
        from anchor_core.scorers.params import load_params

        params = load_params(self.params)
        if "models" in params:
            key = "with_embedding" if with_embedder and self.uses_embedder else "without_embedding"
            return float(params["models"][key]["threshold"])
        return float(params["threshold"])

    def missing(self, *, llm: JudgeLLM | None = None, model_dir: str | Path | None = None) -> str | None:
        """Why it cannot be built with what is given (a message naming the fix), or None."""
        if "llm" in self.needs and llm is None:
            return f"the {self.name} scorer needs an LLM: set GROQ_API_KEY or ANCHOR_LLM_BASE_URL"
        if "model_dir" in self.needs and not model_dir:
            return (f"the {self.name} scorer needs a local model folder (a MiniCheck or NLI cross-encoder saved "
                    "with save_pretrained): pass --model-dir DIR")
        return None

    def build(self, *, embedder: Embedder | None = None, llm: JudgeLLM | None = None,
              model_dir: str | Path | None = None, threshold: float | None = None) -> Scorer:
        """The scorer, given everything a caller may have; each scorer takes only what it uses."""
        problem = self.missing(llm=llm, model_dir=model_dir)
        if problem:
            raise ConfigError(problem)
        kw: dict[str, Any] = {} if threshold is None else {"threshold": threshold}
        if self.uses_embedder and embedder is not None:
            kw["embedder"] = embedder
        if "model_dir" in self.needs:
            kw["model_dir"] = model_dir
        if "llm" in self.needs and llm is not None:
            kw["complete"] = judge_completion(llm)
        return self.factory(**kw)


SCORERS: dict[str, ScorerInfo] = {s.name: s for s in (
    ScorerInfo("learned", "calibrated lexical-semantic support score (logistic regression over pair features)",
               _learned, uses_embedder=True, params="learned.json"),
    ScorerInfo("lexical", "word and number coverage of the claim by the source, no model", _lexical,
               params="lexical.json"),
    ScorerInfo("nli", "entailment probability of a local NLI / MiniCheck cross-encoder", _nli, needs=("model_dir",)),
    ScorerInfo("llm", "an LLM judge's verdict (needs GROQ_API_KEY or ANCHOR_LLM_BASE_URL)", _llm, needs=("llm",)),
)}
DEFAULT_SCORER = "learned"


def scorer_names(*, can_give: Iterable[Need] = ()) -> list[str]:
    """Names of the scorers a caller that can supply ``can_give`` is able to build, in registry order.

    >>> scorer_names()
    ['learned', 'lexical']
    >>> scorer_names(can_give=["llm"])
    ['learned', 'lexical', 'llm']
    """
    given = set(can_give)
    return [s.name for s in SCORERS.values() if set(s.needs) <= given]


def scorer_help(names: Iterable[str]) -> str:
    """``learned: …; lexical: …`` for a help text or a select box, in the order given."""
    return "; ".join(f"{n}: {SCORERS[n].description}" for n in names)


def scorer_info(name: str) -> ScorerInfo:
    try:
        return SCORERS[name]
    except KeyError:
        raise ConfigError(f"unknown scorer {name!r}; choose one of: {', '.join(SCORERS)}") from None


def build_scorer(name: str, *, embedder: Embedder | None = None, llm: JudgeLLM | None = None,
                 model_dir: str | Path | None = None, threshold: float | None = None) -> Scorer:
    """The scorer ``name`` built from what the caller has (see :meth:`ScorerInfo.build`).

    >>> build_scorer("lexical").threshold
    0.5132
    >>> build_scorer("llm")
    Traceback (most recent call last):
    ...
    anchor_core.errors.ConfigError: the llm scorer needs an LLM: set GROQ_API_KEY or ANCHOR_LLM_BASE_URL
    """
    return scorer_info(name).build(embedder=embedder, llm=llm, model_dir=model_dir, threshold=threshold)


def make_scorer(name: str, **kw: Any) -> Scorer:
    """The scorer registered as ``name``, built with that scorer's own keyword arguments ``kw``.

    >>> make_scorer("lexical").name
    'lexical'
    >>> make_scorer("nli")
    Traceback (most recent call last):
    ...
    anchor_core.errors.ConfigError: the nli scorer needs model_dir: ...
    """
    factory = scorer_info(name).factory
    try:
        return factory(**kw)
    except TypeError as err:
        raise ConfigError(f"bad options for the {name} scorer: {err}") from err


__all__ = ["DEFAULT_SCORER", "SCORERS", "JudgeLLM", "Scorer", "ScorerInfo", "build_scorer", "make_scorer",
           "scorer_help", "scorer_info", "scorer_names"]
