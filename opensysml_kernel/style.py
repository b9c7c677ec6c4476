"""The notebook's look: one stylesheet on JupyterLab's theme variables (so light and dark themes both
read), verdict badges, monospace only for values and names, and long tables folded after their first
rows with a count."""

from __future__ import annotations

import html

ROWS_SHOWN = 20  # rows a table shows before the rest fold under "<n> more rows"

# Each rule under div.opensysml-result, which outranks JupyterLab's own `.jp-RenderedHTMLCommon td`;
# every colour a --jp-* variable, with the light theme's value where no JupyterLab is (nbconvert, GitHub).
CSS = """
div.opensysml-result{font-family:var(--jp-ui-font-family,system-ui,sans-serif);font-size:var(--jp-content-font-size1,13px);color:var(--jp-content-font-color1,inherit);line-height:1.45}
div.opensysml-result code,div.opensysml-result pre,div.opensysml-result .opensysml-mono{font-family:var(--jp-code-font-family,monospace);font-size:var(--jp-code-font-size,12px);background:none;padding:0}
div.opensysml-result pre{margin:0;white-space:pre-wrap}
div.opensysml-result table{border-collapse:collapse;margin:4px 0 6px 0;table-layout:auto}
div.opensysml-result th{text-align:left;font-weight:600;padding:2px 12px 2px 0;border-bottom:1px solid var(--jp-border-color1,#bbb)}
div.opensysml-result td{text-align:left;vertical-align:top;padding:1px 12px 1px 0;border-bottom:1px solid var(--jp-border-color3,#eee)}
div.opensysml-result tbody tr:nth-child(even) td{background:var(--jp-layout-color2,rgba(127,127,127,.06))}
div.opensysml-result tr.opensysml-failing td{background:var(--jp-error-color3,rgba(207,34,46,.12))}
div.opensysml-result .opensysml-head{font-weight:600;margin:2px 0 4px 0}
div.opensysml-result .opensysml-badge{display:inline-block;padding:0 7px;margin-right:6px;border-radius:9px;border:1px solid currentColor;font-weight:600}
div.opensysml-result .opensysml-mark-ok{color:var(--jp-success-color1,#1a7f37)}
div.opensysml-result .opensysml-mark-fail{color:var(--jp-error-color1,#cf222e)}
div.opensysml-result .opensysml-mark-undecided,div.opensysml-result .opensysml-mark-paused{color:var(--jp-warn-color1,#9a6700)}
div.opensysml-result .opensysml-mark-started{color:var(--jp-brand-color1,#1f6feb)}
div.opensysml-result .opensysml-quiet{color:var(--jp-content-font-color2,#666)}
div.opensysml-result details>summary{cursor:pointer;margin:2px 0}
div.opensysml-result hr{border:0;border-top:1px solid var(--jp-border-color2,#ddd);margin:6px 0}
""".strip()

STYLE = f"<style>{CSS}</style>"

# A line's leading mark, and the class that colours it.
TONES = {"✓": "mark-ok", "✗": "mark-fail", "?": "mark-undecided", "▶": "mark-started", "⏸": "mark-paused"}


def tone_of(line: str) -> str | None:
    """The class of a line that starts with a verdict mark, or None."""
    return TONES.get(line[:1])


def badge(mark: str, word: str) -> str:
    """`✗ violation` as a coloured pill."""
    tone = TONES.get(mark, "mark-undecided")
    return f"<span class='opensysml-badge opensysml-{tone}'>{html.escape(f'{mark} {word}')}</span>"


def mono(text: str) -> str:
    """A value or a name, in the code font."""
    return f"<code>{html.escape(text)}</code>" if text else ""


def folded(head: str, rows: list[str], shown: int = ROWS_SHOWN) -> str:
    """A table of `rows` (each a `<tr>`) under `head`: past the first `shown`, the rest folded under a count."""
    table = f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows[:shown])}</tbody></table>"
    rest = rows[shown:]
    if not rest:
        return table
    more = f"{len(rest)} more row" + ("s" if len(rest) > 1 else "")
    return (table + f"<details class='opensysml-more'><summary class='opensysml-quiet'>{more} (of {len(rows)})</summary>"
            f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(rest)}</tbody></table></details>")
