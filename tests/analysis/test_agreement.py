"""The judge against the gold (evalframe/analysis/agreement.py, ppi.py, sides.py): Cohen's and weighted kappa
against scikit-learn's ``cohen_kappa_score``, the confusion per grade by hand, the prediction-powered mean against ppi_python's
``ppi_mean_ci`` / ``ppi_mean_pointestimate`` (and the paper's closed form by hand), its coverage by simulation
(stress), on plain arrays and Series, on a result's per-query table in memory and on Dask (``backend``), and on a
Ragas-imported result.
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import pandas as pd
import pytest

import evalframe
from evalframe import EvaluationResult, InvalidParameterError, agreement, ppi_mean
from tests.fixtures import LazyModule

# the references, imported by the first test of a process that runs this module's tests (not at collection)
sklearn_metrics = LazyModule("sklearn.metrics")
ppi_py = LazyModule("ppi_py")


@pytest.fixture(scope="module", autouse=True)
def references() -> None:
    """The module is skipped without scikit-learn or ppi_python, as a module-level importorskip of them would."""
    sklearn_metrics.load()
    ppi_py.load()


def sklearn_kappa(a, b, weights=None, labels=None):
    with warnings.catch_warnings():  # scikit-learn warns where kappa is undefined, and gives NaN
        warnings.simplefilter("ignore")
        return sklearn_metrics.cohen_kappa_score(a, b, weights=weights, labels=labels)


# ---------------------------------------------------------------------------------------------------- kappa
@pytest.mark.parametrize("grades", [2, 5])
@pytest.mark.parametrize("weights", [None, "linear", "quadratic"])
def test_kappa_and_weighted_kappa_equal_scikit_learn(grades, weights):
    rng = np.random.default_rng(grades)
    for n in (7, 40, 300):
        gold = rng.integers(1, grades + 1, n)
        judge = np.clip(gold + rng.integers(-1, 2, n), 1, grades)  # mostly near the gold
        judge[judge == grades] = 1  # the top grade absent from the judge's side: a label only gold gives
        found = agreement(judge, gold, weights=weights)
        value = found.kappa if weights is None else found.weighted_kappa
        assert abs(value - sklearn_kappa(judge, gold, weights)) <= 1e-12
        assert abs(found.kappa - sklearn_kappa(judge, gold)) <= 1e-12
        # grades listed beyond those present (a grade 0 nobody gives): scikit-learn's labels=
        listed = list(range(0, grades + 1))
        found = agreement(judge, gold, weights=weights, grades=listed)
        value = found.kappa if weights is None else found.weighted_kappa
        assert abs(value - sklearn_kappa(judge, gold, weights, labels=listed)) <= 1e-12


def test_confusion_observed_and_expected_by_hand():
    # pairs (judge, gold): a (1,1) b (1,2) c (2,2) d (3,1) e (3,2) f (1,3); g has no judge grade, h no gold
    judge = pd.Series([1, 1, 2, 3, 3, 1, np.nan, 2], index=list("abcdefgh"))
    gold = pd.Series([3, 2, 1, 2, 2, 1, 1, None], index=list("fedcbagh"))  # another order: aligned by index
    found = agreement(judge, gold, weights="linear")
    expected = pd.DataFrame([[1, 1, 1], [0, 1, 0], [1, 1, 0]], index=pd.Index([1, 2, 3], name="judge"),
                            columns=pd.Index([1, 2, 3], name="gold"))
    pd.testing.assert_frame_equal(found.confusion, expected)
    assert (found.n, found.left_out, found.grades) == (6, 2, [1, 2, 3])
    assert found.observed == 2 / 6
    # margins judge 3, 1, 2 and gold 2, 3, 1: chance (3*2 + 1*3 + 2*1) / 36 = 11/36, kappa (12 - 11) / (36 - 11)
    assert abs(found.expected - 11 / 36) <= 1e-15
    assert abs(found.kappa - 1 / 25) <= 1e-12
    # linear: observed disagreement (1 + 2 + 2 + 1) / 6 = 1; by chance sum |i-j| p_i q_j = (9 + 6 + 2 + 1 + 8 + 6) / 36
    assert abs(found.weighted_kappa - (1 - 36 / 32)) <= 1e-12
    text = repr(found)
    assert "Agreement of 6 queries (2 left out" in text and "weighted kappa (linear) -0.1250" in text


def test_threshold_cuts_a_score_into_grades():
    scores = [0.1, 0.5, 0.49, 0.9, 0.75, 0.3]
    found = agreement(scores, [0, 1, 0, 1, 1, 1], threshold=0.5)  # 0.5 itself passes: grades 0 1 0 1 1 0
    assert found.confusion.to_numpy().tolist() == [[2, 1], [0, 3]]
    # bins [0.25, 0.5, 0.75]: grades 0 2 1 3 3 1, and with grades= the grade at each position
    found = agreement(scores, [1, 3, 2, 4, 4, 2], threshold=[0.25, 0.5, 0.75], grades=[1, 2, 3, 4])
    assert found.observed == 1.0 and found.kappa == 1.0
    assert found.confusion.index.tolist() == [1, 2, 3, 4]


def test_text_grades_in_the_order_given():
    judge = ["good", "bad", "ok", "good", "ok"]
    gold = ["good", "ok", "ok", "ok", "bad"]
    order = ["bad", "ok", "good"]
    found = agreement(judge, gold, weights="quadratic", grades=order)
    assert abs(found.weighted_kappa - sklearn_kappa([order.index(g) for g in judge], [order.index(g) for g in gold],
                                                    "quadratic")) <= 1e-12
    assert found.confusion.columns.tolist() == order
    with pytest.raises(InvalidParameterError, match=r"weights='quadratic' needs the grades in order.*grades=\[\.\.\.\]"):
        agreement(judge, gold, weights="quadratic")
    assert abs(agreement(judge, gold).kappa - sklearn_kappa(judge, gold)) <= 1e-12  # unweighted: no order needed


def test_one_grade_only_gives_nan_with_its_reason_as_scikit_learn():
    found = agreement([1, 1, 1], [1.0, 1.0, 1.0], weights="linear")
    assert math.isnan(found.kappa) and math.isnan(found.weighted_kappa)
    assert math.isnan(sklearn_kappa([1, 1, 1], [1, 1, 1]))
    assert "every query the one grade 1" in found.reason and "chance is 1" in found.reason
    one_side = agreement([1, 1, 1, 1], [0, 1, 1, 0])  # the judge's one grade: kappa 0, defined
    assert one_side.kappa == sklearn_kappa([1, 1, 1, 1], [0, 1, 1, 0]) == 0.0 and one_side.reason is None


@pytest.mark.parametrize(("judge", "gold", "options", "message"), [
    ([1, 2], [1, 2, 3], {}, r"judge and gold must give one value per query each.*got 2 and 3"),
    (pd.Series([1, 2], index=["a", "b"]), pd.Series([1, 2], index=["c", "d"]), {}, r"share no index label"),
    (pd.Series([1, 2], index=["a", "a"]), [1, 2], {}, r"judge has index label 'a' more than once"),
    ([0.2, 0.7], [0, 1], {}, r"judge holds 0\.2 at position 0, which is no grade.*threshold="),
    ([1, 2], [0.5, 1], {}, r"gold holds 0\.5 at position 0, which is no grade"),
    (pd.Series([1, 2], index=["a", "b"]), pd.Series([1, 2.5], index=["a", "b"]), {},
     r"gold holds 2\.5 at index label 'b', which is no grade"),
    ([1, 2], [1, 2], {"weights": "cubic"}, r"weights must be one of \['linear', 'quadratic'\]; got 'cubic'"),
    ([1, 2], [1, 3], {"grades": [1, 2]}, r"gold gives the grade 3, which grades=\[1, 2\] lacks"),
    ([1, 2], [1, 2], {"grades": "12"}, r"grades must be a non-empty list of the grades in order"),
    ([1, 2], [1, 2], {"grades": [1, 2, 1.0]}, r"grades must list each grade once; got \[1, 2, 1\]"),
    ([0.2, 0.7], [0, 1], {"threshold": [0.5, 0.4]}, r"threshold's bin edges must increase strictly"),
    ([0.2, 0.7], [0, 1], {"threshold": "0.5"}, r"threshold must be a number"),
    ([0.2, 0.7], [0, 1], {"threshold": [0.3, 0.6], "grades": [0, 1]}, r"grades must list 3"),
    ([np.nan, 1], [1, None], {}, r"no query has a grade on both sides \(2 have one side missing\)"),
    ([1, 2], ["a", "b"], {}, r"judge and gold mix number and text grades"),
    ("12", [1, 2], {}, r"judge must be a Series or a 1-d array"),
    ([1, 2], pd.DataFrame({"g": [1, 2]}), {}, r"gold must be one value per query .*got a DataFrame"),
])
def test_bad_input_is_named(judge, gold, options, message):
    with pytest.raises(InvalidParameterError, match=message):
        agreement(judge, gold, **options)


# ---------------------------------------------------------------------------------------------------- PPI
def _sample(rng, n, big_n, bias=0.1, noise=0.3):
    truth = rng.normal(0.5, 0.2, n + big_n)
    judge = truth + bias + rng.normal(0.0, noise, n + big_n)
    gold = np.where(np.arange(n + big_n) < n, truth, np.nan)
    order = rng.permutation(n + big_n)  # the graded queries scattered among the others
    return judge[order], gold[order]


@pytest.mark.parametrize("lam", [1.0, "tuned", 0.4])
def test_ppi_mean_equals_ppi_python(lam):
    rng = np.random.default_rng(3)
    for n, big_n, noise in ((20, 200, 0.3), (150, 600, 1.5), (5, 9, 0.05)):
        judge, gold = _sample(rng, n, big_n, noise=noise)
        labeled = ~np.isnan(gold)
        y, yhat, yhat_u = gold[labeled], judge[labeled], judge[~labeled]
        reference_lam = None if lam == "tuned" else lam
        for confidence in (0.95, 0.8):
            found = ppi_mean(judge, gold, confidence=confidence, lam=lam)
            low, high = ppi_py.ppi_mean_ci(y, yhat, yhat_u, alpha=1 - confidence, lam=reference_lam)
            point = ppi_py.ppi_mean_pointestimate(y, yhat, yhat_u, lam=reference_lam)
            assert abs(found.estimate - float(np.squeeze(point))) <= 1e-12
            assert abs(found.low - float(np.squeeze(low))) <= 1e-12 and abs(found.high - float(np.squeeze(high))) <= 1e-12
            for (mean, lo, hi), values in (((found.judge_mean, found.judge_low, found.judge_high), judge),
                                           ((found.gold_mean, found.gold_low, found.gold_high), y)):
                ref_low, ref_high = ppi_py.classical_mean_ci(values, alpha=1 - confidence)
                assert abs(mean - values.mean()) <= 1e-12
                assert abs(lo - ref_low) <= 1e-12 and abs(hi - ref_high) <= 1e-12
            assert (found.n_labeled, found.n_unlabeled) == (n, big_n)
        if lam == "tuned" and noise == 1.5:
            assert 0.0 < found.lam < 1.0  # a noisy judge is weighted down (PPI++)


def test_ppi_mean_closed_form_by_hand():
    # graded: judge .9 .8 .3 against gold 1 .5 0 (errors -.1 .3 .3); ungraded judge .4 .7 .8 .6 .7 (mean .64)
    judge = pd.Series([0.9, 0.8, 0.4, 0.7, 0.3, 0.8, 0.6, 0.7, 0.5], index=[*"abcdefgh", "z"])
    gold = pd.Series({"a": 1.0, "b": 0.5, "e": 0.0, "z": 0.4, "q": 1.0})  # z graded but not scored: left out
    judge = judge.drop("z")
    found = ppi_mean(judge, gold)
    errors, ungraded = np.array([-0.1, 0.3, 0.3]), np.array([0.4, 0.7, 0.8, 0.6, 0.7])
    assert abs(found.estimate - (0.64 - 0.5 / 3)) <= 1e-12
    z = 1.959963984540054  # the normal quantile of 0.975
    se = math.sqrt(ungraded.var() / 5 + errors.var() / 3)  # divisor n, as ppi_python
    assert abs(found.low - (found.estimate - z * se)) <= 1e-12 and abs(found.high - (found.estimate + z * se)) <= 1e-12
    assert (found.n_labeled, found.n_unlabeled) == (3, 5)
    table = found.table
    assert table.index.tolist() == ["prediction-powered", "judge only", "gold only"]
    assert table["queries"].tolist() == [8, 8, 3] and abs(table.loc["gold only", "mean"] - 0.5) <= 1e-15
    assert repr(found).startswith("Prediction-powered mean (PPI; 3 graded of 8 queries; 95% normal intervals)")
    tuned = ppi_mean(judge, gold, lam="tuned")
    assert repr(tuned).startswith("Prediction-powered mean (PPI++, lambda")


def test_ppi_takes_true_and_false_as_one_and_zero():
    judge = [1.0, 0.0, 1.0, 1.0, 0.0, 1.0]
    gold = [True, False, False, None, None, None]
    assert abs(ppi_mean(judge, gold).estimate - (2 / 3 - 1 / 3)) <= 1e-12


@pytest.mark.parametrize(("judge", "gold", "options", "message"), [
    ([0.1, 0.2, 0.3], [np.nan, np.nan, np.nan], {}, r"gold must grade at least 2 of the queries the judge scored.*got 0"),
    ([0.1, 0.2, 0.3], [1.0, np.nan, np.nan], {}, r"gold must grade at least 2 .*got 1"),
    ([0.1, 0.2], [1.0, 0.0], {}, r"every query the judge scored is graded in gold"),
    ([0.1, "high", 0.3], [1.0, 0.0, None], {}, r"judge must hold numbers.*position 1 holds 'high'"),
    ([0.1, 0.2, np.inf], [1.0, 0.0, None], {}, r"judge must hold finite numbers; position 2 holds inf"),
    ([0.1, 0.2, 0.3], [1.0, 0.0, None], {"confidence": 95}, r"confidence must lie strictly between 0 and 1"),
    ([0.1, 0.2, 0.3], [1.0, 0.0, None], {"lam": "auto"}, r"lam must be a number in \[0, 1\].*'tuned'"),
    ([0.1, 0.2, 0.3], [1.0, 0.0], {}, r"judge and gold must give one value per query each.*got 3 and 2"),
])
def test_ppi_bad_input_is_named(judge, gold, options, message):
    with pytest.raises(InvalidParameterError, match=message):
        ppi_mean(judge, gold, **options)


@pytest.mark.stress
@pytest.mark.parametrize("lam", [1.0, "tuned"])
def test_ppi_interval_covers_the_true_mean_95_percent(lam):
    rng = np.random.default_rng(37)
    rounds, covered, gold_width, ppi_width = 4000, 0, 0.0, 0.0
    for _ in range(rounds):
        judge, gold = _sample(rng, 100, 1000, bias=0.15, noise=0.1)
        found = ppi_mean(judge, gold, lam=lam)
        covered += found.low <= 0.5 <= found.high  # the truth's mean is 0.5, the judge's 0.65
        gold_width += found.gold_high - found.gold_low
        ppi_width += found.high - found.low
    share = covered / rounds
    error = math.sqrt(0.95 * 0.05 / rounds)
    assert abs(share - 0.95) <= 4 * error, share
    assert ppi_width < gold_width  # a good judge narrows the interval


# ---------------------------------------------------------------------------------------------------- on results
@pytest.fixture(scope="module")
def graded():
    """The demo result with a judge score and a human grade (on 5 of the Reader's 8 queries, in meta)."""
    result = evalframe.load_demo_result()
    ids = result.query_metrics("Reader").index
    frame = result["Reader"].copy()
    human = dict(zip(ids, [2, 1, None, 2, 0, None, 2, None]))
    frame["meta"] = frame["multilabel_id"].map(
        lambda q: '{"human_grade": %s}' % human[q] if human[q] is not None else '{"team": "qa"}')
    memory = EvaluationResult({"Retriever": result["Retriever"], "Reader": frame})
    memory.add_scores("Reader", pd.DataFrame({"multilabel_id": ids, "judge": [0.9, 0.8, 0.4, 0.7, 0.3, 0.8, 0.6, 0.7]}),
                      bounds=(0, 1))
    return memory


def test_result_agreement_with_a_metric_as_the_gold(graded):
    # exact_match of the demo's Reader: 1 1 1 1 0 1 1 0; the judge cut at 0.5: 1 1 0 1 0 1 1 1
    found = graded.agreement("Reader", judge="judge", gold="exact_match", threshold=0.5)
    assert found.confusion.to_numpy().tolist() == [[1, 1], [1, 5]]
    assert abs(found.kappa - sklearn_kappa([1, 1, 0, 1, 0, 1, 1, 1], [1, 1, 1, 1, 0, 1, 1, 0])) <= 1e-12
    # a simulated top-k is the per-query table's: the Reader's top 1 answer gives the same exact_match here
    assert graded.agreement("Reader", judge="judge", gold="exact_match", threshold=0.5,
                            simulated_top_k_reader=1).n == 8


def test_result_agreement_and_ppi_in_memory_and_on_dask(graded, backend):
    result = backend(graded)
    # the human grades 2 1 - 2 0 - 2 -, against the judge in bins [0.5, 0.75]: 2 2 0 1 0 2 1 1
    graded_ = result.agreement("Reader", judge="judge", gold="meta.human_grade", threshold=[0.5, 0.75],
                               weights="quadratic")
    assert (graded_.n, graded_.left_out) == (5, 3)
    assert abs(graded_.weighted_kappa - sklearn_kappa([2, 2, 1, 0, 1], [2, 1, 2, 0, 2], "quadratic")) <= 1e-12
    # PPI with the gold a Series by multilabel_id on 5 of the 8 queries (the meta grade halved)
    ids = backend.query_metrics(result, "Reader").index
    gold = pd.Series([1.0, 0.5, None, 1.0, 0.0, None, 1.0, None], index=ids)
    found = result.ppi_mean("Reader", judge="judge", gold=gold.dropna())
    labeled = gold.notna().to_numpy()
    judge = np.array([0.9, 0.8, 0.4, 0.7, 0.3, 0.8, 0.6, 0.7])
    low, high = ppi_py.ppi_mean_ci(gold.dropna().to_numpy(), judge[labeled], judge[~labeled], alpha=0.05, lam=1)
    assert abs(found.low - float(np.squeeze(low))) <= 1e-12 and abs(found.high - float(np.squeeze(high))) <= 1e-12
    assert (found.n_labeled, found.n_unlabeled) == (5, 3)


def test_result_sides_that_are_not_there_are_named(graded):
    with pytest.raises(InvalidParameterError, match=r"judge='judg' is no metric or score of node 'Reader'.*Did you mean 'judge'"):
        graded.agreement("Reader", judge="judg", gold="exact_match")
    with pytest.raises(InvalidParameterError, match=r"gold: by 'meta.human'.*Did you mean 'meta.human_grade'"):
        graded.agreement("Reader", judge="judge", gold="meta.human", threshold=0.5)
    with pytest.raises(InvalidParameterError, match=r"gold is indexed by 'nope', which is no query \(multilabel_id\)"):
        graded.ppi_mean("Reader", judge="judge", gold=pd.Series({"nope": 1.0}))
    with pytest.raises(InvalidParameterError, match=r"judge must be a metric or score name"):
        graded.agreement("Reader", judge=3, gold="exact_match")
    # the options are checked before the per-query table is read: the bad weights is named, not the unknown column
    with pytest.raises(InvalidParameterError, match=r"weights must be one of"):
        graded.agreement("Reader", judge="nope", gold="exact_match", weights="cubic")
    with pytest.raises(InvalidParameterError, match=r"lam must be a number in \[0, 1\]"):
        graded.ppi_mean("Reader", judge="nope", gold="exact_match", lam="best")


def test_a_ragas_result_judge_against_its_human_grades():
    table = pd.DataFrame({"user_input": [f"question {i}" for i in range(6)], "response": list("abcdef"),
                          "reference": list("axcdyf"), "faithfulness": [0.9, 0.2, 0.8, 0.7, 0.6, 0.1],
                          "human_grade": [2, 0, 2, 1, None, 0]})
    result = EvaluationResult.from_ragas(table, progress=False)
    found = result.agreement("Generator", judge="faithfulness", gold="human_grade", threshold=[0.3, 0.75])
    # the judge's grades 2 0 2 1 (1) 0: one query without a human grade
    assert (found.n, found.left_out, found.observed) == (5, 1, 1.0)
    ppi = result.ppi_mean("Generator", judge="faithfulness", gold="human_grade")
    assert abs(ppi.estimate - (0.6 - np.mean([0.9 - 2, 0.2, 0.8 - 2, 0.7 - 1, 0.1]))) <= 1e-12


@pytest.mark.parametrize("lam", [2, -0.5, 1.0000001])
def test_ppi_lam_outside_zero_one_is_refused(lam):
    with pytest.raises(InvalidParameterError, match=r"lam must be a number in \[0, 1\] \(1: PPI\) or 'tuned'"):
        ppi_mean(np.linspace(0, 1, 20), np.r_[np.linspace(0, 1, 5), [np.nan] * 15], lam=lam)
