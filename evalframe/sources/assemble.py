"""Labels and pipeline outputs -> what a result is made of (:class:`Built`): the node frames, the scores attached to
them and declared, the matching options recorded, the queries left out.

Every source returns a :class:`Built`, never a result: a runs file and every foreign format (through
:func:`evalframe.sources.records.build`) come here, TREC files build their node as codes
(:func:`evalframe.sources.trec.read_trec`); :class:`evalframe.EvaluationResult` is constructed from it
(``EvaluationResult(built)``). Messages name each entry as its source names it (:class:`EntryNames`: a runs file's
``file:line``, a table's ``row 3``), handed in with the entries, never rewritten afterwards.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from .._validation import did_you_mean, short_repr
from ..errors import InvalidParameterError
from ..frames.codings import Codings
from ..frames.pending import PendingFrame
from ..frames.repeats import is_repetitions
from ..frames.score_values import score_values
from ..frames.scores import attach_scores, check_score_names
from ..metrics.registry import Metric, score_measure
from ..options import MatchingOptions, with_options
from ..schema import Skipped
from .flatten import EntryNames, entry_scores, flatten, multilabel_ids, unlabelled_entries

__all__ = ["Built", "assemble", "checked_skipped", "NO_LABEL", "recorded_matching"]

#: Why an entry (a record) without any gold is left out (``Skipped.reason``).
NO_LABEL = "no label: no gold document and no gold answer"


@dataclass(frozen=True)
class Built:
    """What a source built: the frames of a result and what goes with them (``EvaluationResult(built)``).

    Parameters
    ----------
    frames : dict of str to DataFrame or PendingFrame
        One per node (a :class:`~evalframe.frames.pending.PendingFrame` for a node held as columns: ``from_trec``'s).
    codings : Codings, optional
        What the source knows of its frames' coding (:class:`~evalframe.frames.codings.Codings`).
    scores : dict of str to Metric
        The declarations of the scores the frames hold as ``scores.<name>`` columns.
    matching : dict, optional
        The matching options the frames were built with (saved in ``evalframe.json``).
    skipped : tuple of Skipped
        The queries of the source left out, each where and why (:class:`evalframe.schema.Skipped`).

    Examples
    --------
    >>> import pandas as pd
    >>> from evalframe import EvaluationResult
    >>> built = Built({"Retriever": pd.DataFrame({"multilabel_id": ["q1"], "type": ["document"], "rank": [1]})})
    >>> list(EvaluationResult(built))
    ['Retriever']
    """

    frames: Mapping[str, pd.DataFrame | PendingFrame]
    codings: Codings | None = None
    scores: Mapping[str, Metric] = field(default_factory=dict)
    matching: Mapping[str, Any] | None = None
    skipped: tuple[Skipped, ...] = ()


def checked_skipped(skipped: Any) -> tuple[Skipped, ...]:
    """``skipped=`` as a tuple of :class:`~evalframe.schema.Skipped` (None: none), each checked.

    Examples
    --------
    >>> checked_skipped([Skipped("row 2", "no label")])
    (Skipped(where='row 2', reason='no label'),)
    """
    if skipped is None:
        return ()
    if isinstance(skipped, (str, bytes, Mapping)) or not isinstance(skipped, Sequence) or not all(
            isinstance(item, Skipped) and isinstance(item.where, str) and isinstance(item.reason, str)
            for item in skipped):
        raise InvalidParameterError(f"skipped must be a list of evalframe.schema.Skipped(where, reason); got "
                                    f"{short_repr(skipped)}.", parameter="skipped")
    return tuple(skipped)


def recorded_matching(options: MatchingOptions, sas_model: Any) -> dict[str, Any]:
    """The matching options as ``evalframe.json`` records them, with the SAS model (a callable: its name).

    Examples
    --------
    >>> recorded_matching(MatchingOptions(), None)["sas_model"] is None
    True
    """
    return {**options.as_dict(),
            "sas_model": sas_model if isinstance(sas_model, str) or sas_model is None
            else getattr(sas_model, "__qualname__", type(sas_model).__name__)}


@with_options(MatchingOptions)
def assemble(
    labels: Sequence[Any],
    node_outputs: Mapping[str, Mapping[str, Sequence[Sequence[Any]]]],
    *,
    sas_model: str | Callable[[list[str], list[str]], Sequence[float]] | None = None,
    progress: bool | None = None,
    keep_scores: bool = False,
    meta: Sequence[Mapping[str, Any] | None] | None = None,
    scores: Mapping[str, Mapping[str, Sequence[float | None]]] | None = None,
    score_measures: Mapping[str, Metric] | None = None,
    skipped: Sequence[Skipped] | None = None,
    names: Sequence[str] | None = None,
    **matching: Any,
) -> Built:
    """Build the node frames from gold labels and pipeline outputs, as Haystack 1.x's ``Pipeline.eval``.

    Parameters
    ----------
    labels : list
        One entry per query: a ``MultiLabel``, a list of ``Label`` objects or Label dicts, or a
        MultiLabel dict; an entry without labels is left out with a warning, and recorded in ``result.skipped``.
    node_outputs : dict
        ``{node: {"documents": [...], "answers": [...], "documents_isolated": [...],
        "answers_isolated": [...]}}``, each a list with one ranked list of ``Document`` /
        ``Answer`` objects (or their dicts) per label. The ``*_isolated`` outputs are evaluated
        with ``eval_mode="isolated"``.
    context_matching_threshold, context_matching_min_length, context_matching_boost_split_overlaps,
    custom_document_id_field
        Keyword arguments: how texts are matched, see :class:`evalframe.options.MatchingOptions`.
    sas_model : callable or str, optional
        ``(predictions, golds) -> scores`` or a sentence-transformers model name
        (``pip install "evalframe[sas]"``); adds the ``sas`` columns.
    progress : bool, optional
        Show progress bars (building the rows, scoring the contexts); None shows them where a person
        watches: stderr is a terminal or the code runs in a Jupyter / IPython kernel.
    keep_scores : bool
        True adds a float64 ``score`` column to the document rows: each ``Document.score`` (NaN where None),
        e.g. for :meth:`to_trec_run`. Off by default, so the columns stay Haystack 1.x's.
    meta : list of dict or None, optional
        Per-query metadata, one JSON object (or None) per entry of ``labels``: kept as its JSON text (keys
        sorted) in a ``meta`` column on every row of the query, sliceable as ``by="meta.<field>"``
        (``docs/runs-format.md#per-query-metadata``). It is not part of ``multilabel_id``: two entries of one query
        with different meta are refused. None: each ``MultiLabel``'s own ``meta`` (a runs file line's
        ``"meta"``, as :func:`evalframe.read_runs` gives it); without any, the frames have no ``meta`` column.
    scores : dict, optional
        Per-query scores computed elsewhere, ``{node: {name: [value per entry of labels]}}`` (None: no value; a
        list of numbers per entry: the score's repetitions, repeated judge runs, ``docs/scores.md#repeated-judge-runs``),
        attached as :meth:`add_scores` does (``docs/scores.md``). None: each ``MultiLabel``'s own ``scores`` (a
        runs file line's ``"scores"``, as :func:`evalframe.read_runs` gives it).
    score_measures : dict of str to Metric, optional
        The scores' declarations (:func:`evalframe.score_measure`: direction, bounds, description); a score not
        named here is declared higher-is-better and unbounded.
    skipped : list of Skipped, optional
        The queries the source of ``labels`` left out before (:class:`evalframe.schema.Skipped`: where and why;
        the sources' ``on_invalid="skip"``): kept as ``result.skipped`` and stated by the reports.
    names : list of str, optional
        How messages (and ``result.skipped``) name each entry of ``labels``: one text per entry (a runs file's
        ``file:line``, a table's ``row 3``); None: ``labels[i]``.

    Returns
    -------
    Built
        What :class:`evalframe.EvaluationResult` is made of (``EvaluationResult.from_runs`` returns the result).

    Raises
    ------
    InvalidParameterError
        Before anything is read or scored, when an option is out of range:
        ``context_matching_threshold`` not a finite number in [0, 100], ``context_matching_min_length``
        not an int >= 0, ``context_matching_boost_split_overlaps`` not a bool (``"no"`` would be truthy),
        ``custom_document_id_field`` neither None nor a non-empty str, ``sas_model`` neither None, a str
        nor a callable.
    EvalframeError
        When labels or node outputs are malformed (the message names the label index, node and field).

    Examples
    --------
    >>> from evalframe import Answer, Document, EvaluationResult, Label
    >>> doc = Document("Berlin is the capital of Germany.", id="d1")
    >>> label = Label("Capital of Germany?", doc, True, True, "gold-label", Answer("Berlin"))
    >>> result = EvaluationResult.from_runs(
    ...     [[label]],
    ...     {"Retriever": {"documents": [[Document("Bonn was the capital.", id="d2"), doc]]},
    ...      "Reader": {"answers": [[Answer("Berlin", document_ids=["d1"])]]}})
    >>> result.calculate_metrics()["Retriever"]["mrr"], result.calculate_metrics()["Reader"]["exact_match"]
    (0.5, 1.0)
    """
    options = MatchingOptions.from_keywords(matching, passed_to="from_runs takes these matching options")
    earlier = checked_skipped(skipped)
    measures = _score_measures(score_measures)
    entries = EntryNames(None if names is None else names)
    frames = flatten(labels, node_outputs, matching=options, sas_model=sas_model, progress=progress,
                     keep_scores=keep_scores, meta=meta, names=entries)
    left_out = tuple(Skipped(entries.label(index), NO_LABEL) for index in unlabelled_entries(labels))
    declared = _attach_entry_scores(frames, labels, scores, measures, entries)
    return Built(frames, scores=declared, matching=recorded_matching(options, sas_model), skipped=earlier + left_out)


def _score_measures(score_measures: Any) -> dict[str, Metric]:
    if score_measures is not None and (not isinstance(score_measures, Mapping) or not all(
            isinstance(m, Metric) and m.family == "score" and m.name == k for k, m in score_measures.items())):
        raise InvalidParameterError("score_measures must be a dict {name: evalframe.score_measure(name, ...)}; got "
                                    f"{short_repr(score_measures)}.", parameter="score_measures")
    return dict(score_measures or {})


def _attach_entry_scores(frames: dict[str, pd.DataFrame], labels: Sequence[Any], scores: Any,
                         measures: dict[str, Metric], names: EntryNames) -> dict[str, Metric]:
    """Attach ``scores`` (or the MultiLabels' own) to ``frames`` (in place), as ``add_scores`` does; their
    declarations: ``measures``' or higher-is-better and unbounded."""
    own = scores is None
    given = entry_scores(labels) if own else scores
    if given and not isinstance(given, Mapping):
        raise InvalidParameterError(f"scores must be a dict {{node: {{name: [value per label entry]}}}}; got "
                                    f"{type(given).__name__}.", parameter="scores")
    named_anywhere = sorted({str(name) for named in (given or {}).values() if isinstance(named, Mapping)
                             for name in named})
    stray = [name for name in measures if name not in named_anywhere]
    if stray:  # a typo would otherwise leave the score undeclared: higher-is-better, wins and losses swapped
        raise InvalidParameterError(
            f"score_measures declares {stray[0]!r}, which no entry's scores name (they name {named_anywhere}); "
            "declare the scores the runs give (evalframe flatten --score NAME:...)."
            f"{did_you_mean(stray[0], named_anywhere)}",
            parameter="score_measures")
    if not given:
        return {}
    ids = multilabel_ids(labels)
    declared: dict[str, Metric] = {}
    for node, named in given.items():
        if node not in frames:
            raise InvalidParameterError(f"scores names node {node!r}, which the result does not have (nodes: "
                                        f"{list(frames)}).", parameter="scores")
        if not isinstance(named, Mapping):
            raise InvalidParameterError(f"scores[{node!r}] must be a dict {{name: [value per label entry]}}; got "
                                        f"{type(named).__name__}.", parameter="scores")
        check_score_names(str(name) for name in named)  # before a frame is built of them
        columns: dict[str, np.ndarray] = {}
        repeated: dict[str, pd.DataFrame] = {}
        for name, values in named.items():
            if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Sequence) \
                    or len(values) != len(ids):
                raise InvalidParameterError(
                    f"scores[{node!r}][{name!r}] must be a list with one value (or None) per entry of labels "
                    f"({len(ids)}); got {short_repr(values)}.", parameter="scores")

            def where(i: int, n: str = node, s: str = str(name)) -> str:
                # a MultiLabel's own scores (a runs file's were read by the same rule, naming file:line)
                return f"{names.label(i)}.scores[{n!r}][{s!r}]" if own else f"scores[{n!r}][{s!r}][{i}]"

            if any(map(is_repetitions, values)):
                repeated[str(name)] = _repetitions_table(str(name), values, ids, where)
            else:
                columns[str(name)] = score_values(values, where=where, parameter="scores")

        def declare(name: str, level: str) -> Metric:
            found = measures.get(name)
            return found if found is not None else score_measure(name, level=level)

        def entry(row: int, index: Any, n: str = node) -> str:
            return f"{names.label(index)}: scores of node {n!r}"

        if columns:
            table = pd.DataFrame({"multilabel_id": ids, **columns}, index=pd.RangeIndex(len(ids)))
            table = _one_row_per_query(table[table["multilabel_id"].notna()], node, names)
            frames[node], attached = attach_scores(frames[node], table, declare, node=node, naming=entry)
            declared.update(attached)
        for long in repeated.values():
            frames[node], attached = attach_scores(frames[node], long, declare, node=node, naming=entry,
                                                   repetition=_REPETITION)
            declared.update(attached)
    return declared


#: The column of the long table of a score with repetitions saying which repetition a row is (no score's name).
_REPETITION = " repetition"


def _repetitions_table(name: str, values: Sequence[Any], ids: Any, where: Callable[[int], str]) -> pd.DataFrame:
    """A score given as a list per entry (repeated judge runs) as ``add_scores``' long table: one row per (entry,
    repetition), indexed by the entry (errors name it); an entry giving one number, not a list, is refused."""
    cells = pd.Series(list(values), dtype=object)
    listed = cells.map(is_repetitions).to_numpy(dtype=bool)
    numbers = np.flatnonzero(~listed & cells.notna().to_numpy(dtype=bool))
    if len(numbers):
        i, j = int(numbers[0]), int(np.flatnonzero(listed)[0])
        raise InvalidParameterError(
            f"{where(j)} gives a list of repetitions ({short_repr(values[j])}) and {where(i)} one value "
            f"({short_repr(values[i])}): a score is given either as a list per query (repeated judge runs: one number "
            "per repetition; None: none) or as one number per query; give every entry's value in one form.",
            parameter="scores")
    sizes = np.zeros(len(cells), dtype=np.int64)
    sizes[listed] = cells[listed].map(len).to_numpy(dtype=np.int64)
    flat = np.fromiter((v for cell in cells[listed] for v in cell), dtype=object, count=int(sizes.sum()))
    owner = np.repeat(np.arange(len(sizes)), sizes)
    repetition = np.arange(len(flat)) - np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.int64)[owner]
    read = score_values(flat, where=lambda p: f"{where(int(owner[p]))}[{int(repetition[p])}]", parameter="scores")
    entry_ids = np.asarray(ids, dtype=object)[owner]
    long = pd.DataFrame({"multilabel_id": entry_ids, _REPETITION: repetition, name: read}, index=pd.Index(owner))
    return long[pd.notna(entry_ids)]


def _one_row_per_query(table: pd.DataFrame, node: str, names: EntryNames) -> pd.DataFrame:
    """The entries of one query (sharded runs) merged: each score's value, the one given (entries that give two
    different values are refused, naming both)."""
    if not table["multilabel_id"].duplicated().any():
        return table
    values = table.drop(columns="multilabel_id")
    grouped = values.groupby(table["multilabel_id"].to_numpy(), sort=False)
    varying = (grouped.nunique(dropna=True) > 1).stack()
    if varying.any():
        key, column = varying[varying].index[0]
        given = table.index[(table["multilabel_id"] == key).to_numpy() & values[column].notna().to_numpy()]
        raise InvalidParameterError(
            f"scores[{node!r}][{column!r}]: {names.label(given[0])} and {names.label(given[1])} are one query "
            f"(multilabel_id {key!r}) with different values ({values.at[given[0], column]!r} and "
            f"{values.at[given[1], column]!r}).", parameter="scores")
    merged = grouped.first()  # each score's value given by some entry of the query (None: none gives one)
    firsts = table.index[~table["multilabel_id"].duplicated().to_numpy()]  # errors name the query's first entry
    return pd.DataFrame({"multilabel_id": merged.index.to_numpy(dtype=object),
                         **{column: merged[column].to_numpy(dtype=object) for column in merged.columns}},
                        columns=table.columns).set_axis(firsts)
