"""The command reference (docs/reference/*.md) lists exactly what the argument parser accepts, and
the manual's navigation reaches every page of it."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
import yaml

from audit.cli import COMMANDS

REPO = Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("gen_reference", REPO / "docs" / "gen_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("gen_reference", module)
    spec.loader.exec_module(module)
    return module


gen = _generator()


@pytest.fixture(scope="module")
def pages():
    return gen.pages()


@pytest.mark.parametrize(
    "page", [*(f"reference/{gen.page_name(c)}" for c in COMMANDS), "reference/index.md", "output-and-exit-codes.md"]
)
def test_generated_page_matches_the_parser(page, pages):
    """Regenerate with ``python docs/gen_reference.py`` when this fails: an option was added,
    removed or reworded, and the page still shows the old one."""
    path = REPO / "docs" / page
    assert path.exists() and path.read_text(encoding="utf-8") == pages[path], (
        f"docs/{page} differs from the parser: run `python docs/gen_reference.py` and commit the page"
    )


def test_every_reference_page_is_in_the_navigation_and_nothing_else_is_there():
    nav = yaml.safe_load((REPO / "mkdocs.yml").read_text(encoding="utf-8"))["nav"]
    (reference,) = [entry["Command reference"] for entry in nav if "Command reference" in entry]
    listed = [e if isinstance(e, str) else next(iter(e.values())) for e in reference]
    expected = ["reference/index.md", *(f"reference/{gen.page_name(c)}" for c in COMMANDS)]
    assert listed == expected, "mkdocs.yml's Command reference lists the pages in audit.cli.COMMANDS order"
    assert sorted(p.name for p in (REPO / "docs" / "reference").iterdir()) == sorted(Path(p).name for p in listed)


def test_regenerating_a_stale_page_gives_back_the_parsers_options():
    page = (REPO / "docs" / "reference" / "diff.md").read_text(encoding="utf-8")
    assert "`--format`" in page
    assert gen.updated("reference/diff.md", gen.generated("diff"), page.replace("`--format`", "`--formats`")) == page


def test_what_is_written_around_the_generated_part_is_kept():
    part = gen.generated("diff")
    page = f"# agy-audit diff\n\nBefore.\n\n{gen.BEGIN}\nstale\n{gen.END}\n\nAfter: an example.\n"
    assert gen.updated("reference/diff.md", part, page) == f"# agy-audit diff\n\nBefore.\n\n{part}\n\nAfter: an example.\n"


def test_a_page_without_the_marks_is_refused():
    with pytest.raises(ValueError, match=r"docs/reference/diff\.md: the generated part's marks are missing"):
        gen.updated("reference/diff.md", gen.generated("diff"), "# agy-audit diff\n\nhand-written only\n")


def test_the_generated_part_of_a_nested_command():
    part = gen.generated("stores")
    assert "## `agy-audit stores show`" in part
    assert "```text\nagy-audit stores show" in part


def test_the_formats_table_lists_each_command_and_sub_command_with_a_format_option():
    part = gen.generated_formats()
    assert "| [`links check`](reference/links.md) | `text`, `json`, `dot` |" in part
    assert "| [`export`](reference/export.md) | `json`, `md` |" in part
    assert "`links`]" not in part  # links takes no --format itself


@pytest.mark.parametrize(
    ("text", "markdown"),
    [
        ("one <uuid>.pb | two", "one &lt;uuid&gt;.pb \\| two"),
        ("see `agy-audit consumers <x>` and a_b*", "see `agy-audit consumers <x>` and a\\_b\\*"),
        ("a lone ` backtick_", "a lone \\` backtick\\_"),
        ("wrapped\n   over lines", "wrapped over lines"),
    ],
)
def test_help_text_is_escaped_outside_code_spans(text, markdown):
    assert gen._escape(text) == markdown
