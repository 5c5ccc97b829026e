"""``evalframe.gate``: the regression gate on two runs of any kind, decided by :mod:`evalframe.analysis.gate`.

A run is an EvaluationResult (in memory or on Dask), a per-query DataFrame, a
:class:`~evalframe.analysis.protocol.QueryTable`, a path or URL (a results folder, any source's file, a TREC run file
with ``qrels=``), or a reference ``"@last"``, ``"@best:nDCG@10"``, ``"@tag:v3"`` ... to a run of a history store
(``store=``, or ``$EVALFRAME_STORE``; :class:`evalframe.History`). Each run's per-query table of the gated measures is
read as :func:`evalframe.compare` reads it: Haystack's metrics with the metric options given, trec_eval's measures
(``nDCG@10``) of a node with judgments, judge scores with their declared direction.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, cast

import pandas as pd

from .. import _validation as check
from .._locations import is_url
from ..analysis.compare import (is_result, measure_names, on_dask, per_query_table, scores_of_runs, shared_node)
from ..analysis.gate import Verdict, decide, rules_of
from ..analysis.protocol import QueryTable
from ..errors import InvalidParameterError
from ..result import EvaluationResult

__all__ = ["gate", "STORE_VARIABLE", "store_of", "read_run"]

#: The environment variable that names the history store when ``store`` is not given.
STORE_VARIABLE = "EVALFRAME_STORE"


def store_of(store: Any) -> Any:
    """``store``, else ``$EVALFRAME_STORE``, else None."""
    if store is not None:
        return store
    return os.environ.get(STORE_VARIABLE) or None


def _is_ref(run: object) -> bool:
    return isinstance(run, str) and run.startswith("@")


def read_run(run: Any, *, name: str, node: str | None = None, qrels: Any = None, source: str | None = None,
             store: Any = None, storage_options: Mapping[str, Any] | None = None) -> tuple[Any, pd.Series | None]:
    """One run of the gate (or of ``evalframe compare``) as compare takes it, and its query texts when it has them.

    ``"@ref"``: the stored run's :class:`QueryTable` (``History(store).get(ref).run(node)``); a path or URL: the
    result read from it (a results folder, or a source's file, TREC runs judged by ``qrels``); anything else as it is.
    """
    if _is_ref(run):
        where = store_of(store)
        if where is None:
            raise InvalidParameterError(f"run {name!r} is the history reference {run!r}, and no history store is given "
                                        f"(a folder or URL; or set ${STORE_VARIABLE}).", parameter="store")
        # the store's API, imported only for a reference
        from .history import History  # type: ignore[import-untyped,import-not-found,unused-ignore]

        stored = History(where, storage_options=storage_options).get(run)
        table = stored.run(node)
        texts = stored.texts(node)
        return QueryTable(table.table, table.scores, table.name or run), texts
    if isinstance(run, (str, os.PathLike)):
        options: dict[str, Any] = {"storage_options": dict(storage_options)} if (
            storage_options and is_url(run)) else {}
        if qrels is not None:
            return EvaluationResult.from_source(source or "trec", run, qrels=qrels, **options), None
        if source is None and (is_url(run) or Path(run).is_dir() or not Path(run).exists()):
            return EvaluationResult.load(cast(Any, run), progress=False, **options), None
        return EvaluationResult.from_source(source, run, **options), None
    return run, None


def _texts_of(run: Any, node: str | None) -> pd.Series | None:
    """The query text of each query id of a result in memory (``query`` by ``multilabel_id``), else None."""
    if node is None or not is_result(run) or on_dask(run):
        return None
    frame = run[node]
    if "multilabel_id" not in frame.columns or "query" not in frame.columns:
        return None
    first = frame.drop_duplicates("multilabel_id")
    return pd.Series(first["query"].astype(str).to_numpy(), index=first["multilabel_id"].to_numpy())


def _judged_differently(refs: Sequence[Any], tables: Sequence[QueryTable], names: Sequence[str], *, node: str | None,
                        store: Any, storage_options: Mapping[str, Any] | None) -> str | None:
    """Why two stored runs over the same query ids are not comparable: their question sets' fingerprints (the query
    ids and, for TREC nodes, the judgments) differ, so they were judged by different qrels; else None."""
    if not all(_is_ref(ref) for ref in refs):
        return None
    ids = [pd.Index(table.table.index).unique() for table in tables]
    if len(ids[0]) != len(ids[1]) or not ids[0].isin(ids[1]).all():
        return None  # the question sets differ: decide says so
    from .history import History  # type: ignore[import-untyped,import-not-found,unused-ignore]

    history = History(store_of(store), storage_options=storage_options)
    prints = []
    for ref in refs:
        nodes = history.get(ref).meta.get("nodes", {})
        key = node if node in nodes else (next(iter(nodes)) if len(nodes) == 1 else None)
        prints.append(nodes.get(key, {}).get("fingerprint") if key is not None else None)
    if None in prints or prints[0] == prints[1]:
        return None
    shown = [repr(name) if name == ref else f"{name!r} ({ref})" for name, ref in zip(names, refs)]
    return (f"the judgments (question set) differ: {shown[0]} and {shown[1]} have the "
            f"same {len(ids[0])} query ids but different question-set fingerprints (judged by different qrels), so no "
            "query pairs, not even with on_common")


def _name_of(run: Any, fallback: str) -> str:
    if isinstance(run, str) and _is_ref(run):
        return run
    if isinstance(run, (str, os.PathLike)):
        text = str(run).rstrip("/")
        return text.rsplit("/", 1)[-1] or text
    if isinstance(run, QueryTable) and run.name:
        return run.name
    return fallback


def gate(baseline: Any, candidate: Any, *, no_drop: str | Sequence[str] = (),
         margin: Mapping[str, float] | Sequence[str] | None = None,
         minimum: Mapping[str, float] | Sequence[str] | None = None, alpha: float = 0.05, test: str = "t-test",
         correction: str = "holm", on_common: bool = False, node: str | None = None, qrels: Any = None,
         source: str | None = None, store: Any = None, storage_options: Mapping[str, Any] | None = None,
         names: Sequence[str] | None = None, worst: int = 5, rounds: int = 10_000, seed: int = 0,
         complete: bool = True, **metric_params: Any) -> Verdict:
    """The regression gate: does ``candidate`` pass the rules against ``baseline``?

    Parameters
    ----------
    baseline, candidate
        The runs: EvaluationResult (in memory or on Dask), per-query DataFrame (index: the query id), QueryTable, a
        path or URL (a results folder, a source's file, a TREC run file with ``qrels``) or ``"@ref"``, a run of the
        history ``store`` (``@last``, ``@last~1``, ``@best:nDCG@10``, ``@tag:v3``, ...).
    no_drop : str or sequence of str
        The measures that must not drop significantly (the one-sided paired test, corrected over them).
    margin : mapping or sequence of "name=value"
        Non-inferiority margins: the candidate must be shown not worse than the margin.
    minimum : mapping or sequence of "name=value"
        Floors on the candidate's number (ceilings for a lower-is-better measure).
    alpha, test, correction, on_common, worst, rounds, seed
        As :func:`evalframe.analysis.gate.decide` takes them.
    node : str, optional
        The node of results holding several.
    qrels : optional
        The judgments of runs given as TREC run files.
    source : str, optional
        The source of runs given as files (``evalframe flatten --from``'s names); default: detected.
    store : str or path, optional
        The history store of ``"@ref"`` runs; default ``$EVALFRAME_STORE``.
    storage_options : dict, optional
        The filesystem's options of runs, qrels and store given as URLs.
    names : pair of str, optional
        What the runs are called in the verdict (default: the paths' names, the references, ``baseline`` and
        ``candidate``).
    complete : bool
        Score trec_eval's measures of TREC runs as ``trec_eval -c`` does (default): a query of the qrels a run did not
        retrieve scores 0, so a query the candidate lost is a regression. With False it is unscored (NaN) and not
        paired; each rule's reason says how many queries one run did not score.
    **metric_params
        The metric options of results (``simulated_top_k_retriever=3``, ...).

    Returns
    -------
    Verdict
        ``verdict.status`` (``"pass"``, ``"fail"``, ``"undecided"``), ``verdict.exit_code`` (0, 1, 2), each rule's
        outcome; :func:`evalframe.report.verdict.render_verdict` lays it out.

    Raises
    ------
    InvalidParameterError
        No rule, a bad rule, a measure neither run has, an unknown node, a reference without a store.

    Examples
    --------
    >>> from evalframe import gate, load_demo_result
    >>> result = load_demo_result()
    >>> verdict = gate(result.query_metrics("Retriever", simulated_top_k_retriever=5),
    ...                result.query_metrics("Retriever", simulated_top_k_retriever=1),
    ...                no_drop="recall_single_hit", names=("top5", "top1"))
    >>> verdict.status, verdict.exit_code  # 2 of 8 queries lose their hit: not significant at 0.05
    ('pass', 0)
    >>> round(verdict.outcomes[0].delta, 4)
    -0.25
    """
    rules = rules_of(no_drop, margin, minimum)  # checked before any run is read
    complete = check.check_real_bool(complete, name="complete")
    if names is not None and (isinstance(names, str) or len(names) != 2 or len({str(n) for n in names}) != 2):
        raise InvalidParameterError(f"names must be two distinct names, the baseline's and the candidate's; got "
                                    f"{names!r}.", parameter="names")
    shown = ([str(n) for n in names] if names is not None else
             [_name_of(baseline, "baseline"), _name_of(candidate, "candidate")])
    if shown[0] == shown[1]:
        shown = ["baseline", "candidate"]
    read = [read_run(run, name=name, node=node, qrels=qrels, source=source, store=store,
                     storage_options=storage_options) for run, name in zip((baseline, candidate), shown)]
    runs = [run for run, _ in read]
    for run, name in zip(runs, shown):
        if not (is_result(run) or on_dask(run) or isinstance(run, (pd.DataFrame, QueryTable))):
            raise InvalidParameterError(
                f"run {name!r} must be an EvaluationResult, a per-query DataFrame, a QueryTable, a path or URL, or a "
                f"history reference '@...'; got {type(run).__name__}.")
    chosen = shared_node(runs, node)
    measures = list(dict.fromkeys(rule.measure for rule in rules))
    _, trec = measure_names(measures)
    declared = scores_of_runs(runs)
    tables = []
    for run, name in zip(runs, shown):
        if isinstance(run, QueryTable):
            tables.append(run)
            continue
        table = per_query_table(run, chosen, dict(metric_params), name, trec,
                                {"complete": complete, "duplicates": "error"})
        tables.append(QueryTable(table, {key: value for key, value in declared.items() if key in table.columns},
                                 name))
    texts = [given if given is not None else _texts_of(run, chosen) for run, (_, given) in zip(runs, read)]
    found = [t for t in texts if t is not None]
    joined = None
    if found:
        joined = found[0] if len(found) == 1 else found[0].combine_first(found[1])
        joined = joined[~joined.index.duplicated()]
    differ = _judged_differently((baseline, candidate), tables, shown, node=chosen or node, store=store,
                                 storage_options=storage_options)
    return decide(tables[0], tables[1], rules, alpha=alpha, test=test, correction=correction, on_common=on_common,
                  names=(shown[0], shown[1]), node=chosen, worst=worst, rounds=rounds, seed=seed, texts=joined,
                  judgments_differ=differ)
