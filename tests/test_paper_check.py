"""``treebench paper check FOLDER`` (issue 41, B2): every built-in folder passes; each kind of mistake in a
copy of paper 004's folder is one line with its file and line, exit 1, no traceback."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from treebench.cli import cli
from treebench.papers.catalogue import PAPERS
from treebench.papers.check import check_folder

ROOT = Path(__file__).resolve().parents[1]
BELIEF = ROOT / "treebench" / "papers" / "belief"
REFERENCE = "004_belief_table1.csv"
#: The catalogued papers that are folders (a paper.yaml); the others are still Python specs.
FOLDERS = {key: Path(spec.folder) for key, spec in PAPERS.items() if spec.folder}


@pytest.fixture
def paper(tmp_path, monkeypatch) -> Path:
    """A copy of 004's folder holding its own config and reference table, checked from the repository root."""
    monkeypatch.chdir(ROOT)  # where configs/ and results/reference are, as for reproduce
    folder = tmp_path / "copy-of-004"
    shutil.copytree(BELIEF, folder, ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(ROOT / "configs" / "belief.yaml", folder / "config.yaml")
    (folder / "reference").mkdir()
    shutil.copy(ROOT / "results" / "reference" / REFERENCE, folder / "reference" / REFERENCE)
    text = (folder / "paper.yaml").read_text(encoding="utf-8")
    (folder / "paper.yaml").write_text(text.replace("config: configs/belief.yaml", "config: ./config.yaml"),
                                       encoding="utf-8")
    return folder


def _check(folder: Path):
    result = CliRunner().invoke(cli, ["paper", "check", str(folder)])
    assert "Traceback" not in result.output and (result.exception is None or isinstance(result.exception, SystemExit))
    return result


@pytest.mark.parametrize("key", sorted(FOLDERS))
def test_every_built_in_folder_passes(key, monkeypatch):
    monkeypatch.chdir(ROOT)
    result = _check(FOLDERS[key])
    assert result.exit_code == 0, result.output
    last = result.output.splitlines()[-1]
    spec = PAPERS[key]
    assert last.startswith(f"{key}: {len(spec.claims)} claims (") and last.endswith(("no problems", "warnings)")), last
    by_key = _check(Path(key))  # a built-in paper is also named by its key
    assert by_key.output.splitlines()[-1] == last and f"treebench/papers/{key}/paper.yaml" not in last


def test_the_copy_passes_as_it_is(paper):
    result = _check(paper)
    assert result.exit_code == 0, result.output
    assert result.output.splitlines()[-1] == "belief: 4 claims (3 graded), 6 datasets, 4 reference cells: no problems"


def _line(text: str, marker: str) -> int:
    """The 1-based line of the first occurrence of ``marker`` in ``text``."""
    assert text.count(marker) >= 1, marker
    return text[: text.index(marker)].count("\n") + 1


#: (id, file, old text, new text, marker of the expected line in the mutated file, what the line says)
BROKEN = [
    ("unknown claim kind", "paper.yaml", "kind: fewer", "kind: fewr", "kind: fewr",
     "claims[0].claim.kind: unknown claim kind 'fewr' (did you mean fewer?); accepted: "),
    ("missing field", "paper.yaml", "      metric: error\n      datasets: []\n", "      metric: error\n",
     "kind: fewer", "claims[0].claim: claim kind 'fewer' needs field 'datasets'"),
    ("wrong type", "paper.yaml", "design_cases: 150", "design_cases: many", "design_cases: many",
     "claims[2].claim.design_cases: expected an integer; got 'many'"),
    ("unknown dataset", "config.yaml", "datasets: [diabetes,", "datasets: [diabetis,", "datasets: [diabetis,",
     "datasets[0]: unknown dataset 'diabetis'; did you mean: diabetes?"),
    ("reference algorithm not run", f"reference/{REFERENCE}", "unc. labels,belief-uncertain,error",
     "unc. labels,belief-unsure,error", "belief-unsure",
     "algorithm: 'belief-unsure' is not run by the config; accepted: belief-crisp, belief-uncertain, entropy"),
    ("claim comparator absent", "paper.yaml", "      b: c4.5\n", "      b: c50\n", "b: c50",
     "claims[2].claim.b: claim kind 'folds' compares algorithm 'c50', which the config does not run and the "
     "reference table does not print; accepted: belief-crisp"),
    ("bad causes.yaml", "causes.yaml", "kind: unpublished data", "kind: unpublished", "kind: unpublished",
     "causes[0].kind: kind 'unpublished' is not accepted; accepted: misprint, "),
    ("missing reference file", "paper.yaml", f"reference: {REFERENCE}", "reference: 004_belief_table9.csv",
     "reference: 004_belief_table9.csv", "reference: no reference table '004_belief_table9.csv'"),
    ("duplicate statement", "paper.yaml",
     "text: Uncertain labels lower the pignistic error E significantly (paired t-test over folds, our choice)",
     "text: Uncertain labels lower the error rate (marginally)", "location: Section 4, Table 1 (0.26",
     "claims[1]: statement 'Uncertain labels lower the error rate (marginally)' given twice (also claims[0])"),
    ("sections.py function missing", "paper.yaml", '"sections:belief_tables"', '"sections:belief_tablez"',
     "sections:belief_tablez", "sections[0]: sections has no section function 'belief_tablez'"),
    ("config path missing", "paper.yaml", "config: ./config.yaml", "config: configs/nowhere.yaml",
     "config: configs/nowhere.yaml", "config: config 'configs/nowhere.yaml' not found"),
    ("reference unit", f"reference/{REFERENCE}", "0.35,,fraction", "0.35,,fractoin", "fractoin",
     "unit: unknown unit 'fractoin'; accepted: percent, fraction, count, parameter"),
    ("reference card unknown", f"reference/{REFERENCE}", "EEG (K-complex vs delta),,unc. labels,belief-uncertain,error",
     "EEG (K-complex vs delta),eeg,unc. labels,belief-uncertain,error", ",eeg,",
     "dataset: unknown dataset card 'eeg'; accepted: a card name"),
    ("reference card not run", f"reference/{REFERENCE}",
     "EEG (K-complex vs delta),,unc. labels,belief-uncertain,error",
     "EEG (K-complex vs delta),iris,unc. labels,belief-uncertain,error", ",iris,",
     "dataset: 'iris' is not run by the config; accepted: one of diabetes, ionosphere"),
    ("reference paper number", f"reference/{REFERENCE}", "004,Table 1,EEG (K-complex vs delta),,unc. labels",
     "003,Table 1,EEG (K-complex vs delta),,unc. labels", "003,Table 1",
     "paper: '003' is not this paper's number; accepted: 004"),
    ("reading renames what its config lacks", "paper.yaml", "rename: {belief-crisp-own: belief-crisp}",
     "rename: {belief-crisp-mine: belief-crisp}", "belief-crisp-mine",
     "readings[1].rename.belief-crisp-mine: reading 'crisp arm on own labels' renames 'belief-crisp-mine', which "
     "the config does not run"),
    ("claim dataset unknown", "paper.yaml", "      datasets: []\n", "      datasets: [diabetes, sonnar]\n",
     "datasets: [diabetes, sonnar]", "claims[0].claim.datasets[1]: claim kind 'fewer' names dataset 'sonnar'"),
    ("config problem", "config.yaml", "  folds: 5", "  folds: 1", "folds: 1", "protocol.folds: 1 is out of range"),
    ("reference row cells", f"reference/{REFERENCE}", "0.35,,fraction,,EEG", "0.35,,fraction,,EEG,extra",
     ",extra", "row: 13 cells; accepted: 12, one per column of the header"),
    ("causes.yaml unknown field", "causes.yaml", "    kind: unpublished data", "    kind: unpublished data\n    why: x",
     "why: x", "causes[0].why: unknown key 'why'"),
]


@pytest.mark.parametrize(("name", "file", "old", "new", "marker", "expected"), BROKEN, ids=[b[0] for b in BROKEN])
def test_each_mistake_is_one_line_with_its_file_and_line(paper, name, file, old, new, marker, expected):
    path = paper / file
    text = path.read_text(encoding="utf-8")
    assert old in text, old
    broken = text.replace(old, new, 1)
    path.write_text(broken, encoding="utf-8")
    result = _check(paper)
    assert result.exit_code == 1, result.output
    line = f"{Path(file).name}:{_line(broken, marker)}: {expected}"
    found = [out for out in result.output.splitlines() if line in out]
    assert found, f"{line!r} not in:\n{result.output}"
    assert found[0].split(":", 1)[0].endswith(file.split("/")[-1]), found[0]  # the file named first
    *lines, summary = result.output.splitlines()
    # one mistake, one line: a config that does not load is not echoed on every row and claim that names it
    assert [out for out in lines if ": warning: " not in out and ": note: " not in out] == found, result.output
    assert summary.startswith(f"{paper}: 1 problem"), summary


def test_several_mistakes_are_all_reported(paper):
    """Problems in the reference table, the claims and the readings at once: one line each."""
    ref = paper / "reference" / REFERENCE
    ref.write_text(ref.read_text(encoding="utf-8").replace("fraction", "fractoin"), encoding="utf-8")
    text = (paper / "paper.yaml").read_text(encoding="utf-8")
    (paper / "paper.yaml").write_text(text.replace("      b: c4.5\n", "      b: c50\n"), encoding="utf-8")
    result = _check(paper)
    lines = result.output.splitlines()
    assert result.exit_code == 1
    assert sum("unknown unit 'fractoin'" in line for line in lines) == 4
    assert sum("compares algorithm 'c50'" in line for line in lines) == 1
    assert lines[-1] == f"{paper}: 5 problems"


def test_a_folder_that_does_not_load_waits_for_its_fix(paper):
    text = (paper / "paper.yaml").read_text(encoding="utf-8")
    (paper / "paper.yaml").write_text(text.replace("location: Section 5", "location: [Section 5"), encoding="utf-8")
    result = _check(paper)
    assert result.exit_code == 1
    assert "paper.yaml:" in result.output and "YAML syntax error" in result.output
    assert result.output.splitlines()[-1].endswith("1 problem (the cross-file checks run once paper.yaml and causes.yaml load)")


@pytest.mark.parametrize("what", ["missing", "empty", "file"])
def test_not_a_paper_folder_is_one_line(tmp_path, what):
    target = tmp_path / "x"
    if what == "empty":
        target.mkdir()
    elif what == "file":
        target.write_text("x", encoding="utf-8")
    result = _check(target)
    assert result.exit_code == 1
    first, last = result.output.splitlines()
    assert first.startswith(f"{target}: ") and "accepted: a paper folder holding paper.yaml" in first
    assert last == f"{target}: 1 problem (the cross-file checks run once paper.yaml and causes.yaml load)"


def test_a_dataset_that_needs_the_network_is_a_warning(paper, tmp_path, monkeypatch):
    """No mirror, no cache: every non-embedded dataset of the config is a warning line; the check still passes."""
    monkeypatch.setenv("TREEBENCH_DATA", str(tmp_path / "no-mirror"))
    monkeypatch.setenv("TREEBENCH_CACHE", str(tmp_path / "no-cache"))
    result = check_folder(paper)
    assert result.ok, result.problems
    assert len(result.warnings) == 6, result.warnings
    assert all(": warning: datasets[" in w and "running the paper downloads it" in w for w in result.warnings)
    assert result.summary().endswith("no problems (6 warnings)")


def test_grades_are_the_reports_paper_on_paper(paper, monkeypatch):
    """--grades prints each statement's grade on the paper's own numbers (the walk-through's test compares them
    with the report's verdicts.json)."""
    monkeypatch.chdir(ROOT)
    result = CliRunner().invoke(cli, ["paper", "check", str(FOLDERS.get("belief", paper)), "--grades"])
    grades = [line for line in result.output.splitlines() if "on the paper's own numbers:" in line]
    assert len(grades) == len(PAPERS["belief"].claims)
    # 004's table names no dataset card (the EEG data is not public): nothing of it is graded
    assert all(g.endswith("not testable (the paper prints no table to grade)") for g in grades)
