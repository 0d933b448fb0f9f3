"""Consumer profiles: the bundled ones (schema, citations, honesty), verdicts per surface,
``compare --consumer`` / ``--fail-on consumer:NAME``, ``consumers`` and ``consumers check``."""

from __future__ import annotations

import json
import shlex
from pathlib import Path
from typing import get_args

import pytest

from audit.actions import baseline_writer
from audit.checks import baselines, consumers
from audit.checks.baselines import Baseline
from audit.checks.consumers import (
    AT_RISK,
    BREAKS,
    OK,
    UNKNOWN,
    Entry,
    FailOn,
    Profile,
    judge,
    parse_fail_on,
)
from audit.checks.consumers.entry_coverage import EXERCISED, NOT_CHECKABLE, NOT_EXERCISED, CoverageStatus
from audit.checks.consumers.profiles import BREAKS_ON_OTHER, DROPS_OTHER, OPTIONAL, REQUIRES, SKIPS_OTHER, Mode, Other
from audit.checks.consumers.verdicts import NOT_COMPARABLE_VERDICT, RANK, VERDICT_OF_RANK, ConsumerVerdict, Effect
from audit.checks.drift import Observed, compare, fingerprints_to_compare
from audit.checks.fingerprint import COMPLETE_SCOPE, SURFACES, Fingerprint
from audit.checks.schemas import load as load_schema
from audit.errors import InputError, UsageError
from audit.resources import data_path
from audit.store import install
from audit.testing.builder import StoreBuilder
from tests.cli_capture import cli
from tests.fake_agy import agy_on_path
from tests.output_schema import ci_result, envelope

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "examples" / "home"
F10 = "gen_metadata.data.chat_model.usage.response_output_tokens"
F3 = "gen_metadata.data.chat_model.usage.output_tokens"
F9 = "gen_metadata.data.chat_model.usage.thinking_output_tokens"
BUNDLED = sorted(p.stem for p in data_path("consumers").glob("*.json"))


# ----------------------------------------------------------------------------- helpers


def _baseline(complete: bool = True, **lines: tuple[str, ...]) -> Baseline:
    fps = {s: Fingerprint.of(s, v) for s, v in lines.items()}
    return Baseline(
        "agy-1.0.0",
        "1.0.0",
        "2026-01-01",
        "0.1.0",
        COMPLETE_SCOPE if complete else "partial-unknown-scoped",
        {s: fp.digest for s, fp in fps.items()},
        dict.fromkeys(fps, "computed from a test corpus"),
        None,
        {s: fp.lines for s, fp in fps.items()},
    )


def _observed(complete: bool = True, **lines: tuple[str, ...]) -> Observed:
    fps = {s: Fingerprint.of(s, v) for s, v in lines.items()}
    return Observed("test corpus", fps, complete, COMPLETE_SCOPE if complete else "partial-unknown-scoped")


def _profile(*entries: Entry) -> Profile:
    return Profile("tool", "owner/tool", "@1234567", "a test tool", entries)


def _entry(surface: str, path: str, mode: str = "requires", accepts: tuple[str, ...] | None = None) -> Entry:
    return Entry(surface, path, mode, "owner/tool:src/x.go@1234567", "read", accepts)


def _verdict(entry: Entry, before: tuple[str, ...], after: tuple[str, ...], *, complete: bool = True):
    surface = entry.surface
    base, seen = _baseline(**{surface: before}), _observed(complete, **{surface: after})
    return judge(_profile(entry), compare(base, seen), base, seen)


@pytest.fixture(scope="module")
def sample_lines() -> dict[str, tuple[str, ...]]:
    observed = fingerprints_to_compare([SAMPLE])
    return {s: fp.lines for s, fp in observed.fingerprints.items()}


def _write_baseline(directory: Path, name: str, lines: dict[str, tuple[str, ...]]) -> Path:
    fps = {s: Fingerprint.of(s, v) for s, v in lines.items()}
    b = Baseline(
        name,
        baselines.version_of(name),
        "2026-10-01",
        "0.1.0",
        COMPLETE_SCOPE,
        {s: fp.digest for s, fp in fps.items()},
        dict.fromkeys(fps, "computed from a swept corpus (test)"),
        None,
        {s: fp.lines for s, fp in fps.items()},
    )
    return baseline_writer.write(b, directory)


# ----------------------------------------------------------------------------- bundled profiles


def test_the_bundled_profiles_and_their_schema():
    assert BUNDLED == [
        "agent-session-reader",
        "agents-tree",
        "agentsview",
        "agy-reader",
        "anysession",
        "cli-sessions",
        "codeburn",
        "converseek",
        "deja-vu",
        "dhi-orbit",
        "ferry-cli",
        "interlatch",
        "pentimento",
        "search-clanker-history",
        "session-compass",
        "sessionfs",
        "tokstat",
        "vibewatt",
    ]
    schema = load_schema("consumer-profile")
    for name in BUNDLED:
        doc = json.loads((data_path("consumers") / f"{name}.json").read_text())
        assert schema.check(doc) == [], name
        assert doc["name"] == name and doc["version"] and doc["describes"]
    assert [p.name for p in consumers.bundled()] == BUNDLED


def test_the_typed_vocabularies_are_the_schema_s_and_their_constants():
    """An entry's mode and other are exactly what the profile schema allows; each constant is a value
    of its type; a verdict is the worst effect's, not comparable when only unknowns were judged."""
    entry = load_schema("consumer-profile").document["$defs"]["entry"]["properties"]
    assert list(get_args(Mode)) == entry["mode"]["enum"] == [REQUIRES, OPTIONAL]
    assert list(get_args(Other)) == entry["other"]["enum"] == [BREAKS_ON_OTHER, DROPS_OTHER, SKIPS_OTHER]
    assert get_args(Effect) == (OK, AT_RISK, BREAKS, UNKNOWN) and sorted(RANK, key=RANK.__getitem__) == [
        UNKNOWN,
        OK,
        AT_RISK,
        BREAKS,
    ]
    assert [VERDICT_OF_RANK[RANK[e]] for e in (UNKNOWN, OK, AT_RISK, BREAKS)] == [NOT_COMPARABLE_VERDICT, OK, AT_RISK, BREAKS]
    assert get_args(ConsumerVerdict) == (OK, AT_RISK, BREAKS, NOT_COMPARABLE_VERDICT)
    assert get_args(CoverageStatus) == (EXERCISED, NOT_EXERCISED, NOT_CHECKABLE)


def test_every_bundled_entry_cites_the_consumer_s_own_repository_or_release():
    for profile in consumers.bundled():
        assert profile.entries
        kind, _, package = profile.repository.partition(":")
        for entry in profile.entries:
            if kind == "pypi":  # pypi:NAME==VERSION:path:LINE, the release the profile describes
                assert entry.cite.startswith(f"pypi:{package}=={profile.version.split()[0]}:"), entry
            elif kind == "npm":
                assert entry.cite.startswith(f"npm:{package}@{profile.version.split()[0]}:"), entry
            else:
                repo, _, rest = entry.cite.partition(":")
                path, _, commit = rest.rpartition("@")
                assert repo == profile.repository and path and len(commit) >= 7, entry


def _known_lines(sample_lines) -> dict[str, set[str]]:
    known: dict[str, set[str]] = {s: set() for s in SURFACES}
    for b in baselines.listing(baselines.bundled_dir(), bundled=True):
        for surface, lines in b.lines.items():
            known[surface].update(line.rpartition("\t")[0] for line in lines)
    for surface, lines in sample_lines.items():
        known[surface].update(line.rpartition("\t")[0] for line in lines)
    return known


SYNTHETIC = frozenset({"summaries", "history", "cache", "artifacts", "roots"})
"""Surfaces whose sample lines come from builder-made per-install files (``audit.testing.summaries``)."""


def test_every_required_path_is_in_a_bundled_baseline_or_the_fixture_unless_marked(sample_lines):
    """A required entry names a path some bundled baseline or the sample store (examples/home,
    the builder's fixture) shows, or says ``observed: false``; and ``observed: false`` is never
    stale (a path it marks is really absent from both)."""
    known = _known_lines(sample_lines)
    roots = consumers.store_roots([SAMPLE])
    for profile in consumers.bundled():
        for entry in profile.entries:
            if entry.surface == "layout":
                seen = any(p.is_file() for r in roots for p in r.glob(entry.path))
            elif consumers.unfingerprinted(entry) is not None:
                continue
            else:
                match = consumers.pattern(entry.path).fullmatch
                seen = any(match(p) for p in known[entry.surface])
                if entry.other is not None:  # a value filter: its values are recorded at <surface>:<path>
                    values = consumers.pattern(f"{entry.surface}:{entry.path}").fullmatch
                    seen = seen or any(values(p) for p in known["values"])
            if entry.mode == "requires":
                assert seen or not entry.observed, f"{profile.name}: {entry.label} is in no baseline or fixture"
            if entry.surface in SYNTHETIC or (entry.surface == "layout" and install.kind_of(entry.path) is not None):
                continue  # the sample's per-install files are synthetic: holding a path there is no fact agy writes it
            assert seen != (not entry.observed), f"{profile.name}: {entry.label}: observed flag is {entry.observed}"


def test_profile_files_are_checked_against_the_schema(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"profile": 1, "name": "x", "repository": "a/b", "version": "1", "describes": "d", "entries": []}')
    with pytest.raises(InputError, match=r"bad.json: not a consumer profile: /entries: \[\] should be non-empty"):
        consumers.load(bad)
    with pytest.raises(UsageError, match="nope: no such consumer profile"):
        consumers.resolve(["nope"])
    code, out, _ = cli("verify-contract", "--kind", "profile", data_path("consumers"))
    assert code == 0 and out.endswith(
        "profile: 18 file(s) checked, 18 valid, 0 with errors, 0 unreadable; 0 error(s), 0 warning(s)\n"
    )
    code, out, _ = cli("verify-contract", "--kind", "profile", bad)
    assert code == 1 and "consumer-profile/entries" in out


# ----------------------------------------------------------------------------- verdicts per surface

SIDECAR = ("\tobject", "steps\tarray", "steps.[]\tobject", "steps.[].type\tstring")
CASES = [
    # surface, entry, before, after, verdict
    ("sidecar", _entry("sidecar", "steps.[].type"), SIDECAR, SIDECAR, OK),
    ("sidecar", _entry("sidecar", "steps.[].type"), SIDECAR, SIDECAR + ("steps.[].new\tstring",), OK),
    ("sidecar", _entry("sidecar", "steps.[].type"), SIDECAR, SIDECAR[:3], BREAKS),
    ("sidecar", _entry("sidecar", "steps.[].type", "optional"), SIDECAR, SIDECAR[:3], BREAKS),
    ("sidecar", _entry("sidecar", "steps.[].type"), SIDECAR, SIDECAR[:3] + ("steps.[].type\tnumber",), BREAKS),
    ("sidecar", _entry("sidecar", "steps.[].type"), SIDECAR, SIDECAR[:3] + ("steps.[].type\tnull|string",), AT_RISK),
    (
        "sidecar",
        _entry("sidecar", "steps.[].type", accepts=("null", "string")),
        SIDECAR,
        SIDECAR[:3] + ("steps.[].type\tnull|string",),
        OK,
    ),
    (
        "sqlite",
        _entry("sqlite", "table:steps.idx"),
        ("table:steps\ttable", "table:steps.idx\tINTEGER pk=1"),
        ("table:steps\ttable", "table:steps.idx\tINTEGER pk=1"),
        OK,
    ),
    (
        "sqlite",
        _entry("sqlite", "table:steps.idx"),
        ("table:steps\ttable", "table:steps.idx\tINTEGER pk=1"),
        ("table:steps\ttable",),
        BREAKS,
    ),
    (
        "sqlite",
        _entry("sqlite", "table:steps.idx", "optional"),
        ("table:steps\ttable", "table:steps.idx\tINTEGER pk=1"),
        ("table:steps\ttable",),
        BREAKS,
    ),
    ("sqlite", _entry("sqlite", "table:steps.idx"), ("table:steps.idx\tINTEGER pk=1",), ("table:steps.idx\tTEXT pk=1",), AT_RISK),
    ("wire", _entry("wire", F10, accepts=("varint",)), (f"{F10}\tvarint",), (f"{F10}\tvarint",), OK),
    ("wire", _entry("wire", F10, accepts=("varint",)), (f"{F10}\tvarint", "x\tlen"), ("x\tlen",), BREAKS),
    ("wire", _entry("wire", F10, accepts=("varint",)), (f"{F10}\tvarint",), (f"{F10}\tlen",), BREAKS),
    ("wire", _entry("wire", F10, "optional", ("varint",)), (f"{F10}\tvarint",), (f"{F10}\tlen",), AT_RISK),
    ("wire", _entry("wire", F10, accepts=("len", "varint")), (f"{F10}\tvarint",), (f"{F10}\tlen",), OK),
    ("wire", _entry("wire", F10, accepts=("varint",)), (f"{F10}\tlen|varint",), (f"{F10}\tlen",), BREAKS),
    (
        "transcript",
        _entry("transcript", "*.content"),
        ("A\tobject", "A.content\tstring", "B\tobject", "B.content\tstring"),
        ("A\tobject", "A.content\tstring", "B\tobject", "B.content\tstring"),
        OK,
    ),
    (
        "transcript",
        _entry("transcript", "*.content"),
        ("A\tobject", "A.content\tstring", "B\tobject", "B.content\tstring"),
        ("A\tobject", "A.content\tstring", "B\tobject"),
        BREAKS,
    ),
    (
        "transcript",
        _entry("transcript", "*.content", "optional"),
        ("A\tobject", "A.content\tstring", "B\tobject", "B.content\tstring"),
        ("A\tobject", "A.content\tstring", "B\tobject"),
        BREAKS,
    ),
    (
        "transcript",
        _entry("transcript", "*.content"),
        ("A\tobject", "A.content\tstring", "B\tobject", "B.content\tstring"),
        ("A\tobject", "A.content\tarray"),
        BREAKS,
    ),
]


@pytest.mark.parametrize(("surface", "entry", "before", "after", "verdict"), CASES)
def test_verdict_per_surface(surface, entry, before, after, verdict):
    assert _verdict(entry, before, after).verdict == verdict


@pytest.mark.parametrize(
    ("after", "verdict", "reason"),
    [
        (SIDECAR + ("steps.[].kind\tstring",), OK, "unchanged"),
        (SIDECAR[:3] + ("steps.[].kind\tstring",), AT_RISK, "removed; it falls back to sidecar steps.[].kind"),
        (SIDECAR[:3], BREAKS, "removed; it falls back to sidecar steps.[].kind, which is lost too"),
    ],
)
def test_an_optional_path_gone_everywhere_breaks_unless_a_fallback_it_cites_remains(after, verdict, reason):
    """An optional path is one a record may lack; gone from every record, what the consumer read
    there is lost (a renamed ``created_at`` leaves every message untimed), unless the profile cites
    what it reads instead; gone with its fallbacks, it has nothing left to read there."""
    read = Entry(
        "sidecar", "steps.[].type", "optional", "owner/tool:src/x.go@1234567", "kind", fallback=("sidecar steps.[].kind",)
    )
    instead = _entry("sidecar", "steps.[].kind")
    base = _baseline(sidecar=SIDECAR + ("steps.[].kind\tstring",))
    seen = _observed(True, sidecar=after)
    result = judge(_profile(read, instead), compare(base, seen), base, seen)
    assert result.verdict == verdict
    assert [d.reason for d in result.decisions if d.entry is read] == [reason]


def test_a_fallback_names_another_entry_of_the_profile(tmp_path):
    entry = {"surface": "sidecar", "path": "steps.[].type", "mode": "optional", "cite": "a/b:c@abcdef0", "why": "w"}
    doc = {"profile": 2, "name": "x", "repository": "a/b", "version": "1", "describes": "d"}
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(doc | {"entries": [entry | {"fallback": ["sidecar steps.[].kind"]}]}))
    with pytest.raises(InputError, match=r"/entries/0/fallback: 'sidecar steps.\[\].kind' names no other entry of the profile"):
        consumers.load(bad)


def test_a_record_type_that_no_longer_occurs_is_not_a_removed_field():
    entry = _entry("transcript", "*.content")
    before = ("A\tobject", "A.content\tstring", "B\tobject", "B.content\tstring")
    result = _verdict(entry, before, before[:2])
    assert result.verdict == OK
    assert [(d.path, d.effect, d.reason) for d in result.decisions] == [
        ("A.content", OK, "unchanged"),
        ("B.content", UNKNOWN, "nothing of B remains (the instance is absent, not the field)"),
    ]


def test_what_no_fingerprint_shows_is_unknown_and_never_decides():
    entries = (
        _entry("sidecar", "agyReader.parentCascadeId"),
        _entry("sidecar", "executorMetadatas.[].cascadeConfig"),
        _entry("transcript", "compact.PLANNER_RESPONSE.tool_calls.[].args.Foo"),
        _entry("wire", "gen_metadata.data.chat_model.20.1"),
        _entry("rpc", "Get.x"),
        _entry("layout", "conversations/*.db"),
    )
    base = _baseline(sidecar=SIDECAR)
    seen = _observed(True, sidecar=())
    result = judge(_profile(*entries), compare(base, _observed(True, sidecar=SIDECAR[:1])), base, seen)
    assert result.verdict == "not comparable" and result.counts() == {UNKNOWN: 6}
    assert [d.reason for d in result.unknown] == [
        "the reader-owned agyReader block is left out of the sidecar fingerprint",
        "below executorMetadatas, which the sidecar fingerprint records as opaque",
        "below tool_calls.[].args, which the transcript fingerprint records as opaque",
        "below field gen_metadata.data.chat_model.20, which the .proto does not know (not parsed into)",
        "no sweep keeps the daemon's Get answers (only GetCascadeTrajectoryGeneratorMetadata)",
        "the layout surface was not compared",
    ]


def test_absent_from_a_partial_corpus_is_unknown_not_removed():
    entry = _entry("wire", F10, accepts=("varint",))
    result = _verdict(entry, (f"{F10}\tvarint", "x\tlen"), ("x\tlen",), complete=False)
    assert result.verdict == "not comparable"
    assert result.unknown[0].reason == "not observed in this corpus (no evidence of removal)"


def test_a_surface_without_lines_or_not_compared():
    entry = _entry("wire", F10)
    digest_only = _baseline(wire=(f"{F10}\tvarint",))
    digest_only.lines.clear()
    same = _observed(True, wire=(f"{F10}\tvarint",))
    assert judge(_profile(entry), compare(digest_only, same), digest_only, same).verdict == OK
    changed = _observed(True, wire=("y\tlen",))
    result = judge(_profile(entry), compare(digest_only, changed), digest_only, changed)
    assert result.verdict == "not comparable" and "records only the digest" in result.unknown[0].reason
    new = _baseline(sidecar=SIDECAR)
    result = judge(_profile(entry), compare(new, same), new, same)
    assert result.unknown[0].reason == "agy-1.0.0 does not record this surface"


def test_fail_on_parsing():
    assert parse_fail_on(None) == FailOn("drift", ())
    assert parse_fail_on(["breaking"]) == FailOn("breaking", ())
    assert parse_fail_on(["consumer:codeburn", "consumer:codeburn"]) == FailOn("never", ("codeburn",))
    assert parse_fail_on(["consumer:codeburn"]).text == "consumer:codeburn"
    assert parse_fail_on(["drift", "consumer:a"]).text == "drift, consumer:a"
    with pytest.raises(UsageError, match="--fail-on sometimes: must be one of drift, breaking, never or consumer:NAME"):
        parse_fail_on(["sometimes"])
    with pytest.raises(UsageError, match="drift and never contradict each other"):
        parse_fail_on(["drift", "never"])
    with pytest.raises(UsageError, match="needs a consumer name"):
        parse_fail_on(["consumer:"])


# ----------------------------------------------------------------------------- compare --consumer


@pytest.fixture
def pair(tmp_path, sample_lines):
    """A recorded baseline from the sample store and a directory for a second one."""
    _write_baseline(tmp_path / "fp", "agy-1.0.0", sample_lines)
    return tmp_path / "fp" / "agy-1.0.0", tmp_path / "now", sample_lines


def test_codeburn_is_only_at_risk_when_usage_field_10_is_removed(pair):
    """Field 10 (response tokens) is optional to codeburn: it adds 9 and 10 for the cost, and
    without 10 takes all of field 3, its fallback (the profile format 1 had it required: a false
    "breaks")."""
    base, now, lines = pair
    wire = tuple(line for line in lines["wire"] if not line.startswith(F10 + "\t"))
    current = _write_baseline(now, "agy-1.0.1", lines | {"wire": wire})
    code, out, _ = cli("compare", current, "--baseline", base, "--consumer", "codeburn")
    assert out.endswith(
        f"\ncodeburn: at risk (1 deciding line(s))\n  wire {F10}\tvarint  [optional: removed; it falls back to wire {F3}]\n"
    )
    assert cli("compare", current, "--baseline", base, "--fail-on", "consumer:codeburn")[0] == 0


def test_codeburn_breaks_when_every_output_count_of_usage_is_removed(pair):
    """codeburn takes the output from usage fields 9 and 10, reconciled with 3, or from 3 alone:
    each falls back to the others; all three gone, it counts no output."""
    base, now, lines = pair
    gone = (F3, F9, F10)
    assert all(f"{f}\tvarint" in lines["wire"] for f in gone)
    alone = _write_baseline(now, "agy-1.0.2", lines | {"wire": tuple(x for x in lines["wire"] if not x.startswith(F3 + "\t"))})
    code, out, _ = cli("compare", alone, "--baseline", base, "--consumer", "codeburn")
    assert out.endswith(
        f"\ncodeburn: at risk (1 deciding line(s))\n  wire {F3}\tvarint  [optional: removed; it falls back to wire {F9}, wire {F10}]\n"
    )
    wire = tuple(line for line in lines["wire"] if line.split("\t")[0] not in gone)
    current = _write_baseline(now, "agy-1.0.1", lines | {"wire": wire})
    code, out, err = cli("compare", current, "--baseline", base, "--consumer", "codeburn")
    assert code == 1 and err == ""
    assert "\ncodeburn  breaks" in out
    assert out.endswith(
        "\ncodeburn: breaks (3 deciding line(s))\n"
        f"  wire {F3}\tvarint  [optional: removed; it falls back to wire {F9}, wire {F10}, which is lost too]\n"
        f"  wire {F9}\tvarint  [optional: removed; it falls back to wire {F3}, which is lost too]\n"
        f"  wire {F10}\tvarint  [optional: removed; it falls back to wire {F3}, which is lost too]\n"
    )
    code, out, _ = cli("compare", current, "--baseline", base, "--consumer", "codeburn", "--format", "json")
    envelope = json.loads(out)
    doc = envelope["result"]
    assert code == 1 and doc["failOn"] == "drift" and envelope["verdict"] == "fail"
    (result,) = doc["consumers"]
    assert result["consumer"] == "codeburn" and result["verdict"] == BREAKS and result["fails"] is True
    assert [(d["path"], d["class"], d["baseline"], d["current"], d["mode"]) for d in result["deciding"]] == [
        (f, "removed", "varint", None, "optional") for f in gone
    ]
    assert result["deciding"][0]["cite"] == "npm:codeburn@0.9.15:dist/main.js:8449-8458"
    # --fail-on consumer:NAME fails only for that consumer
    assert cli("compare", current, "--baseline", base, "--fail-on", "consumer:codeburn")[0] == 1
    assert cli("compare", current, "--baseline", base, "--fail-on", "consumer:deja-vu")[0] == 0
    assert cli("compare", current, "--baseline", base, "--fail-on", "never")[0] == 0
    code, _, err = cli("compare", current, "--baseline", base, "--consumer", "codeburn", "--fail-on", "consumer:deja-vu")
    assert code == 2 and "--fail-on consumer:deja-vu: not among the consumers compared (codeburn)" in err


def test_codeburn_is_ok_with_only_a_new_optional_field(pair):
    base, now, lines = pair
    extra = "gen_metadata.data.chat_model.usage.cache_write_tokens\tvarint"
    current = _write_baseline(now, "agy-1.0.1", lines | {"wire": tuple(sorted(lines["wire"] + (extra,)))})
    code, out, _ = cli("compare", current, "--baseline", base, "--consumer", "codeburn", "--format", "json")
    doc = json.loads(out)["result"]
    assert code == 1 and doc["counts"]["added"] == 1  # the drift itself still fails under --fail-on drift
    assert [(r["consumer"], r["verdict"], r["deciding"]) for r in doc["consumers"]] == [("codeburn", OK, [])]
    assert cli("compare", current, "--baseline", base, "--fail-on", "consumer:codeburn")[0] == 0


def test_a_user_profile_file_works_like_a_bundled_one(pair, tmp_path):
    base, now, lines = pair
    mine = tmp_path / "mine.json"
    mine.write_text(
        json.dumps(
            {
                "profile": 1,
                "name": "mine",
                "repository": "me/mine",
                "version": "v0.1",
                "describes": "my viewer",
                "entries": [
                    {
                        "surface": "transcript",
                        "path": "compact.*.step_index",
                        "mode": "requires",
                        "cite": "me/mine:main.py@abcdef0",
                        "why": "order",
                    },
                    {
                        "surface": "transcript",
                        "path": "compact.USER_INPUT.content",
                        "mode": "optional",
                        "cite": "me/mine:main.py@abcdef0",
                        "why": "text",
                    },
                ],
            }
        )
    )
    transcript = tuple(line for line in lines["transcript"] if not line.startswith("compact.USER_INPUT.content\t"))
    current = _write_baseline(now, "agy-1.0.1", lines | {"transcript": transcript})
    code, out, _ = cli("compare", current, "--baseline", base, "--consumer", str(mine), "--fail-on", "consumer:mine")
    assert code == 1
    assert out.endswith(
        "\nmine: breaks (1 deciding line(s))\n  transcript compact.USER_INPUT.content\tstring  [optional: removed: in no "
        "record now, so it loses what it read there (optional, and no fallback cited)]\n"
    )
    code, out, _ = cli("compare", current, "--baseline", base, "--consumer", str(mine), "--format", "markdown")
    assert "| consumer | verdict | breaks | at risk | ok | unknown | version |" in out
    assert "| mine | breaks | 1 | 0 | 1 | 0 | v0.1 |" in out
    assert (
        "| `transcript compact.USER_INPUT.content` | `string` |  | optional | removed: in no record now, so it loses what it "
        "read there (optional, and no fallback cited) |"
    ) in out


def test_compare_judges_every_bundled_consumer_by_default(pair):
    base, _, _ = pair
    code, out, _ = cli("compare", base, "--baseline", base, "--format", "json")
    doc = json.loads(out)["result"]
    assert code == 0 and [r["consumer"] for r in doc["consumers"]] == BUNDLED
    verdicts = {r["consumer"]: r["verdict"] for r in doc["consumers"]}
    # unchanged, but ferry-cli already drops the step types the sample holds outside its list;
    # anysession reads history.jsonl and the roots, which the history and roots surfaces show
    assert verdicts == dict.fromkeys(BUNDLED, OK) | {"ferry-cli": AT_RISK}
    (ferry,) = [r for r in doc["consumers"] if r["consumer"] == "ferry-cli"]
    assert [d["reason"] for d in ferry["deciding"]] == [
        "already drops the records with 23, 90, 98 (outside step_type in {5, 7, 8, 9, 14, 15, 17, 21, 31, 33, 91, 101, "
        "127, 132, 138}; also in agy-1.0.0)"
    ]


# ----------------------------------------------------------------------------- consumers, consumers check


def test_consumers_lists_the_bundled_profiles_with_their_versions():
    code, out, _ = cli("consumers")
    assert code == 0
    assert out.splitlines()[0].split() == ["CONSUMER", "ENTRIES", "REQUIRES", "SURFACES", "VERSION"]
    assert [line.split()[0] for line in out.splitlines()[1:]] == BUNDLED
    assert "codeburn" in out and "0.9.15 (npm release, 2026-08-23)" in out
    code, out, _ = cli("consumers", "--format", "json")
    doc = json.loads(out)["result"]
    assert [(c["name"], c["version"], c["profile"]) for c in doc["consumers"]][6] == (
        "codeburn",
        "0.9.15 (npm release, 2026-08-23)",
        "bundled",
    )


def test_consumers_check_says_which_entries_the_corpus_exercises():
    code, out, _ = cli("consumers", "check", "codeburn", SAMPLE, "--format", "json")
    doc = json.loads(out)["result"]
    assert code == 0
    status = {(e["surface"], e["path"]): e["status"] for e in doc["entries"]}
    assert status[("wire", F10)] == "exercised"
    assert status[("layout", "conversations/*.db")] == "exercised"
    assert status[("wire", "gen_metadata.data.chat_model.display_name")] == "exercised"
    assert (
        status[("rpc", "GetCascadeTrajectoryGeneratorMetadata.generatorMetadata.[].chatModel.usage.inputTokens")]
        == "not checkable"
    )
    assert sum(doc["counts"].values()) == len(doc["entries"]) == 31
    code, out, _ = cli("consumers", "check", "deja-vu", SAMPLE)
    assert code == 0 and out.splitlines()[0] == "consumer: deja-vu @b264ec72cff4 (2026-08-22) (bundled)"
    assert cli("consumers", "check", "nope", SAMPLE)[0] == 2


def test_every_bundled_wire_path_is_one_the_proto_can_name():
    """A wire entry walks the messages ``cortex.proto`` gives the blob column: a named segment is
    a field of the message it is in, a number one the message does not declare (the fingerprint
    prints unknown fields by number)."""
    from audit.checks.fingerprint import BLOB_MESSAGES

    for profile in consumers.bundled():
        for entry in profile.entries:
            if entry.surface != "wire":
                continue
            table, column, *rest = entry.path.split(".")
            column = column.partition("[")[0]
            message = BLOB_MESSAGES[(table, column)]
            for segment in rest:
                if message is None:  # below a field it does not declare only numbers can follow
                    assert segment.isdigit(), f"{profile.name}: {entry.path}: {segment} is below an unknown field"
                    continue
                if segment.isdigit():
                    assert int(segment) not in message.fields_by_number, f"{profile.name}: {entry.path}: {segment} has a name"
                    message = None
                    continue
                fd = message.fields_by_name.get(segment)
                assert fd is not None, f"{profile.name}: {entry.path}: {message.name} has no field {segment}"
                message = fd.message_type


# ----------------------------------------------------------------------------- ci


@pytest.fixture
def home(tmp_path) -> Path:
    b = StoreBuilder(tmp_path / "home", seed=7)
    cli_root = b.root("cli")
    cli_root.family(children=1)
    cli_root.conversation(turns=2)
    return tmp_path / "home"


def _recorded(tmp_path: Path, home: Path, monkeypatch, version: str = "agy 1.2.11") -> Path:
    """A baseline recorded from a native sweep of *home* (agy-1.2.11 in tmp_path/fp)."""
    agy_on_path(monkeypatch, tmp_path / "bin", version)
    assert cli("sweep", "--home", home, "--source", "native", "--out", tmp_path / "first")[0] == 0
    code, _, err = cli(
        "record",
        tmp_path / "first",
        "--name",
        "agy-1.2.11",
        "--baseline-dir",
        tmp_path / "fp",
        "--compat-file",
        tmp_path / "C.md",
    )
    assert code == 0, err
    return tmp_path / "fp" / "agy-1.2.11"


def _ci_json(*argv: object) -> tuple[int, dict]:
    code, out, err = cli("ci", "--source", "native", "--no-live", "--format", "json", *argv)
    assert err == "" or code == 2, err
    return code, ci_result(envelope(out, "ci")) if out else {}


def test_ci_judges_each_consumer_and_fails_on_the_named_one(tmp_path, home, monkeypatch):
    base = _recorded(tmp_path, home, monkeypatch)
    # the baseline knew a usage field this corpus no longer has, and a user's tool requires it
    wire = base / "wire.tsv"
    extra = "gen_metadata.data.chat_model.usage.cache_write_tokens\tvarint"
    lines = tuple(sorted(wire.read_text().splitlines() + [extra]))
    wire.write_text("".join(line + "\n" for line in lines))
    doc = json.loads((base / "baseline.json").read_text())
    doc["digests"]["wire"] = Fingerprint.of("wire", lines).digest
    (base / "baseline.json").write_text(json.dumps(doc))
    mine = tmp_path / "mine.json"
    entry = {
        "surface": "wire",
        "path": extra.split("\t")[0],
        "mode": "requires",
        "cite": "me/mine:main.go@abcdef0",
        "why": "cache writes",
    }
    mine.write_text(
        json.dumps({"profile": 1, "name": "mine", "repository": "me/mine", "version": "v2", "describes": "d", "entries": [entry]})
    )

    judged = ("--home", home, "--baseline", base, "--consumer", mine, "--consumer", "codeburn")
    # kept (--out), so that the commands the report names can read it
    code, doc = _ci_json(*judged, "--fail-on", "consumer:mine", "--out", tmp_path / "judged")
    stages = {s["name"]: s["verdict"] for s in doc["stages"]}
    assert code == 1 and stages["compare"] == "pass" and stages["consumers"] == "fail"
    assert doc["failOn"] == "consumer:mine"
    checks = {c["name"]: c for s in doc["stages"] if s["name"] == "consumers" for c in s["checks"]}
    assert {n: c["verdict"] for n, c in checks.items()} == {"corpus mine": "fail", "corpus codeburn": "pass"}
    assert checks["corpus mine"]["summary"] == "breaks (1 deciding line(s)); 1 of 1 entries judged; mine v2"
    assert checks["corpus mine"]["findings"][0]["message"] == (
        "wire gen_metadata.data.chat_model.usage.cache_write_tokens: varint (requires: removed; me/mine:main.go@abcdef0)"
    )
    assert f"compare --baseline {base} --consumer {mine} --fail-on consumer:mine " in checks["corpus mine"]["command"]
    assert "--consumer codeburn --fail-on never " in checks["corpus codeburn"]["command"]
    assert [(c["target"], c["consumer"], c["verdict"], c["fails"]) for c in doc["consumers"]] == [
        ("corpus", "mine", BREAKS, True),
        ("corpus", "codeburn", OK, False),
    ]
    # the check's own command agrees with it
    assert cli(*shlex.split(checks["corpus mine"]["command"])[1:])[0] == 1
    assert cli(*shlex.split(checks["corpus codeburn"]["command"])[1:])[0] == 0

    # only codeburn may fail the run: mine breaking is a warning
    code, doc = _ci_json(
        "--home", home, "--baseline", base, "--consumer", mine, "--consumer", "codeburn", "--fail-on", "consumer:codeburn"
    )
    assert code == 0 and doc["consumers"][0]["verdict"] == BREAKS and doc["consumers"][0]["fails"] is False
    code, out, _ = cli(
        "ci", "--source", "native", "--no-live", "--home", home, "--baseline", base, "--consumer", mine, "--format", "markdown"
    )
    assert code == 1 and "### Consumers" in out and "| corpus | mine | breaks | 1 | 0 | 0 | 0 | v2 |" in out
    code, _, err = cli("ci", "--home", home, "--consumer", mine, "--fail-on", "consumer:codeburn", "--out", tmp_path / "x")
    assert code == 2 and "--fail-on consumer:codeburn: not among the consumers compared (mine)" in err
    assert not (tmp_path / "x").exists()


def test_ci_record_names_an_unchanged_newer_version_and_records_it_compatible(tmp_path, home, monkeypatch):
    _recorded(tmp_path, home, monkeypatch)
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 1.2.12 (linux/amd64)")
    compat = tmp_path / "C.md"
    code, doc = _ci_json("--home", home, "--baseline-dir", tmp_path / "fp", "--record", "--compat-file", compat)
    assert code == 0 and doc["baseline"]["name"] == "agy-1.2.11"
    statuses = {c["name"]: c["summary"].split(";")[0] for s in doc["stages"] if s["name"] == "compare" for c in s["checks"]}
    # no per-install files, no daemon answers (a native sweep): absent on both sides
    absent = {"corpus summaries", "corpus history", "corpus cache", "corpus rpc"}
    assert statuses == {name: "NOT COMPARABLE" if name in absent else "UNCHANGED" for name in statuses}
    (record,) = next(s for s in doc["stages"] if s["name"] == "record")["checks"]
    assert record["name"] == "agy-1.2.12" and record["verdict"] == "pass"
    assert record["summary"] == (
        f"recorded {tmp_path / 'fp' / 'agy-1.2.12'} as compatible with agy-1.2.11 (no surface drifted or is new); regenerated {compat}"
    )
    assert doc["recorded"] == str(tmp_path / "fp" / "agy-1.2.12") and doc["compatible"] == "agy-1.2.11"
    assert "agy version:** 1.2.12" in compat.read_text()
    # the version is recorded now: a second run names it again and refuses
    code, doc = _ci_json("--home", home, "--baseline-dir", tmp_path / "fp", "--record", "--compat-file", compat)
    (record,) = next(s for s in doc["stages"] if s["name"] == "record")["checks"]
    assert code == 1 and record["verdict"] == "fail" and "agy 1.2.12 is recorded" in record["summary"]


def test_ci_record_says_what_to_review_when_something_is_new(tmp_path, home, monkeypatch):
    base = _recorded(tmp_path, home, monkeypatch)
    (base / "wire.tsv").unlink()
    doc = json.loads((base / "baseline.json").read_text())
    del doc["digests"]["wire"], doc["provenance"]["wire"]
    (base / "baseline.json").write_text(json.dumps(doc))
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 1.2.12")
    code, doc = _ci_json("--home", home, "--baseline-dir", tmp_path / "fp", "--record", "--compat-file", tmp_path / "C.md")
    (record,) = next(s for s in doc["stages"] if s["name"] == "record")["checks"]
    assert code == 0 and doc["compatible"] is None
    assert record["summary"].endswith("; against agy-1.2.11, review: wire NEW")
    # without an agy that answers, --record alone cannot name the version
    monkeypatch.setenv("PATH", "/nonexistent")
    code, doc = _ci_json("--home", home, "--baseline-dir", tmp_path / "fp", "--record", "--compat-file", tmp_path / "C.md")
    (record,) = next(s for s in doc["stages"] if s["name"] == "record")["checks"]
    assert code == 1 and record["verdict"] == "fail" and "give --record agy-X.Y.Z" in record["summary"]
