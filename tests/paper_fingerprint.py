"""A paper spec as plain JSON data: every field, every statement and every claim's kind and fields.

``tests/test_paper_folders_fingerprint.py`` compares each built-in paper's
loaded spec with the fingerprint recorded from the ``spec.py`` it replaced
(``tests/fixtures/papers/KEY.json``), so a paper folder that drops, reorders
or changes one statement, claim field, reading, figure or dataset fails.

Run as a script (``python tests/paper_fingerprint.py KEY ...``) it prints
the current catalogue's fingerprints; that is how the fixtures were recorded.
"""

from __future__ import annotations

import json
import math
import sys
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).resolve().parent / "fixtures" / "papers"


def plain(value: Any) -> Any:
    """``value`` as JSON data that keeps the distinctions a spec makes (int vs float, NaN, tuples, callables)."""
    if isinstance(value, bool) or value is None or isinstance(value, (int, str)):
        return value
    if isinstance(value, float):
        return "float:nan" if math.isnan(value) else f"float:{value!r}"
    if isinstance(value, (tuple, list)):
        return [plain(v) for v in value]
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if is_dataclass(value) and not isinstance(value, type):
        return {"class": type(value).__name__, **{f.name: plain(getattr(value, f.name)) for f in fields(value)}}
    if callable(value):
        return f"callable:{getattr(value, '__name__', type(value).__name__)}"
    return f"repr:{value!r}"


def _path(text: str) -> str:
    """A path the spec holds, relative to the repository root when inside it (absolute paths differ per checkout)."""
    if not text:
        return text
    path = Path(text)
    if path.is_absolute():
        try:
            return str(path.resolve().relative_to(ROOT))
        except ValueError:
            return text
    return text


def fingerprint(spec: Any) -> dict[str, Any]:
    """Every field of ``spec`` (a :class:`~treebench.report.spec.PaperSpec`) as JSON data.

    Claims are recorded with their registered kind name and every field;
    section builders by their names; the cause registry and config by their
    paths relative to the repository root.  ``folder`` (where the spec was
    read from) is left out (a Python spec had none), and so is
    ``config_file``: the config the spec resolves to (``config``) is recorded.
    """
    from treebench.papers.kinds import load_kinds
    from treebench.report.registry import CLAIM_KINDS

    load_kinds()
    out: dict[str, Any] = {}
    for f in fields(spec):
        value = getattr(spec, f.name)
        if f.name in ("folder", "config_file"):  # where it was read from; the config is recorded as resolved
            continue
        if f.name == "claims":
            statements = []
            for statement in value:
                entry = {g.name: plain(getattr(statement, g.name)) for g in fields(statement) if g.name != "claim"}
                claim = statement.claim
                if claim is not None:
                    entry["claim"] = {"kind": CLAIM_KINDS.name_of(type(claim)), **plain(claim)}
                statements.append(entry)
            out["claims"] = statements
        elif f.name == "sections":
            out["sections"] = [builder.name for builder in value]
        elif f.name == "causes":
            out[f.name] = _path(value)
        else:
            out[f.name] = plain(value)
    out["config"] = _path(spec.config)
    out["readings"] = [{**r, "config": _path(r["config"]) if r["config"] else r["config"]} for r in out["readings"]]
    out["joined"] = [_path(j) for j in out["joined"]]
    return out


def recorded(key: str) -> dict[str, Any]:
    """The fingerprint recorded for paper ``key``."""
    return json.loads((FIXTURES / f"{key}.json").read_text(encoding="utf-8"))


def main(keys: list[str]) -> None:
    """Write the current catalogue's fingerprints of ``keys`` to the fixtures folder."""
    from treebench.papers.catalogue import get_paper

    FIXTURES.mkdir(parents=True, exist_ok=True)
    for key in keys:
        text = json.dumps(fingerprint(get_paper(key)), indent=1, ensure_ascii=False, sort_keys=False)
        (FIXTURES / f"{key}.json").write_text(text + "\n", encoding="utf-8")
        print(f"{key}: {len(text)} characters")


if __name__ == "__main__":
    main(sys.argv[1:])
