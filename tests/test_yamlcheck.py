"""treebench.yamlcheck: YAML with the line of every field, and problems as file:line: field: ..."""

from __future__ import annotations

import re

import pytest
import yaml

from treebench import yamlcheck
from treebench.errors import TreebenchError
from treebench.yamlcheck import (
    DUPLICATE_KEY,
    Checker,
    Loader,
    ProblemsError,
    PureLoader,
    YamlSyntaxError,
    field_name,
    parse,
    value_kind,
)

TEXT = """\
experiment: demo
seed: 3
datasets:
  - iris
  - name: wine
    protocol: {type: cv, folds: 5}
algorithms:
  - name: a
    grid:
      gamma: [1e-3, 0.1, 2E+2, -1.5e-2, 1_0e1]
"""

LOADERS = pytest.mark.parametrize("loader", [Loader, PureLoader], ids=["libyaml", "pure"])


# ---------------------------------------------------------------- parse
@LOADERS
def test_data_is_what_yaml_reads_plus_floats_without_a_dot(loader):
    doc = parse(TEXT, "c.yaml", loader=loader)
    assert doc.data["seed"] == 3 and doc.data["datasets"][1]["protocol"] == {
        "type": "cv",
        "folds": 5,
    }
    gamma = doc.data["algorithms"][0]["grid"]["gamma"]
    assert gamma == [0.001, 0.1, 200.0, -0.015, 100.0] and all(type(g) is float for g in gamma)
    assert (
        yaml.safe_load(TEXT)["algorithms"][0]["grid"]["gamma"][0] == "1e-3"
    )  # YAML 1.1 would keep text
    assert doc.duplicates == ()


@LOADERS
def test_lines_of_values_and_keys(loader):
    doc = parse(TEXT, "c.yaml", loader=loader)
    assert doc.lines[()] == 1
    assert doc.lines[("seed",)] == 2 and doc.key_lines[("seed",)] == 2
    assert doc.lines[("datasets",)] == 4  # a block list starts at its first item
    assert doc.key_lines[("datasets",)] == 3
    assert doc.lines[("datasets", 0)] == 4 and doc.lines[("datasets", 1)] == 5
    assert doc.lines[("datasets", 1, "protocol", "folds")] == 6
    assert doc.lines[("algorithms", 0, "grid", "gamma", 4)] == 10
    assert ("datasets", 0) not in doc.key_lines  # list items have no key


def test_both_loaders_agree_and_plain_loaders_stay_yaml_11():
    assert parse(TEXT, loader=Loader) == parse(TEXT, loader=PureLoader)
    plain = parse(TEXT, loader=yaml.SafeLoader)
    assert plain.data["algorithms"][0]["grid"]["gamma"][0] == "1e-3"
    assert plain.lines == parse(TEXT).lines
    assert yaml.safe_load("x: 1e-3") == {"x": "1e-3"}  # PyYAML's own loaders are not changed


@LOADERS
def test_duplicate_keys_are_found_with_the_line_of_the_second(loader):
    text = "seed: 1\nalgorithms:\n  - name: a\n    name: b\nseed: 2\n"
    doc = parse(text, loader=loader)
    assert doc.data == {"seed": 2, "algorithms": [{"name": "b"}]}  # what YAML does: the last wins
    assert doc.duplicates == ((("algorithms", 0, "name"), 4), (("seed",), 5))


@LOADERS
def test_merge_keys_are_not_duplicates_and_aliases_do_not_loop(loader):
    text = "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  x: 3\nloop: &l [1, *l]\n"
    doc = parse(text, loader=loader)
    assert doc.data["c"] == {"x": 3, "y": 2} and doc.duplicates == ()
    assert doc.lines[("c", "x")] == 4
    assert doc.data["loop"][1] is doc.data["loop"]


@LOADERS
def test_empty_text(loader):
    doc = parse("# nothing\n", loader=loader)
    assert (doc.data, doc.lines, doc.duplicates) == (None, {}, ())


@LOADERS
@pytest.mark.parametrize(
    ("text", "line"),
    [
        ("a: 1\n  b: 2\n", 2),
        ("a: [1, 2\n", 2),
        ("a: !!python/object:os.system x\n", 1),
        ("--- 1\n--- 2\n", 2),
    ],
)
def test_syntax_errors_are_one_line_with_the_line(loader, text, line):
    with pytest.raises(YamlSyntaxError) as info:
        parse(text, "c.yaml", loader=loader)
    error = info.value
    assert isinstance(error, TreebenchError) and error.line == line and error.problem
    assert str(error) == f"c.yaml:{line}: YAML syntax error: {error.problem}"
    assert error.__cause__ is None and error.__suppress_context__


@LOADERS
def test_syntax_error_without_a_position(loader):
    with pytest.raises(YamlSyntaxError) as info:
        parse("a: \x07\n", "c.yaml", loader=loader)
    assert info.value.line is None
    assert re.fullmatch(
        r"c\.yaml: YAML syntax error: unacceptable character #x0007: .*", str(info.value)
    )


# ---------------------------------------------------------------- names and kinds
def test_field_names():
    assert field_name(()) == "(top level)"
    assert field_name(("seed",)) == "seed"
    assert field_name(("algorithms", 0, "grid", "gamma")) == "algorithms[0].grid.gamma"
    assert field_name(("datasets", 1, 2)) == "datasets[1][2]"
    assert field_name(("flags", True)) == "flags.True"  # a boolean key is a key, not an index


def test_value_kinds():
    values = [None, {}, [], "x", True, 3, 1.5]
    assert [value_kind(v) for v in values] == [
        "nothing",
        "a mapping",
        "a list",
        "text",
        "true/false",
        "int",
        "float",
    ]


# ---------------------------------------------------------------- checker
def _checker(text: str) -> Checker:
    return Checker.for_document("c.yaml", parse(text, "c.yaml"))


def test_problems_are_formatted_and_sorted_by_line():
    check = _checker(TEXT)
    check.add(("algorithms", 0, "grid", "gamma", 1), "not allowed; accepted: numbers below 0.05")
    check.add(("seed",), "-1 is out of range")
    check.add(
        ("datasets", 1, "protocol", "repeats"), "missing"
    )  # not in the file: its mapping's line
    check.add(("datasets", 1, "protocol", "folds"), "unknown key 'folds'", key=True)
    assert check.formatted() == [
        "c.yaml:2: seed: -1 is out of range",
        "c.yaml:6: datasets[1].protocol.repeats: missing",
        "c.yaml:6: datasets[1].protocol.folds: unknown key 'folds'",
        "c.yaml:10: algorithms[0].grid.gamma[1]: not allowed; accepted: numbers below 0.05",
    ]
    with pytest.raises(ProblemsError) as info:
        check.raise_problems()
    assert info.value.problems == check.formatted() and info.value.path == "c.yaml"
    assert str(info.value) == "4 problems in c.yaml:\n" + "\n".join(
        f"  {p}" for p in check.formatted()
    )


def test_one_problem_is_the_whole_message_and_none_raises_nothing():
    check = _checker(TEXT)
    check.raise_problems()
    check.add(("seed",), "bad")
    with pytest.raises(ProblemsError, match=r"^c\.yaml:2: seed: bad$"):
        check.raise_problems()

    class ConfigError(ProblemsError):
        """What a caller's own error class looks like."""

    with pytest.raises(ConfigError):
        check.raise_problems(ConfigError)


def test_duplicate_keys_become_problems_on_the_key_line():
    check = _checker("a:\n  b: 1\n  b:\n    - 2\n")
    assert check.formatted() == [f"c.yaml:3: a.b: {DUPLICATE_KEY}"]


def test_line_fallbacks():
    check = _checker(TEXT)
    assert check.line(("nowhere", 3)) == 1  # nothing encloses it: the document's first line
    assert check.line(("algorithms", 0, "params")) == 8
    assert check.line(("seed",), key=True) == 2
    assert check.line(("datasets", 0), key=True) == 4  # no key: the value's line
    empty = Checker("c.yaml", {}, {})
    assert empty.line(("x",)) == 1


def test_without_lines_messages_name_the_file_only():
    check = Checker("cards/x.yaml")
    assert check.line(("a", "b")) == 0 and check.where(("a",)) == "cards/x.yaml"
    check.add(("a",), "wrong")
    assert check.formatted() == ["cards/x.yaml: a: wrong"]
    assert str(check.error(("a",), "field 'a' is wrong")) == "cards/x.yaml: field 'a' is wrong"


def test_error_is_one_line_and_not_collected():
    check = _checker(TEXT)
    error = check.error(("datasets", 1, "name"), "field 'datasets[1].name' is odd")
    assert isinstance(error, TreebenchError)
    assert str(error) == "c.yaml:5: field 'datasets[1].name' is odd"
    assert check.where(("datasets", 1), key=True) == "c.yaml:5"
    assert check.problems == []


def test_typed_fields():
    check = _checker(TEXT)
    pattern = re.compile(r"^[a-z]+$")
    assert check.mapping({"seed": 1}, (), ("seed", "datasets"), required=("seed",)) == {"seed": 1}
    assert check.integer(3, ("seed",), 0) == 3 and check.fraction(0.5, ("x",)) == 0.5
    assert (
        check.text("abc", ("experiment",), pattern) == "abc"
        and check.boolean(False, ("b",)) is False
    )
    assert check.choice("cv", ("t",), ("cv", "loo"), "protocol") == "cv"
    assert check.problems == []

    assert check.mapping([1], ("datasets",), ("name", "train")) is None
    assert check.mapping({"sed": 1}, (), ("seed", "datasets"), required=("datasets",)) == {"sed": 1}
    assert check.integer(True, ("seed",), 0) is None and check.integer(-1, ("seed",), 0) is None
    assert check.fraction(1, ("seed",)) is None
    assert (
        check.text(" ", ("experiment",)) is None
        and check.text("A b", ("experiment",), pattern) is None
    )
    assert check.boolean("yes", ("seed",)) is None
    assert check.choice("lo", ("seed",), ("cv", "loo"), "protocol") is None
    messages = [message for _line, message in check.problems]
    assert messages == [
        "datasets: expected a mapping with keys name, train; got a list",
        "sed: unknown key 'sed' (did you mean seed?); accepted: seed, datasets",
        "(top level): missing required key 'datasets'",
        "seed: expected an integer >= 0; got True",
        "seed: -1 is out of range; accepted: an integer >= 0",
        "seed: expected a number strictly between 0 and 1; got 1",
        "experiment: expected non-empty text; got text ' '",
        "experiment: 'A b' is not a valid name; accepted: letters, digits, '.', '_', '-'",
        "seed: expected true or false; got 'yes'",
        "seed: unknown protocol 'lo' (did you mean loo?); accepted: cv, loo",
    ]


def test_module_imports_nothing_of_treebench_but_errors():
    source = open(yamlcheck.__file__, encoding="utf-8").read()
    imported = set(re.findall(r"^(?:from|import) (treebench[.\w]*)", source, re.M))
    assert imported == {"treebench.errors"}
