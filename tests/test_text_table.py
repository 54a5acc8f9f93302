"""treebench.text_table.format_table: header, rule, aligned columns."""

from __future__ import annotations

import pytest

from treebench.text_table import format_table


def test_layout():
    table = format_table(
        ["name", "rows", "note"], [["iris", 150, None], ["abalone", 4177, "x"]], numeric=(1,)
    )
    assert table.splitlines() == [
        "name     rows  note",
        "-------  ----  ----",
        "iris      150",
        "abalone  4177  x",
    ]


def test_strings_and_generators_and_no_rows():
    rows = (["a", "1"] for _ in range(2))
    assert (
        format_table(("k", "value"), rows, numeric=[1]) == "k  value\n-  -----\na      1\na      1"
    )
    assert format_table(["only"], []) == "only\n----"


def test_rows_must_match_the_headers():
    with pytest.raises(ValueError, match="2 cells for 3 headers"):
        format_table(["a", "b", "c"], [[1, 2]])
