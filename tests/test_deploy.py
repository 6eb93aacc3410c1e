"""Deployment files: .env.example documents every variable and parses; compose and Dockerfile
hold what the README promises. (Docker itself cannot run on the build machines.)"""

import re
from pathlib import Path

import pytest

from anchor_core.config import Settings

REPO = Path(__file__).resolve().parents[1]


def _env_example() -> dict[str, str]:
    lines = (REPO / ".env.example").read_text().splitlines()
    return dict(line.split("=", 1) for line in lines if line and not line.startswith("#"))


def test_env_example_documents_every_variable_the_code_reads():
    documented = set(_env_example())
    read = set()
    for pkg in ("anchor_core", "ingest", "app"):
        for path in (REPO / pkg).rglob("*.py"):
            read |= set(re.findall(r"""["']((?:ANCHOR|GROQ)_[A-Z_]+)["']""", path.read_text()))
    assert read, "the pattern found no variables: the test would prove nothing"
    assert read <= documented, f"undocumented: {sorted(read - documented)}"


def test_env_example_values_are_valid_settings():
    s = Settings.from_env(_env_example())
    e = s.elasticsearch
    assert (s.store, e.verify_certs, e.prefix, e.server_rrf) == ("sqlite", True, "anchor", False)
    es = Settings.from_env({**_env_example(), "ANCHOR_STORE": "elasticsearch"})
    assert es.elasticsearch.url == "http://localhost:9200" and es.elasticsearch.api_key is None


def test_compose_runs_es9_locally_then_ingest_then_dashboard():
    yaml = pytest.importorskip("yaml")
    compose = yaml.safe_load((REPO / "docker-compose.yml").read_text())
    es = compose["services"]["elasticsearch"]
    assert re.search(r":\$\{ES_VERSION:-9\.\d+\.\d+\}$", es["image"])
    env = es["environment"]
    assert env["discovery.type"] == "single-node" and env["xpack.security.enabled"] == "false"
    assert env["ES_JAVA_OPTS"] == "-Xms1g -Xmx1g"
    assert all(p.startswith("127.0.0.1:") for s in compose["services"].values() for p in s.get("ports", []))
    assert "healthcheck" in es and any(v.startswith("es-data:") for v in es["volumes"])
    ingest, dash = compose["services"]["ingest"], compose["services"]["dashboard"]
    assert ingest["command"][:3] == ["anchor", "ingest", "aiact"]
    assert ingest["depends_on"]["elasticsearch"]["condition"] == "service_healthy"
    assert dash["depends_on"]["ingest"]["condition"] == "service_completed_successfully"
    for svc in (ingest, dash):
        assert svc["build"] == "." and svc["environment"]["ANCHOR_STORE"] == "elasticsearch"
        assert svc["environment"]["ANCHOR_ES_URL"] == "http://elasticsearch:9200"


def test_dockerfile_starts_the_dashboard_that_exists():
    cmd = re.search(r"^CMD (.+)$", (REPO / "Dockerfile").read_text(), re.M).group(1)
    if "dashboard" in cmd.split(",")[1]:
        from anchor_core.cli import build_parser

        assert "dashboard" in build_parser()._subparsers._group_actions[0].choices
    else:
        script = re.search(r'"(app/[^"]+\.py)"', cmd).group(1)
        assert (REPO / script).is_file(), f"Dockerfile runs {script}, which does not exist"


def test_the_dashboard_runs_its_pages_without_streamlit_magic():
    """The pages show everything through st.*; with magic off Streamlit compiles them from source
    instead of rewriting their syntax tree (which CPython 3.11.5-3.11.7 can fail at random)."""
    import tomllib

    from tests.conftest import REPO

    cfg = tomllib.loads((REPO / "app" / ".streamlit" / "config.toml").read_text(encoding="utf-8"))
    assert cfg["runner"]["magicEnabled"] is False
