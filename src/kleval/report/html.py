"""A self-contained index.html for a report: header, the table, and every figure inlined as
base64 PNG (no network, no external files needed), with links to the PDF versions beside it.
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
"""


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


def write_index(out_dir: Path, study_name: str, header: dict, table: Table, figures: list[Figure]) -> Path:
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
            f'<figcaption>{html.escape(figure.caption)} '
            f'(<a href="{figure.stem}.pdf">PDF</a>)</figcaption>',
            "</figure>",
        ]
    page = (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>kleval report: {html.escape(study_name)}</title>\n"
        f"<style>{_STYLE}</style>\n</head>\n<body>\n" + "\n".join(body) + "\n</body>\n</html>\n"
    )
    path = out_dir / "index.html"
    from kleval.eval.study import write_atomic  # a kill mid-write never leaves half a page

    write_atomic(path, page)
    return path
