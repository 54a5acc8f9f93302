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
def test_merge_keys_are_not_duplicates_and_aliases_keep_working(loader):
    text = "base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  x: 3\nd: [*b, *b]\n"
    doc = parse(text, loader=loader)
    assert doc.data["c"] == {"x": 3, "y": 2} and doc.duplicates == ()
    assert doc.lines[("c", "x")] == 4 and doc.lines[("d", 1, "y")] == 1  # an alias: its anchor's line
    assert doc.data["d"] == [{"x": 1, "y": 2}] * 2


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


# ---------------------------------------------------------------- limits
def laughs(levels: int, width: int = 10) -> str:
    """A "billion laughs" document: each level repeats the one before ``width`` times.

    Kept small (``width ** levels`` values once expanded), so a test stays
    cheap even if the protection it checks were gone.
    """
    rows = ["l0: &l0 [" + ", ".join(["lol"] * width) + "]"]
    for level in range(1, levels):
        rows.append(f"l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * width) + "]")
    return "\n".join(rows) + "\n"


@LOADERS
def test_aliases_expanding_beyond_the_budget_are_refused_before_expansion(loader):
    text = laughs(4)  # l0..l3 expand to 11, 111, 1111 and 11111 values (each list counts)
    with pytest.raises(yamlcheck.YamlLimitError) as info:
        parse(text, "c.yaml", loader=loader, max_values=1000)
    assert str(info.value) == (  # the first value beyond the budget: l2, on line 3
        "c.yaml:3: YAML document too large: more than 1000 values once aliases are expanded "
        "(an alias repeats its anchor's whole value); accepted: at most 1000"
    )
    doc = parse(text, "c.yaml", loader=loader, max_values=20_000)  # within budget: plain YAML
    assert doc.data["l3"][9][9][9][9] == "lol" and doc.lines[("l3", 9, 9, 9, 9)] == 1


@LOADERS
def test_the_default_budget_stops_a_laughs_attack(loader):
    with pytest.raises(yamlcheck.YamlLimitError, match=r"c\.yaml:5: .*more than 100000 values"):
        parse(laughs(6), "c.yaml", loader=loader)  # l4 (line 5) expands to 111111 values


@LOADERS
def test_nesting_depth_is_bounded_before_python_recursion_runs_out(loader):
    def nested(levels: int) -> str:  # the mapping is level 1, then `levels - 1` lists
        return "x: " + "[" * (levels - 1) + "]" * (levels - 1) + "\n"

    inner = parse(nested(50), loader=loader, max_depth=50).data["x"]
    for _ in range(48):
        inner = inner[0]
    assert inner == []
    message = r"^c\.yaml:1: YAML nesting deeper than 50 levels; accepted: at most 50$"
    with pytest.raises(yamlcheck.YamlLimitError, match=message):
        parse(nested(51), "c.yaml", loader=loader, max_depth=50)
    for levels in (300, 5000):  # below and above libyaml's own limit of 1000 levels
        with pytest.raises(yamlcheck.YamlLimitError, match="deeper than 100 levels; accepted: at most 100$"):
            parse(nested(levels), "c.yaml", loader=loader)


@LOADERS
def test_depth_counts_what_aliases_expand_to(loader):
    text = "a: &a [[[1]]]\nb: [[*a]]\n"  # written 5 deep, expanded 7 deep (the scalar included)
    parse(text, loader=loader, max_depth=7)
    with pytest.raises(yamlcheck.YamlLimitError, match="deeper than 6 levels"):
        parse(text, loader=loader, max_depth=6)


@LOADERS
@pytest.mark.parametrize("text", ["loop: &l [1, *l]\n", "m: &m {a: {b: *m}}\n"])
def test_recursive_aliases_are_refused(loader, text):
    with pytest.raises(yamlcheck.YamlLimitError, match=r"^c\.yaml:1: YAML alias inside the value it names"):
        parse(text, "c.yaml", loader=loader)


def test_plain_pyyaml_loaders_get_the_depth_guard_too():
    with pytest.raises(yamlcheck.YamlLimitError, match="deeper than 100 levels"):
        parse("[" * 2000 + "]" * 2000, loader=yaml.SafeLoader)


# ---------------------------------------------------------------- read_text
def test_read_text_returns_utf8_text_without_a_bom(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_bytes("\ufeffname: café\n".encode())
    assert yamlcheck.read_text(path, "config") == "name: café\n"


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, r"^config file '.*c\.yaml' not found$"),
        ("folder", r"^config '.*c\.yaml' is a folder; accepted: a YAML file$"),
        (b"x: 1\n" * 30, r"is larger than 100 bytes; accepted: at most 100 bytes$"),
        (b"x: \x00\x01\x02", r"is binary \(it holds NUL bytes\); accepted: a YAML text file in UTF-8$"),
        (b"x: caf\xe9\n", r"is not UTF-8 text \(byte 0xe9 at offset 6\); accepted: a YAML text file in UTF-8$"),
    ],
    ids=["missing", "folder", "too large", "binary", "latin-1"],
)
def test_read_text_refuses_in_one_line(tmp_path, content, message):
    path = tmp_path / "c.yaml"
    if content == "folder":
        path.mkdir()
    elif content is not None:
        path.write_bytes(content)
    with pytest.raises(TreebenchError, match=message) as info:
        yamlcheck.read_text(path, "config", max_bytes=100)
    assert "\n" not in str(info.value)


def test_integer_with_a_maximum():
    check = _checker(TEXT)
    assert check.integer(7, ("seed",), 0, 7) == 7
    assert check.integer(8, ("seed",), 0, 7) is None and check.integer("8", ("seed",), 0, 7) is None
    assert [m for _line, m in check.problems] == [
        "seed: 8 is out of range; accepted: an integer from 0 to 7",
        "seed: expected an integer from 0 to 7; got '8'",
    ]
