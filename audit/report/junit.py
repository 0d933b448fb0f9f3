"""JUnit XML for CI systems: suites of test cases, each passing, failing, erroring or skipped.

Any command can report this way: build ``Suite``/``Case`` values from its results and call
``render``. Text that XML 1.0 cannot carry (control characters, lone surrogates) is replaced by
U+FFFD, so the output always parses.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence
from dataclasses import dataclass

_NOT_XML = re.compile("[^\t\n\r\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


@dataclass(frozen=True)
class Case:
    """One test case. ``failure``/``error``/``skipped`` hold a one-line message; ``details`` is
    the body of the failure or error element; ``output`` goes to ``system-out``."""

    name: str
    classname: str
    failure: str | None = None
    error: str | None = None
    skipped: str | None = None
    details: str = ""
    output: str = ""
    time: float = 0.0


@dataclass(frozen=True)
class Suite:
    name: str
    cases: Sequence[Case]


def _clean(text: str) -> str:
    return _NOT_XML.sub("\ufffd", text)


def render(suites: Sequence[Suite], *, name: str = "agy-audit") -> str:
    """The ``<testsuites>`` document (UTF-8 declaration, trailing newline)."""
    root = ET.Element("testsuites", name=_clean(name))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    for suite in suites:
        counts = {
            "tests": len(suite.cases),
            "failures": sum(c.failure is not None for c in suite.cases),
            "errors": sum(c.error is not None for c in suite.cases),
            "skipped": sum(c.skipped is not None for c in suite.cases),
        }
        element = ET.SubElement(root, "testsuite", {"name": _clean(suite.name)} | {k: str(v) for k, v in counts.items()})
        element.set("time", f"{sum(c.time for c in suite.cases):.3f}")
        for case in suite.cases:
            child = ET.SubElement(
                element, "testcase", name=_clean(case.name), classname=_clean(case.classname), time=f"{case.time:.3f}"
            )
            for tag, message in (("failure", case.failure), ("error", case.error), ("skipped", case.skipped)):
                if message is not None:
                    outcome = ET.SubElement(child, tag, message=_clean(message))
                    if tag != "skipped" and case.details:
                        outcome.text = _clean(case.details)
            if case.output:
                ET.SubElement(child, "system-out").text = _clean(case.output)
        for key in totals:
            totals[key] += counts[key]
    for key, value in totals.items():
        root.set(key, str(value))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
