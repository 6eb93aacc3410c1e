"""Loading the calibrated parameter files shipped in ``anchor_core/scorers/data``."""

from __future__ import annotations

import json
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

from anchor_core.errors import ModelMissing

DATA_DIR = Path(__file__).resolve().parent / "data"


def load_params(name: str, path: str | Path | None = None) -> dict[str, Any]:
    """The JSON parameters ``name`` from the package data, or from ``path`` when given."""
    try:
        if path is not None:
            text = Path(path).read_text(encoding="utf-8")
        else:
            text = resources.files("anchor_core.scorers").joinpath("data", name).read_text(encoding="utf-8")
    except (FileNotFoundError, NotADirectoryError) as err:
        where = path or f"anchor_core/scorers/data/{name}"
        raise ModelMissing(f"scorer parameters {where} are missing: reinstall anchor, or regenerate them with "
                           "`python -m eval.train_scorer`.") from err
    try:
        return json.loads(text)
    except json.JSONDecodeError as err:
        raise ModelMissing(f"scorer parameters {path or name} are not valid JSON ({err}); regenerate them with "
                           "`python -m eval.train_scorer`.") from err


def check_pairs(premises: Sequence[str], hypotheses: Sequence[str]) -> None:
    """Premises and hypotheses are parallel lists of strings."""
    if len(premises) != len(hypotheses):
        raise ValueError(f"premises and hypotheses must be parallel lists. Currently, there are {len(premises)} "
                         f"premises and {len(hypotheses)} hypotheses")
    for p, h in zip(premises, hypotheses):
        if not isinstance(p, str) or not isinstance(h, str):
            raise TypeError(f"premises and hypotheses must be strings, got {type(p).__name__} and {type(h).__name__}")
