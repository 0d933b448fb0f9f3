"""The frame of every HTML page (``audit.report.html_report``): its style sheet, its script and its
Content-Security-Policy, the escaping of every text it shows, the header, the sections and the
small parts (badges, facts, fold buttons) every section uses.

A page loads nothing: its style sheet and its one small script are inline, and its
Content-Security-Policy allows those two by hash and nothing else (no network, no other script, no
style attribute). Every text a store, a profile or a command line gave (paths, messages, rule
names, summaries) is shown escaped for a terminal first (``display.escape_for_terminal``: control
characters, bidirectional overrides, the bytes of a non-UTF-8 name), then escaped for HTML, so
none of it can become markup.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from collections.abc import Iterable, Sequence

from audit import __version__
from audit.display import escape_for_terminal

_STYLE = """
:root{--ink:#1f2328;--muted:#59636e;--line:#d1d9e0;--soft:#f6f8fa;--mono:"DejaVu Sans Mono",ui-monospace,Menlo,Consolas,monospace}
*{box-sizing:border-box}
body{margin:0;font:15px/1.5 system-ui,-apple-system,"Segoe UI","DejaVu Sans",sans-serif;color:var(--ink);background:#fff}
.top{position:sticky;top:0;z-index:2;background:#1f2328;color:#fff;box-shadow:0 1px 4px #0003}
.top .wrap{display:flex;flex-wrap:wrap;align-items:center;gap:.4rem 1rem;padding:.6rem 1.5rem}
.top .tool{font-weight:600}
.top .line{font-family:var(--mono);font-size:.9rem;color:#d1d9e0}
.top nav{margin-left:auto;display:flex;gap:1rem;font-size:.9rem}
.top nav a{color:#9ecbff;text-decoration:none}
.top .verdict{font-size:1.05rem;padding:.1rem .7rem;border-radius:1rem;font-weight:700;letter-spacing:.04em}
main{max-width:1200px;margin:0 auto;padding:0 1.5rem 3rem}
section{scroll-margin-top:3.5rem}
h2{font-size:1.2rem;margin:2rem 0 .6rem;padding-bottom:.3rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:1.2rem 0 .4rem}
code,.mono{font-family:var(--mono);font-size:.85em}
.muted{color:var(--muted)}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:1rem 0}
dl.facts dt{color:var(--muted)}
dl.facts dd{margin:0;overflow-wrap:anywhere}
dl.facts ul{margin:0;padding:0;list-style:none}
ol.stages{display:grid;grid-template-columns:repeat(auto-fit,minmax(8rem,1fr));gap:.5rem;list-style:none;padding:0;margin:.5rem 0}
ol.stages li{border:1px solid var(--line);border-top-width:4px;border-radius:6px;padding:.4rem .6rem}
ol.stages a{color:inherit;text-decoration:none;display:block}
ol.stages .name{display:block;font-weight:600}
ol.stages .n{display:block;font-size:.8rem;color:var(--muted)}
table{border-collapse:collapse;width:100%;margin:.4rem 0;font-size:.9rem}
th,td{text-align:left;vertical-align:top;padding:.3rem .5rem;border-bottom:1px solid var(--line)}
th{background:var(--soft);font-weight:600}
td.num,th.num{text-align:right;font-variant-numeric:tabular-nums}
td.summary{overflow-wrap:anywhere;max-width:38rem}
tbody.stage tr:first-child td{border-top:2px solid var(--line)}
.badge{display:inline-block;padding:0 .45rem;border-radius:.8rem;border:1px solid;font-size:.8rem;font-weight:600;white-space:nowrap;line-height:1.45}
.pass,.ok{background:#ddf3ea;border-color:#009e73;color:#004d38}
.fail,.breaks,.lvl-error{background:#fbe1d2;border-color:#d55e00;color:#7a3300}
.error{background:#f5dfeb;border-color:#cc79a7;color:#6e2450}
.skipped,.unknown,.not-comparable{background:#eef0f2;border-color:#8c959f;color:#3d444d}
.unchanged{background:#ddf3ea;border-color:#009e73;color:#004d38}
.new{background:#d9ebf7;border-color:#0072b2;color:#00405f}
.drift{background:#fcefcf;border-color:#e69f00;color:#5c4000}
.at-risk,.lvl-warning{background:#fcefcf;border-color:#e69f00;color:#5c4000}
ol.stages [data-verdict=pass]{border-top-color:#009e73}ol.stages [data-verdict=fail]{border-top-color:#d55e00}
ol.stages [data-verdict=error]{border-top-color:#cc79a7}ol.stages [data-verdict=skipped]{border-top-color:#8c959f}
details{margin:.3rem 0}
summary{cursor:pointer}
details.check,details.surface,details.consumer{border:1px solid var(--line);border-radius:6px;padding:.3rem .7rem}
details.check>summary,details.surface>summary,details.consumer>summary{font-weight:600}
ul.findings{list-style:none;padding:0;margin:.4rem 0}
ul.findings li{padding:.35rem 0;border-top:1px solid #eaeef2}
.loc{display:block;font-family:var(--mono);font-size:.8rem;color:var(--muted);overflow-wrap:anywhere}
.rule{font-family:var(--mono);font-size:.8rem}
.msg{overflow-wrap:anywhere}
p.all{margin:.4rem 0;font-size:.85rem}
p.all code{overflow-wrap:anywhere}
.fold{margin:.2rem 0 .6rem}
.fold button{font:inherit;font-size:.8rem;margin-right:.4rem;padding:.1rem .6rem;border:1px solid var(--line);border-radius:4px;background:var(--soft);cursor:pointer}
ul.tree,ul.tree ul{list-style:none;margin:0;padding-left:1.1rem}
ul.tree{padding-left:.2rem;font-family:var(--mono);font-size:.82rem}
ul.tree li{margin:.1rem 0}
ul.tree summary{color:var(--ink)}
ul.tree .val{color:var(--muted);overflow-wrap:anywhere}
.c{display:inline-block;min-width:1.2rem;text-align:center;border-radius:3px;font-weight:700;border:1px solid;font-family:var(--mono);font-size:.75rem;padding:0 .25rem;line-height:1.4}
.c-added{background:#d9ebf7;border-color:#0072b2;color:#00405f}
.c-removed{background:#fbe1d2;border-color:#d55e00;color:#7a3300}
.c-renamed{background:#f5dfeb;border-color:#cc79a7;color:#6e2450}
.c-type-changed{background:#fcefcf;border-color:#e69f00;color:#5c4000}
.c-widened{background:#e4f3fc;border-color:#56b4e9;color:#0b4a6e}
.c-narrowed{background:#fbf7cf;border-color:#b5a800;color:#4d4700}
.c-value-added{background:#ddf3ea;border-color:#009e73;color:#004d38}
.c-value-removed{background:#e9e9e9;border-color:#333;color:#222}
.c-not-observed{background:#fff;border-color:#8c959f;border-style:dashed;color:#59636e}
.c-advisory{background:#fff;border-color:#8c959f;border-style:dotted;color:#59636e;font-style:italic}
.counts .c{margin-right:.25rem;font-weight:600}
table.matrix{width:auto}
table.matrix{font-size:.82rem}
table.matrix td,table.matrix th{text-align:center;white-space:nowrap;padding:.25rem .35rem}
table.matrix th.consumer,table.matrix td.consumer{text-align:left}
table.matrix th.target{border-left:2px solid var(--line)}
table.matrix td.first,table.matrix th.first{border-left:2px solid var(--line)}
table.matrix td.cell span{cursor:help}
.none{color:#8c959f}
.scroll{overflow-x:auto}
details.notes{font-size:.85rem;color:var(--muted)}
.legend{font-size:.85rem;color:var(--muted);margin:.3rem 0}
.legend .c,.legend .badge{margin:0 .15rem 0 .6rem}
ul.deciding{margin:.3rem 0;padding-left:1.2rem;font-size:.85rem}
ul.deciding li{overflow-wrap:anywhere}
footer{max-width:1200px;margin:0 auto;padding:1rem 1.5rem 2rem;color:var(--muted);font-size:.8rem;border-top:1px solid var(--line)}
"""

_SCRIPT = """
for (const b of document.querySelectorAll("button[data-fold]")) {
  b.hidden = false;
  b.addEventListener("click", () => {
    for (const d of b.closest("section").querySelectorAll("details")) d.open = b.dataset.fold === "open";
  });
}
document.documentElement.dataset.script = "ran";
"""


def _source_hash(source: str) -> str:
    return "'sha256-" + base64.b64encode(hashlib.sha256(source.encode("utf-8")).digest()).decode("ascii") + "'"


CSP = (
    f"default-src 'none'; style-src {_source_hash(_STYLE)}; script-src {_source_hash(_SCRIPT)}; "
    "img-src 'none'; base-uri 'none'; form-action 'none'"
)
"""The page's policy: its own style sheet and script (by hash), nothing else."""

_SURROGATE = re.compile("[\ud800-\udfff]")


def escaped(value: object) -> str:
    """*value* as HTML text or a quoted attribute value: terminal-safe first (``escape_for_terminal``; a lone
    surrogate it leaves, from JSON text, as ``\\udXXX``), then ``&``, ``<``, ``>`` and quotes."""
    text = _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", escape_for_terminal(value))
    return html.escape(text, quote=True)


def slug(word: str) -> str:
    """A vocabulary word (a verdict, an effect, a class) as a CSS class or id part."""
    return re.sub(r"[^a-z0-9]+", "-", word.lower()).strip("-")


def badge(word: str, text: str | None = None) -> str:
    return f'<span class="badge {slug(word)}">{escaped(word if text is None else text)}</span>'


def title_attribute(lines: Iterable[str]) -> str:
    """A ``title`` attribute of several lines (shown on hover)."""
    return "&#10;".join(escaped(line) for line in lines)


def page(title: str, verdict: str, line: str, nav: Sequence[tuple[str, str]], body: Sequence[str]) -> str:
    links = " ".join(f'<a href="#{anchor}">{escaped(label)}</a>' for anchor, label in nav)
    return "\n".join(
        [
            "<!DOCTYPE html>",
            '<html lang="en">',
            "<head>",
            '<meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{CSP}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            '<meta name="referrer" content="no-referrer">',
            f"<title>{escaped(title)}</title>",
            f"<style>{_STYLE}</style>",
            "</head>",
            "<body>",
            f'<header class="top" id="verdict" data-verdict="{escaped(verdict)}"><div class="wrap">',
            f'<span class="tool">{escaped(title.partition(":")[0])}</span>',
            f'<span class="verdict badge {slug(verdict)}">{escaped(verdict.upper())}</span>',
            f'<span class="line">{escaped(line)}</span>',
            f"<nav>{links}</nav>",
            "</div></header>",
            "<main>",
            *body,
            "</main>",
            f"<footer>agy-audit {escaped(__version__)}: one self-contained page (it loads nothing).</footer>",
            f"<script>{_SCRIPT}</script>",
            "</body>",
            "</html>",
            "",
        ]
    )


def facts(rows: Sequence[tuple[str, str]]) -> str:
    """A definition list of (label, HTML already escaped)."""
    return '<dl class="facts">' + "".join(f"<dt>{escaped(k)}</dt><dd>{v}</dd>" for k, v in rows) + "</dl>"


def fold_buttons() -> str:
    return (
        '<div class="fold"><button type="button" data-fold="open" hidden>expand all</button>'
        '<button type="button" data-fold="close" hidden>collapse all</button></div>'
    )


def section(anchor: str, heading: str, parts: Sequence[str], *, fold: bool = False) -> str:
    return "\n".join(
        [f'<section id="{anchor}">', f"<h2>{escaped(heading)}</h2>", *([fold_buttons()] if fold else []), *parts, "</section>"]
    )
