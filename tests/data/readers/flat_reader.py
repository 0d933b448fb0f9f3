"""A small Antigravity reader, written for agy-audit's conformance tests: what a typical tool takes
from a store, and the way many do it.

It reads, under ``$HOME/.gemini/antigravity*/``, each session's flat compact transcript
(``brain/<id>/.system_generated/logs/transcript.jsonl``; not its chunks) and each sidecar
(``conversations/<id>.trajectory.json``), and prints one JSON document: per session (``<root>/<id>``)
the prompts (``type`` USER_INPUT), the model's planner responses (``type`` PLANNER_RESPONSE and
``source`` MODEL) and the first and last ``created_at``; per sidecar the number of steps of each type.

``--strict`` indexes the keys it needs (a record without one raises: a traceback, exit 1);
``--warn`` names on stderr each record it cannot place (and goes on).
"""

import json
import sys
from collections import Counter
from pathlib import Path

strict, warn = "--strict" in sys.argv, "--warn" in sys.argv
home = Path.home()
sessions = {}
for transcript in sorted(home.glob(".gemini/antigravity*/brain/*/.system_generated/logs/transcript.jsonl")):
    brain = transcript.parents[2]
    prompts = responses = 0
    times = []
    for n, line in enumerate(transcript.read_text(encoding="utf-8").splitlines(), 1):
        try:
            record = json.loads(line)
        except ValueError:
            continue
        kind, source = (record["type"], record["source"]) if strict else (record.get("type"), record.get("source"))
        if kind == "USER_INPUT":
            prompts += 1
        elif kind == "PLANNER_RESPONSE" and source == "MODEL":
            responses += 1
        elif warn and kind != "PLANNER_RESPONSE" and (source is None or kind is None):
            print(f"flat_reader: {transcript.name}:{n}: a record without type or source", file=sys.stderr)
        created = record["created_at"] if strict else record.get("created_at")
        if created is not None:
            times.append(created)
    key = f"{brain.parents[1].name}/{brain.name}"
    sessions[key] = {
        "prompts": prompts,
        "responses": responses,
        "first": min(times, default=None),
        "last": max(times, default=None),
    }
sidecars = {}
for sidecar in sorted(home.glob(".gemini/antigravity*/conversations/*.trajectory.json")):
    doc = json.loads(sidecar.read_text(encoding="utf-8"))
    steps = Counter(step.get("type", "?") for step in doc.get("steps", []))
    sidecars[f"{sidecar.parents[1].name}/{sidecar.name}"] = dict(sorted(steps.items()))
print(json.dumps({"sessions": sessions, "sidecars": sidecars}, indent=1, sort_keys=True))
