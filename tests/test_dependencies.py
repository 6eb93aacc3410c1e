"""The repo's declared dependencies cover every import, so a fresh virtualenv built from
requirements.txt and pyproject.toml runs everything (a package installed by hand on one machine
must not be what makes the suite pass).

- every third-party import in the package, the app, the tests, eval and bench belongs to a
  distribution that pyproject.toml declares (runtime or an extra) and requirements.txt pins;
- the library and the app import only runtime dependencies at module level (extras load lazily,
  inside the function that needs them);
- an import of something not declared at all (an optional comparison such as pysbd) must be
  guarded: inside ``try: ... except ImportError`` or ``pytest.importorskip``;
- pyproject's ranges and requirements.txt's pins name the same distributions, and each pin
  satisfies its range.
"""

from __future__ import annotations

import ast
import functools
import importlib.metadata as md
import re
import sys
import tomllib
from dataclasses import dataclass
from pathlib import Path

from packaging.requirements import Requirement
from packaging.version import Version

from tests.pyparse import parse

REPO = Path(__file__).resolve().parents[1]
SCANNED = ("anchor_core", "app", "ingest", "eval", "bench", "tests")
RUNTIME = ("anchor_core", "app", "ingest")
IMPORT_ERRORS = {"ImportError", "ModuleNotFoundError", "Exception", "BaseException"}


def canonical(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def pyproject() -> dict:
    return tomllib.loads((REPO / "pyproject.toml").read_text())


def declared() -> tuple[dict[str, Requirement], dict[str, Requirement]]:
    """(runtime, extras): the requirements pyproject declares, by canonical name."""
    project = pyproject()["project"]
    runtime = {canonical(r.name): r for r in map(Requirement, project["dependencies"])}
    extras = {canonical(r.name): r for deps in project["optional-dependencies"].values()
              for r in map(Requirement, deps) if canonical(r.name) != canonical(project["name"])}
    return runtime, extras


def pins() -> dict[str, Version]:
    out = {}
    for line in (REPO / "requirements.txt").read_text().splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            req = Requirement(line)
            (spec,) = req.specifier
            assert spec.operator == "==", f"requirements.txt must pin exactly: {line}"
            out[canonical(req.name)] = Version(spec.version)
    return out


def local_modules() -> set[str]:
    """Names importable from the checkout: top-level packages and modules, and the modules of
    the folders that are on sys.path when they run (the app's pages, the tests' helpers)."""
    names = {p.stem for p in REPO.glob("*.py")} | {p.name for p in REPO.iterdir() if (p / "__init__.py").exists()}
    for folder in ("app", "tests"):
        names |= {p.stem for p in (REPO / folder).rglob("*.py")}
        names |= {p.name for p in (REPO / folder).rglob("*") if p.is_dir()}
    return names | {"anchor_app"}


@dataclass(frozen=True)
class Import:
    module: str
    path: str
    line: int
    guarded: bool
    """Inside ``try`` with an ``except ImportError`` (or broader), or named by ``importorskip``."""
    module_level: bool
    """Runs when the file is imported (not inside a function)."""


def imports_of(source: str, path: str = "<string>") -> list[Import]:
    tree = parse(source)
    found: list[Import] = []

    def visit(node: ast.AST, guarded: bool, module_level: bool) -> None:
        if isinstance(node, ast.Import | ast.ImportFrom):
            if isinstance(node, ast.ImportFrom) and node.level:
                return
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
            for name in names:
                found.append(Import(name.split(".")[0], path, node.lineno, guarded, module_level))
        if isinstance(node, ast.Call) and getattr(node.func, "attr", getattr(node.func, "id", "")) == "importorskip":
            if node.args and isinstance(node.args[0], ast.Constant):
                found.append(Import(str(node.args[0].value).split(".")[0], path, node.lineno, True, module_level))
        if isinstance(node, ast.Try):
            catches = set()
            for handler in node.handlers:
                types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                catches |= {getattr(t, "id", getattr(t, "attr", "")) for t in types if t is not None}
                if handler.type is None:
                    catches.add("BaseException")
            body_guarded = guarded or bool(catches & IMPORT_ERRORS)
            for child in node.body:
                visit(child, body_guarded, module_level)
            for child in [*node.handlers, *node.orelse, *node.finalbody]:
                visit(child, guarded, module_level)
            return
        inner = module_level and not isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda)
        for child in ast.iter_child_nodes(node):
            visit(child, guarded, inner)

    visit(tree, False, True)
    return found


def third_party(imports: list[Import], local: set[str]) -> list[Import]:
    return [i for i in imports if i.module and i.module not in sys.stdlib_module_names and i.module not in local
            and i.module != "__future__"]


@functools.cache
def distributions() -> dict[str, list[str]]:
    return md.packages_distributions()


def problems(imports: list[Import], runtime: set[str], extras: set[str], *, in_runtime: bool) -> list[str]:
    """What is wrong with these third-party imports of one file, as messages."""
    dists = distributions()
    out = []
    for i in imports:
        owners = {canonical(d) for d in dists.get(i.module, [])}
        where = f"{i.path}:{i.line} imports {i.module}"
        if i.guarded:
            continue
        if not owners:
            out.append(f"{where}, which no installed distribution provides; declare it or guard the import")
        elif not owners & (runtime | extras):
            out.append(f"{where} ({', '.join(sorted(owners))}), which pyproject.toml does not declare")
        elif in_runtime and i.module_level and not owners & runtime:
            out.append(f"{where} at module level, but {', '.join(sorted(owners))} is only an extra; "
                       "import it inside the function that needs it")
    return out


def scanned_files() -> list[Path]:
    return [p for top in SCANNED for p in sorted((REPO / top).rglob("*.py"))]


def test_every_import_is_declared():
    runtime, extras = declared()
    local = local_modules()
    seen, errors = set(), []
    for path in scanned_files():
        rel = str(path.relative_to(REPO))
        found = third_party(imports_of(path.read_text(), rel), local)
        seen |= {i.module for i in found}
        errors += problems(found, set(runtime), set(extras), in_runtime=rel.startswith(RUNTIME))
    # The scan must have seen the imports it is meant to police, or it proves nothing.
    assert {"numpy", "pydantic", "streamlit", "pytest", "hypothesis", "torch"} <= seen
    assert not errors, "\n".join(errors)


def test_the_check_catches_what_it_should():
    runtime, extras = set(declared()[0]), set(declared()[1])
    src = ("import numpy\nimport no_such_pkg_xyz\ntry:\n    import pysbd_like_xyz\nexcept ImportError:\n"
           "    pysbd_like_xyz = None\nimport elasticsearch\ndef f():\n    import groq\n")
    found = third_party(imports_of(src, "anchor_core/x.py"), local_modules())
    msgs = problems(found, runtime, extras, in_runtime=True)
    assert any("no_such_pkg_xyz" in m for m in msgs)
    assert not any("pysbd_like_xyz" in m for m in msgs)  # guarded: optional
    assert any("elasticsearch" in m and "only an extra" in m for m in msgs)  # module level in the library
    assert not any("groq" in m for m in msgs)  # lazy import of an extra is fine
    assert not any("numpy" in m for m in msgs)
    # a dev-only package is declared (tests may use it) but never a runtime dependency
    assert problems(third_party(imports_of("import hypothesis\n", "tests/t.py"), set()), runtime, extras,
                    in_runtime=False) == []


def test_pins_and_ranges_agree():
    runtime, extras = declared()
    pinned = pins()
    for name, req in {**runtime, **extras}.items():
        assert name in pinned, f"{req} is declared in pyproject.toml but not pinned in requirements.txt"
        assert req.specifier.contains(pinned[name], prereleases=True), \
            f"requirements.txt pins {name}=={pinned[name]}, outside pyproject's {req}"
    stray = set(pinned) - set(runtime) - set(extras)
    assert not stray, f"pinned in requirements.txt but not declared in pyproject.toml: {sorted(stray)}"


def test_installed_versions_are_the_pins():
    """The environment the suite runs in is the one requirements.txt describes (CI builds it fresh)."""
    wrong = []
    for name, version in pins().items():
        try:
            installed = Version(md.version(name))
        except md.PackageNotFoundError:
            wrong.append(f"{name} is not installed (pip install -r requirements.txt)")
            continue
        if Version(installed.base_version) != Version(version.base_version):
            wrong.append(f"{name} {installed} installed, requirements.txt pins {version}")
    assert not wrong, "\n".join(wrong)


def test_package_ships_the_app_and_its_data():
    tool = pyproject()["tool"]["setuptools"]
    assert tool["package-dir"]["anchor_app"] == "app"
    assert {"anchor_app", "anchor_app.views", "anchor_core", "ingest"} <= set(tool["packages"])
    for pkg, patterns in tool["package-data"].items():
        base = REPO / tool["package-dir"].get(pkg, pkg.replace(".", "/"))
        for pattern in patterns:
            assert list(base.glob(pattern)), f"package data {pkg}:{pattern} matches no file"
    # every sub-package of the shipped packages is listed, so none is left out of a wheel
    for top, folder in (("anchor_core", "anchor_core"), ("ingest", "ingest"), ("anchor_app", "app")):
        for init in (REPO / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(REPO / folder)
            name = ".".join((top, *rel.parts)) if rel.parts else top
            assert name in tool["packages"], f"{name} is not listed in [tool.setuptools] packages"
