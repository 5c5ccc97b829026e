"""trec_eval's measures: names (ir_measures' syntax) and vectorised kernels over flat arrays (numpy only).

A measure is written as ir_measures writes it: ``AP``, ``AP@k``, ``nDCG``, ``nDCG@k``, ``P@k``, ``R@k``,
``RR``, ``RR@k``, ``Success@k``, ``Rprec``, ``Bpref``, each binary measure with an optional relevance level
``(rel=N)`` (``P(rel=2)@5``: grade >= 2 is relevant). :func:`parse_measure` reads one name into a
:class:`Measure`, whose ``str`` is the canonical name (``rel=1``, the default, is dropped).

The kernels take the rows of every query laid end to end, sorted by query, then by position in the query's
ranking (trec_eval's order), as flat arrays:

* ``row_query`` (query code per row, ascending), ``position`` (0-based rank in the query), ``grade`` (the
  document's qrels grade, :data:`UNJUDGED` for a document the qrels do not hold);
* ``judged_query`` / ``judged_grade``: every judged document of every query, sorted by query then grade
  descending (so a query's positive grades, in order, are its ideal ranking's gains).

Each family (precision-like counts, AP, RR, nDCG, Rprec, Bpref) is one pass over the rows for all its cutoffs:
rows are put in the bucket of the smallest cutoff that keeps them, summed per (query, bucket) with one
``bincount``, and the sums are accumulated over the buckets, so the value at every cutoff is read off one small
matrix. No loop runs per query. The definitions (trec_eval's, checked against pytrec_eval to 1e-12) are in
``docs/ir-researchers.md#measures-and-trec_evals-rules``.

Examples
--------
>>> import numpy as np
>>> measures = parse_measures(["P@2", "AP", "nDCG@2"])
>>> [str(m) for m in measures]
['P@2', 'AP', 'nDCG@2']
>>> values = evaluate(measures, row_query=np.array([0, 0, 0]), position=np.array([0, 1, 2]),
...                   grade=np.array([0, 2, UNJUDGED]), judged_query=np.array([0, 0, 0]),
...                   judged_grade=np.array([2, 1, 0]), n_queries=1)
>>> values["P@2"].tolist(), values["AP"].tolist()  # P@2 = 1/2; AP = (1/2) / num_rel 2
([0.5], [0.25])
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ..errors import InvalidParameterError

__all__ = [
    "swept_measures",
    "Measure",
    "MEASURE_NAMES",
    "MEASURE_DESCRIPTIONS",
    "describe_measure",
    "UNJUDGED",
    "parse_measure",
    "parse_measures",
    "evaluate",
    "cutoff_sums",
    "relevant_counts",
    "average_precision",
    "reciprocal_rank",
    "ndcg",
    "r_precision",
    "bpref",
]

#: The grade of a retrieved document the qrels do not hold. Every grade < 0 is treated alike: neither relevant
#: nor judged non-relevant (bpref skips it, its gain is 0).
UNJUDGED = -(2**62)

#: Every measure name, and whether it needs (True), takes (None) or refuses (False) a cutoff ``@k``.
_CUTOFF = {"AP": None, "nDCG": None, "P": True, "R": True, "RR": None, "Success": True, "Rprec": False, "Bpref": False}
MEASURE_NAMES: tuple[str, ...] = tuple(_CUTOFF)
_TAKES_REL = frozenset(MEASURE_NAMES) - {"nDCG"}
#: What each measure is, in one line (trec_eval's definitions): the report and the docs read these. "k" is the cutoff
#: (the whole ranking without one), "relevant" a grade at or above the relevance level.
MEASURE_DESCRIPTIONS: dict[str, str] = {
    "AP": "Average precision: the sum, over the relevant documents retrieved in the top k, of the precision at each "
          "one's rank, over the query's number of relevant documents.",
    "nDCG": "Normalised discounted cumulative gain: the sum of grade / log2(rank + 1) over the top k, over the same "
            "sum of the ideal ranking (the judged grades, highest first).",
    "P": "Precision: relevant documents in the top k, over k.",
    "R": "Recall: relevant documents in the top k, over the query's number of relevant documents.",
    "RR": "Reciprocal rank: 1 / the rank of the first relevant document in the top k (0 if there is none).",
    "Success": "1 if a relevant document is in the top k, else 0.",
    "Rprec": "R-precision: relevant documents in the top R, over R, the query's number of relevant documents.",
    "Bpref": "Binary preference: the mean, over the query's relevant documents, of 1 - (judged non-relevant documents "
             "ranked above it) / min(judged non-relevant, relevant); unjudged documents are skipped.",
}

#: Cutoffs and relevance levels: ASCII digits ("²" is a digit to str.isdigit, not to int), at most a billion.
_NUMBER = re.compile(r"[0-9]+")
_LARGEST = 10**9
_PATTERN = re.compile(r"^(?P<name>[A-Za-z_]+)(?:\((?P<params>[^)]*)\))?(?:@(?P<cutoff>[^@]*))?$")


@dataclass(frozen=True)
class Measure:
    """One trec_eval measure: ``name`` (one of :data:`MEASURE_NAMES`), ``cutoff`` (k, or None) and ``rel``.

    ``str(measure)`` is the canonical name, as ir_measures writes it: ``P(rel=2)@5``, ``nDCG@10``, ``AP``.
    """

    name: str
    cutoff: int | None = None
    rel: int = 1

    def __str__(self) -> str:
        params = f"(rel={self.rel})" if self.rel != 1 else ""
        return f"{self.name}{params}" + (f"@{self.cutoff}" if self.cutoff is not None else "")


def _example(name: str) -> str:
    return f"{name}@10" if _CUTOFF[name] is True else name


def parse_measure(text: str | Measure) -> Measure:
    """Read one measure name (ir_measures' syntax); a :class:`Measure` is returned as it is.

    Raises InvalidParameterError (a ValueError) saying what is accepted.

    Examples
    --------
    >>> parse_measure("P(rel=2)@5")
    Measure(name='P', cutoff=5, rel=2)
    >>> str(parse_measure("P(rel=1)@5"))
    'P@5'
    """
    if isinstance(text, Measure):
        return text
    if not isinstance(text, str):
        raise InvalidParameterError(f"a measure is a name such as 'nDCG@10' or 'AP'; got {text!r} ({type(text).__name__}).")
    match = _PATTERN.match(text.strip())
    known = ", ".join(_example(n) for n in MEASURE_NAMES)
    if match is None or match["name"] not in _CUTOFF:
        close = [n for n in MEASURE_NAMES if match is not None and n.lower() == match["name"].lower()]
        hint = f" Did you mean {close[0] + text.strip()[len(close[0]):]!r}?" if close else ""
        raise InvalidParameterError(f"unknown measure {text!r}; the measures are {known} "
                           f"(binary ones take a relevance level: 'P(rel=2)@5').{hint}")
    name = match["name"]
    cutoff = None
    if match["cutoff"] is not None:
        if _CUTOFF[name] is False:
            raise InvalidParameterError(f"{name} takes no cutoff: write {name!r}; got {text!r}.")
        if not _NUMBER.fullmatch(match["cutoff"]) or not 1 <= int(match["cutoff"]) <= _LARGEST:
            raise InvalidParameterError(f"the cutoff of {text!r} must be a positive int (at most {_LARGEST:,}), e.g. "
                                        f"'{name}@10'.")
        cutoff = int(match["cutoff"])
    elif _CUTOFF[name] is True:
        raise InvalidParameterError(f"{name} needs a cutoff: {name}@10; got {text!r}.")
    rel = 1
    if match["params"] is not None:
        if name not in _TAKES_REL:
            raise InvalidParameterError(f"{name} takes no rel (nDCG uses the grades as gains); got {text!r}: write "
                               f"{'nDCG' + (f'@{cutoff}' if cutoff else '')!r}.")
        key, _, value = match["params"].partition("=")
        if key.strip() != "rel" or not _NUMBER.fullmatch(value.strip()) or not 1 <= int(value) <= _LARGEST:
            raise InvalidParameterError(f"{name} takes one parameter, rel=N with N a positive int (grade >= N is relevant), "
                               f"e.g. '{name}(rel=2)" + (f"@{cutoff}" if cutoff else "") + f"'; got {text!r}.")
        rel = int(value)
    return Measure(name, cutoff, rel)


def describe_measure(measure: str | Measure) -> str:
    """One line saying what ``measure`` is: its :data:`MEASURE_DESCRIPTIONS` entry, with its cutoff and level.

    Examples
    --------
    >>> describe_measure("P(rel=2)@5")
    'Precision: relevant documents in the top k, over k (k = 5; relevant: grade >= 2).'
    >>> describe_measure("Rprec")
    "R-precision: relevant documents in the top R, over R, the query's number of relevant documents (relevant: grade >= 1)."
    """
    parsed = parse_measure(measure)
    notes = []
    if _CUTOFF[parsed.name] is not False:
        notes.append(f"k = {parsed.cutoff}" if parsed.cutoff is not None else "k: the whole ranking")
    if parsed.name in _TAKES_REL:
        notes.append(f"relevant: grade >= {parsed.rel}")
    return MEASURE_DESCRIPTIONS[parsed.name].removesuffix(".") + f" ({'; '.join(notes)})."


def parse_measures(texts: str | Measure | Iterable[str | Measure]) -> list[Measure]:
    """Read a measure name or a list of them; repeats (by canonical name) are dropped, order kept.

    Examples
    --------
    >>> [str(m) for m in parse_measures(["nDCG@10", "AP", "P(rel=1)@5", "P@5"])]
    ['nDCG@10', 'AP', 'P@5']
    """
    if isinstance(texts, (str, Measure)):
        texts = [texts]
    if not isinstance(texts, Iterable):
        raise InvalidParameterError(f"measures must be a name or a list of names, e.g. ['nDCG@10', 'AP']; got {texts!r}.",
                                    parameter="measures")
    measures: dict[str, Measure] = {}
    for text in texts:
        try:
            measure = parse_measure(text)
        except InvalidParameterError as error:  # a name the caller passed as measures (the CLI's -m)
            error.parameter = error.parameter or "measures"
            raise
        measures.setdefault(str(measure), measure)
    if not measures:
        raise InvalidParameterError("measures is empty; give at least one, e.g. ['nDCG@10', 'AP'].", parameter="measures")
    return list(measures.values())


# ------------------------------------------------------------------------------------ kernels
def cutoff_sums(row_query: np.ndarray, position: np.ndarray, weights: np.ndarray, n_queries: int,
                cutoffs: Sequence[int]) -> np.ndarray:
    """Per query, the sum of ``weights`` over its rows at ``position < k``, for each k of ``cutoffs`` and for all rows.

    Returns an ``(n_queries, len(cutoffs) + 1)`` matrix; the last column sums every row. One pass: each row goes
    to the bucket of the smallest cutoff that keeps it, and the bucket sums are accumulated.
    ``cutoffs`` must be ascending.
    """
    cuts = np.asarray(cutoffs, dtype=np.int64)
    n_buckets = len(cuts) + 1
    bucket = np.searchsorted(cuts, position, side="right")  # position < cuts[b] for every b >= bucket
    sums = np.bincount(row_query * n_buckets + bucket, weights=weights, minlength=n_queries * n_buckets)
    return np.cumsum(sums.reshape(n_queries, n_buckets), axis=1)


def _segment_cumsum(row_query: np.ndarray, values: np.ndarray, n_queries: int) -> np.ndarray:
    """Inclusive running sum of integer ``values`` within each query (exact: integers)."""
    total = np.cumsum(values)
    before = np.concatenate(([0], np.cumsum(np.bincount(row_query, weights=values, minlength=n_queries)
                                            .astype(np.int64))))[:-1]
    return total - before[row_query]


def relevant_counts(row_query: np.ndarray, position: np.ndarray, relevant: np.ndarray, n_queries: int,
                    cutoffs: Sequence[int]) -> np.ndarray:
    """Relevant documents in the top k per query, for each cutoff (and all rows, last column)."""
    return cutoff_sums(row_query, position, relevant.astype(np.float64), n_queries, cutoffs)


def _divide(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=np.broadcast_to(denominator, out.shape) != 0)
    return out


def average_precision(row_query: np.ndarray, position: np.ndarray, relevant: np.ndarray, num_rel: np.ndarray,
                      n_queries: int, cutoffs: Sequence[int]) -> np.ndarray:
    """trec_eval's map / map_cut.k: sum over relevant rows in the top k of (relevant so far) / rank, over num_rel."""
    so_far = _segment_cumsum(row_query, relevant.astype(np.int64), n_queries)
    precision = np.where(relevant, so_far / (position + 1.0), 0.0)
    return _divide(cutoff_sums(row_query, position, precision, n_queries, cutoffs), num_rel[:, None])


def reciprocal_rank(row_query: np.ndarray, position: np.ndarray, relevant: np.ndarray, n_queries: int,
                    cutoffs: Sequence[int]) -> np.ndarray:
    """1 / rank of the first relevant row (0 if none), counted only when that rank is <= k."""
    first = np.full(n_queries, np.iinfo(np.int64).max, dtype=np.int64)
    hit_query, hit_position = row_query[relevant], position[relevant]
    starts = np.flatnonzero(np.diff(hit_query, prepend=-1) != 0)  # rows are sorted: a query's first hit
    first[hit_query[starts]] = hit_position[starts]
    limits = np.append(np.asarray(cutoffs, dtype=np.int64), np.iinfo(np.int64).max)
    found = first[:, None] < limits[None, :]
    return np.where(found, 1.0 / (np.minimum(first, 2**52)[:, None] + 1.0), 0.0)


def ndcg(row_query: np.ndarray, position: np.ndarray, grade: np.ndarray, judged_query: np.ndarray,
         judged_grade: np.ndarray, n_queries: int, cutoffs: Sequence[int]) -> np.ndarray:
    """trec_eval's ndcg / ndcg_cut.k: DCG of the grades > 0 (gain / log2(rank + 1)) over the ideal DCG at k."""
    gain = np.where(grade > 0, grade, 0).astype(np.float64)
    dcg = cutoff_sums(row_query, position, gain / np.log2(position + 2.0), n_queries, cutoffs)
    positive = judged_grade > 0
    ideal_query = judged_query[positive]
    ideal_gain = judged_grade[positive].astype(np.float64)
    ideal_position = np.arange(len(ideal_query)) - np.searchsorted(ideal_query, ideal_query)
    ideal = cutoff_sums(ideal_query, ideal_position, ideal_gain / np.log2(ideal_position + 2.0), n_queries, cutoffs)
    return _divide(dcg, ideal)


def r_precision(row_query: np.ndarray, position: np.ndarray, relevant: np.ndarray, num_rel: np.ndarray,
                n_queries: int) -> np.ndarray:
    """Relevant in the top num_rel over num_rel (0 when num_rel is 0)."""
    inside = relevant & (position < num_rel[row_query])
    return _divide(np.bincount(row_query, weights=inside, minlength=n_queries), num_rel)


def bpref(row_query: np.ndarray, grade: np.ndarray, level: int, num_rel: np.ndarray, num_nonrel: np.ndarray,
          n_queries: int) -> np.ndarray:
    """trec_eval's bpref: unjudged rows skipped; each relevant row adds 1 - min(n, R) / min(N, R), n the judged
    non-relevant rows above it (1 when n == 0); the sum over R (0 when R == 0)."""
    relevant = grade >= level
    nonrelevant = (grade >= 0) & ~relevant
    above = _segment_cumsum(row_query, nonrelevant.astype(np.int64), n_queries) - nonrelevant
    r, n_all = num_rel[row_query], num_nonrel[row_query]
    penalty = _divide(np.minimum(above, r).astype(np.float64), np.minimum(n_all, r).astype(np.float64))
    score = np.where(relevant, np.where(above > 0, 1.0 - penalty, 1.0), 0.0)
    return _divide(np.bincount(row_query, weights=score, minlength=n_queries), num_rel)


def evaluate(measures: Sequence[Measure], *, row_query: np.ndarray, position: np.ndarray, grade: np.ndarray,
             judged_query: np.ndarray, judged_grade: np.ndarray, n_queries: int) -> dict[str, np.ndarray]:
    """Every measure's value per query (float64 arrays of length ``n_queries``), keyed by canonical name.

    The arrays are laid out as the module says. The cutoffs of one family and relevance level are computed
    in one pass, over the judged rows only (the others add nothing to any measure).
    """
    grade = np.asarray(grade, dtype=np.int64)
    # only judged rows add to any measure (an unjudged row weighs 0.0 in every sum, and adding 0.0 to a sum of
    # non-negative terms leaves it bit for bit): the kernels run on them alone, in the same order
    judged_rows = np.flatnonzero(grade != UNJUDGED)
    if len(judged_rows) < len(grade):
        row_query, position, grade = (np.asarray(row_query)[judged_rows], np.asarray(position)[judged_rows],
                                      grade[judged_rows])
    row_query = np.asarray(row_query, dtype=np.int64)
    position = np.asarray(position, dtype=np.int64)
    judged_query = np.asarray(judged_query, dtype=np.int64)
    judged_grade = np.asarray(judged_grade, dtype=np.int64)
    groups: dict[tuple[str, int], list[Measure]] = {}
    for measure in measures:
        family = measure.name if measure.name in ("AP", "RR", "nDCG", "Rprec", "Bpref") else "count"
        groups.setdefault((family, measure.rel), []).append(measure)
    out: dict[str, np.ndarray] = {}
    for (family, level), members in groups.items():
        cuts = sorted({m.cutoff for m in members if m.cutoff is not None})
        column = {k: i for i, k in enumerate(cuts)}
        relevant = grade >= level
        judged = judged_grade >= 0
        num_rel = np.bincount(judged_query, weights=judged_grade >= level, minlength=n_queries)
        if family == "count":
            table = relevant_counts(row_query, position, relevant, n_queries, cuts)
        elif family == "AP":
            table = average_precision(row_query, position, relevant, num_rel, n_queries, cuts)
        elif family == "RR":
            table = reciprocal_rank(row_query, position, relevant, n_queries, cuts)
        elif family == "nDCG":
            table = ndcg(row_query, position, grade, judged_query, judged_grade, n_queries, cuts)
        elif family == "Rprec":
            table = r_precision(row_query, position, relevant, num_rel, n_queries)[:, None]
        else:
            num_nonrel = np.bincount(judged_query, weights=judged & (judged_grade < level), minlength=n_queries)
            table = bpref(row_query, grade, level, num_rel, num_nonrel, n_queries)[:, None]
        for measure in members:
            values = table[:, column[measure.cutoff] if measure.cutoff is not None else -1]
            if measure.name == "P" and measure.cutoff is not None:
                values = values / measure.cutoff
            elif measure.name == "R":
                values = _divide(values, num_rel)
            elif measure.name == "Success":
                values = (values > 0).astype(np.float64)
            out[str(measure)] = np.ascontiguousarray(values, dtype=np.float64)
    return {str(measure): out[str(measure)] for measure in measures}


def swept_measures(measures: str | Sequence[str] | None, ks: list[int]) -> dict[str, list[str]]:
    """``{measure without cutoff: [its canonical name at each k]}`` for ``metrics_at_k``."""
    if measures is None:
        return {}
    names = [measures] if isinstance(measures, str) else list(measures)
    if not names or not all(isinstance(name, str) for name in names):
        raise InvalidParameterError(f"measures must be a trec_eval measure name or a list of them, e.g. ['nDCG', 'P']; "
                                    f"got {measures!r}.")
    cut = [name for name in names if "@" in name]
    if cut:
        raise InvalidParameterError(f"metrics_at_k sets the cutoff of measures from ks, so name them without one: "
                                    f"{cut[0].split('@')[0]!r}, not {cut[0]!r}.")
    swept: dict[str, list[str]] = {}
    for name in names:
        at_k = [str(m) for m in parse_measures([f"{name}@{k}" for k in ks])]
        swept[at_k[0].rsplit("@", 1)[0]] = at_k
    return swept
