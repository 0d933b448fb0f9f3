"""The ``values`` fingerprint (``audit.checks.values``), its comparison (``value-added`` /
``value-removed``), ``renamed`` changes, and how a consumer's value filter reads them."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from audit.checks.consumers import AT_RISK, BREAKS, OK, Entry, Profile, judge, named
from audit.checks.drift import Change, compare, diff_lines, diff_values
from audit.checks.values import MAX_VALUES, MORE, OTHER, Values, _walk_of, add_trajectory
from tests.consumers.test_consumers import _baseline, _observed

# ----------------------------------------------------------------------------- recording


def test_only_content_free_values_are_kept():
    v = Values()
    v.add("transcript:compact.type", "PLANNER_RESPONSE")
    v.add("transcript:compact.type", "a prompt someone wrote")
    v.add("transcript:compact.type", 15)
    v.add("transcript:compact.type", True)  # a boolean is not an enum value
    v.add("transcript:compact.type", None)
    assert v.lines() == ("transcript:compact.type\t15|(other)|PLANNER_RESPONSE",)


def test_a_field_with_too_many_values_is_recorded_as_more_alone():
    v = Values()
    for n in range(MAX_VALUES):
        v.add("sqlite:table:steps.step_type", n)
    assert v.lines()[0].endswith(f"|{MAX_VALUES - 1}")
    v.add("sqlite:table:steps.step_type", MAX_VALUES)
    v.add("sqlite:table:steps.step_type", 1)
    assert v.lines() == (f"sqlite:table:steps.step_type\t{MORE}",)


@given(st.lists(st.tuples(st.sampled_from(["a:x", "a:y"]), st.integers(0, 80)), max_size=200), st.integers(0, 200))
def test_merging_gives_what_one_pass_gives_in_any_order(items, cut):
    whole, first, second = Values(), Values(), Values()
    for key, value in items:
        whole.add(key, value)
    for key, value in items[:cut]:
        first.add(key, value)
    for key, value in items[cut:]:
        second.add(key, value)
    second.merge(first)
    assert second.lines() == whole.lines()


TRAJECTORY = {
    "trajectory": {
        "source": "CORTEX_TRAJECTORY_SOURCE_CLI",
        "steps": [
            {"type": "CORTEX_STEP_TYPE_PLANNER_RESPONSE", "metadata": {"source": "CORTEX_STEP_SOURCE_MODEL"}},
            {"type": 999, "status": "CORTEX_STEP_STATUS_DONE"},
            {"status": "free text"},
        ],
        "generatorMetadata": [{"chatModel": {"model": 342}}],
        "agyReader": {"completeness": {"profile": "X_Y"}},
    }
}


def test_a_sidecar_gives_each_enum_at_its_sidecar_path():
    v = Values()
    v.add_sidecar(TRAJECTORY)
    assert v.lines() == (
        "sidecar:generatorMetadata.[].chatModel.model\t342",
        "sidecar:source\tCORTEX_TRAJECTORY_SOURCE_CLI",
        "sidecar:steps.[].metadata.source\tCORTEX_STEP_SOURCE_MODEL",
        f"sidecar:steps.[].status\t{OTHER}|CORTEX_STEP_STATUS_DONE",
        "sidecar:steps.[].type\t999|CORTEX_STEP_TYPE_PLANNER_RESPONSE",
    )


def test_a_reconstructed_db_gives_each_enum_at_its_wire_path_as_a_number():
    v = Values()
    v.add_native(TRAJECTORY["trajectory"])
    assert v.lines() == (
        "wire:gen_metadata.data.chat_model.model\t342",
        "wire:steps.metadata.source\t2",
        "wire:steps.step_payload[999].status\t3",
        "wire:steps.step_payload[999].type\t999",
        "wire:steps.step_payload[CORTEX_STEP_TYPE_PLANNER_RESPONSE].metadata.source\t2",
        "wire:steps.step_payload[CORTEX_STEP_TYPE_PLANNER_RESPONSE].type\t15",
        f"wire:steps.step_payload[CORTEX_STEP_TYPE_UNSPECIFIED].status\t{OTHER}",
    )


def test_one_walk_gives_a_native_sweeps_sidecar_and_wire_values():
    """A native sweep's sidecar is its reconstruction rendered: one walk records both, as the two
    walks would."""
    sidecar, wire, both_sidecar, both_wire = Values(), Values(), Values(), Values()
    sidecar.add_sidecar(TRAJECTORY["trajectory"])
    wire.add_native(TRAJECTORY["trajectory"])
    add_trajectory(TRAJECTORY["trajectory"], sidecar=both_sidecar, wire=both_wire)
    assert (both_sidecar.lines(), both_wire.lines()) == (sidecar.lines(), wire.lines())
    assert both_wire.lines() and both_sidecar.lines()


def test_the_walks_planned_per_step_type_stay_bounded():
    steps = [{"type": n, "status": "CORTEX_STEP_STATUS_DONE"} for n in range(100_000, 102_000)]
    v = Values()
    v.add_native({"steps": steps})
    assert len(v.lines()) == 4000  # a type and a status line per step type
    assert v.seen["wire:steps.step_payload[101999].type"] == {"101999"}
    assert v.seen["wire:steps.step_payload[101999].status"] == {"3"}
    assert _walk_of.cache_info().currsize <= 256


def test_transcript_records_and_database_rows():
    v = Values()
    v.add_transcript(
        {"type": "PLANNER_RESPONSE", "source": "MODEL", "tool_calls": [{"name": "run_command"}, {"name": "Bad Name"}]}, "full"
    )
    v.add_rows([{"step_type": 15, "status": 3}, {"step_type": 14, "status": None}])
    assert v.lines() == (
        "sqlite:table:steps.status\t3",
        "sqlite:table:steps.step_type\t14|15",
        "transcript:full.source\tMODEL",
        f"transcript:full.tool_calls.[].name\t{OTHER}|run_command",
        "transcript:full.type\tPLANNER_RESPONSE",
    )


def test_records_are_counted_per_value_per_type_and_per_product():
    """The fields readers filter by count their records per value, in all and per product; a
    transcript record's source and status per record type as well, while the tier holds at most
    ``MAX_VALUES`` types (a corrupt tier with more stops being counted per type, not the rest)."""
    v = Values()
    v.add_transcript({"type": "RUN_COMMAND", "source": "MODEL", "status": "DONE"}, "full", "cli")
    v.add_transcript({"type": "USER_INPUT", "source": "USER_EXPLICIT"}, "full", "ide")
    v.add_transcript({"type": "a prompt", "source": "MODEL"}, "full")  # of no known product
    v.add_rows([{"step_type": 15, "status": 3}], "cli")
    assert {k: dict(c) for k, c in v.counts.items()} == {
        "transcript:full.type": {"RUN_COMMAND": 1, "USER_INPUT": 1, OTHER: 1},
        "transcript:full.source": {"MODEL": 2, "USER_EXPLICIT": 1},
        "transcript:full.status": {"DONE": 1},
        "transcript:full.RUN_COMMAND.source": {"MODEL": 1},
        "transcript:full.RUN_COMMAND.status": {"DONE": 1},
        "transcript:full.USER_INPUT.source": {"USER_EXPLICIT": 1},
        f"transcript:full.{OTHER}.source": {"MODEL": 1},
        "sqlite:table:steps.step_type": {"15": 1},
        "sqlite:table:steps.status": {"3": 1},
    }
    assert {p: {k: dict(c) for k, c in counts.items()} for p, counts in v.products.items()} == {
        "cli": {
            "transcript:full.type": {"RUN_COMMAND": 1},
            "transcript:full.source": {"MODEL": 1},
            "transcript:full.status": {"DONE": 1},
            "transcript:full.RUN_COMMAND.source": {"MODEL": 1},
            "transcript:full.RUN_COMMAND.status": {"DONE": 1},
            "sqlite:table:steps.step_type": {"15": 1},
            "sqlite:table:steps.status": {"3": 1},
        },
        "ide": {
            "transcript:full.type": {"USER_INPUT": 1},
            "transcript:full.source": {"USER_EXPLICIT": 1},
            "transcript:full.USER_INPUT.source": {"USER_EXPLICIT": 1},
        },
    }
    many = Values()
    for n in range(MAX_VALUES + 2):
        many.add_transcript({"type": f"T{n}", "source": "MODEL"}, "compact")
    assert sum(1 for key in many.counts if key.endswith(".source")) == 1 + MAX_VALUES
    assert many.counts["transcript:compact.source"] == {"MODEL": MAX_VALUES + 2}
    merged = Values()
    merged.merge(v)
    assert (merged.counts, merged.products) == (v.counts, v.products)


def test_which_values_cortex_proto_names():
    assert named("sqlite:table:steps.step_type", "15") is True
    assert named("sqlite:table:steps.step_type", "999") is False
    assert named("transcript:compact.type", "PLANNER_RESPONSE") is True
    assert named("transcript:compact.type", "PLANNER_RESPONSE_V2") is False
    assert named("sidecar:steps.[].type", "250") is False
    assert named("wire:gen_metadata.data.chat_model.usage.model", "342") is True
    assert named("transcript:compact.tool_calls.[].name", "run_command") is None


# ----------------------------------------------------------------------------- comparing


def test_values_gained_and_lost_are_their_own_classes():
    old = ("sqlite:table:steps.step_type\t14|15", "transcript:compact.type\tUSER_INPUT")
    new = ("sqlite:table:steps.step_type\t14|15|999", "transcript:compact.type\tPLANNER_RESPONSE")
    changes = diff_values(old, new, complete=lambda path: True)
    assert changes == (
        Change("sqlite:table:steps.step_type", "value-added", "14|15", "14|15|999"),
        Change("transcript:compact.type", "value-added", "USER_INPUT", "PLANNER_RESPONSE"),
        Change("transcript:compact.type", "value-removed", "USER_INPUT", "PLANNER_RESPONSE"),
    )
    assert [c.text() for c in changes] == [
        "sqlite:table:steps.step_type: +999 (now 14|15|999)",
        "transcript:compact.type: +PLANNER_RESPONSE (now PLANNER_RESPONSE)",
        "transcript:compact.type: -USER_INPUT (now PLANNER_RESPONSE)",
    ]
    assert diff_values(old, new, complete=lambda path: False)[2].kind == "not-observed"


def test_values_of_a_surface_only_one_side_records_are_not_value_drift():
    base = _baseline(transcript=("compact.T\tobject",), values=("transcript:compact.type\tT",))
    now = _observed(
        transcript=("compact.T\tobject",),
        sqlite=("user_version\t1",),
        values=("sqlite:table:steps.step_type\t15", "transcript:compact.type\tT"),
    )
    result = {r.surface: r for r in compare(base, now).surfaces}
    assert (result["values"].status, result["values"].changes) == ("UNCHANGED", ())
    assert result["values"].reason == "values of sqlite not compared (that surface is not recorded on both sides)"
    assert result["sqlite"].status == "NEW"


# ----------------------------------------------------------------------------- renamed


def test_a_key_renamed_under_every_record_type_is_one_renamed_change_each():
    old = ("compact.A\tobject", "compact.A.created_at\tstring", "compact.B\tobject", "compact.B.created_at\tstring")
    new = ("compact.A\tobject", "compact.A.createdAt\tstring", "compact.B\tobject", "compact.B.createdAt\tstring")
    assert diff_lines(old, new, complete=True) == (
        Change("compact.A.createdAt", "renamed", "string", "string", "compact.A.created_at"),
        Change("compact.B.createdAt", "renamed", "string", "string", "compact.B.created_at"),
    )
    # not a complete corpus: the old key was only not observed, and pairs by its name alone
    assert diff_lines(old, new, complete=False)[0].kind == "renamed"


def test_a_renamed_object_takes_its_subtree_and_an_unlike_key_pairs_only_when_alone():
    old = ("m\tobject", "m.usage\tobject", "m.usage.tokens\tstring", "m.keep\tnumber")
    new = ("m\tobject", "m.stats\tobject", "m.stats.tokens\tstring", "m.keep\tnumber")
    assert diff_lines(old, new, complete=True) == (
        Change("m.stats", "renamed", "object", "object", "m.usage"),
        Change("m.stats.tokens", "renamed", "string", "string", "m.usage.tokens"),
    )
    # unlike names, only not observed: no evidence of a rename
    assert [c.kind for c in diff_lines(old, new, complete=False)] == ["added", "added", "not-observed", "not-observed"]
    # two removed keys of one type and one added: ambiguous, left as they are
    two = ("m\tobject", "m.a\tstring", "m.b\tstring")
    assert [c.kind for c in diff_lines(two, ("m\tobject", "m.c\tstring"), complete=True)] == ["removed", "removed", "added"]
    # a different type at the new key is no rename
    assert [c.kind for c in diff_lines(("m.a_b\tstring",), ("m.aB\tnumber",), complete=True)] == ["added", "removed"]


# ----------------------------------------------------------------------------- consumers


def _profile(**entry: object) -> Profile:
    base = {"surface": "sqlite", "path": "table:steps.step_type", "mode": "requires", "cite": "o/r:f.py:1@abcdef0", "why": "w"}
    return Profile("reader", "o/r", "1", "d", (Entry(**(base | entry)),))  # type: ignore[arg-type]


SHAPES = {"sqlite": ("table:steps.step_type\tINTEGER",), "wire": ("gen_metadata.data.chat_model.model\tvarint",)}


def _verdict(profile: Profile, base_values: tuple[str, ...], now_values: tuple[str, ...], *, synthetic: bool = False):
    base = _baseline(**SHAPES, values=base_values)
    if synthetic:
        base.synthetic = {"values": "the builder's sample"}
    now = _observed(**SHAPES, values=now_values)
    result = judge(profile, compare(base, now), base, now)
    return result.verdict, [d.reason for d in result.decisions if d.effect == result.verdict]


def test_a_new_unnamed_value_outside_a_filter_breaks_it_and_a_named_one_does_not():
    skips = _profile(values=("15",), other="skips")
    before = ("sqlite:table:steps.step_type\t14|15",)
    assert _verdict(skips, before, ("sqlite:table:steps.step_type\t14|15|999",)) == (
        BREAKS,
        [
            "new value 999, which agy-audit cannot name, is outside its filter step_type in {15}: records it read "
            "may have moved there, and it skips them silently (not in agy-1.0.0)"
        ],
    )
    assert _verdict(skips, before, ("sqlite:table:steps.step_type\t14|15|17",)) == (
        OK,
        [
            "unchanged",
            "14 outside step_type in {15}: kinds it never read (also in agy-1.0.0)",
            "new value 17, a kind cortex.proto names, is outside step_type in {15}: not read by design",
        ],
    )
    # against synthetic values a new value is only at risk
    assert _verdict(skips, before, ("sqlite:table:steps.step_type\t14|15|999",), synthetic=True)[0] == AT_RISK


def test_a_range_that_drops_records_flags_old_values_and_breaks_on_new_ones():
    drops = _profile(surface="wire", path="gen_metadata.data.chat_model.model", range=(1000, 5000), other="drops")
    key = "wire:gen_metadata.data.chat_model.model"
    verdict, reasons = _verdict(drops, (f"{key}\t342|1020",), (f"{key}\t342|1020",))
    assert (verdict, reasons) == (
        AT_RISK,
        ["already drops the records with 342 (outside model in [1000, 5000); also in agy-1.0.0)"],
    )
    verdict, reasons = _verdict(drops, (f"{key}\t1020",), (f"{key}\t1020|6001",))
    assert (verdict, reasons) == (
        BREAKS,
        ["new value 6001 is outside model in [1000, 5000): its records are dropped silently (not in agy-1.0.0)"],
    )


def test_a_reader_that_fails_on_other_values_breaks_on_any():
    strict = _profile(values=("14", "15"), other="breaks")
    assert _verdict(strict, ("sqlite:table:steps.step_type\t14|15|17",), ("sqlite:table:steps.step_type\t14|15|17",)) == (
        BREAKS,
        ["holds 17, outside step_type in {14, 15}: it fails on any other value"],
    )


def test_a_required_key_renamed_breaks_its_reader():
    entry = _profile(surface="transcript", path="compact.*.created_at")
    base = _baseline(transcript=("compact.A\tobject", "compact.A.created_at\tstring"))
    now = _observed(transcript=("compact.A\tobject", "compact.A.createdAt\tstring"))
    result = judge(entry, compare(base, now), base, now)
    assert result.verdict == BREAKS
    assert [(d.path, d.reason) for d in result.deciding] == [("compact.A.created_at", "renamed to compact.A.createdAt")]


def test_a_path_the_baseline_could_not_record_is_no_change_to_a_reader():
    from audit.checks.consumers.entry_lines import _classify

    entry = _profile(surface="sidecar", path="steps.[].userInput.media").entries[0]
    change = Change("steps.[].userInput.media", "not-in-baseline", None, "array")
    assert _classify(entry, "sidecar", change, {}, change.path) == (OK, "not-in-baseline")
