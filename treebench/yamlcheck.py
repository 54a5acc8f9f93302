"""YAML files checked field by field, with every problem located by file and line.

Experiment configs and dataset cards are YAML files that people write by hand.
This module reads such a file into plain data *and* remembers, for every field,
the line it stands on, so that a problem can be reported as one line::

    configs/x.yaml:12: algorithms[0].pruning: unknown pruning 'cc'; accepted: none, ...

What it offers:

* :func:`parse` -- text to a :class:`Document`: the data, the line of every
  field (by *field path*, a tuple of mapping keys and list indices, e.g.
  ``("algorithms", 0, "grid")``) and the keys given twice in one mapping.
  The loaders also read YAML 1.2 floats such as ``1e-3`` (YAML 1.1, PyYAML's
  default, needs a dot and would read the text ``'1e-3'``).
* :func:`field_name` -- a field path as people write it: ``algorithms[0].grid``.
* :func:`value_kind` -- what a value is, in words: ``a mapping``, ``text``, ...
* :class:`Checker` -- collects problems (``file:line: field: what is wrong;
  accepted: ...``) or builds a one-line error for the first one, and has typed
  checks for common fields.  :class:`ProblemsError` reports what was collected.

It imports only PyYAML, the standard library and :mod:`treebench.errors`, so
every layer may use it.
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import yaml

from treebench.errors import TreebenchError

__all__ = [
    "DUPLICATE_KEY",
    "Checker",
    "Document",
    "FieldPath",
    "Loader",
    "ProblemsError",
    "PureLoader",
    "YamlSyntaxError",
    "field_name",
    "parse",
    "value_kind",
]

#: A field's place in a document: mapping keys (text) and list indices (int).
FieldPath = tuple

#: What a duplicate key is told (after the field name) by :meth:`Checker.add_duplicates`.
DUPLICATE_KEY = "key given twice (the last one would silently win)"

#: Floats in YAML 1.2's notation that YAML 1.1 reads as text: an exponent without a dot.
_YAML12_FLOAT = re.compile(r"^[-+]?(?:[0-9][0-9_]*)(?:\.[0-9_]*)?[eE][-+]?[0-9]+$")


class PureLoader(yaml.SafeLoader):
    """PyYAML's pure-Python safe loader, also reading YAML 1.2 floats such as ``1e-3``."""


PureLoader.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789"))


class Loader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # type: ignore[misc]
    """The safe loader on libyaml when PyYAML has it (about ten times faster), else
    :class:`PureLoader`'s; also reads YAML 1.2 floats such as ``1e-3``.

    Both give the same data and line numbers; the wording of syntax errors
    differs between libyaml and the pure-Python parser.
    """


Loader.add_implicit_resolver("tag:yaml.org,2002:float", _YAML12_FLOAT, list("-+0123456789"))


class YamlSyntaxError(TreebenchError):
    """Text that is not YAML, as one line: ``file:line: YAML syntax error: problem``.

    Attributes
    ----------
    display:
        The file's name as shown in messages.
    line:
        1-based line the parser stopped at, or ``None`` when it did not say.
    problem:
        The parser's short description (e.g. ``"did not find expected key"``),
        or ``None`` when it gave none; the message then shows the first line
        of the parser's full report instead.
    """

    def __init__(self, display: str, line: int | None, problem: str | None, report: str) -> None:
        self.display = display
        self.line = line
        self.problem = problem
        where = display if line is None else f"{display}:{line}"
        super().__init__(f"{where}: YAML syntax error: {problem or report}")


@dataclass(frozen=True)
class Document:
    """A parsed YAML text with the line of every field.

    Attributes
    ----------
    data:
        What the text holds (``None`` for an empty text).
    lines:
        Field path -> 1-based line where its value starts (``()`` is the whole
        document).  Keys are the key *texts* as written (``1: a`` is ``"1"``).
    key_lines:
        Field path -> line of the key naming it (mapping entries only).
    duplicates:
        ``(field path, line of the second key)`` for every key given again in
        the same mapping, in document order.
    """

    data: Any
    lines: dict[FieldPath, int]
    key_lines: dict[FieldPath, int]
    duplicates: tuple[tuple[FieldPath, int], ...]


def parse(text: str, display: str = "<yaml>", loader: type = Loader) -> Document:
    """Read YAML ``text`` into a :class:`Document` (data, lines, duplicate keys).

    Parameters
    ----------
    text:
        The YAML source.
    display:
        The file's name as shown in a syntax error.
    loader:
        A safe loader class: :class:`Loader` (libyaml when available),
        :class:`PureLoader` (pure Python, PyYAML's own syntax-error wording),
        or any PyYAML safe loader, e.g. ``yaml.CSafeLoader`` for plain YAML 1.1
        (where ``1e-3`` is text).

    Returns
    -------
    Document
        The same data ``yaml.load(text, Loader=loader)`` gives, plus line numbers.

    Raises
    ------
    YamlSyntaxError
        The text is not YAML (or holds more than one document).
    """
    try:
        reader = loader(text)  # the pure-Python reader already rejects control characters
    except yaml.YAMLError as exc:
        raise _syntax_error(display, exc) from None
    try:
        node = reader.get_single_node()
        lines: dict[FieldPath, int] = {}
        key_lines: dict[FieldPath, int] = {}
        duplicates: list[tuple[FieldPath, int]] = []
        if node is not None:
            # before constructing: the constructor flattens merge keys (<<) in place
            _record_lines(node, (), lines, key_lines, duplicates, set())
        data = reader.construct_document(node) if node is not None else None
    except yaml.YAMLError as exc:
        raise _syntax_error(display, exc) from None
    finally:
        reader.dispose()
    return Document(data, lines, key_lines, tuple(duplicates))


def _syntax_error(display: str, exc: yaml.YAMLError) -> YamlSyntaxError:
    """The :class:`YamlSyntaxError` for what PyYAML raised."""
    mark = getattr(exc, "problem_mark", None)
    report = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return YamlSyntaxError(
        display, None if mark is None else mark.line + 1, getattr(exc, "problem", None), report
    )


def _record_lines(
    node: yaml.Node,
    path: FieldPath,
    lines: dict[FieldPath, int],
    key_lines: dict[FieldPath, int],
    duplicates: list[tuple[FieldPath, int]],
    open_nodes: set[int],
) -> None:
    """Fill ``lines``/``key_lines``/``duplicates`` for ``node`` found at ``path``.

    ``open_nodes`` holds the ids of the collections being walked above this
    one, so an alias to an enclosing anchor (a recursive structure) is not
    followed forever.  Scalars are recorded in place: most nodes are scalars,
    and a call for each would cost more than the rest of the walk.
    """
    lines[path] = node.start_mark.line + 1
    if id(node) in open_nodes or isinstance(node, yaml.ScalarNode):
        return
    open_nodes.add(id(node))
    if isinstance(node, yaml.MappingNode):
        seen: set[Any] = set()
        for key_node, value_node in node.value:
            key = key_node.value if isinstance(key_node, yaml.ScalarNode) else str(key_node.value)
            child = (*path, key)
            if key in seen:
                duplicates.append((child, key_node.start_mark.line + 1))
            seen.add(key)
            key_lines[child] = key_node.start_mark.line + 1
            if isinstance(value_node, yaml.ScalarNode):
                lines[child] = value_node.start_mark.line + 1
            else:
                _record_lines(value_node, child, lines, key_lines, duplicates, open_nodes)
    else:  # a sequence
        for index, item in enumerate(node.value):
            if isinstance(item, yaml.ScalarNode):
                lines[(*path, index)] = item.start_mark.line + 1
            else:
                _record_lines(item, (*path, index), lines, key_lines, duplicates, open_nodes)
    open_nodes.discard(id(node))


def field_name(path: Iterable[Any]) -> str:
    """A field path as people write it.

    Examples
    --------
    >>> field_name(("algorithms", 0, "grid", "gamma"))
    'algorithms[0].grid.gamma'
    >>> field_name(())
    '(top level)'
    """
    text = ""
    for part in path:
        if isinstance(part, int) and not isinstance(part, bool):
            text += f"[{part}]"
        else:
            text += f".{part}" if text else str(part)
    return text or "(top level)"


_KINDS = {dict: "a mapping", list: "a list", str: "text", bool: "true/false"}


def value_kind(value: Any) -> str:
    """What ``value`` is, in words, for "expected X; got <kind>" messages.

    ``None`` is ``nothing``; mappings, lists, text and booleans get words; any
    other value its type's name (``int``, ``float``, ``date``...).
    """
    if value is None:
        return "nothing"
    return _KINDS.get(type(value), type(value).__name__)


class ProblemsError(TreebenchError):
    """One or more problems in a file, one per line.

    With one problem the message is that problem; with more it is
    ``"N problems in PATH:"`` followed by one indented line per problem.

    Parameters
    ----------
    problems:
        Formatted problems (see :meth:`Checker.formatted`).
    path:
        The file's name as shown.
    """

    def __init__(self, problems: list[str], path: str) -> None:
        self.problems = problems
        self.path = path
        if len(problems) == 1:
            message = problems[0]
        else:
            message = f"{len(problems)} problems in {path}:\n" + "\n".join(
                f"  {p}" for p in problems
            )
        super().__init__(message)


class Checker:
    """Collects the problems of one document, each with the line it is on.

    Parameters
    ----------
    display:
        The file's name as shown in messages.
    lines, key_lines:
        :attr:`Document.lines` and :attr:`Document.key_lines`.  When both are
        ``None`` (data that did not come from a text) messages carry no line.

    Attributes
    ----------
    problems:
        ``(line, "field: message")`` in the order they were added (line 0 when
        lines are unknown); :meth:`formatted` sorts them by line.
    """

    def __init__(
        self,
        display: str,
        lines: Mapping[FieldPath, int] | None = None,
        key_lines: Mapping[FieldPath, int] | None = None,
    ) -> None:
        self.display = display
        self.known = lines is not None or key_lines is not None
        self.lines: Mapping[FieldPath, int] = lines if lines is not None else {}
        self.key_lines: Mapping[FieldPath, int] = key_lines if key_lines is not None else {}
        self.problems: list[tuple[int, str]] = []

    @classmethod
    def for_document(cls, display: str, document: Document) -> Checker:
        """A checker for ``document`` that already holds its duplicate keys as problems."""
        checker = cls(display, document.lines, document.key_lines)
        checker.add_duplicates(document.duplicates)
        return checker

    # -- where ---------------------------------------------------------------------
    def line(self, path: FieldPath, key: bool = False) -> int:
        """The line of the field at ``path`` (of its key when ``key``).

        A path the document does not have (a missing key, a default) gets the
        line of its nearest enclosing field; line 1 when nothing encloses it,
        line 0 when lines are unknown.
        """
        if not self.known:
            return 0
        if key and path in self.key_lines:
            return self.key_lines[path]
        while path not in self.lines and path:
            path = path[:-1]
        return self.lines.get(path, 1)

    def where(self, path: FieldPath, key: bool = False) -> str:
        """``file:line`` for the field at ``path`` (just ``file`` when lines are unknown)."""
        line = self.line(path, key)
        return f"{self.display}:{line}" if line else self.display

    # -- collecting ----------------------------------------------------------------
    def add(self, path: FieldPath, message: str, key: bool = False) -> None:
        """Record ``message`` about the field at ``path`` as ``"field: message"``.

        ``key`` places the problem on the field's key rather than its value
        (for an unknown or repeated key).
        """
        self.problems.append((self.line(path, key), f"{field_name(path)}: {message}"))

    def add_duplicates(self, duplicates: Iterable[tuple[FieldPath, int]]) -> None:
        """Record every key given twice (:attr:`Document.duplicates`) as a problem."""
        for path, _line in duplicates:
            self.add(path, DUPLICATE_KEY, key=True)

    def formatted(self) -> list[str]:
        """The problems as ``file:line: field: message`` lines, sorted by line
        (problems on one line keep the order they were added in)."""
        out = []
        for line, message in sorted(self.problems, key=lambda problem: problem[0]):
            out.append(
                f"{self.display}:{line}: {message}" if line else f"{self.display}: {message}"
            )
        return out

    def raise_problems(self, error: type[ProblemsError] = ProblemsError) -> None:
        """Raise ``error(self.formatted(), self.display)`` if any problem was recorded."""
        if self.problems:
            raise error(self.formatted(), self.display)

    def error(self, path: FieldPath, message: str, key: bool = False) -> TreebenchError:
        """A one-line error ``file:line: message`` about the field at ``path``, not recorded.

        For checks that stop at the first problem; ``message`` is shown as
        given, so it names the field itself.
        """
        return TreebenchError(f"{self.where(path, key)}: {message}")

    # -- typed fields (each records a problem and returns None when wrong) -----------
    def mapping(
        self, value: Any, path: FieldPath, accepted: tuple[str, ...], required: tuple[str, ...] = ()
    ) -> dict | None:
        """``value`` if it is a mapping; its unknown keys (with a close match as a
        hint) and missing ``required`` keys are recorded."""
        if not isinstance(value, dict):
            self.add(
                path, f"expected a mapping with keys {', '.join(accepted)}; got {value_kind(value)}"
            )
            return None
        for name in value:
            if name not in accepted:
                self.add((*path, name), _unknown("key", name, accepted), key=True)
        for name in required:
            if name not in value:
                self.add(path, f"missing required key {name!r}")
        return value

    def integer(self, value: Any, path: FieldPath, minimum: int) -> int | None:
        """``value`` if it is an integer (not a boolean) ``>= minimum``."""
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(path, f"expected an integer >= {minimum}; got {value!r}")
            return None
        if value < minimum:
            self.add(path, f"{value} is out of range; accepted: an integer >= {minimum}")
            return None
        return value

    def fraction(self, value: Any, path: FieldPath) -> float | None:
        """``value`` as a float if it is a number strictly between 0 and 1."""
        if isinstance(value, bool) or not isinstance(value, (int, float)) or not 0 < value < 1:
            self.add(path, f"expected a number strictly between 0 and 1; got {value!r}")
            return None
        return float(value)

    def text(
        self,
        value: Any,
        path: FieldPath,
        pattern: re.Pattern | None = None,
        accepted: str = "letters, digits, '.', '_', '-'",
    ) -> str | None:
        """``value`` if it is non-empty text matching ``pattern`` (when given);
        ``accepted`` says in words what the pattern allows."""
        if not isinstance(value, str) or not value.strip():
            self.add(path, f"expected non-empty text; got {value_kind(value)} {value!r}")
            return None
        if pattern is not None and not pattern.match(value):
            self.add(path, f"{value!r} is not a valid name; accepted: {accepted}")
            return None
        return value

    def boolean(self, value: Any, path: FieldPath) -> bool | None:
        """``value`` if it is ``true`` or ``false``."""
        if not isinstance(value, bool):
            self.add(path, f"expected true or false; got {value!r}")
            return None
        return value

    def choice(
        self, value: Any, path: FieldPath, accepted: tuple[str, ...], what: str
    ) -> str | None:
        """``value`` if it is one of ``accepted``; ``what`` names the thing (``"metric"``)."""
        if value not in accepted:
            self.add(path, _unknown(what, value, accepted))
            return None
        return value


def _unknown(what: str, value: Any, accepted: tuple[str, ...]) -> str:
    """``unknown WHAT 'value' (did you mean X?); accepted: ...`` (the hint when one is close)."""
    close = difflib.get_close_matches(str(value), accepted, n=1)
    hint = f" (did you mean {close[0]}?)" if close else ""
    return f"unknown {what} {value!r}{hint}; accepted: {', '.join(accepted)}"
