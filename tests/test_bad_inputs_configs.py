"""Bad configs and bad ``run``/``results`` options: one line, exit 2, no traceback, nothing lost.

Each case of :data:`CASES` is one line: ``treebench ARGS`` in a fresh folder
holding the case's files (see ``tests/badinput.py``).  Files named in a case
must come out unchanged -- a finished results store among them, for the cases
that carry one.  The attacks on the YAML reader (alias expansion, nesting) are
kept small enough to stay cheap even if the protection they check were gone.
"""

from __future__ import annotations

import functools
import sqlite3
from pathlib import Path

import pytest
from badinput import GOOD_CONFIG, ApiCase, CliCase, case_tests

from treebench.errors import TreebenchError
from treebench.experiment import executors
from treebench.experiment.config import check_trial_count, parse_config
from treebench.experiment.executors import check_jobs, check_scheduler, probe_scheduler
from treebench.yamlcheck import MAX_FILE_BYTES, YamlLimitError, parse

STORE = "results/bad-input.sqlite"  # GOOD_CONFIG's store


def cfg(old: str, new: str) -> str:
    """GOOD_CONFIG with ``old`` replaced (which must be there, so no case passes trivially)."""
    assert old in GOOD_CONFIG, old
    return GOOD_CONFIG.replace(old, new)


ALGORITHM = "{name: entropy, criterion: entropy, params: {max_depth: 2}}"


def algo(fields: str) -> str:
    """GOOD_CONFIG with its one algorithm's mapping given ``fields`` instead."""
    return cfg(ALGORITHM, "{" + fields + "}")


def laughs(levels: int, width: int) -> str:
    """GOOD_CONFIG whose description holds a "billion laughs" alias chain.

    ``width ** levels`` scalars once expanded (11 ** 5 = 161051 here, past the
    100000 budget): a few kilobytes of text, and tens of megabytes -- not
    gigabytes -- if the budget were gone.
    """
    rows = [f"l0: &l0 [{', '.join(['lol'] * width)}]"]
    rows += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * width)}]" for i in range(1, levels)]
    return GOOD_CONFIG + "description:\n" + "".join(f"  - {row}\n" for row in rows)


DEEP = GOOD_CONFIG + "description: " + "[" * 5000 + "]" * 5000 + "\n"


@functools.cache
def _finished_store() -> bytes:
    """The bytes of GOOD_CONFIG's store after a real run (2 finished trials)."""
    import tempfile

    from treebench.experiment.runner import run_experiment

    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "store.sqlite"
        summary = run_experiment(
            parse_config(GOOD_CONFIG), jobs=1, store_path=path, quiet=True, echo=lambda _line: None
        )
        assert summary.done == 2 and summary.failed == 0
        return path.read_bytes()


def finished_store(folder: Path) -> None:
    """File content for a case: GOOD_CONFIG's finished store at :data:`STORE`."""
    (folder / STORE).write_bytes(_finished_store())


WITH_STORE = {STORE: finished_store}

# fmt: off
CASES = [
    # -- the config file itself
    CliCase("missing file", ("run", "nothere.yaml"), r"^error: config file 'nothere\.yaml' not found$"),
    CliCase("config is a folder", ("run", "configs"), r"^error: config 'configs' is a folder; accepted: a YAML file$", files={"configs/keep.txt": ""}),
    CliCase("empty config", ("run", "c.yaml"), r"^error: c\.yaml:1: \(top level\): the config is empty; expected a mapping with keys experiment, ", files={"c.yaml": ""}),
    CliCase("comments only", ("run", "c.yaml"), r"the config is empty; expected a mapping", files={"c.yaml": "# to do\n"}),
    CliCase("top level is a list", ("run", "c.yaml"), r"^error: c\.yaml:1: \(top level\): expected a mapping with keys experiment, .*; got a list$", files={"c.yaml": "- experiment: x\n"}),
    CliCase("top level is a scalar", ("run", "c.yaml"), r"\(top level\): expected a mapping with keys .*; got text$", files={"c.yaml": "experiment\n"}),
    CliCase("not UTF-8", ("run", "c.yaml"), r"^error: config file 'c\.yaml' is not UTF-8 text \(byte 0xe9 at offset 15\); accepted: a YAML text file in UTF-8$", files={"c.yaml": b"experiment: caf\xe9\n"}),
    CliCase("binary file", ("run", "c.yaml"), r"^error: config file 'c\.yaml' is binary \(it holds NUL bytes\); accepted: a YAML text file", files={"c.yaml": b"\x7fELF\x02\x01\x01\x00\x00\x00"}),
    CliCase("file too large", ("run", "c.yaml"), rf"^error: config file 'c\.yaml' is larger than {MAX_FILE_BYTES} bytes; accepted: at most {MAX_FILE_BYTES} bytes$", files={"c.yaml": GOOD_CONFIG + "description: " + "x" * MAX_FILE_BYTES + "\n"}),
    CliCase("YAML syntax error", ("run", "c.yaml"), r"^error: c\.yaml:\d+: YAML syntax error: ", files={"c.yaml": cfg("datasets: [iris]", "datasets: [iris")}),
    CliCase("billion laughs", ("run", "c.yaml"), r"^error: c\.yaml:\d+: YAML document too large: more than 100000 values once aliases are expanded .*; accepted: at most 100000$", files={"c.yaml": laughs(5, 11)}),
    CliCase("deep nesting", ("run", "c.yaml"), r"^error: c\.yaml:7: YAML nesting deeper than 100 levels; accepted: at most 100$", files={"c.yaml": DEEP}),
    CliCase("recursive alias", ("run", "c.yaml"), r"^error: c\.yaml:7: YAML alias inside the value it names", files={"c.yaml": GOOD_CONFIG + "description: &d [x, *d]\n"}),
    CliCase("key given twice", ("run", "c.yaml"), r"^error: c\.yaml:3: seed: key given twice", files={"c.yaml": cfg("seed: 0\n", "seed: 0\nseed: 1\n")}),
    CliCase("unknown top-level key", ("run", "c.yaml"), r"unknown key 'seeds' \(did you mean seed\?\); accepted: experiment, ", files={"c.yaml": GOOD_CONFIG + "seeds: 2\n"}),
    CliCase("bad experiment name", ("run", "c.yaml"), r"'my run' is not a valid name", files={"c.yaml": cfg("experiment: bad-input", "experiment: my run")}),
    CliCase("description not text", ("run", "c.yaml"), r"description: expected text; got a list$", files={"c.yaml": GOOD_CONFIG + "description: [a]\n"}),
    # issue 43 F3: a label of a megabyte passed the check and made `plot scores` fail in matplotlib
    CliCase("dataset label too long", ("run", "c.yaml"), r"^error: c\.yaml:3: datasets\[0\]: dataset label 'y{40}'\.\.\. is 300 characters long; accepted: at most 200 characters$", files={"c.yaml": cfg("datasets: [iris]", "datasets: [{name: " + "y" * 300 + ", train: iris, test: iris}]")}),
    CliCase("algorithm name too long", ("run", "c.yaml"), r"algorithms\[0\]\.name: algorithm name 'e{40}'\.\.\. is 201 characters long; accepted: at most 200 characters$", files={"c.yaml": cfg("{name: entropy,", "{name: " + "e" * 201 + ",")}),
    CliCase("experiment name too long", ("run", "c.yaml"), r"experiment: experiment name 'x{40}'\.\.\. is 250 characters long; accepted: at most 200 characters$", files={"c.yaml": cfg("experiment: bad-input", "experiment: " + "x" * 250)}),
    CliCase("description too long", ("run", "c.yaml"), r"description: description 'd{40}'\.\.\. is 5001 characters long; accepted: at most 5000 characters$", files={"c.yaml": GOOD_CONFIG + "description: " + "d" * 5001 + "\n"}),
    # -- seeds
    CliCase("seed beyond 64 bits", ("run", "c.yaml"), r"^error: c\.yaml:2: seed: 9223372036854775808 is out of range; accepted: an integer from 0 to 4294967295$", files={"c.yaml": cfg("seed: 0", "seed: 9223372036854775808")}),
    CliCase("seed beyond 32 bits", ("run", "c.yaml"), r"seed: 4294967296 is out of range; accepted: an integer from 0 to 4294967295$", files={"c.yaml": cfg("seed: 0", "seed: 4294967296")}),
    CliCase("negative seed", ("run", "c.yaml"), r"seed: -1 is out of range; accepted: an integer from 0 to 4294967295$", files={"c.yaml": cfg("seed: 0", "seed: -1")}),
    CliCase("fractional seed", ("run", "c.yaml"), r"seed: expected an integer from 0 to 4294967295; got 1\.5$", files={"c.yaml": cfg("seed: 0", "seed: 1.5")}),
    # -- datasets and protocols
    CliCase("unknown dataset", ("run", "c.yaml"), r"datasets\[0\]: unknown dataset 'iriss'", files={"c.yaml": cfg("[iris]", "[iriss]")}),
    CliCase("unknown protocol type", ("run", "c.yaml"), r"protocol\.type: unknown protocol type 'kfold'.*; accepted: cv, holdout, loo, ordered, fixed$", files={"c.yaml": cfg("type: cv", "type: kfold")}),
    CliCase("protocol not a mapping", ("run", "c.yaml"), r"protocol: expected a mapping with a 'type'", files={"c.yaml": cfg("protocol: {type: cv, folds: 2, repeats: 1}", "protocol: [cv]")}),
    CliCase("one fold", ("run", "c.yaml"), r"protocol\.folds: 1 is out of range; accepted: an integer from 2 to 1000$", files={"c.yaml": cfg("folds: 2", "folds: 1")}),
    CliCase("absurd folds", ("run", "c.yaml"), r"protocol\.folds: 5000 is out of range; accepted: an integer from 2 to 1000$", files={"c.yaml": cfg("folds: 2", "folds: 5000")}),
    CliCase("absurd repeats", ("run", "c.yaml"), r"protocol\.repeats: 100000000000 is out of range; accepted: an integer from 1 to 10000$", files={"c.yaml": cfg("repeats: 1", "repeats: 100000000000")}),
    CliCase("absurd tuning folds", ("run", "c.yaml"), r"tuning\.folds: 100000 is out of range; accepted: an integer from 2 to 1000$", files={"c.yaml": GOOD_CONFIG + "tuning: {folds: 100000}\n"}),
    CliCase("fixed column missing", ("run", "c.yaml"), r"fixed protocol column 'split' is not a column of dataset 'iris'", files={"c.yaml": cfg("{type: cv, folds: 2, repeats: 1}", "{type: fixed, column: split}")}),
    # -- algorithms
    CliCase("unknown criterion", ("run", "c.yaml"), r"algorithms\[0\]\.criterion: unknown criterion 'entropyy' \(did you mean entropy\?\); accepted: ", files={"c.yaml": cfg("criterion: entropy", "criterion: entropyy")}),
    CliCase("unknown baseline", ("run", "c.yaml"), r"unknown baseline 'sklearn-c45'.*; accepted: c4\.5, c50, sklearn, sklearn-cart", files={"c.yaml": algo("name: b, baseline: sklearn-c45")}),
    CliCase("unknown parameter", ("run", "c.yaml"), r"criterion 'entropy' has no parameter 'max_dept' \(did you mean max_depth\?\); accepted: ", files={"c.yaml": cfg("max_depth: 2", "max_dept: 2")}),
    CliCase("parameter out of range", ("run", "c.yaml"), r"algorithms\[0\]\.params\.max_depth: .*accepted: ", files={"c.yaml": cfg("max_depth: 2", "max_depth: -1")}),
    CliCase("empty grid", ("run", "c.yaml"), r"algorithms\[0\]\.grid: expected a non-empty mapping of parameter: \[values\]; got an empty mapping \(leave 'grid' out to run untuned\)$", files={"c.yaml": algo("name: e, criterion: entropy, grid: {}")}),
    CliCase("null grid", ("run", "c.yaml"), r"algorithms\[0\]\.grid: expected a non-empty mapping .*; got nothing", files={"c.yaml": algo("name: e, criterion: entropy, grid: null")}),
    CliCase("grid is a list", ("run", "c.yaml"), r"algorithms\[0\]\.grid: expected a non-empty mapping .*; got a list", files={"c.yaml": algo("name: e, criterion: entropy, grid: [max_depth, 2]")}),
    CliCase("grid too large", ("run", "c.yaml"), r"algorithms\[0\]\.grid: the grid has 12000 points \(the product of its value counts\); accepted: at most 10000$", files={"c.yaml": algo("name: e, criterion: entropy, grid: {max_depth: [" + ", ".join(map(str, range(120))) + "], min_samples_leaf: [" + ", ".join(map(str, range(1, 101))) + "]}")}),
    CliCase("params is a list", ("run", "c.yaml"), r"algorithms\[0\]\.params: expected a mapping of parameter: value; got a list$", files={"c.yaml": algo("name: e, criterion: entropy, params: [max_depth]")}),
    CliCase("params is text", ("run", "c.yaml"), r"algorithms\[0\]\.params: expected a mapping of parameter: value; got text$", files={"c.yaml": algo("name: e, criterion: entropy, params: max_depth=2")}),
    CliCase("unknown pruning", ("run", "c.yaml"), r"unknown pruning 'reduced'; accepted: none, pessimistic, cost-complexity$", files={"c.yaml": algo("name: e, criterion: entropy, pruning: reduced")}),
    CliCase("unknown metric", ("run", "c.yaml"), r"metrics\[0\]: unknown metric 'auc'", files={"c.yaml": GOOD_CONFIG + "metrics: [auc]\n"}),
    CliCase("bad plugin path", ("run", "c.yaml"), r"plugins\[0\]: plugin file .*missing\.py.* not found", files={"c.yaml": GOOD_CONFIG + "plugins: [missing.py]\n"}),
    # -- how much a config asks for: refused before anything runs, the finished store untouched
    CliCase("too many trials", ("run", "c.yaml"), r"^error: c\.yaml: the config plans 10000000 trials \(outer splits x algorithms\), more than 1000000; accepted: at most 1000000 \(raise it with treebench run --max-trials N\)$", files={"c.yaml": cfg("folds: 2, repeats: 1", "folds: 1000, repeats: 10000"), **WITH_STORE}),
    CliCase("more trials than --max-trials", ("run", "c.yaml", "--max-trials", "149"), r"the config plans 150 trials .*more than 149; accepted: at most 149 \(raise it with treebench run --max-trials N\)$", files={"c.yaml": cfg("{type: cv, folds: 2, repeats: 1}", "loo"), **WITH_STORE}),
    CliCase("--max-trials 0", ("run", "c.yaml", "--max-trials", "0"), r"^error: --max-trials 0 is out of range; accepted: an integer >= 1$", files={"c.yaml": GOOD_CONFIG}),
    CliCase("--jobs 0", ("run", "c.yaml", "--jobs", "0"), r"^error: --jobs 0 is out of range; accepted: an integer >= 1 \(this machine runs at most \d+\)$", files={"c.yaml": GOOD_CONFIG, **WITH_STORE}),
    CliCase("negative --jobs", ("run", "c.yaml", "-j", "-4"), r"^error: --jobs -4 is out of range; accepted: an integer >= 1", files={"c.yaml": GOOD_CONFIG}),
    CliCase("--jobs with --scheduler", ("run", "c.yaml", "--jobs", "2", "--scheduler", "tcp://127.0.0.1:8786"), r"--jobs and --scheduler exclude each other", files={"c.yaml": GOOD_CONFIG}),
    CliCase("scheduler not an address", ("run", "c.yaml", "--scheduler", "not a url"), r"^error: --scheduler 'not a url' is not a Dask scheduler address; accepted: SCHEME://HOST:PORT with SCHEME one of .*tcp", files={"c.yaml": GOOD_CONFIG}),
    CliCase("scheduler without a port", ("run", "c.yaml", "--scheduler", "tcp://localhost"), r"--scheduler 'tcp://localhost' is not a Dask scheduler address", files={"c.yaml": GOOD_CONFIG}),
    CliCase("scheduler port out of range", ("run", "c.yaml", "--scheduler", "tcp://localhost:99999"), r"is not a Dask scheduler address", files={"c.yaml": GOOD_CONFIG}),
    CliCase("scheduler scheme unknown", ("run", "c.yaml", "--scheduler", "http://localhost:8786"), r"unknown address scheme 'http'; accepted: SCHEME://HOST:PORT", files={"c.yaml": GOOD_CONFIG}),
    CliCase("scheduler refuses", ("run", "c.yaml", "--scheduler", "tcp://127.0.0.1:1"), r"^error: cannot reach the Dask scheduler at 'tcp://127\.0\.0\.1:1': .*\(waited at most 5 s\)$", files={"c.yaml": GOOD_CONFIG, **WITH_STORE}),
    CliCase("--store is a folder", ("run", "c.yaml", "--store", "results"), r"^error: store 'results' is a folder; accepted: a results store file", files={"c.yaml": GOOD_CONFIG, "results/keep.txt": ""}),
    # -- results export / show
    CliCase("export: store missing", ("results", "export", "none.sqlite"), r"^error: no results store at 'none\.sqlite'$"),
    CliCase("export: store is a folder", ("results", "export", "results"), r"^error: 'results' is a folder; accepted: a results store file", files=WITH_STORE),
    CliCase("export: --out is a folder", ("results", "export", STORE, "--out", "results"), r"^error: --out 'results' is a folder; accepted: a file path, or - for stdout$", files=WITH_STORE),
    CliCase("export: --out under a file", ("results", "export", STORE, "--out", "c.yaml/x.csv"), r"^error: --out 'c\.yaml/x\.csv': 'c\.yaml' is a file, not a folder; accepted: ", files={"c.yaml": GOOD_CONFIG, **WITH_STORE}),
    CliCase("export: parquet to stdout", ("results", "export", STORE, "--format", "parquet", "--out", "-"), r"--out - \(stdout\) works with --format csv only$", files=WITH_STORE),
    CliCase("show: store is a folder", ("results", "show", "results"), r"^error: 'results' is a folder", files={"results/keep.txt": ""}),
]
# fmt: on

API_CASES = [
    ApiCase("laughs, small budget", lambda: parse("a: &a [1, 2, 3]\nb: [*a, *a, *a, *a]\n", "c.yaml", max_values=10), r"^c\.yaml:2: YAML document too large: more than 10 values", YamlLimitError),
    ApiCase("nesting, small budget", lambda: parse("a: [[[[1]]]]\n", "c.yaml", max_depth=4), r"^c\.yaml:1: YAML nesting deeper than 4 levels; accepted: at most 4$", YamlLimitError),
    ApiCase("recursive alias", lambda: parse("a: &a {b: [*a]}\n", "c.yaml"), r"^c\.yaml:1: YAML alias inside the value it names", YamlLimitError),
    ApiCase("trial count", lambda: check_trial_count(parse_config(GOOD_CONFIG, "c.yaml"), 1), r"^c\.yaml: the config plans 2 trials .*more than 1; accepted: at most 1 ", TreebenchError),
    ApiCase("jobs", lambda: check_jobs(0, print), r"^--jobs 0 is out of range", TreebenchError),
    ApiCase("scheduler", lambda: check_scheduler("tcp://host:port"), r"^--scheduler 'tcp://host:port' is not a Dask scheduler address", TreebenchError),
]


test_cli_bad_input, test_api_bad_input = case_tests(CASES, API_CASES)


def test_there_are_enough_cases_and_every_case_names_its_problem() -> None:
    assert len(CASES) >= 30 and len({case.id for case in CASES}) == len(CASES)
    assert all(case.message for case in CASES)


def test_the_shared_store_really_holds_finished_trials(tmp_path: Path) -> None:
    (tmp_path / "results").mkdir()
    finished_store(tmp_path)
    with sqlite3.connect(tmp_path / STORE) as conn:
        assert conn.execute("SELECT count(*) FROM trials WHERE status = 'ok'").fetchone() == (2,)


# ---------------------------------------------------------------- what is not an error
def test_export_creates_the_folder_of_out(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from treebench.cli import main

    (tmp_path / "s.sqlite").write_bytes(_finished_store())
    out = tmp_path / "new" / "deeper" / "t.csv"
    main(["results", "export", str(tmp_path / "s.sqlite"), "--out", str(out)])
    assert out.read_text().count("\n") == 3  # the header and two trials
    assert capsys.readouterr().out == f"wrote 2 trials to {out}\n"


def test_jobs_beyond_the_cores_are_capped_with_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    from treebench.cli import main

    monkeypatch.setattr(executors, "default_jobs", lambda: 1)  # a one-core machine
    config = tmp_path / "c.yaml"
    config.write_text(GOOD_CONFIG)
    store = tmp_path / "s.sqlite"
    main(["run", str(config), "--jobs", "8", "--store", str(store), "--quiet"])
    err = capsys.readouterr().err
    assert err == "warning: --jobs 8 is more than the 1 cores this process may use; running 1\n"
    with sqlite3.connect(store) as conn:  # capped to one worker: the run stayed in this process
        assert conn.execute("SELECT backend FROM runs").fetchall() == [("sequential",)]


def test_a_dry_run_over_the_trial_cap_only_warns(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    from treebench.cli import main

    config = tmp_path / "c.yaml"
    config.write_text(GOOD_CONFIG)
    main(["run", str(config), "--dry-run", "--max-trials", "1", "--store", str(tmp_path / "s.sqlite")])
    captured = capsys.readouterr()
    assert captured.err.startswith("warning: ") and "plans 2 trials" in captured.err
    assert "total: 2 trials" in captured.out and not (tmp_path / "s.sqlite").exists()


def test_the_probe_accepts_a_real_scheduler() -> None:
    distributed = pytest.importorskip("distributed")
    with distributed.LocalCluster(
        n_workers=0, processes=True, host="127.0.0.1", dashboard_address=None
    ) as cluster:
        probe_scheduler(cluster.scheduler_address, timeout=10)


def test_the_probe_refuses_a_program_that_is_not_a_scheduler() -> None:
    import socket
    import threading

    server = socket.create_server(("127.0.0.1", 0))
    port = server.getsockname()[1]

    def answer() -> None:  # what an HTTP server sends to whoever connects (the probe connects twice)
        while True:
            try:
                conn, _ = server.accept()
            except OSError:  # the server was closed: the test is over
                return
            try:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4)
            except OSError:  # the plain TCP probe hangs up at once
                pass
            conn.close()

    threading.Thread(target=answer, daemon=True).start()
    try:
        with pytest.raises(TreebenchError, match="something other than a Dask scheduler answers there"):
            probe_scheduler(f"tcp://127.0.0.1:{port}", timeout=5)
    finally:
        server.close()

