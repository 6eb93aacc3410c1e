"""Hostile text on the dashboard: a crafted export imported on Reports, a crafted answer and source on
Verify. Every Markdown element shows it as text (no image, link or tag) and no script carries data."""

from __future__ import annotations

import re

from anchor_core import render
from anchor_core.reports import ReportStore
from app.style import LAYOUT_CSS
from tests import app_support as A
from tests.payloads import HOSTILE, IMAGE, RUN_ID, SCRIPT, hostile_ask_report, live_markup

MARKDOWN_KINDS = ("markdown", "caption", "info", "warning", "error", "success", "title", "subheader", "header")
HTML_TAGS = {"div", "mark", "script", "del", "ins"}  # del/ins: a re-check's word diff


def markdown_pieces(at) -> list[str]:
    """Every string the page hands to Streamlit's Markdown renderer: elements, their tooltips, radio options,
    expander labels."""
    out = [str(e.value) for kind in MARKDOWN_KINDS for e in getattr(at, kind)]
    out += [str(o) for r in at.radio for o in r.options]
    out += [e.label for e in at.expander]
    out += [str(v) for t in at.table for v in t.value.to_numpy().ravel()]  # st.table cells are Markdown
    out += [e.proto.help for kind in MARKDOWN_KINDS for e in getattr(at, kind)  # tooltips are Markdown too
            if getattr(e.proto, "help", "")]
    return out


def assert_inert(at) -> None:
    A.no_traceback(at)
    pieces = markdown_pieces(at)
    assert pieces
    live = {p: live_markup(p) for p in pieces if live_markup(p)}
    assert not live, live
    for h in at.get("html"):
        if h.value == LAYOUT_CSS:  # the dashboard's constant layout CSS, no data
            continue
        if h.proto.unsafe_allow_javascript:  # only the constant scroll script may run, and it holds no data
            assert h.value.startswith("<script>") and h.value.count("<script>") == 1
            assert not any(w in h.value for w in ("evil", "pwned", "title", "onerror", "javascript:"))
        else:
            assert set(re.findall(r"<([A-Za-z][A-Za-z0-9]*)", h.value)) <= HTML_TAGS - {"script"}, h.value


def test_a_crafted_export_imported_on_reports_is_shown_as_text(tmp_path):
    crafted = ReportStore(tmp_path / "elsewhere.db")
    run = crafted.save(hostile_ask_report(), run_id=RUN_ID)
    crafted.review(run.id, 1, "needs_work", reviewer=f"Eve {IMAGE}", comment=f"see {HOSTILE}")
    data = render.export(crafted.get(run.id), "html")
    at = A.app("views/reports.py")
    at.file_uploader(key="rep_import").set_value(("crafted.html", data, "text/html"))
    at.run()
    A.button(at, "Import").click()
    at.run()
    assert_inert(at)
    rs = ReportStore(A.home() / "reports.db")
    (summary,) = rs.list()
    imported = rs.get(summary.id)
    assert re.fullmatch(r"[A-Za-z0-9_-]+", imported.id)  # an id that is not plain is replaced on import
    assert imported.question == f"How long? {SCRIPT}" and imported.reviews[0].comment == f"see {HOSTILE}"
    shown = "\n".join(markdown_pieces(at))
    assert r"How long? &lt;script&gt;document.title='x'&lt;/script&gt;" in shown
    assert r"Providers keep logs \!\[x\]\(http://evil.example/p.png\)" in shown
    quote = next(h.value for h in at.get("html") if "<mark" in h.value)
    assert "&lt;img src=x onerror=alert(1)&gt;" in quote


def test_a_run_with_a_crafted_id_renders_inert():
    rs = ReportStore(A.home() / "reports.db")
    run = rs.save(hostile_ask_report(), run_id=RUN_ID)
    rs.review(run.id, 1, "needs_work", reviewer=f"Eve {IMAGE}", comment=f"see {HOSTILE}")
    at = A.app("views/reports.py")
    assert at.selectbox(key="rep_open").value == RUN_ID
    assert_inert(at)
    assert any(RUN_ID in p for p in markdown_pieces(at))  # shown, as a code span
    assert any(r"Eve \!\[x\]" in p for p in markdown_pieces(at))  # the review history, as text


def test_a_crafted_answer_and_source_on_verify_are_shown_as_text():
    source = f"Providers shall keep logs {HOSTILE} for six months. Deployers shall inform the users."
    answer = (f'Providers shall keep logs {IMAGE} for six months.<cite id="art12"/> '
              f"Deployers shall inform the users {SCRIPT} at once.")
    at = A.app("views/verify.py")
    at.text_area(key="verify_answer").input(answer)
    at.file_uploader(key="verify_source_files").set_value([("art12.txt", source.encode(), "text/plain")])
    at.toggle(key="verify_semantic").set_value(False)
    at.run()
    A.button(at, "Verify").click()
    at.run()
    assert_inert(at)
    run = ReportStore(A.home() / "reports.db").get(at.session_state["verify_run"])
    assert IMAGE in run.claims[0].text  # the record keeps the exact text; only rendering escapes it
    at.switch_page("views/reports.py").run()
    assert_inert(at)
    assert r"\!\[x\]\(http://evil.example/p.png\)" in "\n".join(markdown_pieces(at))
