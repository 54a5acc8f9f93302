"""The shell commands shown in README.md and docs/*.md run, verbatim (issue 21, item 6).

What is extracted: README.md's ```bash blocks and the command blocks of docs/*.md (```bash,
```sh, ```console or no language); in them, the lines that start with ``treebench``, ``$B/``,
``make``, ``B=``, ``export`` or ``TREEBENCH_DATA=`` (a ``$ `` prompt is dropped, a trailing
``# comment`` too, and an indented continuation line joins the command above it).  Output
lines, YAML and layout sketches in the same blocks are not commands and are ignored.

How they run: in document order (README first: its Use block runs the yeast experiment the
later commands read), each in ``bash`` in a throwaway copy of the checkout laid out as the
README expects (``main/`` with ``configs/`` and ``.venv``, ``shared/datasets`` beside it, a
fresh ``results/``), with the environment the README sets up: its ``B=.venv/bin`` and
``export TREEBENCH_DATA=...`` lines, and ``.venv/bin`` on ``PATH`` for the docs' bare
``treebench`` (the installed command).  A ```python block whose first line is ``# NAME.py``
is the file a reader saves (e.g. docs/criteria.md's ``renyi.py`` plugin): it is written into the
copy first.  Each command must exit 0 without a traceback.

Not run, but checked (every ``--option`` it shows must be an option of that (sub)command, every
``configs/*.yaml`` and make target it names must exist):

- synopsis lines, whose words are placeholders (``STORE``, ``CONFIG``, ``NAME``, ``PAPER``,
  ``ID``, ...) or optional parts (``[...]``, ``a|b``, ``...``) -- illustrative, not runnable;
- :data:`LONG` commands, too slow for the time budget (the whole module takes ~30 s on an idle
  2-core machine, the yeast run being ~12 s of it);
- blocks preceded by an ``<!-- not run -->`` line (docs/leaderboard.md's whole-suite and cluster boards).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
#: Commands not run because they take long; why each is safe to leave to the option check.
LONG = {
    "make quickstart": "installs and runs configs/quickstart.yaml: the state these commands start from",
    "make test": "the test suite itself",
    "treebench run configs/quickstart.yaml": "what `make quickstart` runs (~20 s); done before the docs are read",
}
STARTS = ("treebench ", "$B/", "make ", "B=", "export ", "TREEBENCH_DATA=")
SHELL_LANGS = {"", "bash", "sh", "shell", "console"}
PLACEHOLDER = re.compile(r"\[|\||\.\.\.|(?<![\w$/.-])[A-Z][A-Z_]+(?![\w=])")
OPTION = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


@dataclass(frozen=True)
class Command:
    doc: str
    line: int
    text: str

    @property
    def where(self) -> str:
        return f"{self.doc}:{self.line}"


def _strip(line: str) -> str:
    line = line.strip()
    if line.startswith("$ "):
        line = line[2:]
    return re.sub(r"\s+#.*$", "", line).strip()


def extract(path: Path) -> list[tuple[Command, bool]]:
    """``(command, shown in a block marked <!-- not run -->)`` for every command line of ``path``."""
    text = path.read_text(encoding="utf-8")
    lines = text.splitlines()
    found: list[tuple[Command, bool]] = []
    readme = path.name == "README.md"
    i = 0
    while i < len(lines):
        m = re.match(r"^```(\w*)\s*$", lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i
        i += 1
        body: list[tuple[int, str]] = []
        while i < len(lines) and not lines[i].startswith("```"):
            body.append((i + 1, lines[i]))
            i += 1
        i += 1
        if (lang != "bash") if readme else (lang not in SHELL_LANGS):
            continue
        not_run = start > 0 and lines[start - 1].strip() == "<!-- not run -->"
        for number, raw in body:
            stripped = _strip(raw)
            if raw[:1].isspace() and found and found[-1][0].doc == path.name and stripped.startswith("["):
                prev, flag = found[-1]
                found[-1] = (Command(prev.doc, prev.line, f"{prev.text} {stripped}"), flag)
            elif stripped.startswith(STARTS):
                found.append((Command(path.name, number, stripped), not_run))
    return found


ALL = [pair for doc in DOCS for pair in extract(doc)]


def saved_files() -> dict[str, str]:
    """``{NAME.py: code}`` for the python blocks that open with a ``# NAME.py`` line."""
    files = {}
    for doc in DOCS:
        for code in re.findall(r"^```python\n(.*?)^```", doc.read_text(encoding="utf-8"), flags=re.S | re.M):
            m = re.match(r"# ([\w.-]+\.py)\n", code)
            if m:
                files[m.group(1)] = code
    return files


def kind(command: Command, not_run: bool) -> str:
    if command.text.startswith(("B=", "export ")):
        return "env"
    if not_run or PLACEHOLDER.search(command.text):
        return "illustrative"
    program = re.sub(r"^(TREEBENCH_DATA=\S+ )?\$B/", "", command.text)
    if any(program == long or program.startswith(long + " ") for long in LONG):
        return "long"
    return "run"


def _treebench_command(words: list[str]) -> click.Command:
    from treebench.cli import cli

    cmd: click.Command = cli
    ctx = click.Context(cli, info_name="treebench")
    for word in words:
        if not isinstance(cmd, click.Group):
            break
        sub = cmd.get_command(ctx, word)
        if sub is None:
            break
        cmd, ctx = sub, click.Context(sub, info_name=word, parent=ctx)
    return cmd


def problems_without_running(command: Command) -> list[str]:
    """Options, configs and make targets the command names that do not exist."""
    words = command.text.split()
    while words and "=" in words[0] and not words[0].startswith("-"):
        words = words[1:]  # VAR=value prefixes
    if not words:
        return []
    program = words[0].split("/")[-1]
    found = []
    if program == "make":
        from treebench.papers.catalogue import PAPERS

        makefile = (ROOT / "Makefile").read_text(encoding="utf-8")
        targets = {f"reproduce-{key}" for key in PAPERS}  # the Makefile's PAPERS is the catalogue's keys
        targets |= set(re.findall(r"^([\w.-]+):", makefile, re.M))
        for target in words[1:]:
            if not PLACEHOLDER.search(target) and target not in targets:
                found.append(f"no make target {target!r}")
        return found
    if program != "treebench":
        return []
    cmd = _treebench_command(words[1:])
    known = {opt for p in cmd.params for opt in (*p.opts, *p.secondary_opts)} | {"--help"}
    found += [f"`{cmd.name}` has no option {opt}" for opt in OPTION.findall(command.text) if opt not in known]
    found += [f"no file {w}" for w in words if w.startswith("configs/") and not PLACEHOLDER.search(w)
              and not (ROOT / w).exists()]
    return found


def test_commands_are_found():
    kinds = {}
    for command, not_run in ALL:
        kinds.setdefault(kind(command, not_run), []).append(command.text)
    assert any("run configs/yeast.yaml" in c for c in kinds["run"]), kinds
    assert any(c.startswith("$B/treebench compare") for c in kinds["run"]), kinds
    assert "export TREEBENCH_DATA=$PWD/../shared/datasets" in kinds["env"]
    # skips stay few: illustrative synopses, and the long list above
    assert len(kinds.get("long", [])) <= len(LONG) + 1


@pytest.mark.parametrize("command", [c for c, _ in ALL if c.text.startswith(("treebench", "$B/", "make"))
                                     or "treebench " in c.text], ids=lambda c: c.where)
def test_shown_options_and_files_exist(command):
    assert not problems_without_running(command), f"{command.where}: {command.text}"


@pytest.fixture(scope="module")
def checkout(tmp_path_factory) -> Path:
    """``tmp/main`` (configs, .venv, dataset cards, no results) beside ``tmp/shared/datasets``."""
    data = os.environ.get("TREEBENCH_DATA", "").split(os.pathsep)[0]
    if not data or not (Path(data) / "yeast.csv.gz").exists():
        pytest.skip("the README's commands need the dataset mirror (TREEBENCH_DATA with yeast)")
    if not (ROOT / ".venv" / "bin" / "treebench").exists():
        pytest.skip("no .venv/bin/treebench: run `make install` first")
    tmp = tmp_path_factory.mktemp("clone")
    (tmp / "shared").mkdir()
    (tmp / "shared" / "datasets").symlink_to(Path(data).resolve())
    main = tmp / "main"
    main.mkdir()
    shutil.copytree(ROOT / "configs", main / "configs")
    shutil.copy(ROOT / "Makefile", main / "Makefile")
    (main / ".venv").symlink_to(ROOT / ".venv")
    (main / "datasets").symlink_to(ROOT / "datasets")
    (tmp / "cache").mkdir()
    for name, code in saved_files().items():
        (main / name).write_text(code, encoding="utf-8")
    return main


def _run(command: Command, script: str, cwd: Path, env: dict[str, str]) -> tuple[Command, float, str | None]:
    t0 = time.perf_counter()
    try:
        result = subprocess.run(["bash", "-c", script], cwd=cwd, env=env, capture_output=True, text=True,
                                timeout=120)
    except subprocess.TimeoutExpired:
        return command, time.perf_counter() - t0, "timed out"
    seconds = time.perf_counter() - t0
    if result.returncode != 0 or "Traceback" in result.stderr:
        tail = (result.stderr.strip() or result.stdout.strip()).splitlines()[-3:]
        return command, seconds, f"exit {result.returncode}: {' | '.join(tail)}"
    return command, seconds, None


def test_the_shown_commands_run_verbatim(checkout):
    env = {k: v for k, v in os.environ.items() if k != "TREEBENCH_DATA"}  # the README sets it
    env.update(PATH=f"{checkout / '.venv' / 'bin'}{os.pathsep}{env.get('PATH', '')}",
               TREEBENCH_CACHE=str(checkout.parent / "cache"), TREEBENCH_OFFLINE="1", MPLBACKEND="Agg")
    prelude: list[str] = []
    results, pending = [], []
    started = time.perf_counter()
    # `treebench run` writes a store the later commands read: it runs alone, after everything shown
    # before it; the readers between two runs run side by side (each pays ~2 s of imports).
    with ThreadPoolExecutor(max_workers=4) as pool:
        for command, not_run in ALL:
            k = kind(command, not_run)
            if k == "env":
                prelude.append(command.text)  # the README's set-up holds for every later command
                continue
            if k != "run":
                continue
            script = "\n".join(["set -e", *prelude, command.text])
            if re.search(r"treebench run ", command.text):
                results += [f.result() for f in pending]
                pending = []
                results.append(_run(command, script, checkout, env))
            else:
                pending.append(pool.submit(_run, command, script, checkout, env))
        results += [f.result() for f in pending]
    failures = [f"{c.where}: {c.text}: {problem}" for c, _, problem in results if problem]
    assert not failures, "\n".join(failures)
    timings = sorted(((round(t, 1), c.text) for c, t, _ in results), reverse=True)
    assert len(results) >= 8, timings
    assert (checkout / "results" / "yeast.sqlite").exists()
    # ~30 s on an idle 2-core machine (the yeast run is ~12 s of it); the bound only catches a hang
    assert time.perf_counter() - started < 240, timings
