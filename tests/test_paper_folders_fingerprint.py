"""The built-in papers are paper folders that load into the specs their former ``spec.py`` built (issue 41, B1).

``tests/fixtures/papers/KEY.json`` was recorded from each paper's
``spec.py`` before it became ``paper.yaml`` (``tests/paper_fingerprint.py``):
every spec field, every statement with its claim's kind and fields, the
readings, figures, datasets and section names.  A folder that loses, reorders
or changes any of them fails here, with the first differences named.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest

from treebench.errors import TreebenchError
from treebench.papers.catalogue import PAPERS, PAPERS_DIR, get_paper
from treebench.report.spec import SectionContext

sys.path.insert(0, str(Path(__file__).resolve().parent))
from paper_fingerprint import FIXTURES, fingerprint, recorded  # noqa: E402

KEYS = sorted(path.stem for path in FIXTURES.glob("*.json"))


def differences(old, new, path: str = "") -> list[str]:
    """Where two fingerprints differ, one line each (``path``: where in the spec)."""
    if type(old) is not type(new):
        return [f"{path}: {old!r} -> {new!r}"]
    if isinstance(old, dict):
        out = [f"{path}/{k}: only {'before' if k in old else 'now'}" for k in set(old) ^ set(new)]
        for k in old.keys() & new.keys():
            out += differences(old[k], new[k], f"{path}/{k}")
        return out
    if isinstance(old, list):
        out = [f"{path}: {len(old)} entries -> {len(new)}"] if len(old) != len(new) else []
        for i, (a, b) in enumerate(zip(old, new)):
            out += differences(a, b, f"{path}[{i}]")
        return out
    return [] if old == new else [f"{path}: {str(old)[:120]!r} -> {str(new)[:120]!r}"]


def test_a_fingerprint_is_recorded_for_every_built_in_paper():
    assert KEYS == sorted(PAPERS) and len(KEYS) == 5


@pytest.mark.parametrize("key", KEYS)
def test_each_paper_folder_loads_the_spec_its_spec_py_built(key):
    spec = get_paper(key)
    assert spec.folder == str(PAPERS_DIR / key)  # read from the folder, not built in Python
    found = differences(recorded(key), fingerprint(spec))
    assert not found, f"{key}: paper.yaml differs from the former spec.py:\n" + "\n".join(sorted(found)[:20])


def test_the_fingerprint_sees_one_changed_claim_field_and_one_reordered_statement():
    spec = get_paper("serrurier2015")
    first = spec.claims[0]
    changed = replace(spec, claims=(replace(first, claim=replace(first.claim, alpha=0.01)), *spec.claims[1:]))
    assert differences(recorded("serrurier2015"), fingerprint(changed)) == [
        "/claims[0]/claim/alpha: 'float:0.05' -> 'float:0.01'"]
    swapped = replace(spec, claims=(spec.claims[1], spec.claims[0], *spec.claims[2:]))
    assert differences(recorded("serrurier2015"), fingerprint(swapped))


def test_no_paper_is_a_spec_py_and_the_catalogue_names_none():
    assert not list(PAPERS_DIR.glob("*/spec.py"))
    assert sorted(p.parent.name for p in PAPERS_DIR.glob("*/paper.yaml")) == sorted(PAPERS)
    catalogue = (PAPERS_DIR / "catalogue.py").read_text(encoding="utf-8")
    assert not any(f"papers.{key}" in catalogue for key in PAPERS)


def test_a_section_asks_for_its_reading_by_the_name_paper_yaml_gives():
    spec = get_paper("certainty")
    frame = pd.DataFrame({"dataset": ["wdbc"]})
    context = SectionContext(Path("."), frame, pd.DataFrame(), spec, reading_sources={"no tie-break": frame})
    assert context.reading_trials("no tie-break") is frame
    assert context.reading_trials("seeded shuffle") is None  # declared, its store not read
    with pytest.raises(TreebenchError, match="certainty: no reading 'no tiebreak'; accepted: seeded shuffle, no "
                                             "tie-break"):
        context.reading_trials("no tiebreak")


def test_the_mee_section_takes_its_variants_and_stores_from_the_readings_paper_yaml_declares():
    from treebench.papers.mee.builders import mee_variants, sensitivity_trials

    spec = get_paper("mee")
    # the former spec.py's MEE_READINGS, name -> algorithm, in its order
    assert mee_variants(spec) == {
        "default": "mee", "printed P(e=±2)": "mee-printed", "may rise": "mee-may-rise",
        "node-range grid": "mee-node-range", "printed + node range": "mee-printed-node-range",
        "printed + may rise": "mee-printed-may-rise", "node range + may rise": "mee-node-range-may-rise",
        "printed + node range + may rise": "mee-printed-node-range-may-rise", "class 2": "mee-class2",
        "class 10": "mee-class10", "child 5": "mee-child5", "envelope": "mee-envelope"}
    cart_loo, sensitivity = pd.DataFrame({"algorithm": ["cart"]}), pd.DataFrame({"algorithm": ["mee-class2"]})
    only_cart = SectionContext(Path("."), pd.DataFrame(), pd.DataFrame(), spec,
                               reading_sources={"CART leave-one-out": cart_loo})
    assert sensitivity_trials(only_cart) is None  # CART's store is no MEE reading's
    both = SectionContext(Path("."), pd.DataFrame(), pd.DataFrame(), spec,
                          reading_sources={"CART leave-one-out": cart_loo, "class 2": sensitivity})
    assert sensitivity_trials(both) is sensitivity
    assert both.reading_trials("CART leave-one-out") is cart_loo
