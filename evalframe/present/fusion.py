"""``evalframe.fuse`` and ``evalframe.optimize_fusion``: runs fused into one, its weights searched on training qrels.

The fusion itself is :mod:`evalframe.analysis.fusion` (vectorised over the runs' grid); this module reads the inputs,
writes the fused run as a TREC run file (atomically, :func:`evalframe.io.trec.write_run`) and evaluates each
candidate of the grid search through the public API (``EvaluationResult.from_trec(...).trec_metrics(measure)``), so
the measure is any name ``trec_metrics`` takes and its number is the one every other entry point gives. It also
runs ``evalframe fuse`` (:func:`fuse_command`). See ``docs/ir-researchers.md#fusing-runs``.
"""

from __future__ import annotations

import argparse
import itertools
import numbers
import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from ..analysis.fusion import (MAX_FUSION_TRIALS, MAX_FUSION_WEIGHTS, RRF_K, FusionSpec, RunGrid, check_fusion,
                               check_grid, check_runs, fused_run, fused_scores, read_fusion_runs, weight_grid)
from .._locations import Remote, check_storage_options, is_dir, locate
from ..sources.trec_files import read_qrels
from ..sources.trec_stream import TrecSource, remote_source
from ..errors import EvalframeError, InvalidParameterError
from ..io.trec import check_tag, write_run
from ..metrics.trec import known_direction, parse_measure, without_direction
from ..result import EvaluationResult
from ..sources.trec_frames import is_frame
from ..sources.irds import irds_dataset, is_irds
from .formats import render_table

__all__ = ["fuse", "optimize_fusion", "FusionSearch", "run_dict", "fuse_command"]

#: RRF's k values ``optimize_fusion`` tries by default (ranx's: 10, 20, ..., 100).
RRF_KS: tuple[int, ...] = tuple(range(10, 101, 10))


def _located_runs(runs: Sequence[Any], storage_options: Mapping[str, Any]) -> list[Any]:
    """``runs``, each URL among them a source read through its filesystem (one fsspec cannot read refused, naming
    ``runs[i]``), the others as they are."""
    return [remote_source(run, "run", name=f"runs[{i}]", storage_options=storage_options) for i, run in enumerate(runs)]


def _check_output(output: object, tag: object, method: str,
                  storage_options: Mapping[str, Any] | None = None) -> tuple[Path | Remote | None, str]:
    """The file to write (checked before any run is read) and the run's tag."""
    if output is not None and (not isinstance(output, (str, os.PathLike)) or not str(output)):
        raise InvalidParameterError(f"output must be the path of the TREC run file to write, or None; got {output!r:.80}.",
                                    parameter="output")
    where = None if output is None else locate(output, name="output", storage_options=storage_options)
    if isinstance(where, Remote):
        if is_dir(where):
            raise InvalidParameterError(f"output {where.url!r} is a folder; give the URL of the run file to write, "
                                        f"such as {(where / 'fused.txt').url!r}.", parameter="output")
        return where, check_tag(f"fused-{method}" if tag is None else tag)
    path = None if output is None else Path(output)
    if path is not None and path.is_dir():
        raise InvalidParameterError(f"output {str(path)!r} is a folder; give the path of the run file to write, such as "
                                    f"{str(path / 'fused.txt')!r}.", parameter="output")
    if path is not None and not path.parent.is_dir():
        raise InvalidParameterError(f"output {str(path)!r}: the folder {str(path.parent)!r} does not exist.",
                                    parameter="output")
    return path, check_tag(f"fused-{method}" if tag is None else tag)


def run_dict(run: pd.DataFrame) -> dict[str, dict[str, float]]:
    """A run frame (``qid, docid, score``, as :func:`fuse` returns) as ``{qid: {docid: score}}`` (pytrec_eval's, ranx's
    and ir_measures' form), queries and documents in the frame's order.

    Examples
    --------
    >>> run_dict(pd.DataFrame({"qid": ["q1", "q1", "q2"], "docid": ["d2", "d1", "d7"], "score": [2.0, 1.0, 0.5]}))
    {'q1': {'d2': 2.0, 'd1': 1.0}, 'q2': {'d7': 0.5}}
    """
    return _nested(run, "score", np.float64)


def _nested(table: pd.DataFrame, column: str, dtype: Any) -> dict[str, dict[str, Any]]:
    """``{qid: {docid: value}}`` of a frame's ``qid``, ``docid`` and ``column``, in the frame's order."""
    qids = table["qid"].to_numpy(dtype=object)
    codes, distinct = pd.factorize(qids, sort=False)
    order = np.argsort(codes, kind="stable")
    starts = np.searchsorted(codes[order], np.arange(len(distinct) + 1))
    docids = table["docid"].to_numpy(dtype=object)[order].tolist()
    scores = table[column].to_numpy(dtype=dtype)[order].tolist()
    return {qid: dict(zip(docids[start:end], scores[start:end]))
            for qid, start, end in zip(distinct.tolist(), starts[:-1].tolist(), starts[1:].tolist())}


def fuse(runs: Sequence[Any], *, method: str = "rrf", weights: Sequence[float] | None = None, norm: str | None = None,
         k: float = RRF_K, depth: int | None = None, output: str | os.PathLike[str] | None = None,
         tag: str | None = None, node: str | None = None, storage_options: Mapping[str, Any] | None = None,
         ) -> pd.DataFrame:
    """Fuse two or more runs into one: RRF, CombSUM, CombMNZ, CombMAX, CombMIN, CombANZ, CombMED, weighted or not.

    Each run's scores are normalised per query (``norm``), multiplied by the run's weight and combined per document;
    RRF combines ``weight / (k + rank)`` instead (the rank in trec_eval's order: score descending, ties by docid
    descending). The rules for documents one run alone retrieved, queries some run lacks, equal scores and the
    degenerate normalisations are in ``docs/ir-researchers.md#fusing-runs``.

    Parameters
    ----------
    runs : list
        Two or more runs, each a TREC run file (plain or ``.gz``), ``{qid: {docid: score}}``, a frame (pandas,
        pyarrow or polars) with the columns ``qid``, ``docid``, ``score`` (as ``read_run`` returns; or
        ``query_id`` / ``q_id``, ``doc_id`` / ``docno``, as ``from_trec`` reads a run frame) or an EvaluationResult
        (``from_trec``'s; its node with document rows, or ``node``).
    method : str
        ``"rrf"`` (default), ``"combsum"``, ``"combmnz"``, ``"combmax"``, ``"combmin"``, ``"combanz"``, ``"combmed"``;
        ranx's spellings too (``"wsum"`` is a weighted ``"combsum"``, ``"comb_mnz"``, ...).
    weights : list of float, optional
        One weight >= 0 per run, in the runs' order (None: every run weighs 1).
    norm : str, optional
        ``"min-max"``, ``"zmuv"`` (z-score), ``"sum"``, ``"max"``, ``"rank"`` or ``"none"``; None: ``"min-max"`` for
        the score methods (ranx's default). RRF reads ranks and takes no ``norm``.
    k : float
        RRF's constant (default 60).
    depth : int, optional
        Keep the first ``depth`` documents of each fused query (None: all; trec_eval's ``-M`` cuts at evaluation).
    output : path, optional
        Write the fused run there as a TREC run file (``.gz``: gzip), atomically: a temporary sibling renamed over
        the target, so the file is never half-written.
    tag : str, optional
        The run's name in column 6 of ``output`` (default ``fused-<method>``).
    node : str, optional
        The node of the EvaluationResults among ``runs`` (default: each one's node with document rows).
    storage_options : dict, optional
        The filesystem's options for runs and ``output`` given as URLs (``s3://bucket/bm25.txt``; ``docs/storage.md``);
        an ``output`` URL is written in one request (the object replaced whole).

    Returns
    -------
    pandas.DataFrame
        The fused run as ``read_run`` returns a run: ``qid``, ``docid``, ``score``, ``rank`` (1..n), queries in order
        of first appearance over the runs, documents in trec_eval's order. :func:`run_dict` gives
        ``{qid: {docid: score}}``.

    Raises
    ------
    InvalidParameterError
        Fewer than two runs, an unknown method or norm (with a suggestion), a norm given to RRF, weights that are
        not one number >= 0 per run, a bad ``k``, ``depth``, ``tag`` or ``node``.
    LoadError
        A run file that cannot be read (the message names the file and the line).

    Examples
    --------
    >>> import evalframe
    >>> bm25 = {"q1": {"d1": 12.0, "d2": 9.0, "d3": 7.5}}
    >>> dense = {"q1": {"d3": 0.92, "d4": 0.88, "d1": 0.51}}
    >>> evalframe.fuse([bm25, dense], method="rrf", k=60)  # d1 and d3: 1/61 + 1/63, tied: the larger docid first
      qid docid     score  rank
    0  q1    d3  0.032266     1
    1  q1    d1  0.032266     2
    2  q1    d4  0.016129     3
    3  q1    d2  0.016129     4
    >>> evalframe.fuse([bm25, dense], method="combsum", norm="min-max", weights=[0.3, 0.7])["docid"].tolist()
    ['d3', 'd4', 'd1', 'd2']
    """
    options = check_storage_options(storage_options)
    runs = _located_runs(check_runs(runs), options)
    spec = check_fusion(len(runs), method=method, norm=norm, weights=weights, k=k, depth=depth)
    path, name = _check_output(output, tag, spec.method, options)
    read, _ = read_fusion_runs(runs, node=node)
    grid = RunGrid.of_runs(read)
    fused = fused_run(grid, fused_scores(grid, spec), spec.depth)
    if path is not None:
        write_run(fused, path, tag=name, storage_options=options)
    return fused


@dataclass
class FusionSearch:
    """What :func:`optimize_fusion` found: the best weights (and RRF's k), their number, every trial, the fused run.

    Attributes
    ----------
    method, norm, measure : str
        The method and normalisation (canonical names) and the measure optimised (as ``trec_metrics`` names it).
    weights : tuple of float
        The best weights, one per run, in the runs' order.
    k : float
        The best RRF k (the ``k`` given, for the other methods).
    score : float
        The measure's mean on the training qrels with those parameters.
    trials : pandas.DataFrame
        One row per candidate, in the order tried: a column per run's weight (``w1``, ``w2``, ...), RRF's ``k``
        (RRF only) and the measure.
    fused : pandas.DataFrame
        The fused run with the best parameters (as :func:`fuse` returns it).
    """

    method: str
    norm: str
    measure: str
    weights: tuple[float, ...]
    k: float
    score: float
    trials: pd.DataFrame = field(repr=False)
    fused: pd.DataFrame = field(repr=False)


def _evaluate(fused: pd.DataFrame, qrels: Any, measure: str, complete: bool) -> tuple[str, float]:
    """The measure's mean of the fused run on ``qrels``, through ``EvaluationResult.from_trec``: (its name, value)."""
    if not len(fused):
        return measure, 0.0
    result = EvaluationResult.from_trec(run_dict(fused), qrels, progress=False)
    means = result.trec_metrics([measure], complete=complete)
    name, value = next(iter(means.items()))
    return name, float(value)


def optimize_fusion(runs: Sequence[Any], qrels: Any, *, measure: str = "nDCG@10", method: str = "combsum",
                    norm: str | None = None, step: float = 0.1, weights: Sequence[float] | None = None,
                    ks: Sequence[float] | None = None, k: float = RRF_K, depth: int | None = None,
                    complete: bool = False, output: str | os.PathLike[str] | None = None, tag: str | None = None,
                    node: str | None = None, storage_options: Mapping[str, Any] | None = None) -> FusionSearch:
    """The weights (and RRF's k) that fuse ``runs`` best on training ``qrels``, by a grid search as ranx's
    ``optimize_fusion``.

    Every weight vector of multiples of ``step`` summing to 1 is tried (``weights`` given: only those), with every
    k of ``ks`` for RRF; each candidate is fused as :func:`fuse` fuses and evaluated through
    ``EvaluationResult.from_trec(fused, qrels).trec_metrics(measure)``. The best mean wins (the highest, or the
    lowest for a measure where lower is better, ``unj@10``: :func:`evalframe.direction_of`; a count such as
    ``NumRet``, neither better higher nor lower, is refused); among equal means, the first tried (weights in
    lexicographic order, then k ascending). The runs are read and normalised once.

    Parameters
    ----------
    runs : list
        Two or more runs, as :func:`fuse` takes them.
    qrels : path, dict, frame or ir_datasets dataset
        The training judgments: a TREC qrels file, ``{qid: {docid: grade}}``, a frame (``query_id``, ``doc_id``,
        ``relevance``, as ``from_trec`` reads it), or an ir_datasets dataset (``"irds:<id>"`` or the dataset object:
        read once, through ir_datasets' API; ``docs/storage.md#ir_datasets``).
    measure : str
        Any measure name ``trec_metrics`` takes (``"nDCG@10"``, ``"AP"``, ``"map"``, ``"P_10"``, ...).
    method, norm, k, depth, output, tag, node, storage_options
        As :func:`fuse` (``method`` defaults to ``"combsum"``, the weighted sum; ``k``: RRF's k when ``ks`` is
        None and the method is not RRF's search).
    step : float
        The weights' grid step; it must divide 1 (default 0.1: 11 candidates for two runs, 66 for three:
        ``C(1/step + runs - 1, runs - 1)``). A grid of more than 1,000,000 trials (weight vectors, times the k values
        for RRF) or 10,000,000 weights (trials times runs) is refused before anything is allocated, with the smallest
        step that fits (``evalframe.analysis.fusion.MAX_FUSION_TRIALS``, ``MAX_FUSION_WEIGHTS``).
    weights : list of float, optional
        Fixed weights instead of the grid (then only RRF's k is searched).
    ks : list of float, optional
        RRF's k values to try (default 10, 20, ..., 100, as ranx); ignored by the other methods.
    complete : bool
        Evaluate the qrels' queries no run retrieved for as 0 (``trec_eval -c``).

    Returns
    -------
    FusionSearch
        The best weights, k and score, every trial, and the fused run (written to ``output`` when given).

    Raises
    ------
    InvalidParameterError
        As :func:`fuse`; a ``step`` that is not a number in (0, 1] dividing 1, or whose grid is too large (the
        message names its number of weight vectors and the smallest step that fits); bad ``ks``, ``measure`` or
        ``qrels``.

    Examples
    --------
    >>> import evalframe
    >>> qrels = {"q1": {"d1": 1}, "q2": {"d4": 1}}
    >>> good = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 3.0, "d5": 2.0, "d6": 1.0}}
    >>> bad = {"q1": {"d3": 3.0, "d2": 2.0, "d1": 1.0}, "q2": {"d6": 3.0, "d5": 2.0, "d4": 1.0}}
    >>> search = evalframe.optimize_fusion([bad, good], qrels, measure="RR", step=0.5)
    >>> search.weights, search.score
    ((0.0, 1.0), 1.0)
    >>> search.trials  # (0.5, 0.5): every document ties at 0.5, the larger docid first: d1 and d4 third
        w1   w2        RR
    0  0.0  1.0  1.000000
    1  0.5  0.5  0.333333
    2  1.0  0.0  0.333333
    """
    options = check_storage_options(storage_options)
    runs = _located_runs(check_runs(runs), options)
    n_runs = len(runs)
    qrels = remote_source(qrels, "qrels", storage_options=options)
    spec = check_fusion(n_runs, method=method, norm=norm, weights=weights, k=k, depth=depth)
    if not isinstance(measure, str) or not measure:
        raise InvalidParameterError(f"measure must be a measure's name such as 'nDCG@10' or 'AP'; got {measure!r}.",
                                    parameter="measure")
    better = known_direction(measure)
    if better is None:
        parse_measure(measure)  # raises, naming the unknown measure (with a suggestion)
    if better == "none":
        error = without_direction(str(measure), None, "no best fusion")
        error.parameter = "measure"
        raise error
    sign = -1.0 if better == "lower" else 1.0  # a measure where lower is better: the lowest mean wins
    if is_irds(qrels):  # loaded once, its judgments read once for every trial
        qrels = irds_dataset(qrels, name="qrels")
    elif qrels is None or not (isinstance(qrels, (str, os.PathLike, Mapping, TrecSource)) or is_frame(qrels)):
        raise InvalidParameterError(f"qrels must be a TREC qrels file, a dict {{qid: {{docid: grade}}}}, a frame "
                                    f"(query_id, doc_id, relevance) or an ir_datasets dataset ('irds:<id>'); got "
                                    f"{type(qrels).__name__}.", parameter="qrels")
    if spec.method == "rrf":
        ks = RRF_KS if ks is None else ks
        if isinstance(ks, (str, bytes)) or not isinstance(ks, Sequence) or not ks or not all(
                not isinstance(x, bool) and isinstance(x, numbers.Real) and np.isfinite(x) and x >= 0 for x in ks):
            raise InvalidParameterError(f"ks must be a non-empty list of numbers >= 0 (RRF's k values to try); got {ks!r:.80}.",
                                        parameter="ks")
        k_values = sorted(float(x) for x in ks)
    else:
        k_values = [spec.k]
    if spec.weights is not None:
        if len(k_values) > min(MAX_FUSION_TRIALS, MAX_FUSION_WEIGHTS // n_runs):
            raise InvalidParameterError(f"ks holds {len(k_values):,} k values; optimize_fusion tries at most "
                                        f"{min(MAX_FUSION_TRIALS, MAX_FUSION_WEIGHTS // n_runs):,} for {n_runs} runs.",
                                        parameter="ks")
        candidates = np.array([spec.weights], dtype=np.float64)
    else:
        check_grid(n_runs, step, len(k_values))  # refused before any run is read or any vector laid out
        candidates = weight_grid(n_runs, step)
    path, name = _check_output(output, tag, spec.method, options)
    if isinstance(qrels, TrecSource):  # read once, not once per trial
        qrels = _nested(read_qrels(qrels), "relevance", np.int64)
    read, _ = read_fusion_runs(runs, node=node)
    grid = RunGrid.of_runs(read)
    normalised = None if spec.method == "rrf" else grid.normalised(spec.norm)
    # one row per trial, preallocated: the weights, RRF's k (RRF only) and the measure
    rows = np.empty((len(candidates) * len(k_values), n_runs + (2 if spec.method == "rrf" else 1)), dtype=np.float64)
    best: tuple[float, tuple[float, ...], float, pd.DataFrame] | None = None
    label = measure
    for row, (candidate, k_value) in enumerate(itertools.product(candidates.tolist(), k_values)):
        trial = FusionSpec(spec.method, spec.norm, tuple(candidate), k_value, spec.depth)
        fused = fused_run(grid, fused_scores(grid, trial, normalised), spec.depth)
        label, value = _evaluate(fused, qrels, measure, complete)
        rows[row, :n_runs] = candidate
        rows[row, n_runs:] = (k_value, value) if spec.method == "rrf" else (value,)
        if best is None or sign * value > sign * best[0]:
            best = (value, tuple(candidate), k_value, fused)
    assert best is not None  # one candidate at least
    trials = pd.DataFrame(rows, columns=[f"w{i}" for i in range(1, n_runs + 1)]
                          + (["k"] if spec.method == "rrf" else []) + [label])
    if path is not None:
        write_run(best[3], path, tag=name, storage_options=options)
    return FusionSearch(spec.method, spec.norm, label, tuple(best[1]), best[2], best[0], trials, best[3])


def _floats(text: str | None, flag: str) -> list[float] | None:
    if text is None:
        return None
    try:
        return [float(part) for part in text.split(",") if part.strip()]
    except ValueError:
        raise EvalframeError(f"{flag} must be comma-separated numbers such as 0.3,0.7; got {text!r}.") from None


def fuse_command(args: argparse.Namespace) -> str:
    """``evalframe fuse RUN... -o OUT``: fuse the run files into ``OUT`` (with ``--optimize MEASURE --qrels QRELS``,
    the weights searched first); returns what the command prints.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (folder / "a").write_text("q1 Q0 d1 1 2.0 a\\nq1 Q0 d2 2 1.0 a\\n")
    >>> _ = (folder / "b").write_text("q1 Q0 d2 1 5.0 b\\n")
    >>> args = argparse.Namespace(runs=[folder / "a", folder / "b"], out=folder / "fused.txt", method="rrf",
    ...                           weights=None, norm=None, k=60.0, depth=None, tag=None, qrels=None, optimize=None,
    ...                           step=None, ks=None, complete=False, format="table")
    >>> print(fuse_command(args).splitlines()[0])  # doctest: +ELLIPSIS
    wrote .../fused.txt: 1 query, 2 lines (rrf, k=60, weights 1, 1)
    >>> print((folder / "fused.txt").read_text(), end="")
    q1 Q0 d2 1 0.03252247488101534 fused-rrf
    q1 Q0 d1 2 0.01639344262295082 fused-rrf
    """
    weights = _floats(args.weights, "--weights")
    ks = _floats(args.ks, "--ks")
    if args.optimize is None:
        given = [flag for flag, value in (("--qrels", args.qrels), ("--ks", ks), ("--step", args.step),
                                          ("--complete", args.complete or None)) if value is not None]
        if given:
            raise EvalframeError(f"{given[0]} goes with --optimize MEASURE (the weights' grid search); add it, or leave "
                                 f"{given[0]} out to fuse with the given weights.")
    lines = []
    if args.optimize is not None:
        if args.qrels is None:
            raise EvalframeError("--optimize needs --qrels QRELS, the training judgments the measure is computed on.")
        search = optimize_fusion(list(args.runs), args.qrels, measure=args.optimize, method=args.method, norm=args.norm,
                                 step=0.1 if args.step is None else args.step, weights=weights, ks=ks, k=args.k, depth=args.depth,
                                 complete=args.complete, output=args.out, tag=args.tag,
                                 storage_options=getattr(args, "storage_options", None))
        fused, shown_weights, k = search.fused, search.weights, search.k
        lower = known_direction(search.measure) == "lower"  # the best first: the lowest where lower is better
        best = search.trials.sort_values(search.measure, ascending=lower, kind="stable").head(5)
        lines.append(render_table(best.reset_index(drop=True), args.format))
        lines.append(f"best {search.measure} on {args.qrels}: {search.score:.4f} of {len(search.trials)} trials")
        method = search.method
    else:
        fused = fuse(list(args.runs), method=args.method, weights=weights, norm=args.norm, k=args.k, depth=args.depth,
                     output=args.out, tag=args.tag, storage_options=getattr(args, "storage_options", None))
        method = check_fusion(len(args.runs), method=args.method).method
        shown_weights, k = tuple(weights) if weights else (1.0,) * len(args.runs), args.k
    queries = fused["qid"].nunique()
    parameters = f"k={k:g}, " if method == "rrf" else ""
    summary = (f"wrote {args.out}: {queries} quer{'y' if queries == 1 else 'ies'}, {len(fused)} lines ({method}, "
               f"{parameters}weights {', '.join(f'{w:g}' for w in shown_weights)})")
    return "\n".join([summary, *lines])
