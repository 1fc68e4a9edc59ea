"""The report as one self-contained HTML page: every figure embedded as a PNG data URI, no external files."""

from __future__ import annotations

import base64
import html
import io
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

TITLES = {
    "failure_modes": "Failure modes: each constraint's failure rate",
    "failure_groups": "Commonsense vs hard, and outcome categories",
    "reward": "Reward and components, with stage boundaries",
    "exploit": "Reward-hacking monitor",
    "planpo": "PlanPO statistics",
    "final_pass": "Final pass by level × trip length",
    "per_constraint": "Per-constraint outcome",
}
STYLE = ("body{font-family:system-ui,sans-serif;max-width:1300px;margin:2em auto;color:#222}"
         "img{max-width:100%;border:1px solid #ddd}table{border-collapse:collapse;margin:1em 0}"
         "td,th{border:1px solid #ccc;padding:.3em .7em;text-align:right}th{background:#f3f3f3}"
         "td:first-child,th:first-child{text-align:left}")


def png_bytes(fig: Figure, dpi: int = 110) -> bytes:
    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=dpi)
    return buffer.getvalue()


def page(title: str, images: Mapping[str, bytes], facts: Mapping[str, Any]) -> str:
    """The HTML text: a table of ``facts``, then each figure under its title."""
    rows = "".join(f"<tr><td>{html.escape(str(k))}</td><td>{html.escape(str(v))}</td></tr>" for k, v in facts.items())
    parts = [f"<!doctype html><html><head><meta charset='utf-8'><title>{html.escape(title)}</title>",
             f"<style>{STYLE}</style></head><body><h1>{html.escape(title)}</h1>",
             f"<table><tr><th>fact</th><th>value</th></tr>{rows}</table>"]
    for name, data in images.items():
        encoded = base64.b64encode(data).decode("ascii")
        parts.append(f"<h2 id='{name}'>{html.escape(TITLES.get(name, name))}</h2>"
                     f"<img alt='{name}' src='data:image/png;base64,{encoded}'>")
    parts.append("</body></html>")
    return "\n".join(parts)
