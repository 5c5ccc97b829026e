"""The output of ``evalframe trec``, without pandas: trec_eval's ``tsv`` lines, ``json`` and ``markdown``.

A :class:`TrecTable` is the per-query values (one float64 array per measure, the evaluated queries in result order)
with the query ids; :data:`TREC_FORMATS` renders it with the means, for ``--format``, ``-q`` and ``--digits``.
Both ways of running the command (the columnar one of :mod:`evalframe.present.trec_command`, and the one through
``EvaluationResult.from_trec``) print through these renderers.

Examples
--------
>>> import argparse, numpy as np
>>> table = TrecTable(["q1", "q2"], {"P@1": np.array([1.0, 0.0])})
>>> args = argparse.Namespace(per_query=True, digits=2)
>>> print(trec_tsv(table, {"P@1": 0.5}, args))
P@1  	q1	1.00
P@1  	q2	0.00
num_q	all	2
P@1  	all	0.50
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import math
import platform
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, cast

import numpy as np

from .._locations import is_file, is_url
from .._validation import did_you_mean
from ..analysis.intervals import Estimate, column_intervals, interval_note
from ..errors import EvalframeError, InvalidParameterError, LoadError
from ..metrics.registry import TREC_MEASURES
from ..frames.judged_codes import at_level
from ..metrics.trec import Measure, aggregation_of, is_count, parse_measure, parse_measures, trec_eval_key
from ..metrics.trec_set_kernels import IPREC_RECALLS, recall_point_counts
from ..report.escape import md
from ..sources.trec_arrow import RUN_FORMAT, last_tag, read_arrow
from ..sources.trec_stream import GZIP_MAGIC, TrecSource, blocks, trec_source
from ..options import IntervalOptions
from .parsers import TREC_DEFAULT_MEASURES, print_warning

__all__ = ["TrecTable", "TREC_FORMATS", "trec_tsv", "trec_json", "trec_markdown", "trec_eval_text", "cell_text",
           "TREC_EVAL_ORDER", "TREC_EVAL_SETS", "TrecEvalRequest", "trec_eval_request", "trec_eval_place", "run_tag",
           "read_zscores", "trec_request", "relstring_column"]


@dataclass(frozen=True)
class TrecTable:
    """The evaluated queries' ids (in result order) and each measure's values for them (float64, same order).

    Parameters
    ----------
    query_ids : sequence of str
        The evaluated queries, in result order (the run's order, as trec_eval ``-q`` prints them).
    columns : dict of str to numpy.ndarray
        Each measure's name (as printed) and its float64 value per query, in ``query_ids``' order (NaN: no value).
    strings : dict of str to sequence of str, optional
        trec_eval's per-query strings by the name it prints (``relstring``, ``relstring_20``), in ``query_ids``'
        order: printed per query only (``-q``), quoted, by ``--format trec_eval`` only (:func:`trec_eval_text`).

    Examples
    --------
    >>> table = TrecTable(["q1", "q2"], {"P@1": np.array([1.0, 0.0])})
    >>> len(table), table.columns["P@1"].tolist()
    (2, [1.0, 0.0])
    """

    query_ids: Sequence[str]
    columns: dict[str, np.ndarray]
    strings: dict[str, Sequence[str]] = dataclasses.field(default_factory=dict)

    def __len__(self) -> int:
        return len(self.query_ids)


def cell_text(value: Any) -> str:
    """A markdown cell: a float with 4 decimals (NaN empty), other values as text on one line, their Markdown and
    HTML syntax escaped (:func:`evalframe.report.escape.md`, the one Markdown escaping: ``|`` does not end the cell,
    ``<b>`` is shown, not rendered bold).

    Examples
    --------
    >>> cell_text(0.5), cell_text("a|b"), cell_text("<b>q1</b>")
    ('0.5000', 'a\\\\|b', '\\\\<b\\\\>q1\\\\</b\\\\>')
    """
    if isinstance(value, float):
        return "" if math.isnan(value) else f"{value:.4f}"
    return md(value)


def _texts(values: np.ndarray, digits: int, name: str = "") -> list[str]:
    """Each value with ``digits`` decimals, as trec_eval prints them (Python's float formatting); a count
    (:func:`evalframe.metrics.trec.is_count`, ``NumRet``) as an integer."""
    if name and is_count(name):
        return [_count_text(value) for value in values.tolist()]
    return list(map(f"{{:.{digits}f}}".format, values.tolist()))


def _count_text(value: float) -> str:
    """A count's value as an integer (``5``; ``nan`` kept)."""
    return f"{value:.0f}" if math.isfinite(value) else f"{value}"


def _mean_text(name: str, value: float, digits: int) -> str:
    """A measure's number over the queries as the format prints it: a count (summed) as an integer."""
    return _count_text(value) if is_count(name) else f"{value:.{digits}f}"


def trec_tsv(table: TrecTable, means: dict[str, float], args: argparse.Namespace) -> str:
    """trec_eval's layout: ``measure<TAB>query<TAB>value`` lines (``-q``: per query first, grouped by query); a
    count (``NumRet``, ``NumRel``: the measures summed over queries) as an integer, per query and for ``all``.

    Parameters
    ----------
    table : TrecTable
        The per-query values.
    means : dict of str to float
        Each measure's number over the queries (its aggregation), in the order printed.
    args : argparse.Namespace
        ``per_query`` (``-q``) and ``digits`` (``--digits``) of ``evalframe trec``.

    Returns
    -------
    str
        The lines, measure names padded to one width, without a final line end.

    Examples
    --------
    >>> table = TrecTable(["q1", "q2"], {"RR": np.array([1.0, 0.5]), "NumRet": np.array([3.0, 2.0])})
    >>> print(trec_tsv(table, {"RR": 0.75, "NumRet": 5.0}, argparse.Namespace(per_query=False, digits=3)))
    num_q 	all	2
    RR    	all	0.750
    NumRet	all	5
    """
    bounded = [name for name, value in means.items() if isinstance(value, Estimate)]
    width = max(len(m) for m in [*table.columns, "num_q", *(f"{name}_ci_high" for name in bounded)])
    lines = []
    if args.per_query:  # grouped by query, as trec_eval -q prints them (queries in the run's order)
        heads = [f"{column:<{width}}\t" for column in table.columns]
        texts = [_texts(values, args.digits, name) for name, values in table.columns.items()]
        for qid, row in zip(table.query_ids, zip(*texts)):
            lines += [f"{head}{qid}\t{text}" for head, text in zip(heads, row)]
    if getattr(args, "summary", True):  # trec_eval -n: no summary
        lines.append(f"{'num_q':<{width}}\tall\t{len(table)}")
        for column, value in means.items():
            lines.append(f"{column:<{width}}\tall\t{_mean_text(column, value, args.digits)}")
            if isinstance(value, Estimate):  # --ci: its interval's ends, as two more measures
                lines += [f"{column + '_ci_' + end:<{width}}\tall\t{bound:.{args.digits}f}"
                          for end, bound in (("low", value.low), ("high", value.high))]
    return "\n".join(lines)


def trec_json(table: TrecTable, means: dict[str, float], args: argparse.Namespace) -> str:
    """``{"measures": means, "queries": n}``, with ``-q`` ``"per_query": {qid: {measure: value}}`` (every digit).

    Parameters
    ----------
    table : TrecTable
        The per-query values.
    means : dict of str to float
        Each measure's number over the queries.
    args : argparse.Namespace
        ``per_query`` (``-q``); ``digits`` is not read (JSON keeps every digit).

    Returns
    -------
    str
        The JSON text, indented by one space.

    Examples
    --------
    >>> table = TrecTable(["q1"], {"RR": np.array([0.5])})
    >>> print(trec_json(table, {"RR": 0.5}, argparse.Namespace(per_query=True, digits=4)))
    {
     "measures": {
      "RR": 0.5
     },
     "queries": 1,
     "per_query": {
      "q1": {
       "RR": 0.5
      }
     }
    }
    """
    record: dict[str, Any] = {"measures": {name: float(value) for name, value in means.items()}, "queries": len(table)}
    bounded = {name: value for name, value in means.items() if isinstance(value, Estimate)}
    if bounded:  # --ci: each mean's interval, and how it was computed
        first = next(iter(bounded.values()))
        record["ci"] = {"confidence": first.confidence, "method": first.method, "seed": args.seed_used,
                        "rounds": args.rounds_used, "note": args.interval_note,
                        "measures": {name: {"low": v.low, "high": v.high, "n": v.n} for name, v in bounded.items()}}
    if not getattr(args, "summary", True):  # trec_eval -n: no summary
        del record["measures"]
    if args.per_query:
        names = list(table.columns)
        rows = zip(*[values.tolist() for values in table.columns.values()])
        record["per_query"] = dict(zip(map(str, table.query_ids), (dict(zip(names, row)) for row in rows)))
    return json.dumps(record, indent=1, ensure_ascii=False)


def trec_markdown(table: TrecTable, means: dict[str, float], args: argparse.Namespace) -> str:
    """A markdown table: a row per query with ``-q``, then the means in row ``all``.

    Parameters
    ----------
    table : TrecTable
        The per-query values.
    means : dict of str to float
        Each measure's number over the queries.
    args : argparse.Namespace
        ``per_query`` (``-q``) and ``digits`` (``--digits``); ``|`` in a query id is escaped.

    Returns
    -------
    str
        The table's lines, without a final line end.

    Examples
    --------
    >>> table = TrecTable(["q1", "q2"], {"RR": np.array([1.0, 0.5])})
    >>> print(trec_markdown(table, {"RR": 0.75}, argparse.Namespace(per_query=True, digits=2)))
    | query | RR |
    |---|---|
    | q1 | 1.00 |
    | q2 | 0.50 |
    | all | 0.75 |
    """
    header = ["query", *table.columns]
    lines = ["| " + " | ".join(map(md, header)) + " |", "|" + "---|" * len(header)]
    if args.per_query:
        texts = [_texts(values, args.digits, name) for name, values in table.columns.items()]
        for qid, row in zip(table.query_ids, zip(*texts)):
            lines.append("| " + " | ".join([cell_text(str(qid)), *map(cell_text, row)]) + " |")
    if getattr(args, "summary", True):  # trec_eval -n: no summary
        lines.append("| " + " | ".join(["all", *(cell_text(_mean_text(name, value, args.digits))
                                                  for name, value in means.items())]) + " |")
    if any(isinstance(value, Estimate) for value in means.values()):  # --ci: the ends in two rows, then what they are
        for end in ("low", "high"):
            lines.append("| " + " | ".join([f"ci_{end}", *(f"{getattr(value, end):.{args.digits}f}"
                                                            if isinstance(value, Estimate) else ""
                                                            for value in means.values())]) + " |")
        lines += ["", md(args.interval_note)]
    return "\n".join(lines)


# ---------------------------------------------------------------------------------------------- trec_eval's own
#: trec_eval 10.0's measures in the order it computes and prints them, whatever the order of ``-m`` (its
#: ``measures.c``, ``te_trec_measures``).
TREC_EVAL_ORDER: tuple[str, ...] = (
    "runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref", "recip_rank",
    "iprec_at_recall", "P", "relstring", "recall", "infAP", "gm_bpref", "Rprec_mult", "utility", "11pt_avg", "binG",
    "G", "dcg", "ideal_dcg", "ndcg", "ndcg_rel", "Rndcg", "ndcg_cut", "map_cut", "relative_P", "success", "set_P",
    "set_relative_P", "set_recall", "set_map", "set_F", "num_nonrel_judged_ret", "prefs_num_prefs_poss",
    "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair", "prefs_avgjg", "prefs_avgjg_Rnonrel",
    "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret", "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp",
    "prefs_pair_imp", "prefs_avgjg_imp", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg", "yaap", "rbp", "rbp_resid", "unj")

#: trec_eval 10.0's names for sets of measures (``-m official``, its default; ``-m all_trec``; ``-m set``), from its
#: ``measures.c``; each member with its default parameters.
TREC_EVAL_SETS: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall", "set_relative_P",
            "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
                 "recip_rank", "iprec_at_recall", "P", "relstring", "recall", "unj", "rbp", "rbp_resid", "infAP",
                 "gm_bpref", "utility", "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret"),
}

#: What trec_eval prints as an integer (``%ld``): its counts.
_COUNTS = frozenset({"num_q", "num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret"})
#: What trec_eval prints in the summary only, never per query (``te_print_single_meas_empty``): the run's tag, the
#: number of queries and the geometric means.
_SUMMARY_ONLY = ("runid", "num_q", "gm_map", "gm_bpref")
#: trec_eval's value of a z-score it has no mean and deviation for (its ``MISSING_ZSCORE_VALUE``).
MISSING_ZSCORE = -1000000.0
#: How trec_eval's ``printf("%6.4f")`` writes its 0 / 0: the hardware's NaN has the sign bit set on x86 (``-nan``),
#: not on ARM (``nan``).
NAN_TEXT = "-nan" if platform.machine().lower() in {"x86_64", "amd64", "i386", "i686", "x86"} else "nan"


def trec_eval_place(measure: Measure) -> tuple[str, str, float] | None:
    """Where trec_eval prints ``measure``: its stem (``P``), its key (``P_5``,
    :func:`evalframe.metrics.trec.trec_eval_key`) and its parameter (the cutoff, 0 without one) to order it among its
    stem's; None when trec_eval has no such measure (``RR@10``).

    Examples
    --------
    >>> trec_eval_place(parse_measure("P@5")), trec_eval_place(parse_measure("AP")), trec_eval_place(parse_measure("RR@3"))
    (('P', 'P_5', 5.0), ('map', 'map', 0.0), None)
    """
    key = trec_eval_key(measure)
    if key is None:
        return None
    stem = max((s for s in TREC_EVAL_ORDER if key == s or key.startswith(s + "_")), key=len, default=None)
    if stem is None:
        return None
    return stem, key, float(measure.cutoff) if measure.cutoff is not None else 0.0


@dataclass(frozen=True)
class TrecEvalRequest:
    """What ``-m`` asks for, read as trec_eval reads it.

    Attributes
    ----------
    measures : list of Measure
        The measures evalframe computes, in the order asked (repeats dropped).
    runid, num_q : bool
        Whether ``runid`` / ``num_q`` were asked for (in a set such as ``official``, or by name).
    missing : list of str
        trec_eval's measures of the sets asked for that evalframe does not compute (not printed).
    ignored : list of str
        Parameter lists trec_eval ignores: a later ``-m`` of a stem given parameters already (``-m P.5 -m P.10``
        prints P_5 only), with ``--format trec_eval``.
    keys : dict of str to str
        The key trec_eval prints for a measure given parameters other than cutoffs, by canonical name: the stem and
        the parameters as typed (``-m utility.1.0,-1.0,0.0,0.0``: ``utility_1.0,-1.0,0.0,0.0``; ``-m ndcg.1=3,2=9``:
        ``ndcg_1=3,2=9``), with ``--format trec_eval``.
    relstring : tuple of (str, int), optional
        With ``--format trec_eval``, when ``relstring`` is asked for (by name or in ``all_trec``): the name trec_eval
        prints (``relstring``; ``relstring_20`` for ``-m relstring.20``, the parameter as typed) and the length, the
        number of top documents it shows (``m_relstring.c``: 10 by default; the first ``relstring.N`` given is read).
        None otherwise (without ``--format trec_eval`` relstring is in ``missing``).
    """

    measures: list[Measure]
    runid: bool = False
    num_q: bool = False
    missing: list[str] = dataclasses.field(default_factory=list)
    ignored: list[str] = dataclasses.field(default_factory=list)
    keys: dict[str, str] = dataclasses.field(default_factory=dict)
    relstring: tuple[str, int] | None = None


def _stem_kind(stem: str) -> str | None:
    """What follows a trec_eval stem's dot (``"cutoffs"``, ``"gains"``, ``"values"``, ...), None for no such stem."""
    for entry in TREC_MEASURES.values():
        for name in entry.trec_eval:
            if name.stem == stem:
                return name.params
    return None


def _parsed(text: str) -> list[Measure]:
    """A name of ``-m`` as measures (``P.5,10`` and a bare ``P`` stand for several)."""
    return parse_measures([text])


def trec_eval_request(texts: Sequence[str], *, trec_eval: bool = False) -> TrecEvalRequest:
    """Read ``-m``'s names: every name :func:`evalframe.metrics.trec.parse_measure` reads, ``P.5,10`` (a list of
    cutoffs), and trec_eval's sets ``official``, ``all_trec`` and ``set`` (:data:`TREC_EVAL_SETS`: their members
    evalframe does not compute are listed in ``missing``, not printed). With ``trec_eval`` (``--format trec_eval``)
    a stem's first parameter list is the one read, as trec_eval reads it; a later one goes to ``ignored``.

    Raises InvalidParameterError for an unknown name, with the sets among the suggestions.

    Examples
    --------
    >>> request = trec_eval_request(["P.10,5", "map", "official"])
    >>> [str(m) for m in request.measures][:4], request.runid, request.missing
    (['P@10', 'P@5', 'AP', 'NumRet'], True, [])
    >>> trec_eval_request(["all_trec"]).missing  # a per-query string: printed by --format trec_eval only
    ['relstring']
    >>> trec_eval_request(["all_trec", "relstring.20"], trec_eval=True).relstring
    ('relstring_20', 20)
    >>> trec_eval_request(["P.5", "P.10"], trec_eval=True).ignored
    ['P.10']
    """
    measures: dict[str, Measure] = {}
    flags = {"runid": False, "num_q": False}
    missing: list[str] = []
    ignored: list[str] = []
    given: set[str] = set()  # the stems given parameters (trec_eval reads the first -m stem.params of a stem)
    keys: dict[str, str] = {}

    def add(found: list[Measure]) -> None:
        for measure in found:
            measures.setdefault(str(measure), measure)

    relstring: tuple[str, int] | None = None
    for text in texts:
        text = text.strip()
        if trec_eval and text.partition(".")[0] == "relstring":  # a string per query: not a Measure
            if text == "relstring":
                relstring = relstring or ("relstring", RELSTRING_LENGTH)
            elif relstring is not None and relstring[0] != "relstring":
                ignored.append(text)  # trec_eval reads the first parameter list
            else:
                relstring = _relstring_param(text)
            continue
        if text in TREC_EVAL_SETS:
            for member in TREC_EVAL_SETS[text]:
                if member in flags:
                    flags[member] = True
                    continue
                if trec_eval and member == "relstring":
                    relstring = relstring or ("relstring", RELSTRING_LENGTH)
                    continue
                stem_given = trec_eval and member in given
                try:
                    if not stem_given:
                        add(_parsed(member))
                except InvalidParameterError:
                    missing.append(member)
            continue
        if text in flags:
            flags[text] = True
            continue
        stem, dot, _ = text.partition(".")
        if trec_eval and dot:
            if stem in given:
                ignored.append(text)
                continue
            given.add(stem)
        if trec_eval and dot:
            text = _as_trec_eval_reads(text)
        try:
            found = _parsed(text)
            add(found)
            if trec_eval and dot and len(found) == 1 and _stem_kind(stem) not in (None, "cutoffs"):
                keys[str(found[0])] = f"{stem}_{text.partition('.')[2]}"  # trec_eval prints the parameters as typed
        except InvalidParameterError as error:
            if stem == "relstring":
                raise InvalidParameterError(f"{RELSTRING_ONLY}; got -m {text}.", parameter="measures") from None
            if trec_eval and stem in TREC_EVAL_ORDER and _stem_kind(stem) is None:
                missing.append(text)  # trec_eval's measure evalframe does not compute: named, the others printed
                continue
            if text in TREC_EVAL_ORDER:  # trec_eval's measure, which evalframe does not compute yet
                raise InvalidParameterError(f"evalframe does not compute trec_eval's {text!r} yet; got -m {text}. "
                                            "evalframe list-metrics lists the measures it computes.",
                                            parameter="measures") from None
            hint = did_you_mean(text, TREC_EVAL_SETS)
            if hint:  # a set's name mistyped: that suggestion rather than a measure's
                message = str(error).split(" Did you mean ")[0]
                raise InvalidParameterError(f"{message}{hint}", parameter="measures") from None
            raise
    if trec_eval:  # a stem asked bare after its parameters: trec_eval prints the parameters' measures only
        kept = {}
        for name, measure in measures.items():
            key = trec_eval_place(measure)
            if key is not None and key[0] in given and str(measure) not in _given_measures(texts, key[0]):
                continue
            kept[name] = measure
        measures = kept
    return TrecEvalRequest(list(measures.values()), flags["runid"], flags["num_q"],
                           list(dict.fromkeys(missing)), ignored, keys, relstring)


#: trec_eval's ``relstring`` length without a parameter (``m_relstring.c``: ``relstring.10``).
RELSTRING_LENGTH = 10
#: Why relstring is printed with ``--format trec_eval`` only.
RELSTRING_ONLY = ("relstring is a string per query (trec_eval's grades of the top documents), printed by --format "
                  "trec_eval -q only, as trec_eval prints it")


def relstring_column(strings: Sequence[str], relstring: tuple[str, int]) -> list[str]:
    """Each query's ``relstring`` as trec_eval prints it for ``relstring`` (:attr:`TrecEvalRequest.relstring`): a
    query without run lines (``-c``) is given one unjudged document by trec_eval, whose clean-up empties the string
    only when the measure is named ``relstring`` (``trec_eval.c`` compares the printed name): ``relstring.N``
    prints ``-`` for it. The strings of such queries are empty; a query with run lines has an empty one only when
    the length is 0.

    Examples
    --------
    >>> relstring_column([">.3", ""], ("relstring_3", 3)), relstring_column([">.3", ""], ("relstring", 10))
    (['>.3', '-'], ['>.3', ''])
    """
    if relstring[0] == "relstring" or relstring[1] < 1:
        return list(strings)
    return [text or "-" for text in strings]


def _relstring_param(text: str) -> tuple[str, int]:
    """``relstring.N`` as trec_eval reads it: the name it prints (the parameter as typed) and the length (C's
    ``atof`` of N cast to long: ``relstring.2.7`` shows 2 documents, a negative one none)."""
    typed = text.partition(".")[2]
    read = re.match(r"\s*[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?", typed)
    if read is None or "," in typed:
        raise InvalidParameterError(f"relstring takes one parameter, the number of top documents shown (trec_eval's "
                                    f"relstring.N); got -m {text}. Give e.g. -m relstring.20.", parameter="measures")
    return f"relstring_{typed}", max(int(float(read.group())), 0)


def _as_trec_eval_reads(text: str) -> str:
    """``stem.params`` with integer cutoffs read as trec_eval reads them (C's ``atol``: ``ndcg_cut.23.4`` is
    ``ndcg_cut_23``)."""
    stem, _, params = text.partition(".")
    if _stem_kind(stem) != "cutoffs" or _key_format(stem) != "{:d}":
        return text
    read = [re.match(r"\s*[-+]?[0-9]+", param) for param in params.split(",")]
    if not all(read):
        return text
    return f"{stem}." + ",".join(str(int(match.group())) for match in read if match is not None)


def _key_format(stem: str) -> str | None:
    for entry in TREC_MEASURES.values():
        for name in entry.trec_eval:
            if name.stem == stem:
                return name.key_format
    return None


def _given_measures(texts: Sequence[str], stem: str) -> set[str]:
    """The measures of the first ``-m stem.params`` among ``texts``."""
    for text in texts:
        head, dot, _ = text.strip().partition(".")
        if dot and head == stem:
            return {str(m) for m in _parsed(_as_trec_eval_reads(text.strip()))}
    return set()


def run_tag(path: Any) -> str | None:
    """The tag (6th column) of a run file's last line that is neither blank nor a ``#`` comment: what trec_eval
    prints as ``runid`` (it keeps the last line's). None when no line has six columns. A stream (standard input, a
    FIFO) is read by the TREC reader now, its columns kept for the command (it is read once); the tag of a run read
    already is the one its reader saw.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "run"
    >>> _ = path.write_text("q1 Q0 d1 1 2.0 bm25\\nq2 Q0 d1 1 2.0 rm3 extra\\n\\n# a comment\\n")
    >>> run_tag(path)
    'rm3'
    """
    source = trec_source(path, "run")
    if "tag" not in source.memo and not source.rereadable:
        read_arrow(source, RUN_FORMAT, encode_docids=False, keep=True)
    if "tag" in source.memo:
        last = source.memo["tag"]
        return None if last is None else last.decode("utf-8", errors="replace")
    last = None
    if source.remote is not None:  # a URL: every block of lines, read as they arrive
        for part in blocks(source):
            found = last_tag(part.data)
            last = found if found is not None else last
        return None if last is None else last.decode("utf-8", errors="replace")
    assert source.path is not None
    with source.path.open("rb") as handle:
        plain = handle.read(2) != GZIP_MAGIC
        if plain:  # the last lines are enough: read the file's end, further back while no line has a tag
            size = handle.seek(0, 2)
            block = 1 << 16
            while True:
                start = max(0, size - block)
                handle.seek(start)
                last = last_tag(handle.read(size - start), whole=start == 0)
                if last is not None or start == 0:
                    break
                block *= 4
            return None if last is None else last.decode("utf-8", errors="replace")
    for part in blocks(source):  # gzip, decompressed as it is read: every block of lines
        found = last_tag(part.data)
        last = found if found is not None else last
    return None if last is None else last.decode("utf-8", errors="replace")


def read_zscores(path: Any) -> dict[tuple[str, str], tuple[float, float]]:
    """A z-score file of trec_eval (``-Z``): lines ``qid measure mean stddev`` (whitespace-separated), as
    ``{(qid, measure): (mean, stddev)}``; a blank line is skipped.

    Raises LoadError naming the file and line of a line that is not four fields with two numbers.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "zscores"
    >>> _ = path.write_text("301 map 0.1212 0.1545\\n")
    >>> read_zscores(path)
    {('301', 'map'): (0.1212, 0.1545)}
    """
    from pathlib import Path

    if is_url(path):  # read through its filesystem (evalframe._locations.locate), as the run and qrels are
        source = trec_source(path, "z-score", name="-Z/--zscores")
        if source.remote is not None and not is_file(source.remote):
            raise LoadError(f"-Z/--zscores {path}: cannot be read (it does not exist or is a folder).")
    else:
        path = Path(path)
        source = TrecSource("z-score", path)
    # (a device or a FIFO is opened once, by blocks)
    if isinstance(path, Path) and (path.is_file() or path.is_dir() or not path.exists()):
        try:
            with path.open("rb"):
                pass
        except OSError as exc:
            raise LoadError(f"-Z/--zscores {path}: cannot be read ({exc.strerror or exc}).") from None
    out: dict[tuple[str, str], tuple[float, float]] = {}
    number = 0
    # a block of whole lines at a time (bounded memory: /dev/zero is refused at its line 1, as a line over 1 MiB)
    for block in blocks(source):
        for line in block.data.decode("utf-8", errors="replace").splitlines():
            number += 1
            fields = line.split()
            if not fields:
                continue
            try:
                if len(fields) != 4:
                    raise ValueError
                out.setdefault((fields[0], fields[1]), (float(fields[2]), float(fields[3])))
            except ValueError:
                raise LoadError(f"{path}:{number}: a z-score line is 'qid measure mean stddev' (four fields, two "
                                f"numbers); got {line.strip()!r}.") from None
    return out


def _zscores(values: np.ndarray, qids: Sequence[str], key: str,
             table: dict[tuple[str, str], tuple[float, float]]) -> np.ndarray:
    """Each query's value as trec_eval's z-score (``convert_zscores.c``): (value - mean) / stddev; with stddev 0, 0
    for a value equal to the mean, else :data:`MISSING_ZSCORE`, as for a (query, measure) the file lacks."""
    out = np.empty(len(values))
    for i, (qid, value) in enumerate(zip(qids, values.tolist())):
        found = table.get((qid, key))
        if found is None:
            out[i] = MISSING_ZSCORE
        elif found[1]:
            out[i] = (value - found[0]) / found[1]
        else:
            out[i] = 0.0 if value == found[0] else MISSING_ZSCORE
    return out


def _trec_eval_mean(name: str, values: np.ndarray) -> float:
    """The summary of trec_eval: each query's summand added in query order, one after the other (as its C loop
    does; numpy's sum adds pairwise, which may differ in the last bit), finished by the measure's aggregation. A
    query's NaN makes the summary NaN, as trec_eval's sum (``-nan`` in its summary line)."""
    if not len(values):
        return 0.0
    if np.isnan(values).any():
        return math.nan
    aggregation = aggregation_of(name)
    total = float(np.cumsum(aggregation.summands(values))[-1])
    return float(aggregation.finish(np.array([total]), np.array([len(values)]))[0])


def _fixed(value: float) -> str:
    """``printf("%6.4f", value)`` as trec_eval's C library writes it (:data:`NAN_TEXT` for a NaN)."""
    return f"{NAN_TEXT:>6}" if math.isnan(value) else f"{value:6.4f}"


def _as_trec_eval_computes(name: str, values: np.ndarray, num_ret: np.ndarray | None, num_rel: np.ndarray | None
                           ) -> np.ndarray:
    """``values`` of ``name`` with trec_eval's 0 / 0 where it divides by an empty ranking: ``iprec_at_recall`` (at
    a recall level standing for no relevant document, ``lround(r * num_rel) == 0``) and ``11pt_avg`` (its level
    0.0 always does) of a query left with no document by ``-J`` or ``-M 0`` (``m_iprec_at_recall.c``,
    ``m_11pt_avg.c``: ``num_rel_ret / num_ret``). evalframe's own value there is 0, what a ranking of nothing has;
    ``num_ret`` / ``num_rel``: each query's, None when no query can be empty (:func:`trec_request`)."""
    measure = parse_measure(name)
    if num_ret is None or num_rel is None or measure.name not in ("IPrec", "11pt_avg"):
        return values
    if measure.name == "IPrec":
        points = recall_point_counts([float(measure.cutoff or 0.0)], num_rel, str(measure.param("version")))[:, 0]
    else:
        points = recall_point_counts(IPREC_RECALLS, num_rel, str(measure.param("version"))).min(axis=1)
    return np.where((num_ret == 0) & (points == 0), -np.nan, values)


def trec_eval_text(table: TrecTable, means: dict[str, float], args: argparse.Namespace) -> str:
    """trec_eval's own output, byte for byte: ``%-22s<TAB>%s<TAB>%6.4f`` lines (its counts ``%ld``), the measures in
    trec_eval's order (:data:`TREC_EVAL_ORDER`, cutoffs ascending), with ``-q`` each query's lines first, the
    queries in trec_eval's order (their ids' byte order), then the summary (``runid``, ``num_q``, each measure's
    mean, its queries summed in that order); with ``-Z`` z-scores (``Z`` before the name), with ``-n`` no summary.
    trec_eval's quirks are printed as it prints them (``docs/ir-researchers.md#trec_evals-quirks``): with ``-c`` the
    summary ``num_rel`` counts the qrels lines graded > 0 whatever ``-l``, and an empty ranking's
    ``iprec_at_recall`` / ``11pt_avg`` are 0 / 0 (``-nan``), in the summary too.

    Parameters
    ----------
    table : TrecTable
        The per-query values, columns named canonically (each with a trec_eval name: :func:`trec_eval_place`).
    means : dict of str to float
        Not read: the summary is summed up here in trec_eval's order.
    args : argparse.Namespace
        ``per_query`` (``-q``), and when set ``summary`` (False: ``-n``), ``runid`` (the tag to print, None: no
        ``runid`` line), ``num_q`` (print ``num_q``), ``zscore_table`` (``-Z``: ``{(qid, measure): (mean, stddev)}``),
        ``trec_eval_helpers`` (the columns the quirks read, by role: ``num_ret`` and ``num_rel`` per query,
        ``num_rel_lines``, ``num_rel`` at level 1, whose sum is the qrels lines graded > 0) and ``trec_eval_hidden``
        (those of them not asked for: not printed), as :func:`trec_request` sets them.

    Returns
    -------
    str
        The lines, without a final line end.

    Examples
    --------
    >>> table = TrecTable(["q2", "q10"], {"P@5": np.array([0.4, 0.2]), "AP": np.array([0.5, 0.25])})
    >>> print(trec_eval_text(table, {}, argparse.Namespace(per_query=True, runid="bm25", num_q=True)))
    map                   	q10	0.2500
    P_5                   	q10	0.2000
    map                   	q2	0.5000
    P_5                   	q2	0.4000
    runid                 	all	bm25
    num_q                 	all	2
    map                   	all	0.3750
    P_5                   	all	0.3000
    """
    helpers: dict[str, str] = getattr(args, "trec_eval_helpers", {})
    hidden = set(getattr(args, "trec_eval_hidden", ()))
    keys = {}
    for name in (column for column in table.columns if column not in hidden):
        key = trec_eval_place(parse_measure(name))
        typed = getattr(args, "trec_eval_keys", {}).get(name)
        if key is not None and typed is not None:
            key = (key[0], typed, key[2])
        if key is None:
            raise InvalidParameterError(f"--format trec_eval prints trec_eval's measures; {name} is not one of them "
                                        "(use --format tsv for it).", parameter="format")
        keys[name] = key
    names = sorted(keys, key=lambda n: (TREC_EVAL_ORDER.index(keys[n][0]), keys[n][2]))
    order = sorted(range(len(table)), key=lambda i: str(table.query_ids[i]).encode("utf-8"))
    qids = [str(table.query_ids[i]) for i in order]

    def helper(role: str) -> np.ndarray | None:
        return np.asarray(table.columns[helpers[role]], dtype=np.float64)[order] if role in helpers else None

    zscores = getattr(args, "zscore_table", None)
    columns = {}
    for name in names:
        values = _as_trec_eval_computes(name, np.asarray(table.columns[name], dtype=np.float64)[order],
                                        helper("num_ret"), helper("num_rel"))
        # num_q is the number of queries, z-scores or not (trec_eval's calc_avg_num_q)
        plain = zscores is None or keys[name][0] == "num_q"
        columns[name] = values if zscores is None or plain else _zscores(values, qids, keys[name][1], zscores)
    z = "Z" if zscores is not None else ""

    def line(key: str, qid: str, value: float) -> str:
        shown = f"{int(value)}" if key in _COUNTS and not z else _fixed(value)
        return f"{z}{key:<22}\t{qid}\t{shown}"

    lines: list[str] = []
    if args.per_query:  # trec_eval prints runid, num_q and the geometric means in the summary only
        texts = [(TREC_EVAL_ORDER.index(keys[name][0]), keys[name][2],
                  [line(keys[name][1], qid, value) for qid, value in zip(qids, columns[name].tolist())])
                 for name in names if keys[name][0] not in _SUMMARY_ONLY]
        for printed, strings in table.strings.items():  # per query only, quoted (m_relstring.c), -Z or not
            texts.append((TREC_EVAL_ORDER.index(printed.partition("_")[0]), 0.0,
                          [f"{printed:<22}\t{qid}\t'{strings[i]}'" for qid, i in zip(qids, order)]))
        texts.sort(key=lambda entry: (entry[0], entry[1]))
        for row in zip(*(entry[2] for entry in texts)):
            lines += row
    if getattr(args, "summary", True):
        if getattr(args, "runid", None) is not None:
            lines.append(f"{'runid':<22}\tall\t{args.runid}")
        if getattr(args, "num_q", False) and not any(keys[name][0] == "num_q" for name in names):
            lines.append(line("num_q", "all", float(len(table))))
        # with -c, trec_eval's summary num_rel counts the qrels lines graded > 0, whatever -l (m_num_rel.c's
        # calc_avg, z-scores or not); each query's num_rel is at the level
        lines_graded = helper("num_rel_lines")
        lines += [line(keys[name][1], "all", float(lines_graded.sum()) if lines_graded is not None and keys[name][0]
                       == "num_rel" else _trec_eval_mean(name, columns[name])) for name in names]
    return "\n".join(lines)


def trec_request(args: argparse.Namespace) -> list[Measure]:
    """The measures ``evalframe trec`` computes for ``args`` (``-m``, ``-l``, ``--format``), its flags checked, and
    what the renderers read set on ``args``: ``runid`` (the run's tag when ``runid`` is asked for with ``--format
    trec_eval``), ``num_q``, ``zscore_table`` (``-Z``), ``relstring`` (:attr:`TrecEvalRequest.relstring`),
    ``trec_eval_helpers`` / ``trec_eval_hidden`` (with ``--format trec_eval``: the measures its quirks read, added to
    those returned when not asked for; :func:`trec_eval_text`). Warns
    (stderr) of trec_eval's measures a set names that evalframe does not compute, of relstring without ``--format
    trec_eval``, of parameter lists trec_eval ignores and of ``-N``, which none of them reads. Done once per
    ``args`` (the columnar path and the one through ``from_trec`` share it).

    Examples
    --------
    >>> args = argparse.Namespace(measures=["P.5,10", "map"], rel=2, format="tsv", run="run", zscores=None)
    >>> [str(m) for m in trec_request(args)]
    ['P(rel=2)@5', 'P(rel=2)@10', 'AP(rel=2)']
    """
    done = vars(args).get("_measures")
    if done is not None:
        return cast(list[Measure], done)
    trec_eval = args.format == "trec_eval"
    if getattr(args, "zscores", None) is not None and not trec_eval:
        raise InvalidParameterError("-Z prints trec_eval's z-scores, named as trec_eval names its measures: add "
                                    f"--format trec_eval; got --format {args.format}.", parameter="zscores")
    zscore_table = read_zscores(args.zscores) if getattr(args, "zscores", None) is not None else None
    request = trec_eval_request(args.measures or (["official"] if trec_eval else list(TREC_DEFAULT_MEASURES)),
                                trec_eval=trec_eval)
    rel = getattr(args, "rel", None)
    if trec_eval:
        own = [m for m in request.measures if TREC_MEASURES[m.name].rel and m.rel != 1 and m.rel != rel]
        if own:
            raise InvalidParameterError(f"--format trec_eval prints trec_eval's measures, which share one relevance "
                                        f"level (-l); {own[0]} has its own: give -l {own[0].rel} instead.",
                                        parameter="measures")
    num_docs = getattr(args, "num_docs", None)
    measures: list[Measure] = []
    keys: dict[str, str] = {}
    read = False
    for asked in request.measures:
        measure = at_level([asked], rel)[0]
        if num_docs is not None:
            [measure], reads = _with_num_docs([measure], num_docs)
            read = read or reads
        if any(str(measure) == str(known) for known in measures):
            continue  # the same measure once -l gave it the level
        measures.append(measure)
        if str(asked) in request.keys:
            keys[str(measure)] = request.keys[str(asked)]
    if not measures and not (trec_eval and (request.runid or request.num_q or request.relstring)):
        raise InvalidParameterError(f"evalframe computes none of the measures asked for ({', '.join(request.missing)});"
                                    " evalframe list-metrics lists those it does.", parameter="measures")
    missing = [name for name in request.missing if name != "relstring"]
    if missing:
        print_warning(f"evalframe does not compute trec_eval's {', '.join(missing)} yet: not printed.")
    if "relstring" in request.missing:
        print_warning(f"{RELSTRING_ONLY}: not printed with --format {args.format}.")
    if request.ignored:
        print_warning(f"-m {', '.join(request.ignored)} ignored: trec_eval reads a measure's first parameter list "
                      "only, and --format trec_eval prints what it prints.")
    if num_docs is not None and not read:
        print_warning("-N (documents in the collection) is read by trec_eval's utility measure only (its num_docs), "
                      "which no measure asked for reads: ignored.")
    helpers: dict[str, Measure] = {}
    if trec_eval:  # what trec_eval_text reads to print trec_eval's bytes where they are its own rule
        if ((getattr(args, "judged_only", False) or getattr(args, "max_docs", None) == 0)
                and any(m.name in ("IPrec", "11pt_avg") for m in measures)):  # a query may be left with no document
            helpers["num_ret"] = Measure("NumRet")
            helpers["num_rel"] = at_level([Measure("NumRel")], rel)[0]
        if getattr(args, "complete", False) and any(m.name == "NumRel" for m in measures):
            helpers["num_rel_lines"] = Measure("NumRel")  # level 1: grade > 0
    named = {str(m) for m in measures}
    hidden = [m for m in dict((str(m), m) for m in helpers.values()).values() if str(m) not in named]
    measures += hidden
    args.trec_eval_helpers = {role: str(m) for role, m in helpers.items()}
    args.trec_eval_hidden = [str(m) for m in hidden]
    args.runid = run_tag(args.run) if trec_eval and request.runid else None
    args.num_q = request.num_q
    args.trec_eval_keys = keys
    args.relstring = request.relstring
    args.zscore_table = zscore_table
    args._measures = measures
    return measures


def _with_num_docs(measures: list[Measure], num_docs: int) -> tuple[list[Measure], bool]:
    """``measures`` with ``num_docs`` (trec_eval's -N) as the parameter ``num_docs`` of those that take one
    (``utility``), and whether any does."""
    out: dict[str, Measure] = {}
    read = False
    for measure in measures:
        declared = {param.name: param.default for param in TREC_MEASURES[measure.name].params}
        if "num_docs" in declared:
            given = {**dict(measure.params), "num_docs": num_docs}
            measure = dataclasses.replace(measure, params=tuple(
                (name, given[name]) for name in declared if name in given and given[name] != declared[name]))
            read = True
        out.setdefault(str(measure), measure)
    return list(out.values()), read


#: The --format of ``evalframe trec``: each format's renderer of the per-query table and the means.
TREC_FORMATS: dict[str, Callable[[TrecTable, dict[str, float], argparse.Namespace], str]] = {
    "tsv": trec_tsv, "json": trec_json, "markdown": trec_markdown, "trec_eval": trec_eval_text}


def trec_intervals(args: argparse.Namespace) -> IntervalOptions | None:
    """``evalframe trec``'s ``--ci``, ``--ci-method``, ``--seed``, ``--rounds`` checked (None without ``--ci``), before
    any file is read; what the renderers state is set on ``args`` (``interval_note``, ``seed_used``, ``rounds_used``).

    Examples
    --------
    >>> trec_intervals(argparse.Namespace(ci=0.9, ci_method="t", seed=None, rounds=None, format="json")).ci_method
    't'
    """
    given = {name: getattr(args, name, None) for name in IntervalOptions.option_names()}
    intervals = IntervalOptions(**{name: value for name, value in given.items() if value is not None})
    if intervals.ci is None:
        return None
    if args.format == "trec_eval":
        raise EvalframeError("--ci adds lines trec_eval does not print, so not with --format trec_eval; use --format "
                             "tsv, json or markdown.")
    if not getattr(args, "summary", True):
        raise EvalframeError("--ci gives each mean's interval, and -n / --no-summary prints no mean: leave one out.")
    args.interval_note, args.seed_used, args.rounds_used = interval_note(intervals), intervals.seed, intervals.rounds
    return intervals


def trec_render(table: TrecTable, means: dict[str, float], args: argparse.Namespace) -> str:
    """``table`` and its ``means`` in ``args.format`` (:data:`TREC_FORMATS`); with ``--ci`` each mean with its
    confidence interval from the per-query values (:func:`evalframe.analysis.intervals.column_intervals`): two more
    lines per measure in tsv (``<measure>_ci_low``, ``<measure>_ci_high``), rows ``ci_low`` and ``ci_high`` and the
    statement of the interval in markdown, a ``"ci"`` key in json.

    Examples
    --------
    >>> table = TrecTable(["q1", "q2", "q3"], {"RR": np.array([1.0, 0.5, 1.0])})
    >>> args = argparse.Namespace(per_query=False, digits=4, format="tsv", ci=0.9, ci_method="t")
    >>> print(trec_render(table, {"RR": 2.5 / 3}, args))
    num_q    	all	3
    RR       	all	0.8333
    RR_ci_low	all	0.3467
    RR_ci_high	all	1.3200
    """
    intervals = trec_intervals(args)
    if intervals is not None and len(table):
        means = dict(column_intervals(table.columns, means, intervals))
    return TREC_FORMATS[args.format](table, means, args)
