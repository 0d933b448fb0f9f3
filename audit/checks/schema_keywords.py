"""The Draft 2020-12 keywords as agy-audit's schemas use them: which hold subschemas (and how),
which never change the answer, which the predicate compiler supports and which it refuses, and
the semantics of our own assertion ``x-distinctPointers`` (``distinct_pointers``)."""

from __future__ import annotations

from audit.strictjson import pointer_escape

DICT_APPLICATORS = ("properties", "patternProperties", "$defs", "dependentSchemas")
LIST_APPLICATORS = ("allOf", "anyOf", "oneOf", "prefixItems")
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


def subschemas(keyword: str, value: object) -> list[object]:
    """The subschemas held by *keyword* (none for keywords whose value is data)."""
    return [sub for _, sub in keyed_subschemas(keyword, value)]


def keyed_subschemas(keyword: str, value: object) -> list[tuple[str, object]]:
    """(pointer step, subschema) for each subschema held by *keyword*."""
    if keyword in DICT_APPLICATORS and isinstance(value, dict):
        return [(pointer_escape(str(k)), v) for k, v in value.items()]
    if keyword in LIST_APPLICATORS and isinstance(value, list):
        return [(str(i), v) for i, v in enumerate(value)]
    if keyword in _SINGLE_APPLICATORS:
        return [("", value)]
    return []


def short(value: object, limit: int = 80) -> str:
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 3] + "..."


MISSING = object()


def resolve_pointer(document: object, pointer: str) -> object:
    node = document
    for part in pointer.split("/")[1:]:
        part = part.replace("~1", "/").replace("~0", "~")
        if not isinstance(node, dict) or part not in node:
            return MISSING
        node = node[part]
    return node


def distinct_pointers(instance: object, pointers: list[str]) -> bool:
    """False when the string values at two of *pointers* are equal ignoring case."""
    seen = [v.lower() for v in (resolve_pointer(instance, p) for p in pointers) if isinstance(v, str)]
    return len(set(seen)) == len(seen)


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
SUPPORTED = _OUR_KEYWORDS | {
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
REFUSED = {
    "$dynamicRef": "dynamic references are not supported",
    "$dynamicAnchor": "dynamic anchors are not supported",
    "unevaluatedItems": "it needs annotation collection, which the compiler does not do",
    "unevaluatedProperties": "it needs annotation collection, which the compiler does not do",
    "$vocabulary": "custom vocabularies are not supported",
}
IN_PLACE = ("allOf", "anyOf", "oneOf", "not", "if", "then", "else", "dependentSchemas", "x-advisory")
"""Applicators whose subschemas apply to the same instance (a cycle through them never ends)."""


def is_annotation(keyword: str) -> bool:
    """True for a keyword that never changes the answer: the standard annotations and every
    ``x-`` keyword except our two assertions (``x-rule``, ``x-evidence``, ...)."""
    return keyword in _ANNOTATIONS or (keyword.startswith("x-") and keyword not in _OUR_KEYWORDS)
