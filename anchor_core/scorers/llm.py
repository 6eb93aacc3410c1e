"""An LLM as judge of support: ask, read a JSON verdict, never trust the answer's shape.

The judge is given a ``complete(prompt) -> str`` callable; the HTTP client that provides one
is wired elsewhere. An answer that cannot be read scores 0.0 ("judge answer unreadable"):
an unreadable verdict must not count as support.
"""

from __future__ import annotations

import json
import re
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

from anchor_core.scorers.params import check_pairs

UNREADABLE = "judge answer unreadable"

PROMPT = """You check whether a SOURCE passage supports a CLAIM.
The claim is supported only if everything it states (facts, numbers, dates, names, negations,
obligations such as "shall"/"must" versus permissions such as "may", and conditions or exceptions)
follows from the source alone. Do not use outside knowledge.

SOURCE:
{premise}

CLAIM:
{hypothesis}

Answer with one JSON object and nothing else:
{{"supported": true or false, "score": a number from 0 to 1 (how fully the source supports the claim), \
"reason": "one short sentence naming what is missing or different, or why it is supported"}}"""

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.DOTALL)
_BOOL = re.compile(r"""["']?supported["']?\s*[:=]\s*["']?(true|false|yes|no)""", re.IGNORECASE)
_SCORE = re.compile(r"""["']?score["']?\s*[:=]\s*["']?(-?\d+(?:\.\d+)?)""", re.IGNORECASE)
_REASON = re.compile(r"""["']?reason["']?\s*[:=]\s*["'](.*?)["']\s*[,}]""", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Judgement:
    supported: bool
    score: float
    reason: str


def _objects(text: str) -> list[str]:
    """Balanced ``{...}`` substrings, outermost first, ignoring braces inside strings."""
    found, depth, start, quote, escape = [], 0, -1, "", False
    for i, c in enumerate(text):
        if quote:
            if escape:
                escape = False
            elif c == "\\":
                escape = True
            elif c == quote:
                quote = ""
            continue
        if c == '"' and depth:
            quote = c
        elif c == "{":
            if depth == 0:
                start = i
            depth += 1
        elif c == "}" and depth:
            depth -= 1
            if depth == 0:
                found.append(text[start:i + 1])
    return found


def _from_mapping(obj: object) -> Judgement | None:
    if not isinstance(obj, dict):
        return None
    low = {str(k).lower(): v for k, v in obj.items()}
    supported, score = low.get("supported"), low.get("score")
    if isinstance(supported, str):
        supported = {"true": True, "yes": True, "false": False, "no": False}.get(supported.strip().lower())
    if isinstance(score, str):
        try:
            score = float(score)
        except ValueError:
            score = None
    if isinstance(score, bool) or not isinstance(score, int | float):
        score = None
    if not isinstance(supported, bool) and score is None:
        return None
    if score is None:
        score = 1.0 if supported else 0.0
    score = min(1.0, max(0.0, float(score)))
    if not isinstance(supported, bool):
        supported = score >= 0.5
    reason = low.get("reason")
    return Judgement(supported, score, str(reason).strip() if reason else "")


def parse_judgement(answer: str) -> Judgement:
    """Read the judge's verdict from its answer: JSON, fenced JSON, JSON amid prose, or loose ``key: value``.

    >>> parse_judgement('Sure!\\n```json\\n{"supported": true, "score": 0.9, "reason": "stated in 2(1)"}\\n```')
    Judgement(supported=True, score=0.9, reason='stated in 2(1)')
    >>> parse_judgement("I cannot tell.")
    Judgement(supported=False, score=0.0, reason='judge answer unreadable')
    """
    text = answer if isinstance(answer, str) else ""
    candidates = [m.group(1) for m in _FENCE.finditer(text)] + [text]
    for chunk in candidates:
        for obj_text in _objects(chunk):
            for variant in (obj_text, re.sub(r",\s*}", "}", obj_text)):
                try:
                    judged = _from_mapping(json.loads(variant))
                except (json.JSONDecodeError, ValueError):
                    continue
                if judged is not None:
                    return judged
    # Last resort: key-value pairs in prose or Python-style dicts ('supported': True).
    b, s = _BOOL.search(text), _SCORE.search(text)
    if b or s:
        r = _REASON.search(text)
        mapping: dict[str, object] = {"reason": r.group(1) if r else ""}
        if b:
            mapping["supported"] = b.group(1).lower() in {"true", "yes"}
        if s:
            mapping["score"] = float(s.group(1))
        judged = _from_mapping(mapping)
        if judged is not None:
            return judged
    return Judgement(False, 0.0, UNREADABLE)


class LLMJudge:
    """Support score from a language model asked for a JSON verdict.

    Args:
        complete: sends a prompt to a model and returns its text answer. Errors it raises
            (network, quota) propagate: a transport failure is not a verdict.
        threshold: supported when the judge's score is at least this.
        cache_size: judgements kept so that ``explain`` after ``score`` does not ask again.

    Example:
        >>> judge = LLMJudge(lambda prompt: '{"supported": false, "score": 0.1, "reason": "2019 is not stated"}')
        >>> judge.score(["The act applies from 2020."], ["The act applies from 2019."])
        [0.1]
        >>> judge.explain("The act applies from 2020.", "The act applies from 2019.")
        ['2019 is not stated']
    """

    name = "llm"

    def __init__(self, complete: Callable[[str], str], threshold: float = 0.5, *, cache_size: int = 1024) -> None:
        if not callable(complete):
            raise TypeError(f"complete must be a callable prompt -> answer. Currently, it is {type(complete).__name__}")
        if not 0.0 <= threshold <= 1.0:
            raise ValueError(f"threshold must be in [0, 1]. Currently, the threshold is {threshold}")
        self.complete = complete
        self.threshold = threshold
        self._cache: OrderedDict[tuple[str, str], Judgement] = OrderedDict()
        self._cache_size = cache_size

    @staticmethod
    def prompt(premise: str, hypothesis: str) -> str:
        return PROMPT.format(premise=premise.strip(), hypothesis=hypothesis.strip())

    def judge(self, premise: str, hypothesis: str) -> Judgement:
        """The judge's verdict on one pair (cached)."""
        key = (premise, hypothesis)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        judged = parse_judgement(self.complete(self.prompt(premise, hypothesis)))
        self._cache[key] = judged
        if len(self._cache) > self._cache_size:
            self._cache.popitem(last=False)
        return judged

    def score(self, premises: list[str], hypotheses: list[str]) -> list[float]:
        check_pairs(premises, hypotheses)
        return [self.judge(p, h).score for p, h in zip(premises, hypotheses)]

    def explain(self, premise: str, hypothesis: str) -> list[str]:
        """The judge's reason when its score is below the threshold (or the answer was unreadable)."""
        judged = self.judge(premise, hypothesis)
        if judged.score >= self.threshold:
            return []
        return [judged.reason or "judge gave no reason"]
