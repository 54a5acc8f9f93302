"""``treebench datasets ...`` through click's runner and as real processes."""

from __future__ import annotations

import functools
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
import test_data_helpers as helpers
from click.testing import CliRunner
from test_data_cards import PAPER_DATASETS
from test_data_helpers import (  # noqa: F401
    CARDS,
    MIRROR,
    isolated_env,
    needs_mirror,
    toy_card,
    write_card,
    write_toy_mirror,
)

from treebench.data.cards import CardRegistry
from treebench.data.cli import datasets
from treebench.errors import TreebenchError

http_server = helpers.http_server  # fixture (assigned, not imported, so pytest finds it)

NAMES = CardRegistry(CARDS).names()
TREEBENCH = Path(sys.executable).parent / "treebench"


def run(*args: str):
    return CliRunner().invoke(datasets, list(args), catch_exceptions=True)


def rows_of(output: str) -> dict[str, list[str]]:
    """Table rows keyed by their first cell (the header and rule excluded)."""
    lines = output.splitlines()
    return {line.split()[0]: line.split() for line in lines[2:] if line.strip() and not line.startswith(" ")}


@needs_mirror
def test_list_with_mirror(monkeypatch):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    result = run("list")
    assert result.exit_code == 0, result.output
    rows = rows_of(result.stdout)
    assert set(NAMES) <= set(rows)
    assert rows["ecoli"][1:4] == ["336", "7", "8"] and rows["ecoli"][-1] == "mirror"
    assert rows["ecoli4"][-2:] == ["derived:", "mirror"]
    assert rows["wine"][-2:] == ["mirror,", "embedded"]
    assert f"{len(NAMES)} datasets, {len(NAMES)} available locally" in result.stdout
    assert "aliases: breast-cancer -> wdbc" in result.stdout


def test_list_without_mirror_lists_every_card():
    result = run("list")
    assert result.exit_code == 0, result.output
    rows = rows_of(result.stdout)
    assert set(NAMES) <= set(rows)
    local = {name for name, row in rows.items() if name in NAMES and row[-1] != "no"}
    assert local == {"iris", "wine", "wdbc", "digits"}
    assert "4 available locally; mirrors: TREEBENCH_DATA is not set" in result.stdout


def test_list_by_paper():
    result = run("list", "--paper", "mee")
    assert set(rows_of(result.stdout)) & set(NAMES) == PAPER_DATASETS["mee"]
    bad = run("list", "--paper", "nature")
    named = sorted(paper for paper, names in PAPER_DATASETS.items() if names)
    assert isinstance(bad.exception, TreebenchError)
    assert str(bad.exception) == f"no dataset card names paper 'nature'; accepted: {', '.join(named)}"


def test_paper_ids_come_from_the_cards(tmp_path, monkeypatch):
    cards = tmp_path / "cards"
    write_card(cards, toy_card(papers=["smith2015", "jones-2020"]))
    write_card(cards, toy_card(name="toy2"))
    monkeypatch.setenv("TREEBENCH_CARDS", str(cards))
    monkeypatch.setattr("treebench.data.settings.DEFAULT_CARDS_DIR", cards)  # only these cards
    assert set(rows_of(run("list", "--paper", "jones-2020").stdout)) & {"toy", "toy2"} == {"toy"}
    assert "accepted: jones-2020, smith2015" in str(run("list", "--paper", "toy").exception)
    assert re.search(r"^papers: +smith2015, jones-2020$", run("info", "toy").stdout, re.M)  # as the card lists them
    assert re.search(r"^papers: +-$", run("info", "toy2").stdout, re.M)


@needs_mirror
def test_info(monkeypatch):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    out = run("info", "ecoli").stdout
    for part in ("name:", "Ecoli", "UCI:", "id 39", "OpenML:", "numeric (7):", "class counts:", "loaded:", "checksum:"):
        assert part in out
    out = run("info", "olive-region").stdout
    assert "derived from: olive" in out and "use region as the class" in out


def test_info_alias_without_mirror():
    result = run("info", "breast-cancer")
    assert result.exit_code == 0
    assert "name:         wdbc" in result.stdout and "embedded sklearn.datasets.load_breast_cancer" in result.stdout


@needs_mirror
def test_verify_subset(monkeypatch):
    monkeypatch.setenv("TREEBENCH_DATA", str(MIRROR))
    result = run("verify", "iris", "ecoli4", "breast-cancer")
    assert result.exit_code == 0, result.output
    assert "3 datasets checked (5 copies): 5 OK, 0 failed; 0 not available locally" in result.stdout


def test_verify_fails_on_a_bad_copy(tmp_path, monkeypatch):
    cards = tmp_path / "cards"
    write_card(cards, toy_card())
    write_card(cards, toy_card(name="toy2"))
    mirror = tmp_path / "mirror"
    write_toy_mirror(mirror)
    write_toy_mirror(mirror, name="toy2", rows=11)
    monkeypatch.setenv("TREEBENCH_CARDS", str(cards))
    monkeypatch.setattr("treebench.data.settings.DEFAULT_CARDS_DIR", cards)  # only these cards
    monkeypatch.setenv("TREEBENCH_DATA", str(mirror))
    result = run("verify")
    assert result.exit_code == 1
    rows = rows_of(result.stdout)
    assert rows["OK"][1] == "toy" and rows["FAILED"][1] == "toy2"
    assert "11 rows, card says 12" in result.stdout
    assert "2 datasets checked (2 copies): 1 OK, 1 failed" in result.stdout


def test_verify_failure_is_summed_up_in_one_stderr_line(tmp_path, monkeypatch):
    cards, mirror = tmp_path / "cards", tmp_path / "mirror"
    write_card(cards, toy_card())
    path = write_toy_mirror(mirror, suffix=".csv")
    path.write_text(path.read_text().replace("\n9.5,", "\n9.25,"))  # same counts, another table
    monkeypatch.setenv("TREEBENCH_CARDS", str(cards))
    monkeypatch.setattr("treebench.data.settings.DEFAULT_CARDS_DIR", cards)  # only these cards
    monkeypatch.setenv("TREEBENCH_DATA", str(mirror))
    result = run("verify")
    assert result.exit_code == 1
    assert rows_of(result.stdout)["FAILED"][1] == "toy"
    assert result.stderr.count("\n") == 1 and result.stderr.startswith(
        f"error: 1 of 1 copies failed verification: toy (mirror {path}): {path}: canonical checksum "
    )
    assert f"expects {helpers.TOY_CHECKSUM}" in result.stderr


def test_write_checksums_pins_raw_and_derived_cards(tmp_path, monkeypatch):
    cards, mirror = tmp_path / "cards", tmp_path / "mirror"
    write_card(cards, toy_card(checksum=None))
    derived = {"name": "toy-d", "description": "derived", "derived_from": "toy",
               "operations": [{"drop_classes": ["y"]}], "expected": {"rows": 9, "features": 3, "classes": 2}}
    write_card(cards, derived)
    write_toy_mirror(mirror)
    write_toy_mirror(mirror, suffix=".csv")  # two copies of one table: they agree
    monkeypatch.setenv("TREEBENCH_CARDS", str(cards))
    monkeypatch.setattr("treebench.data.settings.DEFAULT_CARDS_DIR", cards)  # only these cards
    monkeypatch.setenv("TREEBENCH_DATA", str(mirror))
    before = run("verify")
    assert before.exit_code == 1 and "has no checksum; add it with `treebench datasets verify toy" in before.stdout
    result = run("verify", "--write-checksums")
    assert result.exit_code == 0, result.output
    assert f"toy: checksum {helpers.TOY_CHECKSUM} written to " in result.stdout
    assert "2 datasets checked (3 copies): 3 OK, 0 failed" in result.stdout
    registry = CardRegistry(cards)
    assert registry.get("toy").checksum == helpers.TOY_CHECKSUM
    pinned = registry.get("toy-d").checksum
    assert pinned is not None and pinned != helpers.TOY_CHECKSUM
    again = run("verify", "toy-d", "--write-checksums")
    assert f"toy-d: checksum {pinned} already in " in again.stdout


def test_write_checksums_refuses_copies_that_disagree(tmp_path, monkeypatch):
    cards, first, second = tmp_path / "cards", tmp_path / "a", tmp_path / "b"
    write_card(cards, toy_card(checksum=None))
    write_toy_mirror(first)
    path = write_toy_mirror(second, suffix=".csv")
    path.write_text(path.read_text().replace("\n9.5,", "\n9.25,"))
    monkeypatch.setenv("TREEBENCH_CARDS", str(cards))
    monkeypatch.setenv("TREEBENCH_DATA", f"{first}{os.pathsep}{second}")
    card_text = (cards / "toy.yaml").read_text()
    result = run("verify", "--write-checksums")
    assert isinstance(result.exception, TreebenchError)
    message = str(result.exception)
    assert message.startswith("dataset 'toy': local copies give different tables (mirror ")
    assert f"mirror {path} gives " in message and "make them agree (e.g. with 'corrections' in " in message
    assert (cards / "toy.yaml").read_text() == card_text


def test_info_on_a_bad_copy_shows_the_card_then_fails(tmp_path, monkeypatch):
    cards, mirror = tmp_path / "cards", tmp_path / "mirror"
    write_card(cards, toy_card())
    mirror.mkdir()
    (mirror / "toy.csv.gz").write_bytes(b"\x1f\x8b garbage")
    monkeypatch.setenv("TREEBENCH_CARDS", str(cards))
    monkeypatch.setenv("TREEBENCH_DATA", str(mirror))
    result = run("info", "toy")
    assert isinstance(result.exception, TreebenchError)
    assert str(result.exception).startswith(f"dataset 'toy': mirror copy {mirror / 'toy.csv.gz'}: corrupt gzip data")
    assert re.search(rf"^checksum: +{helpers.TOY_CHECKSUM}$", result.stdout, re.M)
    assert "loaded:       FAILED (see the error below)" in result.stdout


def test_fetch_downloads_with_progress(tmp_path, monkeypatch, http_server):
    base, _, _ = http_server
    card = toy_card(uci={"files": [{"url": f"{base}/toy.data.gz", "columns": ["id", "f1", "f2", "f3", "class"]}], "drop": ["id"]})
    write_card(tmp_path / "cards", card)
    monkeypatch.setenv("TREEBENCH_CARDS", str(tmp_path / "cards"))
    monkeypatch.setenv("TREEBENCH_OFFLINE", "0")
    result = run("fetch", "toy")
    assert result.exit_code == 0, result.output
    assert "toy: ok, 12 rows, 3 classes (uci " in result.output
    assert "toy.data.gz" in result.stderr  # the progress bar
    assert (Path(os.environ["TREEBENCH_CACHE"]) / "toy.csv.gz").is_file()
    again = run("fetch", "toy")
    assert "(cache " in again.output


def test_fetch_failure_is_one_error_per_dataset(tmp_path, monkeypatch):
    write_card(tmp_path / "cards", toy_card())
    write_card(tmp_path / "cards", toy_card(name="toy2"))
    monkeypatch.setenv("TREEBENCH_CARDS", str(tmp_path / "cards"))
    result = run("fetch", "toy", "toy2")
    assert isinstance(result.exception, TreebenchError)
    assert str(result.exception) == "2 of 2 datasets could not be fetched: toy, toy2 (reasons above)"
    assert "error: dataset 'toy' is not available; looked in:" in result.stderr
    assert "error: dataset 'toy2' is not available; looked in:" in result.stderr
    single = run("fetch", "toy")  # one dataset: its own error is the only line
    assert str(single.exception).startswith("dataset 'toy' is not available; looked in:")
    assert single.stderr == ""
    assert isinstance(run("fetch").exception, TreebenchError)
    assert "did you mean: toy" in str(run("fetch", "tyo").exception)


# ---------------------------------------------------------------- real processes
def _process(args: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **(env or {})}
    return subprocess.run(args, capture_output=True, text=True, env=full_env, timeout=120, cwd=CARDS.parent)


@functools.cache
def _cli_problem() -> str:
    """Why the ``treebench`` executable cannot run yet ("" when it can)."""
    if not TREEBENCH.is_file():
        return f"{TREEBENCH} is not installed (pip install -e .)"
    check = _process([sys.executable, "-c", "import treebench.cli"])
    if check.returncode != 0:
        return "treebench.cli does not import: " + (check.stderr.strip().splitlines() or ["?"])[-1]
    return ""


def _treebench() -> list[str]:
    if _cli_problem():
        pytest.skip(_cli_problem())
    return [str(TREEBENCH)]


@needs_mirror
def test_acceptance_verify_everything():
    proc = _process(_treebench() + ["datasets", "verify"], {"TREEBENCH_DATA": str(MIRROR)})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert f"{len(NAMES)} datasets checked" in proc.stdout and " 0 failed; 0 not available locally" in proc.stdout
    assert "FAILED" not in proc.stdout


def test_errors_exit_2_with_one_line_and_no_traceback(tmp_path):
    proc = _process(_treebench() + ["datasets", "info", "eccoli"])
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0 and proc.stderr.startswith("error: unknown dataset 'eccoli'")
    bad = toy_card()
    del bad["target"]
    write_card(tmp_path, bad)
    proc = _process([sys.executable, "-m", "treebench.data", "info", "toy"], {"TREEBENCH_CARDS": str(tmp_path)})
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "toy.yaml:1: field 'target' is missing; required fields:" in proc.stderr


def test_module_entry_point_without_mirror(tmp_path):
    env = {"TREEBENCH_CACHE": str(tmp_path), "TREEBENCH_OFFLINE": "1"}
    env_without_mirror = {k: v for k, v in os.environ.items() if k != "TREEBENCH_DATA"} | env
    proc = subprocess.run(
        [sys.executable, "-m", "treebench.data", "list"], capture_output=True, text=True, env=env_without_mirror, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    assert "4 available locally" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "treebench.data", "info", "ecoli4"], capture_output=True, text=True,
        env=env_without_mirror, timeout=120,
    )
    assert proc.returncode == 0 and "local copy:   none" in proc.stdout
    proc = subprocess.run(
        [sys.executable, "-m", "treebench.data", "fetch", "olive"], capture_output=True, text=True,
        env=env_without_mirror, timeout=120,
    )
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert "error: dataset 'olive' is not available" in proc.stderr
