"""The recall evaluators of other frameworks (Haystack 2.x, LangChain, LlamaIndex, REMem), with their numbers."""

from .recall import (
    DocumentRecallEvaluator,
    RecallMode,
    RetrievalNDCGAny,
    RetrievalRecall,
    RetrievalRecallAll,
    RetrieverRecall,
)

__all__ = [
    "DocumentRecallEvaluator",
    "RecallMode",
    "RetrievalNDCGAny",
    "RetrievalRecall",
    "RetrievalRecallAll",
    "RetrieverRecall",
]
