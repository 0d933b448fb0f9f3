"""The bundled JSON Schemas (Draft 2020-12) and the two ways of applying them.

Every rule of a schema is a subschema carrying ``x-rule`` (a stable id) and a ``description``;
the rule of a failing keyword is the nearest ``x-rule`` enclosing it in the schema text. Two
keywords of our own, ignored by other validators:

* ``x-advisory``: a subschema applied to the same instance whose failures are *advisories*
  (reported, never violations), e.g. a step status outside the ``CORTEX_STEP_STATUS_*`` family;
* ``x-distinctPointers``: two JSON pointers (from the instance the keyword applies to) whose
  string values must differ, compared case-insensitively (JSON Schema cannot compare values).

``Schema.is_valid`` is a predicate generated from the schema as Python source: it answers
exactly what ``jsonschema``'s Draft 2020-12 validator (with its format checker and the two
keywords above) answers, at a fraction of the cost, and without importing ``jsonschema``.
``Schema.findings`` asks ``jsonschema`` itself for the details; ``Schema.check`` does the
former and only falls back to the latter when a document is not valid.
"""

from __future__ import annotations

import functools
import json
import numbers
import re
from collections.abc import Callable
from dataclasses import dataclass
from uuid import UUID

from audit.errors import UsageError
from audit.resources import data_path
from audit.safeio import json_type, loads, pointer_escape

try:  # jsonschema checks format "date-time" only when this optional package is installed
    from rfc3339_validator import validate_rfc3339 as _rfc3339
except ImportError:  # pragma: no cover - depends on the environment
    _rfc3339 = None

SUFFIX = ".schema.json"
VIOLATION = "violation"
ADVISORY = "advisory"


@dataclass(frozen=True)
class SchemaFinding:
    """One failed rule: where (RFC 6901 pointer into the instance), which rule, how serious."""

    pointer: str
    rule: str
    level: str  # VIOLATION or ADVISORY
    message: str


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
    def __init__(self, document: dict) -> None:
        self.document = document
        self.is_valid: Callable[[object], bool] = compile_predicate(document)
        self._rules = _rule_map(document)
        self._validator = None

    def check(self, instance: object) -> list[SchemaFinding]:
        """Every finding for *instance*; nothing to do beyond the fast predicate when it is valid."""
        return [] if self.is_valid(instance) else self.findings(instance)

    def findings(self, instance: object) -> list[SchemaFinding]:
        """Every finding, as ``jsonschema`` reports it; ``format``/``pattern`` pairs counted once."""
        if self._validator is None:
            cls = _jsonschema_class()
            self._validator = cls(self.document, format_checker=cls.FORMAT_CHECKER)
        out: dict[tuple, tuple] = {}
        for error in self._validator.iter_errors(instance):
            rule, level = self._rules.get(id(error.schema), ("schema", VIOLATION))
            path = tuple((isinstance(p, str), p) for p in error.absolute_path)  # indexes numerically, keys by name
            same = "shape" if error.validator in ("format", "pattern") else error.message
            out.setdefault((path, rule, same), (path, rule, level, _message(error)))
        return [
            SchemaFinding("".join("/" + pointer_escape(str(p)) for _, p in path), rule, level, message)
            for path, rule, level, message in sorted(out.values())
        ]


def _rule_map(document: dict) -> dict[int, tuple[str, str]]:
    """id(subschema) -> (rule, level) for every subschema, by lexical nesting."""
    out: dict[int, tuple[str, str]] = {}

    def walk(node: object, rule: str, level: str) -> None:
        if not isinstance(node, dict):
            return
        rule = node.get("x-rule", rule)
        out[id(node)] = (rule, level)
        for key, value in node.items():
            for sub in _subschemas(key, value):
                walk(sub, rule, ADVISORY if key == "x-advisory" else level)

    walk(document, "schema", VIOLATION)
    return out


def _subschemas(keyword: str, value: object) -> list:
    """The subschemas held by *keyword* (none for keywords whose value is data)."""
    if keyword in ("properties", "$defs"):
        return list(value.values())
    if keyword in ("allOf", "anyOf"):
        return list(value)
    if keyword in ("items", "additionalProperties", "propertyNames", "not", "if", "then", "else", "x-advisory"):
        return [value]
    return []


def _short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _message(error) -> str:
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
def _jsonschema_class():
    """``Draft202012Validator`` plus ``x-advisory`` and ``x-distinctPointers`` (imported lazily)."""
    from jsonschema import Draft202012Validator, ValidationError, validators

    def advisory(validator, subschema, instance, schema):
        yield from validator.descend(instance, subschema)

    def distinct(validator, pointers, instance, schema):
        if not distinct_pointers(instance, pointers):
            first, last = pointers[0], pointers[-1]
            yield ValidationError(
                f"{_short(_resolve(instance, last))} equals {first} (the same id)",
                path=[p.replace("~1", "/").replace("~0", "~") for p in last.split("/")[1:]],
            )

    return validators.extend(Draft202012Validator, {"x-advisory": advisory, "x-distinctPointers": distinct})


# ----------------------------------------------------------------------------- the fast predicate


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
(None: that checker does not check the format in this environment)."""

_ANNOTATIONS = frozenset({"$schema", "$id", "$defs", "$comment", "title", "description", "x-rule", "examples", "default"})
_PLAIN_TYPES = {"string": str, "object": dict, "array": list, "boolean": bool}
"""Types ``isinstance`` decides exactly as jsonschema does (unlike number/integer, where bool is excluded)."""
_TYPE_TESTS = {
    "null": "x is None",
    "number": "(isinstance(x, Number) and not isinstance(x, bool))",
    "integer": "((isinstance(x, int) and not isinstance(x, bool)) or (isinstance(x, float) and x.is_integer()))",
}


def compile_predicate(document: dict) -> Callable[[object], bool]:
    """A function telling whether an instance satisfies *document* (every rule, both levels)."""
    gen = _Codegen(document)
    entry = gen.function(document)
    namespace = gen.namespace
    exec(compile("".join(gen.chunks), "<schema predicate>", "exec"), namespace)  # noqa: S102 - our own schema
    for table in gen.tables:  # property name -> the expression of its checker
        for prop, check in table.items():
            table[prop] = eval(check, namespace)  # noqa: S307 - a name we generated
    return namespace[entry]


class _Codegen:
    """Emits one Python function per distinct subschema; each returns False on the first failure."""

    def __init__(self, root: dict) -> None:
        self.root = root
        self.names: dict[object, str] = {}
        self.chunks: list[str] = []
        self.tables: list[dict] = []
        self.namespace: dict[str, object] = {"Number": numbers.Number, "distinct": distinct_pointers, "learn": _learn}

    def constant(self, value: object) -> str:
        name = f"_c{len(self.namespace)}"
        self.namespace[name] = value
        return name

    def function(self, schema: object) -> str:
        """The generated function for *schema* (equal leaf schemas share one)."""
        while isinstance(schema, dict) and set(schema) - _ANNOTATIONS == {"$ref"}:
            schema = self.resolve(schema["$ref"])
        leaf = isinstance(schema, dict) and not any(isinstance(v, (dict, list)) for k, v in schema.items() if k != "enum")
        key = json.dumps(schema, sort_keys=True) if leaf else id(schema)
        if key not in self.names:
            self.names[key] = name = f"_s{len(self.names)}"
            body = self.body(schema)
            self.chunks.append(f"def {name}(x):\n{body}")
        return self.names[key]

    def checker(self, schema: object) -> str:
        """An expression for a one-argument callable checking *schema*: ``str.__instancecheck__`` or a function."""
        if (
            isinstance(schema, dict)
            and set(schema) - _ANNOTATIONS == {"type"}
            and isinstance(schema["type"], str)
            and schema["type"] in _PLAIN_TYPES
        ):
            return f"{_PLAIN_TYPES[schema['type']].__name__}.__instancecheck__"
        return self.function(schema)

    def body(self, schema: object) -> str:
        if schema is True or schema is False:
            return f"    return {schema}\n"
        if not isinstance(schema, dict):
            raise ValueError(f"not a schema: {schema!r}")
        typed = _PLAIN_TYPES.get(schema["type"]) if isinstance(schema.get("type"), str) else None
        conds: list[str] = []  # each must hold
        loops: list[str] = []  # statements that return False
        for key, value in schema.items():
            if key in _ANNOTATIONS or key in ("then", "else"):
                continue
            if key in ("allOf", "x-advisory"):
                conds += [f"{self.function(sub)}(x)" for sub in (value if key == "allOf" else [value])]
            else:
                self.keyword(schema, key, value, typed, conds, loops)
        if not loops:
            return f"    return {' and '.join(conds) or 'True'}\n"
        return "".join(f"    if not {c}: return False\n" for c in conds) + "".join(loops) + "    return True\n"

    def keyword(self, schema: dict, key: str, value: object, typed: type | None, conds: list[str], loops: list[str]) -> None:  # noqa: C901
        def only(kind: type, cond: str) -> str:  # *cond* applies when x is a *kind*
            return f"({cond})" if typed is kind else f"(not isinstance(x, {kind.__name__}) or {cond})"

        def loop(kind: type, head: str, lines: list[str]) -> None:
            if typed is kind:
                loops.append(f"    {head}\n" + "".join(f"        {line}\n" for line in lines))
            else:
                loops.append(
                    f"    if isinstance(x, {kind.__name__}):\n        {head}\n"
                    + "".join(f"            {line}\n" for line in lines)
                )

        if key == "type":
            types = value if isinstance(value, list) else [value]
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
        elif key == "required":
            conds.append(only(dict, " and ".join(f"{name!r} in x" for name in value) or "True"))
        elif key == "additionalProperties":
            if "patternProperties" in schema:
                raise ValueError("patternProperties is not supported")
            known = self.constant(frozenset(schema.get("properties", ())))
            if value is False:
                conds.append(only(dict, f"{known}.issuperset(x)"))
            elif value is not True:
                loop(dict, "for k, e in x.items():", [f"if k not in {known} and not {self.checker(value)}(e): return False"])
        elif key in ("propertyNames", "items"):
            if key == "items" and "prefixItems" in schema:
                raise ValueError("prefixItems is not supported")
            loop(dict if key == "propertyNames" else list, "for e in x:", [f"if not {self.checker(value)}(e): return False"])
        elif key in ("minProperties", "minItems", "maxItems", "minLength"):
            kind = {"minProperties": dict, "minLength": str}.get(key, list)
            conds.append(only(kind, f"len(x) {'<=' if key == 'maxItems' else '>='} {int(value)}"))
        elif key == "minimum":
            conds.append(f"(not isinstance(x, Number) or isinstance(x, bool) or not x < {value!r})")
        elif key == "pattern":  # strings that matched are remembered: enum names and counters repeat a lot
            memo = self.constant(set())
            conds.append(only(str, f"(x in {memo} or learn({memo}, {self.constant(re.compile(value))}, x))"))
        elif key == "format":
            if value not in FORMATS:
                raise ValueError(f"format {value!r} is not supported")
            if FORMATS[value] is not None:
                conds.append(f"{self.constant(FORMATS[value])}(x)")
        elif key in ("const", "enum"):
            conds.append(f"({' or '.join(_equals('x', o) for o in ([value] if key == 'const' else value))})")
        elif key == "anyOf":
            conds.append(f"({' or '.join(f'{self.function(s)}(x)' for s in value)})")
        elif key == "not":
            conds.append(f"not {self.function(value)}(x)")
        elif key == "if":
            then, other = (self.function(schema.get(k, True)) for k in ("then", "else"))
            conds.append(f"({then}(x) if {self.function(value)}(x) else {other}(x))")
        elif key == "$ref":
            conds.append(f"{self.function(self.resolve(value))}(x)")
        elif key == "x-distinctPointers":
            conds.append(f"distinct(x, {self.constant(list(value))})")
        else:
            raise ValueError(f"keyword {key!r} is not supported")

    def resolve(self, ref: str) -> object:
        if not ref.startswith("#"):
            raise ValueError(f"only local references are supported, not {ref!r}")
        node = _resolve(self.root, ref[1:])
        if node is _MISSING:
            raise ValueError(f"unresolvable reference {ref!r}")
        return node


_MEMO_LIMIT = 1 << 12
_MEMO_LENGTH = 64


def _learn(memo: set[str], pattern: re.Pattern, text: str) -> bool:
    """``pattern.search(text)``, as jsonschema applies ``pattern``; short matching texts join *memo*."""
    if pattern.search(text) is None:
        return False
    if len(text) <= _MEMO_LENGTH and len(memo) < _MEMO_LIMIT:
        memo.add(text)
    return True


def _equals(var: str, option: object) -> str:
    """Python for jsonschema's ``equal(var, option)`` with a scalar *option* (bool is not int)."""
    if option is None or isinstance(option, bool):
        return f"{var} is {option!r}"
    if isinstance(option, str):
        return f"{var} == {option!r}"
    if isinstance(option, (int, float)):
        return f"({var} == {option!r} and not isinstance({var}, bool))"
    raise ValueError(f"only scalar const/enum values are supported, not {option!r}")
