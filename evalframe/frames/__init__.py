"""Node frame -> prepared arrays: row selection, list codings, simulated top-k and the cache."""
