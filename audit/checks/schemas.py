"""The bundled JSON Schemas (Draft 2020-12) and the two ways of applying them.

Every rule of a schema is a subschema carrying ``x-rule`` (a stable id) and a ``description``;
the rule of a failing keyword is the nearest ``x-rule`` enclosing it in the schema text. Every
rule also carries ``x-evidence`` (inherited by the subschemas it encloses): ``observed`` (measured
on real stores), ``documented`` (stated by a public source) or ``inferred`` (our expectation only).
Keywords of our own, ignored by other validators:

* ``x-evidence``: an annotation; the failures of an ``inferred`` rule are always *advisories*
  (findings of level ``warning``; a violation is one of level ``error``);

* ``x-advisory``: a subschema applied to the same instance whose failures are *advisories*
  (reported, never violations), e.g. a step status outside the ``CORTEX_STEP_STATUS_*`` family;
* ``x-distinctPointers``: two JSON pointers (from the instance the keyword applies to) whose
  string values must differ, compared case-insensitively (JSON Schema cannot compare values).

``Schema.is_valid`` is a predicate generated from the schema as Python source (``schema_compiler``,
whose predicates call ``schema_runtime``; the keywords it knows are ``schema_keywords``): it answers what
the official JSON-Schema-Test-Suite (Draft 2020-12) says for every keyword it supports, and what
``jsonschema``'s Draft 2020-12 validator (with its format checker and the two keywords above)
answers for our schemas, at a fraction of the cost and without importing ``jsonschema``; any
keyword, format or reference it cannot decide exactly is refused at compile time
(``UnsupportedSchema``). Other ``x-`` keywords (``x-rule``, ``x-evidence``) are annotations.
``Schema.findings`` asks ``jsonschema`` itself for the details; ``Schema.check`` does the
former and only falls back to the latter when a document is not valid.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from audit.checks.schema_compiler import compile_predicate
from audit.checks.schema_keywords import distinct_pointers, resolve_pointer, short, subschemas
from audit.errors import UsageError
from audit.findings import Finding, Level
from audit.resources import data_path
from audit.strictjson import json_type, loads, pointer_escape

if TYPE_CHECKING:
    from collections.abc import Iterator

    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

SUFFIX = ".schema.json"
EVIDENCE = ("observed", "documented", "inferred")
"""Values of ``x-evidence``; only an ``observed`` or ``documented`` rule can make a violation."""


def names() -> list[str]:
    """Names of the bundled schemas (``sidecar``, ``transcript-record``, ``manifest``)."""
    return sorted(p.name[: -len(SUFFIX)] for p in data_path("schemas").glob("*" + SUFFIX))


def text(name: str) -> str:
    """The bundled schema *name* (with or without ``.schema.json``) exactly as shipped."""
    name = name.removesuffix(SUFFIX)
    if name not in names():
        raise UsageError(f"unknown schema {name!r}; bundled schemas: {', '.join(names())}")
    return (data_path("schemas") / (name + SUFFIX)).read_text(encoding="utf-8")


@functools.cache
def load(name: str) -> Schema:
    """The bundled schema *name*, compiled once per process."""
    return Schema(loads(text(name), source=name + SUFFIX))


class Schema:
    def __init__(self, document: dict[str, Any]) -> None:
        self.document = document
        self.is_valid: Callable[[object], bool] = compile_predicate(document)
        self._rules = _rule_map(document)
        self._validator: Validator | None = None

    def check(self, instance: object) -> list[Finding]:
        """Every finding for *instance*; nothing to do beyond the fast predicate when it is valid."""
        return [] if self.is_valid(instance) else self.findings(instance)

    def findings(self, instance: Any) -> list[Finding]:  # parsed JSON
        """Every finding, as ``jsonschema`` reports it (located by pointer only); ``format``/``pattern``
        pairs counted once."""
        if self._validator is None:
            cls = _jsonschema_class()
            self._validator = cls(self.document, format_checker=cls.FORMAT_CHECKER)
        out: dict[tuple[object, ...], tuple[Any, str, Level, str]] = {}
        for error in self._validator.iter_errors(instance):
            rule, level = self._rules.get(id(error.schema), ("schema", Level.ERROR))
            path = tuple((isinstance(p, str), p) for p in error.absolute_path)  # indexes numerically, keys by name
            same = "shape" if error.validator in ("format", "pattern") else error.message
            out.setdefault((path, rule, same), (path, rule, level, _message(error)))
        return [
            Finding(rule, level, message, pointer="".join("/" + pointer_escape(str(p)) for _, p in path))
            for path, rule, level, message in sorted(out.values())
        ]


def _rule_map(document: dict[str, Any]) -> dict[int, tuple[str, Level]]:
    """id(subschema) -> (rule, level) for every subschema, by lexical nesting."""
    return {key: (rule, level) for key, (rule, _, level) in _rule_walk(document).items()}


def _rule_walk(
    document: dict[str, Any], on_rule: Callable[[dict[str, Any], str, Level], None] | None = None
) -> dict[int, tuple[str, str, Level]]:
    """id(subschema) -> (rule, evidence, level); *on_rule* sees each ``x-rule`` node with its
    evidence and level. A subschema is advisory under ``x-advisory`` or an ``inferred`` rule."""
    out: dict[int, tuple[str, str, Level]] = {}

    def walk(node: object, rule: str, evidence: str, advisory: bool) -> None:
        if not isinstance(node, dict):
            return
        rule, evidence = node.get("x-rule", rule), node.get("x-evidence", evidence)
        if evidence not in EVIDENCE:
            raise ValueError(f"x-evidence of {rule} must be one of {', '.join(EVIDENCE)}, not {evidence!r}")
        level = Level.WARNING if advisory or evidence == "inferred" else Level.ERROR
        out[id(node)] = (rule, evidence, level)
        if on_rule is not None and "x-rule" in node:
            on_rule(node, evidence, level)
        for key, value in node.items():
            for sub in subschemas(key, value):
                walk(sub, rule, evidence, advisory or key == "x-advisory")

    walk(document, "schema", "inferred", False)
    return out


@dataclass(frozen=True)
class Rule:
    """One ``x-rule`` node of a schema: its id, evidence, level and description."""

    rule: str
    evidence: str
    level: Level
    description: str


def catalog(name: str) -> list[Rule]:
    """Every rule of the bundled schema *name* in schema order (a rule id used by several nodes
    is listed once, at its first node)."""
    found: dict[str, Rule] = {}

    def add(node: dict[str, Any], evidence: str, level: Level) -> None:
        found.setdefault(node["x-rule"], Rule(node["x-rule"], evidence, level, node.get("description", "")))

    _rule_walk(load(name).document, add)
    return list(found.values())


def _message(error: ValidationError) -> str:
    """One line; instances shortened (a mistyped payload can be megabytes)."""
    kind, value, instance = error.validator, error.validator_value, error.instance
    if kind == "type":
        wanted = " or ".join(value) if isinstance(value, list) else value
        return f"is {json_type(instance)}, not {wanted}"
    if kind == "pattern":
        return f"{short(instance)} does not match {value}"
    if kind == "format":
        return f"{short(instance)} is not a valid {value}"
    if kind in ("required", "x-distinctPointers"):
        return error.message
    if kind == "not" and value == {"type": "integer"}:
        return f"is the number {short(instance)}: an enum value unknown to agy-audit"
    message = error.message
    return message if len(message) <= 300 else message[:297] + "..."


@functools.cache
def _jsonschema_class() -> type[Validator]:
    """``Draft202012Validator`` plus ``x-advisory`` and ``x-distinctPointers`` (imported lazily)."""
    from jsonschema import Draft202012Validator, ValidationError, validators

    # validator: an instance of the class built here; its descend() is not in jsonschema's Validator protocol
    def advisory(validator: Any, subschema: object, instance: object, schema: object) -> Iterator[ValidationError]:
        yield from validator.descend(instance, subschema)

    def distinct(validator: Validator, pointers: list[str], instance: object, schema: object) -> Iterator[ValidationError]:
        if not distinct_pointers(instance, pointers):
            first, last = pointers[0], pointers[-1]
            yield ValidationError(
                f"{short(resolve_pointer(instance, last))} equals {first} (the same id)",
                path=[p.replace("~1", "/").replace("~0", "~") for p in last.split("/")[1:]],
            )

    extended: type[Validator] = validators.extend(Draft202012Validator, {"x-advisory": advisory, "x-distinctPointers": distinct})
    return extended
