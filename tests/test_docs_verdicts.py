"""docs/reports.md's per-paper verdicts come from the papers' ``verdicts.json`` (issue 38, item 9).

The committed blocks are compared with ``results/KEY/verdicts.json`` when a
reproduction has written them (``TREEBENCH_RESULTS`` names another results
folder), and skipped with the reason otherwise; a grade word written by hand
in a per-paper section fails whatever results are present.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from treebench.papers.catalogue import PAPERS
from treebench.report.docs_verdicts import (
    BEGIN,
    END,
    blocks,
    handwritten_verdicts,
    main,
    rewrite,
    verdict_block,
)
from treebench.report.verdicts import summary

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs" / "reports.md"
RESULTS = Path(os.environ.get("TREEBENCH_RESULTS") or ROOT / "results")


def docs_lines() -> list[str]:
    return DOCS.read_text(encoding="utf-8").split("\n")


def claim(text: str, verdict: str, **more) -> dict:
    return {"claim": text, "kind": "difference", "verdict": verdict, "verdict_calibrated": verdict,
            "location": "Table 2", "effect": 0.5, "interval": [0.1, 0.9], "paper_effect": 0.6,
            "paper_on_paper": {"verdict": "reproduced", "effect": 0.6, "interval": [0.2, 1.0]}, **more}


def document(*claims: dict, key: str = "toy") -> dict:
    return {"paper": "900", "key": key, "claims": list(claims), "summary": summary(c["verdict"] for c in claims)}


def toy_docs(*keys: str, prose: str = "") -> str:
    parts = ["# Docs", "", "## Rules", "", "A claim is `reproduced` when ...", "", "### Paper 900: toy", "", prose]
    for key in keys:
        parts += [BEGIN.format(key=key), "old text", END.format(key=key), ""]
    return "\n".join(parts)


# -- the committed docs ----------------------------------------------------------------------------------
def test_every_paper_of_the_catalogue_has_one_block():
    assert [key for key, _, _ in blocks(docs_lines())] == list(PAPERS)


def test_no_verdict_is_written_by_hand_in_the_paper_sections():
    found = handwritten_verdicts(DOCS.read_text(encoding="utf-8"))
    assert found == [], "grades written by hand (state them with data: make docs-verdicts):\n" + "\n".join(
        f"docs/reports.md:{n}: {line}" for n, line in found)


def test_the_committed_blocks_agree_with_the_verdicts_json_present():
    present = {key: RESULTS / key / "verdicts.json" for key in PAPERS if (RESULTS / key / "verdicts.json").is_file()}
    if not present:
        pytest.skip(f"not compared: no {RESULTS}/KEY/verdicts.json for any paper (make reproduce writes them; "
                    "TREEBENCH_RESULTS names another folder)")
    lines = docs_lines()
    committed = {key: lines[start + 1:end] for key, start, end in blocks(lines)}
    stale = [key for key, path in present.items()
             if committed[key] != verdict_block(json.loads(path.read_text(encoding="utf-8")),
                                                f"results/{key}/verdicts.json")]
    assert stale == [], f"docs/reports.md's blocks {stale} differ from their verdicts.json: run make docs-verdicts"


# -- the generator -------------------------------------------------------------------------------------
def test_a_block_lists_every_claim_with_its_grades_and_numbers():
    doc = document(claim("A beats B", "reproduced"), claim("C | D equivalent", "inconclusive", kind="equivalence",
                                                            margin=1.5, verdict_calibrated="not testable (none)"))
    lines = verdict_block(doc, "results/toy/verdicts.json")
    assert "`results/toy/verdicts.json`" in lines[0]
    assert "all datasets: 2 claims: 1 reproduced, 1 inconclusive; calibrated datasets only: 2 claims: " \
           "1 reproduced, 1 not testable." in lines[2]
    rows = [line for line in lines if line.startswith("| ") and "---" not in line][1:]
    assert rows == ["| A beats B | Table 2 | reproduced | reproduced | reproduced | +0.5 [+0.1, +0.9] | +0.6 |",
                    "| C \\| D equivalent | Table 2 | inconclusive | not testable (none) | reproduced | "
                    "+0.5 [+0.1, +0.9], margin ± 1.5 | +0.6 |"]


def test_rewrite_fills_the_blocks_it_has_data_for_and_keeps_the_others(tmp_path):
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "verdicts.json").write_text(json.dumps(document(claim("A beats B", "reversed"))))
    text = toy_docs("toy", "other")
    new, done, kept = rewrite(text, tmp_path)
    assert (done, kept) == (["toy"], ["other"])
    lines = new.split("\n")
    spans = {key: lines[s + 1:e] for key, s, e in blocks(lines)}
    assert spans["other"] == ["old text"] and "| A beats B | Table 2 | reversed |" in "\n".join(spans["toy"])
    assert rewrite(new, tmp_path)[0] == new  # a second run changes nothing
    assert new.split(BEGIN.format(key="toy"))[0] == text.split(BEGIN.format(key="toy"))[0]  # prose untouched


def test_a_verdict_written_by_hand_is_found_outside_the_blocks_only():
    text = toy_docs("toy", prose="Measured: the claim is not reproduced; it Reproduces nothing.")
    assert [line for _, line in handwritten_verdicts(text)] == [
        "Measured: the claim is not reproduced; it Reproduces nothing."]
    # the rules section may name grades; a generated block holds them
    assert handwritten_verdicts(toy_docs("toy")) == []
    inside = toy_docs("toy").replace("old text", "| A | reproduced |")
    assert handwritten_verdicts(inside) == []
    # `make reproduce` is a command, not a verdict
    assert handwritten_verdicts(toy_docs(prose="Run `make reproduce` and `treebench reproduce toy`.")) == []


def test_the_command_rewrites_checks_and_refuses_bad_input_in_one_line(tmp_path, capsys):
    docs = tmp_path / "docs.md"
    docs.write_text(toy_docs("toy"), encoding="utf-8")
    results = tmp_path / "results"
    (results / "toy").mkdir(parents=True)
    (results / "toy" / "verdicts.json").write_text(json.dumps(document(claim("A beats B", "reproduced"))))
    argv = ["--docs", str(docs), "--results", str(results)]
    assert main([*argv, "--check"]) == 1 and "block 'toy' differs" in capsys.readouterr().err
    assert main(argv) == 0 and "1 block from" in capsys.readouterr().out
    assert "| A beats B |" in docs.read_text(encoding="utf-8")
    assert main([*argv, "--check"]) == 0
    bad = {
        "no file": (["--docs", str(tmp_path / "none.md"), "--results", str(results)], r"no such file"),
        "no folder": (["--docs", str(docs), "--results", str(tmp_path / "none")], r"no such folder"),
    }
    unclosed = tmp_path / "unclosed.md"
    unclosed.write_text(BEGIN.format(key="toy") + "\ntext\n", encoding="utf-8")
    bad["unclosed"] = (["--docs", str(unclosed), "--results", str(results)], "block 'toy' has no end marker")
    empty = tmp_path / "empty.md"
    empty.write_text("# nothing\n", encoding="utf-8")
    bad["no block"] = (["--docs", str(empty), "--results", str(results)], "no verdict block")
    for name, (args, message) in bad.items():
        assert main(args) == 2, name
        err = capsys.readouterr().err
        assert err.startswith("error: ") and message in err and "accepted:" in err and err.count("\n") == 1, name
    (results / "toy" / "verdicts.json").write_text("{not json")
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "verdicts.json: not JSON" in err and "Traceback" not in err and err.count("\n") == 1
