"""Which rows of a group hold equal values, from one 64-bit key per value (no hash table of all the values).

:func:`first_equal_rows` keys Arrow strings from their buffers (:func:`_arrow_string_keys`: every byte, 8 at a
time, through splitmix64's finaliser) and Python objects from their ``hash``; a sort of (group, key) finds the rows
whose keys repeat within their group, and only those are compared exactly. The keys are written here, not taken
from a library: pyarrow.compute has no hash kernel, pandas' ``hash_array`` and a per-value hasher (mmh3) make a
Python string per value, and ``pyarrow.compute.dictionary_encode`` (exact codes, a hash table of every value) was
slower on short ids (docs/performance.md, "The columnar core").
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pyarrow as pa
import pyarrow.compute as pc

from .arrays import arrow_array, is_every_row

__all__ = ["first_equal_rows"]


_MIX = np.uint64(0x9E3779B97F4A7C15)
_MISSING_KEY = np.uint64(0x5BD1E9955BD1E995)


def _avalanche(h: np.ndarray, spare: np.ndarray | None = None) -> np.ndarray:
    """splitmix64's finaliser: every input bit reaches every output bit (in place, uint64 wraps; ``spare``: a buffer)."""
    spare = np.empty_like(h) if spare is None else spare
    for shift, factor in ((30, 0xBF58476D1CE4E5B9), (27, 0x94D049BB133111EB), (31, None)):
        np.right_shift(h, np.uint64(shift), out=spare)
        np.bitwise_xor(h, spare, out=h)
        if factor is not None:
            np.multiply(h, np.uint64(factor), out=h)
    return h


#: the mask keeping the first i bytes of an 8-byte little-endian word, for i = 0..8
_BYTE_MASKS = np.array([(1 << (8 * i)) - 1 for i in range(9)], dtype=np.uint64)



def _arrow_string_keys(array: Any, rows: np.ndarray) -> np.ndarray | None:
    """64-bit hashes of the strings (or bytes) at ``rows`` of a one-chunk Arrow array, read from its buffers.

    Every byte enters the hash, 8 at a time (one pass over the rows per 8 bytes of the longest value, in
    reused buffers: few fresh pages), so equal strings get equal keys; None for other types.
    """
    laid_out = _string_bytes(array)
    if laid_out is None:
        return None
    words, last, starts, lengths = laid_out
    longest = int(lengths.max(initial=0))
    if longest > 65536:
        return None
    n = len(starts)
    keys = lengths.astype(np.uint64)
    keys *= _MIX
    index, word, spare = np.empty(n, dtype=np.int64), np.empty(n, dtype=np.uint64), np.empty(n, dtype=np.uint64)
    shortest = int(lengths.min(initial=0))
    active: np.ndarray | None = None  # None: every row (a value shorter than ``at`` reads 0 bytes)
    for at in range(0, longest, 8):
        active = _rows_left(lengths, at, shortest, active)
        count = n if active is None else len(active)
        idx, got, tmp = index[:count], word[:count], spare[:count]
        _read_words(words, last, starts if active is None else starts[active], at, idx, got, every=active is None)
        own = lengths if active is None else lengths[active]
        if (shortest if active is None else int(own.min(initial=at + 8))) < at + 8:
            _keep_own_bytes(got, own, at, idx, tmp)  # values ending in these 8 bytes keep only their own bytes
        if active is None:
            keys ^= got
            _avalanche(keys, spare)
        else:
            part = keys[active] ^ got
            keys[active] = _avalanche(part, tmp)
    keys = _avalanche(keys, spare)
    return keys if is_every_row(rows, n) else keys[rows]


def _string_bytes(array: Any) -> tuple[np.ndarray, int, np.ndarray, np.ndarray] | None:
    """A string (or binary) Arrow array's bytes as (the 8 bytes from each byte on, as little-endian words; the last
    byte such a word may start at; the start and the length of each value, int64); None for other types."""
    if pa.types.is_string(array.type) or pa.types.is_binary(array.type):
        offset_type: Any = np.int32
    elif pa.types.is_large_string(array.type) or pa.types.is_large_binary(array.type):
        offset_type = np.int64
    else:
        return None
    buffers = array.buffers()
    offsets = np.frombuffer(buffers[1], dtype=offset_type)[array.offset:array.offset + len(array) + 1]
    end = int(offsets[-1])
    if end < 8 or buffers[2] is None:  # a few bytes in all: an 8-byte copy with room to read past the end
        data = np.zeros(16, dtype=np.uint8)
        if buffers[2] is not None and end:
            data[:end] = np.frombuffer(buffers[2], dtype=np.uint8)[:end]
        end = 8
    else:
        data = np.frombuffer(buffers[2], dtype=np.uint8)[:end]
    last = end - 8  # the last byte an 8-byte read may start at
    words = np.ndarray(shape=(last + 1,), dtype="<u8", buffer=data, strides=(1,))  # the 8 bytes from each byte on
    starts = offsets[:-1].astype(np.int64, copy=False)
    lengths = np.diff(offsets).astype(np.int64, copy=False)
    return words, last, starts, lengths


def _rows_left(lengths: np.ndarray, at: int, shortest: int, active: np.ndarray | None) -> np.ndarray | None:
    """The rows whose values go on past byte ``at``, once few are left (None: still every row)."""
    if active is None and at > shortest and 4 * int(np.count_nonzero(lengths > at)) < len(lengths):
        return np.flatnonzero(lengths > at)  # few long values left: only theirs
    if active is not None:
        return active[lengths[active] > at]
    return active


def _read_words(words: np.ndarray, last: int, starts: np.ndarray, at: int, idx: np.ndarray, got: np.ndarray, *,
                every: bool) -> None:
    """Into ``got``: the 8 bytes from byte ``at`` of each value starting at ``starts`` (``idx``: a buffer).

    A read that would pass the end of the data starts earlier, at ``last``, and is shifted down to the bytes asked
    for. ``every``: ``starts`` are every value's, in ascending order (only a tail of them can pass the end).
    """
    count = len(starts)
    np.add(starts, at, out=idx)
    tail = int(np.searchsorted(idx, last, side="right")) if every else count  # offsets ascend
    if not every or tail < count:
        over = np.maximum(idx - last, 0) if not every else idx[tail:] - last
        np.minimum(idx, last, out=idx)
        got[...] = words[idx]  # fancy indexing reads the overlapping view in place (np.take would copy it whole)
        shifted = got if not every else got[tail:]
        shifted >>= np.minimum(over, 7).astype(np.uint64) * np.uint64(8)  # bytes past the end: read earlier, shifted
    else:
        got[...] = words[idx]  # fancy indexing reads the overlapping view in place (np.take would copy it whole)


def _keep_own_bytes(got: np.ndarray, lengths: np.ndarray, at: int, idx: np.ndarray, tmp: np.ndarray) -> None:
    """Clear the bytes of ``got`` (words read from byte ``at``) past the end of each value of ``lengths``
    (``idx``, ``tmp``: buffers, reused so that no fresh pages are touched)."""
    np.subtract(lengths, at, out=idx)
    np.clip(idx, 0, 8, out=idx)
    np.take(_BYTE_MASKS, idx, out=tmp)
    got &= tmp



def _value_keys(series: pd.Series, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray, Any] | None:
    """(64-bit key, missing flag, values) of the rows at ``rows``: equal values get equal keys.

    Values are Arrow strings (keys from the buffers) or Python objects (their ``hash``, which is cached on
    strings); missing values share one key. None for other columns, or cells that cannot be hashed.
    """
    arrow = arrow_array(series)
    if arrow is not None:
        keys = _arrow_string_keys(arrow, rows)
        if keys is None:
            return None
        missing = (arrow.is_null().to_numpy(zero_copy_only=False)[rows] if arrow.null_count
                   else np.zeros(len(rows), dtype=bool))
        keys[missing] = _MISSING_KEY
        return keys, missing, arrow
    values = series.to_numpy()
    if not isinstance(values, np.ndarray) or values.dtype != object:
        return None
    values = values[rows]
    try:
        keys = _avalanche(np.fromiter(map(hash, values), dtype=np.int64, count=len(values)).view(np.uint64))
    except TypeError:  # an unhashable cell: pandas' factorize raises its own error on it
        return None
    missing = pd.isna(values)
    keys[missing] = _MISSING_KEY
    return keys, missing, values


def _values_equal(values: Any, first: np.ndarray, second: np.ndarray, missing: np.ndarray, rows: np.ndarray,
                  is_arrow: bool) -> bool:
    """Whether the values at ``first[i]`` and ``second[i]`` (indices into ``rows``) are equal for every i, as
    pandas' factorize judges them (missing values are all equal)."""
    both_missing = missing[first] & missing[second]
    if (missing[first] != missing[second]).any():
        return False
    first, second = first[~both_missing], second[~both_missing]
    if not len(first):
        return True
    if is_arrow:
        equal = pc.equal(values.take(rows[first]), values.take(rows[second]))
        return bool(pc.all(equal).as_py())
    try:
        equal = values[first] == values[second]
    except (TypeError, ValueError):
        return False
    if not isinstance(equal, np.ndarray) or equal.dtype != bool or not set(map(type, values[first])) <= {str}:
        return False  # only strings are taken on trust of ``==``; other cells go through pandas' factorize
    return bool(equal.all())


def first_equal_rows(series: pd.Series, rows: np.ndarray, groups: np.ndarray) -> np.ndarray | None:
    """For each of ``rows`` (positions in ``series``), the first of the rows (an index into ``rows``) of its group
    holding an equal value, as ``pd.factorize`` judges equality (missing values are all equal).

    ``groups`` are non-negative integer group codes per row (e.g. the query of each row); the work is one
    hash per value from the column's buffers (or the strings' cached hashes), a stable sort of (group, key)
    that is nearly sorted when groups are, and an exact comparison of only the rows whose keys repeat within
    their group. None when the column is not one of Arrow strings or Python objects, or (never seen) two
    different values share a key: then the caller hashes the values themselves.
    """
    n = len(rows)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    found = _value_keys(series, rows)
    if found is None:
        return None
    keys, missing, values = found
    group_bits = max(1, int(groups.max()).bit_length())
    if group_bits > 40:
        return None
    combined = (groups.astype(np.uint64) << np.uint64(64 - group_bits)) | (keys >> np.uint64(group_bits))
    order = np.argsort(combined, kind="stable")  # ties keep row order: a run's head is its first row
    ordered = combined[order]
    repeat = np.flatnonzero(ordered[1:] == ordered[:-1]) + 1
    first = np.arange(n, dtype=np.int64)
    if not len(repeat):
        return first
    new = np.ones(n, dtype=bool)
    new[repeat] = False
    index = np.arange(n)
    head = order[np.maximum.accumulate(np.where(new, index, 0))[repeat]]
    member = order[repeat]
    if not (groups[head] == groups[member]).all() or not _values_equal(values, head, member, missing, rows,
                                                                       is_arrow=not isinstance(values, np.ndarray)):
        return None
    first[member] = head
    return first
