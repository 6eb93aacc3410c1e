"""Who is looking, and what they may see: one decision for every read path of the dashboard.

A :class:`Viewer` comes from the identity source that ``ANCHOR_AUTH`` names (Streamlit's OIDC
sign-in, trusted proxy headers, or the local single user); its groups come from that identity,
never from a picker. :func:`visible_groups` is the one visibility decision:

- the local operator (``ANCHOR_AUTH=local``) and admins are unrestricted (``None``);
- everyone else sees public documents (no groups) and documents sharing one of their groups;
- no identity, or an identity without groups, sees public documents only (default-deny).

:class:`ScopedStore` applies that decision to every read of the store (searches, chunks and units
by id, documents, unit ids, references, vectors) and refuses every write to a non-admin, so the
pages need not remember to filter. :func:`may_open_run` decides which saved reports a viewer may
list and open.

>>> v = viewer_from_claims({"is_logged_in": True, "email": "ana@example.com", "groups": ["hr"]},
...                        groups_claim="groups", admin_group="anchor-admins")
>>> visible_groups(v), visible_groups(Viewer(mode="local", name="me"))
(['hr'], None)
"""

from __future__ import annotations

import hmac
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np
from pydantic import BaseModel, ConfigDict

from anchor_core.config import AuthSettings
from anchor_core.errors import AnchorError, CorpusNotFound
from anchor_core.models import Chunk, CorpusInfo, Document, Filters, Reference, Unit

Mode = Literal["oidc", "proxy", "local"]


class AccessDenied(AnchorError):
    """The viewer may not do this (ingest, upload or delete without the admin role)."""


class Viewer(BaseModel):
    """The person the dashboard is serving, as far as the identity source says."""

    model_config = ConfigDict(frozen=True)

    mode: Mode
    """Which identity source made this viewer (``ANCHOR_AUTH``)."""
    name: str = ""
    email: str = ""
    groups: tuple[str, ...] = ()
    is_admin: bool = False
    signed_in: bool = False
    """False for an anonymous visitor (not signed in, or proxy headers missing or not trusted)."""
    note: str = ""
    """Why the viewer is anonymous, shown in the sidebar (e.g. the proxy secret did not match)."""

    @property
    def unrestricted(self) -> bool:
        """Sees every document: only the local operator and admins."""
        return self.mode == "local" or (self.signed_in and self.is_admin)

    @property
    def label(self) -> str:
        """How the viewer is named on screen and on reviewer marks."""
        if self.mode == "local":
            return self.name or "local operator"
        if not self.signed_in:
            return "anonymous"
        return self.name or self.email

    @property
    def access_label(self) -> str:
        if self.unrestricted:
            return "every document" + (" (admin)" if self.mode != "local" else " (local single-user mode)")
        if self.groups:
            return "public documents and groups " + ", ".join(self.groups)
        return "public documents only"


def local_viewer(name: str = "") -> Viewer:
    return Viewer(mode="local", name=" ".join(name.split()), signed_in=True)


def anonymous(mode: Mode, note: str = "") -> Viewer:
    return Viewer(mode=mode, note=note)


_SPLIT = re.compile(r"[,;\s]+")


def parse_groups(raw: Any) -> tuple[str, ...]:
    """Groups from a claim or header value: a list of names, or one string separated by commas,
    semicolons or spaces. Sorted, without duplicates or empty names."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        items: Iterable[Any] = _SPLIT.split(raw)
    elif isinstance(raw, Iterable):
        items = raw
    else:
        items = [raw]
    return tuple(sorted({str(g).strip() for g in items if str(g).strip()}))


def _claim(claims: Mapping[str, Any], name: str) -> Any:
    """A claim by name; a dotted name that is no claim of its own walks nested claims
    (Keycloak's ``realm_access.roles``)."""
    if name in claims or "." not in name:
        return claims.get(name)
    value: Any = claims
    for part in name.split("."):
        value = value.get(part) if isinstance(value, Mapping) else None
    return value


def viewer_from_claims(claims: Mapping[str, Any] | None, *, groups_claim: str, admin_group: str) -> Viewer:
    """A viewer from ``st.user`` (the claims of the OIDC ID token); anonymous when not signed in."""
    if not claims or not claims.get("is_logged_in"):
        return anonymous("oidc")
    email = str(claims.get("email") or "")
    name = str(claims.get("name") or claims.get("preferred_username") or email or claims.get("sub") or "")
    groups = parse_groups(_claim(claims, groups_claim))
    return Viewer(mode="oidc", name=name, email=email, groups=groups, is_admin=admin_group in groups,
                  signed_in=bool(name))


def viewer_from_headers(headers: Iterable[tuple[str, str]], auth: AuthSettings) -> Viewer:
    """A viewer from the trusted proxy's headers, given as ``(name, value)`` pairs (every value,
    so a header sent twice is seen). Anonymous unless the secret header matches
    ``auth.proxy_secret`` (compared in constant time) and the user header holds exactly one value."""
    values: dict[str, list[str]] = {}
    for k, v in headers:
        values.setdefault(k.lower(), []).append(v)
    secret = values.get(auth.secret_header.lower(), [])
    expected = (auth.proxy_secret or "").encode()
    if not expected or len(secret) != 1 or not hmac.compare_digest(secret[0].encode(), expected):
        return anonymous("proxy", f"no trusted proxy identity (header {auth.secret_header} missing or wrong)")
    users = [u.strip() for u in values.get(auth.user_header.lower(), []) if u.strip()]
    if len(users) != 1:
        return anonymous("proxy", f"the proxy sent {len(users)} values of {auth.user_header}; expected one")
    groups = parse_groups(",".join(values.get(auth.groups_header.lower(), [])))
    return Viewer(mode="proxy", name=users[0], email=users[0] if "@" in users[0] else "", groups=groups,
                  is_admin=auth.admin_group in groups, signed_in=True)


# -- the decision ---------------------------------------------------------------------------------


def visible_groups(viewer: Viewer) -> list[str] | None:
    """The ``Filters.groups`` of every query the viewer makes: ``None`` (unrestricted) only for the
    local operator and admins; else the viewer's groups, ``[]`` meaning public documents only."""
    if viewer.unrestricted:
        return None
    return list(viewer.groups) if viewer.signed_in else []


def combine(asked: list[str] | None, allowed: list[str] | None) -> list[str] | None:
    """Groups a query may use: what the caller asked for, narrowed to what the viewer has."""
    if allowed is None:
        return asked
    if asked is None:
        return list(allowed)
    return sorted(set(asked) & set(allowed))


def filters_for(viewer: Viewer, base: Filters | None = None) -> Filters:
    """``base`` (the caller's corpus, document and kind filters) with the viewer's groups: the
    filter every store query of the viewer carries."""
    base = base or Filters()
    return base.model_copy(update={"groups": combine(base.groups, visible_groups(viewer))})


def readable(doc: Document, groups: Sequence[str] | None) -> bool:
    """Whether a query with ``Filters.groups`` = ``groups`` sees ``doc``: ``None`` sees everything, else public
    documents (no groups) and those sharing one of ``groups``."""
    return groups is None or not doc.groups or bool(set(doc.groups) & set(groups))


def may_see(viewer: Viewer, doc: Document) -> bool:
    return readable(doc, visible_groups(viewer))


def require_admin(viewer: Viewer, what: str) -> None:
    """Ingest, upload and delete: the local operator and admins only."""
    if not viewer.unrestricted:
        raise AccessDenied(f"{what} needs the admin role: ask an administrator to add you to the admin group "
                           "(ANCHOR_AUTH_ADMIN_GROUP), or use the command line on the server")


# -- saved reports --------------------------------------------------------------------------------


def run_access(viewer: Viewer) -> list[str] | None:
    """The access context saved with a run: the groups it ran with (``None``: unrestricted)."""
    return visible_groups(viewer)


def may_open_run(viewer: Viewer, ran_with: list[str] | None) -> bool:
    """A saved run may be listed and opened by a viewer whose groups include every group the run
    ran with. The run could only retrieve public documents and those of its groups, so such a
    viewer may see every text it quotes; a run made unrestricted (``None``, or saved before runs
    recorded their access) opens for unrestricted viewers only."""
    mine = visible_groups(viewer)
    if mine is None:
        return True
    return ran_with is not None and set(ran_with) <= set(mine)


def reviewer_name(viewer: Viewer) -> str:
    """The name stored on a reviewer's mark: the signed-in identity (free text only in local mode)."""
    if viewer.mode == "local":
        return viewer.name
    if not viewer.signed_in:
        raise AccessDenied("sign in first: every mark is stored with who made it")
    if viewer.email and viewer.name and viewer.name != viewer.email:
        return f"{viewer.name} <{viewer.email}>"
    return viewer.email or viewer.name


def save_run(reports: Any, viewer: Viewer, report: Any, **kw: Any) -> Any:
    """Save an ask or verify run with the viewer's access context; the saved run."""
    run = reports.save(report, **kw)
    reports.set_access(run.id, run_access(viewer), viewer.label)
    return run


def import_run(reports: Any, viewer: Viewer, run: Any) -> Any:
    """Import an exported run as the importer's: it opens for whoever may see what the importer
    sees (an export carries no trusted access context of its own). Anonymous visitors may not
    import: a run planted by nobody in particular would be listed for everyone."""
    if not viewer.signed_in and viewer.mode != "local":
        raise AccessDenied("sign in first to import a report: an imported run is saved under your name")
    saved = reports.import_run(run)
    reports.set_access(saved.id, run_access(viewer), viewer.label)
    return saved


def visible_runs(reports: Any, viewer: Viewer, summaries: list[Any]) -> list[Any]:
    """The summaries (anything with ``.id``) of runs ``viewer`` may open."""
    if viewer.unrestricted:
        return summaries
    ctx = reports.access([s.id for s in summaries])
    return [s for s in summaries if s.id in ctx and may_open_run(viewer, ctx[s.id])]


def open_run(reports: Any, viewer: Viewer, run_id: str) -> Any:
    """The saved run, if ``viewer`` may open it; else the same "no saved run" error as for a
    missing one (whether a hidden run exists is not the viewer's to know)."""
    from anchor_core.reports import RunNotFound

    if not viewer.unrestricted:
        ctx = reports.access([run_id])
        if run_id not in ctx or not may_open_run(viewer, ctx[run_id]):
            raise RunNotFound(f"no saved run {run_id!r} that you may open; pick one from the list")
    return reports.get(run_id)


# -- the store, as one viewer sees it -------------------------------------------------------------


@dataclass
class _Visible:
    documents: frozenset[str]
    units: frozenset[str]
    info: CorpusInfo | None = None
    """The corpus record with the viewer's counts, filled on first use."""


_VISIBLE: dict[tuple, _Visible] = {}
"""Per (store, corpus, version, groups): reused across page runs, since working it out reads every
document and unit id of the corpus."""


class ScopedStore:
    """A :class:`~anchor_core.stores.base.Store` as ``viewer`` sees it.

    Every read is narrowed to the viewer's documents: searches and chunk lookups get the viewer's
    group filter (inside the store, before ranking), and reads by id (chunks, units, documents,
    unit ids, references, vectors) drop what belongs to a document the viewer may not see, so a
    reference hop cannot reach, or name, a unit of another group. Writes need the admin role.
    An unrestricted viewer gets the store's own answers. Make one per page run (it remembers which
    corpus versions it has seen); what a set of groups may see of a corpus version is shared
    between runs."""

    _PASS = ("path", "url", "es_url", "server_rrf", "close", "health_check")

    def __init__(self, store: Any, viewer: Viewer) -> None:
        self.inner = store
        self.viewer = viewer
        self._groups = visible_groups(viewer)
        self._seen: dict[str, _Visible] = {}

    def __getattr__(self, name: str) -> Any:
        if name in self._PASS:
            return getattr(self.inner, name)
        if name in ("search_hybrid", "search_fused") and hasattr(self.inner, name):
            fn = getattr(self.inner, name)

            def scoped(corpus, terms, vector, k, filters, **kw):
                return fn(corpus, terms, vector, k, self._filters(filters), **kw)

            return scoped
        raise AttributeError(name)

    @property
    def restricted(self) -> bool:
        return self._groups is not None

    def _filters(self, filters: Filters | None) -> Filters:
        return filters_for(self.viewer, filters)

    def _visible(self, corpus: str) -> _Visible:
        """What of ``corpus`` the viewer's groups may see, worked out once per corpus version and
        set of groups (a new ingest is a new version, so nothing stale is ever used)."""
        if corpus not in self._seen:
            version = self.inner.corpus(corpus).version
            key = (id(self.inner), corpus, version, tuple(self._groups or ()))
            seen = _VISIBLE.get(key)
            if seen is None:
                docs = frozenset(d.doc_id for d in self.inner.documents(corpus) if may_see(self.viewer, d))
                units = frozenset(self.inner.unit_ids(corpus, sorted(docs))) if docs else frozenset()
                seen = _Visible(docs, units)
                if len(_VISIBLE) >= 256:
                    _VISIBLE.clear()
                _VISIBLE[key] = seen
            self._seen[corpus] = seen
        return self._seen[corpus]

    def visible_documents(self, corpus: str) -> frozenset[str]:
        return self._visible(corpus).documents

    def _visible_units(self, corpus: str) -> frozenset[str]:
        return self._visible(corpus).units

    # -- writes --------------------------------------------------------------------------------

    def replace_corpus(self, info: CorpusInfo, *args, **kw) -> None:
        require_admin(self.viewer, "Ingesting a corpus")
        self.inner.replace_corpus(info, *args, **kw)

    def replace_documents(self, info: CorpusInfo, *args, **kw) -> None:
        require_admin(self.viewer, "Adding or deleting documents")
        self.inner.replace_documents(info, *args, **kw)

    def delete_corpus(self, name: str) -> None:
        require_admin(self.viewer, "Deleting a corpus")
        self.inner.delete_corpus(name)

    # -- corpora -------------------------------------------------------------------------------

    def _scoped_info(self, info: CorpusInfo) -> CorpusInfo | None:
        """The corpus record with the viewer's counts (the totals would tell how much is hidden)."""
        if not self.restricted:
            return info
        seen = self._visible(info.name)
        if not seen.documents:
            return None
        if seen.info is None or seen.info.version != info.version:
            units = sorted(seen.units)
            chunks = self.inner.units_chunks(info.name, units, self._filters(None)) if units else {}
            refs = self.references(info.name)
            resolved = sum(r.resolved for r in refs)
            seen.info = info.model_copy(update={
                "documents": len(seen.documents), "units": len(units), "chunks": sum(len(c) for c in chunks.values()),
                "references": resolved, "unresolved": len(refs) - resolved})
        return seen.info

    def corpora(self) -> list[CorpusInfo]:
        return [s for s in (self._scoped_info(c) for c in self.inner.corpora()) if s is not None]

    def corpus(self, name: str) -> CorpusInfo:
        info = self._scoped_info(self.inner.corpus(name))
        if info is None:
            names = ", ".join(c.name for c in self.corpora()) or "none"
            raise CorpusNotFound(f"no corpus {name!r} with documents you may read; your corpora: {names}")
        return info

    # -- searches ------------------------------------------------------------------------------

    def search_bm25(self, corpus: str, terms: list[str], k: int, filters: Filters) -> list[tuple[str, float]]:
        return self.inner.search_bm25(corpus, terms, k, self._filters(filters))

    def search_vector(self, corpus: str, vector: np.ndarray, k: int, filters: Filters) -> list[tuple[str, float]]:
        return self.inner.search_vector(corpus, vector, k, self._filters(filters))

    def known_terms(self, corpus: str, terms: list[str], filters: Filters) -> set[str]:
        return self.inner.known_terms(corpus, terms, self._filters(filters))

    # -- reads by id ---------------------------------------------------------------------------

    def _only_visible(self, corpus: str, found: dict[str, Any]) -> dict[str, Any]:
        """``found`` (id → chunk or unit) without what lies in a document the viewer may not read."""
        if not self.restricted:
            return found
        docs = self.visible_documents(corpus)
        return {k: x for k, x in found.items() if x.doc_id in docs}

    def get_chunks(self, corpus: str, chunk_ids: list[str]) -> dict[str, Chunk]:
        return self._only_visible(corpus, self.inner.get_chunks(corpus, chunk_ids))

    def unit_chunks(self, corpus: str, unit_id: str, filters: Filters) -> list[Chunk]:
        return self.units_chunks(corpus, [unit_id], filters)[unit_id]

    def units_chunks(self, corpus: str, unit_ids: list[str], filters: Filters) -> dict[str, list[Chunk]]:
        found = self.inner.units_chunks(corpus, unit_ids, self._filters(filters))
        if not self.restricted:
            return found
        docs = self.visible_documents(corpus)  # the store filtered already; a second lock costs nothing
        return {u: [c for c in cs if c.doc_id in docs] for u, cs in found.items()}

    def get_units(self, corpus: str, unit_ids: list[str]) -> dict[str, Unit]:
        return self._only_visible(corpus, self.inner.get_units(corpus, unit_ids))

    def unit_ids(self, corpus: str, documents: list[str] | None = None) -> list[str]:
        if not self.restricted:
            return self.inner.unit_ids(corpus, documents)
        docs = self.visible_documents(corpus)
        wanted = sorted(docs if documents is None else docs & set(documents))
        return self.inner.unit_ids(corpus, wanted) if wanted else []

    def documents(self, corpus: str, doc_ids: Sequence[str] | None = None) -> list[Document]:
        found = self.inner.documents(corpus, doc_ids)
        return found if not self.restricted else [d for d in found if may_see(self.viewer, d)]

    def _refs(self, corpus: str, refs: list[Reference]) -> list[Reference]:
        if not self.restricted:
            return refs
        units = self._visible_units(corpus)
        return [r for r in refs if r.src_unit in units and r.dst_unit in units]

    def references_from(self, corpus: str, unit_ids: list[str], *, unresolved: bool = False) -> list[Reference]:
        refs = self.inner.references_from(corpus, unit_ids, unresolved=unresolved)
        if not self.restricted:
            return refs
        units = self._visible_units(corpus)
        return [r for r in refs if r.src_unit in units and (r.dst_unit is None and unresolved or r.dst_unit in units)]

    def units_with_words(self, corpus: str, words: list[str]) -> list[str]:
        found = self.inner.units_with_words(corpus, words)
        if not self.restricted:
            return found
        units = self._visible_units(corpus)
        return [u for u in found if u in units]

    def references_to(self, corpus: str, unit_ids: list[str]) -> list[Reference]:
        return self._refs(corpus, self.inner.references_to(corpus, unit_ids))

    def references(self, corpus: str) -> list[Reference]:
        refs = self.inner.references(corpus)
        if not self.restricted:
            return refs
        units = self._visible_units(corpus)
        # A reference out of a visible unit into a hidden one stays (its words are in the visible
        # text) but loses its target: where it points is not the viewer's to know.
        return [r if r.dst_unit is None or r.dst_unit in units else
                r.model_copy(update={"dst_unit": None, "dst_part": None, "resolved": False})
                for r in refs if r.src_unit in units]

    def chunk_vectors(self, corpus: str, chunk_ids: list[str]) -> np.ndarray:
        vectors = self.inner.chunk_vectors(corpus, chunk_ids)
        if not self.restricted or not len(chunk_ids):
            return vectors
        allowed = set(self.get_chunks(corpus, chunk_ids))
        keep = np.array([cid in allowed for cid in chunk_ids])
        return np.where(keep[:, None], vectors, 0).astype(vectors.dtype)


def scoped(store: Any, viewer: Viewer) -> ScopedStore:
    """``store`` as ``viewer`` sees it (see :class:`ScopedStore`)."""
    return ScopedStore(store.inner if isinstance(store, ScopedStore) else store, viewer)
