"""The dialect of evalframe's CSV files: the separators, encodings and quotings a save may write, and load read back.

:func:`save_options` refuses a save's options load could not read back exactly; :func:`encoding_problem` and
:func:`separator_problem` say why an encoding or a separator cannot be a CSV file's (save, the manifest check and
load's ``encoding`` share them); :func:`close_encoding` suggests the encoding a misspelt name meant.
"""

from __future__ import annotations

import codecs
import csv
from typing import Any

from .._validation import did_you_mean, few_names, short_repr
from ..errors import SaveError

__all__ = ["close_encoding", "codec_name", "encoding_problem", "save_options", "separator_problem"]

#: to_csv options that keep a folder readable by load(): recorded in evalframe.json where load needs them.
_SAVE_OPTIONS = frozenset({"sep", "encoding", "quoting"})


#: The quoting values whose files load reads back exactly, by the names save's messages give them.
_QUOTINGS = {csv.QUOTE_NONNUMERIC: "csv.QUOTE_NONNUMERIC", csv.QUOTE_ALL: "csv.QUOTE_ALL",
             csv.QUOTE_MINIMAL: "csv.QUOTE_MINIMAL"}
#: Python's own encodings that rewrite the text (idna lower-cases "É", raw_unicode_escape reads a typed "\\u0041" as
#: "A", punycode encodes a whole text, not character by character): a file in them does not read back as written.
_TRANSFORMING_ENCODINGS = frozenset({"idna", "punycode", "raw-unicode-escape"})
#: Text a CSV file's encoding must write and read back, character by character (the structure of evalframe's files).
_ENCODING_PROBE = '"multilabel_id","score"\n"q 1",-0.5e+16;\t|\r\n"a ""b"", c",\n'


def encoding_problem(encoding: object) -> str | None:
    """Why ``encoding`` cannot be the encoding of a CSV file evalframe writes or reads, or None when it can.

    It must name a text encoding Python knows (``codecs.lookup``, and ``str.encode`` takes it: not a
    transform such as "rot13" or "base64"), be a character set (not one of Python's transforming encodings such
    as "idna") and write the characters of a CSV file's structure one at a time and read them back one byte at a
    time (as files are written and read in pieces). save, the manifest check and load's ``encoding`` all use it.

    Examples
    --------
    >>> encoding_problem("utf-8") is None and encoding_problem("cp1252") is None
    True
    >>> encoding_problem("rot13")
    'it is a transform for codecs.encode, not a text encoding'
    """
    if not isinstance(encoding, str):
        return f"an encoding is a name, not a {type(encoding).__name__}"
    try:
        name = codecs.lookup(encoding).name
    except (LookupError, ValueError):  # ValueError: a NUL in the name
        return "it is not an encoding Python knows"
    try:
        "".encode(encoding)
    except LookupError:  # str.encode refuses the codecs that are no text encoding
        return "it is a transform for codecs.encode, not a text encoding"
    except (UnicodeError, ValueError):
        return "it cannot encode text"
    if name in _TRANSFORMING_ENCODINGS:
        return "it rewrites the text it encodes (it is not a character set)"
    try:
        encoder = codecs.getincrementalencoder(encoding)()
        data = b"".join(encoder.encode(character) for character in _ENCODING_PROBE) + encoder.encode("", final=True)
        decoder = codecs.getincrementaldecoder(encoding)()
        text = "".join(decoder.decode(data[i:i + 1]) for i in range(len(data))) + decoder.decode(b"", final=True)
    except (UnicodeError, ValueError, TypeError):
        text = None
    if text != _ENCODING_PROBE:
        return "it does not read back the quotes, separators and line breaks of a CSV file"
    return None


def separator_problem(sep: object) -> str | None:
    """Why ``sep`` cannot separate the cells of a CSV file evalframe writes, or None when it can: one character
    other than the quote and the line breaks (save and the manifest check use it)."""
    if not isinstance(sep, str):
        return f"it is a {type(sep).__name__}, not a str"
    if len(sep) != 1:
        return f"it has {len(sep)} characters"
    if sep in '"\r\n':
        return "the quote and the line breaks delimit cells and rows"
    return None


def save_options(to_csv_kwargs: dict[str, Any]) -> dict[str, Any]:
    """The ``sep``, ``encoding`` and ``quoting`` a save writes with, after refusing options load could not read back.

    Examples
    --------
    >>> save_options({"sep": "\\n"})  # doctest: +ELLIPSIS
    Traceback (most recent call last):
      ...
    evalframe.errors.SaveError: save(sep='\\n'): sep must be one character other than '"', '\\r' and '\\n', ...
    """
    unsupported = sorted(set(to_csv_kwargs) - _SAVE_OPTIONS)
    if unsupported:
        raise SaveError(
            f"save() does not take the to_csv option(s) {few_names(unsupported)}: they would write a folder load() cannot read "
            f"back exactly. Supported: {sorted(_SAVE_OPTIONS)}."
        )
    sep = to_csv_kwargs.get("sep", ",")
    encoding = to_csv_kwargs.get("encoding", "utf-8")
    quoting = to_csv_kwargs.get("quoting", csv.QUOTE_NONNUMERIC)
    if type(quoting) is int and quoting == csv.QUOTE_NONE:
        raise SaveError("save() needs quoting (texts hold commas and newlines); drop quoting=csv.QUOTE_NONE.")
    if type(quoting) is not int or quoting not in _QUOTINGS:
        raise SaveError(f"save(quoting={short_repr(quoting)}): quoting must be one of {', '.join(_QUOTINGS.values())} "
                        "(the quotings whose files load reads back exactly); drop quoting= for the default.")
    problem = separator_problem(sep)
    if problem is not None:
        raise SaveError(f"save(sep={short_repr(sep)}): sep must be one character other than '\"', '\\r' and '\\n', or "
                        f"load could not read the folder back; {problem}. Pass e.g. sep=',' (the default) or sep=';'.")
    problem = encoding_problem(encoding)
    if problem is not None:
        raise SaveError(f"save(encoding={short_repr(encoding)}): encoding must name a text encoding load reads back "
                        f"exactly; {problem}. Pass e.g. encoding='utf-8' (the default).{close_encoding(encoding)}")
    try:
        sep.encode(encoding)
    except UnicodeEncodeError:
        raise SaveError(f"save(sep={short_repr(sep)}, encoding={short_repr(encoding)}): the separator cannot be written "
                        "in that encoding; choose another separator (e.g. sep=',') or encoding (e.g. 'utf-8').") from None
    return {"sep": sep, "encoding": encoding, "quoting": quoting}


def codec_name(encoding: str) -> str | None:
    """The name of the codec ``encoding`` names, or None when Python has none by that name."""
    try:
        return codecs.lookup(encoding).name
    except LookupError:
        return None


def close_encoding(encoding: object) -> str:
    """`` Did you mean 'utf-8'?`` for a misspelt encoding name (among Python's names and aliases), else ""."""
    if not isinstance(encoding, str) or "\x00" in encoding:
        return ""
    if codec_name(encoding) is not None:
        return ""  # a real name (e.g. 'rot13'): nothing to correct
    import encodings.aliases

    names = sorted(name for name in set(encodings.aliases.aliases.values()) | {"utf_8", "utf_8_sig", "cp1252", "latin_1"}
                   if codec_name(name) is not None)  # not 'mbcs' off Windows, say: a suggestion must work
    return did_you_mean(encoding.lower().replace("-", "_"), names).replace("_", "-")
