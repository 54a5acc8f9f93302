"""The real datasets of the mirror: every card loads and matches, derived sizes match the papers."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from test_data_helpers import CARDS, MIRROR, isolated_env, needs_mirror, repo_settings  # noqa: F401

from treebench.data import load
from treebench.data.cards import CardRegistry
from treebench.data.loader import Loader
from treebench.data.verify import OK, verify

pytestmark = needs_mirror

RAW = [c.name for c in CardRegistry(CARDS).validate() if not c.is_derived and c.name != "digits"]


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """Every dataset loaded once from the mirror (kddcup99-10pct takes a few seconds)."""
    settings = repo_settings(tmp_path_factory.mktemp("real"))
    registry = CardRegistry(CARDS)
    loader = Loader(registry, settings, memo={})
    return {card.name: loader.load(card) for card in registry.validate()}


@pytest.mark.parametrize("name", RAW)
def test_mirror_copy_matches_card(loaded, name):
    ds = loaded[name]
    card = ds.card
    assert ds.source.startswith("mirror ") or card.embedded is not None
    assert (ds.n_samples, ds.n_features, ds.n_classes) == (card.expected.rows, card.expected.features, card.expected.classes)
    assert ds.class_counts() == card.expected.class_counts
    assert list(ds.X.columns) == list(card.features)
    for column, kind in ds.feature_kinds.items():
        dtype = ds.X[column].dtype
        if kind == "numeric":
            assert dtype == np.float64, column
        else:
            assert isinstance(dtype, pd.CategoricalDtype) and dtype.ordered == (kind == "ordinal"), column
    assert ds.y.dtype == np.int64 and ds.y.min() == 0 and ds.y.max() == ds.n_classes - 1
    assert list(ds.extra.columns) == list(card.non_features)


@pytest.mark.parametrize(
    ("name", "rows", "classes"),
    [
        ("ecoli-327", 327, 5),  # paper 001, Table 1
        ("ecoli4", 327, 4),
        ("breast-tissue", 106, 6),
        ("breast-tissue4", 106, 4),
        ("olive", 572, 9),
        ("olive-region", 572, 3),
        ("segment", 2310, 7),
        ("glass", 214, 6),
        ("abalone-18", 4139, 18),  # paper 002, Table I
        ("hayes-roth", 160, 3),
        ("monks-1-test", 432, 2),
        ("monks-1-train", 124, 2),
        ("monks-2-train", 169, 2),
        ("shuttle-train", 43500, 7),  # UCI shuttle.trn / shuttle.tst
        ("shuttle-test", 14500, 7),
        ("hayes-roth-train", 132, 3),
        ("hayes-roth-test", 28, 3),
    ],
)
def test_sizes_stated_by_papers(loaded, name, rows, classes):
    ds = loaded[name]
    assert (ds.n_samples, ds.n_classes) == (rows, classes)


def test_ecoli_derivations(loaded):
    e327, e4 = loaded["ecoli-327"], loaded["ecoli4"]
    assert e327.classes == ["cp", "im", "imU", "om", "pp"]
    assert e4.class_counts() == {"cp": 143, "im+imU": 112, "om": 20, "pp": 52}
    assert e4.X.equals(e327.X)


def test_breast_tissue4(loaded):
    assert loaded["breast-tissue4"].class_counts() == {"adi": 22, "car": 21, "con": 14, "fad+mas+gla": 49}


def test_label_columns_are_never_features(loaded):
    olive, region = loaded["olive"], loaded["olive-region"]
    assert "region" not in olive.X.columns and list(olive.extra.columns) == ["region"]
    assert "class" not in region.X.columns and "region" not in region.X.columns
    assert region.classes == ["Northern Italy", "Sardinia", "Southern Italy"]
    # each area lies in exactly one region
    pairs = pd.crosstab(region.extra["class"], region.labels)
    assert ((pairs > 0).sum(axis=1) == 1).all()
    for name in ("shuttle", "hayes-roth"):
        assert "split" not in loaded[name].X.columns
        assert set(loaded[name].extra["split"]) == {"train", "test"}


def test_splits_share_codes(loaded):
    train, test = loaded["hayes-roth-train"], loaded["hayes-roth-test"]
    assert train.classes == test.classes
    for column in train.X.columns:
        assert list(train.X[column].cat.categories) == list(test.X[column].cat.categories)
    assert set(train.extra["split"]) == {"train"} and set(test.extra["split"]) == {"test"}


def test_monks_test_sets_are_the_full_sets(loaded):
    for n in (1, 2, 3):
        assert loaded[f"monks-{n}-test"].checksum == loaded[f"monks-{n}"].checksum
        train = loaded[f"monks-{n}-train"]
        full = loaded[f"monks-{n}"]
        assert list(train.X["a5"].cat.categories) == list(full.X["a5"].cat.categories) == ["1", "2", "3", "4"]


def test_missing_values_are_kept(loaded):
    assert loaded["breast-w"].X["Bare_Nuclei"].isna().sum() == 16
    assert loaded["ilpd"].X["A/G"].isna().sum() == 4
    assert loaded["vote"].missing_cells() == 392
    assert loaded["soybean"].missing_cells() == 2337


def test_documented_correction(loaded):
    assert loaded["waveform-21"].X["x21"].iloc[42] == pytest.approx(0.68)


def test_embedded_copies_agree_with_mirror(loaded, tmp_path):
    bare = repo_settings(tmp_path, mirror=False)
    for name in ("wine", "wdbc", "iris"):
        embedded = load(name, settings=bare)
        assert embedded.source.startswith("embedded ")
        assert embedded.checksum == loaded[name].checksum == embedded.card.checksum, name
    # the mirror file itself still holds UCI's two wrong samples; the card's corrections fix them
    raw = pd.read_csv(MIRROR / "iris.csv.gz")
    differ = (raw.drop(columns="class").to_numpy() != loaded["iris"].X.to_numpy()).any(axis=1)
    assert list(np.flatnonzero(differ)) == [34, 37]
    assert loaded["iris"].X.iloc[[34, 37]].values.tolist() == [[4.9, 3.1, 1.5, 0.2], [4.9, 3.6, 1.4, 0.1]]
    digits = load("digits", settings=bare)
    tail = loaded["optdigits"].X.iloc[3823:].to_numpy()
    assert np.array_equal(digits.X.to_numpy(), tail)


def test_every_card_pins_the_table_it_loads(loaded):
    for name, ds in loaded.items():
        assert ds.card.checksum is not None, f"{name}: no checksum in its card"
        assert ds.checksum == ds.card.checksum, name


def test_verify_reports_every_dataset_ok(tmp_path):
    verdicts = verify(CardRegistry(CARDS), repo_settings(tmp_path))
    assert {v.status for v in verdicts} == {OK}, [(v.name, v.detail) for v in verdicts if v.status != OK]
    assert {v.name for v in verdicts} == set(CardRegistry(CARDS).names())
