"""The examples in the docstrings are run: a documented behaviour that changes fails here."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import anchor_core
import ingest


def _modules() -> list[str]:
    out = []
    for pkg in (anchor_core, ingest):
        for info in pkgutil.walk_packages(pkg.__path__, prefix=f"{pkg.__name__}."):
            out.append(info.name)
    return sorted(out)


@pytest.mark.parametrize("name", _modules())
def test_docstring_examples_hold(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0, f"{result.failed} of {result.attempted} docstring examples of {name} fail (output above)"


def test_the_docstring_examples_are_found():
    finder = doctest.DocTestFinder()
    examples = sum(len(t.examples) for n in _modules() for t in finder.find(importlib.import_module(n)))
    assert examples >= 50  # the modules document themselves with examples; a collector that finds none is broken
