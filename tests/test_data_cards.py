"""Dataset cards: the repository's cards are complete and consistent; bad cards fail clearly."""

from __future__ import annotations

import csv
import re
from pathlib import Path

import pytest
import yaml
from test_data_helpers import (  # noqa: F401
    CARDS,
    MIRROR,
    TOY_CHECKSUM,
    isolated_env,
    needs_mirror,
    toy_card,
    write_card,
)

from treebench.data.cards import CardRegistry, card_from_mapping, parse_card, write_checksum
from treebench.data.labels import as_label, natural_order
from treebench.errors import TreebenchError

DERIVED = {
    "ecoli-327", "ecoli4", "breast-tissue4", "olive-region", "abalone-18", "shuttle-train",
    "shuttle-test", "hayes-roth-train", "hayes-roth-test", "monks-1-test", "monks-2-test", "monks-3-test",
}

# Paper usage as given for the project (paper 004 has not chosen its data yet).
PAPER_DATASETS = {
    "serrurier2015": {
        "soybean", "lymph", "zoo", "ilpd", "yeast", "waveform-40", "diabetes", "banknote", "ecoli",
        "vehicle", "ionosphere", "segment", "pendigits", "spambase", "breast-w", "wine",
    },
    "mee": {"breast-tissue", "breast-tissue4", "olive", "ecoli-327", "ecoli4", "segment", "glass"},
    "tsallis": {
        "yeast", "glass", "vehicle", "wine", "haberman", "car", "balance-scale", "hayes-roth",
        "monks-2", "abalone", "abalone-18", "cmc",
    },
    "certainty": {
        "kddcup99-10pct", "skin-segmentation", "shuttle", "shuttle-train", "shuttle-test",
        "monks-1", "monks-1-train", "monks-1-test", "monks-2", "monks-2-train", "monks-2-test",
        "optdigits", "pendigits", "wdbc",
    },
    "belief": set(),
}


@pytest.fixture(scope="module")
def registry() -> CardRegistry:
    return CardRegistry(CARDS)


@pytest.fixture(scope="module")
def manifest() -> dict[str, dict[str, str]]:
    path = MIRROR / "MANIFEST.tsv"
    if not path.is_file():
        pytest.skip(f"no MANIFEST.tsv at {path}")
    with path.open() as handle:
        return {row["name"]: row for row in csv.DictReader(handle, delimiter="\t")}


def test_every_card_is_valid(registry):
    cards = registry.validate()
    assert len(cards) == len(list(CARDS.glob("*.yaml")))
    assert {c.name for c in cards if c.is_derived} == DERIVED


@needs_mirror
def test_every_manifest_dataset_has_a_card_with_its_numbers(registry, manifest):
    for name, row in manifest.items():
        card = registry.get(name)
        e = card.expected
        assert (e.rows, e.features, e.classes) == (int(row["rows"]), int(row["features"]), int(row["classes"])), name
        counts = dict(part.rsplit(":", 1) for part in row["class_counts"].split(";"))
        assert e.class_counts == {as_label(k): int(v) for k, v in counts.items()}, name
        missing = int(row["notes"].rsplit("missing cells:", 1)[1].split(";")[0])
        assert e.missing == missing, name


def test_paper_usage(registry):
    cards = registry.validate()
    for paper, expected in PAPER_DATASETS.items():
        assert {c.name for c in cards if paper in c.papers} == expected, paper


def test_non_features_and_kinds(registry):
    assert registry.get("olive").non_features == ("region",)
    assert registry.get("shuttle").non_features == ("split",)
    assert registry.get("hayes-roth").non_features == ("split",)
    car = registry.get("car")
    assert set(car.feature_kinds.values()) == {"ordinal"}
    assert car.ordinal["buying"] == ("low", "med", "high", "vhigh")
    assert set(registry.get("monks-1").feature_kinds.values()) == {"nominal"}
    assert set(registry.get("soybean").feature_kinds.values()) == {"nominal"}
    assert set(registry.get("ecoli").feature_kinds.values()) == {"numeric"}
    kinds = registry.get("credit-g").feature_kinds
    assert kinds["employment"] == "ordinal" and kinds["purpose"] == "nominal" and kinds["age"] == "numeric"


def test_identifiers_present_where_known(registry):
    ecoli = registry.get("ecoli")
    assert (ecoli.uci.id, ecoli.openml.id, ecoli.openml.version) == (39, 39, 1)
    assert registry.get("olive").uci.id is None  # not a UCI dataset
    for card in registry.validate():
        if not card.is_derived:
            assert card.citation and card.description, card.name
            assert card.urls, card.name


def test_aliases_and_embedded(registry):
    assert registry.get("breast-cancer").name == "wdbc"
    embedded = {c.name for c in registry.validate() if c.embedded is not None}
    assert embedded == {"iris", "wine", "wdbc", "digits"}


def test_unknown_name_lists_close_matches(registry):
    with pytest.raises(TreebenchError, match=r"unknown dataset 'eccoli'; did you mean: ecoli"):
        registry.get("eccoli")
    with pytest.raises(TreebenchError, match=r"unknown dataset 'zzzz'; accepted: .*abalone.*zoo"):
        registry.get("zzzz")


# ---------------------------------------------------------------- bad cards
def _error(tmp_path: Path, card: dict | str, name: str = "toy") -> str:
    path = tmp_path / f"{name}.yaml"
    path.write_text(card if isinstance(card, str) else yaml.safe_dump(card, sort_keys=False))
    with pytest.raises(TreebenchError) as info:
        parse_card(path)
    message = str(info.value)
    assert "\n" not in message
    assert re.search(rf"{name}\.yaml(:\d+)?: ", message), message
    return message


def test_missing_target_names_file_field_and_required_fields(tmp_path):
    card = toy_card()
    del card["target"]
    message = _error(tmp_path, card)
    assert "field 'target' is missing; required fields: name, description, target, features, expected" in message


def test_wrong_types(tmp_path):
    card = toy_card()
    card["expected"]["rows"] = "many"
    assert "field 'expected.rows' must be an integer >= 1, got 'many' (str)" in _error(tmp_path, card)
    assert "field 'features' must be a list" in _error(tmp_path, toy_card(features="f1 f2"))
    assert "field 'target' must be a non-empty string" in _error(tmp_path, toy_card(target=["class"]))
    assert "field 'papers' names 'Smith 2015', which is not a paper id; accepted: lowercase" in _error(
        tmp_path, toy_card(papers=["p9", "Smith 2015"])
    )


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"taget": "class"}, "unknown field 'taget'; accepted: name"),
        ({"name": "other"}, "field 'name' is 'other' but the file is toy.yaml"),
        ({"nominal": ["f9"]}, "field 'nominal' names 'f9', which is not in 'features'"),
        ({"target": "f1"}, "field 'target' ('f1') is also listed in 'features'"),
        ({"ordinal": {"f2": ["a", "b"]}}, "column 'f2' is both nominal and ordinal"),
        ({"features": ["f1", "f2", "f3", "f4"]}, "field 'expected.features' is 3 but 'features' lists 4"),
        ({"features": ["f1", "f2", "f2"]}, "field 'features' lists f2 more than once"),
        ({"operations": []}, "field 'operations' needs 'derived_from'"),
        ({"classes": ["x", "y"]}, "field 'classes' lists 2 classes but 'expected.classes' is 3"),
        ({"embedded": {"loader": "load_cats", "columns": ["f1"], "classes": ["x"]}}, "accepted: load_iris"),
        ({"uci": {"files": [{"url": "http://x/y.data"}]}}, "'uci.files[0].columns' is needed"),
    ],
)
def test_inconsistent_cards(tmp_path, changes, expected):
    assert expected in _error(tmp_path, toy_card(**changes))


def test_class_counts_must_add_up(tmp_path):
    card = toy_card()
    card["expected"]["class_counts"]["x"] = 5
    assert "'expected.class_counts' sums to 13 but 'expected.rows' is 12" in _error(tmp_path, card)


def test_derived_card_errors(tmp_path):
    base = {"name": "toy2", "description": "d", "derived_from": "toy", "expected": {"rows": 1, "features": 1, "classes": 1}}
    assert "unknown operation 'shuffle'" in _error(tmp_path, {**base, "operations": [{"shuffle": True}]}, "toy2")
    assert "needs exactly one of 'equals' or 'in'" in _error(
        tmp_path, {**base, "operations": [{"select_rows": {"column": "split"}}]}, "toy2"
    )
    assert "unknown field 'features'" in _error(tmp_path, {**base, "features": ["a"]}, "toy2")


def test_yaml_errors(tmp_path):
    assert "not valid YAML at line 2" in _error(tmp_path, "name: toy\n  bad: [\n")
    assert "a card must be a YAML mapping of fields, got list" in _error(tmp_path, "- a\n- b\n")


def test_registry_checks_links_between_cards(tmp_path):
    cards = tmp_path / "cards"
    write_card(cards, toy_card())
    loop = {"description": "d", "expected": {"rows": 1, "features": 1, "classes": 1}}
    write_card(cards, {"name": "a", "derived_from": "b", **loop})
    write_card(cards, {"name": "b", "derived_from": "a", **loop})
    with pytest.raises(TreebenchError, match=r"derived_from makes a cycle: a -> b -> a"):
        CardRegistry(cards).validate()
    write_card(cards, {"name": "b", "derived_from": "nothing", **loop})
    with pytest.raises(TreebenchError, match=r"b.yaml: field 'derived_from' names unknown dataset 'nothing'"):
        CardRegistry(cards).validate()
    (cards / "a.yaml").unlink()
    (cards / "b.yaml").unlink()
    write_card(cards, toy_card(name="toy3", aliases=["toy"]))
    with pytest.raises(TreebenchError, match=r"alias 'toy' is also a card name"):
        CardRegistry(cards).validate()


def test_missing_cards_folder(tmp_path):
    with pytest.raises(TreebenchError, match=r"no dataset cards at .*TREEBENCH_CARDS"):
        CardRegistry(tmp_path / "nowhere").names()


def test_labels():
    assert [as_label(v) for v in (3, 3.0, "3.0", " 3 ", True, False, 0.5, "a b", "-2")] == [
        "3", "3", "3", "3", "true", "false", "0.5", "a b", "-2"
    ]
    assert natural_order(["10", "9", "1", "2"]) == ["1", "2", "9", "10"]
    assert natural_order(["b", "a", "10", "9"]) == ["10", "9", "a", "b"]


def test_paper_ids_are_identifiers(tmp_path, registry):
    path = tmp_path / "toy.yaml"
    path.write_text(yaml.safe_dump(toy_card(papers=["smith2015", "a-b_2"])))
    assert parse_card(path).papers == ("smith2015", "a-b_2")  # any identifier: the catalogue is not here
    for bad in ("Smith2015", "smith 2015", "-x", "x.y"):
        assert "is not a paper id" in _error(tmp_path, toy_card(papers=[bad]))
    named = {p for card in registry.validate() for p in card.papers}
    assert named == {p for p, names in PAPER_DATASETS.items() if names}


# ---------------------------------------------------------------- line numbers
def test_errors_name_the_line_of_the_field(tmp_path):
    text = yaml.safe_dump(toy_card(), sort_keys=False)
    lines = text.splitlines()
    rows = next(i for i, line in enumerate(lines) if line.strip().startswith("rows:")) + 1
    message = _error(tmp_path, text.replace("rows: 12", "rows: many"))
    assert message.endswith(f"toy.yaml:{rows}: field 'expected.rows' must be an integer >= 1, got 'many' (str)")
    message = _error(tmp_path, text + "taget: class\n")
    assert message.endswith(f"toy.yaml:{len(lines) + 1}: unknown field 'taget'; accepted: " + message.split("accepted: ")[1])
    # a missing field is reported on the line of the mapping that lacks it
    del_target = "\n".join(line for line in lines if not line.startswith("target:")) + "\n"
    assert "toy.yaml:1: field 'target' is missing" in _error(tmp_path, del_target)
    nested = text.replace("  rows: 12\n", "")
    expected_line = next(i for i, line in enumerate(nested.splitlines()) if line.startswith("expected:")) + 2
    assert f"toy.yaml:{expected_line}: field 'expected.rows' is missing" in _error(tmp_path, nested)


def test_duplicate_fields_are_errors(tmp_path):
    text = yaml.safe_dump(toy_card(), sort_keys=False)
    assert "title: Toy" in text
    doubled = text.replace("title: Toy\n", "title: Toy\ntitle: Toy again\n")
    title = doubled.splitlines().index("title: Toy again") + 1
    assert _error(tmp_path, doubled).endswith(
        f"toy.yaml:{title}: field 'title' is given twice (the last one would silently win)"
    )


def test_cards_stay_yaml_11_and_lists_of_mappings_have_lines(tmp_path):
    card = toy_card(corrections=[{"row": 1, "column": "f1", "was": "1e-3", "value": "0.001"}])
    text = yaml.safe_dump(card, sort_keys=False).replace("was: '1e-3'", "was: 1e-3")
    path = tmp_path / "toy.yaml"
    path.write_text(text)
    assert parse_card(path).corrections[0].was == "1e-3"  # the cell's text (configs read 1e-3 as a float)
    bad = text.replace("column: f1", "column: f9")
    line = bad.splitlines().index("  column: f9") + 1
    assert _error(tmp_path, bad).endswith(f"toy.yaml:{line}: field 'corrections[0].column' names unknown column 'f9'")


def test_cards_given_as_mappings_have_no_line_numbers(tmp_path):
    card = toy_card()
    card["expected"]["rows"] = "many"
    with pytest.raises(TreebenchError) as info:
        card_from_mapping(tmp_path / "toy.yaml", card)
    assert str(info.value).endswith("toy.yaml: field 'expected.rows' must be an integer >= 1, got 'many' (str)")


# ---------------------------------------------------------------- checksums
def test_checksum_field_is_64_hex_digits(tmp_path):
    assert parse_card(write_card(tmp_path, toy_card())).checksum == TOY_CHECKSUM
    assert parse_card(write_card(tmp_path, toy_card(checksum=None))).checksum is None
    for bad in ("abc", TOY_CHECKSUM.upper(), TOY_CHECKSUM + "0", TOY_CHECKSUM + "\n", "sha256:" + TOY_CHECKSUM[7:], 12345):
        message = _error(tmp_path, toy_card(checksum=bad))
        assert "field 'checksum' must be 64 lowercase hex digits (`treebench datasets verify NAME --write-checksums`" in message
    text = yaml.safe_dump(toy_card(), sort_keys=False)
    line = next(i for i, x in enumerate(text.splitlines()) if x.startswith("checksum:")) + 1
    assert f"toy.yaml:{line}: field 'checksum'" in _error(tmp_path, text.replace(TOY_CHECKSUM, "deadbeef"))


def test_write_checksum_edits_the_text_in_place(tmp_path):
    card = toy_card()
    del card["checksum"]
    expected = yaml.safe_dump({"expected": card.pop("expected")}, sort_keys=False)
    text = "# a comment that must survive\n" + expected + "\n" + yaml.safe_dump(card, sort_keys=False)
    path = tmp_path / "toy.yaml"
    path.write_text(text)
    assert write_checksum(parse_card(path), TOY_CHECKSUM) is True
    new = path.read_text()
    # one line added right after the expected block (before the blank line), the rest untouched
    assert new == text.replace(expected, expected + f"checksum: {TOY_CHECKSUM}\n")
    assert parse_card(path).checksum == TOY_CHECKSUM
    assert write_checksum(parse_card(path), TOY_CHECKSUM) is False  # unchanged: file not rewritten
    other = "0" * 63 + "1"  # all digits: would read as a number unless quoted
    assert write_checksum(parse_card(path), other) is True
    assert f"checksum: '{other}'" in path.read_text() and parse_card(path).checksum == other
    assert path.read_text().count("checksum:") == 1
    with pytest.raises(TreebenchError, match="checksum 'xyz' is not 64 lowercase hex digits"):
        write_checksum(parse_card(path), "xyz")
