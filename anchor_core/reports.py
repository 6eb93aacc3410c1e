"""Saved runs and reviewer verdicts: the workspace's record of every ask and verify run.

Every run the dashboard makes is saved in ``ANCHOR_HOME/reports.db`` (SQLite, separate from the
corpus store so a long ingest never locks a reviewer out). A reviewer marks each claim
``accepted`` / ``rejected`` / ``needs_work`` with a comment; marks are appended, never overwritten,
so the history of who decided what and when stays in the record. The latest mark per claim is
the current verdict.

:class:`SavedRun` gives both kinds of run one face (:class:`ClaimView`), which the dashboard and
the exports (:mod:`anchor_core.exports`) render.

>>> from anchor_core.reports import ReportStore
>>> rs = ReportStore(tmp / "reports.db")                                  # doctest: +SKIP
>>> run = rs.save(ask_report)                                             # doctest: +SKIP
>>> rs.review(run.id, 1, "accepted", reviewer="A. Auditor", comment="matches Art. 6(2)")  # doctest: +SKIP
"""

from __future__ import annotations

import json
import re
import sqlite3
import threading
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, Field

from anchor_core.ask.report import AskReport
from anchor_core.errors import AnchorError
from anchor_core.models import utcnow
from anchor_core.verify import Report as VerifyReport

Verdict = Literal["accepted", "rejected", "needs_work"]
VERDICTS: dict[str, str] = {"accepted": "accepted", "rejected": "rejected", "needs_work": "needs work"}
Status = Literal["supported", "flagged", "unsupported"]
_PLAIN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class RunNotFound(AnchorError):
    pass


class ReviewError(AnchorError):
    """A reviewer mark that cannot be stored (no reviewer name, unknown claim, missing comment)."""


class VerifyRun(BaseModel):
    """A verify run: the report and the source texts it was checked against (pasted or uploaded,
    so they are kept with the run; the report itself holds only their hashes)."""

    report: VerifyReport
    sources: dict[str, str] = Field(default_factory=dict)


class Review(BaseModel):
    claim: int
    """1-based claim number."""
    verdict: Verdict
    comment: str = ""
    reviewer: str
    at: str = Field(default_factory=lambda: utcnow().isoformat(timespec="seconds"))


class ClaimView(BaseModel):
    """One claim of either kind of run, with everything needed to re-check its anchor."""

    index: int
    text: str
    verdict: str
    """The checker's verdict: ``supported``, ``partially_supported`` or ``unsupported``."""
    status: Status
    """``flagged`` when supported with drift flags, or only partly supported."""
    flags: list[str] = Field(default_factory=list)
    reasons: list[str] = Field(default_factory=list)
    source: str = ""
    """Unit label (ask) or source id (verify) holding the quote."""
    unit_id: str = ""
    part: str | None = None
    page: int | None = None
    quote: str | None = None
    start: int | None = None
    end: int | None = None
    score: float | None = None
    method: str = ""
    threshold: float | None = None
    doc_sha256: str = ""
    path: str = ""
    """Reference path that led to the source (ask runs), e.g. ``annex-3(4) ← article-6(2)``."""


def _status(verdict: str, flags: list[str]) -> Status:
    if verdict == "unsupported":
        return "unsupported"
    return "flagged" if verdict == "partially_supported" or flags else "supported"


class SavedRun(BaseModel):
    id: str
    kind: Literal["ask", "verify"]
    title: str
    corpus: str = ""
    created_at: str
    ask: AskReport | None = None
    verify: VerifyRun | None = None
    reviews: list[Review] = Field(default_factory=list)
    """Every mark, oldest first."""

    @property
    def refused(self) -> bool:
        return bool(self.ask and self.ask.refused)

    @property
    def verified_fraction(self) -> float:
        if self.ask:
            return self.ask.verified_fraction
        return self.verify.report.verified_fraction if self.verify else 0.0

    @property
    def answer(self) -> str:
        if self.ask:
            return self.ask.answer
        return self.verify.report.answer if self.verify else ""

    @property
    def latest_reviews(self) -> dict[int, Review]:
        out: dict[int, Review] = {}
        for r in self.reviews:
            out[r.claim] = r
        return out

    @property
    def claims(self) -> list[ClaimView]:
        if self.ask:
            return _ask_claims(self.ask)
        return _verify_claims(self.verify) if self.verify else []


def _ask_claims(r: AskReport) -> list[ClaimView]:
    by_n = {s.n: s for s in r.sources}
    out = []
    for i, c in enumerate(r.claims, 1):
        v = ClaimView(index=i, text=c.text, verdict=c.verdict, status=_status(c.verdict, c.flags), flags=c.flags,
                      reasons=c.reasons)
        if c.anchor:
            a = c.anchor
            src = by_n.get(a.source)
            v = v.model_copy(update={
                "source": src.label if src else (f"{a.unit_id}({a.part})" if a.part else a.unit_id),
                "unit_id": a.unit_id, "part": a.part, "page": a.page, "quote": a.quote, "start": a.start,
                "end": a.end, "score": a.score, "method": a.method, "threshold": a.threshold,
                "doc_sha256": a.unit_sha256 or (src.unit_sha256 if src else ""), "path": src.path if src else ""})
        out.append(v)
    return out


def _verify_claims(run: VerifyRun) -> list[ClaimView]:
    out = []
    for c in run.report.claims:
        best = max((a for a in c.atoms if a.anchor is not None), key=lambda a: a.anchor.score, default=None)
        flags = sorted({f for a in c.atoms if a.anchor for f in a.anchor.flags})
        v = ClaimView(index=c.index, text=c.text, verdict=c.verdict, status=_status(c.verdict, flags), flags=flags,
                      reasons=[c.reason])
        if best is not None and best.anchor is not None:
            a = best.anchor
            sid = best.source_id or ""
            v = v.model_copy(update={"source": sid, "unit_id": sid, "quote": a.quote, "start": a.start, "end": a.end,
                                     "score": a.score, "method": a.method, "threshold": a.threshold,
                                     "doc_sha256": run.report.sources.get(sid, "")})
        out.append(v)
    return out


class RunSummary(BaseModel):
    id: str
    kind: str
    title: str
    corpus: str
    created_at: str
    refused: bool
    claims: int
    verified_fraction: float
    accepted: int = 0
    rejected: int = 0
    needs_work: int = 0

    @property
    def reviewed(self) -> int:
        return self.accepted + self.rejected + self.needs_work

    @property
    def review_state(self) -> str:
        if self.claims == 0:
            return "nothing to review"
        if self.reviewed == 0:
            return "not reviewed"
        if self.reviewed < self.claims:
            return "in review"
        return "rejected" if self.rejected else "needs work" if self.needs_work else "accepted"


SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id TEXT PRIMARY KEY, kind TEXT NOT NULL, title TEXT NOT NULL, corpus TEXT NOT NULL,
    created_at TEXT NOT NULL, refused INTEGER NOT NULL, claims INTEGER NOT NULL,
    verified_fraction REAL NOT NULL, payload TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS runs_by_time ON runs (created_at);
CREATE TABLE IF NOT EXISTS reviews (
    seq INTEGER PRIMARY KEY AUTOINCREMENT, run_id TEXT NOT NULL, claim INTEGER NOT NULL,
    verdict TEXT NOT NULL, comment TEXT NOT NULL, reviewer TEXT NOT NULL, at TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS reviews_by_run ON reviews (run_id);
CREATE TABLE IF NOT EXISTS run_access (run_id TEXT PRIMARY KEY, groups TEXT, owner TEXT NOT NULL);
"""
# run_access: the access context of a run (anchor_core.access decides who may open it): the groups
# it ran with as a JSON list, or null when it ran unrestricted; no row for runs saved before it.


def _title(text: str, width: int = 90) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


class ReportStore:
    """Saved runs and reviews in one SQLite file. Safe to share between the dashboard's threads."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._db = sqlite3.connect(str(self.path), timeout=30, check_same_thread=False, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(SCHEMA)
        except (sqlite3.DatabaseError, OSError) as err:
            raise AnchorError(f"cannot open the saved reports at {self.path}: {err}. If the file is damaged, "
                              "move it away (a new one is created); set ANCHOR_HOME to use another workspace.") from err
        self._lock = threading.RLock()

    def close(self) -> None:
        self._db.close()

    # -- writing --------------------------------------------------------------------------

    def save(self, report: AskReport | VerifyRun | VerifyReport, *, sources: dict[str, str] | None = None,
             run_id: str | None = None) -> SavedRun:
        """Save an ask report or a verify run (a bare verify report plus ``sources`` texts works too)."""
        if isinstance(report, VerifyReport):
            report = VerifyRun(report=report, sources=sources or {})
        if isinstance(report, AskReport):
            run = SavedRun(id=run_id or uuid.uuid4().hex[:12], kind="ask", title=_title(report.question),
                           corpus=report.corpus, created_at=report.created_at, ask=report)
        else:
            plain = re.sub(r"<\s*/?\s*cite\b[^>]*>", "", report.report.answer).strip()
            first = plain.splitlines()[0] if plain else "(empty answer)"
            run = SavedRun(id=run_id or uuid.uuid4().hex[:12], kind="verify", title=_title(first),
                           created_at=report.report.created_at, verify=report)
        self._insert(run)
        return run

    def _insert(self, run: SavedRun) -> None:
        payload = (run.ask or run.verify).model_dump_json()  # type: ignore[union-attr]
        with self._lock:
            self._db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (run.id, run.kind, run.title, run.corpus, run.created_at, int(run.refused),
                              len(run.claims), run.verified_fraction, payload))

    def import_run(self, run: SavedRun) -> SavedRun:
        """Store a run read back from an export, with its reviews. Keeps its id unless that id is taken
        or is not a plain id (letters, digits, ``_`` and ``-``, as Anchor writes them)."""
        with self._lock:
            taken = self._db.execute("SELECT 1 FROM runs WHERE id = ?", (run.id,)).fetchone()
            if taken:
                run = run.model_copy(update={"id": uuid.uuid4().hex[:12], "title": _title(run.title + " (imported)")})
            elif not _PLAIN_ID.fullmatch(run.id):
                run = run.model_copy(update={"id": uuid.uuid4().hex[:12]})
            self._insert(run)
            self._db.executemany("INSERT INTO reviews (run_id, claim, verdict, comment, reviewer, at) "
                                 "VALUES (?, ?, ?, ?, ?, ?)",
                                 [(run.id, r.claim, r.verdict, r.comment, r.reviewer, r.at) for r in run.reviews])
        return self.get(run.id)

    def review(self, run_id: str, claim: int, verdict: str, *, reviewer: str, comment: str = "") -> Review:
        """Record a reviewer's verdict on claim ``claim`` (1-based) of run ``run_id``.

        A rejection or "needs work" must say why: the comment is required for those."""
        run = self.get(run_id)
        reviewer = " ".join(reviewer.split())
        if not reviewer:
            raise ReviewError("enter your name as reviewer first: every mark is stored with who made it")
        if verdict not in VERDICTS:
            raise ReviewError(f"unknown verdict {verdict!r}; choose one of: {', '.join(VERDICTS)}")
        n = len(run.claims)
        if not 1 <= claim <= n:
            raise ReviewError(f"run {run_id} has {n} claims; claim {claim} does not exist")
        comment = comment.strip()
        if verdict != "accepted" and not comment:
            raise ReviewError(f"a claim marked {VERDICTS[verdict]} needs a comment saying what is wrong")
        mark = Review(claim=claim, verdict=verdict, comment=comment, reviewer=reviewer)  # type: ignore[arg-type]
        with self._lock:
            self._db.execute("INSERT INTO reviews (run_id, claim, verdict, comment, reviewer, at) "
                             "VALUES (?, ?, ?, ?, ?, ?)", (run_id, claim, verdict, comment, reviewer, mark.at))
        return mark

    def delete(self, run_id: str) -> None:
        self.get(run_id)
        with self._lock:
            self._db.execute("DELETE FROM reviews WHERE run_id = ?", (run_id,))
            self._db.execute("DELETE FROM run_access WHERE run_id = ?", (run_id,))
            self._db.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    # -- reading --------------------------------------------------------------------------

    def get(self, run_id: str) -> SavedRun:
        with self._lock:
            row = self._db.execute("SELECT id, kind, title, corpus, created_at, payload FROM runs WHERE id = ?",
                                   (run_id,)).fetchone()
            marks = self._db.execute("SELECT claim, verdict, comment, reviewer, at FROM reviews WHERE run_id = ? "
                                     "ORDER BY seq", (run_id,)).fetchall()
        if row is None:
            raise RunNotFound(f"no saved run {run_id!r} in {self.path}; it may have been deleted in another tab — "
                              "pick one from the list")
        rid, kind, title, corpus, created_at, payload = row
        body: dict[str, Any] = {"ask": AskReport.model_validate_json(payload)} if kind == "ask" else \
            {"verify": VerifyRun.model_validate_json(payload)}
        return SavedRun(id=rid, kind=kind, title=title, corpus=corpus, created_at=created_at, **body,
                        reviews=[Review(claim=c, verdict=v, comment=m, reviewer=r, at=a) for c, v, m, r, a in marks])

    def list(self, *, kind: str | None = None, corpus: str | None = None, text: str = "",
             review_state: str | None = None, since: datetime | None = None, limit: int = 500) -> list[RunSummary]:
        """Saved runs, newest first, filtered by kind, corpus, a substring of the title, review state
        (as :attr:`RunSummary.review_state`) and creation time."""
        where, params = ["1 = 1"], []
        if kind:
            where.append("kind = ?")
            params.append(kind)
        if corpus:
            where.append("corpus = ?")
            params.append(corpus)
        if text.strip():
            where.append("title LIKE ? ESCAPE '\\'")
            esc = text.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
            params.append(f"%{esc}%")
        if since is not None:
            where.append("created_at >= ?")
            params.append(since.isoformat())
        sql = ("SELECT id, kind, title, corpus, created_at, refused, claims, verified_fraction FROM runs "
               f"WHERE {' AND '.join(where)} ORDER BY created_at DESC LIMIT ?")
        with self._lock:
            rows = self._db.execute(sql, [*params, limit]).fetchall()
            ids = [r[0] for r in rows]
            counts: dict[str, dict[str, int]] = {i: {} for i in ids}
            if ids:
                latest = self._db.execute(
                    "SELECT run_id, verdict FROM reviews r WHERE seq = (SELECT max(seq) FROM reviews r2 "
                    f"WHERE r2.run_id = r.run_id AND r2.claim = r.claim) AND run_id IN ({','.join('?' * len(ids))})",
                    ids).fetchall()
                for rid, verdict in latest:
                    counts[rid][verdict] = counts[rid].get(verdict, 0) + 1
        out = [RunSummary(id=r[0], kind=r[1], title=r[2], corpus=r[3], created_at=r[4], refused=bool(r[5]),
                          claims=r[6], verified_fraction=r[7], **counts[r[0]]) for r in rows]
        if review_state:
            out = [s for s in out if s.review_state == review_state]
        return out

    def corpora(self) -> list[str]:
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT corpus FROM runs WHERE corpus != '' "
                                                   "ORDER BY corpus")]

    def count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM runs").fetchone()[0]

    # -- access context (see anchor_core.access) ------------------------------------------

    def set_access(self, run_id: str, groups: list[str] | None, owner: str = "") -> None:
        """Record the groups run ``run_id`` ran with (``None``: unrestricted) and who made it."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO run_access VALUES (?, ?, ?)",
                             (run_id, json.dumps(None if groups is None else sorted(groups)), owner))

    def access(self, run_ids: list[str]) -> dict[str, list[str] | None]:
        """The recorded groups of each of ``run_ids`` that has an access context."""
        out: dict[str, list[str] | None] = {}
        with self._lock:
            for i in range(0, len(run_ids), 500):
                batch = run_ids[i:i + 500]
                rows = self._db.execute(f"SELECT run_id, groups FROM run_access WHERE run_id IN "
                                        f"({','.join('?' * len(batch))})", batch).fetchall()
                out.update({rid: json.loads(g) for rid, g in rows})
        return out


def run_to_json(run: SavedRun) -> str:
    return json.dumps(run.model_dump(mode="json"), ensure_ascii=False, indent=2)
