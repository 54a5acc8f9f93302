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
* :func:`read_text` -- a YAML file's text, refused in one line when it is
  missing, a folder, larger than :data:`MAX_FILE_BYTES` (checked before it is
  read whole), binary or not UTF-8.
* :class:`Checker` -- collects problems (``file:line: field: what is wrong;
  accepted: ...``) or builds a one-line error for the first one, and has typed
  checks for common fields.  :class:`ProblemsError` reports what was collected.

Limits.  A YAML alias repeats its anchor's whole value without repeating its
text, so a few hundred bytes can stand for billions of values ("billion
laughs"), and PyYAML's Python composer recurses once per nesting level.
:func:`parse` therefore refuses, on the composed node graph and *before*
anything is expanded or constructed, a document nested deeper than
:data:`MAX_DEPTH`, one holding more than :data:`MAX_VALUES` values once its
aliases are expanded, and an alias inside the value it names (a recursive
structure); each is a one-line :class:`YamlLimitError`.  Ordinary anchors,
aliases and merge keys (``<<: *defaults``) stay far below these limits.

It imports only PyYAML, the standard library and :mod:`treebench.errors`, so
every layer may use it.
"""

from __future__ import annotations

import difflib
import functools
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from treebench.errors import TreebenchError

__all__ = [
    "DUPLICATE_KEY",
    "MAX_DEPTH",
    "MAX_FILE_BYTES",
    "MAX_VALUES",
    "Checker",
    "Document",
    "FieldPath",
    "Loader",
    "ProblemsError",
    "PureLoader",
    "YamlLimitError",
    "YamlSyntaxError",
    "field_name",
    "parse",
    "read_text",
    "value_kind",
]

#: A field's place in a document: mapping keys (text) and list indices (int).
FieldPath = tuple

#: What a duplicate key is told (after the field name) by :meth:`Checker.add_duplicates`.
DUPLICATE_KEY = "key given twice (the last one would silently win)"

#: Deepest nesting :func:`parse` accepts, the top-level value being level 1 (a
#: config is about 6 deep).  Well below Python's recursion limit, which the
#: Python composer and recursive code reading the data (``repr``, JSON) need.
MAX_DEPTH = 100

#: Most values (scalars, lists and mappings, mapping keys included) a document
#: may hold once its aliases are expanded.  A config or card holds a few
#: hundred; the line table :func:`parse` builds takes about 200 bytes a value.
MAX_VALUES = 100_000

#: Largest YAML file :func:`read_text` reads, in bytes (1 MiB; configs and
#: cards are a few kilobytes).
MAX_FILE_BYTES = 1 << 20

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


class YamlLimitError(TreebenchError):
    """A document beyond a limit of :func:`parse`, as one line: ``file:line: what; accepted: limit``."""


class _TooDeep(yaml.YAMLError):
    """Raised by :class:`_DepthGuard` while composing; :func:`parse` turns it into a :class:`YamlLimitError`."""

    def __init__(self, mark: yaml.Mark | None) -> None:
        super().__init__()
        self.mark = mark


class _DepthGuard:
    """Mixin for PyYAML's Python composer: stop nesting at ``max_depth`` levels.

    The composer recurses once per level, so a deep document would otherwise
    end in a ``RecursionError``; libyaml's composer stops at 1000 levels itself.
    """

    max_depth = MAX_DEPTH
    _depth = 0

    def compose_node(self, parent: yaml.Node | None, index: Any) -> yaml.Node:
        if self._depth >= self.max_depth:
            raise _TooDeep(self.peek_event().start_mark)  # type: ignore[attr-defined]
        self._depth += 1
        try:
            return super().compose_node(parent, index)  # type: ignore[misc]
        finally:
            self._depth -= 1


@functools.cache
def _guarded(loader: type) -> type:
    """``loader`` with :class:`_DepthGuard` when its composer is PyYAML's Python one."""
    if issubclass(loader, yaml.composer.Composer) and not issubclass(loader, _DepthGuard):
        return type(loader.__name__, (_DepthGuard, loader), {})
    return loader


def _too_deep(display: str, line: int | None, max_depth: int) -> YamlLimitError:
    where = display if line is None else f"{display}:{line}"
    return YamlLimitError(
        f"{where}: YAML nesting deeper than {max_depth} levels; accepted: at most {max_depth}"
    )


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


def parse(
    text: str,
    display: str = "<yaml>",
    loader: type = Loader,
    *,
    max_depth: int = MAX_DEPTH,
    max_values: int = MAX_VALUES,
) -> Document:
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
    max_depth:
        Deepest nesting accepted (the top-level value is level 1).
    max_values:
        Most values accepted once aliases are expanded (every scalar, list and
        mapping counts, mapping keys included).

    Returns
    -------
    Document
        The same data ``yaml.load(text, Loader=loader)`` gives, plus line numbers.

    Raises
    ------
    YamlSyntaxError
        The text is not YAML (or holds more than one document).
    YamlLimitError
        The document is nested deeper than ``max_depth``, holds more than
        ``max_values`` values once aliases are expanded, or has an alias inside
        the value it names.  Checked on the composed node graph, where an alias
        is the same node object as its anchor, so nothing has been expanded.
    """
    try:
        reader = _guarded(loader)(text)  # the pure-Python reader already rejects control characters
    except yaml.YAMLError as exc:
        raise _syntax_error(display, exc) from None
    reader.max_depth = max_depth
    try:
        node = reader.get_single_node()
        lines: dict[FieldPath, int] = {}
        key_lines: dict[FieldPath, int] = {}
        duplicates: list[tuple[FieldPath, int]] = []
        if node is not None:
            _check_limits(node, display, max_depth, max_values)
            # before constructing: the constructor flattens merge keys (<<) in place
            _record_lines(node, (), lines, key_lines, duplicates)
        data = reader.construct_document(node) if node is not None else None
    except _TooDeep as exc:
        raise _too_deep(display, None if exc.mark is None else exc.mark.line + 1, max_depth) from None
    except yaml.YAMLError as exc:
        if "maximum nesting depth" in str(getattr(exc, "problem", "")):  # libyaml's own limit
            mark = getattr(exc, "problem_mark", None)
            raise _too_deep(display, None if mark is None else mark.line + 1, max_depth) from None
        raise _syntax_error(display, exc) from None
    finally:
        reader.dispose()
    return Document(data, lines, key_lines, tuple(duplicates))


def read_text(path: str | Path, what: str = "YAML", max_bytes: int = MAX_FILE_BYTES) -> str:
    """The text of the UTF-8 YAML file at ``path``, or a one-line error saying why not.

    Parameters
    ----------
    path:
        The file.
    what:
        What the file is, for messages (``"config"``, ``"dataset card"``).
    max_bytes:
        Largest size accepted; at most ``max_bytes + 1`` bytes are ever read,
        so a huge file (or a device) costs no memory.

    Returns
    -------
    str
        The text, without a UTF-8 byte-order mark.

    Raises
    ------
    TreebenchError
        The file is missing, a folder, unreadable, larger than ``max_bytes``,
        binary (holds NUL bytes) or not UTF-8.
    """
    shown = repr(str(path))
    from treebench.errors import special_kind

    kind = special_kind(path)
    if kind is not None:  # /dev/zero would read as "too large", a FIFO would block
        raise TreebenchError(f"{what} file {shown} is not a regular file but {kind}; accepted: a YAML text file")
    try:
        with open(path, "rb") as stream:
            data = stream.read(max_bytes + 1)
    except FileNotFoundError:
        raise TreebenchError(f"{what} file {shown} not found") from None
    except IsADirectoryError:
        raise TreebenchError(f"{what} {shown} is a folder; accepted: a YAML file") from None
    except OSError as exc:
        raise TreebenchError(f"cannot read {what} {shown}: {exc.strerror or exc}") from None
    if len(data) > max_bytes:
        raise TreebenchError(
            f"{what} file {shown} is larger than {max_bytes} bytes; accepted: at most {max_bytes} bytes"
        )
    if b"\0" in data:
        raise TreebenchError(
            f"{what} file {shown} is binary (it holds NUL bytes); accepted: a YAML text file in UTF-8"
        )
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise TreebenchError(
            f"{what} file {shown} is not UTF-8 text (byte 0x{data[exc.start]:02x} at offset "
            f"{exc.start}); accepted: a YAML text file in UTF-8"
        ) from None


def _children(node: yaml.Node) -> list[yaml.Node]:
    """The nodes directly inside ``node``: list items, or mapping keys and values."""
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return node.value
    return []


def _check_limits(root: yaml.Node, display: str, max_depth: int, max_values: int) -> None:
    """Refuse a node graph that is recursive, too deep or too large once expanded.

    One depth-first walk over the *composed* graph, where every alias is the
    very node object of its anchor: each node's expanded size and height are
    computed once and reused wherever an alias repeats it, so the walk costs
    the size of the text however much the aliases would expand.  Iterative,
    because libyaml composes up to 1000 levels.
    """
    finished: dict[int, tuple[int, int]] = {}  # id(node) -> (values, levels) once expanded
    open_ids: set[int] = set()  # the nodes on the walk's current path
    # each open node: [node, its remaining children, values so far, deepest child so far]
    stack: list[list[Any]] = [[root, iter(_children(root)), 1, 0]]
    open_ids.add(id(root))

    def refuse(node: yaml.Node, message: str) -> YamlLimitError:
        return YamlLimitError(f"{display}:{node.start_mark.line + 1}: {message}")

    while stack:
        entry = stack[-1]
        child = next(entry[1], None)
        if child is None:  # every child counted: the node is finished
            stack.pop()
            open_ids.discard(id(entry[0]))
            size = (entry[2], entry[3] + 1)
            finished[id(entry[0])] = size
        elif id(child) in open_ids:
            raise refuse(
                entry[0],
                "YAML alias inside the value it names (a recursive structure); "
                "accepted: aliases to values written before and outside them",
            )
        elif id(child) in finished:  # an alias to a value already counted
            size = finished[id(child)]
        else:
            inside = _children(child)
            if inside:
                stack.append([child, iter(inside), 1, 0])
                open_ids.add(id(child))
                continue
            size = (1, 1)  # a scalar or an empty collection
        node = entry[0] if child is None else child
        if size[1] > max_depth:
            raise _too_deep(display, node.start_mark.line + 1, max_depth)
        if child is None and not stack:
            return
        parent = stack[-1]
        parent[2] += size[0]
        parent[3] = max(parent[3], size[1])
        if parent[2] > max_values:
            raise refuse(
                parent[0],
                f"YAML document too large: more than {max_values} values once aliases are "
                f"expanded (an alias repeats its anchor's whole value); accepted: at most {max_values}",
            )


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
) -> None:
    """Fill ``lines``/``key_lines``/``duplicates`` for ``node`` found at ``path``.

    Aliases are followed (a field reached through one gets the anchor's line);
    :func:`_check_limits` has already bounded the walk and ruled out cycles.
    Scalars are recorded in place: most nodes are scalars, and a call for each
    would cost more than the rest of the walk.
    """
    lines[path] = node.start_mark.line + 1
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
                _record_lines(value_node, child, lines, key_lines, duplicates)
    elif isinstance(node, yaml.SequenceNode):
        for index, item in enumerate(node.value):
            if isinstance(item, yaml.ScalarNode):
                lines[(*path, index)] = item.start_mark.line + 1
            else:
                _record_lines(item, (*path, index), lines, key_lines, duplicates)


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

    def integer(
        self, value: Any, path: FieldPath, minimum: int, maximum: int | None = None
    ) -> int | None:
        """``value`` if it is an integer (not a boolean) ``>= minimum`` (and ``<= maximum``)."""
        accepted = (
            f"an integer >= {minimum}"
            if maximum is None
            else f"an integer from {minimum} to {maximum}"
        )
        if isinstance(value, bool) or not isinstance(value, int):
            self.add(path, f"expected {accepted}; got {value!r}")
            return None
        if value < minimum or (maximum is not None and value > maximum):
            self.add(path, f"{value} is out of range; accepted: {accepted}")
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
