"""Write the generated parts of the manual from the argument parser: each command's reference page
(docs/reference/<command>.md: synopsis and options), the reference's index, and the table of each
command's output formats (docs/output-and-exit-codes.md), so none can drift from what the commands
accept. Run from the repository root with the package importable: ``python docs/gen_reference.py``
(``--check`` only reports the pages that differ, exit 1). tests/project/test_docs_reference.py fails
when a checked-in page differs.

Each page holds the generated part between two marks; what is written around the marks (examples,
explanations) is kept as it is. A page that does not exist yet is created with the marks alone.
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

from audit.cli import COMMANDS, build_parser

DOCS = Path(__file__).resolve().parent
FORMATS = "output-and-exit-codes.md"
"""The page (beside reference/) whose generated part lists each command's output formats."""
BEGIN = "<!-- BEGIN GENERATED from the argument parser by docs/gen_reference.py; do not edit by hand -->"
END = "<!-- END GENERATED -->"
WIDTH = 96
"""Synopsis lines are wrapped here, by this script rather than argparse, whose wrapping changes
between Python versions."""


def page_name(command: str) -> str:
    """The page of a command module name (``verify_contract`` -> ``verify-contract.md``)."""
    return command.replace("_", "-") + ".md"


def generated(command: str) -> str:
    """The generated part of *command*'s page, marks included."""
    top = _subparsers(build_parser(command))
    assert top is not None, "agy-audit has commands"
    sub = top.choices[command.replace("_", "-")]
    blocks = [_section(sub, level=None), *(_section(nested, level="##") for _, nested in _nested(sub))]
    return "\n".join([BEGIN, "", *blocks, END])


def generated_index() -> str:
    """The generated part of the reference's index: each command, linked, with its one-line help."""
    top = _subparsers(build_parser())
    assert top is not None, "agy-audit has commands"
    rows = [f"| [`{c.dest}`]({page_name(c.dest)}) | {_escape(c.help or '')} |" for c in top._choices_actions]
    return "\n".join([BEGIN, "", "| command | what it does |", "| --- | --- |", *rows, "", END])


def generated_formats() -> str:
    """The generated part of the output formats page: each command's ``--format`` values."""
    top = _subparsers(build_parser())
    assert top is not None, "agy-audit has commands"
    rows = []
    for name, parser in top.choices.items():
        for prog, sub in [(name, parser), *_nested(parser)]:
            formats = next((a.choices for a in sub._actions if "--format" in a.option_strings), None)
            if formats is not None:
                link = f"reference/{page_name(name)}"
                rows.append(f"| [`{prog}`]({link}) | " + ", ".join(f"`{f}`" for f in formats) + " |")
    return "\n".join([BEGIN, "", "| command | `--format` |", "| --- | --- |", *rows, "", END])


def _nested(parser: argparse.ArgumentParser) -> list[tuple[str, argparse.ArgumentParser]]:
    """The sub-commands of a command (``links check`` ...) with their names, aliases left out."""
    inner = _subparsers(parser)
    if inner is None:
        return []
    return [(sub.prog.removeprefix("agy-audit "), sub) for name, sub in inner.choices.items() if sub.prog.endswith(" " + name)]


def updated(page: str, part: str, current: str | None) -> str:
    """The page *page* (its path below docs/) with its generated part replaced, or a new page
    holding only that part."""
    if current is None:
        return f"# agy-audit {Path(page).stem}\n\n{part}\n"
    start, end = current.find(BEGIN), current.find(END)
    if start < 0 or end < start:
        raise ValueError(f"docs/{page}: the generated part's marks are missing")
    return current[:start] + part + current[end + len(END) :]


def _subparsers(parser: argparse.ArgumentParser) -> argparse._SubParsersAction[argparse.ArgumentParser] | None:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return action
    return None


def _section(parser: argparse.ArgumentParser, level: str | None) -> str:
    lines = [f"{level} `{parser.prog}`", ""] if level else []
    if parser.description:
        lines += [_escape(parser.description), ""]
    lines += ["```text", _synopsis(parser), "```", ""]
    for group in parser._action_groups:
        actions = [a for a in group._group_actions if not isinstance(a, argparse._HelpAction)]
        if not actions:
            continue
        lines += [f"**{group.title}**" + (f": {_escape(group.description)}" if group.description else ""), ""]
        lines += ["| argument | meaning |", "| --- | --- |"]
        for action in actions:
            lines += list(_rows(action))
        lines.append("")
    return "\n".join(lines)


def _synopsis(parser: argparse.ArgumentParser) -> str:
    words = [_usage_word(a) for a in parser._actions if not isinstance(a, argparse._HelpAction)]
    return "\n".join(
        textwrap.wrap(" ".join([parser.prog, *words]), WIDTH, subsequent_indent="    ", break_on_hyphens=False)
    ).replace("\u00a0", " ")


_VALUES = {"?": "[{0}]", "*": "[{0}\u00a0...]", "+": "{0}\u00a0[{0}\u00a0...]"}
"""How an argument's value shows by its ``nargs`` (non-breaking spaces: the synopsis wraps around it)."""


def _usage_word(action: argparse.Action) -> str:
    """One argument as the synopsis shows it; non-breaking spaces keep an option with its value."""
    if isinstance(action, argparse._SubParsersAction):
        return f"{_metavar(action)}\u00a0..."
    if not action.option_strings:
        return _value(action)
    word = _option(action).replace(" ", "\u00a0")
    return word if action.required else f"[{word}]"


def _option(action: argparse.Action) -> str:
    name = max(action.option_strings, key=len)
    return name if action.nargs == 0 else f"{name} {_value(action)}"


def _value(action: argparse.Action) -> str:
    """The value(s) an argument takes, by its ``nargs``: ``X``, ``[X]``, ``[X ...]``, ``X [X ...]``."""
    return _VALUES.get(str(action.nargs), "{0}").format(_metavar(action))


def _metavar(action: argparse.Action) -> str:
    if action.metavar is not None:
        return str(action.metavar)
    if action.choices is not None:
        return "{" + ",".join(str(c) for c in action.choices) + "}"
    return action.dest.upper() if action.option_strings else action.dest


def _rows(action: argparse.Action) -> Iterator[str]:
    if isinstance(action, argparse._SubParsersAction):
        for choice in action._choices_actions:
            yield f"| `{choice.dest}` | {_escape(choice.help or '')} |"
        return
    if action.option_strings:
        names = ", ".join(f"`{o}`" for o in sorted(action.option_strings, key=len, reverse=True))
        shown = names if action.nargs == 0 else f"{names} `{_value(action)}`"
    else:
        shown = f"`{_value(action)}`"
    yield f"| {shown.replace(chr(0xA0), ' ')} | {_escape(action.help or '')} |"


_ESCAPES = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ("*", "\\*"), ("_", "\\_"), ("[", "\\["), ("|", "\\|"))


def _escape(text: str) -> str:
    """Help text as Markdown table text: no tag, no emphasis, no line break, no cell break. What the
    help quotes in backticks stays a code span (where a pipe does not end a cell)."""
    pieces = " ".join(text.split()).split("`")
    if len(pieces) % 2 == 0:  # an unpaired backtick: all of it is plain text
        pieces = ["\\`".join(pieces)]
    for i in range(0, len(pieces), 2):  # the text outside code spans
        for char, escaped in _ESCAPES:
            pieces[i] = pieces[i].replace(char, escaped)
    return "`".join(pieces)


def pages() -> dict[Path, str]:
    """Every page with a generated part as it should be, keyed by its path."""
    parts = {f"reference/{page_name(command)}": generated(command) for command in COMMANDS}
    parts["reference/index.md"] = generated_index()
    parts[FORMATS] = generated_formats()
    out = {}
    for page, part in parts.items():
        path = DOCS / page
        out[path] = updated(page, part, path.read_text(encoding="utf-8") if path.exists() else None)
    return out


def main(argv: list[str]) -> int:
    stale = []
    for path, text in pages().items():
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            stale.append(path)
            if "--check" not in argv:
                path.parent.mkdir(exist_ok=True)
                path.write_text(text, encoding="utf-8")
    for path in stale:
        print(f"{'differs' if '--check' in argv else 'written'}: {path.relative_to(DOCS.parent)}")
    return 1 if stale and "--check" in argv else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
