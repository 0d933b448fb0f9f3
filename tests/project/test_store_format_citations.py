"""What the code, the tests and the documents cite about agy's format is in the repository:
docs/store-format.md, each cited section of it present, and no citation of a document outside."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PAGE = REPO / "docs" / "store-format.md"
SEARCHED = ("audit", "tests", "docs", "schemas", "fingerprints", "consumers", "examples", "bench")
SUFFIXES = {".py", ".proto", ".md", ".json", ".yml", ".yaml", ".toml"}
CITATION = re.compile(r"(?:docs/store-format\.md|\bSF )\s?#([a-z][a-z-]*)((?:, #[a-z][a-z-]*)*)")
OUTSIDE = re.compile(r"real-stores(?:\.md)?\b|\bformats\.md\b|\bagy-reader\.md\b|\bRS §|\bissue 16\b")


def _texts():
    paths = [REPO / "README.md", REPO / "COMPATIBILITY.md", REPO / "CONTRIBUTING.md", REPO / "CHANGELOG.md"]
    for top in SEARCHED:
        paths += [p for p in (REPO / top).rglob("*") if p.suffix in SUFFIXES and p.is_file()]
    for path in paths:
        if path != Path(__file__).resolve():  # this file names the patterns it looks for
            yield path.relative_to(REPO).as_posix(), path.read_text(encoding="utf-8", errors="replace")


def test_every_cited_section_of_the_store_format_page_exists():
    anchors = set(re.findall(r"\{#([a-z][a-z-]*)\}", PAGE.read_text(encoding="utf-8")))
    cited = {}
    for name, text in _texts():
        for first, more in CITATION.findall(text):
            for anchor in [first, *re.findall(r"#([a-z][a-z-]*)", more)]:
                cited.setdefault(anchor, name)
    assert len(cited) >= 15
    assert {a: n for a, n in cited.items() if a not in anchors} == {}


def test_nothing_cites_a_document_outside_the_repository():
    found = [f"{name}: {m[0]}" for name, text in _texts() for m in OUTSIDE.finditer(text)]
    assert found == []
