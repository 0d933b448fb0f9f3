"""The HTML report of ``ci`` and ``compare`` (``audit.report.html_report``): exact content and
escaping in plain Python, and the sample's page rendered by headless Chromium."""

from __future__ import annotations

import base64
import hashlib
import os
import shutil
import signal
import subprocess
import tempfile
from collections.abc import Iterator
from html.parser import HTMLParser
from pathlib import Path

import pytest

from audit.checks.baselines import bundled_dir, load
from audit.checks.consumers import BREAKS, OK, UNKNOWN, ConsumerResult, Decision, Entry, Profile
from audit.checks.drift import DRIFT, UNCHANGED, Change, Comparison, Observed, SurfaceResult
from audit.findings import Finding, Level
from audit.pipeline.ci_results import ERROR, FAIL, PASS, Check, Report, Stage
from audit.report import html_page, html_report
from tests.cli_capture import cli
from tests.output_schema import ci_result, envelope

REPO = Path(__file__).resolve().parents[2]
SAMPLE = REPO / "examples" / "home"
CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
HOSTILE = 'a<script>alert("x")</script>\x00\x1b[31m\u202eb\udcff\ud800.json'
HOSTILE_SHOWN = 'a<script>alert("x")</script>\\x00\\x1b[31m\\u202eb\\xff\\ud800.json'  # as the page's text reads


# ----------------------------------------------------------------------------- a DOM, in Python


class Element:
    def __init__(self, tag: str, attrs: dict[str, str | None]) -> None:
        self.tag, self.attrs = tag, attrs
        self.children: list[Element | str] = []

    def text(self) -> str:
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def iter(self) -> Iterator[Element]:
        for c in self.children:
            if isinstance(c, Element):
                yield c
                yield from c.iter()

    def all(self, tag: str, **attrs: str) -> list[Element]:
        """Descendants with *tag* whose attributes hold *attrs* (``class_``: one of its classes; ``data_x``: ``data-x``)."""
        found = []
        for e in self.iter():
            if e.tag != tag:
                continue
            wanted = {k.rstrip("_").replace("_", "-"): v for k, v in attrs.items()}
            if all((v in (e.attrs.get(k) or "").split()) if k == "class" else e.attrs.get(k) == v for k, v in wanted.items()):
                found.append(e)
        return found

    def one(self, tag: str, **attrs: str) -> Element:
        (found,) = self.all(tag, **attrs)
        return found


class _Builder(HTMLParser):
    VOID = frozenset({"meta", "br", "img", "input", "hr", "link", "area", "base", "col", "embed", "source", "track", "wbr"})

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document", {})
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        e = Element(tag, dict(attrs))
        self.stack[-1].children.append(e)
        if tag not in self.VOID:
            self.stack.append(e)

    def handle_endtag(self, tag: str) -> None:
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse(page: str) -> Element:
    builder = _Builder()
    builder.feed(page)
    builder.close()
    return builder.root


def texts(elements: list[Element]) -> list[str]:
    return [" ".join(e.text().split()) for e in elements]


# ----------------------------------------------------------------------------- a hostile report

BASELINE = load(bundled_dir() / "agy-1.2.11", bundled=True)


def entry(surface: str, path: str, mode: str = "requires") -> Entry:
    return Entry(surface, path, mode, "pypi:tool==1.0:reader.py:12", "reads it")


def hostile_report() -> Report:
    findings = [
        Finding("incomplete", Level.ERROR, f"lacks {HOSTILE}", HOSTILE, 3),
        Finding("window<b>", Level.WARNING, "starts at step 9", None),
        *(Finding("late", Level.WARNING, f"step {n}", "t.jsonl", n) for n in range(5)),
    ]
    failing = Check(
        "completeness",
        f"live {HOSTILE}",
        "live",
        FAIL,
        f"1 incomplete {HOSTILE}",
        f"agy-audit completeness --root '{HOSTILE}'",
        findings,
    )
    passing = Check("completeness", "corpus", "corpus", PASS, "17 complete", "agy-audit completeness /c")
    errored = Check("links", "corpus cli", "corpus", ERROR, "cannot read", None)
    changes = (  # sorted by path, as compare gives them
        Change("createdAt", "renamed", "string", "string", was="created_at"),
        Change(f"steps.[].{HOSTILE}", "removed", "object", None),
        Change("steps.[].gone", "not-observed", "string", None),
        Change("steps.[].metadata.model", "type-changed", "string", "number"),
        Change("steps.[].metadata.sandboxProfile", "added", None, "string"),
        Change("steps.[].userInput.media", "not-in-baseline", None, "array", note="beyond the record"),
    )
    sidecar = SurfaceResult("sidecar", DRIFT, None, "sha256:a", "sha256:b", changes, complete=True)
    comparison = Comparison("agy-1.2.11", True, "scoped", [sidecar, SurfaceResult("sqlite", UNCHANGED)])
    observed = Observed("/c", {}, True, "scoped")
    profile = Profile(
        f"tool{HOSTILE}",
        "https://example.invalid/tool",
        "1.0",
        "a tool",
        (entry("sidecar", "steps.[].metadata.model"), entry("sidecar", "steps.*"), entry("sqlite", "table:steps.x", "optional")),
    )
    model = changes[3]
    result = ConsumerResult(
        profile,
        BREAKS,
        [
            Decision(profile.entries[0], BREAKS, f"now number {HOSTILE}", model.path, model),
            Decision(profile.entries[1], OK, "unchanged", "steps.[].x"),
            Decision(profile.entries[2], UNKNOWN, "not compared"),
        ],
    )
    report = Report(
        1_700_000_000_000_000_000,
        Path("/c"),
        True,
        [],
        BASELINE,
        f"given: {HOSTILE}",
        "drift",
        True,
        [Stage("completeness", [passing, failing]), Stage("links", [errored])],
        {"corpus": observed},
        {"corpus": comparison},
        {"corpus": [result]},
        finished_ns=1_700_000_001_000_000_000,
    )
    return report


def test_a_hostile_name_is_text_never_markup():
    page = html_report.ci_page(hostile_report())
    page.encode("utf-8")  # a lone surrogate would not encode: it is shown escaped
    assert not any(raw in page for raw in ("<script>alert", "\x00", "\x1b", "\u202e"))
    dom = parse(page)
    assert [e.text() for e in dom.all("script")] == [html_page._SCRIPT]
    assert dom.all("b") == [] and dom.all("img") == []
    assert texts(dom.one("details", id="check-1").all("li", class_="finding")) == [
        f"{HOSTILE_SHOWN}:3 error [incomplete] lacks {HOSTILE_SHOWN}",
        "warning [window<b>] starts at step 9",
        "t.jsonl:0 warning [late] step 0",
        "t.jsonl:1 warning [late] step 1",
        "t.jsonl:2 warning [late] step 2",
    ]
    assert f"All: agy-audit completeness --root '{HOSTILE_SHOWN}'" in dom.one("details", id="check-1").text()
    assert 'data-check="completeness live a&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;' in page  # attributes too
    leaf = dom.one("li", class_="leaf", data_class="removed")
    assert leaf.attrs["data-path"] == f"steps.[].{HOSTILE_SHOWN}"
    assert " ".join(leaf.text().split()) == f"- {HOSTILE_SHOWN} removed object"
    cell = dom.one("tr", data_consumer=f"tool{HOSTILE_SHOWN}").all("td", class_="cell")[0]
    assert cell.one("span").attrs["title"] == (
        f"2 entries: 1 breaks, 1 ok\nsidecar steps.[].metadata.model: string -> number  [requires: now number {HOSTILE_SHOWN}]"
    )


def _source_hash(text: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(text.encode()).digest()).decode() + "'"


def test_the_page_loads_nothing_and_its_policy_allows_only_its_own_style_and_script():
    page = html_report.ci_page(hostile_report())
    dom = parse(page)
    (style,) = [e.text() for e in dom.all("style")]
    (script,) = [e.text() for e in dom.all("script")]
    policy = dom.one("meta", http_equiv="Content-Security-Policy").attrs["content"]
    assert policy == (
        f"default-src 'none'; style-src {_source_hash(style)}; script-src {_source_hash(script)}; "
        "img-src 'none'; base-uri 'none'; form-action 'none'"
    )
    linked = [(e.tag, k, v) for e in dom.iter() for k, v in e.attrs.items() if k in ("href", "src", "action", "style")]
    assert linked and all(k == "href" and v and v.startswith("#") for _, k, v in linked)
    anchors = {e.attrs["id"] for e in dom.iter() if "id" in e.attrs}
    assert {v[1:] for _, _, v in linked if v} <= anchors  # every link lands on the page
    assert len(anchors) == len([e for e in dom.iter() if "id" in e.attrs])  # ids are unique


def test_the_ci_page_shows_the_verdict_facts_stages_checks_drift_and_matrix():
    dom = parse(html_report.ci_page(hostile_report()))
    header = dom.one("header")
    assert header.attrs["data-verdict"] == "error"
    assert texts([header]) == [
        "agy-audit ci ERROR ci: ERROR (completeness, links); exit 2 stages findings drift consumers checks"
    ]
    assert texts(dom.one("dl", class_="facts").all("dd"))[:3] == [
        f"agy-1.2.11 (agy 1.2.11): given: {HOSTILE_SHOWN}",
        "drift",
        "checked",
    ]
    assert [(e.attrs["id"], e.attrs["data-verdict"]) for e in dom.all("li", class_="stage")] == [
        ("stage-completeness", "fail"),
        ("stage-links", "error"),
    ]
    assert texts(dom.all("li", class_="stage")) == [
        "completeness fail 2 check(s) 1 error(s) 6 warning(s)",
        "links error 1 check(s)",
    ]
    rows = dom.one("section", id="checks").all("tr", data_verdict=FAIL) + dom.one("section", id="checks").all(
        "tr", data_verdict=ERROR
    )
    assert [texts(row.all("td")) for row in rows] == [
        ["", f"live {HOSTILE_SHOWN}", "fail", "1", "6", f"1 incomplete {HOSTILE_SHOWN}"],
        ["links", "corpus cli", "error", "0", "0", "cannot read"],
    ]
    findings = dom.one("details", id="check-1")
    assert "open" in findings.attrs  # errors: unfolded
    assert texts(findings.all("li", class_="more")) == ["... and 2 more"]
    assert [(e.attrs["data-class"], e.attrs["data-path"]) for e in dom.all("li", class_="leaf")] == [
        ("renamed", "createdAt"),
        ("removed", f"steps.[].{HOSTILE_SHOWN}"),
        ("type-changed", "steps.[].metadata.model"),
        ("added", "steps.[].metadata.sandboxProfile"),
        ("not-in-baseline", "steps.[].userInput.media"),
    ]  # the line only not observed is counted, not listed (compare -v lists it)
    surface = dom.one("details", id="drift-corpus-sidecar")
    assert texts(surface.all("li", class_="leaf")) == [
        "= createdAt renamed string (was created_at)",
        f"- {HOSTILE_SHOWN} removed object",
        "~ model type-changed string -> number",
        "+ sandboxProfile added string",
        "* userInput.media not-in-baseline advisory array (beyond the record)",
    ]
    # steps.[] holds the rest, folded per prefix; a chain of single children is one label
    assert texts(surface.all("summary")) == [
        "sidecar DRIFT + 1 added - 1 removed = 1 renamed ~ 1 type-changed ? 1 not-observed * 1 not-in-baseline",
        "steps.[] + 1 added - 1 removed ~ 1 type-changed * 1 not-in-baseline",
        "metadata + 1 added ~ 1 type-changed",
    ]
    matrix = dom.one("table", class_="matrix")
    assert texts(matrix.all("th")) == ["", "corpus", "consumer", "verdict", "sidecar", "sqlite"]
    (row,) = matrix.all("tr", data_consumer=f"tool{HOSTILE_SHOWN}")
    assert texts(row.all("td")) == [f"tool{HOSTILE_SHOWN}", "breaks", "breaks", "unknown"]
    assert [td.attrs.get("data-effect") for td in row.all("td", class_="cell")] == ["breaks", "unknown"]
    assert (
        row.all("td", class_="cell")[1].one("span").attrs["title"]
        == "1 entry: 1 unknown\nsqlite table:steps.x  [optional: not compared]"
    )
    assert texts(dom.one("section", id="consumers").all("li")) == [
        f"sidecar steps.[].metadata.model: string -> number [requires: now number {HOSTILE_SHOWN}] pypi:tool==1.0:reader.py:12"
    ]


# ----------------------------------------------------------------------------- the command line


def test_ci_writes_the_page_for_html_reports_and_on_stdout(tmp_path):
    page = tmp_path / "r.html"
    other = tmp_path / "r.page"
    code, out, err = cli(
        "ci", "--home", SAMPLE, "--source", "native", "--out", tmp_path / "c", "--format", "html", "--report", page
    )
    assert (code, err) == (1, "")
    assert out == page.read_text(encoding="utf-8")
    assert out.startswith("<!DOCTYPE html>\n") and '<header class="top" id="verdict" data-verdict="fail">' in out
    code, out, err = cli("ci", "--home", SAMPLE, "--source", "native", "--report", other, "--report-format", "html", "-q")
    assert (code, err) == (1, "") and out.startswith("agy-audit ci: baseline agy-1.2.11")
    assert parse(other.read_text(encoding="utf-8")).one("header").attrs["data-verdict"] == "fail"


def test_compare_writes_its_page_and_its_other_reports(tmp_path):
    # the CLI root's sidecar shape as a snapshot: compared as such, its added path is drift (the
    # root itself, fingerprinted here, would meet the bundled record first: an advisory)
    root = tmp_path / "antigravity-cli.tsv"
    root.write_text(cli("fingerprint", "--surface", "sidecar", "--paths", SAMPLE / ".gemini" / "antigravity-cli")[1])
    reports = [tmp_path / n for n in ("r.html", "r.json", "r.md", "r.txt")]
    argv = ["compare", "--baseline", "agy-1.2.11", "--surface", "sidecar", root, "-q"]
    code, out, err = cli(*argv, *(w for r in reports for w in ("--report", r)))
    assert (code, err) == (1, "")
    assert out == reports[3].read_text(encoding="utf-8")  # text on stdout and in .txt
    doc = envelope(reports[1].read_text(), "compare")
    assert doc["verdict"] == "fail"
    doc = doc["result"]
    assert reports[2].read_text().startswith("## agy-audit compare: baseline `agy-1.2.11` (bundled)")
    dom = parse(reports[0].read_text(encoding="utf-8"))
    assert texts([dom.one("header")]) == ["agy-audit compare FAIL compare: FAIL (fail on drift) drift consumers"]
    assert texts(dom.one("dl", class_="facts").all("dd")) == [
        "agy-1.2.11: bundled",
        f"shape snapshot {root}; scope unknown (not a complete sweep: missing lines are only 'not observed')",
        "drift",
    ]
    assert [(e.attrs["data-class"], e.attrs["data-path"]) for e in dom.all("li", class_="leaf")] == [
        ("added", "steps.[].metadata.sandboxProfile")
    ]
    matrix = dom.one("table", class_="matrix")
    judged = [(r.attrs["data-consumer"], r.one("td", class_="first").attrs.get("data-verdict")) for r in matrix.all("tr")[1:]]
    assert [(name, v) for name, v in judged if v] == [("agentsview", "ok"), ("agy-reader", "ok")]  # the sidecar's readers
    assert len(judged) == 18
    code, verbose, err = cli(*argv, "--format", "html", "-v")
    assert (code, err) == (1, "")
    unseen = parse(verbose).all("li", class_="leaf", data_class="not-observed")
    counted = [c["path"] for s in doc["surfaces"] for c in s["changes"] if c["class"] == "not-observed"]
    assert [e.attrs["data-path"] for e in unseen] == counted and len(counted) == 1633
    assert dom.all("li", class_="leaf", data_class="not-observed") == []  # without -v: counted, not listed


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (
            ["--report", "r.yaml"],
            "agy-audit: compare: cannot tell the format of r.yaml from its extension; give --report-format\n",
        ),
        (["--report-format", "html"], "agy-audit: compare: --report-format needs --report FILE\n"),
    ],
)
def test_compare_report_flags_are_checked_before_anything_runs(tmp_path, argv, message):
    assert cli("compare", "--baseline", "agy-1.2.11", tmp_path / "absent", *argv) == (2, "", message)


# ----------------------------------------------------------------------------- in a real browser

needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="needs chromium (.ci/run installs Debian's package)")


def render(page: Path, tmp_path: Path) -> tuple[str, str]:
    """(the DOM after the page loaded, Chromium's log) from headless Chromium, with its profile
    and home under *tmp_path* (its sockets in a short-lived temp directory: a socket path has at
    most 107 bytes); killed with its children after 60 s."""
    for d in ("profile", "home"):
        (tmp_path / d).mkdir()
    argv = [
        str(CHROMIUM),
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path / 'profile'}",
        "--enable-logging=stderr",
        "--v=0",
        "--dump-dom",
        page.as_uri(),
    ]
    with tempfile.TemporaryDirectory(prefix="chromium-") as sockets:
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path / "home"), "TMPDIR": sockets}
        proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env, start_new_session=True)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.communicate()
            raise
    assert proc.returncode == 0, err
    return out, err


@needs_chromium
def test_chromium_renders_the_samples_page_with_every_stage_finding_and_consumer(tmp_path):
    page, doc_file = tmp_path / "r.html", tmp_path / "r.json"
    code, _, err = cli(
        "ci", "--home", SAMPLE, "--source", "native", "--out", tmp_path / "c", "--report", page, "--report", doc_file, "-q"
    )
    assert (code, err) == (1, "")
    doc = ci_result(envelope(doc_file.read_text(), "ci"))
    out, log = render(page, tmp_path)
    assert [line for line in log.splitlines() if ":CONSOLE" in line] == []  # no script error, no policy violation
    dom = parse(out)
    assert dom.one("html").attrs["data-script"] == "ran"  # the script ran to its end
    assert dom.one("header").attrs["data-verdict"] == doc["verdict"] == "fail"
    assert [(e.attrs["id"], e.attrs["data-verdict"]) for e in dom.all("li", class_="stage")] == [
        (f"stage-{s['name']}", s["verdict"]) for s in doc["stages"]
    ]
    checks = [c for s in doc["stages"] for c in s["checks"]]
    rows = [r for r in dom.one("section", id="checks").all("tr") if "data-check" in r.attrs]
    assert [(r.attrs["data-check"], r.attrs["data-verdict"], texts(r.all("td"))[-1]) for r in rows] == [
        (f"{s['name']} {c['name']}", c["verdict"], c["summary"]) for s in doc["stages"] for c in s["checks"]
    ]
    shown_findings = [
        (
            texts([d.one("summary")])[0],
            texts(d.all("li", class_="finding")),
            texts(d.all("p", class_="all")),
        )
        for d in dom.all("details", class_="check")
    ]
    assert shown_findings == [
        (
            f"{c['verdict']} {s['name']} {c['name']}: "
            + ", ".join(f"{n} {w}" for n, w in ((c["errors"], "error(s)"), (c["warnings"], "warning(s)")) if n),
            [
                (f"{f['file']}{'' if f['line'] is None else ':' + str(f['line'])} " if f["file"] else "")
                + f"{f['level']} [{f['rule']}] "
                + (f"{f['pointer']}: " if f["pointer"] else "")
                + " ".join(f["message"].split())
                for f in c["findings"]
            ],
            [f"All: {c['command']}"],
        )
        for s in doc["stages"]
        for c in s["checks"]
        if c["findings"]
    ]
    assert sum(len(f) for _, f, _ in shown_findings) == sum(len(c["findings"]) for c in checks) == 22
    matrix = dom.one("table", class_="matrix")
    names = [r.attrs["data-consumer"] for r in matrix.all("tr") if "data-consumer" in r.attrs]
    assert names == list(dict.fromkeys(c["consumer"] for c in doc["consumers"])) and len(names) == 18
    verdicts = {
        (target, r.attrs["data-consumer"]): td.attrs.get("data-verdict")
        for r in matrix.all("tr")
        if "data-consumer" in r.attrs
        for target, td in zip(("corpus", "live"), r.all("td", class_="first"))
    }
    assert verdicts == {
        (c["target"], c["consumer"]): c["verdict"] if c["verdict"] != "not comparable" else None for c in doc["consumers"]
    }
    assert [(e.attrs["data-class"], e.attrs["data-path"]) for e in dom.all("li", class_="leaf")] == [
        ("not-in-baseline", "steps.[].metadata.sandboxProfile")  # first contact with the bundled record: advisory
    ]


@needs_chromium
def test_chromium_shows_hostile_names_as_text(tmp_path):
    page = tmp_path / "hostile.html"
    page.write_text(html_report.ci_page(hostile_report()), encoding="utf-8")
    out, log = render(page, tmp_path)
    assert [line for line in log.splitlines() if ":CONSOLE" in line] == []
    dom = parse(out)
    assert dom.one("html").attrs["data-script"] == "ran"
    assert [e.text() for e in dom.all("script")] == [html_page._SCRIPT]  # the page's own, and only it
    assert texts(dom.one("details", id="check-1").all("li", class_="finding"))[0] == (
        f"{HOSTILE_SHOWN}:3 error [incomplete] lacks {HOSTILE_SHOWN}"
    )
