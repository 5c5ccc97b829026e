"""Run fusion: several rankings of the same queries combined into one (RRF, CombSUM, CombMNZ, ...), vectorised.

The runs are laid on one grid first (:class:`RunGrid`): every (query, document) pair any run retrieved is one row,
each run one column holding its score and its rank there (NaN where the run did not retrieve the document), ids as
integer codes. A normalisation then works per (run, query) over the documents that run retrieved, and a method
combines each row's present cells into the fused score: numpy over the whole grid, no loop over queries or rows.
The fused run is ranked as trec_eval ranks a run file (score descending as a 32-bit float, ties by docid
descending), so the order written is the order trec_eval evaluates. ``evalframe.fuse`` and
``evalframe.optimize_fusion`` (:mod:`evalframe.present.fusion`) read the inputs, write the file and search the
weights; ``docs/ir-researchers.md#fusing-runs`` describes the methods.

Rules (``docs/ir-researchers.md#fusing-runs``):

* the fused queries are every run's, in order of first appearance over the runs in order; a query missing from
  a run gets nothing from that run (ranx refuses runs whose queries differ);
* a document one run alone retrieved is present in that run's column only: CombMNZ multiplies by 1, CombANZ divides
  by 1, CombSUM / weighted sums add 0 for the others, CombMAX / CombMIN / CombMED take the present scores only;
* weights multiply each run's (normalised) score, or its RRF term ``1 / (k + rank)``, before the combination;
* a degenerate normalisation (all of a run's scores of a query equal under min-max, z and sum, or a largest score
  of 0 or less under max) gives that run's documents of that query the normalised score 0 (ranx's floor of the
  denominator at 1e-9 gives 0 there too, up to float noise in its mean).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .._validation import did_you_mean, few_names
from ..errors import InvalidParameterError, SchemaError
from ..sources.trec import run_from_frame
from ..frames.trec_codes import repeated_pairs
from ..frames.trec_ranking import as_trec_scores, trec_order_codes
from ..sources.trec_files import read_run
from ..sources.trec_frames import frame_columns, frame_run, is_frame
from .compare import is_result

__all__ = ["FUSION_METHODS", "NORMALISATIONS", "RRF_K", "FusionSpec", "RunGrid", "check_fusion", "check_runs",
           "check_weights", "fusion_method", "fusion_norm",
           "read_fusion_runs", "MAX_FUSION_TRIALS", "MAX_FUSION_WEIGHTS", "grid_parts", "check_grid",
           "weight_grid", "fused_scores", "fused_run", "fuse_runs"]

#: The fusion methods, by their canonical name.
FUSION_METHODS: tuple[str, ...] = ("rrf", "combsum", "combmnz", "combmax", "combmin", "combanz", "combmed")
#: Other spellings of the methods (ranx's names among them): the canonical name each stands for.
METHOD_ALIASES: dict[str, str] = {"wsum": "combsum", "weightedsum": "combsum", "sum": "combsum", "mnz": "combmnz",
                                  "max": "combmax", "min": "combmin", "anz": "combanz",
                                  "med": "combmed", "median": "combmed", "reciprocalrankfusion": "rrf"}
#: The normalisations of the scores, per (run, query), by ranx's names; "none" keeps the scores as they are.
NORMALISATIONS: tuple[str, ...] = ("min-max", "zmuv", "sum", "max", "rank", "none")
NORM_ALIASES: dict[str, str] = {"minmax": "min-max", "min_max": "min-max", "z": "zmuv", "zscore": "zmuv",
                                "z-score": "zmuv"}
#: RRF's constant k (Cormack, Clarke and Buettcher, SIGIR 2009).
RRF_K = 60

def _key(name: str) -> str:
    return name.lower().replace("_", "").replace("-", "").replace(" ", "")


def fusion_method(method: object) -> str:
    """The canonical name of a fusion method, any spelling (``"CombMNZ"``, ``"comb_mnz"``, ranx's ``"wsum"``).

    Examples
    --------
    >>> fusion_method("comb_mnz"), fusion_method("wsum"), fusion_method("RRF")
    ('combmnz', 'combsum', 'rrf')
    """
    if isinstance(method, str):
        key = _key(method)
        if key in FUSION_METHODS:
            return key
        if key in METHOD_ALIASES:
            return METHOD_ALIASES[key]
        if key == "wmnz":  # ranx's wmnz is (sum of scores) x (sum of the weights of the runs holding the document)
            raise InvalidParameterError(
                "method 'wmnz' (ranx's weighted CombMNZ, Wu & Crestani 2002) is not evalframe's: evalframe's weighted "
                "combmnz is (sum of weight x score) x (number of runs holding the document). Write method='combmnz' "
                "with weights= for that.", parameter="method")
    raise InvalidParameterError(f"method must be one of {list(FUSION_METHODS)} (or ranx's names such as 'wsum', "
                                f"'comb_mnz'); got {method!r}.{did_you_mean(method, FUSION_METHODS)}", parameter="method")


def fusion_norm(norm: object, method: str) -> str:
    """The normalisation ``method`` uses: ``norm``'s canonical name; None: ``"min-max"`` for the score methods (ranx's
    default), ``"none"`` for RRF, which reads ranks.

    Examples
    --------
    >>> fusion_norm(None, "combsum"), fusion_norm("z", "combsum"), fusion_norm(None, "rrf")
    ('min-max', 'zmuv', 'none')
    """
    if norm is None:
        return "none" if method == "rrf" else "min-max"
    found = None
    if isinstance(norm, str):
        key = norm.lower()
        found = key if key in NORMALISATIONS else NORM_ALIASES.get(key)
    if found is None:
        raise InvalidParameterError(f"norm must be one of {list(NORMALISATIONS)} (or None: min-max for the score "
                                    f"methods); got {norm!r}.{did_you_mean(norm, NORMALISATIONS)}", parameter="norm")
    if method == "rrf" and found != "none":
        raise InvalidParameterError(f"norm={norm!r} does not apply to method 'rrf': RRF fuses each run's ranks "
                                    "(1 / (k + rank)), not its scores; leave norm out.", parameter="norm")
    return found


@dataclass(frozen=True)
class FusionSpec:
    """How runs are fused: the method, the normalisation, one weight per run (None: all 1), RRF's ``k`` and the
    number of documents kept per query (None: all)."""

    method: str
    norm: str
    weights: tuple[float, ...] | None
    k: float
    depth: int | None


def check_weights(weights: object, n_runs: int) -> tuple[float, ...] | None:
    """One finite weight >= 0 per run, not all 0; None stays None (every run weighs 1)."""
    if weights is None:
        return None
    if isinstance(weights, (str, bytes, Mapping)) or not isinstance(weights, Sequence):
        raise InvalidParameterError(f"weights must be a list of numbers, one per run ({n_runs}); got {weights!r:.80}.",
                                    parameter="weights")
    if len(weights) != n_runs:
        raise InvalidParameterError(f"weights must hold one number per run: {n_runs} runs, {len(weights)} weights "
                                    f"{list(weights)!r:.80}. Give {n_runs} weights, in the order of the runs.",
                                    parameter="weights")
    bad = [w for w in weights if isinstance(w, bool) or not isinstance(w, numbers.Real) or not math.isfinite(w) or w < 0]
    if bad:
        raise InvalidParameterError(f"weights must be finite numbers >= 0; got {bad[0]!r} in {list(weights)!r:.80}.",
                                    parameter="weights")
    if not any(w > 0 for w in weights):
        raise InvalidParameterError(f"weights must not all be 0 (every fused score would be 0); got {list(weights)!r}.",
                                    parameter="weights")
    return tuple(float(w) for w in weights)


def check_fusion(n_runs: int, *, method: object = "rrf", norm: object = None, weights: object = None,
                 k: object = RRF_K, depth: object = None) -> FusionSpec:
    """The fusion's arguments checked once, before any run is read further: a :class:`FusionSpec`.

    Examples
    --------
    >>> check_fusion(2, method="CombSUM", weights=[0.3, 0.7])
    FusionSpec(method='combsum', norm='min-max', weights=(0.3, 0.7), k=60.0, depth=None)
    """
    if n_runs < 2:
        raise InvalidParameterError(f"fusion needs two runs or more; got {n_runs}.", parameter="runs")
    name = fusion_method(method)
    normalisation = fusion_norm(norm, name)
    if isinstance(k, bool) or not isinstance(k, numbers.Real) or not math.isfinite(k) or k < 0:
        raise InvalidParameterError(f"k (RRF's constant) must be a finite number >= 0; got {k!r}.", parameter="k")
    if depth is not None and (isinstance(depth, bool) or not isinstance(depth, numbers.Integral) or depth < 1):
        raise InvalidParameterError(f"depth must be an int >= 1 (documents kept per fused query) or None (all); "
                                    f"got {depth!r}.", parameter="depth")
    return FusionSpec(name, normalisation, check_weights(weights, n_runs), float(k),
                      None if depth is None else int(depth))


# ---------------------------------------------------------------------------------------------------------- inputs
def _frame_run(frame: pd.DataFrame, where: str) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """A frame ``qid, docid, score``: ids and scores, with each row's rank in trec_eval's order."""
    missing = [c for c in ("qid", "docid", "score") if c not in frame.columns]
    if missing:
        raise InvalidParameterError(f"{where}: a run frame needs the columns qid, docid and score (as read_run returns); "
                                    f"it lacks {missing}.", parameter="runs")
    qids = frame["qid"].to_numpy(dtype=object)
    docids = frame["docid"].to_numpy(dtype=object)
    if not pd.api.types.is_numeric_dtype(frame["score"]) or pd.api.types.is_bool_dtype(frame["score"]):
        raise InvalidParameterError(f"{where}: the score column must hold numbers; got dtype {frame['score'].dtype}.",
                                    parameter="runs")
    scores = frame["score"].to_numpy(dtype=np.float64)
    if np.isnan(scores).any():
        first = int(np.flatnonzero(np.isnan(scores))[0])
        raise InvalidParameterError(f"{where}: query {qids[first]!r}, document {docids[first]!r} has no score (NaN).",
                                    parameter="runs")
    q_codes, q_values = pd.factorize(qids, sort=False)
    d_codes, d_values = pd.factorize(docids, sort=False)
    repeated = repeated_pairs(q_codes, d_codes, len(q_values), len(d_values))
    if repeated.any():
        first = int(np.flatnonzero(repeated)[0])
        raise InvalidParameterError(f"{where}: document {docids[first]!r} appears twice in query {qids[first]!r}; "
                                    "trec_eval refuses such a run. Keep one row per (qid, docid).", parameter="runs")
    order, ranks = trec_order_codes(q_codes, d_codes, np.asarray(d_values, dtype=object), as_trec_scores(scores))
    return qids[order], docids[order], scores[order], ranks


def check_runs(runs: object) -> Sequence[Any]:
    """``runs`` if it is a list (any sequence) of two runs or more, else an InvalidParameterError.

    Examples
    --------
    >>> len(check_runs(["bm25.txt", "dense.txt"]))
    2
    """
    if isinstance(runs, (str, bytes, Mapping, pd.DataFrame)) or not isinstance(runs, Sequence) or is_result(runs):
        raise InvalidParameterError(f"runs must be a list of runs (TREC run files, dicts {{qid: {{docid: score}}}}, "
                                    f"frames or EvaluationResults); got {type(runs).__name__}.", parameter="runs")
    if len(runs) < 2:
        raise InvalidParameterError(f"fusion needs two runs or more; got {len(runs)}.", parameter="runs")
    return runs


def read_fusion_runs(runs: object, *, node: str | None = None) -> tuple[list[tuple[np.ndarray, ...]], list[str]]:
    """Each run as ``(qids, docids, scores, ranks)`` in trec_eval's ranking, and a name for each.

    A run is a TREC run file (read by :func:`evalframe.sources.trec_files.read_run`: a bad line names file:line),
    ``{qid: {docid: score}}`` (one without any document, as pytrec_eval takes it, adds nothing), a frame (pandas,
    pyarrow, polars) with the columns ``qid, docid, score`` or their other names
    (:func:`evalframe.sources.trec_frames.frame_columns`), or an EvaluationResult (its node ``node``, or the one node
    with document rows; the node's ``score`` column when it has one, else ``n - rank + 1``).

    Examples
    --------
    >>> columns, names = read_fusion_runs([{"q1": {"d1": 0.5, "d2": 1.5}}, {"q1": {"d3": 2.0}}])
    >>> columns[0][1].tolist(), columns[0][3].tolist(), names
    (['d2', 'd1'], [1, 2], ['run 1', 'run 2'])
    """
    runs = check_runs(runs)
    read: list[tuple[np.ndarray, ...]] = []
    names: list[str] = []
    for position, run in enumerate(runs, start=1):
        where = f"run {position}"
        if is_result(run):
            documents = [name for name in run.nodes if run.has_documents(name)]
            if node is not None:
                if node not in run.nodes:
                    raise InvalidParameterError(f"node {node!r} is not in {where} (an EvaluationResult of the nodes "
                                                f"{few_names(run.nodes)}).{did_you_mean(node, run.nodes)}",
                                                parameter="node")
                name = node
            elif len(documents) == 1:
                name = documents[0]
            else:
                raise InvalidParameterError(f"{where} is an EvaluationResult with {len(documents)} nodes ranking "
                                            f"documents ({few_names(documents)}); pass node=<one of them>.",
                                            parameter="node")
            try:
                frame = run_from_frame(run[name], node=name)
            except SchemaError as exc:  # its hint names to_trec_run's parameter, which fuse does not take
                raise SchemaError(f"{where}: {str(exc).split('; ')[0]}; a fused run takes one score per document: "
                                  f"write the node with result.to_trec_run(path, node={name!r}, duplicates='first') and "
                                  "fuse that file.") from None
            names.append(f"{where} ({name})")
        elif is_frame(run):  # pandas, Arrow, polars: read as from_trec reads a run frame
            try:
                read.append(frame_run(frame_columns(run, "run")))
            except InvalidParameterError as exc:
                raise InvalidParameterError(f"{where}: {exc}", parameter="runs") from None
            names.append(where)
            continue
        elif isinstance(run, Mapping) and all(isinstance(docs, Mapping) and not docs for docs in run.values()):
            # no document at all (pytrec_eval's dicts allow it): the run adds nothing
            empty = np.zeros(0, dtype=object)
            read.append((empty, empty, np.zeros(0), np.zeros(0, dtype=np.int64)))
            names.append(where)
            continue
        elif isinstance(run, Mapping):
            try:
                frame = read_run(run)
            except InvalidParameterError as exc:
                raise InvalidParameterError(f"{where}: {exc}", parameter="runs") from None
            names.append(where)
        else:
            frame = read_run(run)  # a path: its errors name the file and the line
            names.append(str(run))
        read.append(_frame_run(frame, where))
    return read, names


# ---------------------------------------------------------------------------------------------------------- the grid
@dataclass(frozen=True)
class RunGrid:
    """The runs on one grid: one row per (query, document) any run retrieved, one column per run.

    Attributes
    ----------
    qids, docids : numpy.ndarray
        The distinct ids (object arrays); the queries in order of first appearance over the runs in order.
    query, doc : numpy.ndarray
        Each row's query and document code (int64), rows sorted by (query code, document code).
    scores, ranks : numpy.ndarray
        ``(rows, runs)`` float64: each run's score and rank (1..n in trec_eval's order) of the row's document, NaN
        where the run did not retrieve it.
    """

    qids: np.ndarray
    docids: np.ndarray
    query: np.ndarray
    doc: np.ndarray
    scores: np.ndarray
    ranks: np.ndarray

    @classmethod
    def of_runs(cls, runs: Sequence[tuple[np.ndarray, ...]]) -> RunGrid:
        """The grid of runs as :func:`read_fusion_runs` returns them.

        Examples
        --------
        >>> grid = RunGrid.of_runs(read_fusion_runs([{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 5.0, "c": 4.0}}])[0])
        >>> grid.docids[grid.doc].tolist(), grid.scores.tolist()
        (['a', 'b', 'c'], [[2.0, nan], [1.0, 5.0], [nan, 4.0]])
        """
        sizes = [len(run[0]) for run in runs]
        q_codes, qids = pd.factorize(np.concatenate([run[0] for run in runs]), sort=False)
        d_codes, docids = pd.factorize(np.concatenate([run[1] for run in runs]), sort=False)
        keys = q_codes.astype(np.int64) * max(len(docids), 1) + d_codes
        pairs, row = np.unique(keys, return_inverse=True)
        column = np.repeat(np.arange(len(runs)), sizes)
        scores = np.full((len(pairs), len(runs)), np.nan)
        ranks = np.full((len(pairs), len(runs)), np.nan)
        scores[row, column] = np.concatenate([run[2] for run in runs])
        ranks[row, column] = np.concatenate([run[3] for run in runs])
        return cls(np.asarray(qids, dtype=object), np.asarray(docids, dtype=object), pairs // max(len(docids), 1),
                   pairs % max(len(docids), 1), scores, ranks)

    def normalised(self, norm: str) -> np.ndarray:
        """The scores normalised per (run, query) over the documents the run retrieved (NaN elsewhere).

        ``min-max``: (s - min) / (max - min); ``zmuv``: (s - mean) / std (population std); ``sum``:
        (s - min) / sum(s - min); ``max``: s / max; ``rank``: 1 - (rank - 1) / n; ``none``: s. A degenerate query
        (denominator 0, or max <= 0 for ``max``) gives 0.

        Examples
        --------
        >>> grid = RunGrid.of_runs(read_fusion_runs([{"q": {"a": 3.0, "b": 1.0, "c": 2.0}}, {"q": {"a": 7.0}}])[0])
        >>> grid.docids[grid.doc].tolist(), grid.normalised("min-max").tolist()
        (['a', 'c', 'b'], [[1.0, 0.0], [0.5, nan], [0.0, nan]])
        """
        if norm == "none":
            return self.scores
        n_queries = len(self.qids)
        present = ~np.isnan(self.scores)
        result = np.full(self.scores.shape, np.nan)
        for run in range(self.scores.shape[1]):  # a handful of runs: each run's column in one vectorised pass
            rows = np.flatnonzero(present[:, run])
            query, values = self.query[rows], self.scores[rows, run]
            count = np.bincount(query, minlength=n_queries).astype(np.float64)
            if norm == "rank":
                result[rows, run] = 1.0 - (self.ranks[rows, run] - 1.0) / count[query]
                continue
            low = np.full(n_queries, np.inf)
            high = np.full(n_queries, -np.inf)
            np.minimum.at(low, query, values)
            np.maximum.at(high, query, values)
            if norm == "min-max":
                shift, scale = low[query], (high - low)[query]
            elif norm == "max":
                shift, scale = np.zeros(len(rows)), np.where(high > 0, high, 0.0)[query]
            elif norm == "sum":
                shift = low[query]
                scale = np.bincount(query, weights=values - shift, minlength=n_queries)[query]
            else:  # zmuv
                mean = np.bincount(query, weights=values, minlength=n_queries) / np.maximum(count, 1)
                shift = mean[query]
                variance = np.bincount(query, weights=(values - shift) ** 2, minlength=n_queries) / np.maximum(count, 1)
                scale = np.sqrt(variance)[query]
                scale[(high == low)[query]] = 0.0  # equal scores: no spread, whatever the mean's rounding
            degenerate = scale <= 0
            result[rows, run] = np.where(degenerate, 0.0, (values - shift) / np.where(degenerate, 1.0, scale))
        return result


def fused_scores(grid: RunGrid, spec: FusionSpec, normalised: np.ndarray | None = None) -> np.ndarray:
    """Each grid row's fused score under ``spec`` (``normalised``: the grid's scores normalised by ``spec.norm``
    already, when the caller keeps them across several weights).

    Examples
    --------
    >>> grid = RunGrid.of_runs(read_fusion_runs([{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 5.0, "c": 4.0}}])[0])
    >>> fused_scores(grid, check_fusion(2, method="combmnz", norm="none")).tolist()  # a: 2*1, b: (1+5)*2, c: 4*1
    [2.0, 12.0, 4.0]
    """
    weights = np.ones(grid.scores.shape[1]) if spec.weights is None else np.asarray(spec.weights, dtype=np.float64)
    if spec.method == "rrf":
        terms = weights / (spec.k + grid.ranks)
    else:
        terms = (grid.normalised(spec.norm) if normalised is None else normalised) * weights
    present = ~np.isnan(terms)
    count = present.sum(axis=1)
    if spec.method in ("rrf", "combsum"):
        return np.where(present, terms, 0.0).sum(axis=1)
    if spec.method == "combmnz":
        return np.where(present, terms, 0.0).sum(axis=1) * count
    if spec.method == "combanz":
        return np.where(present, terms, 0.0).sum(axis=1) / count
    if spec.method == "combmax":
        return np.where(present, terms, -np.inf).max(axis=1)
    if spec.method == "combmin":
        return np.where(present, terms, np.inf).min(axis=1)
    return np.nanmedian(terms, axis=1)  # combmed: every row has one present cell at least


def fused_run(grid: RunGrid, scores: np.ndarray, depth: int | None = None) -> pd.DataFrame:
    """The fused run as :func:`evalframe.sources.trec_files.read_run` returns a run: ``qid, docid, score, rank``,
    queries in the grid's order, documents in trec_eval's order (score descending compared as 32-bit floats, as
    trec_eval reads a file; ties by docid descending); the first ``depth`` of each query when given.

    Examples
    --------
    >>> grid = RunGrid.of_runs(read_fusion_runs([{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 5.0, "c": 4.0}}])[0])
    >>> fused_run(grid, np.array([1.0, 3.0, 1.0]), depth=2)
      qid docid  score  rank
    0   q     b    3.0     1
    1   q     c    1.0     2
    """
    order, ranks = trec_order_codes(grid.query, grid.doc, grid.docids, as_trec_scores(scores))
    if depth is not None:
        kept = ranks <= depth
        order, ranks = order[kept], ranks[kept]
    return pd.DataFrame({"qid": pd.Series(grid.qids[grid.query[order]], dtype=object),
                         "docid": pd.Series(grid.docids[grid.doc[order]], dtype=object),
                         "score": scores[order], "rank": ranks})


def fuse_runs(runs: Sequence[tuple[np.ndarray, ...]], spec: FusionSpec) -> pd.DataFrame:
    """Runs (as :func:`read_fusion_runs` returns them) fused under ``spec``: :func:`fused_run`'s frame.

    Examples
    --------
    >>> runs, _ = read_fusion_runs([{"q": {"a": 2.0, "b": 1.0}}, {"q": {"b": 5.0, "c": 4.0}}])
    >>> fuse_runs(runs, check_fusion(2, method="rrf", k=1))  # b: 1/(1+2) + 1/(1+1); a: 1/(1+1); c: 1/(1+2)
      qid docid     score  rank
    0   q     b  0.833333     1
    1   q     a  0.500000     2
    2   q     c  0.333333     3
    """
    grid = RunGrid.of_runs(runs)
    return fused_run(grid, fused_scores(grid, spec), spec.depth)


#: The most trials :func:`weight_grid` lays out (weight vectors, times RRF's k values when they are searched too):
#: each one is fused and evaluated, about 10 ms each on a small run, so a million already takes hours.
MAX_FUSION_TRIALS = 1_000_000
#: The most weights the trials hold (trials times runs): 80 MB of float64, whatever the number of runs.
MAX_FUSION_WEIGHTS = 10_000_000


def _grid_points(n_runs: int, parts: int, limit: int) -> int:
    """The number of weight vectors of ``n_runs`` multiples of ``1 / parts`` summing to 1: the compositions of
    ``parts`` into ``n_runs`` parts, ``C(parts + n_runs - 1, n_runs - 1)``; ``limit + 1`` as soon as it passes
    ``limit``, so a hostile ``parts`` costs no more than ``limit`` steps, never a huge integer."""
    top, k = parts + n_runs - 1, min(n_runs - 1, parts)
    count = 1
    for i in range(1, k + 1):
        count = count * (top - k + i) // i  # C(top - k + i, i): exact, and increasing in i
        if count > limit:
            return limit + 1
    return count


def _count_words(n_runs: int, parts: int) -> str:
    """The number of weight vectors as the message shows it: exact up to 30 digits, else its power of ten (a step of
    1e-300 must not make a 300-digit integer)."""
    top, k = parts + n_runs - 1, min(n_runs - 1, parts)
    digits = sum(math.log10(top - k + i) - math.log10(i) for i in range(1, k + 1))
    if digits < 30:
        return f"{math.comb(top, k):,}"
    return f"about 10^{math.floor(digits)}"


def grid_parts(step: object) -> int:
    """``1 / step``, the number of steps of the weight grid, once ``step`` is checked: a finite number in (0, 1]
    that divides 1 (0.1, 0.05, 0.25, ...; ``InvalidParameterError`` naming ``step`` otherwise).

    Examples
    --------
    >>> grid_parts(0.1), grid_parts(0.25), grid_parts(1)
    (10, 4, 1)
    """
    value = float(step) if isinstance(step, numbers.Real) and not isinstance(step, bool) else math.nan
    if not 0 < value <= 1:  # NaN fails the test too
        raise InvalidParameterError(f"step must be a number in (0, 1] that divides 1, such as 0.1; got {step!r}.",
                                    parameter="step")
    inverse = 1 / value
    if not math.isfinite(inverse):  # a subnormal step: 1 / 5e-324 is inf
        raise InvalidParameterError(f"step must divide 1 (the weights sum to 1), such as 0.1, 0.05 or 0.25; got "
                                    f"{step!r}, too small to divide 1 into a whole number of steps.", parameter="step")
    parts = round(inverse)
    if abs(parts * value - 1) > 1e-9:
        raise InvalidParameterError(f"step must divide 1 (the weights sum to 1), such as 0.1, 0.05 or 0.25; got {step!r}.",
                                    parameter="step")
    return int(parts)


def check_grid(n_runs: int, step: object, n_ks: int = 1) -> int:
    """The weight grid's number of vectors at ``step`` for ``n_runs`` runs, refused before anything is allocated when
    its trials (vectors times the ``n_ks`` RRF k values) pass :data:`MAX_FUSION_TRIALS` or their weights (trials
    times runs) :data:`MAX_FUSION_WEIGHTS`; the message names the number of vectors and the smallest ``step`` that
    fits for that many runs.

    Examples
    --------
    >>> check_grid(2, 0.1), check_grid(3, 0.1)  # 0, 0.1, ..., 1 for the first run; C(12, 2) for three
    (11, 66)
    >>> check_grid(2, 1e-9)
    Traceback (most recent call last):
    ...
    evalframe.errors.InvalidParameterError: step=1e-09 gives 1,000,000,001 weight vectors for 2 runs ... is 1/999999 = ...
    """
    parts = grid_parts(step)
    n_ks = max(int(n_ks), 1)
    limit = min(MAX_FUSION_TRIALS // n_ks, MAX_FUSION_WEIGHTS // (n_ks * n_runs))
    points = _grid_points(n_runs, parts, limit)
    if points <= limit:
        return points
    counted = _count_words(n_runs, parts)
    runs = f"{n_runs} runs" + (f" and {n_ks} k values" if n_ks > 1 else "")
    held = (f"at most {MAX_FUSION_TRIALS:,} trials ({'weight vectors x k values, ' if n_ks > 1 else ''}each one fused "
            f"and evaluated)" + (f" and {MAX_FUSION_WEIGHTS:,} weights (trials x runs)"
                                 if limit < MAX_FUSION_TRIALS // n_ks else ""))
    if _grid_points(n_runs, 1, limit) > limit:
        hint = f"Even step=1 is too many for {runs}: fuse fewer runs" + (" or try fewer k values." if n_ks > 1 else ".")
    else:
        low, high = 1, min(parts, limit)  # the most steps that fit: fits(low), not fits(high) (parts + 1 > limit)
        while high - low > 1:
            middle = (low + high) // 2
            low, high = (middle, high) if _grid_points(n_runs, middle, limit) <= limit else (low, middle)
        # the smallest round step that fits: 1, 2 or 5 times a power of ten (each divides 1), the most parts <= low
        mantissa, exponent = max(((m, e) for e in range(len(str(low)) + 1) for m in (1, 2, 5) if 10 ** e // m <= low
                                  and 10 ** e % m == 0), key=lambda pair: 10 ** pair[1] // pair[0])
        round_step = f"{mantissa / 10 ** exponent:g}"
        hint = (f"The smallest step that fits for {runs} is " + ("1" if low == 1 else f"1/{low} = {1 / low!r}")
                + (f" (a round one: {round_step})." if 10 ** exponent // mantissa != low else "."))
    raise InvalidParameterError(f"step={step!r} gives {counted} weight vectors for {n_runs} runs (multiples of step "
                                f"summing to 1); optimize_fusion tries {held}. {hint}", parameter="step")


def weight_grid(n_runs: int, step: float) -> np.ndarray:
    """Every weight vector of ``n_runs`` multiples of ``step`` that sum to 1 (ranx's search space), in lexicographic
    order of the weights; ``step`` must divide 1 (0.1, 0.05, 0.25, ...), and the grid hold at most
    :data:`MAX_FUSION_TRIALS` vectors and :data:`MAX_FUSION_WEIGHTS` weights (:func:`check_grid`, which refuses a
    larger one before allocating it).

    Examples
    --------
    >>> weight_grid(2, 0.25).tolist()
    [[0.0, 1.0], [0.25, 0.75], [0.5, 0.5], [0.75, 0.25], [1.0, 0.0]]
    """
    check_grid(n_runs, step)
    parts = grid_parts(step)
    # built a column at a time, each prefix followed by every count its remainder allows, in ascending order: the
    # rows come out in lexicographic order, and no array is larger than the grid itself
    counts = np.zeros((1, 0), dtype=np.int64)
    left = np.array([parts], dtype=np.int64)
    for _ in range(n_runs - 1):
        repeats = left + 1
        starts = np.cumsum(repeats) - repeats
        values = np.arange(int(repeats.sum()), dtype=np.int64) - np.repeat(starts, repeats)
        counts = np.hstack([np.repeat(counts, repeats, axis=0), values[:, None]])
        left = np.repeat(left, repeats) - values
    return np.hstack([counts, left[:, None]]) / parts
