"""Writers turn numbered sources into an answer whose sentences carry ``[n]`` markers.

* :class:`ExtractiveWriter` (offline, the default without a key) picks the source sentences that
  cover the question best and quotes them, each followed by its marker: faithful by construction,
  and still verified like any other answer.
* :class:`LLMWriter` asks a chat model to answer only from the sources. It may refuse
  (``INSUFFICIENT: reason``). Output with no markers or markers that name no source is sent back
  once for repair; if it is still malformed, or the model is unreachable, the caller falls back to
  the extractive writer and says so in the trace.

Both return a :class:`Draft`: the answer text, the claims (one per sentence, with the source
numbers its markers give) and whether the writer refused.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from anchor_core.ask.gate import answer_type, has_type
from anchor_core.ask.llm import ChatClient, LLMError
from anchor_core.report import Source
from anchor_core.scorers.text import stem
from anchor_core.segment import sentences
from anchor_core.text import words

_MARKER = re.compile(r"\s*\[(\d+(?:\s*,\s*\d+)*)\]")
_REFUSAL = re.compile(r"^\s*(?:INSUFFICIENT|REFUSE|CANNOT ANSWER)\s*[:\-—]?\s*(.*)", re.I | re.S)


@dataclass
class DraftClaim:
    text: str
    cited: list[int] = field(default_factory=list)


@dataclass
class Draft:
    answer: str
    claims: list[DraftClaim]
    writer: str
    refused: bool = False
    reason: str = ""
    notes: list[str] = field(default_factory=list)


def split_marked(answer: str) -> list[DraftClaim]:
    """Sentences of an answer with the ``[n]`` markers that follow them; markers are removed from
    the claim text (the claim is what gets anchored)."""
    out: list[DraftClaim] = []
    for s in sentences(answer):
        cited = [int(n) for m in _MARKER.finditer(s.text) for n in re.split(r"\s*,\s*", m.group(1))]
        text = _MARKER.sub("", s.text).strip()
        if len(words(text)) >= 3:
            out.append(DraftClaim(text=text, cited=cited))
        elif out and cited:
            out[-1].cited += [c for c in cited if c not in out[-1].cited]
    return out


class ExtractiveWriter:
    """Quote the best source sentences for the question, each with its ``[n]``."""

    name = "extractive"

    def __init__(self, max_sentences: int = 3, min_gain: float = 0.15) -> None:
        self.max_sentences = max_sentences
        self.min_gain = min_gain

    def write(self, question: str, sources: list[Source], terms: list[str], weights: dict[str, float]) -> Draft:
        q = {stem(t): weights.get(t, 1.0) for t in terms}
        total = sum(q.values()) or 1.0
        want = answer_type(question) or ("number" if _AMOUNT.search(question) else None)
        scored: list[tuple[float, int, str, set[str]]] = []
        for rank, s in enumerate(sources):
            for sent in sentences(s.text):
                text = " ".join(sent.text.split())
                if len(words(text)) < 5:
                    continue
                st = {stem(w) for w in words(text)} | {stem(w) for w in words(s.heading)}
                cov = sum(w for t, w in q.items() if t in st) / total
                # a "how much / when / who" question wants a sentence holding an amount, a date, a name
                typed = 0.1 if want is not None and has_type(text, want, question) else 0.0
                # direct hits first at equal coverage; a short, dense sentence beats a long one
                # the chunk's similarity to the question breaks ties between sentences covering as much
                scored.append((cov + typed + 0.3 * s.score - 0.01 * rank - 0.0001 * min(len(text), 600), s.n, text,
                               st))
        scored.sort(key=lambda x: -x[0])
        picked: list[tuple[int, str]] = []
        covered: set[str] = set()
        for score, n, text, st in scored:
            if len(picked) >= self.max_sentences:
                break
            gain = sum(w for t, w in q.items() if t in st and t not in covered) / total
            if picked and gain < self.min_gain:
                continue
            if not picked and score <= 0:
                break
            picked.append((n, text))
            covered |= {t for t in q if t in st}
        if not picked:
            return Draft(answer="", claims=[], writer=self.name, refused=True,
                         reason="no source sentence talks about the question")
        claims = [DraftClaim(text=_ENUM.sub("", t).rstrip(" ;:,"), cited=[n]) for n, t in picked]
        labels = {s.n: s.label for s in sources}
        answer = " ".join(f"{labels[c.cited[0]]}: “{_end(c.text)}” [{c.cited[0]}]" for c in claims)
        return Draft(answer=answer, claims=claims, writer=self.name)


_AMOUNT = re.compile(r"\b(maximum|minimum|highest|lowest|largest|smallest|up to|at most|at least|amount|fine|fines|"
                     r"penalty|penalties|deadline|period|percentage|threshold)\b", re.I)
_ENUM = re.compile(r"^\s*(?:\(?[a-z]{1,4}\)|\(?\d{1,3}[.)]|\d+(?:\.\d+)+\.?)\s+")


def _end(text: str) -> str:
    return text if text.endswith((".", "!", "?")) else text + "."


SYSTEM = ("You answer questions for compliance reviewers strictly from the numbered sources given. "
          "Every sentence of your answer must end with the marker of the source that supports it, like [2]. "
          "Use only facts stated in the sources; do not add outside knowledge. Keep it short (at most five "
          "sentences). If the sources do not answer the question, reply exactly 'INSUFFICIENT: ' followed by "
          "one sentence saying what is missing.")


def render_sources(sources: list[Source]) -> str:
    return "\n\n".join(f"[{s.n}] {s.label}: {' '.join(s.text.split())}" for s in sources)


class LLMWriter:
    name = "llm"

    def __init__(self, client: ChatClient, model: str) -> None:
        self.client = client
        self.model = model

    def write(self, question: str, sources: list[Source], terms: list[str], weights: dict[str, float]) -> Draft:
        messages = [{"role": "system", "content": SYSTEM},
                    {"role": "user", "content": f"Sources:\n\n{render_sources(sources)}\n\nQuestion: {question}"}]
        text = self.client.complete(messages, model=self.model)
        notes: list[str] = []
        for attempt in range(2):
            m = _REFUSAL.match(text)
            if m:
                return Draft(answer="", claims=[], writer=f"llm:{self.model}", refused=True,
                             reason=m.group(1).strip() or "the sources do not answer the question", notes=notes)
            problem = _malformed(text, {s.n for s in sources})
            if problem is None:
                return Draft(answer=text.strip(), claims=split_marked(text), writer=f"llm:{self.model}", notes=notes)
            if attempt == 0:
                notes.append(f"writer output malformed ({problem}); asked for a repair")
                messages += [{"role": "assistant", "content": text},
                             {"role": "user", "content": f"Your answer is not usable: {problem}. Rewrite it so that "
                              "every sentence ends with the [n] marker of a source listed above, or reply "
                              "'INSUFFICIENT: ' and why."}]
                text = self.client.complete(messages, model=self.model)
        raise LLMError(f"the writer's output stayed malformed after one repair ({problem})")


def _malformed(text: str, valid: set[int]) -> str | None:
    if not text.strip():
        return "empty answer"
    claims = split_marked(text)
    if not claims:
        return "no sentence of three or more words"
    cited = {n for c in claims for n in c.cited}
    if not cited:
        return "no [n] source markers"
    bad = sorted(cited - valid)
    if bad:
        return f"markers {bad} name no source (valid: 1 to {max(valid) if valid else 0})"
    return None


JUDGE_SYSTEM = ("You decide whether numbered sources contain the answer to a question. Reply with JSON "
                '{"answerable": true|false, "reason": "<one sentence>"}. Say false when the sources are about a '
                "related topic but do not state the answer.")


def llm_judge(client: ChatClient, model: str, question: str, sources: list[Source]) -> tuple[bool, str]:
    messages = [{"role": "system", "content": JUDGE_SYSTEM},
                {"role": "user", "content": f"Sources:\n\n{render_sources(sources)}\n\nQuestion: {question}"}]
    text = client.complete(messages, model=model, max_tokens=200, json_mode=True)
    try:
        data = json.loads(_json_part(text))
        return bool(data["answerable"]), str(data.get("reason", ""))
    except (ValueError, KeyError, TypeError):
        raise LLMError(f"the judge's reply is not the JSON asked for: {text[:120]!r}") from None


DECOMPOSE_SYSTEM = ("Split the answer into atomic factual claims, each checkable on its own against a source. "
                    'Reply with JSON {"claims": [{"text": "...", "sources": [n, ...]}]} keeping the [n] markers '
                    "of the sentence each claim comes from. Do not add facts.")


def llm_decompose(client: ChatClient, model: str, answer: str) -> list[DraftClaim]:
    messages = [{"role": "system", "content": DECOMPOSE_SYSTEM}, {"role": "user", "content": answer}]
    text = client.complete(messages, model=model, max_tokens=800, json_mode=True)
    try:
        data = json.loads(_json_part(text))
        out = [DraftClaim(text=str(c["text"]).strip(), cited=[int(n) for n in c.get("sources", [])])
               for c in data["claims"]]
    except (ValueError, KeyError, TypeError):
        raise LLMError(f"the decomposer's reply is not the JSON asked for: {text[:120]!r}") from None
    return [c for c in out if len(words(c.text)) >= 3]


def _json_part(text: str) -> str:
    a, b = text.find("{"), text.rfind("}")
    return text[a: b + 1] if a >= 0 and b > a else text
