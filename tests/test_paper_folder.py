"""A paper as a folder of data (issue 41, phase A): registries, the loader's errors, paper 004 as a folder."""

from __future__ import annotations

import json
import math
import os
import shutil
from dataclasses import fields, replace
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from treebench.cli import cli
from treebench.errors import TreebenchError
from treebench.papers import get_paper
from treebench.papers.folder import convert, load_paper_folder, parse_paper
from treebench.papers.kinds import load_kinds
from treebench.report import claims as generic
from treebench.report.claims import FewerClaim, FoldsClaim
from treebench.report.figure_kinds import FIGURE_KINDS, figure_kind
from treebench.report.reference import load_reference
from treebench.report.registry import CLAIM_KINDS, Registry
from treebench.report.reproduce import build_report, write_report
from treebench.report.spec import Figure, PaperDataset, PaperSpec, Reading
from treebench.report.statements import Statement

ROOT = Path(__file__).resolve().parents[1]
BELIEF = ROOT / "treebench" / "papers" / "belief"
DATASETS = ("diabetes", "sonar", "wdbc")


# -- the oracle: paper 004's spec as its spec.py built it before it became a folder ------------------
def _old_belief_spec() -> PaperSpec:
    """Paper 004 built in Python exactly as the removed ``treebench/papers/belief/spec.py`` did."""
    from treebench.papers.belief.sections import ALGORITHMS, ARMS, belief_tables

    def same_config(name: str, suffix: str, description: str) -> Reading:
        return Reading(name, description, {f"{arm}-{suffix}": arm for arm in ARMS})

    def simulation(name: str, config: str, description: str) -> Reading:
        return Reading(name, description, {a: a for a in ALGORITHMS}, config=config)

    readings = (
        same_config("λ by accuracy", "acc",
                    "lambda tuned by the inner-CV accuracy on the crisp labels (the previous default): the text says "
                    "only that lambda was found by 5-fold cross-validation, and accuracy on crisp labels is what "
                    "the crisp arm alone could measure"),
        Reading("crisp arm on own labels",
                "the crisp arm tunes lambda by E on its own crisp labels, never seeing the masses (the text: its "
                "examples are \"assigned crisp labels regardless of the uncertainty\"); the uncertain arm as the "
                "default", {"belief-crisp-own": "belief-crisp"}),
        same_config("eqs. 17-19", "eq19",
                    "U_lambda of eqs. 17-19 applied to the node's belief structure, which differs from the closed "
                    "form the paper prints by lambda n/(n+1) (papers' README)"),
        simulation("unequal experts", "configs/belief-unequal.yaml",
                   "the experts' reliabilities spread 0.69 ... 0.29 around 0.49 (the text gives none); half of "
                   "class 1 still lacks a majority"),
        simulation("look-alikes", "configs/belief-lookalikes.yaml",
                   "the previous default: half of class 1 rated by experts of reliabilities 0.95 ... 0.55 and 30 % "
                   "of class 0 rated too, those some expert names joining class 1 (14-29 % of class 1 without a "
                   "majority, not one half)"),
    )
    c45 = FoldsClaim("The belief tree on crisp labels has an error rate equivalent to C4.5's (stated, not shown)",
                     "belief-crisp", "c4.5", "error", significant=False,
                     stated="equivalent (35 % for the belief tree; C4.5's rate not shown)",
                     design_cases=150, design_rate=0.35)
    eeg = ("\"for this problem\": the paper's one EEG set (150 patterns, 5-fold CV); the rerun: public two-class "
           "sets with simulated expert labels")
    return PaperSpec(
        key="belief", number="004",
        citation="Denœux & Skarstein Bjanger, Induction of decision trees from partially classified data using "
                 "belief functions, SMC 2000",
        reference="004_belief_table1.csv", description="belief-function trees", authors="Denoeux & Skarstein Bjanger",
        claims=(
            Statement("Section 4, Table 1 (0.35 → 0.34)", claim=FewerClaim(
                "Uncertain labels lower the error rate (marginally)", "belief-uncertain", "belief-crisp", "error", ()),
                scope=eeg, test_as_applied="none"),
            Statement("Section 4, Table 1 (0.26 → 0.22)", claim=FoldsClaim(
                "Uncertain labels lower the pignistic error E significantly (paired t-test over folds, our choice)",
                "belief-uncertain", "belief-crisp", "pignistic_error",
                stated="E lower \"significantly\" (no test named): 0.26 → 0.22 (Table 1)"),
                scope=eeg, test_as_applied="none named (\"significantly\")"),
            Statement("Section 4 (C4.5 not shown in Table 1)", claim=c45, scope=eeg,
                      test_as_applied="none named (\"equivalent\")"),
            Statement("Section 5", "A c-class problem (c > 2) can be solved by several two-class trees combined at "
                      "the belief-function level", statement_kind="difference",
                      why_not="the paper runs no experiment with more than two classes; a proposal, not a result",
                      scope="the conclusions; no data", test_as_applied="none"),
        ),
        sections=(belief_tables,),
        baselines=(),
        datasets={"EEG (K-complex vs delta)": PaperDataset(
            150, 64, 2, "section 4", "50 delta waves and 100 K-complex patterns labelled by five experts; not public")},
        dataset_source="section 4 (150 EEG patterns, 64 attributes, two classes)",
        default_reading=(
            "labels re-derived from section 4: every class-1 example is rated by five experts and keeps the share q "
            "naming it as m({class 1}) (the rest on Omega); class 1 holds only examples some expert named; class 0 "
            "(the delta waves) is certain; the five experts are equally reliable (0.49), which puts half of class 1 "
            "without a majority as the text says (the share measured on the drawn labels is printed below); lambda "
            "is chosen by an inner 5-fold CV minimising the pignistic error E on the label masses; the impurity is "
            "the closed form as printed"),
        readings=readings,
        causes=str(BELIEF / "causes.yaml"),
    )


def _trials(delta_e: float = 0.04, delta_c45: float = 0.0, seed: int = 4, suffix: str = "") -> pd.DataFrame:
    """Synthetic 5-fold trials of paper 004's four algorithms on three datasets (``suffix``: the arms renamed)."""
    rng = np.random.default_rng(seed)
    rows = []
    for i, ds in enumerate(DATASETS):
        for fold in range(5):
            err = 0.2 + 0.02 * i + rng.normal(0, 0.01)
            e = 0.25 + rng.normal(0, 0.01)
            values = {"belief-crisp": (err, e), "belief-uncertain": (err - 0.005, e - delta_e + rng.normal(0, 0.004)),
                      "entropy": (err + 0.01, math.nan), "c4.5": (err + delta_c45 + rng.normal(0, 0.004), math.nan)}
            for alg, (error, pign) in values.items():
                name = f"{alg}-{suffix}" if suffix and alg.startswith("belief") else alg
                rows.append(dict(dataset=ds, algorithm=name, repeat=0, fold=fold, status="ok", error=error,
                                 accuracy=1 - error, pignistic_error=pign, n_leaves=8 + fold, depth=3,
                                 n_train=80, n_test=20, chosen='{"lam": 0.4}' if alg.startswith("belief") else ""))
    return pd.DataFrame(rows)


def _all_readings_frame() -> tuple[pd.DataFrame, dict[str, pd.DataFrame]]:
    """The default trials with every same-config reading's arms, and the simulation readings' sources."""
    frame = _trials()
    extra = [_trials(0.0, seed=5, suffix="acc"), _trials(0.04, seed=6, suffix="eq19")]
    extra = [x[x["algorithm"].str.contains("-")] for x in extra]
    own = frame[frame["algorithm"] == "belief-crisp"].copy()
    own["algorithm"] = "belief-crisp-own"
    sources = {"unequal experts": _trials(0.03, seed=7), "look-alikes": _trials(0.0, 0.05, seed=8)}
    return pd.concat([frame, *extra, own], ignore_index=True), sources


def _report_files(spec: PaperSpec, out: Path) -> tuple[str, dict]:
    """report.md and verdicts.json of ``spec`` on the synthetic trials (every section and reading)."""
    frame, sources = _all_readings_frame()
    rep = build_report(spec, frame, load_reference(spec.reference), out, figures=False, extras=True,
                       reading_sources=sources)
    write_report(rep, out, config=spec.config, store="results/belief.sqlite")
    return (out / "report.md").read_text(encoding="utf-8"), json.loads((out / "verdicts.json").read_text())


# -- registries ------------------------------------------------------------------------------------
def test_every_generic_claim_kind_is_registered_by_name():
    classes = [getattr(generic, n) for n in generic.__all__ if n.endswith("Claim") and n != "Claim"]
    assert len(classes) == 7
    for cls in classes:
        name = CLAIM_KINDS.name_of(cls)
        assert name is not None and CLAIM_KINDS.get(name) is cls, cls
    assert CLAIM_KINDS.get("fewer") is FewerClaim and CLAIM_KINDS.get("mean_diff") is generic.MeanDiffClaim


PAPER_KINDS = ("rate_below", "fewer_both", "lower_r", "no_overfitting", "versus_ig_rate", "versus_ig_type",
               "curve_shape", "merged_splits", "ahead_of_all", "neither_prevails", "q_not_classic", "classes_q",
               "q_chain", "same_results", "sweep_optimum", "similar_size", "size_differs", "stability",
               "random_trees", "few_cases_largest")


def test_the_papers_own_claim_kinds_are_registered_once_loaded():
    from treebench.papers.certainty.claims import RateBelowClaim
    from treebench.papers.mee.claims import LowerRClaim
    from treebench.papers.serrurier2015.figure_claims import RandomTreesClaim
    from treebench.papers.tsallis.claims import SweepOptimumClaim

    names = load_kinds()
    assert len(PAPER_KINDS) == 20 and set(PAPER_KINDS) <= set(names)
    for name, cls in (("rate_below", RateBelowClaim), ("lower_r", LowerRClaim), ("random_trees", RandomTreesClaim),
                      ("sweep_optimum", SweepOptimumClaim)):
        assert CLAIM_KINDS.get(name) is cls


def test_a_registry_refuses_bad_names_a_second_class_and_names_the_accepted_ones():
    reg: Registry[type] = Registry("thing")

    @reg.register("one")
    class One:
        pass

    class Other:
        pass

    with pytest.raises(ValueError, match="registered twice"):
        reg.register("one")(Other)
    with pytest.raises(ValueError, match="lower-case"):
        reg.register("Bad Name")
    reg.register("one")(One)  # the same class again: harmless
    with pytest.raises(TreebenchError, match=r"unknown thing 'onw' \(did you mean one\?\); accepted: one"):
        reg.get("onw")


def test_figures_are_drawn_by_their_registered_kind(tmp_path):
    calls = []

    @figure_kind("test_marks", options=("colour",))
    def marks(frame, base, options):
        calls.append((len(frame), options))
        base.with_suffix(".png").write_bytes(b"png")
        return [base.with_suffix(".png")]

    assert FIGURE_KINDS.get("test_marks") is marks and {"leaves", "cd", "param"} <= set(FIGURE_KINDS)
    spec = replace(_old_belief_spec(), sections=(), readings=(),
                   figures=(Figure("test_marks", "m", "Marks.", {"colour": "red"}),
                            Figure("no_such_kind", "x", "Never drawn.")))
    rep = build_report(spec, _trials(), load_reference(spec.reference), tmp_path)
    assert calls == [(60, {"colour": "red"})]
    assert [(f.name, p.name) for f, p in rep.figures] == [("m", "m.png")]
    assert any(n.startswith("figure x not drawn: unknown figure kind 'no_such_kind'") for n in rep.notes)


# -- paper 004 as a folder -------------------------------------------------------------------------
def test_the_belief_folder_is_the_spec_its_python_built():
    loaded = get_paper("belief")
    assert loaded.folder == str(BELIEF.resolve()) and loaded.config == "configs/belief.yaml"
    old = _old_belief_spec()
    for f in fields(PaperSpec):
        if f.name in ("config_file", "folder"):
            continue
        assert getattr(loaded, f.name) == getattr(old, f.name), f.name
    assert replace(loaded, config_file="", folder="") == old


def test_the_belief_report_is_unchanged(tmp_path, monkeypatch):
    """The folder and the Python spec give the same report.md and verdicts.json on the same trials."""
    monkeypatch.chdir(ROOT)  # the section reads configs/belief*.yaml from the repository root
    old_md, old_json = _report_files(_old_belief_spec(), tmp_path / "old")
    new_md, new_json = _report_files(get_paper("belief"), tmp_path / "new")
    assert "## Readings" in new_md and "section belief_tables not built" not in new_md
    assert new_md == old_md and new_json == old_json


def test_a_copied_and_renamed_folder_gives_the_same_report(tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    copy = tmp_path / "somewhere" / "my-belief-check"
    shutil.copytree(BELIEF, copy, ignore=shutil.ignore_patterns("__pycache__"))
    spec = load_paper_folder(copy)
    assert spec.folder == str(copy.resolve()) and spec.causes == str(copy.resolve() / "causes.yaml")
    # its sections.py is the copy's own module, not the package's
    assert spec.sections[0].build.__module__.startswith("_treebench_paper_")
    assert _report_files(spec, tmp_path / "copy") == _report_files(get_paper("belief"), tmp_path / "built-in")


# -- reproduce from the stores (the measured ones, when this machine has them) ------------------------
STORES = Path(os.environ.get("TREEBENCH_BELIEF_STORES", "/work/measure/fresh/results"))


def _without_timings(text: str) -> str:
    return "\n".join(line for line in text.splitlines() if "wall" not in line and " s)" not in line)


@pytest.mark.skipif(not (STORES / "belief.sqlite").is_file() or not os.environ.get("TREEBENCH_DATA"),
                    reason="needs paper 004's stores (TREEBENCH_BELIEF_STORES) and TREEBENCH_DATA")
def test_reproduce_a_folder_path_from_the_stores(tmp_path, monkeypatch):
    """``treebench reproduce belief`` and ``treebench reproduce COPIED_FOLDER`` on copies of the same stores,
    and the Python spec's report: the same report.md and verdicts.json."""
    from treebench.papers.reproduce import reproduce_paper

    (tmp_path / "results").mkdir()
    for store in STORES.glob("belief*.sqlite"):  # copies: the source stays read-only
        shutil.copy2(store, tmp_path / "results" / store.name)
    shutil.copytree(ROOT / "configs", tmp_path / "configs")
    shutil.copytree(ROOT / "results" / "reference", tmp_path / "results" / "reference")
    copy = tmp_path / "elsewhere" / "renamed-paper"
    shutil.copytree(BELIEF, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.chdir(tmp_path)
    reproduce_paper(_old_belief_spec(), run=False, out_dir=Path("old"), index=False)
    for args in (["belief", "--out-dir", "new"], ["elsewhere/renamed-paper", "--out-dir", "copy"]):
        result = CliRunner().invoke(cli, ["reproduce", args[0], "--no-run", *args[1:]])
        assert result.exit_code == 0, result.output + str(result.exception)
    for name in ("report.md", "verdicts.json"):
        old = _without_timings((tmp_path / "old" / name).read_text(encoding="utf-8"))
        assert _without_timings((tmp_path / "new" / name).read_text(encoding="utf-8")) == old, name
        assert _without_timings((tmp_path / "copy" / name).read_text(encoding="utf-8")) == old, name


# -- the loader's errors: one line each, with the file and line ----------------------------------------
GOOD = """\
key: demo
number: "900"
citation: A. Author, A paper, 2020
reference: 004_belief_table1.csv
figures:
  - {kind: leaves, name: leaves, caption: Leaves.}
readings:
  - {name: other, description: another reading, rename: {belief-crisp-acc: belief-crisp}}
claims:
  - location: Table 1
    claim: {kind: fewer, text: fewer errors, a: belief-uncertain, b: belief-crisp, metric: error, datasets: []}
  - location: Section 5
    why_not: no experiment
"""


def _problems(text: str, folder: Path) -> str:
    with pytest.raises(TreebenchError) as info:
        parse_paper(text, "paper.yaml", folder)
    return str(info.value)


def test_a_good_minimal_folder_loads(tmp_path):
    spec = parse_paper(GOOD, "paper.yaml", tmp_path)
    assert (spec.key, spec.number, spec.config, spec.causes) == ("demo", "900", "configs/demo.yaml", "")
    assert spec.claims[0].claim == FewerClaim("fewer errors", "belief-uncertain", "belief-crisp", "error", ())
    assert spec.claims[1].why_not == "no experiment" and spec.figures[0].kind == "leaves"
    assert spec.reference == "004_belief_table1.csv"  # not in the folder: results/reference's


def test_a_folders_own_config_reference_and_joined_configs(tmp_path):
    (tmp_path / "config.yaml").write_text("experiment: demo\n", encoding="utf-8")
    (tmp_path / "reference").mkdir()
    (tmp_path / "reference" / "004_belief_table1.csv").write_text("paper\n", encoding="utf-8")
    (tmp_path / "other.yaml").write_text("experiment: other\n", encoding="utf-8")
    text = GOOD.replace("key: demo", "key: demo\njoined: [configs/mee-cart25.yaml, ./other.yaml]")
    spec = parse_paper(text, "paper.yaml", tmp_path)
    folder = tmp_path.resolve()
    assert spec.config == str(folder / "config.yaml")  # config.yaml in the folder when paper.yaml names none
    assert spec.reference == str(folder / "reference" / "004_belief_table1.csv")  # the folder's own first
    assert spec.joined == ("configs/mee-cart25.yaml", str(folder / "other.yaml"))
    named = parse_paper(text.replace("key: demo", "key: demo\nconfig: configs/x.yaml"), "paper.yaml", tmp_path)
    assert named.config == "configs/x.yaml"  # relative to the working directory, as every config


def test_reproduce_takes_the_folder_or_its_paper_yaml(tmp_path, monkeypatch):
    from treebench.papers.catalogue import paper_from_argument

    monkeypatch.chdir(ROOT)
    copy = tmp_path / "copy"
    shutil.copytree(BELIEF, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert paper_from_argument(str(copy)).folder == str(copy.resolve())
    assert paper_from_argument(str(copy / "paper.yaml")).folder == str(copy.resolve())
    assert paper_from_argument("belief") is get_paper("belief")


BROKEN = [
    # (what is changed: old -> new text, the expected line)
    ("key: demo", "key: demo\nclaimz: []", "paper.yaml:2: claimz: unknown key 'claimz' (did you mean claims?)"),
    ('number: "900"', "number: 900", "paper.yaml:2: number: expected the paper's number as quoted digits"),
    ("citation: A. Author, A paper, 2020\n", "", "paper.yaml:1: (top level): missing required key 'citation'"),
    ("004_belief_table1.csv", "nope.csv", "paper.yaml:4: reference: no reference table 'nope.csv'"),
    ("kind: fewer", "kind: fewr", "paper.yaml:11: claims[0].claim.kind: unknown claim kind 'fewr' (did you mean "
                                  "fewer?); accepted: "),
    (", metric: error", "", "paper.yaml:11: claims[0].claim: claim kind 'fewer' needs field 'metric'"),
    ("metric: error", "metric: error, metrc: x", "paper.yaml:11: claims[0].claim.metrc: claim kind 'fewer' has no "
                                                 "field 'metrc'; accepted: kind, text, a, b, metric, datasets"),
    ("datasets: []", "datasets: wdbc", "paper.yaml:11: claims[0].claim.datasets: expected a list; got text 'wdbc'"),
    ("datasets: []", "datasets: [1]", "paper.yaml:11: claims[0].claim.datasets: item 1: expected text"),
    ("    why_not: no experiment\n", "", "paper.yaml:12: claims[1]: give a claim (claim: {kind: ...}) or why it "
                                       "cannot be graded"),
    ("    why_not: no experiment", "    why_not: no experiment\n    statement_kind: opinion",
     "paper.yaml:14: claims[1].statement_kind: unknown statement kind 'opinion'"),
    ("kind: leaves", "kind: leafs", "paper.yaml:6: figures[0].kind: unknown figure kind 'leafs' (did you mean "
                                    "leaves?); accepted: "),
    ("caption: Leaves.", "caption: Leaves., options: {metrc: x}",
     "paper.yaml:6: figures[0].options.metrc: figure kind 'leaves' has no option 'metrc'; accepted: metric"),
    ("kind: leaves", "kind: param", "paper.yaml:6: figures[0].options: figure kind 'param' needs option 'param'"),
    ("{name: other, ", "{", "paper.yaml:8: readings[0]: missing required key 'name'"),
    ("rename: {belief-crisp-acc: belief-crisp}", "rename: [belief-crisp-acc]",
     "paper.yaml:8: readings[0].rename: expected a mapping of names to text; got a list"),
    ("rename: {belief-crisp-acc: belief-crisp}}", "rename: {belief-crisp-acc: belief-crisp}}\n  - {name: other, "
                                                 "description: again}",
     "paper.yaml:9: readings[1]: reading name 'other' given twice"),
    ("key: demo", "key: demo\nour_std: wide", "paper.yaml:2: our_std: unknown std kind 'wide'"),
    ("key: demo", "key: demo\nsections: [nowhere_module:tables]",
     "paper.yaml:2: sections[0]: cannot import 'nowhere_module'"),
    ("key: demo", "key: demo\nsections: [tables]", "paper.yaml:2: sections[0]: expected module:function"),
    ("key: demo", "key: demo\ncauses: causes.yaml", "paper.yaml:2: causes: no file 'causes.yaml' in the paper folder"),
    ("key: demo", "key: demo\nconfig: ./config.yaml", "paper.yaml:2: config: no file './config.yaml' in the paper "
                                                      "folder"),
    ("key: demo", "key: demo\nkey: other", "paper.yaml:2: key: key given twice"),
    ("key: demo", "key: Demo Paper", "paper.yaml:1: key: 'Demo Paper' is not a valid name"),
    ("key: demo", "key: demo\ntolerances: {error: -1}", "paper.yaml:2: tolerances.error: expected a number >= 0"),
    ("key: demo", "key: demo\npaper_splits: 0", "paper.yaml:2: paper_splits: 0 is out of range"),
    ("readings:", "readings: \"x\"\nold_readings:", "paper.yaml:7: readings: expected a list; got text"),
    ("  - location: Section 5", "  - location: Section 5\n    claim: {kind: folds, text: t, a: x, b: y, metric: error, "
                                "significant: maybe}", "paper.yaml:13: claims[1].claim.significant: expected true or "
                                                       "false; got 'maybe'"),
]


@pytest.mark.parametrize(("old", "new", "expected"), BROKEN, ids=[b[2].split(": ")[1] + "-" + str(i)
                                                                   for i, b in enumerate(BROKEN)])
def test_each_mistake_is_one_line_with_its_place(tmp_path, old, new, expected):
    assert old in GOOD
    message = _problems(GOOD.replace(old, new, 1), tmp_path)
    lines = message.splitlines()
    assert expected in message, message
    # one problem, one line (a problem that also breaks what depends on it may add one more)
    assert len(lines) <= 3 and all("Traceback" not in line for line in lines)


def test_a_yaml_syntax_error_is_one_line(tmp_path):
    message = _problems(GOOD.replace("location: Table 1", "location: [Table 1"), tmp_path)
    assert message.startswith("paper.yaml:") and "YAML syntax error" in message and len(message.splitlines()) == 1


def test_reproduce_refuses_a_broken_folder_in_one_line(tmp_path):
    folder = tmp_path / "bad"
    folder.mkdir()
    (folder / "paper.yaml").write_text(GOOD.replace("kind: fewer", "kind: fewr"), encoding="utf-8")
    result = CliRunner().invoke(cli, ["reproduce", str(folder)])
    assert result.exit_code != 0 and isinstance(result.exception, TreebenchError)
    assert str(result.exception).startswith(f"{folder / 'paper.yaml'}:11: claims[0].claim.kind: unknown claim kind")
    empty = tmp_path / "empty"
    empty.mkdir()
    result = CliRunner().invoke(cli, ["reproduce", str(empty)])
    assert result.exit_code != 0 and "holds no paper.yaml; accepted: a paper folder" in str(result.exception)
    result = CliRunner().invoke(cli, ["reproduce", "nope"])
    assert "accepted: serrurier2015, mee, tsallis, certainty, belief, or a paper folder's path" in str(
        result.exception)


def test_a_folders_own_module_gives_sections_and_claim_kinds(tmp_path):
    """sections.py in the folder: a plain function is a section; a kind it registers is usable by name."""
    (tmp_path / "sections.py").write_text(
        "from dataclasses import dataclass\n"
        "from treebench.report.registry import claim_kind\n"
        "from treebench.report.sections import Section\n\n"
        "def notes(context):\n    return [Section('Notes', ['text'], [])]\n\n"
        "@claim_kind('test_folder_own')\n@dataclass(frozen=True)\nclass OwnClaim:\n"
        "    text: str\n    level: float = 0.5\n\n    def evaluate(self, cells, frame):\n        raise NotImplementedError\n",
        encoding="utf-8")
    text = GOOD.replace("key: demo", "key: demo\nsections: [sections:notes]").replace(
        "kind: fewer, text: fewer errors, a: belief-uncertain, b: belief-crisp, metric: error, datasets: []",
        "kind: test_folder_own, text: own, level: 1")
    spec = parse_paper(text, "paper.yaml", tmp_path)
    assert spec.extras == ("notes",) and spec.sections[0](None)[0].title == "Notes"
    claim = spec.claims[0].claim
    assert type(claim).__name__ == "OwnClaim" and claim.level == 1.0 and isinstance(claim.level, float)


def test_values_are_converted_by_the_fields_annotation():
    assert convert([["a", 1], ["b", 2]], "tuple[tuple[str, int], ...]") == ((("a", 1), ("b", 2)), "")
    assert convert([0.1, 9, 0.05], "tuple[float, float, float]") == ((0.1, 9.0, 0.05), "")
    assert convert([0.1, 9], "tuple[float, float, float]")[1] == "expected a list of 3 values; got 2"
    assert convert(None, "int | None") == (None, "")
    assert convert(True, "float")[1].startswith("expected a number")
    assert math.isnan(convert(float("nan"), "float")[0])


def _plain(value):
    """A claim field's value as YAML writes it (tuples as lists)."""
    if isinstance(value, tuple):
        return [_plain(v) for v in value]
    return value


def _statement_data(statement: Statement) -> dict:
    """A statement as paper.yaml writes it: the fields that differ from their defaults, its claim by kind name."""
    out: dict = {}
    for f in fields(Statement):
        value = getattr(statement, f.name)
        if f.name == "claim":
            if value is not None:
                out["claim"] = {"kind": CLAIM_KINDS.name_of(type(value))}
                for cf in fields(type(value)):
                    v = getattr(value, cf.name)
                    if not cf.compare or v is cf.default or (isinstance(v, float) and math.isnan(v)
                                                             and isinstance(cf.default, float) and math.isnan(cf.default)):
                        continue
                    out["claim"][cf.name] = _plain(v)
        elif value != f.default:
            out[f.name] = value
    return out


@pytest.mark.parametrize("key", ["serrurier2015", "mee", "tsallis", "certainty", "belief"])
def test_every_papers_claims_inventory_can_be_written_as_yaml(tmp_path, key):
    """Each statement of the five papers, written as paper.yaml data and read back, is the same statement:
    every claim is of a registered kind whose fields the loader converts (what phase B's conversion needs)."""
    import yaml

    spec = get_paper(key)
    assert all(isinstance(s, Statement) for s in spec.claims)
    data = {"key": "demo", "number": spec.number, "citation": "x", "reference": spec.reference,
            "claims": [_statement_data(s) for s in spec.claims]}
    assert all(s.get("claim", {}).get("kind", "") is not None for s in data["claims"])
    loaded = parse_paper(yaml.safe_dump(data, allow_unicode=True, sort_keys=False), "paper.yaml", tmp_path)
    assert len(loaded.claims) == len(spec.claims)
    for ours, theirs in zip(loaded.claims, spec.claims):
        assert ours == theirs, theirs.location
