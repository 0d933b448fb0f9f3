"""proto3 JSON of our messages, written straight from their descriptors: the walks of ``render``
and ``render_counting`` (``rendering``), the leaf values that need more than ``str`` and
``RenderError`` (``values``), and ``render_recorded``, which also records the fields every message
held (``recording``). The names other modules use are re-exported here.
"""

from audit.store.proto_json.recording import FieldSets, Unrecorded, render_recorded
from audit.store.proto_json.rendering import render, render_counting
from audit.store.proto_json.values import RenderError

__all__ = ["FieldSets", "RenderError", "Unrecorded", "render", "render_counting", "render_recorded"]
