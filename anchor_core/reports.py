"""Saved runs and reviewer verdicts: the workspace's record of every ask and verify run.

Every run the dashboard and the CLI make is saved in ``ANCHOR_HOME/reports.db`` (SQLite, separate from the
corpus store so a long ingest never locks a reviewer out). A reviewer marks each claim
``accepted`` / ``rejected`` / ``needs_work`` with a comment; marks are appended, never overwritten,
so the history of who decided what and when stays in the record. The latest mark per claim is
the current verdict.

Both kinds of run are one record, :class:`~anchor_core.report.Report`, saved whole with its
marks; the dashboard, the CLI (``anchor reports``) and the exports (:mod:`anchor_core.render`)
read it back from here. The CLI saves its runs here too.

>>> from anchor_core.reports import ReportStore
>>> rs = ReportStore(tmp / "reports.db")                                  # doctest: +SKIP
>>> run = rs.save(report)                                                 # doctest: +SKIP
>>> rs.review(run.id, 1, "accepted", reviewer="A. Auditor", comment="matches Art. 6(2)")  # doctest: +SKIP
"""

from __future__ import annotations

import builtins
import json
import re
import sqlite3
import threading
import uuid
from datetime import datetime
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from anchor_core.assessment import CHECKS_VERSION, Assessment, Checks, assess, checks
from anchor_core.errors import AnchorError
from anchor_core.report import MARKS as VERDICTS
from anchor_core.report import Report, Review, from_legacy

_PLAIN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")


class RunNotFound(AnchorError):
    pass


class ReviewError(AnchorError):
    """A reviewer mark that cannot be stored (no reviewer name, unknown claim, missing comment)."""


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
    checks: Checks
    """The run's automatic checks (quotes, relevance, support), saved with it."""
    marks: list[Review] = []
    """The latest reviewer mark of each reviewed claim."""

    @property
    def assessment(self) -> Assessment:
        """The run's honest state, as its report headlines it (:meth:`Report.assessment`)."""
        return assess(self.checks, {m.claim: m for m in self.marks})

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
CREATE TABLE IF NOT EXISTS run_checks (run_id TEXT PRIMARY KEY, checks TEXT NOT NULL);
"""
# run_checks: the automatic assessment checks of a run (anchor_core.assessment.Checks) as JSON, so the list
# shows each run's honest state without reading every payload; for runs saved before it, filled on first list.
# run_access: the access context of a run (anchor_core.access decides who may open it): the groups
# it ran with as a JSON list, or null when it ran unrestricted; no row for runs saved before it.


class ReportStore:
    """Saved runs and reviews in one SQLite file. Safe to share between the dashboard's threads."""

    FILE = "reports.db"
    """The file name under the workspace (``ANCHOR_HOME``), shared by the CLI and the dashboard."""

    @classmethod
    def in_home(cls, home: str | Path) -> ReportStore:
        return cls(Path(home) / cls.FILE)

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

    def save(self, report: Report, *, run_id: str | None = None) -> Report:
        """Save a run (ask or verify); the saved copy, with its new id, is returned."""
        run = report.model_copy(update={"id": run_id or uuid.uuid4().hex[:12], "reviews": []})
        self._insert(run)
        return run

    def _insert(self, run: Report) -> None:
        payload = run.model_dump_json(exclude={"reviews"})  # marks live in their own table, appended
        with self._lock:
            self._db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                             (run.id, run.kind, run.title, run.corpus, run.created_at, int(run.refused),
                              len(run.claims), run.verified_fraction, payload))
            self._db.execute("INSERT OR REPLACE INTO run_checks VALUES (?, ?)", (run.id, checks(run).model_dump_json()))

    def import_run(self, run: Report) -> Report:
        """Store a run read back from an export, with its reviews. Keeps its id unless that id is taken
        or is not a plain id (letters, digits, ``_`` and ``-``, as Anchor writes them)."""
        with self._lock:
            taken = self._db.execute("SELECT 1 FROM runs WHERE id = ?", (run.id,)).fetchone()
            if taken or not _PLAIN_ID.fullmatch(run.id):
                run = run.model_copy(update={"id": uuid.uuid4().hex[:12]})
            self._insert(run)
            if taken:
                self._db.execute("UPDATE runs SET title = ? WHERE id = ?", (_imported(run.title), run.id))
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
            self._db.execute("DELETE FROM run_checks WHERE run_id = ?", (run_id,))
            self._db.execute("DELETE FROM runs WHERE id = ?", (run_id,))

    # -- reading --------------------------------------------------------------------------

    def get(self, run_id: str) -> Report:
        with self._lock:
            row = self._db.execute("SELECT id, kind, title, corpus, created_at, payload FROM runs WHERE id = ?",
                                   (run_id,)).fetchone()
            marks = self._db.execute("SELECT claim, verdict, comment, reviewer, at FROM reviews WHERE run_id = ? "
                                     "ORDER BY seq", (run_id,)).fetchall()
        if row is None:
            raise RunNotFound(f"no saved run {run_id!r} in {self.path}; it may have been deleted in another tab — "
                              "pick one from the list")
        rid, kind, _title, _corpus, _created_at, payload = row
        reviews = [Review(claim=c, verdict=v, comment=m, reviewer=r, at=a) for c, v, m, r, a in marks]
        data: dict[str, Any] = json.loads(payload)
        if "kind" not in data:  # saved before ask and verify shared one record
            return from_legacy(kind, data, run_id=rid, reviews=reviews)
        return Report.model_validate({**data, "id": rid, "reviews": reviews})

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
        sql = ("SELECT id, kind, title, corpus, created_at, refused, claims, verified_fraction, c.checks FROM runs "
               f"LEFT JOIN run_checks c ON c.run_id = runs.id WHERE {' AND '.join(where)} ORDER BY created_at DESC "
               "LIMIT ?")
        with self._lock:
            rows = self._db.execute(sql, [*params, limit]).fetchall()
            ids = [r[0] for r in rows]
            counts: dict[str, dict[str, int]] = {i: {} for i in ids}
            marks: dict[str, builtins.list[Review]] = {i: [] for i in ids}
            if ids:
                latest = self._db.execute(
                    "SELECT run_id, claim, verdict, comment, reviewer, at FROM reviews r WHERE seq = (SELECT max(seq) "
                    "FROM reviews r2 WHERE r2.run_id = r.run_id AND r2.claim = r.claim) AND run_id IN "
                    f"({','.join('?' * len(ids))}) ORDER BY claim", ids).fetchall()
                for rid, claim, verdict, comment, reviewer, at in latest:
                    counts[rid][verdict] = counts[rid].get(verdict, 0) + 1
                    marks[rid].append(Review(claim=claim, verdict=verdict, comment=comment, reviewer=reviewer, at=at))
        out = [RunSummary(id=r[0], kind=r[1], title=r[2], corpus=r[3], created_at=r[4], refused=bool(r[5]),
                          claims=r[6], verified_fraction=r[7], checks=self._checks(r[0], r[8]), marks=marks[r[0]],
                          **counts[r[0]]) for r in rows]
        if review_state:
            out = [s for s in out if s.review_state == review_state]
        return out

    def _checks(self, run_id: str, saved: str | None) -> Checks:
        """The saved checks of a run; computed from its payload (and kept) for runs saved before them, or saved
        by an older version of the checks (:data:`~anchor_core.assessment.CHECKS_VERSION`)."""
        if saved:
            kept = Checks.model_validate_json(saved)
            if kept.version == CHECKS_VERSION:
                return kept
        found = checks(self.get(run_id))
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO run_checks VALUES (?, ?)", (run_id, found.model_dump_json()))
        return found

    def corpora(self) -> builtins.list[str]:  # builtins: the method list() shadows the type here
        with self._lock:
            return [r[0] for r in self._db.execute("SELECT DISTINCT corpus FROM runs WHERE corpus != '' "
                                                   "ORDER BY corpus")]

    def count(self) -> int:
        with self._lock:
            return self._db.execute("SELECT count(*) FROM runs").fetchone()[0]

    # -- access context (see anchor_core.access) ------------------------------------------

    def set_access(self, run_id: str, groups: builtins.list[str] | None, owner: str = "") -> None:
        """Record the groups run ``run_id`` ran with (``None``: unrestricted) and who made it."""
        with self._lock:
            self._db.execute("INSERT OR REPLACE INTO run_access VALUES (?, ?, ?)",
                             (run_id, json.dumps(None if groups is None else sorted(groups)), owner))

    def access(self, run_ids: builtins.list[str]) -> dict[str, builtins.list[str] | None]:
        """The recorded groups of each of ``run_ids`` that has an access context."""
        out: dict[str, builtins.list[str] | None] = {}
        with self._lock:
            for i in range(0, len(run_ids), 500):
                batch = run_ids[i:i + 500]
                rows = self._db.execute(f"SELECT run_id, groups FROM run_access WHERE run_id IN "
                                        f"({','.join('?' * len(batch))})", batch).fetchall()
                out.update({rid: json.loads(g) for rid, g in rows})
        return out


def _imported(title: str, width: int = 90) -> str:
    line = " ".join((title + " (imported)").split())
    return line if len(line) <= width else line[: width - 1] + "…"
