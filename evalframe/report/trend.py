"""The trend of a measure over the runs of a history (:meth:`evalframe.History.trend`): each run's mean and interval
in time order, the runs named, a change of question set marked, as a PNG (:func:`trend_png`: matplotlib, imported
only when it draws) or as one self-contained HTML page (:func:`trend_html`: an inline SVG drawn here, no script, no
request; every user text escaped by :mod:`evalframe.report.escape`).

Both take the trend frame: one row per run, the columns of :data:`TREND_COLUMNS` (``History.trend``'s), drawn in the
order of ``time``.

Examples
--------
>>> import pandas as pd
>>> trend = pd.DataFrame({"id": ["r1", "r2"], "name": ["bm25", "dense"], "time": ["2026-01-01T00:00:00Z",
...     "2026-01-02T00:00:00Z"], "tags": [[], ["v2"]], "commit": [None, None], "node": ["Retriever"] * 2,
...     "queries": [50, 50], "fingerprint": ["a", "b"], "mean": [0.61, 0.66], "low": [0.55, 0.60],
...     "high": [0.67, 0.72], "direction": ["higher"] * 2, "question_set_changed": [False, True]})
>>> page = trend_html(trend, measure="nDCG@10")
>>> page.count('class="mean"'), page.count('class="changed"')
(2, 1)
"""

from __future__ import annotations

import io
import math
import os
from collections.abc import Mapping
from pathlib import Path
from typing import IO, Any

import numpy as np
import pandas as pd

from .._locations import Remote, is_dir, locate, write_bytes
from ..errors import InvalidParameterError
from ..io.atomic import write_atomically
from .escape import h, plain, visible

__all__ = ["TREND_COLUMNS", "CHANGED", "trend_png", "trend_html", "trend_bytes", "save_trend", "measure_text"]

#: The columns of a trend frame (:meth:`evalframe.History.trend`), each run one row.
TREND_COLUMNS = ("id", "name", "time", "tags", "commit", "node", "queries", "fingerprint", "mean", "low", "high",
                 "direction", "question_set_changed")
#: How both drawings label a change of question set.
CHANGED = "question set changed"
#: At most this many run names under the axis (every run is named in the tooltips and the HTML table).
_MAX_LABELS = 24

# The SVG's geometry, in its own units.
_WIDTH, _HEIGHT = 960, 420
_LEFT, _RIGHT, _TOP, _BOTTOM = 70, 20, 40, 110


def _checked(trend: pd.DataFrame, measure: str) -> pd.DataFrame:
    """The trend's rows in time order (stable: equal times keep their order), or a clear error."""
    if not isinstance(trend, pd.DataFrame):
        raise InvalidParameterError(f"trend must be a DataFrame (History.trend's); got {type(trend).__name__}.",
                                    parameter="trend")
    missing = [column for column in TREND_COLUMNS if column not in trend.columns]
    if missing:
        raise InvalidParameterError(f"trend must have History.trend's columns; missing {missing} (it has "
                                    f"{[str(column) for column in trend.columns]}).", parameter="trend")
    if trend.empty:
        raise InvalidParameterError(f"no run holds {measure!r}: the trend has no row to draw.", parameter="trend")
    order = np.argsort(pd.to_datetime(trend["time"], utc=True).to_numpy(), kind="stable")
    return trend.iloc[order].reset_index(drop=True)


def _values(rows: pd.DataFrame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    mean, low, high = (rows[column].to_numpy(dtype=np.float64, na_value=np.nan) for column in ("mean", "low", "high"))
    changed = rows["question_set_changed"].fillna(False).to_numpy(dtype=bool)
    return mean, low, high, changed


def _labels(rows: pd.DataFrame) -> list[str]:
    """Each run's label: its name, and its tags in brackets."""
    names = rows["name"].astype(str).tolist()
    tags = [", ".join(str(tag) for tag in (cell if isinstance(cell, (list, tuple, np.ndarray)) else []))
            for cell in rows["tags"]]
    return [f"{name} [{tag}]" if tag else name for name, tag in zip(names, tags)]


def _shown(count: int) -> np.ndarray:
    """The positions of the runs named under the axis: all of them, or evenly spaced ones with the first and last."""
    if count <= _MAX_LABELS:
        return np.arange(count)
    return np.unique(np.linspace(0, count - 1, _MAX_LABELS).round().astype(int))


def _direction_words(rows: pd.DataFrame) -> str:
    directions = rows["direction"].dropna().astype(str).unique()
    return {"higher": "higher is better", "lower": "lower is better"}.get(directions[0], "") if len(directions) == 1 else ""


def _title(measure: str, rows: pd.DataFrame, title: str | None) -> str:
    if title is not None:
        return title
    nodes = rows["node"].dropna().astype(str).unique()
    return f"{measure}" + (f" of {nodes[0]}" if len(nodes) == 1 else "") + f" over {len(rows)} runs"


def trend_png(trend: pd.DataFrame, path_or_buffer: str | os.PathLike[str] | IO[bytes], *, measure: str,
              title: str | None = None) -> None:
    """Draw the trend as a PNG: each run's mean (a point, joined in time order) and interval (an error bar), the
    runs named under the axis (evenly spaced ones when there are many), a dashed vertical line before each run whose
    question set changed (legend: "question set changed").

    Parameters
    ----------
    trend : pandas.DataFrame
        :meth:`evalframe.History.trend`'s frame (the columns of :data:`TREND_COLUMNS`).
    path_or_buffer : str, os.PathLike or binary file
        Where to write the PNG.
    measure : str
        The measure drawn (the y axis's label).
    title : str, optional
        The figure's title (default: the measure, its node and the number of runs).

    Raises
    ------
    InvalidParameterError
        ``trend`` lacks a column or has no row.

    Examples
    --------
    >>> import io, pandas as pd
    >>> trend = pd.DataFrame({"id": ["r1"], "name": ["bm25"], "time": ["2026-01-01T00:00:00Z"], "tags": [[]],
    ...     "commit": [None], "node": ["Retriever"], "queries": [50], "fingerprint": ["a"], "mean": [0.6],
    ...     "low": [0.5], "high": [0.7], "direction": ["higher"], "question_set_changed": [False]})
    >>> buffer = io.BytesIO()
    >>> trend_png(trend, buffer, measure="nDCG@10")
    >>> buffer.getvalue()[:4]
    b'\\x89PNG'
    """
    rows = _checked(trend, measure)
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    mean, low, high, changed = _values(rows)
    x = np.arange(len(rows), dtype=np.float64)
    figure = Figure(figsize=(10, 4.8), dpi=100)
    FigureCanvasAgg(figure)
    ax = figure.add_subplot()
    bars = np.isfinite(low) & np.isfinite(high)
    if bars.any():
        errors = np.vstack([mean[bars] - low[bars], high[bars] - mean[bars]])
        ax.errorbar(x[bars], mean[bars], yerr=np.abs(errors), fmt="none", ecolor="#7a9cc6", elinewidth=1.2,
                    capsize=2 if len(rows) <= 100 else 0, label="interval")
    # the line joins the runs of one question set only: a change of question set breaks it
    for segment, part in enumerate(np.split(np.arange(len(rows)), np.flatnonzero(changed))):
        if len(part):
            ax.plot(x[part], mean[part], marker="o" if len(rows) <= 200 else None, markersize=4, color="#1f4e89",
                    linewidth=1.2, label="mean" if segment == 0 else None)
    for position, at in enumerate(x[changed]):
        ax.axvline(at - 0.5, color="#c0392b", linestyle="--", linewidth=1.0, label=CHANGED if position == 0 else None)
    labels = _labels(rows)
    shown = _shown(len(rows))
    ax.set_xticks(x[shown], [plain(visible(labels[i])) for i in shown], rotation=35, ha="right", fontsize=8)
    ax.set_xlim(-0.6, len(rows) - 0.4)
    words = _direction_words(rows)
    ax.set_ylabel(plain(visible(measure)) + (f" ({words})" if words else ""))
    ax.set_title(plain(visible(_title(measure, rows, title))))
    ax.grid(axis="y", alpha=0.3)
    ax.legend(loc="best", fontsize=8)
    figure.tight_layout()
    figure.savefig(path_or_buffer, format="png", metadata={"Software": None})  # no version stamp: stable files


def _ticks(low: float, high: float) -> np.ndarray:
    """About five round values from ``low`` to ``high``."""
    span = high - low
    step = 10 ** math.floor(math.log10(span / 5))
    for factor in (1, 2, 2.5, 5, 10):
        if span / (step * factor) <= 6:
            step *= factor
            break
    return np.arange(math.ceil(low / step) * step, high + step * 1e-9, step)


def _number(value: float) -> str:
    return "" if not math.isfinite(value) else f"{value:.4f}"


def _svg(rows: pd.DataFrame, measure: str) -> str:
    mean, low, high, changed = _values(rows)
    finite = np.concatenate([values[np.isfinite(values)] for values in (mean, low, high)])
    bottom, top = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    pad = (top - bottom) * 0.08 or max(abs(top) * 0.05, 0.05)
    bottom, top = bottom - pad, top + pad
    plot_w, plot_h = _WIDTH - _LEFT - _RIGHT, _HEIGHT - _TOP - _BOTTOM
    step = plot_w / len(rows)
    x = _LEFT + (np.arange(len(rows)) + 0.5) * step

    def y(values: np.ndarray) -> np.ndarray:
        return _TOP + (top - values) / (top - bottom) * plot_h

    labels = _labels(rows)
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {_WIDTH} {_HEIGHT}" width="{_WIDTH}" '
             f'height="{_HEIGHT}" role="img" aria-label="{h(measure)} by run">',
             f'<rect class="plot" x="{_LEFT}" y="{_TOP}" width="{plot_w}" height="{plot_h}" fill="#fff" '
             'stroke="#999"/>']
    for tick in _ticks(bottom, top):
        at = float(y(np.array([tick]))[0])
        parts.append(f'<line class="grid" x1="{_LEFT}" x2="{_LEFT + plot_w}" y1="{at:.2f}" y2="{at:.2f}" '
                     f'stroke="#eee"/><text class="tick" x="{_LEFT - 6}" y="{at + 4:.2f}" text-anchor="end" '
                     f'font-size="11">{tick:.4g}</text>')
    for at in x[changed] - step / 2:
        parts.append(f'<line class="changed" x1="{at:.2f}" x2="{at:.2f}" y1="{_TOP}" y2="{_TOP + plot_h}" '
                     f'stroke="#c0392b" stroke-dasharray="5 3"><title>{CHANGED}</title></line>')
    y_mean, y_low, y_high = y(mean), y(low), y(high)
    # the line joins the runs of one question set only: a change of question set breaks it
    for part in np.split(np.arange(len(rows)), np.flatnonzero(changed)):
        drawn = part[np.isfinite(mean[part])]
        if len(drawn) > 1:
            path = " ".join(f"{x[i]:.2f},{y_mean[i]:.2f}" for i in drawn)
            parts.append(f'<polyline class="line" points="{path}" fill="none" stroke="#1f4e89" stroke-width="1.2"/>')
    radius = 3.5 if len(rows) <= 200 else 1.5
    for i in range(len(rows)):  # one element per run (a page of at most a few thousand runs), not per query
        tip = (f"{h(labels[i])} ({h(rows['id'].iat[i])}), {h(rows['time'].iat[i])}: {measure_text(mean[i], low[i], high[i])}"
               f", {h(rows['queries'].iat[i])} queries" + (f"; {CHANGED}" if changed[i] else ""))
        if math.isfinite(low[i]) and math.isfinite(high[i]):
            parts.append(f'<line class="interval" data-run="{h(rows["id"].iat[i])}" x1="{x[i]:.2f}" x2="{x[i]:.2f}" '
                         f'y1="{y_low[i]:.2f}" y2="{y_high[i]:.2f}" stroke="#7a9cc6" stroke-width="2"/>')
        if math.isfinite(mean[i]):
            parts.append(f'<circle class="mean" data-run="{h(rows["id"].iat[i])}" cx="{x[i]:.2f}" '
                         f'cy="{y_mean[i]:.2f}" r="{radius}" fill="#1f4e89"><title>{tip}</title></circle>')
    for i in _shown(len(rows)):
        parts.append(f'<text class="run" x="{x[i]:.2f}" y="{_TOP + plot_h + 12}" font-size="10" text-anchor="end" '
                     f'transform="rotate(-35 {x[i]:.2f} {_TOP + plot_h + 12})">{h(labels[i])}</text>')
    words = _direction_words(rows)
    parts.append(f'<text class="axis" x="14" y="{_TOP + plot_h / 2:.2f}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 14 {_TOP + plot_h / 2:.2f})">{h(measure)}{" (" + words + ")" if words else ""}'
                 '</text>')
    legend = _LEFT + plot_w - 330
    parts.append(f'<g class="legend" font-size="11"><circle cx="{legend}" cy="{_TOP - 18}" r="3.5" fill="#1f4e89"/>'
                 f'<text x="{legend + 8}" y="{_TOP - 14}">mean</text>'
                 f'<line x1="{legend + 60}" x2="{legend + 60}" y1="{_TOP - 25}" y2="{_TOP - 11}" stroke="#7a9cc6" '
                 f'stroke-width="2"/><text x="{legend + 66}" y="{_TOP - 14}">interval</text>'
                 f'<line x1="{legend + 140}" x2="{legend + 140}" y1="{_TOP - 25}" y2="{_TOP - 11}" stroke="#c0392b" '
                 f'stroke-dasharray="5 3"/><text x="{legend + 146}" y="{_TOP - 14}">{CHANGED}</text></g>')
    parts.append("</svg>")
    return "\n".join(parts)


def measure_text(mean: float, low: float, high: float) -> str:
    """A mean and its interval as the trend writes them: ``0.6100 [0.5500, 0.6700]`` (no interval: the mean alone).

    Examples
    --------
    >>> measure_text(0.61, 0.55, 0.67), measure_text(0.5, float("nan"), float("nan"))
    ('0.6100 [0.5500, 0.6700]', '0.5000')
    """
    if not math.isfinite(mean):
        return "-"
    if math.isfinite(low) and math.isfinite(high):
        return f"{mean:.4f} [{low:.4f}, {high:.4f}]"
    return f"{mean:.4f}"


def trend_html(trend: pd.DataFrame, *, measure: str, title: str | None = None) -> str:
    """The trend as one self-contained HTML page: an inline SVG (each run's mean a point, its interval a vertical
    line, in time order; a dashed vertical line before each run whose question set changed; the runs named under
    the axis and in each point's tooltip) and a table of every run (time, id, name, tags, commit, node, queries,
    mean [low, high], whether the question set changed). No script, no request; every user text escaped.

    Parameters
    ----------
    trend : pandas.DataFrame
        :meth:`evalframe.History.trend`'s frame (the columns of :data:`TREND_COLUMNS`).
    measure : str
        The measure drawn.
    title : str, optional
        The page's title (default: the measure, its node and the number of runs).

    Returns
    -------
    str
        The page.

    Raises
    ------
    InvalidParameterError
        ``trend`` lacks a column or has no row.

    Examples
    --------
    >>> import pandas as pd
    >>> trend = pd.DataFrame({"id": ["r1"], "name": ["<b>bm25</b>"], "time": ["2026-01-01T00:00:00Z"], "tags": [[]],
    ...     "commit": [None], "node": ["Retriever"], "queries": [50], "fingerprint": ["a"], "mean": [0.6],
    ...     "low": [0.5], "high": [0.7], "direction": ["higher"], "question_set_changed": [False]})
    >>> page = trend_html(trend, measure="nDCG@10")
    >>> "<b>bm25" in page, "&lt;b&gt;bm25&lt;/b&gt;" in page
    (False, True)
    """
    rows = _checked(trend, measure)
    heading = _title(measure, rows, title)
    mean, low, high, changed = _values(rows)
    labels = _labels(rows)
    times = pd.to_datetime(rows["time"], utc=True).dt.strftime("%Y-%m-%dT%H:%M:%SZ").tolist()
    body = []
    for i in range(len(rows)):  # one table row per run
        commit = rows["commit"].iat[i]
        marked = ' class="changed-row"' if changed[i] else ""
        body.append(f"<tr{marked}><td>{times[i]}</td>"
                    f"<td><code>{h(rows['id'].iat[i])}</code></td><td>{h(labels[i])}</td>"
                    f"<td><code>{h(commit) if isinstance(commit, str) else ''}</code></td>"
                    f"<td>{h(rows['node'].iat[i])}</td><td>{h(rows['queries'].iat[i])}</td>"
                    f"<td>{measure_text(mean[i], low[i], high[i])}</td><td>{CHANGED if changed[i] else ''}</td></tr>")
    style = ("body{font-family:system-ui,sans-serif;margin:1.5em;color:#222}table{border-collapse:collapse;"
             "font-size:13px}td,th{border-bottom:1px solid #ddd;padding:3px 8px;text-align:left;white-space:nowrap}"
             "tr.changed-row td{border-top:2px dashed #c0392b}svg{max-width:100%;height:auto}")
    return "\n".join([
        "<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
        f"<title>{h(heading)}</title>", f"<style>{style}</style></head><body>",
        f"<h1>{h(heading)}</h1>",
        f"<p>Each run's mean of {h(measure)} and its interval, in time order; a dashed line marks where the question "
        f"set changed (those runs are not comparable with the ones before).</p>",
        _svg(rows, measure),
        "<table><thead><tr><th>time</th><th>id</th><th>run</th><th>commit</th><th>node</th><th>queries</th>"
        f"<th>{h(measure)}</th><th>question set</th></tr></thead><tbody>",
        *body, "</tbody></table></body></html>", ""])


def trend_bytes(trend: pd.DataFrame, fmt: str, *, measure: str, title: str | None = None) -> bytes:
    """The trend drawn as ``fmt`` (``"png"`` or ``"html"``), as the bytes of the file.

    Examples
    --------
    >>> import pandas as pd
    >>> trend = pd.DataFrame({"id": ["r1"], "name": ["a"], "time": ["2026-01-01T00:00:00Z"], "tags": [[]],
    ...     "commit": [None], "node": ["n"], "queries": [5], "fingerprint": ["f"], "mean": [0.6], "low": [0.5],
    ...     "high": [0.7], "direction": ["higher"], "question_set_changed": [False]})
    >>> trend_bytes(trend, "html", measure="m")[:15]
    b'<!DOCTYPE html>'
    """
    if fmt == "html":
        return trend_html(trend, measure=measure, title=title).encode("utf-8")
    if fmt == "png":
        buffer = io.BytesIO()
        trend_png(trend, buffer, measure=measure, title=title)
        return buffer.getvalue()
    raise InvalidParameterError(f"the trend is drawn as 'png' or 'html'; got {fmt!r}.", parameter="fmt")


def save_trend(trend: pd.DataFrame, path: str | os.PathLike[str], *, measure: str, title: str | None = None,
               storage_options: Mapping[str, Any] | None = None, name: str = "path") -> Path | Remote:
    """Draw the trend into ``path``: a PNG for ``.png``, the HTML page for ``.html`` / ``.htm``, written atomically
    (a temporary file beside it, renamed over it) or, at a URL, in one request. Returns where it was written.

    Parameters
    ----------
    trend : pandas.DataFrame
        :meth:`evalframe.History.trend`'s frame.
    path : str or os.PathLike
        The file to write (a local path or a URL).
    measure : str
        The measure drawn.
    title : str, optional
        The title (default: the measure, its node and the number of runs).
    storage_options : dict, optional
        The URL's filesystem options.
    name : str
        ``path`` as the caller names it in messages (the command: ``--plot``).

    Raises
    ------
    InvalidParameterError
        The suffix is neither ``.png`` nor ``.html``, or ``path`` is a folder; the trend lacks a column or a row.

    Examples
    --------
    >>> import pandas as pd, tempfile, pathlib
    >>> trend = pd.DataFrame({"id": ["r1"], "name": ["a"], "time": ["2026-01-01T00:00:00Z"], "tags": [[]],
    ...     "commit": [None], "node": ["n"], "queries": [5], "fingerprint": ["f"], "mean": [0.6], "low": [0.5],
    ...     "high": [0.7], "direction": ["higher"], "question_set_changed": [False]})
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "trend.html"
    >>> save_trend(trend, target, measure="m") == target, target.read_text()[:15]
    (True, '<!DOCTYPE html>')
    """
    where = locate(path, name=name, storage_options=storage_options)
    suffix = Path(where.name if isinstance(where, Remote) else str(where)).suffix.lower()
    fmt = {".png": "png", ".html": "html", ".htm": "html"}.get(suffix)
    if fmt is None:
        raise InvalidParameterError(f"{name} must end in .png or .html (the trend as an image or a page); got "
                                    f"{str(path)!r}.", parameter=name)
    if isinstance(where, Remote):
        if is_dir(where):
            raise InvalidParameterError(f"{name} {where.url!r} is a folder; give the file to write.", parameter=name)
        write_bytes(where, trend_bytes(trend, fmt, measure=measure, title=title), what="trend")
        return where
    target = Path(where)
    if target.is_dir():
        raise InvalidParameterError(f"{name} {str(path)!r} is a folder; give the file to write, e.g. "
                                    f"{str(target / ('trend.' + fmt))!r}.", parameter=name)
    write_atomically(target, trend_bytes(trend, fmt, measure=measure, title=title))
    return target
