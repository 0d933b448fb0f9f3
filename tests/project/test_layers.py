"""The package's layering (``audit/__init__.py``): a module imports only from its own band or from
the bands before it. Every ``import`` in every module counts, including those inside functions."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "audit"
FOUNDATION = (
    "audit",
    "audit.errors",
    "audit.findings",
    "audit.safeio",
    "audit.safewrite",
    "audit.strictjson",
    "audit.display",
    "audit.csrf",
    "audit.resources",
    "audit.progress",
    "audit.clock",
)
BANDS = ("foundation", "store", "checks", "actions", "pipeline", "report", "commands", "testing")


def band(module: str) -> str:
    """The band of a module of the package (``audit.store.ids`` -> ``store``)."""
    if module in FOUNDATION:
        return "foundation"
    if module in ("audit.cli", "audit.__main__"):
        return "commands"
    second = module.split(".")[1]
    if second not in BANDS:
        raise AssertionError(f"{module}: in no band; add it to one (audit/__init__.py)")
    return second


def imported(module: str, source: str) -> list[tuple[int, str]]:
    """(line, module) of every package module *source* imports; ``from audit import x`` names ``audit.x``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found += [(node.lineno, a.name) for a in node.names if a.name.split(".")[0] == "audit"]
        elif isinstance(node, ast.ImportFrom) and node.module and node.module.split(".")[0] == "audit" and node.level == 0:
            for alias in node.names:
                candidate = f"{node.module}.{alias.name}"
                sub = PACKAGE.parent / Path(*candidate.split("."))
                is_module = sub.with_suffix(".py").is_file() or (sub / "__init__.py").is_file()
                found.append((node.lineno, candidate if is_module else node.module))
    return found


def violations(sources: dict[str, str]) -> list[str]:
    """``module:line imports target (band X may not import band Y)`` for every upward import."""
    out = []
    for module, source in sorted(sources.items()):
        rank = BANDS.index(band(module))
        for line, target in imported(module, source):
            if BANDS.index(band(target)) > rank:
                out.append(f"{module}:{line} imports {target} (band {band(module)} may not import band {band(target)})")
    return out


def package_sources() -> dict[str, str]:
    sources = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        sources[name] = path.read_text(encoding="utf-8")
    return sources


def test_every_import_goes_down_the_bands():
    assert violations(package_sources()) == []


def test_every_band_says_what_lives_there_and_what_it_may_import():
    for name in BANDS[1:6]:
        doc = ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text()))
        assert doc and "May import" in doc, name


@pytest.mark.parametrize(
    ("module", "line", "expected"),
    [
        ("audit.store.ids", "from audit.checks import links", "band store may not import band checks"),
        ("audit.checks.links", "from audit.actions.link_writer import apply", "band checks may not import band actions"),
        ("audit.report.text", "import audit.commands.common", "band report may not import band commands"),
        ("audit.safeio", "from audit.store import layout", "band foundation may not import band store"),
        ("audit.pipeline.ci", "from audit.testing import StoreBuilder", "band pipeline may not import band testing"),
    ],
)
def test_an_upward_import_is_caught(module, line, expected):
    sources = package_sources()
    sources[module] += f"\n\ndef late():\n    {line}\n"
    found = violations(sources)
    assert len(found) == 1 and found[0].startswith(f"{module}:") and found[0].endswith(f"({expected})")


def _named_in(doc: str) -> set[str]:
    return set(re.findall(r"``(?:audit\.)?(?:[a-z_]+\.)?([a-z_][a-z0-9_]*)(?:/)?``", doc))


@pytest.mark.parametrize("name", [*BANDS[1:7], "foundation"])
def test_every_band_docstring_names_each_of_its_modules(name):
    """The map of the package is its band docstrings: a module none names is one a reader cannot find."""
    if name == "foundation":
        doc = ast.get_docstring(ast.parse((PACKAGE / "__init__.py").read_text())) or ""
        modules = {m.split(".")[1] for m in FOUNDATION[1:]} | {"cli", "__main__"}
        named = set(re.findall(r"[a-z_]+", doc.split("::", 1)[1].split("store/", 1)[0])) | {"cli", "__main__"}
        named |= _named_in(doc)
    else:
        directory = PACKAGE / name
        doc = ast.get_docstring(ast.parse((directory / "__init__.py").read_text())) or ""
        modules = {p.stem for p in directory.glob("*.py") if p.stem != "__init__" and not p.stem.startswith("_")}
        modules |= {p.parent.name for p in directory.glob("*/__init__.py")}
        named = _named_in(doc)
    assert sorted(modules - named) == [], f"audit/{name}: modules its docstring does not name"
