"""The trend of a measure over stored runs (evalframe/report/trend.py), on hand-built trend frames: the HTML page
parsed back (one point and one interval per run, where their values put them, in time order; the change of question
set marked where it changed, and only there; hostile names and tags escaped; loaded in headless Chromium with no
console error and no request), the PNG read back by PIL (its size, not blank)."""

from __future__ import annotations

import io
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from evalframe.errors import InvalidParameterError
from evalframe.report.trend import CHANGED, TREND_COLUMNS, trend_bytes, trend_html, trend_png
from tests.report.test_hostile_text import PAYLOADS, browser, visit  # noqa: F401 (browser: a fixture)

pytest.importorskip("matplotlib")


def frame(means, lows, highs, changed, *, names=None, tags=None, times=None) -> pd.DataFrame:
    count = len(means)
    return pd.DataFrame({
        "id": [f"2026010{i}T000000000000Z-0000000{i}" for i in range(count)],
        "name": names or [f"run{i}" for i in range(count)],
        "time": times or [f"2026-01-0{i + 1}T00:00:00+00:00" for i in range(count)],
        "tags": tags or [[] for _ in range(count)],
        "commit": ["abc123"] * count, "node": ["Retriever"] * count, "queries": [50] * count,
        "fingerprint": ["f"] * count, "mean": means, "low": lows, "high": highs, "direction": ["higher"] * count,
        "question_set_changed": changed})


class Shapes(HTMLParser):
    """Every element's tag and attributes, the text of the page (what a reader sees)."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[tuple[str, dict[str, str]]] = []
        self.text: list[str] = []

    def handle_starttag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_startendtag(self, tag, attrs):
        self.elements.append((tag, dict(attrs)))

    def handle_data(self, data):
        self.text.append(data)

    def of_class(self, name: str) -> list[dict[str, str]]:
        return [attrs for _, attrs in self.elements if attrs.get("class") == name]


def parse(page: str) -> Shapes:
    shapes = Shapes()
    shapes.feed(page)
    shapes.close()
    return shapes


MEANS, LOWS, HIGHS = [0.50, 0.62, 0.58, 0.70], [0.44, 0.55, 0.51, 0.66], [0.56, 0.69, 0.65, 0.74]


def test_one_point_and_one_interval_per_run_where_their_values_put_them():
    # the frame given out of time order: the page draws the runs by time
    trend = frame(MEANS, LOWS, HIGHS, [False, False, True, False]).iloc[[2, 0, 3, 1]]
    shapes = parse(trend_html(trend, measure="nDCG@10"))
    points, intervals = shapes.of_class("mean"), shapes.of_class("interval")
    assert [p["data-run"][-1] for p in points] == ["0", "1", "2", "3"]  # time order
    assert [i["data-run"][-1] for i in intervals] == ["0", "1", "2", "3"]
    xs = np.array([float(p["cx"]) for p in points])
    assert np.all(np.diff(xs) > 0) and np.allclose(np.diff(xs), np.diff(xs)[0])  # evenly spaced, left to right
    assert [float(i["x1"]) for i in intervals] == [float(i["x2"]) for i in intervals] == list(xs)  # vertical, at it
    # y is one decreasing affine map of the value, the same for means and interval ends: worked out from two points
    ys = np.array([float(p["cy"]) for p in points])
    slope = (ys[3] - ys[0]) / (MEANS[3] - MEANS[0])
    assert slope < 0

    def y(value):
        return ys[0] + slope * (value - MEANS[0])

    assert np.allclose(ys, [y(v) for v in MEANS], atol=0.02)
    assert np.allclose([float(i["y1"]) for i in intervals], [y(v) for v in LOWS], atol=0.02)
    assert np.allclose([float(i["y2"]) for i in intervals], [y(v) for v in HIGHS], atol=0.02)
    # the whole plot's range holds every interval: the highest high lies below the top edge of the plot
    plot = shapes.of_class("plot")[0]
    top, bottom = float(plot["y"]), float(plot["y"]) + float(plot["height"])
    assert top < y(max(HIGHS)) and y(min(LOWS)) < bottom


def test_the_change_of_question_set_is_marked_where_it_changed_and_only_there():
    page = trend_html(frame(MEANS, LOWS, HIGHS, [False, True, False, True]), measure="nDCG@10")
    shapes = parse(page)
    xs = [float(p["cx"]) for p in shapes.of_class("mean")]
    markers = [float(m["x1"]) for m in shapes.of_class("changed")]
    assert markers == pytest.approx([(xs[0] + xs[1]) / 2, (xs[2] + xs[3]) / 2])  # between the run and the one before
    assert CHANGED in "".join(shapes.text)  # the legend and the table say it
    rows = [attrs for tag, attrs in shapes.elements if tag == "tr"][1:]
    assert [row.get("class") for row in rows] == [None, "changed-row", None, "changed-row"]
    # the line joins the runs of one question set only: [0], [1, 2], [3] -> one polyline, of runs 1 and 2
    lines = [[tuple(map(float, point.split(","))) for point in line["points"].split()] for line in shapes.of_class("line")]
    assert [[x for x, _ in line] for line in lines] == [xs[1:3]]
    unchanged = parse(trend_html(frame(MEANS, LOWS, HIGHS, [False] * 4), measure="nDCG@10"))
    assert unchanged.of_class("changed") == []


def test_a_run_without_interval_has_its_point_and_no_interval():
    shapes = parse(trend_html(frame([0.5, 0.6], [np.nan, 0.5], [np.nan, 0.7], [False, False]), measure="m"))
    assert len(shapes.of_class("mean")) == 2 and len(shapes.of_class("interval")) == 1
    assert "0.5000</td>" in trend_html(frame([0.5], [np.nan], [np.nan], [False]), measure="m")


def test_every_run_is_named_with_its_numbers():
    page = trend_html(frame(MEANS, LOWS, HIGHS, [False] * 4, tags=[[], ["v2"], [], ["v3", "rc"]]), measure="nDCG@10")
    text = "".join(parse(page).text)
    for name in ("run0", "run1 [v2]", "run2", "run3 [v3, rc]"):
        assert name in text
    assert "0.6200 [0.5500, 0.6900]" in text and "abc123" in text


def test_many_runs_name_some_under_the_axis_and_all_in_the_table():
    count = 300
    means = list(np.linspace(0.3, 0.6, count))
    trend = frame(means, [m - 0.02 for m in means], [m + 0.02 for m in means], [False] * count,
                  times=[f"2026-01-01T00:{i // 60:02d}:{i % 60:02d}+00:00" for i in range(count)])
    shapes = parse(trend_html(trend, measure="m"))
    assert len(shapes.of_class("mean")) == len(shapes.of_class("interval")) == count
    named = [text for text in shapes.of_class("run")]
    assert 2 <= len(named) <= 24
    assert len([tag for tag, _ in shapes.elements if tag == "tr"]) == count + 1


def test_hostile_names_tags_and_measure_are_escaped():
    names = [PAYLOADS["script"], PAYLOADS["attribute"], PAYLOADS["quote"], PAYLOADS["network"]]
    tags = [[PAYLOADS["end-script"]], [PAYLOADS["nul"]], [PAYLOADS["rtl-override"]], [PAYLOADS["lone-surrogate"]]]
    page = trend_html(frame(MEANS, LOWS, HIGHS, [False, True, False, False], names=names, tags=tags),
                      measure=PAYLOADS["attribute"], title=PAYLOADS["script"])
    shapes = parse(page)
    assert {tag for tag, _ in shapes.elements} <= {"html", "head", "meta", "title", "style", "body", "h1", "p", "svg",
                                                  "rect", "line", "text", "polyline", "circle", "g", "table",
                                                  "thead", "tbody", "tr", "th", "td", "code"}
    assert not any(key.startswith("on") or key in ("src", "href") for _, attrs in shapes.elements for key in attrs)
    text = "".join(shapes.text)
    assert PAYLOADS["script"] in text and "nul\u2400byte" in text and "lone\ufffdsurrogate" in text


def test_the_page_loads_in_a_browser_with_no_error_and_no_request(browser, tmp_path):  # noqa: F811 (the fixture)
    names = [PAYLOADS["script"], PAYLOADS["attribute"], PAYLOADS["network"], "plain"]
    path = tmp_path / "trend.html"
    path.write_text(trend_html(frame(MEANS, LOWS, HIGHS, [False, False, True, False], names=names,
                                     tags=[[PAYLOADS["quote"]], [], [], []]), measure="nDCG@10"), encoding="utf-8")
    seen = visit(browser, path)
    assert seen["dialogs"] == [] and seen["pwned"] == "undefined"
    assert seen["requests"] == [] and seen["errors"] == []
    assert PAYLOADS["script"] in seen["text"] and CHANGED in seen["text"]


def test_the_png_is_a_drawn_image_of_its_size(tmp_path):
    image = pytest.importorskip("PIL.Image")
    path = tmp_path / "trend.png"
    trend_png(frame(MEANS, LOWS, HIGHS, [False, True, False, False], names=["a$^$b", "b", "c", "d"]), path,
              measure="nDCG@10")
    with image.open(path) as png:
        assert png.format == "PNG" and png.size == (1000, 480)  # 10 x 4.8 inches at 100 dpi
        pixels = np.asarray(png.convert("RGB"))
    assert len(np.unique(pixels.reshape(-1, 3), axis=0)) > 10  # drawn, not blank
    assert (pixels.min(axis=2) < 100).mean() > 0.002  # dark marks: the line, points, text
    red = (pixels[..., 0] > 150) & (pixels[..., 1] < 90) & (pixels[..., 2] < 90)
    assert red.any()  # the change marker's colour
    buffer = io.BytesIO(trend_bytes(frame(MEANS, LOWS, HIGHS, [False] * 4), "png", measure="m"))
    import matplotlib.image

    assert matplotlib.image.imread(buffer).shape[:2] == (480, 1000)


def test_bad_frames_are_refused_naming_what_is_wrong(tmp_path):
    with pytest.raises(InvalidParameterError, match=r"missing \['question_set_changed'\]"):
        trend_html(frame(MEANS, LOWS, HIGHS, [False] * 4).drop(columns="question_set_changed"), measure="m")
    with pytest.raises(InvalidParameterError, match="no run holds 'nDCG@10'"):
        trend_png(pd.DataFrame(columns=list(TREND_COLUMNS)), tmp_path / "x.png", measure="nDCG@10")
    with pytest.raises(InvalidParameterError, match="trend must be a DataFrame"):
        trend_html([1, 2], measure="m")  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError, match="'png' or 'html'; got 'svg'"):
        trend_bytes(frame(MEANS, LOWS, HIGHS, [False] * 4), "svg", measure="m")
    assert not (tmp_path / "x.png").exists()


def test_the_module_draws_without_pyplot():
    source = (Path(__file__).resolve().parents[2] / "evalframe" / "report" / "trend.py").read_text()
    assert "pyplot" not in source  # a figure of its own: no global state, no backend switched
