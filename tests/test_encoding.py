"""The column-wise feature encoding against the old cell-by-cell one (``tests/encoding_oracle.py``).

Same kinds, categories and matrices at fit; same codes at predict, unseen
categories and missing values included; hence the same trees and predictions.
"""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest
from encoding_oracle import oracle_column, oracle_fit, oracle_transform

from treebench import TreeClassifier
from treebench.errors import TreebenchError
from treebench.trees.encoding import FeatureEncoder

N = 240


def mixed_frame(seed: int = 0, n: int = N) -> pd.DataFrame:
    """Every column type the encoder accepts, with missing values where the type allows them."""
    rng = np.random.default_rng(seed)

    def holes(values, missing=None):
        values = np.asarray(values, dtype=object)
        values[rng.random(len(values)) < 0.1] = missing
        return values

    colours = ["red", "green", "blue", "white"]
    return pd.DataFrame(
        {
            # unordered, with an unused category (white) and NaN
            "colour": pd.Categorical(holes(rng.choice(colours[:3], n), np.nan), categories=colours),
            "grade": pd.Categorical(rng.choice(["low", "mid", "high"], n), categories=["low", "mid", "high"], ordered=True),
            "size": pd.Categorical(rng.choice(["S", "M", "L"], n), categories=["S", "M", "L"], ordered=True),
            "city": holes(rng.choice(["oslo", "rome", "lima"], n)),  # object, None
            "town": holes(rng.choice(["a", "b", "c"], n), np.nan),  # object, NaN
            "word": pd.array(holes(rng.choice(["x", "y"], n), pd.NA), dtype="string"),
            "pystr": pd.Series(holes(rng.choice(["p", "q", "r"], n)), dtype="str"),
            "flag": rng.random(n) < 0.5,
            "maybe": pd.array(holes(rng.random(n) < 0.5, pd.NA), dtype="boolean"),
            "count": rng.integers(0, 5, n),
            "level": pd.array(holes(rng.integers(0, 3, n), pd.NA), dtype="Int64"),
            "x": np.where(rng.random(n) < 0.1, np.nan, rng.normal(size=n)),
            "mixed": holes(rng.choice(np.array([1, 2.5, "two", True], dtype=object), n)),  # sorts by str
            "ints": holes(rng.choice(np.array([1, 2, 3], dtype=object), n)),
        }
    )


def labels_for(frame: pd.DataFrame, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed + 100)
    signal = (frame["colour"] == "red").to_numpy() ^ (frame["flag"].to_numpy()) ^ (frame["count"].to_numpy() > 2)
    return np.where(rng.random(len(frame)) < 0.1, ~signal, signal).astype(int)


def assert_same_encoding(new: FeatureEncoder, old: FeatureEncoder) -> None:
    assert new.names == old.names and new.kinds == old.kinds
    assert [None if c is None else [(type(v), v) for v in c] for c in new.categories] == [
        None if c is None else [(type(v), v) for v in c] for c in old.categories
    ]


def predict_frame(seed: int = 1) -> pd.DataFrame:
    """Another frame of the same columns, with categories unseen at fit and other category orders."""
    frame = mixed_frame(seed, n=120)
    rng = np.random.default_rng(seed)
    frame["colour"] = pd.Categorical(
        rng.choice(["blue", "purple", "red", None], 120), categories=["purple", "red", "blue", "green"]
    )
    frame["city"] = rng.choice(np.array(["rome", "paris", None, 3], dtype=object), 120)
    frame["pystr"] = pd.Series(rng.choice(["q", "zz", "p"], 120), dtype="str")
    frame["ints"] = rng.choice(np.array([1.0, 2, True, 7, None], dtype=object), 120)  # 1 == 1.0 == True
    frame["mixed"] = pd.Categorical(rng.choice(["two", "three"], 120))  # object at fit, categorical now
    return frame


@pytest.mark.parametrize("nominal", [None, ["count"], [0, "x", "size"]])
def test_frame_fit_and_predict_match_the_cell_by_cell_oracle(nominal):
    frame = mixed_frame()
    new, matrix = FeatureEncoder.fit(frame, nominal)
    old, expected = oracle_fit(frame, nominal)
    assert_same_encoding(new, old)
    np.testing.assert_array_equal(matrix, expected)
    for other in (predict_frame(1), predict_frame(2), frame.iloc[::-1]):
        for _ in range(2):  # the second call reads the cached code tables
            np.testing.assert_array_equal(new.transform(other), oracle_transform(old, other))
    # a nominal column whose codes cover unseen values and missing ones
    unseen = new.transform(predict_frame(1))[:, 0]
    assert set(np.unique(unseen)) <= {0.0, 1.0, 2.0, 4.0} and (unseen == 4.0).any()


@pytest.mark.parametrize(
    "X, nominal",
    [
        (np.array([["b", "a"], ["a", None], [None, "c"], ["b", "c"]], dtype=object), None),
        (np.array([["b", "a"], ["a", "z"], ["c", "c"]]), None),  # numpy str
        (np.array([[b"b", b"a"], [b"a", b"z"]]), None),  # bytes
        (np.array([[True, False], [False, False], [True, True]]), None),
        (np.array([[1.0, 0.5], [np.nan, 2.0], [3.0, 0.5], [1.0, np.nan]]), [0, 1]),
        (np.array([[1, 7], [2, 7], [1, 8]]), [1]),
        (np.array([[1, "x"], [2.5, None], [True, "y"], [1.0, "x"]], dtype=object), None),
    ],
)
def test_array_fit_and_predict_match_the_oracle(X, nominal):
    new, matrix = FeatureEncoder.fit(X, nominal)
    old, expected = oracle_fit(X, nominal)
    assert_same_encoding(new, old)
    np.testing.assert_array_equal(matrix, expected)
    shuffled = X[::-1]
    np.testing.assert_array_equal(new.transform(shuffled), oracle_transform(old, shuffled))


def test_column_order_of_the_matrices():
    frame = mixed_frame()
    encoder, matrix = FeatureEncoder.fit(frame)
    assert matrix.flags.f_contiguous  # what the presort reads
    assert encoder.transform(frame).flags.c_contiguous  # what traversal reads


def test_cached_tables_follow_the_category_order():
    """Unordered dtypes with the same categories in another order compare equal in pandas; codes must not."""
    encoder, _ = FeatureEncoder.fit(pd.DataFrame({"c": pd.Categorical(["a", "b", "c"])}))
    values = ["c", "a", "b", None]
    for order in (["a", "b", "c"], ["c", "b", "a"], ["b", "c", "a", "d"], ["a", "b", "c"]):
        frame = pd.DataFrame({"c": pd.Categorical(values, categories=order)})
        np.testing.assert_array_equal(encoder.transform(frame)[:, 0], [2.0, 0.0, 1.0, 3.0])


def test_category_lists_are_read_once_per_dtype_and_owned_by_each_encoder():
    """A frame's categorical dtypes outlive a fit: their categories are read once, every encoder
    gets its own list, and the entry leaves with the dtype."""
    import gc

    from treebench.trees import encoding

    frame = pd.DataFrame({"c": pd.Categorical(["b", "a", None], categories=["b", "a", "z"]),
                          "n": pd.Categorical([3, 1, 2])})
    first, _ = FeatureEncoder.fit(frame)
    second, _ = FeatureEncoder.fit(frame)
    assert first.categories == second.categories == [["b", "a", "z"], [1, 2, 3]]
    assert first.categories[0] is not second.categories[0]  # no list shared between encoders
    assert [type(cats[0]) for cats in first.categories] == [str, int]  # as before the cache
    key = id(frame["c"].dtype)
    assert key in encoding._CATEGORY_LISTS
    del frame, first, second
    gc.collect()
    assert key not in encoding._CATEGORY_LISTS


def test_pickled_encoder_drops_its_cache_and_encodes_the_same():
    frame = mixed_frame()
    model = TreeClassifier("entropy").fit(frame, labels_for(frame))
    other = predict_frame(3)
    expected = model.predict_proba(other)
    assert model.encoder_._tables  # filled by fit and predict
    copy = pickle.loads(pickle.dumps(model))
    assert copy.encoder_._tables == {}
    np.testing.assert_array_equal(copy.predict_proba(other), expected)


@pytest.mark.parametrize("criterion, params", [("entropy", {}), ("gain_ratio", {}), ("gini", {"max_depth": 4})])
def test_trees_and_predictions_match_the_oracle_encoding(monkeypatch, criterion, params):
    frame = mixed_frame()
    y = labels_for(frame)
    other = predict_frame(4)
    fast = TreeClassifier(criterion, **params).fit(frame, y)
    fast_proba = fast.predict_proba(other)
    monkeypatch.setattr(FeatureEncoder, "_encode_column", lambda self, j, column: oracle_column(self, j, column))
    slow = TreeClassifier(criterion, **params).fit(frame, y)
    assert fast.tree_.n_nodes > 3
    for name in ("int_nodes", "float_nodes", "catmap", "counts"):
        np.testing.assert_array_equal(getattr(fast.tree_, name), getattr(slow.tree_, name))
    np.testing.assert_array_equal(fast_proba, slow.predict_proba(other))


def test_unhashable_values_are_refused_in_one_line():
    encoder, _ = FeatureEncoder.fit(pd.DataFrame({"c": ["a", "b"]}))
    with pytest.raises(TreebenchError, match=r"feature 'c' holds unhashable values; accepted: ") as caught:
        encoder.transform(pd.DataFrame({"c": [["a"], "b"]}))
    assert "\n" not in str(caught.value)
