"""The papers' catalogue: every paper a dataset card names exists, with its reference table and config.

(The layering of report/ and papers/ is checked by tests/test_layers.py.)
"""

from __future__ import annotations

from pathlib import Path

import pytest

from treebench.data.cards import CardRegistry
from treebench.data.settings import Settings
from treebench.errors import TreebenchError
from treebench.papers.catalogue import PAPERS, get_paper
from treebench.report.reference import reference_dir

ROOT = Path(__file__).resolve().parents[1]


def all_cards():
    """Every card, loaded as ``treebench datasets list`` does."""
    return CardRegistry(Settings.from_env().cards_dir).validate()


def test_every_paper_a_card_names_is_catalogued():
    cards = all_cards()
    assert cards
    named = {paper for card in cards for paper in card.papers}
    assert named, "no card names a paper"
    for card in cards:
        unknown = [p for p in card.papers if p not in PAPERS]
        assert not unknown, f"{card.name}: unknown paper(s) {unknown}; catalogue: {list(PAPERS)}"


def test_every_catalogued_paper_has_its_reference_table_and_config():
    for key, spec in PAPERS.items():
        assert spec.key == key
        assert (reference_dir() / spec.reference).is_file(), spec.reference
        assert (ROOT / spec.config).is_file(), spec.config
        assert spec.description and spec.authors and spec.headline.startswith(spec.number)


def test_lookup_by_key_and_alias():
    assert get_paper("marquesdesa") is get_paper("mee") is PAPERS["mee"]
    with pytest.raises(TreebenchError, match="unknown paper 'nope'; accepted: ") as info:
        get_paper("nope")
    assert all(key in str(info.value) for key in PAPERS)


def test_section_names_are_unique_per_paper():
    for spec in PAPERS.values():
        assert len(set(spec.extras)) == len(spec.extras), spec.key
