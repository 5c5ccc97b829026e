"""The paper table: N runs x M measures, each mean with superscripts naming the runs it is significantly better than.

:class:`ComparisonTable` is built from the table of :func:`evalframe.compare` with ``pairs="all"`` (one row per pair
of runs i < j and measure; :func:`table_of_pairs`) and rendered as LaTeX (booktabs), Markdown (GitHub's pipe table)
and HTML (a ``<table>``), each listed once in :data:`PAPER_FORMATS`, which ``ComparisonTable.render`` and
``evalframe compare --format latex|html`` (``--paper``) read. The convention is ranx's (``ranx.compare(...)``'s
report): each run gets a letter (a, b, c, ... in the order given), and a run's cell for a measure carries the letters
of the runs it is significantly better than, better read by the measure's direction (a lower-is-better measure's
smaller mean is better; a count, direction ``"none"``, has no superscripts and no bold). The best mean of each
measure, rounded to the digits shown, is in bold: every run that reaches it (ranx bolds only the first). The caption
states the test, the correction and its family, ``max_p`` and the number of queries.

Every text of the user's (run and measure names) is escaped for its format: :func:`latex` here, and
:func:`evalframe.report.escape.md` / :func:`~evalframe.report.escape.h`.

Examples
--------
>>> print(latex("BM25_k1=0.9 & 50% {x} $5 #2 ~a^b \\\\"))
BM25\\_k1=0.9 \\& 50\\% \\{x\\} \\$5 \\#2 \\textasciitilde{}a\\textasciicircum{}b \\textbackslash{}
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from .._locations import Remote, locate, write_bytes
from ..errors import InvalidParameterError
from .escape import h, md

__all__ = ["ComparisonTable", "PaperFormat", "PAPER_FORMATS", "table_of_pairs", "latex", "LETTERS"]

#: The letters naming the runs, in the order given (ranx's): at most 26 runs.
LETTERS = "abcdefghijklmnopqrstuvwxyz"

#: How the caption names each test (``test=``); a test not listed is named by its own name.
_TEST_WORDS = {"randomization": "the two-sided paired randomization test", "t-test": "the two-sided paired t-test",
               "wilcoxon": "the Wilcoxon signed-rank test", "sign": "the sign test",
               "bootstrap": "the paired bootstrap test", "permutation": "the permutation test over all pairs",
               "tukey": "Tukey's HSD test", "randomized-tukey": "the randomized Tukey HSD test"}
#: How the caption names each correction (``correction=``).
_CORRECTION_WORDS = {"holm": "Holm's correction", "bonferroni": "Bonferroni's correction",
                     "holm-sidak": "the Holm-Sidak correction", "fdr_bh": "the Benjamini-Hochberg correction",
                     "fdr_by": "the Benjamini-Yekutieli correction"}

_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
                  "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
                  "<": r"\textless{}", ">": r"\textgreater{}", "|": r"\textbar{}"}
#: The caption's "p ≤ 0.05", written in LaTeX's math mode.
_P_AT_MOST = re.compile(r"p ≤ ([0-9.e+-]+[0-9])")
_LATEX_PATTERN = re.compile(r"[\\&%$#_{}~^<>|]|[\x00-\x1f\x7f]|[\ud800-\udfff]")


def _latex_char(match: re.Match[str]) -> str:
    char = match.group()
    if char in _LATEX_SPECIAL:
        return _LATEX_SPECIAL[char]
    if char in "\t\r\n":
        return " "
    if "\ud800" <= char <= "\udfff":  # a lone surrogate: UTF-8 cannot write it
        return "?"
    # a control character in caret notation (NUL as ^@, ESC as ^[, DEL as ^?): shown, and it compiles
    return r"\textasciicircum{}" + _LATEX_SPECIAL.get(chr(ord(char) ^ 0x40), chr(ord(char) ^ 0x40))


def latex(text: object) -> str:
    """``text`` as LaTeX prints it literally: its special characters (``\\ & % $ # _ { } ~ ^ < > |``) escaped, a
    line break as a space, a control character in caret notation (NUL as ``^@``). Other characters are written as
    they are (UTF-8, which pdflatex reads for the Latin scripts).

    Examples
    --------
    >>> print(latex("a_b\\x00c"))
    a\\_b\\textasciicircum{}@c
    """
    return _LATEX_PATTERN.sub(_latex_char, str(text))


@dataclass(frozen=True, eq=False, repr=False)  # eq: its frames have no truth value; repr: the table itself
class ComparisonTable:
    """The paper table of N runs x M measures (:func:`evalframe.comparison_table` builds it).

    Attributes
    ----------
    frame : pandas.DataFrame
        One row per run (index ``run``, in the order given), the column ``letter`` and per measure two columns,
        ``(measure, "mean")`` (the run's mean, over the queries of the first pair of runs it is in: the same in
        every pair but where compare warns of queries scored by one run only) and ``(measure, "better_than")``
        (the names of the runs it is significantly better than, a tuple in the order given).
    directions : dict
        Each measure's direction (``"higher"``, ``"lower"`` or ``"none"``).
    caption : str
        What the table shows: the test, the correction and its family, ``max_p``, the number of queries.
    digits : int
        The digits each mean is shown with.
    """

    frame: pd.DataFrame
    directions: Mapping[str, str]
    caption: str
    digits: int = 4
    pairs: pd.DataFrame = field(default_factory=pd.DataFrame, repr=False)

    @property
    def names(self) -> list[str]:
        """The runs, in the order given."""
        return [str(name) for name in self.frame.index]

    @property
    def metrics(self) -> list[str]:
        """The measures, in the order compared."""
        return list(dict.fromkeys(str(metric) for metric, _ in self.frame.columns[1:]))

    @property
    def means(self) -> pd.DataFrame:
        """The runs x measures table of means."""
        return pd.DataFrame({metric: self.frame[(metric, "mean")] for metric in self.metrics})

    @property
    def better_than(self) -> pd.DataFrame:
        """The runs x measures table of the runs each run is significantly better than (tuples of names)."""
        return pd.DataFrame({metric: self.frame[(metric, "better_than")] for metric in self.metrics})

    def superscripts(self) -> pd.DataFrame:
        """The runs x measures table of the superscripts: the letters of :attr:`better_than`, e.g. ``"ac"``."""
        letter = dict(zip(self.names, self.frame["letter"]))
        return self.better_than.map(lambda runs: "".join(letter[run] for run in runs))

    def best(self) -> dict[str, list[str]]:
        """The runs shown in bold per measure: those whose mean, rounded to :attr:`digits`, is the best by the
        measure's direction (none for a measure without a direction)."""
        found: dict[str, list[str]] = {}
        for metric in self.metrics:
            rounded = self.means[metric].astype(np.float64).round(self.digits)
            direction = self.directions.get(metric, "none")
            if direction == "none" or rounded.isna().all():
                found[metric] = []
                continue
            top = rounded.max() if direction == "higher" else rounded.min()
            found[metric] = [str(name) for name in rounded.index[rounded == top]]
        return found

    def number(self, value: float) -> str:
        """A mean as the table shows it: rounded to :attr:`digits` (``n/a`` when there is none)."""
        return "n/a" if value is None or math.isnan(value) else f"{value:.{self.digits}f}"

    def cells(self) -> list[list[tuple[str, bool, str, str]]]:
        """Per run, per measure: (the number, whether it is bold, its superscript, the letters it lacks)."""
        best = self.best()
        letters = [str(letter) for letter in self.frame["letter"]]
        means = self.means.to_numpy(dtype=np.float64)
        marks = self.superscripts().to_numpy(dtype=object)
        rows = []
        for i, (name, letter) in enumerate(zip(self.names, letters)):
            row = []
            for j, metric in enumerate(self.metrics):
                mark = str(marks[i, j])
                others = "".join(c for c in letters if c != letter and c not in mark)
                row.append((self.number(float(means[i, j])), name in best[metric], mark, others))
            rows.append(row)
        return rows

    def render(self, fmt: str) -> str:
        """The table in ``fmt``, one of :data:`PAPER_FORMATS` (``"latex"``, ``"markdown"``, ``"html"``)."""
        if fmt not in PAPER_FORMATS:
            raise InvalidParameterError(f"format must be one of {list(PAPER_FORMATS)}; got {fmt!r}.", parameter="format")
        return PAPER_FORMATS[fmt].render(self)

    def to_latex(self) -> str:
        """The table as a LaTeX ``table`` (booktabs: ``\\usepackage{booktabs}`` in the preamble)."""
        return self.render("latex")

    def to_markdown(self) -> str:
        """The table as a GitHub-flavoured Markdown table, its caption below it."""
        return self.render("markdown")

    def to_html(self) -> str:
        """The table as an HTML ``<table>`` with its ``<caption>``."""
        return self.render("html")

    @property
    def latex(self) -> str:
        """:meth:`to_latex`."""
        return self.to_latex()

    @property
    def markdown(self) -> str:
        """:meth:`to_markdown`."""
        return self.to_markdown()

    @property
    def html(self) -> str:
        """:meth:`to_html`."""
        return self.to_html()

    def save(self, path: str | Path, format: str | None = None, *,
             storage_options: Mapping[str, Any] | None = None) -> Path | Remote:
        """Write the table to ``path`` in ``format`` (default: by its suffix, ``.tex``, ``.md``, ``.html``).

        ``path`` may be a URL (``s3://bucket/table.tex``; ``storage_options``: its filesystem's options), written in
        one request; the :class:`~evalframe._locations.Remote` written is returned.
        """
        where = locate(path, name="path", storage_options=storage_options)
        path = Path(where.name) if isinstance(where, Remote) else Path(path)
        if format is None:
            known = {suffix: name for name, entry in PAPER_FORMATS.items() for suffix in entry.suffixes}
            if path.suffix.lower() not in known:
                raise InvalidParameterError(f"save({str(where)!r}): the suffix {path.suffix!r} names no format of the "
                                            f"paper table; use one of {sorted(known)} or pass format=.",
                                            parameter="path")
            format = known[path.suffix.lower()]
        if isinstance(where, Remote):
            write_bytes(where, (self.render(format) + "\n").encode("utf-8"), what="paper table")
            return where
        path.write_text(self.render(format) + "\n", encoding="utf-8")
        return path

    def __str__(self) -> str:
        return self.to_markdown()

    def __repr__(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        return self.to_html()


# ---------------------------------------------------------------------------------------------------- the formats
def _latex(table: ComparisonTable) -> str:
    caption = _P_AT_MOST.sub(lambda match: rf"$p \leq {match.group(1)}$", latex(table.caption))
    lines = [r"\begin{table}[ht]", r"\centering", rf"\caption{{{caption}}}", r"\label{tab:comparison}",
             r"\begin{tabular}{cl" + "r" * len(table.metrics) + "}", r"\toprule",
             " & ".join([r"\#", "Run", *(latex(metric) for metric in table.metrics)]) + r" \\", r"\midrule"]
    for letter, name, cells in zip(table.frame["letter"], table.names, table.cells()):
        shown = []
        for number, bold, marks, others in cells:
            text = rf"\textbf{{{number}}}" if bold else number
            text += f"$^{{{marks}}}$" if marks else ""
            text += rf"\hphantom{{$^{{{others}}}$}}" if others else ""  # keeps the numbers aligned (ranx's way)
            shown.append(text)
        lines.append(" & ".join([letter, latex(name), *shown]) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


def _markdown(table: ComparisonTable) -> str:
    lines = ["| " + " | ".join(["#", "Run", *(md(metric) for metric in table.metrics)]) + " |",
             "|---|---|" + "---:|" * len(table.metrics)]
    for letter, name, cells in zip(table.frame["letter"], table.names, table.cells()):
        shown = [(f"**{number}**" if bold else number) + (f"<sup>{marks}</sup>" if marks else "")
                 for number, bold, marks, _ in cells]
        lines.append("| " + " | ".join([letter, md(name), *shown]) + " |")
    return "\n".join(lines) + "\n\n" + md(table.caption)


def _html(table: ComparisonTable) -> str:
    lines = ["<table class=\"comparison\">", f"<caption>{h(table.caption)}</caption>", "<thead>",
             "<tr><th>#</th><th>Run</th>" + "".join(f"<th>{h(metric)}</th>" for metric in table.metrics) + "</tr>",
             "</thead>", "<tbody>"]
    for letter, name, cells in zip(table.frame["letter"], table.names, table.cells()):
        shown = "".join("<td>" + (f"<strong>{number}</strong>" if bold else number)
                        + (f"<sup>{marks}</sup>" if marks else "") + "</td>" for number, bold, marks, _ in cells)
        lines.append(f"<tr><td>{letter}</td><td>{h(name)}</td>{shown}</tr>")
    lines += ["</tbody>", "</table>"]
    return "\n".join(lines)


@dataclass(frozen=True)
class PaperFormat:
    """A rendering of the paper table: its renderer, the suffixes ``save`` writes it for, and a line of help."""

    name: str
    render: Callable[[ComparisonTable], str]
    suffixes: tuple[str, ...]
    help: str


#: Every format of the paper table, by name: ``table.render(name)``, ``evalframe compare --paper --format NAME``.
PAPER_FORMATS: dict[str, PaperFormat] = {entry.name: entry for entry in (
    PaperFormat("latex", _latex, (".tex",), "a LaTeX table (booktabs)"),
    PaperFormat("markdown", _markdown, (".md", ".markdown"), "a GitHub-flavoured pipe table, the caption below"),
    PaperFormat("html", _html, (".html", ".htm"), "an HTML <table> with its <caption>"),
)}


# ------------------------------------------------------------------------------------------- from compare's table
def _better(mean_a: float, mean_b: float, direction: str) -> int:
    """+1 when run_a is better than run_b, -1 when run_b is, 0 when neither (equal, missing or no direction)."""
    if direction == "none" or math.isnan(mean_a) or math.isnan(mean_b):
        return 0
    sign = int(np.sign(mean_a - mean_b))
    return sign if direction == "higher" else -sign


def _family_words(family: Sequence[str], runs: int, metrics: int) -> str:
    pairs = runs * (runs - 1) // 2
    if set(family) == {"runs", "measures"}:
        return f"over all {pairs * metrics} comparisons of the table"
    if tuple(family) == ("measures",):
        return f"over the {metrics} measures of each pair of runs"
    return f"over the {pairs} pairs of runs of each measure"


def caption_of(pairs: pd.DataFrame, names: Sequence[str], metrics: Sequence[str], *, test: str, correction: str,
               corrected: bool, family: Sequence[str], max_p: float, rounds: int, seed: int,
               zero_method: str) -> str:
    """The caption: what the numbers are, which test and correction marks a difference significant."""
    queries = pairs["queries"].astype(np.int64)
    counted = (f"{int(queries.min())} queries" if queries.min() == queries.max() else
               f"{int(queries.min())} to {int(queries.max())} queries (those each pair of runs both scored)")
    words = _TEST_WORDS.get(test, f"the {test} test")
    if test == "randomization":
        words += f" ({rounds} rounds, seed {seed})"
    elif test == "wilcoxon":
        words += f" (zero differences: {zero_method})"
    itself = ""  # a test of all pairs adjusts its p-values over the pairs of runs of each measure by itself
    if test in ("tukey", "randomized-tukey"):
        itself = f"adjusted over the {len(names) * (len(names) - 1) // 2} pairs of runs of each measure by the test, "
        queries = pairs["queries"].astype(np.int64)  # the test reads the queries every run scored
        counted = counted if queries.min() == queries.max() else f"{counted}; the test reads those every run scored"
    if corrected:
        adjusted = f"{_CORRECTION_WORDS.get(correction, correction)} {_family_words(family, len(names), len(metrics))}"
    elif itself:
        adjusted = "no further correction"
    elif correction == "none":
        adjusted = "no correction for multiple comparisons"
    else:
        adjusted = "no correction (each family holds one comparison)"
    return (f"Mean of each measure over {counted}; the best of each measure in bold. A superscript names the runs "
            f"(by letter) that a run is significantly better than: {words}, p ≤ {max_p:g}, {itself}{adjusted}.")


def table_of_pairs(pairs: pd.DataFrame, names: Sequence[str], directions: Mapping[str, str], *, caption: str,
                   digits: int = 4) -> ComparisonTable:
    """The paper table of ``pairs``, :func:`evalframe.compare`'s table with ``pairs="all"`` and ``max_p`` (index
    ``(run_a, run_b, metric)``, columns ``mean_a``, ``mean_b``, ``significant``) of the runs ``names``.

    Examples
    --------
    >>> pairs = pd.DataFrame({"mean_a": [0.5, 0.5, 0.2], "mean_b": [0.2, 0.4, 0.4], "significant": [True, False, True],
    ...                       "queries": [3, 3, 3]}, index=pd.MultiIndex.from_tuples(
    ...     [("x", "y", "RR"), ("x", "z", "RR"), ("y", "z", "RR")], names=["run_a", "run_b", "metric"]))
    >>> table = table_of_pairs(pairs, ["x", "y", "z"], {"RR": "higher"}, caption="")
    >>> table.superscripts()["RR"].tolist(), table.best()
    (['b', '', 'b'], {'RR': ['x']})
    """
    if len(names) > len(LETTERS):
        raise InvalidParameterError(f"the paper table names its runs by the letters a to z: at most {len(LETTERS)} runs; "
                                    f"got {len(names)}.", parameter="runs")
    metrics = list(dict.fromkeys(str(metric) for metric in pairs.index.get_level_values("metric")))
    means: dict[tuple[str, str], float] = {}
    better: dict[tuple[str, str], list[str]] = {(name, metric): [] for name in names for metric in metrics}
    rows = zip(pairs.index, pairs["mean_a"].to_numpy(dtype=np.float64), pairs["mean_b"].to_numpy(dtype=np.float64),
               pairs["significant"].to_numpy(dtype=bool))
    for (run_a, run_b, metric), mean_a, mean_b, significant in rows:  # one row per pair: N^2 M, not per query
        means.setdefault((run_a, metric), float(mean_a))
        means.setdefault((run_b, metric), float(mean_b))
        way = _better(float(mean_a), float(mean_b), directions.get(metric, "none")) if significant else 0
        if way:
            better[(run_a, metric) if way > 0 else (run_b, metric)].append(run_b if way > 0 else run_a)
    order = {name: position for position, name in enumerate(names)}
    columns: dict[Any, list[Any]] = {("letter", ""): list(LETTERS[:len(names)])}
    for metric in metrics:
        columns[(metric, "mean")] = [means.get((name, metric), np.nan) for name in names]
        columns[(metric, "better_than")] = [tuple(sorted(better[(name, metric)], key=order.__getitem__))
                                            for name in names]
    frame = pd.DataFrame(columns, index=pd.Index(list(names), name="run"))
    frame.columns = pd.MultiIndex.from_tuples(list(columns))
    return ComparisonTable(frame=frame, directions=dict(directions), caption=caption, digits=digits, pairs=pairs)
