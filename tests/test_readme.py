"""The README's sample sessions are what the commands print today.

Every ``$ anchor …`` line in a plain (untyped) README code block is a command; the lines after it,
up to the next ``$`` line, are what it prints. A line ``…`` ends the part that is compared (the
rest is left out on purpose). The AI Act is ingested with the real model exactly as the README
says (``anchor ingest aiact``), then each shown command runs in that workspace.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass

import pytest

from anchor_core.cli import main
from tests.conftest import REPO

README = (REPO / "README.md").read_text()
ELIDED = "…"


@dataclass(frozen=True)
class Session:
    command: str
    expected: list[str]


def plain_blocks(text: str) -> list[list[str]]:
    """The lines of each fenced code block without a language (console sessions)."""
    blocks, current, info = [], None, ""
    for line in text.splitlines():
        if line.startswith("```"):
            if current is None:
                current, info = [], line[3:].strip()
            else:
                if not info:
                    blocks.append(current)
                current = None
        elif current is not None:
            current.append(line)
    return blocks


def sessions(text: str) -> list[Session]:
    found = []
    for lines in plain_blocks(text):
        starts = [i for i, line in enumerate(lines) if line.startswith("$ ")]
        for n, i in enumerate(starts):
            end = starts[n + 1] if n + 1 < len(starts) else len(lines)
            out = lines[i + 1:end]
            if ELIDED in out:
                out = out[:out.index(ELIDED)]
            while out and not out[-1].strip():
                out.pop()
            found.append(Session(lines[i][2:], out))
    return found


SESSIONS = sessions(README)
SHOWN = [s for s in SESSIONS if s.expected and "anchor ingest" not in s.command]


def test_the_readme_shows_the_demo_sessions():
    commands = [s.command for s in SESSIONS]
    assert any(c.startswith("anchor retrieve ") for c in commands), commands
    assert sum(c.startswith("anchor ask ") for c in commands) >= 2, commands
    assert "anchor ingest aiact" in commands
    assert any(c.startswith("ANCHOR_STORE=") for c in commands)


def test_session_parser():
    text = "x\n```\n$ anchor a\none\n\n…\nhidden\n$ anchor b\ntwo\n```\n```bash\n$ anchor c\nthree\n```\n"
    assert sessions(text) == [Session("anchor a", ["one"]), Session("anchor b", ["two"])]


def run(command: str, monkeypatch, capsys) -> tuple[int, str, str]:
    words = shlex.split(command)
    while "=" in words[0]:
        name, value = words.pop(0).split("=", 1)
        monkeypatch.setenv(name, value)
    assert words[0] == "anchor", command
    capsys.readouterr()
    code = main(words[1:])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.model
def test_ingest_prints_what_the_readme_shows(aiact_minilm_home):
    (session,) = [s for s in SESSIONS if s.command == "anchor ingest aiact"]
    printed = aiact_minilm_home.stdout.replace(str(aiact_minilm_home.home), "~/.anchor")
    timing = re.compile(r" in \d+(\.\d+)?s ")  # the only part that changes from run to run
    assert [timing.sub(" in Ns ", line) for line in printed.splitlines()] == \
        [timing.sub(" in Ns ", line) for line in session.expected]


@pytest.mark.model
@pytest.mark.parametrize("session", SHOWN, ids=[s.command[:60] for s in SHOWN])
def test_command_prints_what_the_readme_shows(session, aiact_minilm_home, monkeypatch, capsys):
    monkeypatch.setenv("ANCHOR_HOME", str(aiact_minilm_home.home))
    monkeypatch.setenv("ANCHOR_EMBEDDER", "minilm")
    code, out, err = run(session.command, monkeypatch, capsys)
    shown_on = err if session.expected[0].startswith("error:") else out
    assert code == (2 if shown_on is err else 0), (out, err)
    assert shown_on.splitlines()[:len(session.expected)] == session.expected
