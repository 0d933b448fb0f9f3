"""The registry of format surfaces (``audit.checks.fingerprint.surfaces``): the documents and schemas
that list surfaces are held to it, and a surface registered by a test alone goes through
``fingerprint``, ``ci``, ``record`` and ``compare`` with no other change."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from cli_capture import cli

from audit.checks import baselines
from audit.checks.fingerprint import INPUT_KINDS, KEPT, SURFACES, Fingerprint, Surface, fingerprint_paths
from audit.checks.fingerprint.inputs import SIDECARS
from audit.checks.fingerprint.reading import Reading
from audit.resources import data_path
from audit.testing import StoreBuilder
from tests.fake_agy import agy_on_path

REPO = Path(__file__).resolve().parents[2]


def _schema(name: str) -> dict:
    return json.loads((data_path("schemas") / f"{name}.schema.json").read_text())


def test_the_ci_output_schema_lists_every_surface_in_registry_order():
    fingerprints = _schema("output")["$defs"]["ci"]["properties"]["fingerprints"]
    assert fingerprints["additionalProperties"]["propertyNames"]["enum"] == list(SURFACES)
    listed = re.findall(r"`([a-z]+)`", fingerprints["description"].split("per surface computed (", 1)[1].split(")", 1)[0])
    assert listed == list(SURFACES)


def test_the_consumer_profile_schema_lists_every_surface_a_profile_may_name_in_registry_order():
    surface = _schema("consumer-profile")["$defs"]["entry"]["properties"]["surface"]
    profiled = [name for name, s in SURFACES.items() if s.profiled]
    assert surface["enum"] == profiled
    assert set(re.findall(r"`([a-z]+)`", surface["description"])) == {"surface", *profiled}


def test_the_manual_lists_every_surface_with_the_inputs_that_hold_it():
    page = (REPO / "docs" / "reference" / "fingerprint.md").read_text(encoding="utf-8")
    table = page.split("| surface | read from | what it describes |\n| --- | --- | --- |\n", 1)[1].split("\n\n", 1)[0]
    rows = [re.match(r"\| `([a-z]+)` \| ([a-z, ]+) \| ", row) for row in table.splitlines()]
    assert [(m[1], tuple(m[2].split(", "))) for m in rows if m] == [(s.name, s.found_in) for s in SURFACES.values()]
    assert len(rows) == len(SURFACES)


def test_every_record_is_whole():
    for name, surface in SURFACES.items():
        assert surface.name == name and surface.describes and surface.missing and surface.redact, name
        assert surface.found_in and set(surface.found_in) <= set(INPUT_KINDS), name


def test_the_bundled_baseline_holds_synthetic_lines_only_of_surfaces_that_may_be_synthetic():
    bundled = baselines.resolve("agy-1.2.11")
    assert set(bundled.synthetic) == {name for name, surface in SURFACES.items() if surface.synthetic}


# ----------------------------------------------------------------------------- a surface of the test alone


def _top_level_keys(reading: Reading) -> Fingerprint | None:
    """The keys at the top of each sidecar (a surface no module of the package declares)."""
    keys: set[str] = set()
    for path in reading.files(SIDECARS):
        document = json.loads(path.read_bytes())
        keys.update(document.get("trajectory", document))
    return Fingerprint.of("toplevel", (f"{key}\tkey" for key in keys)) if keys else None


TOPLEVEL = Surface(
    "toplevel",
    describes="the keys at the top of the trajectory sidecars",
    missing="no sidecar with a key",
    found_in=INPUT_KINDS,
    reads=frozenset({SIDECARS}),
    fingerprint=_top_level_keys,
    redact=KEPT,
)


def test_a_surface_registered_in_a_test_goes_through_fingerprint_ci_record_and_compare(tmp_path, monkeypatch):
    monkeypatch.setitem(SURFACES, "toplevel", TOPLEVEL)
    agy_on_path(monkeypatch, tmp_path / "bin", "agy 9.9.9")  # it confirms the name recorded below
    home = tmp_path / "home"
    StoreBuilder(home, seed=31).root("cli").conversation(turns=2)
    fingerprinted = fingerprint_paths([home], ["toplevel"]).fingerprints["toplevel"].lines

    code, out, _ = cli("fingerprint", "--surface", "toplevel", "--paths", home)
    assert code == 0 and out == "".join(line + "\n" for line in fingerprinted)

    fp, compat = tmp_path / "fp", tmp_path / "COMPAT.md"
    code, out, err = cli("ci", "--home", home, "--source", "native", "--out", tmp_path / "first", "--no-live", "--format", "json")
    assert code == 0, err
    checks = {c["name"]: c for s in json.loads(out)["result"]["stages"] if s["name"] == "compare" for c in s["checks"]}
    assert checks["corpus toplevel"]["summary"] == "NEW; agy-1.2.11 does not record this surface"

    code, _, err = cli("record", tmp_path / "first", "--name", "agy-9.9.9", "--baseline-dir", fp, "--compat-file", compat)
    assert code == 0, err
    recorded = baselines.load(fp / "agy-9.9.9")
    assert (
        recorded.lines["toplevel"] == fingerprinted
        and recorded.digests["toplevel"] == Fingerprint.of("toplevel", fingerprinted).digest
    )
    assert "- toplevel, the keys at the top of the trajectory sidecars: **swept by agy-audit**: `sha256:" in compat.read_text()

    code, out, err = cli(
        "ci", "--home", home, "--source", "native", "--out", tmp_path / "again", "--no-live", "--baseline-dir", fp
    )
    assert code == 0, err
    assert re.search(r"^compare +corpus toplevel +pass +0 +0  UNCHANGED$", out, re.M), out

    (sidecar,) = (tmp_path / "again" / "corpus" / "cli").glob("*.trajectory.json")
    document = json.loads(sidecar.read_text())
    sidecar.write_text(json.dumps({**document, "addedByAgy": True}))
    code, out, _ = cli("compare", "--baseline-dir", fp, "--surface", "toplevel", "--format", "json", tmp_path / "again")
    (surface,) = json.loads(out)["result"]["surfaces"]
    assert code == 1 and surface["status"] == "DRIFT"
    assert [(c["path"], c["class"]) for c in surface["changes"]] == [("addedByAgy", "added")]


@pytest.mark.parametrize("name", list(SURFACES))
def test_each_surface_says_why_it_was_not_computed(tmp_path, name):
    (tmp_path / "empty").mkdir()
    assert fingerprint_paths([tmp_path / "empty"], [name]).not_computed == {name: SURFACES[name].missing}
