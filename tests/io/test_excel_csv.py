"""CSV files a spreadsheet saved (Excel: semicolons, Windows-1252, UTF-8 with a byte-order mark): a clear error
naming the file and the sep / encoding to pass; loaded with them, the same result."""

from __future__ import annotations

import csv
import io
import re
import shutil
from pathlib import Path

import pandas as pd
import pytest

from evalframe import EvaluationResult, load_demo_result
from evalframe.errors import InvalidParameterError, LoadError
from evalframe.io.csv import check_dialect


def excel_copy(folder: Path, out: Path, *, sep: str, encoding: str, manifest: bool) -> Path:
    """``folder``'s CSV files rewritten as Excel saves them; ``manifest``: keep evalframe.json (else a Haystack folder)."""
    out.mkdir()
    for path in folder.glob("*.csv"):
        with path.open(newline="", encoding="utf-8") as handle:
            rows = list(csv.reader(handle))
        for row in rows[1:]:
            row[:] = [cell.replace("Paris", "Pàris") for cell in row]  # a character outside ASCII
        with (out / path.name).open("w", newline="", encoding=encoding) as handle:
            csv.writer(handle, delimiter=sep).writerows(rows)
    if manifest:
        shutil.copy(folder / "evalframe.json", out / "evalframe.json")
    return out


@pytest.fixture(scope="module")
def saved(tmp_path_factory) -> Path:
    return load_demo_result().save(tmp_path_factory.mktemp("saved") / "result")


CASES = [  # (sep, encoding written, the error's advice, what to pass)
    (";", "cp1252", r"separated by ';', not ','; it is not utf-8 text \(byte \d+ is 0xe0\)\. Load it with sep=';', "
                    r"encoding='cp1252' \(evalframe command: --sep ';' --encoding cp1252\)", {"sep": ";", "encoding": "cp1252"}),
    (";", "utf-8-sig", r"separated by ';', not ','\. Load it with sep=';' \(evalframe command: --sep ';'\)", {"sep": ";"}),
    (",", "cp1252", r"it is not utf-8 text .* Load it with encoding='cp1252' \(evalframe command: --encoding cp1252\)",
     {"encoding": "cp1252"}),
]


@pytest.mark.parametrize("manifest", [True, False], ids=["evalframe folder", "Haystack 1.x folder"])
@pytest.mark.parametrize("sep, encoding, advice, fix", CASES, ids=["semicolon cp1252", "semicolon BOM", "comma cp1252"])
def test_an_excel_csv_says_what_to_pass_and_then_loads(saved, tmp_path, manifest, sep, encoding, advice, fix):
    folder = excel_copy(saved, tmp_path / "excel", sep=sep, encoding=encoding, manifest=manifest)
    with pytest.raises(LoadError, match=r"excel[/\\]Re\w+\.csv looks like a CSV saved by a spreadsheet \(Excel\): .*" + advice):
        EvaluationResult.load(folder)
    loaded = EvaluationResult.load(folder, **fix)
    expected = EvaluationResult.load(excel_copy(saved, tmp_path / "utf8", sep=",", encoding="utf-8", manifest=manifest))
    assert loaded.calculate_metrics() == expected.calculate_metrics()
    assert loaded["Reader"]["query"].tolist() == expected["Reader"]["query"].tolist()
    assert any("Pàris" in query for query in loaded["Reader"]["query"])


def test_a_byte_order_mark_read_as_another_encoding_is_named(tmp_path):
    source = io.BytesIO("\ufeffquery,answer\nq,a\n".encode("utf-8"))
    with pytest.raises(LoadError, match=re.escape("byte-order mark, which cp1252 reads as text. Load it with "
                                                  "encoding='utf-8-sig' (evalframe command: --encoding utf-8-sig)")):
        check_dialect(source, tmp_path / "Reader.csv", {"encoding": "cp1252"})
    check_dialect(source, tmp_path / "Reader.csv", {"encoding": "utf-8-sig"})  # accepted
    check_dialect(source, tmp_path / "Reader.csv", {})  # pandas reads a BOM in utf-8 too


def test_an_unknown_encoding_is_named(tmp_path):
    with pytest.raises(LoadError, match=r"encoding 'latin-9x' cannot read a CSV file: it is not an encoding Python knows"):
        check_dialect(io.BytesIO(b"a,b\n"), tmp_path / "Reader.csv", {"encoding": "latin-9x"})


def test_a_comma_file_is_not_suspected(tmp_path):
    # a semicolon inside a quoted cell of the header's row or the data does not matter: the header has the separator
    check_dialect(io.BytesIO(b'query,answer\n"a;b",c\n'), tmp_path / "Reader.csv", {})
    check_dialect(io.BytesIO(b"query;answer\nx;y\n"), tmp_path / "Reader.csv", {"sep": ";"})


def test_delimiter_is_taken_as_sep(tmp_path):
    # was: "cannot be read as CSV (ValueError: Specified a sep and a delimiter; you can only specify one.)" on any load
    folder = load_demo_result().save(tmp_path / "semi", sep=";")
    expected = load_demo_result().calculate_metrics()
    assert EvaluationResult.load(folder, delimiter=";").calculate_metrics() == expected
    with pytest.raises(InvalidParameterError, match=r"^pass sep or delimiter \(pandas' other name for it\), not both"):
        EvaluationResult.load(folder, sep=";", delimiter=";")


def test_an_encoding_that_would_misread_the_saved_utf8_text_is_refused(tmp_path):
    """The files are still the UTF-8 evalframe wrote: cp1252 would read 'é' (bytes c3 a9) as 'Ã©', silently."""
    frame = pd.DataFrame({"query": ["plain", "café"], "gold_answers": [["a"], ["b"]], "score": [0.1, 0.2]})
    folder = EvaluationResult({"N": frame}).save(tmp_path / "out")
    with pytest.raises(LoadError, match=r"N\.csv: the file is utf-8 text, as evalframe.json records, and "
                                        r"encoding='cp1252' would misread its non-ASCII letters \(line 3: 'é' would "
                                        r"read as 'Ã©'\); leave encoding out \(or pass encoding='utf-8'\)\.") as caught:
        EvaluationResult.load(folder, encoding="cp1252")
    assert caught.value.parameter == "encoding"
    assert EvaluationResult.load(folder)["N"]["query"].tolist() == ["plain", "café"]
    assert EvaluationResult.load(folder, encoding="utf-8-sig")["N"]["query"].tolist() == ["plain", "café"]


def test_a_differing_encoding_is_used_for_ascii_files_and_for_files_no_longer_utf8(tmp_path):
    frame = pd.DataFrame({"query": ["plain"], "gold_answers": [["a"]], "score": [0.1]})
    folder = EvaluationResult({"N": frame}).save(tmp_path / "ascii")
    assert EvaluationResult.load(folder, encoding="cp1252")["N"]["query"].tolist() == ["plain"]  # reads alike
    accented = EvaluationResult({"N": frame.assign(query=["café"])}).save(tmp_path / "rewritten")
    path = accented / "N.csv"
    path.write_bytes(path.read_bytes().decode("utf-8").encode("cp1252"))  # a spreadsheet saved it again
    assert EvaluationResult.load(accented, encoding="cp1252")["N"]["query"].tolist() == ["café"]
