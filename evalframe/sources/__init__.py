"""Labels and pipeline outputs -> one DataFrame per node (Haystack 1.x's ``Pipeline.eval``)."""
