"""``evalframe trec RUN QRELS`` on columns, without pandas: from the TREC files to the printed numbers.

:func:`trec_columnar` reads both files with the TREC reader, :func:`evalframe.sources.trec_arrow.read_arrow` (the
query ids and the qrels' docids as codes into Arrow dictionaries, the run's docids left as Arrow's column: no Python
str per docid; a file it refuses is refused naming the line, as ``from_trec`` refuses it), puts the run in
trec_eval's order (:func:`evalframe.sources.trec_arrow.arrow_trec_order`: only the tied lines are sorted when the
file is in score order already), looks the run's docids up among the judged ones in Arrow
(``pyarrow.compute.index_in``), lays the judged rows out from the codes
(:func:`evalframe.frames.judged_codes.judged_rows_of_codes`), evaluates (:func:`evalframe.metrics.trec.evaluate`)
and renders (:mod:`evalframe.present.trec_formats`). Only the query ids become Python strings. pyarrow's own numpy
conversions would import pandas: :mod:`evalframe.sources.trec_arrow`'s are used instead.

It returns None for the inputs ``from_trec``'s rules are needed for (a judged docid ``"00"``, which from_trec warns
of; subtopic qrels, ``--subtopics``; a bad ``--digits``): the command then runs through
``EvaluationResult.from_trec`` (:mod:`evalframe.present.commands`), which reads what this path read of a stream
(standard input is read once). Both ways print the same bytes (``tests/present/test_trec_command.py``).
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..errors import EvalframeError, InvalidParameterError
from ..frames.judged_codes import check_missing_queries, cut_ranking, judged_rows_of_codes
from ..metrics.trec import aggregation_of, evaluate
from ..metrics.trec_gain_kernels import relstrings
from ..metrics.trec_kernels import RankedRows
from ..frames.trec_ranking import query_order_positions
from ..sources.irds import irds_dataset, is_irds
from ..sources.trec_arrow import (QRELS_FORMAT, RUN_FORMAT, ArrowColumns, arrow_of, arrow_trec_order, forget,
                                  memory_pool, numpy_of, read_arrow, string_array)
from ..sources.trec_stream import STANDARD_INPUT, TrecSource, blocks, standard_input, trec_source
from .parsers import print_warning
from .trec_formats import TREC_FORMATS, TrecTable, relstring_column, trec_intervals, trec_render, trec_request

__all__ = ["trec_columnar", "trec_means", "trec_sources", "not_swapped"]

#: The judged docid that is no document (Haystack's no-answer id): from_trec warns of it, so such qrels go that way.
_NO_ANSWER = "00"


def trec_sources(args: argparse.Namespace, stdin: Any = None) -> argparse.Namespace:
    """``args`` with the run and the qrels as the sources every reader of the command reads (each read once from
    a stream: a run or qrels ``-`` is standard input, ``stdin``'s bytes (``sys.stdin.buffer``); a FIFO or a device
    is read once too, what was read of it kept for the next reader). Both cannot be standard input.

    Examples
    --------
    >>> import io
    >>> from pathlib import Path
    >>> args = trec_sources(argparse.Namespace(run=Path("-"), qrels=Path("qrels.txt")), io.BytesIO(b""))
    >>> str(args.run), str(args.qrels)
    ('standard input', 'qrels.txt')
    >>> str(trec_sources(argparse.Namespace(run=Path("run.txt"), qrels=Path("-")), io.BytesIO(b"")).qrels)
    'standard input'
    >>> trec_sources(argparse.Namespace(run=Path("-"), qrels=Path("-")))
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: run and qrels cannot both be standard input (-): ...
    """
    if str(args.run) == "-" and str(args.qrels) == "-":
        raise InvalidParameterError(f"run and qrels cannot both be standard input (-): {STANDARD_INPUT} is read once; "
                                    "give one of them as a file (evalframe trec - QRELS, or evalframe trec RUN -).")
    run = standard_input("run", stdin) if str(args.run) == "-" else trec_source(args.run, "run")
    if is_irds(args.qrels):  # an ir_datasets dataset: loaded once, its judgments read once for both readers
        qrels: Any = irds_dataset(args.qrels, name="qrels")
    else:
        qrels = standard_input("qrels", stdin) if str(args.qrels) == "-" else trec_source(args.qrels, "qrels")
    return argparse.Namespace(**{**vars(args), "run": run, "qrels": qrels})


#: How much of a file :func:`_first_fields` reads: its first line is within it.
_HEAD = 1 << 16


def _first_fields(source: TrecSource) -> list[bytes]:
    """The columns of the first line of a TREC file that is neither blank nor a ``#`` comment (of its first
    :data:`_HEAD` bytes); ``[]`` when it cannot be read."""
    try:
        for block in blocks(source, size=_HEAD):
            for line in block.data.splitlines():
                if line.strip() and not line.lstrip().startswith(b"#"):
                    return line.split()
            return []
    except (EvalframeError, OSError):
        pass
    return []


def _is_number(text: bytes, kind: type) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


def _looks_like(fields: list[bytes]) -> str | None:
    """``"run"`` for a line ``qid Q0 docid rank score tag`` (an integer rank, a number score), ``"qrels"`` for ``qid
    iter docid relevance`` (an integer relevance); None otherwise."""
    if len(fields) == 6 and _is_number(fields[3], int) and _is_number(fields[4], float):
        return "run"
    if len(fields) == 4 and _is_number(fields[3], int):
        return "qrels"
    return None


@contextlib.contextmanager
def not_swapped(args: argparse.Namespace) -> Iterator[None]:
    """Run ``evalframe trec``'s reading and evaluation; when it fails on its files and the run looks like a qrels
    file while the qrels look like a run (the first line of each only: trec_eval takes them the other way round),
    the error says so instead of a column count.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run.txt").write_text("q1 Q0 d1 1 2.0 bm25\\n")
    >>> _ = (folder / "qrels.txt").write_text("q1 0 d1 1\\n")
    >>> args = argparse.Namespace(run=trec_source(folder / "qrels.txt", "run"), qrels=trec_source(folder / "run.txt", "qrels"))
    >>> with not_swapped(args):
    ...     raise InvalidParameterError("a TREC run line has 6 whitespace-separated columns")
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: these look swapped: evalframe trec takes RUN QRELS (trec_eval takes QRELS RUN); ...
    """
    try:
        yield
    except EvalframeError as exc:
        run, qrels = args.run, args.qrels
        if not (isinstance(run, TrecSource) and isinstance(qrels, TrecSource)):
            raise
        if _looks_like(_first_fields(run)) != "qrels" or _looks_like(_first_fields(qrels)) != "run":
            raise
        raise InvalidParameterError(
            f"these look swapped: evalframe trec takes RUN QRELS (trec_eval takes QRELS RUN); {run} reads as a qrels "
            f"file (qid iter docid relevance) and {qrels} as a run (qid Q0 docid rank score tag): evalframe trec "
            f"{qrels if qrels.path is not None else '-'} {run if run.path is not None else '-'} (the error was: "
            f"{exc})") from None


def trec_means(columns: dict[str, np.ndarray]) -> dict[str, float]:
    """Each measure's number over the evaluated queries: its aggregation (the registry's) of the values, NaN
    skipped; 0.0 for every measure when no query is evaluated (as ``evalframe trec`` prints it).

    Examples
    --------
    >>> trec_means({"AP": np.array([0.5, 0.25]), "P@5": np.array([0.2, 0.4])})
    {'AP': 0.375, 'P@5': 0.30000000000000004}
    """
    means = {}
    for name, values in columns.items():
        if not len(values):
            means[name] = 0.0
            continue
        aggregation = aggregation_of(name)
        present = ~np.isnan(values)
        summands = np.where(present, aggregation.summands(values), 0.0)
        total = np.array([float(summands.sum())])
        means[name] = float(aggregation.finish(total, np.array([int(np.count_nonzero(present))]))[0])
    return means


def _query_codes(run: ArrowColumns, qrels: ArrowColumns) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The result's query order (:func:`evalframe.frames.trec_ranking.query_order_positions`, as ``from_trec``
    orders them), as each run query's and each qrels query's code in it, and the ids in that order (the only ids
    made Python strings)."""
    n_run = len(run.qids)
    in_run = numpy_of(pc.index_in(qrels.qids, value_set=run.qids)).astype(np.int64)
    only = in_run < 0
    order = query_order_positions(in_run, n_run)  # result position -> entry of [run queries, qrels-only queries]
    code_of = np.empty(len(order), dtype=np.int64)
    code_of[order] = np.arange(len(order))
    qrels_codes = np.where(only, 0, code_of[np.maximum(in_run, 0)])
    qrels_codes[only] = code_of[n_run:]
    ids = pa.concat_arrays([run.qids, qrels.qids.filter(arrow_of(only))]).take(arrow_of(order))
    return code_of[:n_run], qrels_codes, np.array(ids.to_pylist(), dtype=object)


def _has(ids: Any, text: str) -> bool:
    return bool(pc.any(pc.is_in(ids, value_set=string_array([text]))).as_py())


def trec_columnar(args: argparse.Namespace) -> str | None:
    """What ``evalframe trec`` prints for ``args`` (run, qrels, measures, per_query, complete, missing_queries (default
    ``"skip"``), format, digits),
    computed on columns; None when the inputs are not this path's (see the module), so the caller runs the
    command through ``EvaluationResult.from_trec``.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "run").write_text("q1 Q0 d1 1 2.0 bm25\\nq1 Q0 d2 2 1.0 bm25\\n")
    >>> _ = (folder / "qrels").write_text("q1 0 d2 1\\n")
    >>> args = argparse.Namespace(run=folder / "run", qrels=folder / "qrels", measures=["RR", "P@1"],
    ...                           per_query=False, complete=False, format="tsv", digits=4)
    >>> print(trec_columnar(args))
    num_q	all	1
    RR   	all	0.5000
    P@1  	all	0.0000
    """
    if not 0 <= args.digits <= 17 or args.format not in TREC_FORMATS or getattr(args, "subtopics", False):
        return None  # subtopic qrels: from_trec reads them
    trec_intervals(args)  # --ci checked before the files are read
    run_source = trec_source(args.run, "run")
    qrels_source = None if is_irds(args.qrels) else trec_source(args.qrels, "qrels")
    # a stream's columns kept for from_trec, should the qrels be its (a stream is read once)
    run = read_arrow(run_source, RUN_FORMAT, encode_docids=False, keep=True)
    qrels = (irds_dataset(args.qrels).qrels() if qrels_source is None  # the reader's columns, by ir_datasets
             else read_arrow(qrels_source, QRELS_FORMAT, keep=True))
    if _has(qrels.docids, _NO_ANSWER):
        return None
    assert qrels.docid_codes is not None  # read with its docids coded
    forget(run_source)  # evaluated here: nothing kept for another reader
    if qrels_source is not None:
        forget(qrels_source)
    order = arrow_trec_order(run.qid_codes, run.values, run.docids)
    measures = trec_request(args)
    run_codes, qrels_codes, query_ids = _query_codes(run, qrels)
    # each line's docid as a code of the judged docids, and one code more for every docid no query judges
    judged = numpy_of(pc.index_in(run.docids, value_set=qrels.docids, memory_pool=memory_pool()))
    row_doc = np.where(judged >= 0, judged, len(qrels.docids))
    row_query = run_codes[run.qid_codes]
    if order is not None:
        row_query, row_doc = row_query[order], row_doc[order]
    del run, judged, order
    rows = judged_rows_of_codes(row_query, row_doc, qrels_codes[qrels.qid_codes], qrels.docid_codes, qrels.values,
                                query_ids, where="node 'Retriever'")
    rows = cut_ranking(rows, max_docs=getattr(args, "max_docs", None), judged_only=getattr(args, "judged_only", False))
    del row_query, row_doc
    check_missing_queries(rows, getattr(args, "missing_queries", "skip"), args.complete)
    values = evaluate(measures, row_query=rows.row_query, position=rows.position, grade=rows.grade,
                      judged_query=rows.judged_query, judged_grade=rows.judged_grade, n_queries=rows.n_queries)
    evaluated = rows.evaluated(args.complete)
    strings: dict[str, Sequence[str]] = {}
    if getattr(args, "relstring", None) is not None:
        ranked = RankedRows(row_query=rows.row_query, position=rows.position, grade=rows.grade,
                            judged_query=rows.judged_query, judged_grade=rows.judged_grade, n_queries=rows.n_queries)
        strings[args.relstring[0]] = relstring_column(relstrings(ranked, args.relstring[1])[evaluated].tolist(),
                                                      args.relstring)
    table = TrecTable(rows.query_ids[evaluated].tolist(), {name: column[evaluated] for name, column in values.items()},
                      strings)
    if not len(table):
        print_warning(f"no query of {args.run} is evaluated: none is also in {args.qrels} (trec_eval evaluates the queries "
                      "of both; -c adds the qrels' queries missing from the run).")
    return trec_render(table, trec_means(table.columns), args)
