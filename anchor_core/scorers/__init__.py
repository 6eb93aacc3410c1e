"""Support scorers: how well a source span supports a claim, as a score in [0, 1] and a verdict.

All scorers share one protocol (:class:`Scorer`): ``score(premises, hypotheses)`` over parallel
lists, ``explain(premise, hypothesis)`` for human reasons, and a ``threshold`` (supported when
``score >= threshold``). Build one by name with :func:`make_scorer`:

================  ==========================================================  ======================
name              what the score is                                           needs
================  ==========================================================  ======================
``lexical``       content-token coverage, numbers matched by value            nothing
``learned``       learned lexical-semantic support score (not an entailment   optional ``embedder``
                  probability): logistic regression over pair features
``nli``           softmax probability of a local cross-encoder's              ``model_dir``
                  entailment/supported label
``llm``           an LLM judge's JSON verdict                                 ``complete``
================  ==========================================================  ======================

The NLI scorer imports torch and transformers only when it is built.
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from anchor_core.errors import ConfigError


@runtime_checkable
class Scorer(Protocol):
    name: str
    threshold: float

    def score(self, premises: list[str], hypotheses: list[str]) -> list[float]: ...

    def explain(self, premise: str, hypothesis: str) -> list[str]: ...


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


SCORERS = {"lexical": _lexical, "learned": _learned, "nli": _nli, "llm": _llm}


def make_scorer(name: str, **kw: Any) -> Scorer:
    """The scorer registered as ``name``, built with ``kw``.

    >>> make_scorer("lexical").name
    'lexical'
    >>> make_scorer("nli")
    Traceback (most recent call last):
    ...
    anchor_core.errors.ConfigError: the nli scorer needs model_dir: ...
    """
    try:
        factory = SCORERS[name]
    except KeyError:
        raise ConfigError(f"unknown scorer {name!r}; choose one of: {', '.join(SCORERS)}") from None
    try:
        return factory(**kw)
    except TypeError as err:
        raise ConfigError(f"bad options for the {name} scorer: {err}") from err


__all__ = ["SCORERS", "Scorer", "make_scorer"]
