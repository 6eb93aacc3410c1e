"""What a question asks for: the kind of answer and its focus, from generic English cues.

The kind (``date``, ``duration``, ``amount``, ``percentage``, ``count``, ``person_or_body``,
``place``, ``list``, ``yes_no``, ``definition``, ``procedure``, ``other``) is read from the
wh-word and its head ("how long", "how many days", "what fee", "who"), never from a per-corpus
list. The focus is what the answer must be *about*: the question's content words with the
wording that only shapes the question (wh-words, "maximum", "minimum", the kind's own cue words)
taken out; its parts must occur together in the passage that answers.

A *value kind* (a date, a duration, an amount, a percentage, a count, a body or person, a
place) can be checked in text: :func:`expressions` finds the spans of that kind in a sentence.

>>> analyse("How long must we keep CCTV footage?").kind
'duration'
>>> analyse("How much does a notified body charge to certify a system?").kind
'amount'
>>> analyse("Do chatbots have to tell users they are talking to a machine?").kind
'yes_no'
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache, lru_cache

from anchor_core import definitions
from anchor_core.scorers.text import stem
from anchor_core.text import NUMBER_WORDS, STOP_WORDS, words

KINDS = ("date", "duration", "amount", "percentage", "count", "person_or_body", "place", "list", "yes_no",
         "definition", "procedure", "other")
VALUE_KINDS = frozenset({"date", "duration", "amount", "percentage", "count", "person_or_body", "place"})

_TIME_UNIT = r"(?:seconds?|minutes?|hours?|days?|weeks?|months?|years?|decades?|working days?|business days?)"
TIME_UNIT_WORD = re.compile(_TIME_UNIT, re.I)
"""A unit of time (``years``, ``business days``), to match whole with ``fullmatch``."""
# how often: "regularly", "annually", "twice a year" (a duration expression, but no length of time)
_FREQUENCY_EXPR = (r"\bregularly\b|\bperiodically\b|\b(?:at regular intervals|on a regular basis)\b|"
                   r"\b(?:(?:semi|bi)-?annually|half-yearly|annually|yearly|monthly|weekly|daily|hourly|quarterly|"
                   r"fortnightly)\b|\b(?:once|twice|\w+ times) (?:a|an|per|each|every) (?:year|month|week|day|hour)\b")
_MONEY_NOUN = (r"(?:fees?|fines?|penalt(?:y|ies)|prices?|costs?|charges?|salar(?:y|ies)|wages?|pay|payments?|"
               r"budgets?|capital|compensation|damages|amounts?|sums?|turnover|remuneration|levy|levies|"
               r"thresholds?|liability|balance sheet|net assets|wealth)")
# "how many euros" asks for a sum, as "how much" does
_CURRENCY_WORD = r"(?:euros?|dollars?|usd|eur|aed|dirhams?|gbp|pounds(?! of)|francs?)"
_PERIOD_NOUN = (r"(?:periods?|deadlines?|time ?limits?|time ?frames?|durations?|lifetimes?|notice|intervals?|"
                # "term" of office, not the word a question asks about ("what does that term cover", "the term
                # 'deployer'", "terms and conditions")
                r"terms?(?!\s*[‘'\"“]|\s+(?:and conditions|covers?|means?|refers?|includes?|describes?)\b)|"
                r"window|validity|retention)")
_BODY_NOUN = (r"(?:authorit(?:y|ies)|bod(?:y|ies)|boards?|committees?|councils?|agenc(?:y|ies)|offices?|"
              r"officers?|officials?|courts?|regulators?|persons?|people|individuals?|organi[sz]ations?|institutions?|"
              r"supervisors?|managers?|members?|entit(?:y|ies)|"
              # an organisation's roles and units ("the department head", "the HR director", "the finance team")
              r"heads?|directors?|chair(?:person)?s?|teams?|departments?|secretariats?|administrators?|auditors?|"
              r"employers?)")

_LEAD = r"^\W*(?:(?:and|so|then|but|also|ok|okay|now)\W+)?"
_AUX = (r"(?:is|are|was|were|am|can|could|do|does|did|must|should|shall|may|might|will|would|has|have|had|need|"
        r"needs|isn't|aren't|doesn't|don't|can't|won't)")

_SING_BODY = (r"(?:authority|body|board|committee|council|agency|office|officer|court|regulator|person|"
              r"organi[sz]ation|institution|supervisor|entity|manager|team|group|company|firm|corporation)")
_COND = r"^\W*(?:if|when|before|after|once|where|while|unless|for|in|as|since|under)\b[^?]*?,\s*"

_RULES: list[tuple[str, re.Pattern[str]]] = [(k, re.compile(p, re.I)) for k, p in [
    ("percentage", r"\b(what|which)\s+(\S+\s+){0,4}(percentage|percent|per cent|share|proportion|fraction)\b|"
                   r"\bhow much of\b|\bwhat (\S+ ){0,5}rate\b(?! limit)|\bas an? (percentage|share|proportion)\b"),
    # "how long must the tag be (when ...)?" asks for a length, not a period
    # (also after a condition: "If our JWE uses A128CBC-HS256, how long does the key have to be?")
    ("count", r"(?:^\W*|,\s*)how (long|big|large|wide) (must|may|should|can|is|are|could|would|does|do|has to|have to|"
              r"needs? to)\b[^?]*\bbe"
              r"(?:\s+(?:when|if|where|once|under|with)\b[^?]*)?\W*$|"
              r"\bhow many (?!(\w+ )?(?:" + _TIME_UNIT + "|" + _CURRENCY_WORD + r")\b)|"
              # "how long, in bits, should the value be": a length in the unit it names, not a period
              r"\bhow long\b[^?]*?\bin\s+(?:bits|bytes|octets|characters|chars|digits|letters|words)\b"),
    ("duration", rf"\bhow (long|soon|quickly|fast|often|frequently|early|late)\b|"
                 rf"\bhow many (\w+ )?{_TIME_UNIT}\b|\bhow much (\w+ )?(time|notice|leeway|tolerance|skew)\b|"
                 rf"\bwithin (what|which|how)\b|\b(what|which)\s+(\S+\s+){{0,3}}{_PERIOD_NOUN}\b|"
                 rf"\bin what (timeframe|time)\b|\bby how much time\b"),
    ("date", r"^\W*when (did|will|does|do|was|were)\b|\b(what|which|on what|from what|by what|in what)\s+(\w+\s+)?"
             r"(date|day|year|month|version|release)\b|\bby when\b|\bsince when\b|"
             r"\bwhat (\w+ )?(timeline|deadline date)\b"),
    ("amount", rf"\bhow much\b|\bhow many (us )?{_CURRENCY_WORD}\b|"
               rf"\b(what|which|what's)\s+(\S+\s+){{0,5}}{_MONEY_NOUN}\b|\bin (us )?(euros?|dollars|usd|"
               rf"eur|aed|kilobytes|bytes|megabytes)\b|\babove what (amount|level|size)\b|\b(paid|earn|cost)\W*$"),
    ("person_or_body", rf"^\W*(who|whom|whose)\b(?! (counts|is considered|qualifies) as)|\bto whom\b|"
                       rf"^\W*(to |by |with )?(which|what)\s+(\w+\s+){{0,2}}{_SING_BODY}\b|{_COND}(who|whom)\b|"
                       rf"\bto which (\w+ )?{_SING_BODY}\b|"
                       # "what is the name of the person who chairs ...": a name is asked, not a description
                       rf"\bname of (?:the |a |an )?(?:\w+ )?(?:{_SING_BODY}|individual|chair(?:person)?|head|director|"
                       rf"company|firm)\b"),
    # "count" the noun, not the verb ("which kinds of data count as sensitive")
    ("count", r"\b(what|which)\s+(\S+\s+){0,5}(number|count(?!\s+(as|towards?|against)\b)|length|size|depth|"
              r"key size|iterations?|score)\b|"
              r"\bhow (far|high|low|deep|big|large)\b|\bat what level\b|\bwhat is the (longest|shortest)\b"),
    ("place", r"^\W*where (do|does|did|can|should|must|is|are|will|may)\b|"
              r"\b(which|what|in which|in what)\s+(\w+\s+)?(country|city|place|location|address|"
              r"jurisdiction|registry keys?|url|endpoint|venue|court|directory|folder|path)\b"),
    ("other", r"\bhow old\b|\b(what|which) (\w+ ){0,3}(age|status( code)?|errors?( codes?)?|language|format|encoding|"
              r"port|unit|quotes|character)\b"),
    ("definition", r"^\W*what (is|are|does) (an? |the )?[\w'’\- ]{1,40}?\b(mean|means)\b|\bwhat counts as\b|"
                   r"\bwho counts as\b|^\W*define\b|\bdefinition of\b|"
                   # "How does the GDPR define 'consent'?", "How is a deep fake defined?": the sources' definition
                   r"(?:^\W*|,\s*)how (?:does|do|did|would|will) (?!(?:we|i|you|they|our|my|your)\b)[^?]*\bdefines?\b|"
                   r"(?:^\W*|,\s*)how (?:is|are)\b[^?]*\bdefined\b|"
                   r"^\W*what (is|are) (an? )[\w'’\-]+( [\w'’\-]+){0,3}\W*$|\bcount as an?\b"),
    ("procedure", r"^\W*how (do|does|can|should|must|would|to|is|are)\b|"
                  r"\bwhat (steps|process|procedure)\b|\bwhat (must|should|do|does|can) (\w+ ){0,4}do\b"),
    ("yes_no", rf"{_LEAD}{_AUX}\b|{_COND}{_AUX}\b"),
    ("list", r"^\W*(?:\w+\W+){0,6}?(what|which) (\S+ ){0,4}(are|include|includes|must|should|do|does|have|has|"
             r"can)\b|\blist\b|\b(what|which) (\S+ ){0,3}\w{3,}s\b|"
             r"\b(under|on|in) what (conditions|grounds|circumstances|cases)\b|"
             r"^\W*when (is|are|can|must|may|should)\b"),
]]

# Words that shape the question or name the kind of answer, not its subject.
_SHAPE = frozenset("""
maximum minimum max min least most highest lowest top exact exactly specific precise roughly approximately typical
usual long soon quickly fast often frequently many much number count amount total what which who whom whose when
where why how whether please tell know want need needs required require requires allowed permitted legally actually
really still also currently ever just give gives get gets make makes use used using way rule rules say says said state
states stated spec specification standard law regulation guide does mean means happen happens happening apply applies
limit limits value level kind type sort new one two first second latest allow allows may must shall should can could
will would might given set sets
""".split())
_KIND_WORDS: dict[str, frozenset[str]] = {
    "duration": frozenset("period periods deadline deadlines time timeframe duration lifetime interval notice days day "
                          "hours hour weeks week months month years year minutes minute seconds second term window "
                          "validity valid".split()),
    "amount": frozenset("fee fees fine fines penalty penalties price prices cost costs charge charges salary salaries "
                        "wage wages pay payment budget compensation amount amounts sum euros euro dollars size big "
                        "large threshold".split()),
    "percentage": frozenset("percentage percent cent share proportion fraction rate".split()),
    "count": frozenset("number count length size depth iterations times score".split()),
    "date": frozenset("date day year month".split()),
    "person_or_body": frozenset("person people body authority name".split()),
    "place": frozenset("place location country city address".split()),
}


_FORM_WORDS = frozenset("status code codes http response error errors age old".split())


@dataclass(frozen=True)
class QuestionAnalysis:
    """What the question asks for: ``kind`` of answer, ``focus`` (what it is about) and the focus
    ``parts`` (lower-case content words) that must occur together in an answering passage."""

    kind: str
    focus: str
    parts: list[str] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    """Capitalised words and acronyms of the question (not its first word): ``GDPR``, ``Colorado``."""
    numeric: bool = False
    """The question asks for a number ("how many days", "in euros", "what percentage"): a phrase
    such as "without undue delay" does not answer it."""
    question: str = ""
    """The question analysed, as given."""

    @property
    def value(self) -> bool:
        """The answer is a value that text either states or does not (a date, a fee, a body ...)."""
        return self.kind in VALUE_KINDS


def predict_kind(question: str) -> str:
    """The kind of answer ``question`` asks for, from its wording alone.

    >>> [predict_kind(q) for q in ("Within how many hours must a breach be notified?",
    ...     "What percentage of turnover can the fine be?", "Who sits on the Board?",
    ...     "Which documents must the provider keep?", "Is emotion recognition banned at work?")]
    ['duration', 'percentage', 'person_or_body', 'list', 'yes_no']
    >>> predict_kind("How does the GDPR define 'consent'?"), predict_kind("How do we define our scopes?")
    ('definition', 'procedure')
    """
    q = " ".join(question.split())
    # the clause that asks: a scene-setting sentence before it ("Our officer left. How long ...?") says nothing
    parts = [p for p in re.split(r"(?<=[.!?])\s+", q) if p.strip()]
    asked = [p for p in parts if p.rstrip().endswith("?")] or parts[-1:] or [q]
    text = asked[0]
    for kind, rx in _RULES:
        if rx.search(text):
            return kind
    return "other"


_CAPS = re.compile(r"(?<![\w'’])([A-Z][a-zA-Z]*[A-Z][a-zA-Z0-9]*|[A-Z]{2,}\d*|[A-Z][a-z]+)(?![\w'’])")


def question_names(question: str) -> list[str]:
    """Capitalised words and acronyms after the first word of each sentence, lower-cased."""
    out: dict[str, None] = {}
    for m in _CAPS.finditer(question):
        before = question[: m.start()].rstrip()
        if not before or before[-1] in ".?!:\"'“(":
            continue  # a sentence's first word is capitalised by grammar
        w = m.group(1).lower()
        if w in STOP_WORDS or w in _SHAPE or w in ("ai", "eu", "i"):
            continue
        out[w] = None
    return list(out)


def analyse(question: str) -> QuestionAnalysis:
    """The question's kind, focus and focus parts.

    >>> a = analyse("For how many days may CCTV footage of customers be kept?")
    >>> a.kind, a.parts
    ('duration', ['cctv', 'footage', 'customers', 'kept'])
    """
    kind = predict_kind(question)
    drop = _SHAPE | _KIND_WORDS.get(kind, frozenset()) | (_FORM_WORDS if kind == "other" and asked_form(question)
                                                           else frozenset())
    parts: dict[str, None] = {}
    for w in words(question):
        if w in STOP_WORDS or w in drop or len(w) < 3 or w.isdigit():
            continue
        parts[w] = None
    focus = focus_phrase(question, list(parts)) or " ".join(parts)
    numeric = bool(_NUMERIC.search(question))
    return QuestionAnalysis(kind=kind, focus=focus, parts=list(parts), names=question_names(question),
                            numeric=numeric, question=question)


_FRAME = frozenset("""
must may might shall should can could would will need needs have has had does do did is are was were am be
many much long often soon quickly fast early late please exactly actually really currently ever still also within
far usually typically generally normally already yet today
""".split())
_WH = frozenset("what which who whom whose when where why how whether".split())
_JOIN = frozenset("of the a an for on in to with by from under".split())
_WORD = re.compile(r"[\w'’-]+")


def focus_phrase(question: str, parts: list[str]) -> str:
    """The focus as the question writes it, for a reason a reader can follow: the runs of the
    question's own words that hold a focus part, joined only by small words ("of the"), so "What is
    the annual budget of the AI Office in euros?" reads "annual budget of the AI Office in euros",
    not "annual office".

    >>> focus_phrase("How many employees does the AI Office have?", ["employees", "office"])
    'employees and the AI Office'
    >>> focus_phrase("How long must we keep CCTV footage of customers?", ["keep", "cctv", "footage", "customers"])
    'keep CCTV footage of customers'
    """
    want = set(parts)
    tokens = _WORD.findall(question)
    runs: list[list[str]] = []
    run: list[str] = []
    pending: list[str] = []
    for t in tokens:
        w = t.lower()
        if w not in STOP_WORDS and w not in _FRAME and w not in _WH:
            if run:
                run += pending  # "budget" + "of the" + "AI Office"
            else:
                run = [p for p in pending if p.lower() in ("the", "a", "an")][-1:]  # keep "the" before "AI Office"
            run.append(t)
            pending = []
        elif w in _JOIN and (run or w in ("the", "a", "an")):
            pending.append(t)
        else:
            if run:
                runs.append(run)
            run, pending = [], []
    if run:
        runs.append(run)
    kept = [" ".join(r) for r in runs if any(x.lower() in want for x in r)]
    if len(kept) < 2:
        return kept[0] if kept else ""
    return ", ".join(kept[:-1]) + " and " + kept[-1]


_NUMERIC = re.compile(r"\bhow many\b|\bwhat (\w+ )?(number|percentage|percent)\b|\bin (us )?(euros?|dollars|years|"
                      r"months|days|hours|minutes|seconds|characters|bytes|kilobytes|bits)\b", re.I)
# every cardinal written as a word (one to twenty, the tens, "dozen", "hundred"), longest first, and the large ones
_CARDINALS = "|".join(sorted((w for w in NUMBER_WORDS if w != "zero"), key=len, reverse=True)) + \
    "|thousand|million|billion"
_DIGITS = re.compile(rf"\d|\b(?:{_CARDINALS}|half)\b", re.I)


_AFTER_COUNTED = (r"a|an|the|per|in|on|of|for|to|at|by|with|under|before|after|each|every|should|would|could|"
                  r"might|it|we|they|you|i|there")
_COUNTED_STOP = re.compile(rf"^(?:{_AUX}|{_AFTER_COUNTED})$", re.I)
_COUNT_HEAD = re.compile(r"\bhow many\s+((?:[\w'’-]+\s+){0,3}?[\w'’-]+)(?=\s+(?:" + _AUX + "|" + _AFTER_COUNTED +
                         r")\b|\W*$)|"
                         r"\bnumber of\s+([\w'’-]+)|\bin\s+(characters|bytes|bits|digits|words|lines|pages|"
                         r"kilobytes|megabytes)\b", re.I)


def counted(question: str) -> str | None:
    """What a count question counts, the head noun of "how many ...", "number of ..." or "in
    <unit>" (``None`` when it does not say): a count answers it only next to that noun.

    >>> counted("How many core developers voted for the model?"), counted("What is the maximum number of "
    ...     "scopes a token can carry?"), counted("What is the minimum length, in characters, of a secret?")
    ('developers', 'scopes', 'characters')
    >>> counted("How many affected people does it take?")
    'people'
    >>> counted("What minimum key length must be used?") is None
    True
    """
    m = _COUNT_HEAD.search(question)
    if not m:
        return None
    phrase = next(g for g in m.groups() if g)
    head = [w.lower().strip("'’") for w in phrase.split() if not _COUNTED_STOP.match(w)]
    # what is counted is plural ("core developers voted", "characters long"); "people" is the last word
    plural = [w for w in head if len(w) > 3 and w.endswith("s") and not w.endswith("ss")]
    return (plural or head[-1:] or [None])[0]


def has_number(expression: str) -> bool:
    return bool(_DIGITS.search(expression))


_TIME_AMOUNT = re.compile(rf"\b{_TIME_UNIT}\b", re.I)


def counts_time(question: str) -> bool:
    """The question asks for an amount of time ("how many days", "in hours"), which a calendar
    date, "by 2 August" or "without undue delay" is not.

    >>> counts_time("Within how many hours must a breach be notified?"), counts_time("By when must we reply?")
    (True, False)
    """
    return (asked_unit(question) or ("",))[0] == "time"


_CALENDAR_POINT = re.compile(r"\b(?:what|which)\s+(?:\w+\s+)?(?:year|month|day|date)\b(?!\s+(?:of|after|before)\b)",
                             re.I)


def asks_calendar_point(question: str) -> bool:
    """The question asks for a point on the calendar ("In which year ...", "On what date ...", "From
    which day ..."), which a period ("three years", "within six months") is not, though a deadline
    asked as "by when" may be either.

    >>> asks_calendar_point("In which year do the rules apply?"), asks_calendar_point("By when must we reply?")
    (True, False)
    >>> asks_calendar_point("What day of the week is the meeting?")
    False
    """
    return bool(_CALENDAR_POINT.search(question))


_FREQUENCY = re.compile(_FREQUENCY_EXPR, re.I)


def is_event_bounded(expression: str) -> bool:
    """The expression bounds a period by an event instead of counting it ("throughout their lifetime", "for as long
    as"): it says how long, never how often.

    >>> is_event_bounded("throughout their lifetime"), is_event_bounded("two years")
    (True, False)
    """
    return bool(_EVENT_BOUNDED.search(expression))


def is_frequency(expression: str) -> bool:
    """The expression says how often, not how long ("regularly", "twice a year", "annually").

    >>> is_frequency("twice a year"), is_frequency("regularly"), is_frequency("two years")
    (True, True, False)
    """
    return bool(_FREQUENCY.search(expression))


def is_time_amount(expression: str) -> bool:
    """The expression states an amount of time in a unit ("72 hours", "one month").

    >>> is_time_amount("72 hours"), is_time_amount("by 2 August"), is_time_amount("without undue delay")
    (True, False, False)
    """
    return bool(_TIME_AMOUNT.search(expression))


_PREP = r"(?:of|for|in|on|under|to|and|or|by|with|at|from|as|is|are|does|do|apply|applies|require|requires|say|says)"


def lay_acronyms(question: str) -> set[str]:
    """Acronyms the question uses as common nouns ("a DPO", "CFDs", "CCTV footage"), lower-cased.
    An acronym used as a proper name ("under the GDPR", "the FATF") is not one: it names a law or
    an organisation, which a corpus that never mentions it does not cover.

    >>> sorted(lay_acronyms("Does it need a DPO, and may CFD brokers under the GDPR for CCTV footage?"))
    ['cctv', 'cfd', 'dpo']
    """
    out = set()
    for m in re.finditer(r"\b([A-Z]{2,6})(s?)\b", question):
        before = question[: m.start()].rstrip().lower()
        after = question[m.end():].lstrip()
        proper = not m.group(2) and before.endswith((" the", "the")) and (
            not after or not after[0].isalnum() or re.match(_PREP + r"\b", after) is not None)
        if not proper:
            out.add((m.group(1) + m.group(2)).lower())
    return out


def acronym_in(acronym: str, texts: list[str]) -> bool:
    """``gdpr`` is spelled out in ``texts`` ("General Data Protection Regulation"): the corpus uses
    the acronym's words, so the acronym names nothing foreign to it.

    >>> acronym_in("dpia", ["a data protection impact assessment shall be carried out"])
    True
    """
    rx = _spelled(acronym)
    return rx is not None and any(rx.search(t) for t in texts)


@cache
def _spelled(acronym: str) -> re.Pattern[str] | None:
    """The words an acronym stands for, one per letter ("AI": "Artificial Intelligence")."""
    if not 2 <= len(acronym) <= 6 or not acronym.isalpha():
        return None
    glue = r"(?:(?:of|the|and|for|on|in|to)\s+)?"
    return re.compile(r"\b" + (r"\w*[\s-]+" + glue).join(re.escape(c) for c in acronym) + r"\w*", re.I)


def spelled_words(question: str, text: str) -> set[str]:
    """The words of ``text`` that spell out an acronym the question writes ("Who sits on the
    European AI Board?" and "the European Artificial Intelligence Board": artificial, intelligence).

    >>> sorted(spelled_words("Who sits on the European AI Board?", "A European Artificial Intelligence Board"))
    ['artificial', 'intelligence']
    """
    out: set[str] = set()
    for acronym in dict.fromkeys(re.findall(r"\b[A-Z]{2,6}\b", question)):
        rx = _spelled(acronym)
        for m in rx.finditer(text) if rx is not None else ():
            out.update(words(m.group(0).lower()))
    return out


# --- expressions of a kind in text -------------------------------------------------------------------------

_NUM_WORD = rf"(?:{_CARDINALS}|half|a|an|single|several)"
_NUM = rf"(?:\d[\d,.\s]*\d|\d|{_NUM_WORD})"
_ORDINAL = (r"\d{1,3}(?:st|nd|rd|th)|first|second|third|fourth|fifth|sixth|seventh|eighth|ninth|tenth|eleventh|"
            r"twelfth|thirteenth|fourteenth|fifteenth|sixteenth|seventeenth|eighteenth|nineteenth|twentieth|"
            r"thirtieth|fortieth|forty-fifth|fiftieth|sixtieth|seventieth|eightieth|ninetieth")
# references are numbers that are not values: Article 6(2), Section 4.1, RFC 6749, PEP 8, Rule 3.2.1, 2024/1689
# (and so is a character range of a grammar: "[0-9]")
# (a range or a series goes with its word: "Paragraphs 1 to 4", "Articles 5, 6 and 7"; markup may glue the
# number to it: ":pep:`20`", "PEP+541"; a number inside a web address is part of a name, not a value)
_REF_NUM = r"[\dIVXLC][\w.()/-]*"
# words that name a part of a text by its number ("Section 4.1", "Rule 3.2.1", "Annex III")
STRUCTURE_WORDS = (r"articles?|annex(?:es)?|paragraphs?|points?|sections?|chapters?|rules?|parts?|appendix|appendices|"
                   r"schedules?|recitals?|titles?|subparagraphs?|clauses?|items?|steps?|tables?|figures?")
_REFERENCE = re.compile(rf"\b(?:{STRUCTURE_WORDS}|rfc|pep|regulation|directive|decision|version|python|no\.?)"
                        rf"(?:\s*|[:`+#_]{{1,3}}){_REF_NUM}"
                        rf"(?:\s*(?:,|to|and|or)\s*{_REF_NUM}(?=\s*(?:[,.;:)\]]|$|(?:and|or|of|to|in|shall)\b)))*|"
                        r"https?://\S+|\bwww\.\S+|<[^<>\s]+>|"
                        r"(?m:^\s*\d+[.)]\s)|\b\d+(?:\.\d+){1,}\b|\b\d+/\d+(?:/\w+)?\b|"
                        r"\(\w{1,4}\)|\[\w+\]|\[[^\[\]\s]{0,8}\d-\d[^\[\]\s]{0,8}\]", re.I)
_MONTH = r"(?:january|february|march|april|may|june|july|august|september|october|november|december)"

# an acronym followed by a common noun modifies it ("AI systems", "EU database", "CCTV footage"): it names
# no body; one followed by a verb, an auxiliary or a function word is the body's name ("the FSRA may")
_NOT_AFTER_NAME = (r"(?!(?:shall|may|must|should|can|could|will|would|is|are|was|were|has|have|had|does|do|did|"
                   r"and|or|of|in|to|for|on|with|by|as|at|from|under|which|that|who|whose)\b)")

_STATUS = (r"\bHTTP\s+(?:status\s+(?:code\s+)?)?[1-5]\d\d\b(?:\s+\((?-i:[A-Z])[\w -]+\))?|"
           r"\b[1-5]\d\d\s+(?:\((?-i:[A-Z])[\w -]+\)|(?-i:OK|Created|Accepted|No Content|Found|See Other|"
           r"Not Modified|Bad Request|Unauthorized|Forbidden|Not Found|Method Not Allowed|Conflict|Gone|"
           r"Too Many Requests|Internal Server Error|Service Unavailable)\b|(?:status|response|error)\b)|"
           r"\bstatus code (?:of )?[1-5]\d\d\b")
# a determiner capitalised because it opens the sentence, which is no part of a name ("The Commission")
_OPENING_DETERMINER = r"(?:The|A|An|This|That|These|Those|Each|Every|Any|Such)"
# a period bounded by an event rather than counted: "throughout their lifetime", "for the duration of the
# contract", "for as long as it is necessary", "until the end of the testing", "deleted once the participation has
# terminated" (it answers "how long", never "how many days": a question that counts time reads amounts only)
_BOUNDED_BY_EVENT = (r"\bthroughout (?:the |its |their |his |her )?(?:entire |whole )?(?:lifetime|lifecycle|life cycle|"
                     r"life)\b|\bfor (?:the |its |their )?(?:entire |whole )?(?:duration|lifetime|life) of\b|"
                     r"\b(?:for )?as long as\b|"
                     r"\buntil (?:the |its |their )?(?:end|expiry|expiration|termination|completion|conclusion) of\b|"
                     r"\bonce\b[^.;:]{0,80}?\b(?:has|have) (?:ended|terminated|expired|been completed|ceased)\b")
_EVENT_BOUNDED = re.compile(_BOUNDED_BY_EVENT, re.I)
_EXPR: dict[str, re.Pattern[str]] = {k: re.compile(p, re.I) for k, p in {
    "duration": rf"\b{_NUM}[\s-]*(?:calendar |working |business |clear |consecutive )?{_TIME_UNIT}\b|"
                r"\bwithout (?:undue )?delay\b|\bimmediately\b|" + _FREQUENCY_EXPR + "|"
                r"\b(?:before|by|until|no later than|not later than)\s+\d{1,2}\s+" + _MONTH + r"\b|"
                # an ordinal day or month counted from an event: "on the twentieth day following its publication"
                # (not "the first year of operation", which counts from nothing)
                rf"\b(?:{_ORDINAL})\s+(?:calendar |working |business )?(?:day|week|month|year)\s+"
                r"(?:after|following|from)\b|" + _BOUNDED_BY_EVENT,
    "amount": r"(?:€|\$|£|¥)\s?\d|\b\d[\d,.\s]*\s*(?:million|billion|thousand)?\s*(?:eur|euros?|usd|us dollars?|"
              r"dollars?|aed|dirhams?|gbp|pounds?|bytes?|kb|kilobytes?|mb|megabytes?|flops?|bits?)\b|"
              r"\b(?:eur|usd|aed|gbp|us\$)\s?\d(?:[\d,.]*\d)?(?:\s\d{3}\b)*(?:\s(?:million|billion|thousand))?|"
              r"\b\d+\s*(?:%|per ?cent)|\b\d[\d,.]*\s*(?:million|billion)\b|"
              r"\b10\^?\d{2}\b",
    "percentage": r"\b\d+(?:[.,]\d+)?\s*(?:%|per ?cent|percentage points?)|\b(?:half|one[- ]third|one[- ]quarter|"
                  r"two[- ]thirds|majority)\b|\b\d+:\d+\b|\b\d+\s*(?:times|x)\b",
    "count": rf"\b{_NUM}\b",
    "date": rf"\b\d{{1,2}}\s+{_MONTH}(?:\s+\d{{4}})?\b|\b{_MONTH}\s+\d{{1,2}}(?:,?\s+\d{{4}})?\b|"
            rf"\b(?:19|20)\d{{2}}\b|\b{_MONTH}\s+(?:19|20)\d{{2}}\b|\b\d{{4}}-\d{{2}}-\d{{2}}\b|"
            rf"\b(?:entry into force|date of application|from the date)\b",
    # the patterns are case-insensitive; a name is told by its capitals, so those parts are not ((?-i:...))
    "person_or_body": rf"\b(?:the |a |an )?(?:(?-i:[A-Z])[\w'’-]+\s+){{0,4}}{_BODY_NOUN}\b|"
                      # a name of capitalised words, not a determiner that opens the sentence ("The URLs")
                      rf"(?-i:\b(?!{_OPENING_DETERMINER}\b)[A-Z][a-z]+"
                      rf"(?:\s+[A-Z][\w-]+)+\b|\b[A-Z]{{2,}}\b(?!\s+{_NOT_AFTER_NAME}[a-z]))",
    "place": r"\b(?:(?-i:[A-Z])[\w-]+\s+){0,3}(?:Street|Road|Square|Building|Tower|Island|City|Registry|Office)\b|"
             r"\b(?:P\.?O\.? Box|address|located|premises|seat|registered office|URL|https?://\S+|/\.well-known/\S*|"
             r"HKEY_\w+|jurisdiction|territory|Member State|country|countries)\b|"
             # a name of capitalised words; a determiner capitalised because it opens the sentence is not
             # part of one ("The Commission shall ...")
             rf"(?-i:\b(?!{_OPENING_DETERMINER}\b)[A-Z][a-z]+(?:\s+[A-Z][a-z]+)+\b)",
    # a protocol's answer codes: an HTTP status ("HTTP 401 (Unauthorized)", "the 200 OK status code", "a 400
    # response") ...
    "status": _STATUS,
    # ... or, for an error, that or an error code written as an identifier ("invalid_grant")
    "code": _STATUS + r"|(?-i:\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b)",
    # an age: "16 years old", "the age of 16 years", "aged 18", "under 13"
    "age": r"\b\d{1,3}\s+years?\s+(?:of age|old)\b|\bage of (?:at least |not less than )?\d{1,3}\b|"
           r"\baged?\s+(?:at least\s+|under\s+|over\s+|between\s+)?\d{1,3}\b|\b\d{1,3}\s*-?\s*years?\s*-?\s*olds?\b",
}.items()}


_ASKS_CODE = re.compile(r"\b(?:what|which)\s+(?:\S+\s+){0,2}?(?:status(?:\s+code)?|error(?:\s+code)?|response\s+code|"
                        r"error\s+value)\b(?!\s+(?:message|handling|page)s?\b)", re.I)


_ASKS_AGE = re.compile(r"\b(?:what|which)\s+(?:\w+\s+){0,3}?age\b|\bhow old\b", re.I)


def asked_form(question: str) -> str:
    """The form of answer an ``other`` question asks for, when its wording names one: ``status`` (an
    HTTP status), ``code`` (an error, given as an error code or a status), ``age`` ("at what age",
    "how old": an age in years), or ``""``.

    >>> asked_form("What status code does the server return for an expired token?")
    'status'
    >>> asked_form("Which error should the endpoint return?"), asked_form("What is the approved status of a person?")
    ('code', '')
    >>> asked_form("What is the minimum age for an approved person?")
    'age'
    """
    if _ASKS_AGE.search(question):
        return "age"
    m = _ASKS_CODE.search(question)
    if m is None or re.search(r"\bapproved status\b|\bstatus of\b", question, re.I):
        return ""
    return "status" if re.search(r"\bstatus\b|\bresponse code\b", m.group(0), re.I) else "code"


def mask_references(text: str) -> str:
    return _REFERENCE.sub(lambda m: " " * len(m.group(0)), text)


def expressions(text: str, kind: str) -> list[str]:
    """The spans of ``text`` that express an answer of ``kind`` (empty for kinds text cannot show
    by form: lists, yes/no, definitions, procedures, other).

    >>> expressions("The controller shall notify it not later than 72 hours after.", "duration")
    ['72 hours']
    >>> expressions("as referred to in Article 62(2)", "count")
    []
    >>> expressions("At least **one** core developer is signed up.", "count")
    ['one']
    """
    rx = _EXPR.get(kind)
    if rx is None:
        return []
    # a reference is neither a value nor a name ("Chapter III", "Article 6(2)"); emphasis marks of a markup
    # text ("at least **one**", "``2``") are no part of the words
    masked = _EMPHASIS.sub(" ", mask_references(text))
    found = list(rx.finditer(masked))
    out = [m.group(0).strip() for m in found]
    if kind == "date":
        # "2048 bits" counts bits: a year-like number before a plural noun is no year
        out = [x for x, m in zip(out, found) if not (_YEAR_LIKE.fullmatch(x) and _counts_noun(masked, m))]
    if kind == "count":
        # "one" is mostly a determiner ("one of the two serializations"), not a count, unless a bound
        # makes it one ("at least one sandbox", "no more than one"); "2025" is a year, unless it counts
        # what follows it ("2048 bits")
        bounded = {m.group(1).lower() for m in _BOUNDED_ONE.finditer(masked)}
        # and a day or a year of a date counts nothing ("by Sept 01 2014", "2 August 2026")
        out = [x for x, m in zip(out, found) if (x.lower() not in ("a", "an", "one", "single", "several", "half") or
                                                 x.lower() in bounded) and
               not (_YEAR_LIKE.fullmatch(x) and not _counts_noun(masked, m))
               and not _IN_DATE.search(masked[max(0, m.start() - 12):m.start()])
               and not _MONTH_AFTER.match(masked, m.end())]
    return [x for x in out if x]


_YEAR_LIKE = re.compile(r"(?:19|20)\d{2}")
_EMPHASIS = re.compile(r"[*`]")
_MONTH_ABBR = r"(?:jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec)\.?"
_IN_DATE = re.compile(rf"\b(?:{_MONTH}|{_MONTH_ABBR})\s+$", re.I)
_MONTH_AFTER = re.compile(rf"\s+(?:{_MONTH}|{_MONTH_ABBR})\b", re.I)
# a plural noun right after a number ("2048 bits", "1000 iterations"), or a noun joined to it as a measure
# ("2048-bit keys", "128-byte")
_COUNTED_AFTER = re.compile(r"\s+[a-z]+s\b|-[a-z]+\b")
# ... unless a word that dates stands before it ("in 2027 providers shall")
_DATED_BEFORE = re.compile(rf"\b(?:in|since|until|by|from|before|after|during|year|{_MONTH})\s+$", re.I)


def _counts_noun(masked: str, m: re.Match[str]) -> bool:
    """Whether a year-like number counts the plural noun after it ("2048 bits"), so it is no year."""
    before = masked[max(0, m.start() - 20):m.start()]
    return bool(_COUNTED_AFTER.match(masked, m.end())) and not _DATED_BEFORE.search(before)


_BOUNDED_ONE = re.compile(r"\b(?:at least|at most|no more than|not more than|more than|only|exactly|maximum of|"
                          r"minimum of|up to)\s+(one|a single|single)\b", re.I)


# the calendar's units, in seconds; "working days" count as days
_TIME_SECONDS = {"second": 1, "minute": 60, "hour": 3600, "day": 86_400, "week": 604_800, "month": 2_629_800,
                 "year": 31_557_600, "decade": 315_576_000}
_TIME_WORD = re.compile(r"\b(second|minute|hour|day|week|month|year|decade)s?\b", re.I)
# a unit the question asks in: "how many (working) days", "in hours", "(how many) days' notice"
_ASKED_TIME = re.compile(r"\bhow many\s+(?:\w+\s+)?(seconds|minutes|hours|days|weeks|months|years)\b|"
                         r"\bin (seconds|minutes|hours|days|weeks|months|years)\b", re.I)
# currencies, by the ways a text writes them
_CURRENCIES = {"eur": r"€|\beur(?![a-z])|\beuros?\b", "usd": r"\$|\busd(?![a-z])|\bdollars?\b",
               "aed": r"\baed(?![a-z])|\bdirhams?\b", "gbp": r"£|\bgbp(?![a-z])|\bpounds? sterling\b"}
_CURRENCY_RX = {k: re.compile(v, re.I) for k, v in _CURRENCIES.items()}
_ASKED_MONEY = re.compile(r"\b(?:in|how many)\s+((?:us )?(?:euros?|dollars?|usd|eur|aed|dirhams?|gbp|pounds))\b", re.I)
_SHARE = re.compile(r"%|\bper ?cent\b", re.I)
# one unit of the calendar in another: at most a step of the calendar apart (60 seconds in a minute)
_TIME_STEP = 60
_MOST_OF_ASKED = 100
"""The most of the asked unit a period may count and still answer a question asked in that unit. A round
number set a priori: on the dev questions 60, 100 and 200 refuse the same (one more unanswerable one,
"within how many hours ... breach" answered with "60 days"); the seen fresh sets moved two questions at 100
(720 hours, 180 days) and one at 200."""


_WORD_VALUES: dict[str, float] = {**NUMBER_WORDS, "a": 1, "an": 1, "half": 0.5}


def _amount(text: str) -> float | None:
    """The number a value's words state before its unit ("72", "seven calendar", "a"), ``None`` if unread."""
    m = re.search(r"(\d[\d,]*(?:\.\d+)?)\s*\D*$", text)
    if m:
        try:
            return float(m.group(1).replace(",", ""))
        except ValueError:
            return None
    said = [_WORD_VALUES[w] for w in words(text.lower()) if w in _WORD_VALUES]
    return float(said[-1]) if said else None


@cache
def asked_unit(question: str) -> tuple[str, str] | None:
    """The unit the question asks its value in, when it names one: ``("time", "hour")`` for "Within how
    many hours ...?", ``("money", "usd")`` for "... in US dollars?"; ``None`` otherwise.

    >>> asked_unit("Within how many hours must a breach be notified?"), asked_unit("What is the fee in euros?")
    (('time', 'hour'), ('money', 'eur'))
    >>> asked_unit("How long must records be kept?") is None
    True
    """
    m = _ASKED_TIME.search(question)
    if m:
        return "time", (m.group(1) or m.group(2)).lower().rstrip("s")
    m = _ASKED_MONEY.search(question)
    if m:
        said = m.group(1)
        return next((("money", k) for k, rx in _CURRENCY_RX.items() if rx.search(said)), None)
    return None


def in_asked_unit(expression: str, asked: tuple[str, str] | None) -> bool:
    """Whether a value states its amount in (or near) the unit the question asks in. A period in a unit
    at most one step of the calendar from the asked one answers ("72 hours" or "one month" for "how many
    days"); one further off does not ("six months" for "within how many hours", "one year" for "how many
    days"), nor one less than one of the asked unit ("one hour" for "how many days"). An amount in
    another currency, or a share ("10%"), does not answer "in US dollars". A value
    that names no unit of that sort is left to the other tests.

    >>> in_asked_unit("72 hours", ("time", "day")), in_asked_unit("six months", ("time", "hour"))
    (True, False)
    >>> in_asked_unit("one hour", ("time", "day")), in_asked_unit("within 48 hours", ("time", "day"))
    (False, True)
    >>> in_asked_unit("30 days", ("time", "hour")), in_asked_unit("two months", ("time", "day"))
    (False, True)
    >>> in_asked_unit("200,000,000 Dirhams", ("money", "usd")), in_asked_unit("USD 50,000", ("money", "usd"))
    (False, True)
    """
    if asked is None:
        return True
    what, unit = asked
    if what == "time":
        m = _TIME_WORD.search(expression)
        if m is None:
            return True
        a, b = _TIME_SECONDS[unit], _TIME_SECONDS[m.group(1).lower()]
        n = _amount(expression[: m.start()])
        # and not less than one of the asked unit: "one hour" does not answer "how many days"
        # and not more than a hundred of it: "within how many hours" asks for a short time, which "30 days"
        # (720 hours) is not, nor "six months" an answer in days
        if n is not None and n * b > _MOST_OF_ASKED * a:
            return False
        return max(a, b) / min(a, b) <= _TIME_STEP and (n is None or n * b >= a)
    if _SHARE.search(expression):
        return False  # a share of something is not a sum of money
    said = [k for k, rx in _CURRENCY_RX.items() if rx.search(expression)]
    return not said or unit in said


# a question that asks for a limit ("the maximum number", "at most", "the longest") is answered by a value
# stated as one ("up to 35 000 000", "no more than three", "2048 bits or larger", "a minimum of 1000"),
# not by any number that happens to share the sentence ("compare the two URIs", "takes four parameters")
_BOUNDABLE = frozenset({"count", "amount", "percentage", "duration"})
_ASKS_BOUND = re.compile(r"\b(?:maximum|minimum|at most|at least|at the most|limits?|caps?|capped|ceiling|longest|"
                         r"shortest|largest|smallest|highest|lowest|no more than|no less than|up to)\b", re.I)
_BOUND_BEFORE = re.compile(r"\b(?:at least|at most|at the most|(?:no|not) (?:more|less|fewer|greater|longer|later)"
                           r" than|(?:more|less|fewer|greater|longer|shorter|later|earlier) than|up to|maximum|"
                           r"minimum|exceed\w*|limit\w*|within|caps?|capped|ceiling|threshold|range\w*)\b"
                           r"(?:\W+\w+){0,4}\W*$|"
                           # a preposition bounds only the number right after it: "between 10 and 20", not
                           # "between these two roles"
                           r"\b(?:below|above|under|over|between|from)\W+$", re.I)
_BOUND_AFTER = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:or (?:more|less|fewer|larger|greater|longer|shorter|higher|"
                          r"lower|smaller|above|below|earlier|sooner)|at (?:the )?(?:most|least|latest)|"
                          r"maximum|minimum|in total|at a maximum)\b", re.I)


_ASKS_MAX = re.compile(r"\b(?:maximum|max|at most|at the most|longest|largest|highest|biggest|no more than|up to|"
                       r"ceiling|caps?|capped)\b", re.I)
_ASKS_MIN = re.compile(r"\b(?:minimum|min|at least|shortest|smallest|lowest|no less than)\b", re.I)
# the direction of a stated limit, read from the bound word before the value (a negation a few words before it
# turns a comparative round: "not exceeding", "no line should be longer than") or after it ("or larger")
_BOUND_WORD = re.compile(r"\b(?:at most|at the most|up to|at least|maximum|minimum|within|below|under|above|over|"
                         r"(?:more|greater|longer|later|higher|larger|less|fewer|shorter|earlier|lower|smaller) than|"
                         r"exceed\w*)\b", re.I)
_UPPER_WORD = re.compile(r"at most|at the most|up to|maximum|within|below|under|(?:less|fewer|shorter|earlier|lower|"
                         r"smaller) than", re.I)
_TURNS = re.compile(r"(?:more|greater|longer|later|higher|larger|less|fewer|shorter|earlier|lower|smaller) than|"
                    r"exceed\w*", re.I)
_NEGATED = re.compile(r"(?:\b(?:no|not|never)\b|n't)(?:\W+\w+){0,4}\W*$", re.I)
_UPPER_AFTER = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:or (?:less|fewer|shorter|lower|smaller|below|earlier|sooner)|"
                          r"at (?:the )?(?:most|latest)|maximum|at a maximum)\b", re.I)
_LOWER_AFTER = re.compile(r"^\W*(?:\w+\W+){0,2}?(?:or (?:more|larger|greater|longer|higher|above)|at (?:the )?least|"
                          r"minimum)\b", re.I)


def asks_bound(question: str) -> bool:
    """Whether the question asks for a limit ("What is the maximum fine ...?", "... at most?").

    >>> asks_bound("How many redirect URIs can a client register at most?"), asks_bound("How many members?")
    (True, False)
    """
    return _ASKS_BOUND.search(question) is not None


def bound_direction(question: str) -> str:
    """Which limit the question asks for: ``max`` ("the maximum fine", "at most", "the longest"),
    ``min`` ("the minimum key size", "at least", "the shortest"), or ``""`` (a limit either way, or none).

    >>> bound_direction("What is the maximum number of signatures?"), bound_direction("What minimum size?")
    ('max', 'min')
    >>> bound_direction("What limits apply?")
    ''
    """
    up, low = bool(_ASKS_MAX.search(question)), bool(_ASKS_MIN.search(question))
    return "max" if up and not low else "min" if low and not up else ""


_RANGE_BEFORE = re.compile(rf"\b(?:zero|{_NUM})\s+to\s+$", re.I)
_RANGE_AFTER = re.compile(rf"\s+to\s+{_NUM}\b", re.I)


def bound_directions(text: str, value: str) -> set[str]:
    """The limits ``value`` states in ``text``: ``max`` for an upper one ("up to", "not exceeding",
    "within", "or less"), ``min`` for a lower one ("at least", "more than", "or larger"), both for one
    that says neither ("a limit of", "between"); empty when it is no limit.

    >>> sorted(bound_directions("fines of up to EUR 35 000 000", "EUR 35 000 000"))
    ['max']
    >>> sorted(bound_directions("secured with more than one digital signature", "one"))
    ['min']
    >>> sorted(bound_directions("the server MUST compare the two URIs", "two"))
    []
    >>> sorted(bound_directions("each member can assign zero to five stars", "five"))
    ['max']
    """
    out: set[str] = set()
    at = text.find(value)
    while at >= 0:
        end = at + len(value)
        before, after = text[max(0, at - 60):at], text[end:end + 40]
        if _BOUND_BEFORE.search(before) or _BOUND_AFTER.search(after):
            said = set()
            words_before = list(_BOUND_WORD.finditer(before))
            if words_before:
                m = words_before[-1]
                upper = bool(_UPPER_WORD.fullmatch(m.group(0)))
                if _TURNS.fullmatch(m.group(0)) and _NEGATED.search(before[:m.start()]):
                    upper = not upper
                said.add("max" if upper else "min")
            if _UPPER_AFTER.search(after):
                said.add("max")
            if _LOWER_AFTER.search(after):
                said.add("min")
            out |= said or {"max", "min"}  # "a limit of", "between": either way
        # a range's ends: "zero to five stars" sets five as the most and zero as the least
        if _RANGE_BEFORE.search(before):
            out.add("max")
        if _RANGE_AFTER.match(after):
            out.add("min")
        at = text.find(value, at + 1)
    return out


def states_bound(text: str, value: str, direction: str = "") -> bool:
    """Whether ``value`` stands in ``text`` as a limit (of ``direction``, ``max`` or ``min``, when given):
    a bound word shortly before it ("up to", "not exceeding", "a minimum of", "within") or after it
    ("or more", "at the latest").

    >>> states_bound("fines of up to EUR 35 000 000", "EUR 35 000 000")
    True
    >>> states_bound("A key of size 2048 bits or larger MUST be used.", "2048", "min")
    True
    >>> states_bound("the server MUST compare the two URIs", "two")
    False
    >>> states_bound("content can be secured with more than one digital signature", "one", "max")
    False
    """
    found = bound_directions(text, value)
    return bool(found) and (not direction or direction in found)


# a count of times written as one word ("renewable once", "meets twice a year")
MULTIPLICATIVE = re.compile(r"\b(?:once|twice|thrice)\b", re.I)
_COUNTS_TIMES = re.compile(r"\bhow many (?:\w+ )?times\b", re.I)
# "how many of the listed conditions must be met" asks what share of a list is needed, which a rule states as a
# quantifier over the list: "one of the following conditions", "any of the following", "all of the following"
_HOW_MANY_OF = re.compile(r"\bhow many of\b", re.I)
_OF_THE_LIST = re.compile(r"\b(?:any|all|each|both|either|none|(?:one|either) or both|"
                          r"(?:at least |only )?one(?: or more)?)\s+(?:one\s+)?of\s+the\s+following\b", re.I)
# a quantifier over a list of what is counted: "both of the following conditions" for "how many conditions must"
_ASKS_REQUIRED = re.compile(r"\b(?:must|shall|should|ha(?:ve|s) to|need(?:s|ed)?(?: to)?|required)\b", re.I)
_OF_THE_LIST_OF = re.compile(rf"(?P<q>{_OF_THE_LIST.pattern})(?P<what>(?:\s+[\w-]+){{1,2}})", re.I)
# an open count of what is counted: "one or more Union AI testing support structures" for "how many structures"
_OPEN_QUANTIFIER = r"one or more|at least one"
# one of what is counted, said without a number: "a single set of technical documentation", "the sole interlocutor"
_SINGLE_QUANTIFIER = r"a single|the sole|a sole|only one|just one"
_OPEN_COUNT_WORDS = re.compile(rf"{_OPEN_QUANTIFIER}|{_SINGLE_QUANTIFIER}", re.I)
_OPEN_COUNT = re.compile(rf"\b(?P<q>{_OPEN_QUANTIFIER})(?P<what>(?:\s+[\w-]+){{1,5}})", re.I)
_SINGLE_COUNT = re.compile(rf"\b(?P<q>{_SINGLE_QUANTIFIER})(?P<what>(?:\s+[\w-]+){{1,4}})", re.I)


def _words_of(m: re.Match[str]) -> list[str]:
    """The words a quantifier match counts ("specified purposes"), hyphenated words split."""
    return re.split(r"[\s-]+", m.group("what"))


def is_word_count(expression: str) -> bool:
    """A count written as a quantifier over a list (:func:`answer_values`): "one of the following", "both of the
    following".

    >>> is_word_count("both of the following"), is_word_count("any of the following"), is_word_count("three")
    (True, True, False)
    """
    return bool(_OF_THE_LIST.fullmatch(expression) or _OPEN_COUNT_WORDS.fullmatch(expression))


def answer_values(text: str, kind: str, question: str = "", *, numeric: bool = False,
                  common: frozenset[str] | None = None) -> list[str]:
    """The expressions of ``kind`` in ``text`` that could answer ``question``: a name or a body is
    capitalised or a body noun ("one representative"), and one made only of the question's own
    words restates the question rather than answering it ("Who is the Chief
    Executive?" is not answered by "The Chief Executive", "Where is the Office located?" not by
    "located", "Who sits on the AI Board?" not by "the Artificial Intelligence Board"). ``numeric``:
    the question asks for a number, so "without undue delay" does not do. ``common``: the words the sources write in
    lower case; with it, a person or body must be one (:func:`names_someone`), not a capitalised term ("Security
    Considerations", "Token Revocation") or a technical acronym ("URL", "MUST").

    >>> answer_values("The Chief Executive shall be appointed by the Board.", "person_or_body",
    ...               "Who appoints the Chief Executive?")
    ['the Board']
    >>> answer_values("The Chief Executive shall be appointed by the Board.", "person_or_body",
    ...               "Who is the current Chief Executive?")
    []
    >>> answer_values("It shall act without undue delay.", "duration", "How many days?", numeric=True)
    []
    >>> answer_values("It shall ask within 24 hours.", "duration", "We asked within 24 hours. How long then?")
    []
    >>> answer_values("The AI Office shall attend the meetings.", "place", "In which city does the Board meet?")
    []
    >>> answer_values("The Board shall have its seat in Brussels.", "place", "In which city does the Board meet?")
    ['Brussels']
    >>> answer_values("The term shall be renewable once.", "count", "How many times can it be renewed?")
    ['once']
    >>> answer_values("It applies where any of the following conditions is fulfilled:", "count",
    ...               "How many of the listed conditions must be fulfilled?", numeric=True)
    ['any of the following']
    >>> answer_values("It fails in one or more of the following circumstances.", "count", "How many firms?")
    []
    >>> answer_values("It applies where both of the following conditions are fulfilled:", "count",
    ...               "How many conditions have to be met?", numeric=True)
    ['both of the following']
    >>> answer_values("It applies where both of the following are fulfilled:", "count", "How many conditions?")
    []
    """
    found = expressions(text, kind)
    if kind == "count" and question and _COUNTS_TIMES.search(question):
        # "how many times can the term be renewed" is answered by "renewable once" ("twice", "thrice")
        found += [m.group(0) for m in MULTIPLICATIVE.finditer(text)]
    if numeric:
        found = [x for x in found if has_number(x)]
    if kind == "count" and question:
        masked, noun = mask_references(text), counted(question)
        if _HOW_MANY_OF.search(question):
            found += [m.group(0) for m in _OF_THE_LIST.finditer(masked)]
        elif _ASKS_REQUIRED.search(question) and noun:
            # "both of the following conditions" for "how many conditions must be met": a quantifier over a list of
            # what is counted states how many are required, not how many there are ("how many conditions does it
            # list?")
            found += [m.group("q") for m in _OF_THE_LIST_OF.finditer(masked)
                      if stem(noun) in map(stem, m.group("what").split())]
        if noun:
            # "one or more specified purposes" for "how many purposes may one consent cover": the count of the asked
            # noun is open, and the sources say so (not "one or more of the following circumstances" for "how many
            # firms"); "a single set of ..." counts the noun in the three words after it
            found += [m.group("q") for m in _OPEN_COUNT.finditer(masked)
                      if stem(noun) in map(stem, _words_of(m)) and " of " not in m.group("what")]
            found += [m.group("q") for m in _SINGLE_COUNT.finditer(masked) if stem(noun) in map(stem, _words_of(m)[:3])]
    if question and kind in ("duration", "amount"):
        unit = asked_unit(question)  # "within how many hours" is not answered by "six months"
        found = [x for x in found if in_asked_unit(x, unit)]
    if question and kind in _BOUNDABLE and asks_bound(question):
        # "the maximum number" is not answered by "more than one", nor "the minimum" by "up to"
        direction = bound_direction(question)
        found = [x for x in found if states_bound(text, x, direction)]
    if question and kind in ("duration", "amount", "percentage", "date"):
        # a value with its unit that the question itself writes is the question's premise, not its answer: "we
        # asked for authorisation within 24 hours; how long does the judge have to decide?" is not answered by
        # the sentence that sets those 24 hours
        written = " ".join(question.lower().split())
        found = [x for x in found if not (has_number(x) and " ".join(x.lower().split()) in written)]
    if kind not in ("person_or_body", "place"):
        return found  # a bare number is the answer even when the question holds it too ("between two functions")
    found = [x for x in found if re.search(r"[A-Z]", x) or _BODY_WORD.search(x)]
    if question and named_list(question):
        # "which audit firms", "which third countries": their names ("KPMG", "the Fundamental Rights Agency"), not
        # the class ("Member States", "an audit firm", a capitalised defined term such as "Fund Auditor"); a name
        # in a list need not act
        known = common if common is not None else frozenset(LOWER_WORD.findall(text))
        return [x for x in found if names_proper(x, question, known)]
    if kind == "person_or_body" and common is not None:
        found = [x for x in found if names_someone(x, text, common)]
    if kind == "person_or_body" and _ASKS_PERSON_NAME.search(question):
        # "the name of the person who chairs", "who is the current Chief Executive": a person's name, not a
        # body ("the AI Office") or the title of an office ("the Chair")
        found = [x for x in found if _PERSON_NAME.fullmatch(x) and not _BODY_WORD.search(x)
                 and not _ROLE_WORD.search(x)]
    if kind == "place" and _ASKS_SETTLEMENT.search(question):
        # "in which city" is answered by the name of one, not by an institution ("the AI Office"), a
        # description ("premises", "each Member State") or a capitalised title ("the Official Journal", "the
        # Package Index"): a city's name stands after a preposition of place, with no article ("in Brussels")
        found = _places_named(_IN_NAMED, text)
    elif kind == "place" and _ASKS_COUNTRY.search(asked_sentence(question)):
        # "in which country / Member State / jurisdiction" is answered by the name of one ("resident in the
        # U.A.E.") or by the class picked out by what follows it ("the Member State where the testing is to be
        # conducted", "the country of his habitual residence"); the class alone ("Member States shall ensure") is
        # an actor or a scope, and a capitalised title ("Senior Manager") or a description ("premises") no country
        found = _places_named(_IN_COUNTRY, text) + [m.group(0) for m in _PICKED_PLACE.finditer(text)]
    if not found:
        return []
    # the question's own words, a possessive's stem among them ("the AI Office's director": "office")
    asked = {w.lower() for w in words(question)} | spelled_words(question, text)
    asked |= {re.sub(r"['’]s$", "", w) for w in asked}
    return [x for x in found if set(words(x.lower())) - asked - STOP_WORDS]


# the requirement keywords of IETF-style specifications (BCP 14): capitalised for emphasis, never a name
_KEYWORDS = frozenset("MUST SHALL SHOULD MAY NOT REQUIRED RECOMMENDED OPTIONAL".split())
_MODAL_AFTER = r"(?:['’]s\s+\w+\s+)?(?:shall|must|may|will|should|can|could|would|might|has|have|had)\b"

# a list of named things: "which firms / third countries / foreign regulators ..." asks for the names of organisations
# or places, not for a description of a class ("which kinds of organisations", "which authorities must be told" is
# answered by "the market surveillance authorities", so only the plural class nouns below, and never after "kinds of")
_NAMED_BODIES = (r"firms|companies|vendors|banks|bodies|organi[sz]ations|regulators|authorities|institutions|exchanges|"
                 r"auditors|insurers|registries|communities|partners")
_NAMED_PLACES = r"countries|jurisdictions|states"
_ASKS_NAMED = re.compile(r"\b(?:which|what)\s+(?!(?:kinds?|types?|categories|sorts?|classes|forms?)\b)"
                         rf"(?:[\w-]+\s+){{0,3}}?(?P<cls>{_NAMED_BODIES}|{_NAMED_PLACES})\b", re.I)
_CAPITALISED = re.compile(r"(?<![\w'’])[A-Z][\w'’&-]*")
# a word written in lower case: what a text uses as a common word
LOWER_WORD = re.compile(r"(?<![\w'’-])[a-z][a-z'’-]*")


@lru_cache(maxsize=1024)  # asked once per retrieved sentence by answer_values; a question's reading does not change
def named_list(question: str) -> str:
    """``person_or_body`` or ``place`` when a list question asks which named organisations or places there are
    ("Which audit firms does the FSRA accept?", "With which third countries has the Commission concluded
    arrangements?"), which only their names answer; ``""`` for any other question.

    >>> named_list("Which audit firms does the FSRA accept as fund auditors?"), named_list("Which third countries?")
    ('person_or_body', 'place')
    >>> named_list("Which kinds of organisations must appoint a DPO?"), named_list("Which authority must we inform?")
    ('', '')
    """
    if predict_kind(question) != "list":
        return ""
    m = _ASKS_NAMED.search(asked_sentence(question))
    if m is None:
        return ""
    return "place" if re.fullmatch(_NAMED_PLACES, m.group("cls"), re.I) else "person_or_body"


def names_proper(expression: str, question: str, common: frozenset[str]) -> bool:
    """``expression`` holds a proper name the question does not write: a capitalised word the sources never write
    in lower case ("ENISA", "Helsinki", "CENELEC"), not a capitalised term whose words they also use as common
    words ("Member States", "Fund Auditor", "Remote Member"), nor a requirement keyword ("MUST").

    >>> common = frozenset("member states fund auditor the agency".split())
    >>> [names_proper(x, "Which bodies?", common) for x in ("ENISA", "Member States", "the Fundamental Agency")]
    [True, False, True]
    """
    asked = {w.lower() for w in words(question)}
    for w in _CAPITALISED.findall(expression):
        low = w.lower()
        if low in asked or low in STOP_WORDS or w in _KEYWORDS:
            continue
        if low not in common or (len(w) > 1 and w.isupper()):
            return True
    return False


def names_someone(value: str, text: str, common: frozenset[str]) -> bool:
    """``value`` (a person-or-body expression found in ``text``) names someone who could act: it holds a body
    noun ("the AI Office", "notified bodies"); or it is an acronym that ``text`` uses as an actor ("IANA must",
    "by the PSF"), not a thing ("the URL of", "a JSON object") nor a requirement keyword ("MUST"); or it is a
    capitalised phrase with a word the sources never write in lower case ("Marius Scurtescu"), not a heading
    or a term spelled in capitals whose every word they also write as a common word ("Security
    Considerations", "Token Revocation").

    >>> common = frozenset("the security considerations token revocation of must accept".split())
    >>> [names_someone(v, "x", common) for v in ("the AI Office", "Marius Scurtescu", "Security Considerations")]
    [True, True, False]
    >>> names_someone("IANA", "IANA must only accept registry updates", common)
    True
    >>> names_someone("URL", "URL of the introspection endpoint", common), names_someone("NOT", "MUST NOT", common)
    (False, False)
    >>> names_someone("SSL", "packages using SSL have to require pyopenssl", common)
    False
    >>> names_someone("Final PEPs", "Implemented / Final PEPs:", frozenset({"final"}))
    False
    """
    if _BODY_WORD.search(value):
        return True
    toks = words(value)
    if len(toks) == 1 and value.isupper():
        if value in _KEYWORDS:
            return False
        name = re.escape(value)
        # an actor stands as a subject ("IANA must", "and the PSF will"), not as an object ("using SSL have to")
        return bool(re.search(rf"\b(?:by|to|from|with|of)\s+(?:the\s+)?{name}\b(?!\s+[a-z])|"
                              rf"(?:^|[.;:,(]\s*|\b(?i:and|or|the|then|that|which|where|when|if)\s+){name}\s+"
                              rf"{_MODAL_AFTER}", text))
    # an acronym in the phrase ("Final PEPs", a heading) is no sign of a name: the sources write acronyms in capitals
    # whatever they name; a word they never write in lower case is ("Marius Scurtescu", "Jive Communications")
    spelled = {w.lower() for w in re.findall(r"[\w'’-]+", value) if len(w) > 1 and w.rstrip("s").isupper()}
    return not all(t in common or t in spelled for t in toks if t not in STOP_WORDS)  # words() lower-cases


# --- does a sentence have the shape of the asked kind? -----------------------------------------------------

_ASKS_PERSON_NAME = re.compile(r"\bname of (?:the |a |an )?(?:[\w'’-]+ ){0,3}(?:person|individual|chair\w*|head|"
                               r"director|officer|"
                               r"president|executive)\b|\bwho (?:is|are) (?:the |our )?current(?:ly)?\b|"
                               r"\bwho (?:currently|now) (?:is|are|chairs?|heads?|leads?|runs?)\b", re.I)
_PERSON_NAME = re.compile(r"(?-i:[A-Z][a-z'’-]+(?:\s+(?:[A-Z]\.|[A-Z][a-z'’-]+|van|von|de|da|di|al|bin|ibn)){1,3})")
# words of a title, an institution or a defined term, which a person's name does not hold ("Appeals Panel",
# "Authorised Person", "Controlled Function")
_ROLE_WORD = re.compile(r"\b(?:chair\w*|president|executive|director\w*|head|secretar\w*|commissioner|registrar|"
                        r"minister|governor|deputy|general|chief|vice|members?|panels?|tribunals?|commission|markets?|"
                        r"funds?|banks?|exchanges?|groups?|associations?|foundations?|institutes?|functions?|acts?|"
                        r"regulations?|rules?|services?|systems?|persons?|partners?|the|this|that|each|any|"
                        # nor does the name of an institution, a publication or a product ("European Parliament",
                        # "Official Journal", "Package Index")
                        r"parliament|union|journal|gazette|government|ministry|department|university|company|"
                        r"corporation|societ(?:y|ies)|index|registry|database|platform|network|programmes?|"
                        r"programs?)\b", re.I)
_ASKS_SETTLEMENT = re.compile(r"\b(?:city|cities|town|towns)\b", re.I)
_ASKS_COUNTRY = re.compile(r"\b(?:which|what)\s+(?:\w+\s+)?(?:countr(?:y|ies)|member\s+states?|jurisdictions?)\b",
                           re.I)
# "in Brussels", "at Abu Dhabi": a name after a preposition of place (not "in Article 5", "in May")
_IN_NAMED = re.compile(r"\b(?:in|at)\s+((?-i:[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?))\b", re.I)
def _places_named(after_preposition: re.Pattern[str], text: str) -> list[str]:
    """The names ``after_preposition`` finds in ``text`` ("in Brussels"), not an institution ("the AI Office"), a
    structure word, month or other non-place ("in Article 5", "in May", "in Accordance") or a title ("the Chair")."""
    return [m.group(1) for m in after_preposition.finditer(text)
            if not _BODY_WORD.search(m.group(1)) and not _NOT_A_PLACE.match(m.group(1))
            and not _ROLE_WORD.search(m.group(1))]


# a country may also be named by its initials ("resident in the U.A.E.", "in the UK")
_IN_COUNTRY = re.compile(r"\b(?:in|at)\s+(?:the\s+)?((?-i:[A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+)?|(?:[A-Z]\.){2,}|"
                         r"[A-Z]{2,5}\b))", re.I)
# a country picked out by what follows it ("the Member State where", "the third country in which", "the country of
# his or her habitual residence"), or any one of the class ("the national law of a Member State", "in any Member
# State")
_PICKED_PLACE = re.compile(r"(?:\b(?:(?:third\s+)?countr(?:y|ies)|Member\s+States?|jurisdictions?)\s+(?:where|"
                           r"(?:in|to|of|from|under|with)\s+which|whose|of\s+(?:[\w'’]+\s+){0,4}?(?:establishment|"
                           r"residence|origin|incorporation|registration))\b|\b(?:of|in|under)\s+(?:a|any|each|every|"
                           r"one)\s+(?:(?:third\s+)?country|Member\s+State|jurisdiction)\b)(?:\s+[\w'’-]+){0,6}", re.I)
_NOT_A_PLACE = re.compile(rf"(?:{STRUCTURE_WORDS}|{_MONTH}|Union|Member|Regulation|Directive|Decision|The|This|"
                          r"That|Such|Each|Any|Accordance|Particular|Order|Case|Respect|Addition)\b", re.I)
_PLACE_NAME = re.compile(r"(?:[A-Z][\w'’-]+)(?:\s+(?:(?:of|on|upon|de|al)\s+)?[A-Z][\w'’-]+)*")
_DEFINES = re.compile(r"\bmeans\b|\bis defined as\b|\brefers? to\b|\bshall mean\b|\bis called\b|\bdenotes\b", re.I)
_BODY_WORD = re.compile(rf"\b{_BODY_NOUN}\b|\brepresentatives?\b|\bexperts?\b", re.I)
_STEPS = re.compile(r"\b(?:shall|must|should|first|then|after|before|following)\b", re.I)


def fits_kind(text: str, kind: str, *, lead_in: bool = False, point: bool = False, question: str = "") -> float:
    """How well a sentence has the shape of an answer of ``kind``, in [0, 1], from its form alone:
    a value kind wants an expression of that kind (:func:`expressions`) that the question does not
    already hold (a "who" question about "the Board" is not answered by "the Board"), a list an
    enumeration (``lead_in``: the sentence ends in a colon and enumerated points follow it; a
    ``point`` of one scores half), a definition "means", a procedure an ordered or required step.
    A yes/no question has no form to look for (a rule, "shall" or "must", is the form of nearly
    every sentence of a regulation or standard), nor has ``other``: both score 0.

    >>> fits_kind("The report shall be made not later than 15 days after.", "duration")
    1.0
    >>> fits_kind("The following AI practices shall be prohibited:", "list", lead_in=True)
    1.0
    >>> fits_kind("The Board shall meet.", "person_or_body", question="Who sits on the Board?")
    0.0
    >>> fits_kind("The Board shall be composed of one representative per Member State.", "person_or_body",
    ...           question="Who sits on the Board?")
    1.0
    """
    if kind == "other" and question and (form := asked_form(question)):
        return 1.0 if expressions(text, form) else 0.0
    if kind in VALUE_KINDS:
        found = answer_values(text, kind, question)
        if kind == "duration" and found and not any(has_number(x) for x in found):
            return 0.5  # a period stated without a number ("without undue delay", "regularly") answers less
        return 1.0 if found else 0.0
    if kind == "list":
        return 1.0 if lead_in else 0.5 if point else 0.0
    if kind == "definition":
        # a question that asks how the sources define a term wants the sentence that defines that term
        term = definitions.asked_to_define(question) if question else None
        if term:
            if not definitions.defines(text, term):
                return 0.0
            # "‘restriction of processing’ means" holds the asked "processing" but defines another term: half
            quoted = {definitions.norm(t) for t, _, _ in definitions.find(text)}
            return 0.5 if quoted and definitions.norm(term) not in quoted else 1.0
        return 1.0 if _DEFINES.search(text) else 0.0
    if kind == "procedure":
        return 1.0 if lead_in else 0.5 if _STEPS.search(text) else 0.0
    return 0.0


_SENTENCE_SPLIT = re.compile(r"(?<=[.?!])\s+")

# the examples a question gives of what it asks for: "Which stablecoins, such as USDT or USDC, has the FSRA
# accepted?", "Which ethical standards does the GDPR name, for example the Declaration of Helsinki?" (after the asked
# noun, or closing the question after a comma), not an example of the asker's situation ("When is an assessment
# mandatory, for example for CCTV?" names no asked noun; "process sensitive data such as ethnic origin" has no comma)
_FINITE_WORDS = "does|do|did|is|are|has|have|was|were|must|should|can|could|may|might|shall|will|would"
_FINITE = rf"(?:{_FINITE_WORDS})\b"
_GIVES_EXAMPLE = r"(?:such as|for example|for instance|e\.g\.,?)"
_WH_NOUN = rf"\b(?:which|what)\s+(?!{_FINITE})"
_EXAMPLES_AFTER_NOUN = re.compile(rf"{_WH_NOUN}(?:[\w/'’-]+\s+){{0,5}}?[\w/'’-]+\s*,\s*{_GIVES_EXAMPLE}\s+"
                                  rf"(?P<items>[^?;:()]+?)\s*,\s*(?={_FINITE})", re.I)
_EXAMPLES_CLOSING = re.compile(rf"{_WH_NOUN}[^?]*?,\s*{_GIVES_EXAMPLE}\s+(?P<items>[^?;:()]+?)\s*\?\s*$", re.I)
_ITEM_SPLIT = re.compile(r",\s*|\s+or\s+|\s+and\s+")
_ITEM_LEAD = re.compile(r"^(?:a|an|the|some|specific|particular|our|its|their)\s+", re.I)
# an item that is a clause, not a thing: "to appoint a single group DPO", "which Unicode form to apply"
_NOT_A_THING = re.compile(rf"^(?:to|whether|which|what|how|when|where|who|by|{_FINITE_WORDS})\b", re.I)
# a name within an item: words with a capital or a digit ("ISO/IEC 42001", "Do Not Track", "Declaration of
# Helsinki", "C2PA"), or a file or host name ("robots.txt")
_NAME_RUN = re.compile(r"(?<![\w./-])(?:[A-Z0-9][\w./+-]*|[a-z][\w-]*\.[a-z]{2,4})"
                       r"(?:\s+(?:of\s+|for\s+)?[A-Z0-9][\w./+-]*)*(?![\w-])")


def asked_examples(question: str) -> list[str]:
    """The examples the asking sentence gives of what it asks for, one per item, without a leading article.

    >>> asked_examples("Which named stablecoins, such as USDT or USDC, has the FSRA accepted for trading?")
    ['USDT', 'USDC']
    >>> asked_examples("Which ethical standards does the GDPR name, for example the Declaration of Helsinki?")
    ['Declaration of Helsinki']
    >>> asked_examples("When is an assessment mandatory, for example for CCTV covering a public square?")
    []
    >>> asked_examples("Under what conditions may a provider process sensitive data such as ethnic origin?")
    []
    """
    asking = asked_sentence(question)
    m = _EXAMPLES_AFTER_NOUN.search(asking) or _EXAMPLES_CLOSING.search(asking)
    if m is None:
        return []
    items = [_ITEM_LEAD.sub("", x.strip(" ,.'\"‘’“”")) for x in _ITEM_SPLIT.split(m.group("items"))]
    if any(_NOT_A_THING.match(x) for x in items if x):
        return []
    return [x for x in items if x]


def example_names(question: str) -> list[str]:
    """:func:`asked_examples` when every one is a name ("USDT", "Do Not Track", "ISO/IEC 42001", "robots.txt"), else
    ``[]``: a lay example ("keystroke logging", "GPS tracking", "a copy of the parent's ID") may be worded otherwise
    in the sources, so a list holding one is not checked.

    >>> example_names("Which opt-out methods, such as robots.txt or the TDM Reservation Protocol, are valid?")
    ['robots.txt', 'TDM Reservation Protocol']
    >>> example_names("Which technologies, such as keystroke logging or GPS tracking, does it prohibit?")
    []
    """
    shown = asked_examples(question)
    return shown if shown and all(_NAME_RUN.fullmatch(x) for x in shown) else []


def asked_sentence(question: str) -> str:
    """The sentence of ``question`` that asks (its last one ending in "?", else its last one).

    >>> asked_sentence("Our body stopped operating. Within how many days must the authority act? Thanks.")
    'Within how many days must the authority act?'
    >>> asked_sentence("retention period for CCTV footage")
    'retention period for CCTV footage'
    """
    parts = [s.strip() for s in _SENTENCE_SPLIT.split(question.strip()) if s.strip()]
    asks = [s for s in parts if s.endswith("?")]
    return (asks[-1] if asks else parts[-1]) if parts else question
