"""A harness for table-driven bad-input tests: one case is one line.

A :class:`CliCase` runs ``treebench ARGS`` in-process through the real entry
point (``treebench.cli.main``) in a fresh temporary folder holding the case's
files, and checks what a user must see: the expected exit code, exactly one
line on stderr naming the problem, no traceback, and every file the case
names unchanged (a bad input never loses or modifies finished results).
An :class:`ApiCase` calls a function and expects one exception whose message
is one line.

In ``args`` and file texts, ``{tmp}`` is the case's folder and ``{data}`` the
dataset mirror (``TREEBENCH_DATA``).  File contents may be ``bytes``, or a
callable ``f(folder) -> None`` that writes anything (a store, say).
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

#: A small valid config the cases can start from (iris is bundled with scikit-learn).
GOOD_CONFIG = (
    "experiment: bad-input\nseed: 0\ndatasets: [iris]\n"
    "protocol: {type: cv, folds: 2, repeats: 1}\n"
    "algorithms:\n  - {name: entropy, criterion: entropy, params: {max_depth: 2}}\n"
)


@dataclass(frozen=True)
class CliCase:
    """``treebench *args`` must exit ``code`` with one stderr line matching ``message``."""

    id: str
    args: tuple[str, ...]
    message: str
    files: dict[str, Any] = field(default_factory=dict)
    code: int = 2
    #: Files (relative to the case folder) whose bytes must not change; default: every given file.
    unchanged: tuple[str, ...] | None = None


@dataclass(frozen=True)
class ApiCase:
    """``call()`` must raise ``error`` with a one-line message matching ``message``."""

    id: str
    call: Callable[[], Any]
    message: str
    error: type[BaseException] = ValueError


def _fill(text: str, folder: Path) -> str:
    return text.replace("{tmp}", str(folder)).replace("{data}", os.environ.get("TREEBENCH_DATA", ""))


def _digest(path: Path) -> str | None:
    if not path.exists():
        return None
    if path.is_dir():
        return "dir"
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tree_digest(folder: Path, skip_prefix: str | None = None) -> dict[str, str]:
    """Every entry under ``folder`` (hidden ones too) -> its content hash, ``dir`` or its link target.

    Entries whose name starts with ``skip_prefix`` (a case's own outputs) are left out.
    """
    out = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            if skip_prefix is not None and name.startswith(skip_prefix):
                continue
            path = Path(root) / name
            rel = str(path.relative_to(folder))
            if path.is_symlink():
                out[rel] = "link:" + os.readlink(path)
            elif path.is_dir():
                out[rel] = "dir"
            elif not path.is_file():  # a FIFO or device: reading it would block; its kind is what may change
                out[rel] = f"special:{stat.S_IFMT(path.lstat().st_mode):o}"
            else:
                out[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
    return out


def exit_code(args: list[str]) -> int:
    """``treebench ARGS`` in this process; its exit code (``main`` returns when all went well)."""
    from treebench.cli import main

    try:
        main(args)
    except SystemExit as exc:
        return exc.code if isinstance(exc.code, int) else 1
    return 0


def cli_in(folder: Path, capsys: pytest.CaptureFixture, *args: str) -> tuple[int, str, str]:
    """``treebench ARGS`` in this process with ``folder`` as working directory: (exit code, stdout, stderr),
    asserting that no traceback reached the user."""
    capsys.readouterr()
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        code = exit_code(list(args))
    finally:
        os.chdir(cwd)
    out = capsys.readouterr()
    assert "Traceback" not in out.err + out.out
    return code, out.out, out.err


def run_cli_case(case: CliCase, folder: Path, capsys: pytest.CaptureFixture) -> None:
    from treebench.cli import main

    for name, content in case.files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if callable(content):
            content(folder)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(_fill(content, folder), encoding="utf-8")
    watched = case.unchanged if case.unchanged is not None else tuple(case.files)
    before = {name: _digest(folder / name) for name in watched}
    capsys.readouterr()
    cwd = Path.cwd()
    os.chdir(folder)
    try:
        main([_fill(a, folder) for a in case.args])
        code = 0
    except SystemExit as exc:
        code = exc.code if isinstance(exc.code, int) else 1
    except BaseException:  # noqa: BLE001 - any escape is the traceback a user would see
        pytest.fail(f"{case.id}: traceback instead of a one-line error:\n{traceback.format_exc()}")
    finally:
        os.chdir(cwd)
    out = capsys.readouterr()
    lines = [line for line in out.err.splitlines() if line.strip()]
    assert code == case.code, f"{case.id}: exit {code}, expected {case.code}; stderr: {out.err!r}"
    assert "Traceback" not in out.err, f"{case.id}: traceback on stderr:\n{out.err}"
    problems = [line for line in lines if not line.startswith(("warning:", "wrote "))]
    assert len(problems) == 1, f"{case.id}: expected one line on stderr, got {len(problems)}: {out.err!r}"
    assert re.search(case.message, problems[0]), f"{case.id}: {problems[0]!r} does not match {case.message!r}"
    after = {name: _digest(folder / name) for name in watched}
    assert after == before, f"{case.id}: files changed: {[n for n in watched if before[n] != after[n]]}"


def run_api_case(case: ApiCase) -> None:
    with pytest.raises(case.error) as info:
        case.call()
    text = str(info.value)
    assert text.strip() and "\n" not in text.strip(), f"{case.id}: message is not one line: {text!r}"
    assert re.search(case.message, text), f"{case.id}: {text!r} does not match {case.message!r}"


def case_tests(cli_cases: list[CliCase] = (), api_cases: list[ApiCase] = ()) -> tuple[Callable, Callable]:
    """The two parametrised tests of a bad-input module: ``test_cli, test_api = case_tests(CASES, API_CASES)``."""

    @pytest.mark.parametrize("case", list(cli_cases), ids=[c.id for c in cli_cases])
    def test_cli_bad_input(case: CliCase, tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
        run_cli_case(case, tmp_path, capsys)

    @pytest.mark.parametrize("case", list(api_cases), ids=[c.id for c in api_cases])
    def test_api_bad_input(case: ApiCase) -> None:
        run_api_case(case)

    return test_cli_bad_input, test_api_bad_input


# --------------------------------------------------------------------------- isolated cases
#: How a failed isolated case is tagged, first word of its assertion message, for tallies:
#: ``[hang]`` past its timeout, ``[traceback]`` on stderr, ``[silent]`` accepted (exit 0 or
#: a wrong value stored), ``[other]`` a clean exit with another message or code.
TAGS = ("[hang]", "[traceback]", "[silent]", "[other]")


def isolated_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    """The environment of a case's child process: this treebench first on ``PYTHONPATH``."""
    import treebench

    root = str(Path(treebench.__file__).resolve().parents[1])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env["PYTHONPATH"] = os.pathsep.join([root, *([env["PYTHONPATH"]] if env.get("PYTHONPATH") else [])])
    env.update(extra or {})
    return {k: v for k, v in env.items() if v is not None}


def run_isolated(argv: list[str], folder: Path, env: dict[str, str], timeout: float, what: str) -> tuple[int, str, str]:
    """Run ``python argv`` in ``folder`` (its own process: a crash, an exit or a hang stays there)."""
    import subprocess
    import sys

    try:
        done = subprocess.run([sys.executable, *argv], cwd=folder, env=env, capture_output=True, text=True,
                              timeout=timeout, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"[hang] {what}: still running after {timeout:g} s")
    return done.returncode, done.stdout, done.stderr


def write_files(case_files: dict[str, Any], folder: Path) -> None:
    for name, content in case_files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if callable(content):
            content(folder)
        elif isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(_fill(content, folder), encoding="utf-8")


def run_cli_case_isolated(case: CliCase, folder: Path, env: dict[str, str] | None = None, timeout: float = 180) -> None:
    """As :func:`run_cli_case`, but ``treebench ARGS`` runs in a child process with a timeout."""
    write_files(case.files, folder)
    watched = case.unchanged if case.unchanged is not None else tuple(case.files)
    before = {name: _digest(folder / name) for name in watched}
    code, _, err = run_isolated(
        ["-c", "from treebench.cli import main; main()", *[_fill(a, folder) for a in case.args]],
        folder, isolated_env(env), timeout, case.id,
    )
    assert "Traceback" not in err, f"[traceback] {case.id}: exit {code}:\n{err[-3000:]}"
    lines = [line for line in err.splitlines() if line.strip()]
    problems = [line for line in lines if not line.startswith(("warning:", "wrote ", "treebench: this first fit"))]
    tag = "[silent]" if code == 0 else "[other]"
    assert code == case.code, f"{tag} {case.id}: exit {code}, expected {case.code}; stderr: {err[-1500:]!r}"
    assert len(problems) == 1, f"[other] {case.id}: expected one line on stderr, got {len(problems)}: {err[-1500:]!r}"
    assert re.search(case.message, problems[0]), f"[other] {case.id}: {problems[0]!r} does not match {case.message!r}"
    after = {name: _digest(folder / name) for name in watched}
    assert after == before, f"[silent] {case.id}: files changed: {[n for n in watched if before[n] != after[n]]}"


#: The child process of an isolated API case: runs the snippet, prints the exception's classes and message.
_API_RUNNER = """
import json, sys
source = sys.argv[1]
try:
    exec(compile(source, "<case>", "exec"), {"__name__": "__case__"})
except BaseException as exc:
    print(json.dumps({"types": [t.__name__ for t in type(exc).__mro__], "message": str(exc)}))
    sys.exit(0)
print(json.dumps(None))
"""


def run_api_case_here(case_id: str, source: str, message: str, error: str = "ValueError",
                      folder: Path | None = None) -> None:
    """As :func:`run_api_case_isolated`, in this process: for a ``source`` that imports no user code
    and cannot crash, exhaust memory or hang, so a child interpreter would only add its start-up."""
    import warnings

    cwd = Path.cwd()
    os.chdir(folder or cwd)
    try:
        with warnings.catch_warnings():  # as in a child process, whose warnings no case reads
            warnings.simplefilter("ignore")
            exec(compile(source, "<case>", "exec"), {"__name__": "__case__"})
    except BaseException as exc:  # noqa: BLE001 - the case's exception is what is checked below
        found = {"types": [t.__name__ for t in type(exc).__mro__], "message": str(exc)}
    else:
        found = None
    finally:
        os.chdir(cwd)
    assert found is not None, f"[silent] {case_id}: no exception raised"
    text = found["message"].strip()
    assert error in found["types"], f"[traceback] {case_id}: {found['types'][0]}: {text[:2000]}"
    assert text and "\n" not in text, f"[other] {case_id}: message is not one line: {text!r}"
    assert re.search(message, text), f"[other] {case_id}: {text!r} does not match {message!r}"


def run_api_case_isolated(case_id: str, source: str, message: str, error: str = "ValueError",
                          folder: Path | None = None, timeout: float = 180, env: dict[str, str] | None = None) -> None:
    """Run the Python ``source`` in a child process; it must raise ``error`` with a one-line ``message``."""
    import json

    where = folder or Path.cwd()
    code, out, err = run_isolated(["-c", _API_RUNNER, source], where, isolated_env(env), timeout, case_id)
    assert code == 0 and out.strip(), f"[traceback] {case_id}: the process died (exit {code}):\n{err[-3000:]}"
    found = json.loads(out.strip().splitlines()[-1])
    assert found is not None, f"[silent] {case_id}: no exception raised; stderr {err[-500:]!r}"
    text = found["message"].strip()
    assert error in found["types"], f"[traceback] {case_id}: {found['types'][0]}: {text[:2000]}"
    assert text and "\n" not in text, f"[other] {case_id}: message is not one line: {text!r}"
    assert re.search(message, text), f"[other] {case_id}: {text!r} does not match {message!r}"
