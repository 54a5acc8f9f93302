# treebench: the whole set-up is `make quickstart` and `make test`.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
# Local copies of the benchmark datasets (a path list); tests and benchmarks use it.
TREEBENCH_DATA ?= $(abspath ../shared/datasets)
export TREEBENCH_DATA

# The reproduced papers' keys, read from the catalogue (a folder under treebench/papers/ with a paper.yaml;
# `treebench papers list`).  Before `make install` has made the venv, those folders' names stand in.
PAPERS := $(shell $(BIN)/python -m treebench.papers.listing --keys 2>/dev/null || \
	echo $(patsubst treebench/papers/%/paper.yaml,%,$(wildcard treebench/papers/*/paper.yaml)))
REPRODUCE := $(addprefix reproduce-,$(PAPERS))

.PHONY: install quickstart test test-fast test-boundscheck bench lint clean clean-kernels reproduce docs-verdicts leaderboard $(REPRODUCE)

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@echo "installing treebench and its dependencies into $(VENV) (first time only; a minute or two)"
	$(BIN)/python -m pip install --progress-bar on -e '.[dev]'
	touch $(STAMP)

quickstart: install
	$(BIN)/treebench run configs/quickstart.yaml

# The suite runs on every core (pytest-xdist) and names its 25 slowest tests; markers in
# tests/conftest.py. PYTEST_ARGS adds options, e.g. PYTEST_ARGS="-k c45 -x".
PYTEST_ARGS ?=
PYTEST := $(BIN)/python -m pytest -q -n logical --durations=25 $(PYTEST_ARGS)

test: install
	$(PYTEST)

# The edit-test loop: everything but the tests marked slow (process-heavy, cold compiles).
test-fast: install
	$(PYTEST) -m "not slow"

# Memory safety of the compiled kernels: the tests marked `kernels` with numba's bounds
# checks on (an out-of-bounds index raises instead of corrupting memory); their own kernel
# cache, since the checks change the compiled code. The run fails if the selection leaves
# one of treebench's compiled functions unreached.
test-boundscheck: install
	NUMBA_BOUNDSCHECK=1 NUMBA_CACHE_DIR=$(CURDIR)/.numba-boundscheck TREEBENCH_KERNEL_REACH=require \
		$(PYTEST) -m kernels

# BENCH_BIG=1 adds the 500k x 10 and 1M x 10 synthetic cases (long on 2 cores).
# The papers' own learners against their peers: belief and MEE trees against scikit-learn,
# O-PiTree against river (the bench extra), C4.5 against Weka J48 where Java and Weka are installed.
bench: install
	$(BIN)/python -m pip install --quiet -e '.[dev,bench]'
	$(BIN)/python benchmarks/bench_fit.py
	$(BIN)/python benchmarks/bench_certainty_scale.py
	TREEBENCH_BENCH_BIG=$(BENCH_BIG) $(BIN)/python benchmarks/bench_synthetic.py
	$(BIN)/python benchmarks/bench_throughput.py
	$(BIN)/python benchmarks/bench_belief.py
	$(BIN)/python benchmarks/bench_mee.py
	$(BIN)/python benchmarks/bench_online.py
	$(BIN)/python benchmarks/bench_first_compile.py
	$(BIN)/python benchmarks/bench_c45_speed.py

# Rerun a paper's experiment (resuming) and write results/PAPER/report.md beside the published numbers.
$(REPRODUCE): reproduce-%: install
	$(BIN)/treebench reproduce $*

# Every paper in turn (resuming; one that fails does not stop the others), then results/index.html,
# then that page loaded in headless Chromium (console errors, every table and figure; skipped, saying
# why, without a chromium).
reproduce: install
	$(BIN)/treebench reproduce --all
	TREEBENCH_SITE=$(CURDIR)/results/index.html $(BIN)/python -m pytest -q -rs -p no:cacheprovider \
		tests/test_report_html.py -k reproduced_site

# The per-paper verdict lists of docs/reports.md, rewritten from results/PAPER/verdicts.json (after make
# reproduce); blocks of papers without one are kept. tests/test_docs_verdicts.py checks they agree.
docs-verdicts: install
	$(BIN)/python -m treebench.report.docs_verdicts --results results --docs docs/reports.md

lint: install
	$(BIN)/ruff check treebench tests benchmarks investigations

# The compiled kernels live in one folder per version of the sources (treebench/kernels/kernel_cache.py:
# an edit gives a new folder, so this is never needed for correctness); this frees the disk.
clean-kernels:
	$(BIN)/python -c "from treebench.kernels.kernel_cache import cache_root; import shutil; shutil.rmtree(cache_root(), ignore_errors=True)"
	find treebench -name '*.nbi' -delete -o -name '*.nbc' -delete  # caches of versions before the folder scheme
	rm -rf .numba-boundscheck

clean:
	rm -rf $(VENV) .pytest_cache .ruff_cache .hypothesis build *.egg-info .numba-boundscheck
	find treebench -name '__pycache__' -type d -prune -exec rm -rf {} +

# The criteria leaderboard on the bundled suite (docs/leaderboard.md); resumable. Pass options with
# LEADERBOARD_ARGS, e.g. LEADERBOARD_ARGS="--max-rows 0", and the folder with LEADERBOARD_OUT (an option
# given twice is refused). Then the page is checked in headless Chromium.
LEADERBOARD_ARGS ?=
LEADERBOARD_OUT ?= results/leaderboard
leaderboard: install
	$(BIN)/treebench leaderboard --out $(LEADERBOARD_OUT) $(LEADERBOARD_ARGS)
	TREEBENCH_LEADERBOARD=$(abspath $(LEADERBOARD_OUT))/index.html $(BIN)/python -m pytest -q -rs -p no:cacheprovider \
		tests/test_leaderboard.py -k built_leaderboard
