"""One ingest job per workspace, shared by every browser tab of the server.

An ingest started from the dashboard (the first-start demo corpus, an upload) runs in a thread of
the server process, not inside the page script that asked for it. A reload, a second tab or another
page finds the running job here and shows its progress — chunks done, the rate, the time left —
instead of starting the ingest again. Only one ingest runs per workspace at a time: SQLite has one
writer, and two ingests of the same files would do the work twice.

No Streamlit in here: the job is plain Python, so it outlives the session that started it and can
be tested without a page.
"""

from __future__ import annotations

import logging
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

log = logging.getLogger("anchor.app.jobs")

State = Literal["running", "done", "failed"]


@dataclass
class Job:
    """An ingest in progress or finished. The worker calls :meth:`step`; readers call :meth:`snapshot`."""

    what: str
    """What is being ingested, in words (``the EU AI Act demo corpus``)."""
    kind: str = "ingest"
    """``demo`` or ``upload``: which page shows the result."""
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:12])
    state: State = "running"
    stage: str = "starting"
    done: int = 0
    total: int = 0
    started: float = field(default_factory=time.monotonic)
    first_step: float | None = None
    """When the first unit of work was reported (the rate leaves out the model load before it)."""
    first_done: int = 0
    finished: float | None = None
    result: Any = None
    error: str = ""
    _lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    def step(self, done: int, total: int, stage: str | None = None) -> None:
        """Progress from the worker: ``done`` of ``total`` units (chunks) of the current stage."""
        now = time.monotonic()
        with self._lock:
            if stage is not None and stage != self.stage:
                self.stage, self.first_step = stage, None
            if self.first_step is None and total:
                self.first_step, self.first_done = now, done
            self.done, self.total = done, total

    def snapshot(self) -> JobView:
        with self._lock:
            now = self.finished or time.monotonic()
            rate = None
            if self.first_step is not None and self.done > self.first_done and now > self.first_step:
                rate = (self.done - self.first_done) / (now - self.first_step)
            eta = (self.total - self.done) / rate if rate and self.state == "running" else None
            return JobView(id=self.id, what=self.what, kind=self.kind, state=self.state, stage=self.stage,
                           done=self.done, total=self.total, elapsed=now - self.started, rate=rate, eta=eta,
                           error=self.error, result=self.result)


@dataclass(frozen=True)
class JobView:
    """A consistent copy of a job's progress, for one drawing of the bar."""

    id: str
    what: str
    kind: str
    state: State
    stage: str
    done: int
    total: int
    elapsed: float
    rate: float | None
    """Units per second since the stage's first reported unit, or None before there is one."""
    eta: float | None
    """Seconds left at that rate, or None."""
    error: str
    result: Any

    @property
    def fraction(self) -> float:
        return min(self.done / self.total, 1.0) if self.total else 0.0

    def text(self) -> str:
        """``embedding 412 of 959 chunks · 21 chunks/s · about 26 s left``."""
        from anchor_core.workspace import duration

        if self.state == "done":
            return f"done in {duration(self.elapsed)}"
        if self.state == "failed":
            return f"stopped after {duration(self.elapsed)}: {self.error}"
        if not self.total:
            return f"{self.stage}… ({duration(self.elapsed)} so far)"
        out = f"{self.stage}: {self.done:,} of {self.total:,} chunks"
        if self.rate:
            out += f" · {self.rate:.0f} chunks/s" if self.rate >= 10 else f" · {self.rate:.1f} chunks/s"
        if self.eta is not None:
            out += f" · about {duration(self.eta)} left"
        return out


class Jobs:
    """The running (and last finished) ingest job of each workspace."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._jobs: dict[str, Job] = {}

    def get(self, workspace: str) -> Job | None:
        with self._lock:
            return self._jobs.get(workspace)

    def running(self, workspace: str) -> Job | None:
        job = self.get(workspace)
        return job if job is not None and job.state == "running" else None

    def start(self, workspace: str, what: str, work: Callable[[Job], Any], *, kind: str = "ingest",
              explain: Callable[[BaseException], str] = str) -> tuple[Job, bool]:
        """The workspace's running job, or ``work`` started as a new one: ``(job, started)``.
        ``work(job)`` reports progress through ``job.step`` and returns the job's result; ``explain``
        words an error for the reviewer."""
        with self._lock:
            current = self._jobs.get(workspace)
            if current is not None and current.state == "running":
                return current, False
            job = Job(what=what, kind=kind)
            self._jobs[workspace] = job

        def run() -> None:
            try:
                job.result = work(job)
                job.state = "done"
            except Exception as err:  # shown to every tab that looks at the job, with what to do
                log.warning("ingest job %s (%s) failed: %s", job.id, what, err, exc_info=True)
                job.error = explain(err)
                job.state = "failed"
            finally:
                job.finished = time.monotonic()

        threading.Thread(target=run, name=f"anchor-ingest-{job.id}", daemon=True).start()
        return job, True

    def forget(self, workspace: str, job_id: str) -> None:
        """Drop a finished job once it has been shown (a running one stays)."""
        with self._lock:
            job = self._jobs.get(workspace)
            if job is not None and job.id == job_id and job.state != "running":
                del self._jobs[workspace]


JOBS = Jobs()
"""The server process's jobs (this module is imported once per process)."""
