"""The fast predicate behind ``schemas.Schema.is_valid``: a Draft 2020-12 schema compiled to Python
source (``compile_predicate``), one function per distinct subschema, each returning False on the
first failure. Any keyword, format or reference it cannot decide exactly is refused at compile time
(``UnsupportedSchema``), wherever it sits in the document.
"""

from __future__ import annotations

import json
import numbers
import re
from collections.abc import Callable
from typing import Any
from urllib.parse import unquote, urldefrag, urljoin, urlsplit

from audit.checks.schema_keywords import (
    DICT_APPLICATORS,
    IN_PLACE,
    LIST_APPLICATORS,
    MISSING,
    REFUSED,
    SUPPORTED,
    distinct_pointers,
    is_annotation,
    keyed_subschemas,
    short,
    subschemas,
)
from audit.checks.schema_runtime import FORMATS, json_key, learn, multiple, unique
from audit.strictjson import pointer_escape


class UnsupportedSchema(ValueError):
    """A schema the compiler refuses, at compile time: the message names the keyword, value or
    reference and where it sits in the schema (an RFC 6901 pointer)."""


METASCHEMA = "https://json-schema.org/draft/2020-12/schema"


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
            raise UnsupportedSchema(f"{where}: not a schema: {short(node)}")
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
            if key in REFUSED:
                raise UnsupportedSchema(f"{where}: keyword {key!r} is not supported ({REFUSED[key]})")
            if key not in SUPPORTED and not is_annotation(key):
                raise UnsupportedSchema(f"{where}: keyword {key!r} is not supported")
            if key in DICT_APPLICATORS and not isinstance(value, dict):
                raise UnsupportedSchema(f"{where}: {key!r} must be an object of schemas")
            if key in LIST_APPLICATORS and not (isinstance(value, list) and (value or key == "prefixItems")):
                raise UnsupportedSchema(f"{where}: {key!r} must be a non-empty array of schemas")
            if key in SUPPORTED or key == "$defs":
                for step, sub in keyed_subschemas(key, value):
                    self._walk(sub, base, f"{pointer}/{pointer_escape(key)}" + (f"/{step}" if step else ""))


def _schema_pointer(node: object, pointer: str) -> object:
    """The value at the JSON pointer *pointer* below *node* (objects and arrays), or ``MISSING``."""
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and (part == "0" or part[0] != "0") and int(part) < len(node):
            node = node[int(part)]
        else:
            return MISSING
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
            "learn": learn,
            "key": json_key,
            "unique": unique,
            "multiple": multiple,
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
        node = self.index.resources.get(uri, MISSING)
        if node is not MISSING:
            fragment = unquote(fragment)
            if fragment.startswith("/"):
                node = _schema_pointer(node, fragment)
            elif fragment:
                node = self.index.anchors.get((uri, fragment), MISSING)
        if node is MISSING:
            raise UnsupportedSchema(f"{where}: $ref {ref!r} is not supported: it does not resolve within this document")
        if not isinstance(node, bool) and id(node) not in self.index.base:
            raise UnsupportedSchema(f"{where}: $ref {ref!r} points at a value that is not a subschema")
        return node

    def _refuse_in_place_cycles(self) -> None:
        """A chain of references and in-place applicators that returns to where it started would
        recurse for ever on any instance: refuse it."""
        edges: dict[int, list[dict[str, Any]]] = {}
        for node in self.index.nodes:
            out = [sub for key in IN_PLACE if key in node for sub in subschemas(key, node[key])]
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
            raise UnsupportedSchema(f"not a schema: {short(schema)}")
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
                raise UnsupportedSchema(f"{where}: {name} must be a non-negative integer, not {short(value)}")
            return int(value)

        def limit() -> str:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise UnsupportedSchema(f"{where}: {key} must be a number, not {short(value)}")
            return self.constant(value)

        def regex(text: object) -> str:
            if not isinstance(text, str):
                raise UnsupportedSchema(f"{where}: a pattern must be a string, not {short(text)}")
            try:
                return self.constant(re.compile(text))
            except re.error as exc:
                raise UnsupportedSchema(f"{where}: pattern {text!r} is not supported by Python's re ({exc})") from None

        if key == "type":
            types = value if isinstance(value, list) else [value]
            unknown = [t for t in types if t not in _PLAIN_TYPES and t not in _TYPE_TESTS]
            if unknown or not types:
                raise UnsupportedSchema(f"{where}: type {short(value)} is not a JSON Schema type")
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
                conds.append(f"(key(x) in {self.constant(frozenset(json_key(o) for o in options))})")
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


def _is_scalar(option: object) -> bool:
    return option is None or isinstance(option, (bool, str, int, float))


def _equals(var: str, option: object) -> str:
    """Python for jsonschema's ``equal(var, option)`` with a scalar *option* (bool is not int)."""
    if option is None or isinstance(option, bool):
        return f"{var} is {option!r}"
    if isinstance(option, str):
        return f"{var} == {option!r}"
    return f"({var} == {option!r} and not isinstance({var}, bool))"
