"""What save accepts, load reads back exactly; what load would refuse, save refuses first (issue 24, items 5 and 7).

Every refusal is checked to leave no folder behind (nor the parent folders it would have made) and an old folder
byte for byte as it was.
"""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evalframe import EvaluationResult, InvalidParameterError, LoadError, SaveError
from evalframe.io import arrow_csv
from evalframe.io.literals import LITERAL_CELL_LIMIT
from evalframe.present.cli import main


def _texts_and_floats() -> pd.DataFrame:
    """Only text, literal and float64 columns, so pyarrow's reader takes the file (when it takes the separator)."""
    return pd.DataFrame({
        "multilabel_id": ["q1", "q,2", "q;3"],
        "context": ['a "quoted" text,\r\nwith; tabs\t|pipes|', "é ü \u2028 \x85 \ufeff 😀 0.5 nan", ""],
        "score": [0.5, math.nan, -0.0],
        "gold_document_ids": [["d1"], [], ["d'2", 'd"3', "e,f"]],
        "answer": ["x", None, "y"],
    })


def _with_ints() -> pd.DataFrame:
    """An int64 and a bool column besides: pandas' reader reads the file."""
    return _texts_and_floats().assign(rank=[1, 2, 3], flag=[True, False, True])


def _assert_refused_without_writing(tmp_path: Path, save, error, message: str) -> None:
    """``save(folder)`` raises ``error`` matching ``message`` for a new folder (none is made, nor its parent) and
    for an existing one (left byte for byte as it was)."""
    with pytest.raises(error, match=message):
        save(tmp_path / "parent" / "new")
    assert not (tmp_path / "parent").exists()
    old = EvaluationResult({"N": _texts_and_floats()}).save(tmp_path / "old")
    before = {p.name: p.read_bytes() for p in old.iterdir()}
    with pytest.raises(error, match=message):
        save(old)
    assert {p.name: p.read_bytes() for p in old.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old"]  # no staging folder left beside it


# ------------------------------------------------------------------------------ item 5 (b): separators
#: One-character separators save takes: each must load back exactly, with either reader.
ACCEPTED_SEPARATORS = [",", ";", "\t", "|", " ", "#", "'", "\\", "a", "0", ".", "e", "é", "\x00", "\x01", "\x85",
                       "\u2028", "\ufeff", "😀"]


@pytest.mark.parametrize("sep", ACCEPTED_SEPARATORS)
@pytest.mark.parametrize("quoting", [None, csv.QUOTE_MINIMAL, csv.QUOTE_ALL])
def test_every_separator_save_accepts_loads_back_exactly(tmp_path, sep, quoting):
    options = {"sep": sep} if quoting is None else {"sep": sep, "quoting": quoting}
    for name, frame in (("arrow", _texts_and_floats()), ("pandas", _with_ints())):
        folder = EvaluationResult({"N": frame}).save(tmp_path / name, **options)
        pd.testing.assert_frame_equal(EvaluationResult.load(folder)["N"], frame, check_exact=True)


def test_a_separator_arrow_cannot_take_is_left_to_pandas(tmp_path):
    # Arrow's delimiter is one ASCII byte other than NUL; any other raised a bare ValueError from inside pyarrow
    frame = _texts_and_floats()
    for sep in ("é", "\x00", "\u2028"):
        folder = EvaluationResult({"N": frame}).save(tmp_path / repr(sep), sep=sep)
        with open(folder / "N.csv", "rb") as source:
            manifest = json.loads((folder / "evalframe.json").read_text(encoding="utf-8"))
            assert arrow_csv.read_csv(source, folder / "N.csv", manifest["nodes"]["N"]["columns"], manifest["csv"],
                                      {}) is None


@pytest.mark.parametrize("sep, why", [
    ("\n", "the quote and the line breaks delimit cells and rows"),
    ("\r", "the quote and the line breaks delimit cells and rows"),
    ('"', "the quote and the line breaks delimit cells and rows"),
    ("", "it has 0 characters"),
    (";;", "it has 2 characters"),
    (None, "it is a NoneType, not a str"),
    (1, "it is a int, not a str"),
])
def test_a_separator_load_would_refuse_is_refused_by_save_naming_sep(tmp_path, sep, why):
    message = rf"save\(sep={_escaped(sep)}\): sep must be one character other than .*{why}\. Pass e\.g\. sep=','"
    _assert_refused_without_writing(
        tmp_path, lambda folder: EvaluationResult({"N": _texts_and_floats()}).save(folder, sep=sep), SaveError, message)


def test_a_separator_the_encoding_cannot_write_is_refused_before_writing(tmp_path):
    _assert_refused_without_writing(
        tmp_path, lambda folder: EvaluationResult({"N": _texts_and_floats()}).save(folder, sep="é", encoding="ascii"),
        SaveError, r"save\(sep='é', encoding='ascii'\): the separator cannot be written in that encoding")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sep=st.characters())
def test_any_one_character_separator_is_refused_by_save_or_loads_back_exactly(tmp_path_factory, sep):
    frame = _texts_and_floats()
    folder = tmp_path_factory.mktemp("sep") / "out"
    try:
        EvaluationResult({"N": frame}).save(folder, sep=sep)
    except SaveError as exc:
        assert "save(sep=" in str(exc) and not folder.exists()
        return
    pd.testing.assert_frame_equal(EvaluationResult.load(folder)["N"], frame, check_exact=True)


# ------------------------------------------------------------------------------ item 5 (b): quoting
@pytest.mark.parametrize("quoting", [csv.QUOTE_NONNUMERIC, csv.QUOTE_ALL, csv.QUOTE_MINIMAL])
def test_every_quoting_save_accepts_loads_back_exactly(tmp_path, quoting):
    for name, frame in (("arrow", _texts_and_floats()), ("pandas", _with_ints())):
        folder = EvaluationResult({"N": frame}).save(tmp_path / name, quoting=quoting)
        pd.testing.assert_frame_equal(EvaluationResult.load(folder)["N"], frame, check_exact=True)


@pytest.mark.parametrize("quoting", [4, 5, 7, -1, True, 1.0, "all", None])
def test_an_unknown_quoting_is_refused_before_writing_naming_quoting(tmp_path, quoting):
    message = (rf"save\(quoting={_escaped(quoting)}\): quoting must be one of csv.QUOTE_NONNUMERIC, csv.QUOTE_ALL, "
               r"csv.QUOTE_MINIMAL")
    _assert_refused_without_writing(
        tmp_path, lambda folder: EvaluationResult({"N": _texts_and_floats()}).save(folder, quoting=quoting),
        SaveError, message)


# ------------------------------------------------------------------------------ item 5 (a): long literal cells
_LONG = "x" * (LITERAL_CELL_LIMIT + 10)


@pytest.mark.parametrize("format", ["csv", "parquet"])
@pytest.mark.parametrize("column, cells, row, fix", [
    # None and "" in one text column: its cells are written as literals, a long text as one long string literal
    ("context", ["short", None, _LONG, ""], 3, "give the column one kind of missing value"),
    ("context", ["a\x00" + _LONG], 1, "no NUL character"),
    # lone surrogates are written as a literal; JSON would join the escaped pair into one character (was: loaded back
    # one character short, with no error)
    ("context", ["it's " + _LONG + "\ud83d\ude00"], 1, "or lone surrogate"),
    ("context", ["a/b " + _LONG + "\ud800"], 1, "or lone surrogate"),
    ("meta", [None, {"text": _LONG}], 2, "store it as a list of strings or of numbers"),
    ("flags", [[True, False] * (LITERAL_CELL_LIMIT // 10)], 1, "store it as a list of strings or of numbers"),
])
def test_a_long_literal_cell_load_would_refuse_is_refused_by_save(tmp_path, format, column, cells, row, fix):
    frame = pd.DataFrame({column: pd.Series(cells, dtype=object)})
    length = len(repr(cells[row - 1]))
    assert length > LITERAL_CELL_LIMIT
    message = (rf"node 'N', column '{column}', row {row}: the cell is written as a Python literal of {length:,} "
               rf"characters, and load reads literals over 1,048,576 characters \(1 MiB\) only when .*{fix}")
    if format == "parquet" and column == "flags":  # a list of bools is stored as a Parquet list: no literal
        folder = EvaluationResult({"N": frame}).save(tmp_path / "out", format=format)
        pd.testing.assert_frame_equal(EvaluationResult.load(folder)["N"], frame, check_exact=True)
        return
    _assert_refused_without_writing(
        tmp_path, lambda folder: EvaluationResult({"N": frame}).save(folder, format=format), SaveError, message)


def test_a_long_literal_cell_is_refused_in_a_partitioned_save_naming_the_nodes_row(tmp_path):
    frame = pd.DataFrame({"multilabel_id": ["q1", "q2", "q3"], "meta": pd.Series([None, None, {"t": _LONG}])})
    _assert_refused_without_writing(
        tmp_path, lambda folder: EvaluationResult({"N": frame}).save(folder, format="parquet", partitions=2),
        SaveError, r"node 'N', column 'meta', row 3: the cell is written as a Python literal")


@pytest.mark.parametrize("format", ["csv", "parquet"])
def test_long_literal_cells_load_reads_are_saved_and_load_back(tmp_path, format):
    strings = [_LONG, "it's", 'say "hi"\n']  # a list of strings: read string by string
    numbers = [[i, i + 0.5] for i in range(100_000)]  # numbers and lists: read as JSON
    frame = pd.DataFrame({"gold_contexts": pd.Series([strings, None, strings]),
                          "nested": pd.Series([numbers, [], None])})
    assert len(repr(strings)) > LITERAL_CELL_LIMIT and len(repr(numbers)) > LITERAL_CELL_LIMIT
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out", format=format)
    loaded = EvaluationResult.load(folder)["N"]
    assert loaded["gold_contexts"][0] == strings and loaded["nested"][0] == numbers
    pd.testing.assert_frame_equal(loaded, frame, check_exact=True)


def test_loads_refusal_of_a_long_literal_is_worded_once(tmp_path):
    # the refusal (a LoadError, so a ValueError) was caught again as a parse error and wrapped in a second message
    frame = pd.DataFrame({"meta": pd.Series([{"k": "short"}])})
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out")
    path = folder / "N.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("'short'", "'" + "y" * LITERAL_CELL_LIMIT + "'"),
                    encoding="utf-8")
    with pytest.raises(LoadError) as caught:
        EvaluationResult.load(folder)
    cell = "{'k': '" + "y" * LITERAL_CELL_LIMIT + "'}"
    assert str(caught.value).startswith(f"{path}: data row 1, column 'meta': the cell holds {len(cell)} characters; ")
    assert "cannot parse" not in str(caught.value) and str(caught.value).count(str(path)) == 1


# ------------------------------------------------------------------------------ item 7: encodings and paths
@pytest.mark.parametrize("encoding, why", [
    ("rot13", "it is a transform for codecs.encode, not a text encoding"),
    ("hex", "it is a transform for codecs.encode, not a text encoding"),
    ("nope", "it is not an encoding Python knows"),
    ("", "it is not an encoding Python knows"),
    ("utf-8\x00", "it is not an encoding Python knows"),
    (None, "an encoding is a name, not a NoneType"),
    (8, "an encoding is a name, not a int"),
    ("idna", r"it rewrites the text it encodes \(it is not a character set\)"),
    ("punycode", r"it rewrites the text it encodes \(it is not a character set\)"),
    ("raw_unicode_escape", r"it rewrites the text it encodes \(it is not a character set\)"),
    ("undefined", "it cannot encode text"),
])
def test_an_encoding_that_is_no_text_encoding_is_refused_naming_encoding(tmp_path, encoding, why):
    message = (rf"save\(encoding={_escaped(encoding)}\): encoding must name a text encoding load reads back exactly; "
               rf"{why}\. Pass e\.g\. encoding='utf-8' \(the default\)\.")
    _assert_refused_without_writing(
        tmp_path, lambda folder: EvaluationResult({"N": _texts_and_floats()}).save(folder, encoding=encoding),
        SaveError, message)


def test_a_misspelt_encoding_is_given_the_close_name(tmp_path):
    with pytest.raises(SaveError, match=r"save\(encoding='utf-9'\): .* Did you mean 'utf-8'\?$"):
        EvaluationResult({"N": _texts_and_floats()}).save(tmp_path / "out", encoding="utf-9")


@pytest.mark.parametrize("encoding", ["utf-8", "UTF8", "utf-8-sig", "utf-16", "utf-32", "utf-7", "unicode_escape",
                                      "gb18030"])
def test_text_encodings_save_accepts_load_back_exactly(tmp_path, encoding):
    frame = _with_ints()
    frame.loc[0, "context"] += " \\u0041 \\n +AGE-"  # typed escapes and UTF-7's shift stay as typed
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out", encoding=encoding)
    pd.testing.assert_frame_equal(EvaluationResult.load(folder)["N"], frame, check_exact=True)


@pytest.mark.parametrize("name", ["out_dir", "load_dir"])
def test_a_path_with_a_nul_character_is_refused_naming_the_parameter(tmp_path, name):
    message = rf"{name} must be a path without a NUL character \(no file system allows one\); got 'a\\x00b'"
    with pytest.raises(InvalidParameterError, match=message):
        if name == "out_dir":
            EvaluationResult({"N": _texts_and_floats()}).save("a\x00b")
        else:
            EvaluationResult.load("a\x00b")
    with pytest.raises(InvalidParameterError, match=name):
        EvaluationResult({"N": _texts_and_floats()}).save(tmp_path / "x\x00") if name == "out_dir" else \
            EvaluationResult.load(tmp_path / "x\x00")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("encoding, why", [
    ("rot13", "it is a transform for codecs.encode, not a text encoding"),
    ("nope", "it is not an encoding Python knows"),
    ("idna", "it rewrites the text it encodes"),
])
def test_a_manifest_whose_csv_encoding_is_no_text_encoding_is_a_load_error(tmp_path, encoding, why):
    folder = EvaluationResult({"N": _texts_and_floats()}).save(tmp_path / "out")
    path = folder / "evalframe.json"
    manifest = json.loads(path.read_text(encoding="utf-8"))
    manifest["csv"]["encoding"] = encoding
    path.write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(LoadError, match=rf"evalframe.json: 'csv' 'encoding' must name a text encoding such as 'utf-8'; "
                                        rf"got '{encoding}' \({why}"):
        EvaluationResult.load(folder)


def test_loads_encoding_argument_is_checked_as_saves(tmp_path):
    folder = EvaluationResult({"N": _texts_and_floats()}).save(tmp_path / "out")
    with pytest.raises(LoadError, match=r"encoding 'rot13' cannot read a CSV file: it is a transform for codecs.encode, "
                                        r"not a text encoding; pass e\.g\. 'utf-8'"):
        EvaluationResult.load(folder, encoding="rot13")


def test_the_command_names_the_encoding_the_user_typed_in_one_line(tmp_path, capsys):
    folder = EvaluationResult({"N": _texts_and_floats()}).save(tmp_path / "folder")
    assert main(["convert", str(folder), str(tmp_path / "out"), "--to", "csv", "--encoding", "rot13"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err == ("error: --encoding 'rot13' cannot read a CSV file: it is a transform for codecs.encode, "
                                 "not a text encoding; pass e.g. 'utf-8', 'utf-8-sig' or 'cp1252'.\n")
    run, qrels = tmp_path / "run.txt", tmp_path / "qrels.txt"
    run.write_text("q1 Q0 d1 1 0.9 tag\n", encoding="utf-8")
    qrels.write_text("q1 0 d1 1\n", encoding="utf-8")
    for extra in ([], ["--qrels", str(qrels)]):  # a TREC run is read without --encoding: the flag is named
        assert main(["convert", str(run), str(tmp_path / "out"), "--to", "csv", "--encoding", "rot13", *extra]) == 1
        out, err = capsys.readouterr()
        assert err == "error: --encoding does not apply when reading a TREC run; see evalframe convert --help.\n"
    assert not (tmp_path / "out").exists()


def _escaped(value: object) -> str:
    """The regular expression of ``repr(value)``."""
    import re

    return re.escape(repr(value))


@pytest.mark.parametrize("sep", ['"', "\n", "\r"])
def test_loads_sep_argument_refuses_the_quote_and_line_breaks_naming_sep(tmp_path, sep):
    # was: a row "holds 25 cells but the header names 47 columns" (the file blamed), or pandas' own ValueError text
    folder = EvaluationResult({"N": _texts_and_floats()}).save(tmp_path / "out")
    with pytest.raises(LoadError, match=r"^sep must be the CSV files' separator, e\.g\. ',' or ';' \(not the quote or a "
                                        r"line break\); got ") as caught:
        EvaluationResult.load(folder, sep=sep)
    assert caught.value.parameter == "sep"
    assert main(["metrics", str(folder), "--sep", sep]) == 1


def test_an_encoding_suggestion_is_one_python_has():
    # was: "not an encoding Python knows ... Did you mean 'mbcs'?" (mbcs exists on Windows only)
    with pytest.raises(SaveError) as caught:
        EvaluationResult({"N": _texts_and_floats()}).save("unused", encoding="mbcs")
    assert "Did you mean 'mbcs'" not in str(caught.value)
    with pytest.raises(SaveError, match=r"Did you mean 'utf-8'\?"):
        EvaluationResult({"N": _texts_and_floats()}).save("unused", encoding="utf8x")


@pytest.mark.parametrize("sep", [";", "m"])
def test_a_sep_other_than_the_recorded_one_is_named_when_the_files_do_not_read_with_it(tmp_path, capsys, sep):
    # was: only "the file was cut or edited" / "its columns differ", blaming a good file for the --sep the user passed
    folder = EvaluationResult({"N": _texts_and_floats()}).save(tmp_path / "out")
    hint = rf"It was read with sep '{sep}', as passed, where evalframe.json records ',': leave sep out unless the files"
    with pytest.raises(LoadError, match=hint) as caught:
        EvaluationResult.load(folder, sep=sep)
    assert caught.value.parameter == "sep"
    assert main(["metrics", str(folder), "--sep", sep]) == 1
    assert capsys.readouterr().err.startswith("error: --sep: ")


@pytest.mark.parametrize("dtype, read_as", [("float16", "0.199951171875"), ("float32", "0.20000000298023224")])
def test_a_narrower_float_dtype_edited_into_evalframe_json_is_refused_not_rounded(tmp_path, dtype, read_as):
    # was: f1 0.85 loaded as 0.8499755859375 with no error (pandas rounds each cell to the recorded dtype)
    folder = EvaluationResult({"N": pd.DataFrame({"f1": [1.0, 0.5, 0.2]})}).save(tmp_path / "out")
    manifest = json.loads((folder / "evalframe.json").read_text(encoding="utf-8"))
    manifest["nodes"]["N"]["columns"][0]["dtype"] = dtype
    (folder / "evalframe.json").write_text(json.dumps(manifest), encoding="utf-8")
    with pytest.raises(LoadError, match=rf"N\.csv: data row 3, column 'f1': 0\.2 is not a {dtype} value \(evalframe\.json "
                                        rf"records dtype '{dtype}', which would read it as {read_as}\)"):
        EvaluationResult.load(folder)


def test_narrow_floats_load_back_exactly(tmp_path):
    frame = pd.DataFrame({"half": pd.Series([0.1, 1 / 3, 2.0], dtype="float16"),
                          "single": pd.Series([0.1, float("nan"), float("inf")], dtype="float32"),
                          "nullable": pd.array([0.1, None, 1 / 3], dtype="Float32")})
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out")
    pd.testing.assert_frame_equal(EvaluationResult.load(folder)["N"], frame, check_exact=True)
