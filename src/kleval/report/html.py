"""A self-contained index.html for a report: header, the table, every figure inlined as base64
PNG (no network), links to the PDF versions beside it, and the sample browser.

The sample browser (script `browser.js`, inlined) shows every problem x checkpoint with its
completions, the extracted answer highlighted, and each verdict's status, rule and explanation;
it filters by task, configuration, step and status and puts two configurations side by side.
Its data are the per-(checkpoint, task) script files of `kleval.report.samples`, loaded on demand,
so the page works from file:// with no server.
"""
from __future__ import annotations

import base64
import html
from pathlib import Path
from typing import Any

from kleval.report.plots import Figure
from kleval.report.render import to_html
from kleval.report.table import Table

_STYLE = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 2rem auto;
       max-width: 1200px; padding: 0 1rem; color: #222; line-height: 1.45; }
h1 { font-size: 1.6rem; margin-bottom: .2rem; } h2 { font-size: 1.2rem; margin-top: 2rem; }
.meta { color: #555; font-size: .9rem; }
.meta code { background: #f3f3f3; padding: 0 .25rem; border-radius: 3px; }
table.results { border-collapse: collapse; font-size: .9rem; margin-top: .6rem; }
table.results th, table.results td { padding: .3rem .6rem; text-align: right; white-space: nowrap; }
table.results thead th { border-top: 2px solid #222; border-bottom: 1px solid #222; }
table.results tbody tr:last-child td { border-bottom: 2px solid #222; }
table.results tbody tr:nth-child(even) { background: #fafafa; }
table.results td.name, table.results th:first-child { text-align: left; }
td.best { font-weight: 700; } .ci { color: #777; font-size: .8rem; }
.up { color: #1a7f37; font-weight: 700; } .down { color: #cf222e; font-weight: 700; }
.swatch { display: inline-block; width: .8rem; height: .8rem; border-radius: 2px;
          margin-right: .4rem; vertical-align: -1px; }
.caption { color: #555; font-size: .85rem; max-width: 60rem; }
figure { margin: 1rem 0 2rem; } figure img { max-width: 100%; border: 1px solid #eee; }
figcaption { color: #555; font-size: .85rem; }
.sb-filters { display: flex; flex-wrap: wrap; gap: .8rem; align-items: center; font-size: .9rem; }
.sb-filters label { color: #555; }
#sb-count { margin: .6rem 0; font-weight: 600; }
table.sb-list { border-collapse: collapse; font-size: .85rem; width: 100%; }
table.sb-list td, table.sb-list th { padding: .2rem .5rem; border-bottom: 1px solid #eee; text-align: left; }
tr.sb-row { cursor: pointer; } tr.sb-row:hover { background: #f3f7ff; }
#sb-detail { border-top: 2px solid #222; margin-top: 1rem; padding-top: .5rem; }
.sb-columns { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 1rem; }
.sb-side h4 { margin: .4rem 0; } .sb-ckpt { font-weight: 600; margin: .6rem 0 .3rem; font-size: .85rem; }
.sb-sample { border: 1px solid #ddd; border-radius: 4px; padding: .4rem .6rem; margin: .4rem 0; }
.sb-dim { opacity: .45; } .sb-label { color: #555; font-size: .8rem; }
pre.sb-text, pre.sb-prompt { white-space: pre-wrap; word-break: break-word; margin: .3rem 0;
                             font-size: .82rem; background: #fafafa; padding: .3rem; }
mark.sb-answer { background: #ffe58a; outline: 1px solid #d4a800; }
.sb-badge { display: inline-block; padding: 0 .4rem; border-radius: 3px; font-size: .75rem; margin-right: .3rem;
            color: #fff; background: #777; }
.sb-correct { background: #1a7f37; } .sb-incorrect { background: #cf222e; } .sb-no_answer { background: #9a6700; }
.sb-parse_error, .sb-gold_error { background: #8250df; } .sb-timeout { background: #57606a; }
.sb-truncated { background: #0969da; }
.sb-meta, .sb-why { color: #555; font-size: .8rem; }
"""

_BROWSER_CONTROLS = """
<h2 id="samples">Samples</h2>
<p class="meta">Every problem &times; checkpoint with its completions: the extracted answer is
highlighted, each verdict shows its status, rule and explanation. Choose a second configuration to
see both side by side on the same problem.</p>
<div class="sb-filters">
<label>task <select id="sb-task"></select></label>
<label>configuration <select id="sb-config"></select></label>
<label>step <select id="sb-step"></select></label>
<label>status <select id="sb-status"></select></label>
<label>side by side with <select id="sb-compare"></select></label>
<label id="sb-only-diff-label" style="display:none"><input type="checkbox" id="sb-only-diff">
only problems the first solves and the second does not</label>
</div>
<div id="sb-count" role="status"></div>
<table class="sb-list"><thead><tr><th>problem</th><th>checkpoint</th><th>step</th><th>samples</th></tr></thead>
<tbody id="sb-list"></tbody></table>
<button id="sb-more" type="button" style="display:none">show more</button>
<div id="sb-detail" style="display:none"></div>
"""


def sample_browser(index: dict[str, Any]) -> str:
    """The browser's controls, its index (inline JSON) and its script, as an HTML fragment."""
    from importlib import resources

    from kleval.report.samples import to_script_json

    script = resources.files("kleval.report").joinpath("browser.js").read_text(encoding="utf-8")
    return (_BROWSER_CONTROLS
            + f'<script type="application/json" id="kleval-sample-index">{to_script_json(index)}</script>\n'
            + f"<script>\n{script}</script>\n")


def _study_summary(header: dict[str, Any]) -> str:
    if not header:
        return ""
    sampling = header.get("sampling") or {}
    items = [
        ("sampling", ", ".join(f"{k}={v}" for k, v in sampling.items() if k != "stop")),
        ("verifier", str(header.get("verifier_version", ""))),
        ("backend", str(header.get("backend", ""))),
        ("kleval", str(header.get("kleval_version", ""))),
        ("git", str(header.get("git_revision", ""))[:12]),
        ("created", str(header.get("created", ""))),
    ]
    parts = [f"{name}: <code>{html.escape(value)}</code>" for name, value in items if value]
    tasks = header.get("tasks") or {}
    if tasks:
        described = ", ".join(
            f"{html.escape(name)} ({html.escape(str(info.get('split', '')))}, "
            f"{info.get('num_problems', '?')} problems)" for name, info in tasks.items()
        )
        parts.append(f"tasks: {described}")
    return '<p class="meta">' + " &middot; ".join(parts) + "</p>"


def write_index(out_dir: Path, study_name: str, header: dict, table: Table, figures: list[Figure],
                samples: dict[str, Any] | None = None) -> Path:
    """Write out_dir/index.html; `samples` is the sample browser's index (kleval.report.samples)."""
    body = [
        f"<h1>kleval report: {html.escape(study_name)}</h1>",
        _study_summary(header),
        f"<h2>KL configurations: pass@{table.k}</h2>",
        to_html(table),
        '<p class="meta">Also as <a href="table.md">table.md</a> and <a href="table.tex">table.tex</a>.</p>',
    ]
    for figure in figures:
        png = (out_dir / f"{figure.stem}.png").read_bytes()
        encoded = base64.b64encode(png).decode("ascii")
        # Show figures at 2/3 of their pixel width (saved at 150 dpi): crisp, and the same
        # physical scale for every figure whatever its size.
        width = int.from_bytes(png[16:20], "big") * 2 // 3
        body += [
            f"<h2>{html.escape(figure.title)}</h2>",
            "<figure>",
            f'<img alt="{html.escape(figure.title)}" width="{width}" src="data:image/png;base64,{encoded}">',
            (f'<figcaption>{html.escape(figure.caption)} '
             f'(<a href="{figure.stem}.pdf">PDF</a>)</figcaption>'),
            "</figure>",
        ]
    if samples is not None:
        body.append(sample_browser(samples))
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>kleval report: {html.escape(study_name)}</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )
    path = out_dir / "index.html"
    from kleval.eval.study import write_atomic  # a kill mid-write never leaves half a page

    write_atomic(path, page)
    return path
