"""Bad OpenML inputs, one case a line: references, ids, targets, names, tasks, suites, network.

Every case runs ``treebench ARGS`` in a fresh folder through ``tests/badinput.py``
with the recorded OpenML responses of ``tests/fixtures/openml`` as the OpenML
cache (``TREEBENCH_CACHE`` = ``<case>/cache``), user cards in ``<case>/cards``
and the case's environment (offline unless it says otherwise).  Network
failures are made with a closed port on this machine (``127.0.0.1:9``):
nothing leaves the machine.
"""

from __future__ import annotations

from collections import OrderedDict

import pytest
from badinput import CliCase, run_cli_case
from test_openml import TEST_SERVER, openml_env

from treebench.data.settings import ENV_OPENML_SERVER

OFFLINE: dict[str, str] = {}
TEST = {"server": TEST_SERVER}
REFUSED = {"server": "http://127.0.0.1:9/api/v1/xml", "offline": False}

CONFIG = (
    "experiment: oml\nseed: 0\ndatasets: [{entry}]\n{protocol}"
    "algorithms:\n  - {{name: entropy, criterion: entropy, params: {{max_depth: 2}}}}\n"
)


def config(entry: str, protocol: str = "") -> dict[str, str]:
    return {"c.yaml": CONFIG.format(entry=entry, protocol=protocol)}


# the recorded data and splits of test-server task 1, as the case folder's OpenML cache holds them
ANNEAL = "cache/openml/org/openml/test/datasets/1/dataset.arff"
SPLITS = "cache/openml/org/openml/test/tasks/1/datasplits.arff"

#: The refusal of a suite alias treebench does not know, and the accepted forms it names.
SUITE_ALIAS = r"^error: 'openml-suite:{0}': '{0}' is not a suite alias treebench knows;"
SUITE_ALIASES = (r" accepted: openml-suite:ID \(ID a positive integer, any suite\), or one of the aliases "
                 r"OpenML100 \(= 14\), OpenML-CC18 \(= 99\), AutoML-Benchmark \(= 218\), OpenML-friendly \(= 225\)$")

#: A cached answer for suite 99 (OpenML-CC18) listing one task that is not cached.
SUITE_99 = ("<oml:study xmlns:oml=\"http://openml.org/openml\"><oml:id>99</oml:id><oml:alias>OpenML-CC18</oml:alias>"
            "<oml:main_entity_type>task</oml:main_entity_type><oml:name>OpenML-CC18</oml:name>"
            "<oml:tasks><oml:task_id>77</oml:task_id></oml:tasks></oml:study>")
CARD = "name: x\ndescription: a user card that must not be replaced\n"

CASES: list[tuple[CliCase, dict]] = [
    (CliCase("add-not-a-number", ("datasets", "add", "openml:abc"), r"^error: 'openml:abc': 'abc' is not an OpenML dataset id; accepted: openml:ID"), OFFLINE),
    (CliCase("add-zero", ("datasets", "add", "openml:0"), r"'openml:0': '0' is not an OpenML dataset id; accepted: openml:ID \(ID a positive integer\)"), OFFLINE),
    (CliCase("add-no-prefix", ("datasets", "add", "61"), r"^error: '61' is not an OpenML reference; accepted: openml:ID"), OFFLINE),
    (CliCase("add-a-task", ("datasets", "add", "openml-task:1"), r"'openml-task:1' is not an OpenML reference; accepted: openml:ID"), OFFLINE),
    (CliCase("add-unknown-id-offline", ("datasets", "add", "openml:424242"), r"^error: OpenML dataset 424242 is not in the OpenML cache \(.*datasets/424242: no description\.xml\) and TREEBENCH_OFFLINE is set"), OFFLINE),
    (CliCase("add-numeric-target", ("datasets", "add", "openml:61", "--name", "y", "--target", "petalwidth"), r"target 'petalwidth' is numeric, not nominal: treebench learns classes; accepted: class$"), OFFLINE),
    (CliCase("add-unknown-target", ("datasets", "add", "openml:61", "--name", "y", "--target", "colour"), r"OpenML dataset 61 \(iris\) has no column 'colour'; accepted: class$"), OFFLINE),
    (CliCase("add-name-of-built-in", ("datasets", "add", "openml:61"), r"a card named 'iris' exists \(.*datasets/iris\.yaml\); choose another name with --name \(e\.g\. --name iris-openml61\)"), OFFLINE),
    (CliCase("add-bad-name", ("datasets", "add", "openml:61", "--name", "a/b"), r"^error: card name 'a/b' is not valid; accepted: letters, digits"), OFFLINE),
    (CliCase("add-existing-user-card", ("datasets", "add", "openml:61", "--name", "x"), r"cards/x\.yaml exists; use --force to replace it", files={"cards/x.yaml": CARD}), OFFLINE),
    (CliCase("add-network-refused", ("datasets", "add", "openml:61", "--name", "y"), r"^error: OpenML dataset 61: could not reach http://127\.0\.0\.1:9/api/v1/xml/data/61 \(connection refused\); check the network"), REFUSED),
    (CliCase("fetch-task-network-refused", ("datasets", "fetch", "openml-task:5"), r"^error: OpenML task 5: could not reach http://127\.0\.0\.1:9/api/v1/xml/task/5 \(connection refused\)"), REFUSED),
    (CliCase("fetch-suite-network-refused", ("datasets", "fetch", "openml-suite:OpenML-CC18"), r"^error: OpenML suite OpenML-CC18 \(id 99\): could not reach http://127\.0\.0\.1:9/api/v1/xml/study/99 \(connection refused\)"), REFUSED),
    (CliCase("fetch-mixed", ("datasets", "fetch", "iris", "openml:61"), r"fetch either dataset names or OpenML references"), OFFLINE),
    (CliCase("fetch-task-not-cached", ("datasets", "fetch", "openml-task:77"), r"OpenML task 77 is not in the OpenML cache .* run `treebench datasets fetch openml-task:77` online first"), TEST),
    (CliCase("server-not-a-url", ("datasets", "add", "openml:61"), r"^error: TREEBENCH_OPENML_SERVER='ftp\.example' is not a URL; accepted: an http\(s\) URL"), {"server": "ftp.example"}),
    (CliCase("config-task-bad-id", ("run", "c.yaml", "--dry-run"), r"c\.yaml:3: datasets\[0\]: 'openml-task:x1': 'x1' is not an OpenML task id; accepted: openml-task:ID", files=config("openml-task:x1")), TEST),
    (CliCase("config-task-not-cached", ("run", "c.yaml", "--dry-run"), r"datasets\[0\]: OpenML task 2 is not in the OpenML cache", files=config("openml-task:2")), TEST),
    (CliCase("config-suite-not-found-offline", ("run", "c.yaml", "--dry-run"), r"datasets\[0\]: OpenML suite 99 is not in the OpenML cache \(.*treebench-suites/99\.xml does not exist\)", files=config("openml-suite:99")), TEST),
    # issue 43 M5: an alias is its id for the cache too (it looked for OpenML-CC18.xml where the id form reads 99.xml)
    (CliCase("board-suite-alias-reads-the-id-file", ("leaderboard", "--suite", "openml-suite:OpenML-CC18", "--criteria", "entropy", "--folds", "3", "--dry-run", "--out", "b"), r"^error: the board's dataset 'openml-task:77' \(from --suite or --datasets\): OpenML task 77 is not in the OpenML cache", files={"cache/openml/org/openml/test/treebench-suites/99.xml": SUITE_99}), TEST),
    (CliCase("config-suite-bad-alias", ("run", "c.yaml", "--dry-run"), r"'openml-suite:9!': '9!' is not an OpenML suite id; accepted: openml-task:ID; openml-suite:ID or openml-suite:ALIAS", files=config("openml-suite:9!")), TEST),
    # an id that is neither a number nor a known alias is refused before any network access (it used to
    # be sent to the server: a network error, or offline "not in the OpenML cache")
    (CliCase("fetch-suite-unknown-alias-network-refused", ("datasets", "fetch", "openml-suite:abc"), SUITE_ALIAS.format("abc") + SUITE_ALIASES), REFUSED),
    (CliCase("fetch-suite-unknown-alias-offline", ("datasets", "fetch", "openml-suite:abc"), SUITE_ALIAS.format("abc")), OFFLINE),
    (CliCase("config-suite-unknown-alias", ("run", "c.yaml", "--dry-run"), r"c\.yaml:3: datasets\[0\]: " + SUITE_ALIAS[len("^error: "):].format("abc"), files=config("openml-suite:abc")), TEST),
    (CliCase("board-suite-unknown-alias-network-refused", ("leaderboard", "--suite", "openml-suite:abc", "--out", "b"), SUITE_ALIAS.format("abc")), REFUSED),
    (CliCase("fetch-suite-alias-wrong-case", ("datasets", "fetch", "openml-suite:openml-cc18"), SUITE_ALIAS.format("openml-cc18")[:-1] + r" \(did you mean openml-suite:OpenML-CC18\?\); accepted"), REFUSED),
    (CliCase("fetch-dataset-negative-id", ("datasets", "fetch", "openml:-3"), r"^error: 'openml:-3': '-3' is not an OpenML dataset id; accepted: openml:ID"), REFUSED),
    (CliCase("fetch-dataset-fraction-id", ("datasets", "fetch", "openml:1.5"), r"^error: 'openml:1\.5': '1\.5' is not an OpenML dataset id; accepted: openml:ID"), REFUSED),
    (CliCase("fetch-suite-negative-id", ("datasets", "fetch", "openml-suite:-3"), r"^error: 'openml-suite:-3': '-3' is not an OpenML suite id"), REFUSED),
    (CliCase("config-task-with-protocol", ("run", "c.yaml", "--dry-run"), r"datasets\[0\]\.protocol: an OpenML task brings its dataset and its own splits; remove 'protocol'", files=config("{name: openml-task:1, protocol: loo}")), TEST),
    (CliCase("config-openml-dataset-without-card", ("run", "c.yaml", "--dry-run"), r"no dataset card names OpenML dataset 424242; write one with `treebench datasets add openml:424242`", files=config("openml:424242", "protocol: loo\n")), OFFLINE),
    (CliCase("run-task-data-not-cached", ("run", "c.yaml"), r"OpenML dataset 1 is not in the OpenML cache \(.*datasets/1: no dataset_1\.pq or dataset\.arff\) and TREEBENCH_OFFLINE is set", files={**config("openml-task:1"), ANNEAL: lambda folder: (folder / ANNEAL).unlink()}), TEST),
    (CliCase("run-task-splits-not-cached", ("run", "c.yaml"), r"OpenML task 1's splits is not in the OpenML cache \(.*tasks/1: no datasplits\.arff or datasplits\.pkl\.py3\)", files={**config("openml-task:1"), SPLITS: lambda folder: (folder / SPLITS).unlink()}), TEST),
    (CliCase("run-task-data-corrupt", ("run", "c.yaml"), r"OpenML dataset 1", files={**config("openml-task:1"), ANNEAL: b"@relation anneal\n@attribute a {x,y}\n@data\nz,1,\n"}), TEST),
]


@pytest.mark.parametrize("case,env", CASES, ids=[c.id for c, _ in CASES])
def test_bad_openml_input(case, env, tmp_path, monkeypatch, capsys):
    openml_env(tmp_path, monkeypatch, server=None, offline=env.get("offline", True))
    if env.get("server"):
        monkeypatch.setenv(ENV_OPENML_SERVER, env["server"])
    from treebench.experiment import trial

    monkeypatch.setattr(trial, "_DATA", OrderedDict())
    run_cli_case(case, tmp_path, capsys)


def test_cases_are_many_and_distinct():
    assert len(CASES) >= 10 and len({c.id for c, _ in CASES}) == len(CASES)
