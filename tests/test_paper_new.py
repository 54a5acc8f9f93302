"""``treebench paper new``, ``treebench papers list`` and docs/papers.md's walk-through, end to end (issue 41, B2)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from treebench.cli import cli
from treebench.papers.catalogue import PAPERS

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "papers.md"


def _invoke(args: list[str]):
    result = CliRunner().invoke(cli, args)
    assert "Traceback" not in result.output
    return result


def walkthrough_files() -> dict[str, str]:
    """``{path in the walk-through: text}``: each block docs/papers.md marks ``<!-- walk-through: PATH -->``."""
    text = DOC.read_text(encoding="utf-8")
    found = re.findall(r"^<!-- walk-through: (\S+) -->\n```\w*\n(.*?)^```", text, flags=re.S | re.M)
    return dict(found)


def test_the_skeleton_is_accepted_as_it_is(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = _invoke(["paper", "new", "mypaper", "--dir", "papers"])
    assert result.exit_code == 0, result.output
    folder = tmp_path / "papers" / "mypaper"
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == [
        "causes.yaml", "config.yaml", "paper.yaml", "reference/mypaper.csv"]
    checked = _invoke(["paper", "check", str(folder)])
    assert checked.exit_code == 0, checked.output
    assert checked.output.splitlines()[-1] == "mypaper: 0 claims (0 graded), 2 datasets, 0 reference cells: no problems"
    # every commented claim, uncommented, is a claim the loader reads (the skeleton's examples are valid)
    text = (folder / "paper.yaml").read_text(encoding="utf-8")
    claims = text[text.index("claims: []"):]
    body = "\n".join(line[1:] if line.startswith("#") else line for line in claims.splitlines()[1:])
    (folder / "paper.yaml").write_text(text[:text.index("claims: []")] + "claims:\n" + body + "\n", encoding="utf-8")
    from treebench.papers.folder import load_paper_folder

    spec = load_paper_folder(folder)
    kinds = [type(s.claim).__name__ for s in spec.claims if s.claim is not None]
    assert kinds == ["FewerClaim", "FoldsClaim", "WilcoxonClaim", "MeanDiffClaim", "MostClaim", "UnderlineClaim",
                     "OneWayClaim"]
    assert [s.why_not for s in spec.claims if s.claim is None] == ["the paper runs no forest"]


@pytest.mark.parametrize(("args", "expected"), [
    (["paper", "new", "Bad Name"], "paper name 'Bad Name' is not a valid key; accepted: lower-case letters"),
    (["paper", "new", "belief"], "'belief' is a built-in paper's name"),
    (["paper", "new", "taken"], "taken is a folder that is not empty; accepted: a new folder"),
    (["paper", "new", "afile"], "afile is not a folder; accepted: a new folder"),
    (["paper", "new", "x", "--dir", "afile"], "--dir 'afile' is not a folder"),
])
def test_paper_new_refusal_is_one_line_on_stderr(tmp_path, monkeypatch, capsys, args, expected):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "notes.txt").write_text("mine", encoding="utf-8")
    (tmp_path / "afile").write_text("a file", encoding="utf-8")
    from treebench.cli import main

    with pytest.raises(SystemExit) as info:
        main(args)
    err = capsys.readouterr().err
    assert info.value.code != 0 and expected in err, err
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert (tmp_path / "taken" / "notes.txt").read_text(encoding="utf-8") == "mine"  # nothing written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["afile", "taken"]


def test_papers_list_shows_the_catalogue():
    result = _invoke(["papers", "list"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    assert lines[0].split() == ["key", "number", "aliases", "citation", "folder"]
    body = lines[2:]
    assert [line.split()[0] for line in body] == list(PAPERS)
    for line, spec in zip(body, PAPERS.values()):
        assert line.split()[1] == spec.number and f"treebench/papers/{spec.key}" in line


def test_the_makefile_targets_come_from_the_catalogue():
    from treebench.papers.listing import main

    keys = subprocess.run([sys.executable, "-m", "treebench.papers.listing", "--keys"],
                          capture_output=True, text=True, cwd=ROOT, check=True).stdout.split()
    assert keys == list(PAPERS)
    assert main(["--bogus"]) == 2
    dry = subprocess.run(["make", "-n", *(f"reproduce-{key}" for key in PAPERS)], capture_output=True, text=True,
                         cwd=ROOT)
    assert dry.returncode == 0, dry.stderr
    for key in PAPERS:
        assert f"treebench reproduce {key}" in dry.stdout
    assert "PAPERS := $(shell" in (ROOT / "Makefile").read_text(encoding="utf-8")


def test_the_walkthrough_end_to_end(tmp_path, monkeypatch):
    """docs/papers.md's walk-through, step by step: paper new demo, its two files, paper check, reproduce demo."""
    files = walkthrough_files()
    assert sorted(files) == ["demo/paper.yaml", "demo/reference/demo.csv"]
    monkeypatch.chdir(tmp_path)
    start = time.perf_counter()
    assert _invoke(["paper", "new", "demo"]).exit_code == 0
    for name, text in files.items():
        (tmp_path / name).write_text(text, encoding="utf-8")
    checked = _invoke(["paper", "check", "demo", "--grades"])
    assert checked.exit_code == 0, checked.output
    assert checked.output.splitlines()[-1] == "demo: 2 claims (2 graded), 2 datasets, 8 reference cells: no problems"
    grades = [line for line in checked.output.splitlines() if ": on the paper's own numbers: " in line]
    shown = re.findall(r"^demo/paper\.yaml:\d+: claims\[\d\]: .*$", DOC.read_text(encoding="utf-8"), flags=re.M)
    assert grades == shown  # the docs show what the check prints
    checked_at = time.perf_counter()
    reproduced = _invoke(["reproduce", "demo"])
    assert reproduced.exit_code == 0, reproduced.output + repr(reproduced.exception)
    elapsed = time.perf_counter() - start
    report = (tmp_path / "results" / "demo" / "report.md").read_text(encoding="utf-8")
    assert report.startswith("# Reproduction of paper 900 (demo)")
    assert "illustrative numbers (not a published paper)" in report
    verdicts = json.loads((tmp_path / "results" / "demo" / "verdicts.json").read_text(encoding="utf-8"))
    claims = verdicts["claims"]
    assert [c["claim"] for c in claims] == ["Entropy trees are more accurate than Gini trees on average",
                                            "Gini trees have fewer leaves than entropy trees on both datasets"]
    # the grade on the paper's own numbers in the report is the one paper check printed
    for line, claim in zip(grades, claims):
        assert line.endswith(f"on the paper's own numbers: {claim['paper_on_paper']['verdict']}"), (line, claim)
    print(f"walk-through: paper new + check {checked_at - start:.1f} s, reproduce {elapsed - (checked_at - start):.1f} s, "
          f"total {elapsed:.1f} s")
