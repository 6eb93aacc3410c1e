"""``ast.parse`` for the tests that read the repo's own source.

CPython 3.11 keeps the AST constructor's recursion counter in state that every thread shares
(python/cpython#106905): when another thread of the test process builds an AST at the same moment
(a Streamlit script thread left by an app test compiles its page), ``ast.parse`` can fail with
``SystemError: AST constructor recursion depth mismatch`` although the source is fine. The
failure is transient, so the parse is tried again; any other error, or the same one every time,
is raised.
"""

from __future__ import annotations

import ast
import time

TRIES = 5


def parse(source: str, filename: str = "<unknown>") -> ast.Module:
    for attempt in range(TRIES):
        try:
            return ast.parse(source, filename=filename)
        except SystemError as e:
            if "recursion depth mismatch" not in str(e) or attempt == TRIES - 1:
                raise
            time.sleep(0.05 * (attempt + 1))
    raise AssertionError("unreachable")
