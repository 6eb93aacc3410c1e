"""The reference network a person can read: the selected unit with what it cites and what cites it,
labelled, with arrows, coloured by the kind of unit and the kind named as the document names it
("Schedule", "Annex", "Section"); the whole corpus on request.

The counts on the graph and in the unit reader come from one place (:func:`links`), so a hover
never says "cites 0" beside a reference the reader lists.

Structure above the unit is shown as the document states it: the selected unit's chapter and
section (with their titles) sit above it as square nodes joined by dotted lines, and a reference
written to a container ("Chapters I and II" in Article 113 reaches Article 5 through Chapter II)
is drawn as a dotted orange arrow, apart from the grey arrows of references that name the unit.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from dataclasses import dataclass, field

import plotly.graph_objects as go

PALETTE = {"article": "#1f5fae", "annex": "#c0392b", "recital": "#8e8e8e", "section": "#16a085",
           "passage": "#7a3fb0", "file": "#d68910", "page": "#566573"}
OTHER = "#333333"
CONTAINER = "#5d6d7e"
THROUGH = "#e67e22"
"""Colour of a link made only through a container (a reference to a chapter or section)."""


def kind_names(units) -> dict[str, str]:
    """What each kind of unit is called in its document: the commonest first word of the headings
    (a unit of kind ``annex`` headed "Schedule 1" is a Schedule), else the kind itself."""
    words: dict[str, Counter] = {}
    for u in units:
        first = (u.heading or "").split()
        if first and first[0][:1].isalpha():
            words.setdefault(u.kind, Counter())[first[0].strip(".:").capitalize()] += 1
    return {k: (words[k].most_common(1)[0][0] if k in words else k.capitalize())
            for k in {u.kind for u in units}}


@dataclass
class Links:
    """Every reference written in a unit and every unit that cites it, as the reader lists them."""

    cites: dict[str, list[str]] = field(default_factory=dict)
    """Other units it cites → how the text names them (``Annex III``, ``Article 6(2)``)."""
    cited_by: dict[str, int] = field(default_factory=dict)
    """Other units that cite it → how many times."""
    within: list[str] = field(default_factory=list)
    """References to its own parts (``paragraph 1``)."""
    unresolved: list[str] = field(default_factory=list)
    """References that name no unit of the corpus (another act, a missing annex)."""
    through: dict[str, str] = field(default_factory=dict)
    """Linked units reached only through a container reference → how the text names the
    container (``Chapters I and II``), in either direction."""


def links(store, corpus: str, unit_id: str) -> Links:
    out = Links()
    direct: set[str] = set()
    for r in store.references_from(corpus, [unit_id], unresolved=True):
        if not r.resolved or not r.dst_unit:
            out.unresolved.append(r.raw)
        elif r.dst_unit == unit_id:
            out.within.append(r.raw)
        else:
            out.cites.setdefault(r.dst_unit, []).append(r.raw)
            _note(out, direct, r.dst_unit, r)
    for r in store.references_to(corpus, [unit_id]):
        if r.src_unit != unit_id:
            out.cited_by[r.src_unit] = out.cited_by.get(r.src_unit, 0) + 1
            _note(out, direct, r.src_unit, r)
    for u in direct:
        out.through.pop(u, None)
    return out


def _note(out: Links, direct: set[str], other: str, r) -> None:
    """Remember whether ``other`` is linked by a reference naming it, or only through a container."""
    if getattr(r, "container", None):
        out.through.setdefault(other, r.raw)
    else:
        direct.add(other)


def _hover(u, names: dict[str, str], cites: int, cited_by: int) -> str:
    # Plotly reads tags (<a>, <br>) in hover text: the unit's own text is escaped.
    title = html.escape((u.title or "")[:80])
    return (f"<b>{html.escape(u.heading)}</b> ({html.escape(names.get(u.kind, u.kind))})"
            + (f"<br>{title}" if title else "")
            + f"<br>cites {cites} other unit{'s' if cites != 1 else ''} · cited by {cited_by}")


def neighbourhood(center, units: dict, link: Links, names: dict[str, str], counts: dict[str, tuple[int, int]]
                  ) -> go.Figure:
    """``center`` in the middle, the units citing it on the left, the units it cites on the right,
    an arrow for each citation (citing → cited), every node labelled with its heading; the
    containers ``center`` sits in above it, and links made only through a container dotted."""
    left = [u for u in sorted(link.cited_by, key=lambda u: -link.cited_by[u]) if u in units]
    right = [u for u in sorted(link.cites) if u in units and u not in link.cited_by] + \
        [u for u in sorted(link.cites) if u in units and u in link.cited_by]
    pos = {center.unit_id: (0.0, 0.0)}

    def column(ids: list[str], x: float) -> None:
        n = len(ids)
        for i, uid in enumerate(ids):
            if uid in pos:
                continue
            y = 0.0 if n == 1 else 1.0 - 2.0 * i / (n - 1)
            pos[uid] = (x * (1 - 0.15 * math.cos(math.pi * y / 2)), y * min(1.0, 0.25 * n))

    column(left, -1.0)
    column([u for u in right if u not in pos], 1.0)
    fig = go.Figure()
    arrows = [(s, center.unit_id) for s in left] + [(center.unit_id, d) for d in link.cites if d in pos]
    through_x: list[float | None] = []
    through_y: list[float | None] = []
    for s, d in arrows:
        (x0, y0), (x1, y1) = pos[s], pos[d]
        other = d if s == center.unit_id else s
        via = other in link.through
        if via:
            through_x += [x0, x1, None]
            through_y += [y0, y1, None]
        fig.add_annotation(x=x1, y=y1, ax=x0, ay=y0, xref="x", yref="y", axref="x", ayref="y", text="",
                           showarrow=True, arrowhead=3, arrowsize=1.3, arrowwidth=1.4,
                           arrowcolor=THROUGH if via else "#7b8494", standoff=14, startstandoff=10)
    if through_x:
        fig.add_trace(go.Scatter(x=through_x, y=through_y, mode="lines", hoverinfo="skip",
                                 name="through a chapter or section",
                                 line={"width": 2, "color": THROUGH, "dash": "dot"}))
    _containers_above(fig, center, pos)
    shown = [center] + [units[u] for u in pos if u != center.unit_id]
    # the centre's name where no arrow runs: beside it when nothing is on its right, else below
    centre_text = "middle right" if not any(x > 0 for x, _ in pos.values()) else "bottom center"
    for kind in sorted({u.kind for u in shown}):
        ns = [u for u in shown if u.kind == kind]
        fig.add_trace(go.Scatter(
            x=[pos[u.unit_id][0] for u in ns], y=[pos[u.unit_id][1] for u in ns], mode="markers+text",
            name=names.get(kind, kind), text=[html.escape(u.heading) for u in ns],
            textposition=[centre_text if u.unit_id == center.unit_id else
                          ("middle left" if pos[u.unit_id][0] < 0 else "middle right") for u in ns],
            textfont={"size": [16 if u.unit_id == center.unit_id else 13 for u in ns]},
            customdata=[u.unit_id for u in ns],
            marker={"size": [26 if u.unit_id == center.unit_id else 16 for u in ns],
                    "color": PALETTE.get(kind, OTHER), "line": {"width": 2, "color": "#fff"}},
            hovertext=[_hover(u, names, *counts.get(u.unit_id, (0, 0))) for u in ns],
            hovertemplate="%{hovertext}<extra></extra>"))
    height = max(320, 60 + 42 * max(len(left), len(right), 1)) + 50 * len(getattr(center, "containers", []) or [])
    fig.update_layout(height=min(height, 900), margin={"l": 10, "r": 10, "t": 10, "b": 10},
                      xaxis={"visible": False, "range": [-1.9, 1.9]}, yaxis={"visible": False},
                      legend={"orientation": "h", "title": {"text": "kind of unit: "}}, dragmode="pan",
                      plot_bgcolor="rgba(0,0,0,0)")
    return fig


def _containers_above(fig: go.Figure, center, pos: dict[str, tuple[float, float]]) -> None:
    """The containers ``center`` sits in, outermost at the top, each joined to the next by a
    dotted line down to the unit: square nodes named with their label and title."""
    within = list(getattr(center, "containers", []) or [])
    if not within:
        return
    top = max(y for _, y in pos.values())
    step = 0.3
    ys = [top + step * (len(within) - i) for i in range(len(within))]
    fig.add_trace(go.Scatter(x=[0.0] * (len(within) + 1), y=[*ys, 0.0], mode="lines", hoverinfo="skip",
                             showlegend=False, line={"width": 1.2, "color": CONTAINER, "dash": "dot"}))
    fig.add_trace(go.Scatter(
        x=[0.0] * len(within), y=ys, mode="markers+text", name="chapter / section",
        text=[html.escape(_short(c.display)) for c in within], textposition="top center",
        textfont={"size": 13, "color": CONTAINER},
        marker={"size": 14, "symbol": "square", "color": CONTAINER, "line": {"width": 2, "color": "#fff"}},
        hovertext=[f"<b>{html.escape(c.label)}</b>" + (f"<br>{html.escape(c.title)}" if c.title else "")
                   + f"<br>{html.escape(center.heading)} sits in it" for c in within],
        hovertemplate="%{hovertext}<extra></extra>"))


def _short(text: str, width: int = 70) -> str:
    return text if len(text) <= width else text[: width - 1].rstrip() + "…"


def corpus_counts(store, corpus: str) -> dict[str, tuple[int, int]]:
    """Per unit: (other units it cites, other units citing it), over every resolved reference, the
    way :func:`links` counts them."""
    pairs = {(r.src_unit, r.dst_unit) for r in store.references(corpus)
             if r.resolved and r.dst_unit and r.dst_unit != r.src_unit}
    cites, cited = Counter(s for s, _ in pairs), Counter(d for _, d in pairs)
    return {u: (cites[u], cited[u]) for u in set(cites) | set(cited)}


def whole(graph, units: dict, names: dict[str, str], counts: dict[str, tuple[int, int]], labels: int = 12
          ) -> go.Figure:
    """The whole corpus (``workspace.corpus_graph``): lines for references, the ``labels`` most cited
    units named on the graph, every unit named on hover; links made only through a container are
    a dotted trace the legend switches on."""
    pos = {n.unit_id: (n.x, n.y) for n in graph.nodes}
    ex: list[float | None] = []
    ey: list[float | None] = []
    for s, d, _ in graph.edges:
        ex += [pos[s][0], pos[d][0], None]
        ey += [pos[s][1], pos[d][1], None]
    fig = go.Figure(go.Scatter(x=ex, y=ey, mode="lines", line={"width": 0.5, "color": "#c5ccd6"},
                               hoverinfo="skip", showlegend=False))
    tx: list[float | None] = []
    ty: list[float | None] = []
    for s, d, _ in getattr(graph, "through", []):
        tx += [pos[s][0], pos[d][0], None]
        ty += [pos[s][1], pos[d][1], None]
    if tx:  # off until asked for in the legend: a chapter reference fans out to every article in it
        fig.add_trace(go.Scatter(x=tx, y=ty, mode="lines", line={"width": 0.6, "color": THROUGH, "dash": "dot"},
                                 hoverinfo="skip", name="through a chapter or section", visible="legendonly"))
    top = {n.unit_id for n in sorted(graph.nodes, key=lambda n: -n.cited_by)[:labels]}
    for kind in sorted({n.kind for n in graph.nodes}):
        ns = [n for n in graph.nodes if n.kind == kind]
        fig.add_trace(go.Scatter(
            x=[n.x for n in ns], y=[n.y for n in ns], mode="markers+text", name=names.get(kind, kind),
            text=[html.escape(n.label) if n.unit_id in top else "" for n in ns], textposition="top center",
            textfont={"size": 11}, customdata=[n.unit_id for n in ns],
            marker={"size": [7 + 2.2 * min(n.cited_by, 12) for n in ns], "color": PALETTE.get(kind, OTHER),
                    "line": {"width": 0.5, "color": "#fff"}},
            hovertext=[_hover(units[n.unit_id], names, *counts.get(n.unit_id, (0, 0))) if n.unit_id in units
                       else html.escape(n.label) for n in ns],
            hovertemplate="%{hovertext}<extra></extra>"))
    fig.update_layout(height=560, margin={"l": 0, "r": 0, "t": 10, "b": 0}, xaxis={"visible": False},
                      yaxis={"visible": False}, legend={"orientation": "h", "title": {"text": "kind of unit: "}},
                      dragmode="pan", plot_bgcolor="rgba(0,0,0,0)")
    return fig
