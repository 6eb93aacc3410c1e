"""``python -m anchor_app.serve run <main.py> [streamlit flags]``: Streamlit with the dashboard's
modules imported before the server starts.

Streamlit imports a page's modules on the first script run of the process, i.e. while the first
visitor waits for the page: the app's helpers, ``anchor_core`` and their numpy / pydantic models
are ~0.4 s of that first visit on two cores (``bench.first_render``: 2.0 s → 1.55 s). Imported
here, the script runs find them in ``sys.modules``. Nothing runs but imports: no store is opened
and no setting is read until a page asks.
"""

from __future__ import annotations

import sys
from pathlib import Path


def preload() -> None:
    """Import what every page imports (the app folder is where Streamlit puts it on ``sys.path``)."""
    here = str(Path(__file__).resolve().parent)
    if here not in sys.path:
        sys.path.insert(0, here)
    import graph  # noqa: F401
    import jobs  # noqa: F401
    import resources  # noqa: F401
    import style  # noqa: F401
    import widgets  # noqa: F401

    import anchor_core.ask  # noqa: F401
    import anchor_core.retrieve  # noqa: F401
    from anchor_core import access, assessment, render, reports, workspace  # noqa: F401
    from anchor_core.scorers import scorer_help  # noqa: F401


def main(argv: list[str] | None = None) -> int:
    from streamlit.web import cli

    preload()
    sys.argv = ["streamlit", *(sys.argv[1:] if argv is None else argv)]
    return cli.main()


if __name__ == "__main__":
    raise SystemExit(main())
