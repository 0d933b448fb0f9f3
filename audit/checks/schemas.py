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

``Schema.is_valid`` is a predicate generated from the schema as Python source: it answers what
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
import json
import math
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit
from uuid import UUID

from audit.errors import UsageError
from audit.findings import Finding, Level
from audit.resources import data_path
from audit.strictjson import json_type, loads, pointer_escape

if TYPE_CHECKING:
    from collections.abc import Iterator

    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

try:  # jsonschema checks format "date-time" only when this optional package is installed
    from rfc3339_validator import validate_rfc3339 as _rfc3339
except ImportError:  # pragma: no cover - depends on the environment
    _rfc3339 = None

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
            for sub in _subschemas(key, value):
                walk(sub, rule, evidence, advisory or key == "x-advisory")

    walk(document, "schema", "inferred", False)
    return out


_DICT_APPLICATORS = ("properties", "patternProperties", "$defs", "dependentSchemas")
_LIST_APPLICATORS = ("allOf", "anyOf", "oneOf", "prefixItems")
_SINGLE_APPLICATORS = (
    "items",
    "additionalProperties",
    "propertyNames",
    "contains",
    "not",
    "if",
    "then",
    "else",
    "unevaluatedItems",
    "unevaluatedProperties",
    "x-advisory",
)


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


def _subschemas(keyword: str, value: object) -> list[object]:
    """The subschemas held by *keyword* (none for keywords whose value is data)."""
    return [sub for _, sub in _keyed_subschemas(keyword, value)]


def _keyed_subschemas(keyword: str, value: object) -> list[tuple[str, object]]:
    """(pointer step, subschema) for each subschema held by *keyword*."""
    if keyword in _DICT_APPLICATORS and isinstance(value, dict):
        return [(pointer_escape(str(k)), v) for k, v in value.items()]
    if keyword in _LIST_APPLICATORS and isinstance(value, list):
        return [(str(i), v) for i, v in enumerate(value)]
    if keyword in _SINGLE_APPLICATORS:
        return [("", value)]
    return []


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _message(error: ValidationError) -> str:
    """One line; instances shortened (a mistyped payload can be megabytes)."""
    kind, value, instance = error.validator, error.validator_value, error.instance
    if kind == "type":
        wanted = " or ".join(value) if isinstance(value, list) else value
        return f"is {json_type(instance)}, not {wanted}"
    if kind == "pattern":
        return f"{_short(instance)} does not match {value}"
    if kind == "format":
        return f"{_short(instance)} is not a valid {value}"
    if kind in ("required", "x-distinctPointers"):
        return error.message
    if kind == "not" and value == {"type": "integer"}:
        return f"is the number {_short(instance)}: an enum value unknown to agy-audit"
    message = error.message
    return message if len(message) <= 300 else message[:297] + "..."


# ----------------------------------------------------------------------------- our keywords


_MISSING = object()


def _resolve(document: object, pointer: str) -> object:
    node = document
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return _MISSING
        node = node[part]
    return node


def distinct_pointers(instance: object, pointers: list[str]) -> bool:
    """False when the string values at two of *pointers* are equal ignoring case."""
    seen = [v.lower() for v in (_resolve(instance, p) for p in pointers) if isinstance(v, str)]
    return len(set(seen)) == len(seen)


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
                f"{_short(_resolve(instance, last))} equals {first} (the same id)",
                path=[p.replace("~1", "/").replace("~0", "~") for p in last.split("/")[1:]],
            )

    extended: type[Validator] = validators.extend(Draft202012Validator, {"x-advisory": advisory, "x-distinctPointers": distinct})
    return extended


# ----------------------------------------------------------------------------- the fast predicate


class UnsupportedSchema(ValueError):
    """A schema the compiler refuses, at compile time: the message names the keyword, value or
    reference and where it sits in the schema (an RFC 6901 pointer)."""


METASCHEMA = "https://json-schema.org/draft/2020-12/schema"


def _uuid_format(instance: object) -> bool:
    if not isinstance(instance, str):
        return True
    try:
        UUID(instance)
    except ValueError:
        return False
    return all(instance[i] == "-" for i in (8, 13, 18, 23))


def _datetime_format(instance: object) -> bool:
    return not isinstance(instance, str) or _rfc3339(instance.upper())


FORMATS: dict[str, Callable[[object], bool] | None] = {
    "uuid": _uuid_format,
    "date-time": _datetime_format if _rfc3339 is not None else None,
}
"""The formats our schemas use, checked exactly as jsonschema's Draft 2020-12 format checker does
(None: that checker does not check the format in this environment). Any other format is refused."""

_ANNOTATIONS = frozenset(
    {
        "$schema",
        "$id",
        "$anchor",
        "$defs",
        "$comment",
        "title",
        "description",
        "examples",
        "default",
        "deprecated",
        "readOnly",
        "writeOnly",
        "contentMediaType",
        "contentEncoding",
        "contentSchema",
    }
)
"""Keywords that never change the answer (Draft 2020-12 core identifiers, meta-data and content
annotations)."""
_OUR_KEYWORDS = frozenset({"x-advisory", "x-distinctPointers"})
_SUPPORTED = _OUR_KEYWORDS | {
    "type",
    "enum",
    "const",
    "multipleOf",
    "maximum",
    "exclusiveMaximum",
    "minimum",
    "exclusiveMinimum",
    "maxLength",
    "minLength",
    "pattern",
    "format",
    "maxItems",
    "minItems",
    "uniqueItems",
    "maxContains",
    "minContains",
    "maxProperties",
    "minProperties",
    "required",
    "dependentRequired",
    "allOf",
    "anyOf",
    "oneOf",
    "not",
    "if",
    "then",
    "else",
    "dependentSchemas",
    "prefixItems",
    "items",
    "contains",
    "properties",
    "patternProperties",
    "additionalProperties",
    "propertyNames",
    "$ref",
}
_REFUSED = {
    "$dynamicRef": "dynamic references are not supported",
    "$dynamicAnchor": "dynamic anchors are not supported",
    "unevaluatedItems": "it needs annotation collection, which the compiler does not do",
    "unevaluatedProperties": "it needs annotation collection, which the compiler does not do",
    "$vocabulary": "custom vocabularies are not supported",
}
_IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "x-advisory")
"""Applicators whose subschemas apply to the same instance (a cycle through them never ends)."""


def is_annotation(keyword: str) -> bool:
    """True for a keyword that never changes the answer: the standard annotations and every
    ``x-`` keyword except our two assertions (``x-rule``, ``x-evidence``, ...)."""
    return keyword in _ANNOTATIONS or (keyword.startswith("x-") and keyword not in _OUR_KEYWORDS)


_PLAIN_TYPES = {"string": str, "object": dict, "array": list, "boolean": bool}
"""Types ``isinstance`` decides exactly as jsonschema does (unlike number/integer, where bool is excluded)."""
_TYPE_TESTS = {
    "null": "x is None",
    "number": "(isinstance(x, Number) and not isinstance(x, bool))",
    "integer": "((isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer()))",
}
_NUMBER = "(isinstance(x, Number) and not isinstance(x, bool))"


def compile_predicate(document: object) -> Callable[[object], bool]:
    """A function telling whether an instance satisfies *document* (every rule, both levels).

    Raises ``UnsupportedSchema`` (a ``ValueError``) for any keyword, format, value or reference
    it cannot decide exactly, wherever it sits in the document, reachable or not."""
    gen = _Codegen(document)
    entry = gen.function(document)
    namespace = gen.namespace
    exec(compile("".join(gen.chunks), "<schema predicate>", "exec"), namespace)  # noqa: S102 - our own schema
    for table in gen.tables:  # property name -> the expression of its checker
        for prop, check in table.items():
            table[prop] = eval(check, namespace)  # noqa: S307 - a name we generated
    predicate: Callable[[object], bool] = namespace[entry]
    return predicate


def _join(base: str, ref: str) -> str:
    """*ref* resolved against the base URI *base* (RFC 3986; a fragment keeps any base)."""
    if not base or urlsplit(ref).scheme:
        return ref
    if ref.startswith("#"):
        return urldefrag(base)[0] + ref
    return urljoin(base, ref)


class _Index:
    """Every subschema of a document: its base URI, where it sits, the resources (``$id``) and
    anchors (``$anchor``) references can name. Refuses what the compiler does not support."""

    def __init__(self, root: object) -> None:
        self.base: dict[int, str] = {}
        self.where: dict[int, str] = {}
        self.nodes: list[dict[str, Any]] = []
        self.resources: dict[str, object] = {}
        self.anchors: dict[tuple[str, str], dict[str, Any]] = {}
        self.resources[""] = root
        self._walk(root, "", "")

    def _walk(self, node: object, base: str, pointer: str) -> None:
        where = pointer or "/"
        if isinstance(node, bool):
            return
        if not isinstance(node, dict):
            raise UnsupportedSchema(f"{where}: not a schema: {_short(node)}")
        if id(node) in self.base:
            return
        if "$schema" in node and node["$schema"] != METASCHEMA:
            raise UnsupportedSchema(f"{where}: $schema {node['$schema']!r} is not supported (only {METASCHEMA})")
        if "$id" in node:
            if not isinstance(node["$id"], str):
                raise UnsupportedSchema(f"{where}: $id must be a string")
            uri, fragment = urldefrag(_join(base, node["$id"]))
            if fragment:
                raise UnsupportedSchema(f"{where}: $id {node['$id']!r} has a fragment (not allowed in Draft 2020-12)")
            base = uri
            if self.resources.setdefault(base, node) is not node:
                raise UnsupportedSchema(f"{where}: $id {node['$id']!r} names two resources")
        if "$anchor" in node:
            anchor = node["$anchor"]
            if not isinstance(anchor, str) or not re.fullmatch(r"[A-Za-z_][-A-Za-z0-9._]*", anchor):
                raise UnsupportedSchema(f"{where}: $anchor {anchor!r} is not a plain name")
            if self.anchors.setdefault((base, anchor), node) is not node:
                raise UnsupportedSchema(f"{where}: $anchor {anchor!r} is defined twice in {base or 'the document'}")
        self.base[id(node)] = base
        self.where[id(node)] = where
        self.nodes.append(node)
        for key, value in node.items():
            if key in _REFUSED:
                raise UnsupportedSchema(f"{where}: keyword {key!r} is not supported ({_REFUSED[key]})")
            if key not in _SUPPORTED and not is_annotation(key):
                raise UnsupportedSchema(f"{where}: keyword {key!r} is not supported")
            if key in _DICT_APPLICATORS and not isinstance(value, dict):
                raise UnsupportedSchema(f"{where}: {key!r} must be an object of schemas")
            if key in _LIST_APPLICATORS and not (isinstance(value, list) and (value or key == "prefixItems")):
                raise UnsupportedSchema(f"{where}: {key!r} must be a non-empty array of schemas")
            if key in _SUPPORTED or key == "$defs":
                for step, sub in _keyed_subschemas(key, value):
                    self._walk(sub, base, f"{pointer}/{pointer_escape(key)}" + (f"/{step}" if step else ""))


def _schema_pointer(node: object, pointer: str) -> object:
    """The value at the JSON pointer *pointer* below *node* (objects and arrays), or ``_MISSING``."""
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and (part == "0" or part[0] != "0") and int(part) < len(node):
            node = node[int(part)]
        else:
            return _MISSING
    return node


class _Codegen:
    """Emits one Python function per distinct subschema; each returns False on the first failure."""

    def __init__(self, root: object) -> None:
        self.root = root
        self.index = _Index(root)
        self.names: dict[object, str] = {}
        self.chunks: list[str] = []
        self.tables: list[dict[str, Any]] = []
        self.namespace: dict[str, Any] = {  # exec()'s globals: helpers, constants, generated functions
            "Number": numbers.Number,
            "distinct": distinct_pointers,
            "learn": _learn,
            "key": _json_key,
            "unique": _unique,
            "multiple": _multiple,
        }
        self._refuse_in_place_cycles()

    def constant(self, value: object) -> str:
        name = f"_c{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def where(self, schema: object) -> str:
        return self.index.where.get(id(schema), "/")

    def function(self, schema: object) -> str:
        """The generated function for *schema* (equal leaf schemas with the same base share one)."""
        while isinstance(schema, dict) and "$ref" in schema and all(k == "$ref" or is_annotation(k) for k in schema):
            schema = self.target(schema)
        leaf = isinstance(schema, dict) and not any(
            isinstance(v, (dict, list)) for k, v in schema.items() if k not in ("enum", "const")
        )
        key = (self.index.base.get(id(schema)), json.dumps(schema, sort_keys=True)) if leaf else id(schema)
        if key not in self.names:
            self.names[key] = name = f"_s{len(self.names)}"
            body = self.body(schema)
            self.chunks.append(f"def {name}(x):\n{body}")
        return self.names[key]

    def checker(self, schema: object) -> str:
        """An expression for a one-argument callable checking *schema*: ``str.__instancecheck__`` or a function."""
        if (
            isinstance(schema, dict)
            and "type" in schema
            and all(k == "type" or is_annotation(k) for k in schema)
            and isinstance(schema["type"], str)
            and schema["type"] in _PLAIN_TYPES
        ):
            return f"{_PLAIN_TYPES[schema['type']].__name__}.__instancecheck__"
        return self.function(schema)

    def target(self, schema: dict[str, Any]) -> object:
        """The schema *schema*'s ``$ref`` names, resolved against its base URI."""
        ref = schema["$ref"]
        where = self.where(schema)
        if not isinstance(ref, str):
            raise UnsupportedSchema(f"{where}: $ref must be a string")
        uri, fragment = urldefrag(_join(self.index.base.get(id(schema), ""), ref))
        node = self.index.resources.get(uri, _MISSING)
        if node is not _MISSING:
            fragment = unquote(fragment)
            if fragment.startswith("/"):
                node = _schema_pointer(node, fragment)
            elif fragment:
                node = self.index.anchors.get((uri, fragment), _MISSING)
        if node is _MISSING:
            raise UnsupportedSchema(f"{where}: $ref {ref!r} is not supported: it does not resolve within this document")
        if not isinstance(node, bool) and id(node) not in self.index.base:
            raise UnsupportedSchema(f"{where}: $ref {ref!r} points at a value that is not a subschema")
        return node

    def _refuse_in_place_cycles(self) -> None:
        """A chain of references and in-place applicators that returns to where it started would
        recurse for ever on any instance: refuse it."""
        edges: dict[int, list[dict[str, Any]]] = {}
        for node in self.index.nodes:
            out = [sub for key in _IN_PLACE if key in node for sub in _subschemas(key, node[key])]
            if "$ref" in node:
                out.append(self.target(node))
            edges[id(node)] = [sub for sub in out if isinstance(sub, dict)]
        state: dict[int, int] = {}  # 1 on the stack, 2 done
        for start in self.index.nodes:
            if state.get(id(start)):
                continue
            stack = [(start, iter(edges[id(start)]))]
            state[id(start)] = 1
            while stack:
                node, children = stack[-1]
                child = next(children, None)
                if child is None:
                    state[id(node)] = 2
                    stack.pop()
                elif state.get(id(child)) == 1:
                    raise UnsupportedSchema(
                        f"{self.where(child)}: references and in-place applicators loop back here (would never end)"
                    )
                elif not state.get(id(child)):
                    state[id(child)] = 1
                    stack.append((child, iter(edges[id(child)])))

    def body(self, schema: object) -> str:
        if schema is True or schema is False:
            return f"    return {schema}\n"
        if not isinstance(schema, dict):
            raise UnsupportedSchema(f"not a schema: {_short(schema)}")
        typed = _PLAIN_TYPES.get(schema["type"]) if isinstance(schema.get("type"), str) else None
        conds: list[str] = []  # each must hold
        loops: list[str] = []  # statements that return False
        for key, value in schema.items():
            if is_annotation(key) or key in ("then", "else", "minContains", "maxContains"):
                continue
            if key in ("allOf", "x-advisory"):
                conds += [f"{self.function(sub)}(x)" for sub in (value if key == "allOf" else [value])]
            else:
                self.keyword(schema, key, value, typed, conds, loops)
        if not loops:
            return f"    return {' and '.join(conds) or 'True'}\n"
        return "".join(f"    if not {c}: return False\n" for c in conds) + "".join(loops) + "    return True\n"

    def keyword(
        self, schema: dict[str, Any], key: str, value: Any, typed: type | None, conds: list[str], loops: list[str]
    ) -> None:  # noqa: C901
        where = self.where(schema)

        def only(kind: type, cond: str) -> str:  # *cond* applies when x is a *kind*
            return f"({cond})" if typed is kind else f"(not isinstance(x, {kind.__name__}) or {cond})"

        def number(cond: str) -> str:  # *cond* applies when x is a number (bool is not)
            return f"(not {_NUMBER} or {cond})"

        def loop(kind: type, head: str, lines: list[str]) -> None:
            if typed is kind:
                loops.append(f"    {head}\n" + "".join(f"        {line}\n" for line in lines))
            else:
                loops.append(
                    f"    if isinstance(x, {kind.__name__}):\n        {head}\n"
                    + "".join(f"            {line}\n" for line in lines)
                )

        def count(name: str) -> int:
            if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or value != int(value):
                raise UnsupportedSchema(f"{where}: {name} must be a non-negative integer, not {_short(value)}")
            return int(value)

        def limit() -> str:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise UnsupportedSchema(f"{where}: {key} must be a number, not {_short(value)}")
            return self.constant(value)

        def regex(text: object) -> str:
            if not isinstance(text, str):
                raise UnsupportedSchema(f"{where}: a pattern must be a string, not {_short(text)}")
            try:
                return self.constant(re.compile(text))
            except re.error as exc:
                raise UnsupportedSchema(f"{where}: pattern {text!r} is not supported by Python's re ({exc})") from None

        if key == "type":
            types = value if isinstance(value, list) else [value]
            unknown = [t for t in types if t not in _PLAIN_TYPES and t not in _TYPE_TESTS]
            if unknown or not types:
                raise UnsupportedSchema(f"{where}: type {_short(value)} is not a JSON Schema type")
            tests = [f"isinstance(x, {_PLAIN_TYPES[t].__name__})" if t in _PLAIN_TYPES else _TYPE_TESTS[t] for t in types]
            conds.insert(0, f"({' or '.join(tests)})")
        elif key == "properties":  # look up each present key: objects declare far more properties than they carry
            table = {prop: self.checker(sub) for prop, sub in value.items()}
            self.tables.append(table)
            loop(
                dict,
                "for k, e in x.items():",
                [f"c = {self.constant(table)}.get(k)", "if c is not None and not c(e): return False"],
            )
        elif key == "patternProperties":
            lines = [f"if {regex(p)}.search(k) and not {self.checker(sub)}(e): return False" for p, sub in value.items()]
            if lines:
                loop(dict, "for k, e in x.items():", lines)
        elif key == "required":
            if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
                raise UnsupportedSchema(f"{where}: required must be an array of strings")
            conds.append(only(dict, " and ".join(f"{name!r} in x" for name in value) or "True"))
        elif key == "dependentRequired":
            if not isinstance(value, dict) or not all(isinstance(v, list) for v in value.values()):
                raise UnsupportedSchema(f"{where}: dependentRequired must map names to arrays of names")
            tests = [
                f"({p!r} not in x or {' and '.join(f'{n!r} in x' for n in needed) or 'True'})" for p, needed in value.items()
            ]
            conds.append(only(dict, " and ".join(tests) or "True"))
        elif key == "dependentSchemas":
            tests = [f"({p!r} not in x or {self.function(sub)}(x))" for p, sub in value.items()]
            conds.append(only(dict, " and ".join(tests) or "True"))
        elif key == "additionalProperties":
            known = self.constant(frozenset(schema.get("properties", ())))
            patterns = [regex(p) for p in schema.get("patternProperties", ())]
            unmatched = "".join(f" and not {p}.search(k)" for p in patterns)
            if value is False and not patterns:
                conds.append(only(dict, f"{known}.issuperset(x)"))
            elif value is False:
                loop(dict, "for k in x:", [f"if k not in {known}{unmatched}: return False"])
            elif value is not True:
                loop(
                    dict,
                    "for k, e in x.items():",
                    [f"if k not in {known}{unmatched} and not {self.checker(value)}(e): return False"],
                )
        elif key == "propertyNames":
            loop(dict, "for e in x:", [f"if not {self.checker(value)}(e): return False"])
        elif key == "prefixItems":
            if value:
                checks = ", ".join(self.checker(sub) for sub in value)
                conds.append(only(list, f"all(c(e) for c, e in zip(({checks},), x))"))
        elif key == "items":
            skip = len(schema.get("prefixItems", ()))
            loop(list, f"for e in x[{skip}:]:" if skip else "for e in x:", [f"if not {self.checker(value)}(e): return False"])
        elif key == "contains":
            low = int(schema.get("minContains", 1)) if "minContains" in schema else 1
            high = schema.get("maxContains")
            for name in ("minContains", "maxContains"):
                if name in schema:
                    value_ = schema[name]
                    if isinstance(value_, bool) or not isinstance(value_, (int, float)) or value_ < 0 or value_ != int(value_):
                        raise UnsupportedSchema(f"{where}: {name} must be a non-negative integer")
            found = f"sum(1 for e in x if {self.function(value)}(e))"
            bounds = f"{low} <= {found}" + (f" <= {int(high)}" if high is not None else "")
            if low > 0 or high is not None:
                conds.append(only(list, bounds))
        elif key in ("minProperties", "maxProperties", "minItems", "maxItems", "minLength", "maxLength"):
            kind = {"Properties": dict, "Length": str, "Items": list}[key[3:]]
            conds.append(only(kind, f"len(x) {'<=' if key.startswith('max') else '>='} {count(key)}"))
        elif key in ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum"):
            op = {"minimum": ">=", "maximum": "<=", "exclusiveMinimum": ">", "exclusiveMaximum": "<"}[key]
            conds.append(number(f"x {op} {limit()}"))
        elif key == "multipleOf":
            if limit() and value <= 0:
                raise UnsupportedSchema(f"{where}: multipleOf must be greater than 0")
            conds.append(number(f"multiple(x, {value!r})"))
        elif key == "uniqueItems":
            if not isinstance(value, bool):
                raise UnsupportedSchema(f"{where}: uniqueItems must be a boolean")
            if value:
                conds.append(only(list, "unique(x)"))
        elif key == "pattern":  # strings that matched are remembered: enum names and counters repeat a lot
            memo = self.constant(set())
            conds.append(only(str, f"(x in {memo} or learn({memo}, {regex(value)}, x))"))
        elif key == "format":
            if value not in FORMATS:
                raise UnsupportedSchema(f"{where}: format {value!r} is not supported (supported: {', '.join(FORMATS)})")
            if FORMATS[value] is not None:
                conds.append(f"{self.constant(FORMATS[value])}(x)")
        elif key in ("const", "enum"):
            if key == "enum" and not isinstance(value, list):
                raise UnsupportedSchema(f"{where}: enum must be an array")
            options = [value] if key == "const" else value
            if all(_is_scalar(o) for o in options):
                conds.append(f"({' or '.join(_equals('x', o) for o in options) or 'False'})")
            else:
                conds.append(f"(key(x) in {self.constant(frozenset(_json_key(o) for o in options))})")
        elif key == "anyOf":
            conds.append(f"({' or '.join(f'{self.function(s)}(x)' for s in value)})")
        elif key == "oneOf":
            conds.append(f"([{', '.join(f'{self.function(s)}(x)' for s in value)}].count(True) == 1)")
        elif key == "not":
            conds.append(f"not {self.function(value)}(x)")
        elif key == "if":
            then, other = (self.function(schema.get(k, True)) for k in ("then", "else"))
            conds.append(f"({then}(x) if {self.function(value)}(x) else {other}(x))")
        elif key == "$ref":
            conds.append(f"{self.function(self.target(schema))}(x)")
        elif key == "x-distinctPointers":
            conds.append(f"distinct(x, {self.constant(list(value))})")
        else:  # pragma: no cover - the index refuses every other keyword
            raise UnsupportedSchema(f"{where}: keyword {key!r} is not supported")


_MEMO_LIMIT = 1 << 12
_MEMO_LENGTH = 64


def _learn(memo: set[str], pattern: re.Pattern[str], text: str) -> bool:
    """``pattern.search(text)``, as jsonschema applies ``pattern``; short matching texts join *memo*."""
    if pattern.search(text) is None:
        return False
    if len(text) <= _MEMO_LENGTH and len(memo) < _MEMO_LIMIT:
        memo.add(text)
    return True


def _json_key(value: object) -> object:
    """A hashable key equal for equal JSON values: 1 == 1.0, but true is not 1; objects ignore order."""
    if value is None or isinstance(value, bool):
        return (0, value)
    if isinstance(value, (int, float)):
        return (1, value)
    if isinstance(value, str):
        return (2, value)
    if isinstance(value, list):
        return (3, tuple(_json_key(v) for v in value))
    if isinstance(value, dict):
        return (4, frozenset((k, _json_key(v)) for k, v in value.items()))
    return (5, id(value))


def _unique(items: list[Any]) -> bool:
    keys = [_json_key(v) for v in items]
    return len(set(keys)) == len(keys)


def _exact(number: float | int) -> Fraction:
    """The number a JSON text means: a float by its shortest decimal form, not its binary value."""
    return Fraction(repr(number)) if isinstance(number, float) else Fraction(number)


def _multiple(instance: float | int, divisor: float | int) -> bool:
    """``multipleOf`` decided exactly on the decimal values (0.0075 is a multiple of 0.0001)."""
    if isinstance(instance, int) and isinstance(divisor, int):
        return instance % divisor == 0
    if isinstance(instance, float) and not math.isfinite(instance):
        return False
    return (_exact(instance) / _exact(divisor)).denominator == 1


def _is_scalar(option: object) -> bool:
    return option is None or isinstance(option, (bool, str, int, float))


def _equals(var: str, option: object) -> str:
    """Python for jsonschema's ``equal(var, option)`` with a scalar *option* (bool is not int)."""
    if option is None or isinstance(option, bool):
        return f"{var} is {option!r}"
    if isinstance(option, str):
        return f"{var} == {option!r}"
    return f"({var} == {option!r} and not isinstance({var}, bool))"
