"""A bad setting is one line that names the variable, its value and what is allowed: exit 2 in
the CLI, a message instead of the page in the dashboard, never a traceback."""

from __future__ import annotations

import pytest

from anchor_core.cli import main
from anchor_core.config import EMBEDDERS, Settings
from anchor_core.errors import ConfigError

# (variable, bad value, a word of the allowed values the message must name)
BAD = [
    ("ANCHOR_STORE", "mongo", "sqlite, elasticsearch"),
    ("ANCHOR_EMBEDDER", "bert", "minilm, minilm-fp32, minilm-int8, hash"),
    ("ANCHOR_LLM_TIMEOUT", "abc", "a number"),
    ("ANCHOR_LLM_TIMEOUT", "-5", "at least"),
    ("ANCHOR_MAX_UPLOAD_MB", "lots", "a number"),
    ("ANCHOR_ES_TIMEOUT", "nan", "a number"),
    ("ANCHOR_ES_RETRIES", "2.5", "a whole number"),
    ("ANCHOR_ES_VERIFY_CERTS", "maybe", "true or false"),
    ("ANCHOR_ES_URL", "localhost:9200", "http://"),
    ("ANCHOR_LLM_BASE_URL", "localhost:8080/v1", "http://"),
    ("ANCHOR_ES_CA_CERTS", "{tmp}/missing-ca.pem", "readable certificate file"),
    ("ANCHOR_ES_CA_CERTS", "{tmp}", "readable certificate file"),
    ("ANCHOR_HOME", "{tmp}/a-file", "a folder"),
]
IDS = [f"{name}={value}" for name, value, _ in BAD]


@pytest.fixture
def bad_env(request, tmp_path, monkeypatch):
    name, value, allowed = request.param
    (tmp_path / "a-file").write_text("not a folder")
    value = value.format(tmp=tmp_path)
    monkeypatch.setenv(name, value)
    if name == "ANCHOR_LLM_TIMEOUT":
        monkeypatch.setenv("GROQ_API_KEY", "gsk_test")
    return name, value, allowed


@pytest.mark.parametrize("bad_env", BAD, ids=IDS, indirect=True)
def test_settings_error_names_variable_value_and_allowed(bad_env):
    name, value, allowed = bad_env
    with pytest.raises(ConfigError) as err:
        Settings.from_env()
    msg = str(err.value)
    assert "\n" not in msg
    assert msg.startswith(f"{name} is {value!r}; allowed: ")
    assert allowed in msg


@pytest.mark.parametrize("bad_env", BAD, ids=IDS, indirect=True)
@pytest.mark.parametrize("argv", [["corpora"], ["ask", "What is a provider?"], ["retrieve", "provider"]],
                         ids=["corpora", "ask", "retrieve"])
def test_cli_prints_one_line_and_exits_2(bad_env, argv, capsys):
    name, value, _ = bad_env
    assert main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.count("\n") == 1 and err.startswith(f"error: {name} is {value!r}; allowed: ")
    assert "Traceback" not in err


def test_allowed_embedders_are_the_ones_that_exist():
    from anchor_core import embeddings

    assert set(EMBEDDERS) == set(embeddings.EMBEDDERS)


def test_good_values_are_read():
    s = Settings.from_env({"ANCHOR_STORE": " Elasticsearch ", "ANCHOR_EMBEDDER": "HASH", "ANCHOR_LLM_TIMEOUT": "12.5",
                           "ANCHOR_LLM_BASE_URL": "http://localhost:8080/v1/", "ANCHOR_ES_VERIFY_CERTS": "off"})
    assert (s.store, s.embedder, s.elasticsearch.verify_certs) == ("elasticsearch", "hash", False)
    assert s.llm is not None and s.llm.timeout == 12.5 and s.llm.base_url == "http://localhost:8080/v1"


@pytest.mark.parametrize("bad_env", [BAD[0], BAD[2], BAD[10]], ids=[IDS[0], IDS[2], IDS[10]], indirect=True)
@pytest.mark.parametrize("page", [None, "views/verify.py", "views/reports.py", "views/corpora.py"])
def test_dashboard_shows_the_message_instead_of_a_traceback(bad_env, page):
    from tests.app_support import app, texts

    name, value, _ = bad_env
    at = app()
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.message for e in at.exception]
    errors = [e.value for e in at.error]
    assert any(f"{name} is {value!r}; allowed: " in e for e in errors), texts(at)


def test_reading_settings_imports_no_store_and_each_store_gets_its_own_record(tmp_path):
    import subprocess
    import sys

    code = ("import sys, anchor_core.config as c; s = c.Settings.from_env({}); "
            "print(sorted(m for m in sys.modules if m.startswith(('anchor_core.stores', 'anchor_core.ask'))))")
    assert subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.strip() \
        == "[]"
    s = Settings.from_env({"ANCHOR_HOME": str(tmp_path), "ANCHOR_ES_URL": "https://u:pw@es:9200",
                           "ANCHOR_ES_PREFIX": "team", "ANCHOR_ES_RETRIES": "0", "GROQ_API_KEY": "gk"})
    assert s.sqlite.path == tmp_path / "anchor.db" and s.store_location == str(tmp_path / "anchor.db")
    e = s.elasticsearch
    assert (e.url, e.prefix, e.retries, e.timeout) == ("https://u:pw@es:9200", "team", 0, 30.0)
    assert e.location == "Elasticsearch at https://es:9200" and "pw" not in repr(s)
    assert s.llm is not None and s.llm.provider == "groq" and "gk" not in repr(s.llm)
