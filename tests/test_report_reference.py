"""The reference CSVs against the paper texts they were transcribed from."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from treebench.data import names as dataset_names
from treebench.papers.catalogue import PAPERS as CATALOGUE
from treebench.report.reference import load_reference

PAPERS = Path(__file__).resolve().parents[2] / "shared" / "papers"
needs_papers = pytest.mark.skipif(not PAPERS.is_dir(), reason="paper texts not available")


def test_dataset_names_are_treebench_cards():
    cards = set(dataset_names())
    for f in [spec.reference for spec in CATALOGUE.values()]:  # every catalogued paper's table
        ref = load_reference(f)
        named = {d for d in ref["dataset"] if d}
        assert named <= cards, (f, named - cards)


@needs_papers
def test_000_table1_matches_the_text():
    text = (PAPERS / "000_5d361bc2f3a57f61.txt").read_text(encoding="utf-8")
    block = text[text.index("DATA SET\tLOG TREE"): text.index("Table 1. Classification")]
    printed = {}
    for line in block.splitlines()[1:]:
        if line.strip():
            printed[line.split("\t")[0]] = re.findall(r"(\d+\.\d)\s*(?:\{\\pm\}|\\pm|±)\s*(\d+\.\d)", line)
    ref = load_reference("000_serrurier2015_table1.csv")
    assert len(ref) == 80 and len(printed) == 16
    order = ["LOG TREE", "Pruned", "PTREE", "O-PTREE", "J48"]
    for r in ref.itertuples():
        v, s = printed[r.dataset_label][order.index(r.algorithm_label)]
        assert (float(v), float(s)) == (r.value, r.std)


@needs_papers
def test_001_table2_values_and_marks_match_the_text():
    text = (PAPERS / "001_f64ebe44d02de1c6.txt").read_text(encoding="utf-8")
    ref = load_reference("001_mee_table2.csv")
    for label in ("CART", "C4.5", "MEE"):
        line = next(x for x in text.splitlines() if x.startswith(label + "\t"))
        cells = re.findall(r"(<[ub]>)?(0\.\d+)(?:</[ub]>)? \((0\.\d+)\)", line)
        mine = ref[ref["algorithm_label"] == label]
        assert len(cells) == len(mine) == 7
        for (tag, v, s), r in zip(cells, mine.itertuples()):
            assert (float(v), float(s)) == (r.value, r.std)
            assert {"<u>": "underline", "<b>": "bold", "": ""}[tag] == r.mark


@needs_papers
def test_002_table2_rows_match_the_text():
    text = (PAPERS / "002_2a01bd8e695ad6d7.txt").read_text(encoding="utf-8")
    ref = load_reference("002_tsallis_table2.csv")
    for label, group in ref.groupby("dataset_label"):
        line = next(x for x in text.splitlines() if re.match(re.escape(label) + r" [\d.]+ [\d.]+ ", x))
        nums = [float(x) for x in line.split()[1:]]
        acc = list(group[group.metric == "accuracy"]["value"])
        nodes = list(group[group.metric == "n_nodes"]["value"])
        q = set(group[group.metric == "q"]["value"])
        assert len(q) == 1
        rebuilt = [acc[0], nodes[0], acc[1], nodes[1], acc[2], nodes[2], acc[3], nodes[3], q.pop(), acc[4], nodes[4]]
        assert rebuilt == nums, label


@needs_papers
def test_003_and_004_numbers_appear_in_the_text():
    t3 = (PAPERS / "003_73d743e383d071e1.txt").read_text(encoding="utf-8")
    for r in load_reference("003_certainty_errors.csv").itertuples():
        assert re.search(rf"\b{int(r.value):,}\b|\b{int(r.value)}\b", t3), r
    t4 = (PAPERS / "004_9d9b02984c6a5021.txt").read_text(encoding="utf-8")
    assert "error rate\t0.35\t0.34" in t4 and "E\t0.26\t0.22" in t4
    assert set(load_reference("004_belief_table1.csv")["value"]) == {0.35, 0.34, 0.26, 0.22}
