"""Semantic answer similarity (``docs/runs-format.md#arguments``): a callable, or a sentence-transformers model loaded lazily.

The flattener gathers every (prediction, gold answer) pair of the whole build and scores the
distinct ones in one call; nothing is scored per query.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence

from ..errors import EvalframeError

__all__ = ["SasScorer", "resolve_sas_model"]

SasModel = Callable[[list[str], list[str]], Sequence[float]]
SasScorer = Callable[[list[tuple[str, str]]], list[float]]


def resolve_sas_model(sas_model: str | SasModel | None, *, batch_size: int = 32) -> SasScorer | None:
    """A function scoring (prediction, gold) pairs, from a callable or a model name; None for no SAS.

    A callable receives ``(predictions, golds)`` (two equally long lists of distinct pairs) and must
    return one number per pair. A string names a sentence-transformers model: a cross-encoder (its
    config's architecture ends with ``ForSequenceClassification``) scores pairs with ``predict``; a
    bi-encoder gives the cosine similarity of the two embeddings.

    Examples
    --------
    >>> score = resolve_sas_model(lambda p, g: [float(a == b) for a, b in zip(p, g)])
    >>> score([("Berlin", "Berlin"), ("Bonn", "Berlin")])
    [1.0, 0.0]
    """
    if sas_model is None:
        return None
    if callable(sas_model):
        model = sas_model
    elif isinstance(sas_model, str):
        model = _sentence_transformers_model(sas_model, batch_size)
    else:
        raise EvalframeError(
            f"sas_model must be a callable (predictions, golds) -> scores or a sentence-transformers model name; "
            f"got {type(sas_model).__name__}."
        )

    def score(pairs: list[tuple[str, str]]) -> list[float]:
        distinct = list(dict.fromkeys(pairs))
        try:
            values = list(model([p for p, _ in distinct], [g for _, g in distinct]))
        except EvalframeError:
            raise
        except Exception as exc:  # the user's model: say which step failed, keep its traceback chained
            raise EvalframeError(
                f"sas_model failed on {len(distinct)} (prediction, gold) pairs: {type(exc).__name__}: {exc}"
            ) from exc
        if len(values) != len(distinct):
            raise EvalframeError(
                f"sas_model returned {len(values)} scores for {len(distinct)} (prediction, gold) pairs; it must return "
                "one number per pair."
            )
        bad = [v for v in values if isinstance(v, bool) or not isinstance(v, numbers.Real) or math.isnan(float(v))]
        if bad:
            raise EvalframeError(f"sas_model must return numbers; got {bad[0]!r}.")
        by_pair = dict(zip(distinct, (float(v) for v in values)))
        return [by_pair[pair] for pair in pairs]

    return score


def _sentence_transformers_model(name: str, batch_size: int) -> SasModel:
    try:
        import sentence_transformers
    except ImportError:
        raise EvalframeError(
            f"sas_model={name!r} needs sentence-transformers: pip install \"evalframe[sas]\" "
            "(or pass a callable (predictions, golds) -> scores).", parameter="sas_model",
        ) from None
    cross_encoder = False
    try:
        from transformers import AutoConfig

        architectures = AutoConfig.from_pretrained(name).architectures or []
        cross_encoder = any(a.endswith("ForSequenceClassification") for a in architectures)
    except Exception as exc:  # noqa: BLE001 - any failure to read the config is reported the same way
        raise EvalframeError(f"cannot load the SAS model {name!r}: {exc}") from exc
    if cross_encoder:
        encoder = sentence_transformers.CrossEncoder(name)

        def predict(predictions: list[str], golds: list[str]) -> list[float]:
            return [float(s) for s in encoder.predict(list(zip(predictions, golds)), batch_size=batch_size)]

        return predict
    bi_encoder = sentence_transformers.SentenceTransformer(name)

    def cosine(predictions: list[str], golds: list[str]) -> list[float]:
        texts = list(dict.fromkeys(predictions + golds))
        vectors = bi_encoder.encode(texts, batch_size=batch_size, convert_to_numpy=True, normalize_embeddings=True)
        index = {text: i for i, text in enumerate(texts)}
        return [float(vectors[index[p]] @ vectors[index[g]]) for p, g in zip(predictions, golds)]

    return cosine
