"""ADGM (RegNLP / ObliQA) rulebooks: one JSON file of passages per document.

Each passage becomes a unit whose id is the passage uuid, because that is what the
XRefRAG benchmark uses as gold ids. References are resolved here, against an index of
passages by (document, normalised PassageID), since only the adapter knows that
``Rule 3.2.1(1)`` means PassageID ``3.2.1.(1)`` and ``section 60 of FSMR`` means
``Part 6.Chapter 1.60.`` in another document.
"""

from __future__ import annotations

import json
import logging
import re
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from anchor_core.errors import AdapterError
from anchor_core.models import Container, ContainerKind, Document, ParsedCorpus, Reference, Unit
from ingest.base import question_unit, read_text, require_dir, sha256_file, tidy
from ingest.containers import capitals_kept, heading_title

log = logging.getLogger(__name__)

# Regulations number their sections globally, so "Part 6.Chapter 1.60.(1)" is section 60(1).
_REG_LABELS = re.compile(r"^((?:Schedule\d+\.)?)(?:(?:Part|PART|Chapter)\d+[A-Z]?\.)+(?=\d)")
_APP_PREFIX = re.compile(r"^APP\d+\.(?=A\d)")
_NUM_PAREN = re.compile(r"^(\d+)\)((?:\.[a-z]\))*)$")
_TRAILING_PAREN = re.compile(r"\([^()]*\)$")
_ENDS = re.compile(r"^(.*?)(\d+)(\)?)$")
_RULE_NUMBER = re.compile(r"[a-z]?\d+\.\d+\.\d+")
_PART_OF_PID = re.compile(r"^Part (\d+[A-Z]?)")
_ABBR = re.compile(r"[A-Z]{2,6}")


@lru_cache(maxsize=65536)
def pid_key(pid: str) -> str:
    """Normalise a PassageID or a cited number so both meet: ``3.2.1.(1)`` -> ``3.2.1(1)``."""
    s = pid.replace("\u200e", "").replace(" ", "")
    s = _REG_LABELS.sub(r"\1", s)
    s = _APP_PREFIX.sub("", s)
    m = _NUM_PAREN.match(s)
    if m:  # guidance notes numbered "58)" and "6).a)"
        s = m.group(1) + "".join(f"({c})" for c in re.findall(r"[a-z]", m.group(2)))
    return s.lower().replace(".(", "(").replace(").", ")").rstrip(".")


def _is_heading(pid: str, text: str) -> bool:
    return ("(" not in pid and 0 < len(text) <= 100 and "\n" not in text
            and not text.endswith((".", ":", ";", ",")))


# ----------------------------------------------------------------------------- document map


def _read_map(path: Path) -> dict[int, list[str]]:
    """``{document id: names}`` from the RTF that holds a Python-like dict literal."""
    if not path.is_file():
        return {}
    raw = path.read_text(encoding="latin-1")
    raw = re.sub(r"\\'([0-9a-fA-F]{2})", lambda m: bytes([int(m.group(1), 16)]).decode("cp1252"), raw)
    names: dict[int, list[str]] = {}
    for m in re.finditer(r"(\d+):\s*\[(.*?)\]", raw, re.S):
        names[int(m.group(1))] = [n.strip() for n in re.findall(r'"([^"]*)"', m.group(2)) if n.strip()]
    return names


def _describe(names: list[str], number: int) -> tuple[str, str, set[str]]:
    """Title, short name and the aliases a citation may use (``COBS``, ``Fund Rules``)."""
    readable = [re.sub(r"\s*\(VER[^)]*\)", "", n) for n in names if " " in n and "_" not in n]
    title = max(readable, key=len) if readable else (names[0] if names else f"ADGM document {number}")
    abbr = [n for n in names if _ABBR.fullmatch(n)] + re.findall(r"\(([A-Z]{3,6})\)", " ".join(names))
    short = abbr[0] if abbr else re.sub(r"^(?:Supplementary )?Guidance\s*[-–]?\s*|\s*\(.*$", "", title)
    while len(short) > 40 and " " in short:
        short = short.rsplit(" ", 1)[0]
    aliases = set()
    for n in (n for n in names if "_" not in n):
        bare = re.sub(r"\s*\([^)]*\)\s*$", "", n).strip()
        aliases |= {n, bare, re.sub(r"\s+\d{4}$", "", bare)}
    return title, short or title, {a for a in aliases if len(a) >= 2}


# ----------------------------------------------------------------------------- reference grammar

_KW = (r"[Rr]ules?|Sections?|sections?|[Ss]ubsections?|Chapters?|[Pp]aragraphs?|[Ss]ub-?paragraphs?"
       r"|Parts?|Schedules?|Appendi(?:x|ces)|App|APP|Guidance(?: +[Nn]otes?)?")
_PAREN = r"\((?:\d{1,3}[A-Za-z]?|[a-z]{1,2}|[ivx]{1,5})\)"
# Spaces only, never newlines: "Rule 1.2;\n(b) ..." must not read as "Rule 1.2(b)".
_NUM = rf"(?:(?:APP ?\d+|[A-Z]\d+(?:\.\d+)*|\d+[A-Z]?(?:\.\d+[A-Z]?)*)(?: ?{_PAREN})*|(?:{_PAREN})+)"
_SEP = r"(?: *, *(?:and +|or +)?| +(?:and|or|to) +| *[-–] *)"
_ITEM = re.compile(_NUM)
# A keyword and a list of numbers, or a bare number list that only counts after a document name.
_CORE = re.compile(rf"(?:(?<!\w)(?=[RrSsCcPpAG])(?P<kw>{_KW}) +|(?<![\w.(])(?=[\d(A-Z]))"
                   rf"(?P<list>{_NUM}(?:{_SEP}{_NUM})*)")
_BARE = re.compile(r"(?<![\w.(])(?=[A-Z\d])((?:[A-Z]\d+(?:\.\d+)+|\d+\.\d+\.\d+[A-Z]?(?:\.\d+)*)"
                   r"(?:\s?\((?:\d{1,3}|[a-z]{1,2}|[ivx]{1,5})\))*)(?![\w%]|\.\d)")
# "subject to (2)": a sibling paragraph. The lookahead first keeps the scan fast; the fixed
# lookbehinds skip list items that follow "; and" on a new line.
_RELATIVE = re.compile(r"(?=\(\d)(?:(?<=[Ss]ubject to )|(?<=under )|(?<=in )|(?<=with )|(?<=of )|(?<=by )"
                       r"|(?<=and )|(?<=or )|(?<=see ))(\(\d{1,2}\)(?:\((?:[a-z]{1,2}|[ivx]{1,5})\))*)")
_DIGIT = re.compile(r"\d")
_RULE_BASE = re.compile(r"(\.guidance.*|\(.*)$")
_RANGE = re.compile(r"\bto\b|[-–]")
_STOP = {"the", "of", "on", "for", "in", "and", "to", "guidance", "rules", "rulebook", "regulations",
         "law", "act", "code", "adgm", "fsra"}


def _title_case(name: str) -> str:
    small = {"and", "of", "the", "for", "in", "on", "to", "&"}
    return " ".join(w.lower() if w.lower() in small else w[:1].upper() + w[1:].lower()
                    for w in name.split(" "))


def _trie(words: set[str]) -> str:
    """One regex alternation with shared prefixes: ~100 alternatives tried at every word
    start are otherwise the slowest part of loading the corpus."""
    root: dict = {}
    for w in words:
        node = root
        for ch in w:
            node = node.setdefault(ch, {})
        node[""] = {}

    def build(node: dict) -> str:
        alts = [re.escape(ch) + build(sub) for ch, sub in sorted(node.items()) if ch]
        if not alts:
            return ""
        body = alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"
        if "" in node:
            return f"(?:{body})?"
        return body

    return build(root) or "(?!)"


@dataclass
class _Doc:
    number: int
    doc_id: str
    title: str
    is_regulation: bool = False
    has_rules: bool = False
    pids: list[str] = field(default_factory=list)
    texts: list[str] = field(default_factory=list)
    uids: list[str] = field(default_factory=list)
    index: dict[str, int] = field(default_factory=dict)
    implied: dict[str, int] = field(default_factory=dict)

    def add(self, pid: str, text: str, uid: str) -> None:
        i = len(self.pids)
        self.pids.append(pid)
        self.texts.append(text)
        self.uids.append(uid)
        key = pid_key(pid)
        self.index.setdefault(key, i)
        self.has_rules = self.has_rules or bool(_RULE_NUMBER.match(key))
        # "Rule 3.3.3" must reach "3.3.3.(1)" when the corpus has no "3.3.3" passage at all.
        while (parent := _TRAILING_PAREN.sub("", key)) != key:
            self.implied.setdefault(parent, i)
            key = parent

    def find(self, key: str, stop: str = "") -> str | None:
        """The passage for ``key``, dropping trailing "(x)" groups it lacks, but never down
        to ``stop``: a sibling "(9)" that does not exist must not fall back to its rule."""
        while True:
            i = self.index.get(key, self.implied.get(key))
            if i is not None:
                return self.target(i)
            shorter = _TRAILING_PAREN.sub("", key)
            if shorter == key or shorter == stop:
                return None
            key = shorter

    def target(self, i: int) -> str | None:
        """The passage a citation of passage ``i`` should reach: itself, or when it is empty
        or only a heading, its first substantive descendant (rules before their guidance)."""
        if self.texts[i] and not _is_heading(self.pids[i], self.texts[i]):
            return self.uids[i]
        root = self.pids[i].rstrip(".")
        guidance = None
        for j in range(i + 1, len(self.pids)):
            pid = self.pids[j]
            if not (pid.startswith(root) and pid[len(root):len(root) + 1] in (".", "(", " ")):
                break
            if self.texts[j] and not _is_heading(pid, self.texts[j]):
                if "Guidance" not in pid[len(root):]:
                    return self.uids[j]
                guidance = guidance or self.uids[j]
        return guidance or (self.uids[i] if self.texts[i] else None)


class _Resolver:
    """Turns the citations in one passage into references to passage uuids."""

    def __init__(self, docs: dict[int, _Doc], aliases: dict[str, int]):
        self.docs = docs
        self.aliases = {a.lower(): n for a, n in aliases.items()}
        self.fsmr = aliases.get("FSMR")
        self.named: dict[int, Counter[int]] = {}
        self.pending: list[tuple[Reference, int, str]] = []
        variants: set[str] = set()
        for a in aliases:  # abbreviations only in capitals: "PIN" is a rulebook, "pin" is not
            variants |= {a} if _ABBR.fullmatch(a) else {a, a.upper(), a.lower(), _title_case(a)}
        doc = rf"(?<!\w){_trie(variants)}(?:\s+(?:Rulebook|Rules|Regulations))?"
        self.prefix = re.compile(rf"(?:\((?P<p1>{doc})\)|(?P<p2>{doc}))(?P<comma>,?)\s+\Z")
        tail = (rf"(?:,?\s+(?:of|in|under|to)\s+(?:the\s+)?(?:Chapter\s+\d+\s+of\s+)?"
                rf"(?P<sched>Schedule\s+\d+))?"
                rf"(?:\s+(?:of|in|under)\s+(?:the\s+)?(?:(?P<suf>{doc})\b|(?P<foreign>(?:[A-Z][\w&-]*\s+)+"
                rf"(?:Regulations|Rules|Law|Act|Code|Guidance)\b|Guidance\s+on(?:\s+[A-Z][\w-]*)+)))?")
        self.suffix = re.compile(tail)
        # "Guidance 2 to Rule 10.2.2", "paragraph (2) of Rule 3.2.1": the rule the part belongs to.
        self.suffix_rule = re.compile(r"(?: +(?:to|under|of|in) +Rule +(?P<rule>\d[\d.]*\d))?" + tail)

    def _doc_named(self, name: str) -> int | None:
        name = re.sub(r"\s+(?:Rulebook|Rules|Regulations)$", "", name.strip()).lower()
        return self.aliases.get(name, self.aliases.get(name + " rules", self.aliases.get(name + " rulebook")))

    def _doc_fuzzy(self, phrase: str) -> int | None:
        """The one document whose title holds every distinctive word of ``phrase``
        (``the Guidance on Mining``); None for documents outside the corpus or ambiguous ones."""
        def words(s: str) -> set[str]:
            return {w.rstrip("s") for w in re.findall(r"[a-z]+", s.lower())} - _STOP

        want = words(phrase)
        hits = [d.number for d in self.docs.values() if want <= words(d.title)]
        return hits[0] if want and len(hits) == 1 else None

    def _prefix(self, text: str, start: int) -> re.Match[str] | None:
        j = start
        while j > 0 and text[j - 1] in " ,":
            j -= 1
        k = j
        while k > 0 and text[k - 1].isalnum():
            k -= 1
        # Cheap test before the regex: a document name ends in ")" or a capitalised word.
        if j == start or not (text[j - 1] == ")" or (k < j and (text[k].isupper() or text[k].isdigit()))):
            return None
        return self.prefix.search(text, max(0, start - 120), start)

    def refs(self, unit: Unit, doc: _Doc, src_pid: str) -> list[Reference]:
        text, base = unit.text, _RULE_BASE.sub("", pid_key(src_pid))
        out: list[Reference] = []
        if not _DIGIT.search(text):
            return out  # every citation has a number; most passages have none
        covered: list[tuple[int, int]] = []

        def emit(start: int, end: int, dst: str | None) -> Reference | None:
            if dst == unit.unit_id:
                return None
            out.append(Reference(src_unit=unit.unit_id, start=start, end=end, raw=text[start:end],
                                 dst_unit=dst))
            return out[-1]

        for m in _CORE.finditer(text):
            if covered and m.start() < covered[-1][1]:
                continue  # "Chapter 14" inside "paragraph 67 of Chapter 14 of Schedule 1 of FSMR"
            kw, first_item = m.group("kw") or "", m.group("list")
            pre = self._prefix(text, m.start())
            if pre and pre.group("comma") and not kw.startswith("Chapter"):
                pre = None  # "COBS, Chapter 8" names the book; "the FSMR, Rules 12.2.2" does not
            # Without a keyword only "GEN 3.3.32" or "IFR 2" count, not "Regulations 2015".
            if not kw and (pre is None or first_item.startswith("(") or re.match(r"\d{4}", first_item)):
                continue
            owned = kw.lower().startswith("guidance") or first_item.startswith("(")
            suf = (self.suffix_rule if owned else self.suffix).match(text, m.end())
            if suf is None:  # the suffix patterns are all optional groups, so this never happens
                continue
            rule = suf.group("rule") if owned else None
            named = pre and (pre.group("p1") or pre.group("p2")) or suf.group("suf")
            if named:
                target = self._doc_named(named)
            elif suf.group("foreign"):
                target = self._doc_fuzzy(suf.group("foreign"))
            else:
                target = doc.number
            if named and target is not None and target != doc.number:
                self.named.setdefault(doc.number, Counter())[target] += 1
            sched = pid_key(suf.group("sched")) if suf.group("sched") else None
            if (not sched and kw.lower().startswith("paragraph") and doc.is_regulation
                    and target == doc.number):
                # In regulations numbered paragraphs live in Schedules, never in the sections.
                sched = pid_key(src_pid.split(".")[0]) if src_pid.startswith("Schedule") else "?"
            first = pre.start() if pre else m.start()
            covered.append((first, suf.end()))
            items = list(_ITEM.finditer(text, m.start("list"), m.end("list")))
            prev_key, prev_start, prev_end = "", first, first
            for n, it in enumerate(items):
                key = pid_key(it.group(0))
                if n and not key.startswith("(") and key.count(".") != items[0].group(0).count("."):
                    break  # "Rule 3.2.1, 12 months": the list has ended
                if n and key.startswith("("):
                    key = _TRAILING_PAREN.sub("", prev_key) + key
                start = first if n == 0 else it.start()
                end = suf.end() if len(items) == 1 else it.end()
                keys = [key]
                if n and _RANGE.search(text, prev_end, it.start()):
                    keys = _between(prev_key, key) + keys
                for k in keys:
                    dst = self._lookup(target, kw.lower(), k, doc, rule or base, src_pid, sched)
                    if dst is None and k.startswith("("):
                        continue  # a dangling "(2)" is not worth keeping
                    ref = emit(start if k == key else prev_start, end, dst)
                    if ref and dst is None and not named and kw.lower().startswith("rule"):
                        self.pending.append((ref, doc.number, k))
                prev_key, prev_start, prev_end = key, start, it.end()
        for rx, relative in ((_RELATIVE, True), (_BARE, False)):
            for m in rx.finditer(text):
                s, e = m.span(1)
                if any(a <= s < b for a, b in covered):
                    continue
                key = pid_key(m.group(1))
                dst = doc.find(base + key, stop=base) if relative else doc.find(key)
                if dst:
                    covered.append((s, e))
                    emit(s, e, dst)
        return out

    def finish(self) -> None:
        """A guidance note without numbered rules of its own that cites a bare "Rule 11.8.3"
        means one of the rulebooks it names elsewhere: try them, most often named first."""
        for ref, doc_no, key in self.pending:
            if self.docs[doc_no].has_rules:
                continue
            for other, _ in self.named.get(doc_no, Counter()).most_common():
                dst = self.docs[other].find(key)
                if dst:
                    ref.dst_unit = dst if dst != ref.src_unit else None
                    break
        self.pending.clear()

    def _lookup(self, doc_no: int | None, kw: str, key: str, src: _Doc, base: str, src_pid: str,
                sched: str | None) -> str | None:
        doc = self.docs.get(doc_no) if doc_no is not None else None
        if doc is None or (key.startswith("(") and doc is not src):
            return None
        if kw.startswith("guidance"):  # "Guidance 3" or "Guidance 2 to Rule 10.2.2"
            return doc.find(f"{base}.guidance{key if key.startswith('(') else '.' + key}")
        if key.startswith("("):
            return doc.find(base + key, stop=base)
        for k in self._keys(kw, key, doc, src_pid, sched):
            dst = doc.find(k)
            if dst:
                return dst
        # Rulebooks and guidance cite FSMR sections as a bare "section 92(2)".
        if (doc is src and kw.startswith("section") and not doc.is_regulation
                and "." not in key and self.fsmr in self.docs):
            return self.docs[self.fsmr].find(key)
        return None

    @staticmethod
    def _keys(kw: str, key: str, doc: _Doc, src_pid: str, sched: str | None) -> list[str]:
        if kw.startswith("chapter") and doc.is_regulation:
            part = _PART_OF_PID.match(src_pid)
            return [f"part{part.group(1).lower()}.chapter{key}"] if part else []
        if kw.startswith("part") and doc.is_regulation:
            return [f"{sched}.part{key}" if sched else f"part{key}"]
        if kw.startswith("schedule"):
            return [f"schedule{key}"]
        if kw.startswith("app") or key.startswith("app"):
            n = key.removeprefix("app")
            return [n] if n[:1].isalpha() else [f"app{n}", f"a{n}"]
        return [f"{sched}.{key}"] if sched else [key]


def _between(a: str, b: str) -> list[str]:
    """Keys strictly between the ends of a range: ``4.12.7`` to ``4.12.9`` gives ``4.12.8``."""
    ma, mb = _ENDS.match(a), _ENDS.match(b)
    if not ma or not mb or ma.group(1) != mb.group(1) or ma.group(3) != mb.group(3):
        return []
    lo, hi = int(ma.group(2)), int(mb.group(2))
    if not 1 < hi - lo <= 30:
        return []
    return [f"{ma.group(1)}{x}{ma.group(3)}" for x in range(lo + 1, hi)]


_KINDS: dict[str, ContainerKind] = {"part": "part", "chapter": "chapter", "schedule": "schedule", "section": "section"}
_NAMED_LEVEL = re.compile(r"(Part|PART|Chapter|CHAPTER|Schedule|SCHEDULE) ?(\d+[A-Z]?)\.?")
_NUMBERED = re.compile(r"\d+(?:\.\d+)*")


def _container_levels(pid: str, rulebook: bool) -> list[tuple[str, str, str]]:
    """The levels above passage ``pid`` that may be containers, outermost first, as
    ``(PassageID of the level, kind, label)``: ``Part 6`` and ``Part 6.Chapter 1`` above
    ``Part 6.Chapter 1.60.(1)``; in a rulebook, Chapter ``3`` and Section ``3.2`` above
    ``3.2.1.(1)`` (the rulebooks cite their own levels so: "Chapter 7", "Section 14.10")."""
    s = pid.replace("\u200e", "")
    out: list[tuple[str, str, str]] = []
    pos = 0
    while m := _NAMED_LEVEL.match(s, pos):
        out.append((s[:m.end()].rstrip("."), m.group(1).lower(), f"{m.group(1).title()} {m.group(2)}"))
        pos = m.end()
    if pos == 0 and rulebook and (m := _NUMBERED.match(s)):
        numbers = m.group(0).split(".")
        for depth, kind in ((1, "chapter"), (2, "section")):
            if len(numbers) > depth or (len(numbers) == depth and m.end() < len(s.rstrip("."))):
                level = ".".join(numbers[:depth])
                out.append((level, kind, f"{kind.title()} {level}"))
    return [lv for lv in out if lv[0] != s.rstrip(".")]


def _containers(doc: _Doc, capitals: set[str]) -> dict[str, list[Container]]:
    """Passage uuid → the containers the source states above it: a level counts only when the
    document has a heading passage at exactly that PassageID, whose text is the title."""
    heads = {pid.replace("\u200e", "").rstrip("."): text for pid, text in zip(doc.pids, doc.texts)
             if _is_heading(pid, text)}
    out: dict[str, list[Container]] = {}
    for pid, uid in zip(doc.pids, doc.uids):
        found = []
        for level, kind, label in _container_levels(pid, doc.has_rules):
            if level in heads:
                key = re.sub(r"[^a-z0-9.]+", "-", level.lower()).strip("-")
                found.append(Container(id=f"{doc.doc_id}:{kind}:{key}", kind=_KINDS[kind], label=label,
                                       title=heading_title(heads[level], capitals)))
        if found:
            out[uid] = found
    return out


class AdgmAdapter:
    name = "adgm"
    needs_path = True

    def load(self, path: Path | None) -> ParsedCorpus:
        folder = path / "documents" if path is not None and (path / "documents").is_dir() else path
        files = require_dir(folder, self.name, "*.json")
        assert folder is not None
        map_path = next((d / "DocumentMap.rtf" for d in (folder, folder.parent, folder.parent.parent)
                         if (d / "DocumentMap.rtf").is_file()), folder / "DocumentMap.rtf")
        names = _read_map(map_path)
        if not names:
            log.warning("no document map at %s; documents are named by number", map_path)
        docs, documents, units = self._read(files, names)
        aliases: dict[str, int] = {}
        for no in sorted(docs):  # "CRS" names two documents: the first one keeps it
            for a in _describe(names.get(no, []), no)[2]:
                aliases.setdefault(a, no)
        resolver = _Resolver(docs, aliases)
        by_doc_id = {d.doc_id: d for d in docs.values()}
        refs = [r for u in units for r in resolver.refs(u, by_doc_id[u.doc_id], u.meta["passage_id"])]
        resolver.finish()
        log.info("adgm: %d documents, %d passages, %d references (%d unresolved)", len(documents),
                 len(units), len(refs), sum(r.dst_unit is None for r in refs))
        return ParsedCorpus(documents=documents, units=units, references=refs)

    def references_in(self, text: str, corpus: ParsedCorpus) -> list[Reference]:
        """Rules and sections named in a question (``Rule 4.12.7``, ``COBS Rule 8.3.2``, ``section 60
        of FSMR``), read with the passages' own grammar. A number with no document named is looked
        up in every document: it has a target only when exactly one document holds it."""
        resolver, docs = self._question_resolver(corpus)
        unit = question_unit(text)
        found: dict[tuple[int, int], set[str | None]] = {}
        raw: dict[tuple[int, int], str] = {}
        for doc in docs:
            for r in resolver.refs(unit, doc, ""):
                if r.raw.startswith("("):
                    continue  # "(2)" of what? a question has no paragraph of its own
                found.setdefault((r.start, r.end), set()).add(r.dst_unit)
                raw[(r.start, r.end)] = r.raw
        resolver.named.clear()
        resolver.pending.clear()
        out = []
        for (start, end), dsts in sorted(found.items()):
            hits = sorted(d for d in dsts if d)
            out.append(Reference(src_unit=unit.unit_id, start=start, end=end, raw=raw[(start, end)],
                                 dst_unit=hits[0] if len(hits) == 1 else None))
        return out

    def _question_resolver(self, corpus: ParsedCorpus) -> tuple[_Resolver, list[_Doc]]:
        """The resolver over a stored corpus, built once per corpus object."""
        cached = getattr(self, "_qcache", None)
        if cached is not None and cached[0] is corpus:
            return cached[1], cached[2]
        docs: dict[int, _Doc] = {}
        by_doc_id: dict[str, _Doc] = {}
        aliases: dict[str, int] = {}
        for d in sorted(corpus.documents, key=lambda d: int(d.meta.get("adgm_document_id", 1 << 30))):
            number = int(d.meta.get("adgm_document_id", len(docs) + 100000))
            docs[number] = by_doc_id[d.doc_id] = _Doc(number=number, doc_id=d.doc_id, title=d.title)
            for a in d.meta.get("aliases", []):
                aliases.setdefault(a, number)
        for u in corpus.units:
            doc = by_doc_id.get(u.doc_id)
            pid = str(u.meta.get("passage_id", ""))
            if doc is None or not pid:
                continue
            doc.add(pid, u.text, u.unit_id)
            if pid.startswith("Part ") or pid.startswith("Schedule"):
                doc.is_regulation = True
        resolver = _Resolver(docs, aliases)
        self._qcache = (corpus, resolver, list(docs.values()))
        return resolver, list(docs.values())

    def _read(self, files: list[Path], names: dict[int, list[str]]):
        docs: dict[int, _Doc] = {}
        documents: list[Document] = []
        units: list[Unit] = []
        used_short: set[str] = set()
        for f in sorted(files, key=lambda p: (int(p.stem) if p.stem.isdigit() else 1 << 30, p.name)):
            try:
                passages = json.loads(read_text(f))
                number = int(passages[0]["DocumentID"]) if passages else int(f.stem)
            except (json.JSONDecodeError, KeyError, TypeError, ValueError, IndexError) as err:
                raise AdapterError(f"{f} is not an ADGM passage file (a JSON list of objects with ID, "
                                   f"DocumentID, PassageID, Passage): {err}") from err
            title, short, _ = _describe(names.get(number, []), number)
            if short in used_short:
                short = f"{short} ({number})"
            used_short.add(short)
            doc = _Doc(number=number, doc_id=f"adgm-{number}", title=title)
            docs[number] = doc
            documents.append(Document(doc_id=doc.doc_id, title=title, source=str(f), sha256=sha256_file(f),
                                      meta={"adgm_document_id": number,
                                            "aliases": sorted(_describe(names.get(number, []), number)[2])}))
            heading = ""
            first_unit = len(units)
            for p in passages:
                try:
                    pid, uid, body = str(p["PassageID"]), str(p["ID"]), tidy(str(p.get("Passage") or ""))
                except (KeyError, TypeError) as err:
                    raise AdapterError(f"{f}: a passage lacks {err}; each needs ID and PassageID") from err
                doc.add(pid, body, uid)
                if pid.startswith("Part ") or pid.startswith("Schedule"):
                    doc.is_regulation = True
                if _is_heading(pid, body):
                    heading = body
                if body:
                    units.append(Unit(unit_id=uid, doc_id=doc.doc_id, kind="passage",
                                      heading=f"{short} {pid}", title=heading[:80], text=body,
                                      meta={"passage_id": pid}))
            mine = units[first_unit:]
            within = _containers(doc, capitals_kept(u.text for u in mine))
            for u in mine:
                u.containers = within.get(u.unit_id, [])
        return docs, documents, units
