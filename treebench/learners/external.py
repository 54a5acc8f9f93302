"""What every learner backed by an external program shares.

A reference program (Weka's J48 through ``java``, Quinlan's ``c5.0`` binary)
is found on the machine, may be missing, has a version that belongs in the
trial keys, takes a fixed table of parameters, and is run as a child process
whose failure must become one readable line.  :class:`ExternalProgramLearner`
states these once; a subclass names its parameters and says how to find its
program and check one value.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any, ClassVar

from treebench.errors import TreebenchError, no_such_parameter
from treebench.learners.base import Learner


class ProgramUnavailable(TreebenchError):
    """The external program a learner needs is not installed or not found."""


def output_tail(text: str, lines: int = 6) -> str:
    """The last non-empty lines of a program's output, joined on one line."""
    kept = [line.strip() for line in text.strip().splitlines() if line.strip()][-lines:]
    return " | ".join(kept) if kept else "(no output)"


def run_program(
    command: list[str],
    cwd: Path,
    *,
    owner: str,
    what: str,
    timeout: float,
    timeout_setting: str,
    failed: Callable[[subprocess.CompletedProcess], bool] = lambda done: done.returncode != 0,
    preexec_fn: Callable[[], None] | None = None,
) -> str:
    """Run ``command`` in ``cwd`` and return its stdout, or raise a one-line error.

    Errors read ``OWNER: WHAT failed ...`` (e.g. ``c50: c5.0 failed (exit 1): ...``).
    ``failed`` decides from the finished process whether it failed (some
    programs print their errors and still exit 0); ``timeout_setting`` names
    the environment variable that changes ``timeout``.
    """
    try:
        done = subprocess.run(
            command, cwd=cwd, capture_output=True, text=True, timeout=timeout,
            stdin=subprocess.DEVNULL, check=False, preexec_fn=preexec_fn,
        )
    except subprocess.TimeoutExpired:
        raise TreebenchError(
            f"{owner}: {what} did not finish within {timeout:g}s ({timeout_setting})"
        ) from None
    except OSError as exc:
        raise TreebenchError(f"{owner}: cannot run {command[0]}: {exc}") from None
    if failed(done):
        detail = output_tail(done.stderr) if done.stderr.strip() else output_tail(done.stdout)
        raise TreebenchError(f"{owner}: {what} failed (exit {done.returncode}): {detail}")
    return done.stdout


class ExternalProgramLearner(Learner):
    """A baseline that runs a program outside Python.

    Subclasses set :attr:`name` and :attr:`PARAM_HELP` (parameter -> description
    of its accepted values) and implement :meth:`locate`, :meth:`program_version`
    and :meth:`value_ok`; :meth:`validate_combination` is optional.
    """

    name: ClassVar[str] = ""
    #: Parameter name -> what it accepts (shown in errors).
    PARAM_HELP: ClassVar[dict[str, str]] = {}

    @classmethod
    def locate(cls) -> Any:
        """Find the program (and what it needs); raise :class:`ProgramUnavailable` if missing."""
        raise NotImplementedError

    @classmethod
    def program_version(cls) -> str:
        """The program's version, read without running it where possible."""
        raise NotImplementedError

    @classmethod
    def availability(cls) -> str | None:
        try:
            cls.locate()
        except TreebenchError as exc:
            return str(exc)
        return None

    @classmethod
    def code_version(cls) -> str:
        return cls.program_version()

    @classmethod
    def accepted_params(cls) -> list[str]:
        return list(cls.PARAM_HELP)

    @classmethod
    def value_ok(cls, key: str, value: Any) -> bool:
        """Whether ``value`` is accepted for the known parameter ``key``."""
        raise NotImplementedError

    @classmethod
    def validate_param(cls, key: str, value: Any) -> None:
        """Raise a one-line error if ``key: value`` is not one of this learner's parameters."""
        if key not in cls.PARAM_HELP:
            listing = "; ".join(f"{k} ({what})" for k, what in cls.PARAM_HELP.items())
            raise no_such_parameter(f"baseline {cls.name!r}", key, list(cls.PARAM_HELP), listing)
        if not cls.value_ok(key, value):
            raise TreebenchError(f"{cls.name}: {key}={value!r} is invalid; accepted: {cls.PARAM_HELP[key]}")

    @classmethod
    def validate_combination(cls, params: dict[str, Any]) -> None:
        """Checks across parameters (each one is checked by :meth:`validate_param`)."""

    @classmethod
    def validate_params(cls, params: dict[str, Any]) -> None:
        for key, value in params.items():
            cls.validate_param(key, value)
        cls.validate_combination(params)
