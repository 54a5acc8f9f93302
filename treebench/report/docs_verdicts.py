"""The per-paper verdict lists of ``docs/reports.md``, written from each paper's ``verdicts.json``.

A verdict in the docs is a number someone computed; written by hand it goes
stale the first time a spec, a rule or a run changes.  So the docs hold one
marked block per paper::

    <!-- verdicts:KEY:begin -->
    ... generated: do not edit ...
    <!-- verdicts:KEY:end -->

and :func:`rewrite` replaces what lies between the markers with
:func:`verdict_block` of ``RESULTS/KEY/verdicts.json`` (``make docs-verdicts``,
or ``python -m treebench.report.docs_verdicts``).  The keys come from the
markers, so this module knows no paper (``report/`` never imports
``papers/``).  :func:`handwritten_verdicts` finds a grade word written by hand
in the per-paper sections, outside the blocks: the docs explain a verdict,
the data state it.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from treebench.errors import TreebenchError
from treebench.report.verdicts import summary, summary_text

#: The markers around one paper's generated block (KEY: the paper's key, as ``treebench reproduce`` names it).
BEGIN, END = "<!-- verdicts:{key}:begin -->", "<!-- verdicts:{key}:end -->"
MARKER = re.compile(r"^<!-- verdicts:([A-Za-z0-9_.-]+):(begin|end) -->\s*$")
#: Words that state a verdict (the grades and their verb); allowed in the docs only inside the blocks.
VERDICT_WORDS = re.compile(r"\b(reproduced|reproduces|inconclusive|reversed|not testable)\b", re.IGNORECASE)
#: The per-paper sections of the docs: headings that start with one of these.
PAPER_HEADINGS = ("### Paper ", "### Verdicts, paper by paper")
ACCEPTED_DOCS = "a Markdown file holding <!-- verdicts:KEY:begin --> / <!-- verdicts:KEY:end --> pairs"


def _cell(text: object) -> str:
    """A table cell: pipes escaped, line breaks folded."""
    return " ".join(str(text).split()).replace("|", "\\|")


def _number(x: object) -> str:
    return "–" if not isinstance(x, (int, float)) or isinstance(x, bool) else f"{x:+.3g}"


def _ours(claim: dict[str, Any]) -> str:
    """Our effect with its 95 % interval, and an equivalence's margin."""
    effect = claim.get("effect")
    if not isinstance(effect, (int, float)):
        return "–"
    lo, hi = (list(claim.get("interval") or []) + [None, None])[:2]
    text = _number(effect) + (f" [{_number(lo)}, {_number(hi)}]" if lo is not None and hi is not None else "")
    margin = claim.get("margin")
    if claim.get("kind") == "equivalence" and isinstance(margin, (int, float)):
        text += f", margin ± {abs(margin):.3g}"
    return text


def _own(claim: dict[str, Any]) -> str:
    own = claim.get("paper_on_paper")
    return str(own.get("verdict") or "–") if isinstance(own, dict) else "–"


def verdict_block(doc: dict[str, Any], source: str) -> list[str]:
    """The Markdown lines of one paper's block (markers excluded) from its ``verdicts.json`` document.

    ``source`` names the file in the block's first line.  Deterministic: the
    same document always gives the same lines (no date), so a test can
    compare the committed docs with the files.
    """
    claims = doc.get("claims")
    if not isinstance(claims, list) or not all(isinstance(c, dict) and "claim" in c and "verdict" in c
                                               for c in claims):
        raise TreebenchError(f"{source}: 'claims' is not a list of claims with 'claim' and 'verdict'; accepted: "
                             "a verdicts.json written by treebench reproduce")
    # counted from the claims themselves (verdicts.check_document holds the file's summary to the same)
    counts = summary(str(c["verdict"]) for c in claims)
    calibrated = summary(str(c.get("verdict_calibrated") or "not testable (not computed)") for c in claims)
    lines = [f"*Generated from `{source}` by `make docs-verdicts`: edit the spec or rerun, not these lines.*", "",
             f"Paper {_cell(doc.get('paper', '?'))} ({_cell(doc.get('key', '?'))}), all datasets: "
             f"{summary_text(counts)}; calibrated datasets only: {summary_text(calibrated)}.", ""]
    if not claims:
        return lines + ["No claims."]
    lines += ["| claim | where the paper says it | verdict | calibrated datasets | the paper's own numbers | "
              "ours [95 % interval] | paper |", "| --- | --- | --- | --- | --- | ---: | ---: |"]
    for c in claims:
        lines.append("| " + " | ".join(_cell(x) for x in (
            c["claim"], c.get("location") or "–", c["verdict"], c.get("verdict_calibrated") or "–", _own(c),
            _ours(c), _number(c.get("paper_effect")))) + " |")
    return lines


def blocks(lines: Sequence[str], name: str = "docs") -> Iterator[tuple[str, int, int]]:
    """``(key, begin, end)`` line indexes of every marked block, in order; a malformed pair is refused."""
    open_key, start = None, -1
    for i, line in enumerate(lines):
        m = MARKER.match(line)
        if not m:
            continue
        key, side = m.groups()
        if side == "begin":
            if open_key is not None:
                raise TreebenchError(f"{name}:{i + 1}: block '{key}' begins inside block '{open_key}' "
                                     f"(line {start + 1}); accepted: {ACCEPTED_DOCS}")
            open_key, start = key, i
        elif key != open_key:
            raise TreebenchError(f"{name}:{i + 1}: end of block '{key}' without its begin; accepted: {ACCEPTED_DOCS}")
        else:
            yield key, start, i
            open_key = None
    if open_key is not None:
        raise TreebenchError(f"{name}:{start + 1}: block '{open_key}' has no end marker; accepted: {ACCEPTED_DOCS}")


def read_document(path: Path) -> dict[str, Any]:
    """A ``verdicts.json`` as a dict, or one line saying why it cannot be read."""
    try:
        doc = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise TreebenchError(f"{path}: cannot be read ({exc.__class__.__name__}); accepted: a verdicts.json "
                             "written by treebench reproduce") from None
    except json.JSONDecodeError as exc:
        raise TreebenchError(f"{path}: not JSON ({exc.msg}, line {exc.lineno}); accepted: a verdicts.json "
                             "written by treebench reproduce") from None
    if not isinstance(doc, dict):
        raise TreebenchError(f"{path}: holds a JSON {type(doc).__name__}, not an object; accepted: a verdicts.json "
                             "written by treebench reproduce")
    return doc


def rewrite(text: str, results: Path, name: str = "docs") -> tuple[str, list[str], list[str]]:
    """``text`` with every block whose ``RESULTS/KEY/verdicts.json`` exists rewritten from it.

    Returns the new text, the keys rewritten and the keys left as they are
    (no such file).  The file is named in the block relative to ``results``'
    parent (``results/KEY/verdicts.json`` for the checkout's results folder).
    """
    lines = text.split("\n")
    found = list(blocks(lines, name))
    if not found:
        raise TreebenchError(f"{name}: no verdict block; accepted: {ACCEPTED_DOCS}")
    done, kept = [], []
    for key, start, end in reversed(found):  # from the end: earlier indexes stay valid
        path = Path(results) / key / "verdicts.json"
        if not path.is_file():
            kept.append(key)
            continue
        body = verdict_block(read_document(path), f"{Path(results).name}/{key}/verdicts.json")
        lines[start + 1:end] = body
        done.append(key)
    return "\n".join(lines), done[::-1], kept[::-1]


def paper_sections(lines: Sequence[str]) -> Iterator[int]:
    """Indexes of the lines inside the per-paper sections (:data:`PAPER_HEADINGS` up to the next heading
    of the same or a higher level)."""
    inside = False
    for i, line in enumerate(lines):
        if line.startswith("#"):
            level = len(line) - len(line.lstrip("#"))
            if level <= 3:
                inside = line.startswith(PAPER_HEADINGS)
                continue
        if inside:
            yield i


def handwritten_verdicts(text: str) -> list[tuple[int, str]]:
    """``(line number, line)`` of every verdict word in a per-paper section, outside the generated blocks."""
    lines = text.split("\n")
    generated = {i for _, start, end in blocks(lines) for i in range(start, end + 1)}
    return [(i + 1, lines[i]) for i in paper_sections(lines)
            if i not in generated and VERDICT_WORDS.search(lines[i])]


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m treebench.report.docs_verdicts [--results DIR] [--docs FILE] [--check]``."""
    parser = argparse.ArgumentParser(prog="python -m treebench.report.docs_verdicts",
                                     description="Rewrite the per-paper verdict blocks of the docs from each "
                                                 "paper's RESULTS/KEY/verdicts.json.")
    parser.add_argument("--results", default="results", help="the reports' folder (default: results)")
    parser.add_argument("--docs", default="docs/reports.md", help="the Markdown file (default: docs/reports.md)")
    parser.add_argument("--check", action="store_true",
                        help="change nothing; exit 1 when a block differs from its verdicts.json or a verdict "
                             "is written by hand in a per-paper section")
    args = parser.parse_args(argv)
    try:
        docs, results = Path(args.docs), Path(args.results)
        if not docs.is_file():
            raise TreebenchError(f"--docs {str(docs)!r}: no such file; accepted: {ACCEPTED_DOCS}")
        if not results.is_dir():
            raise TreebenchError(f"--results {str(results)!r}: no such folder; accepted: the folder `treebench "
                                 "reproduce` writes (KEY/verdicts.json per paper)")
        text = docs.read_text(encoding="utf-8")
        new, done, kept = rewrite(text, results, str(docs))
        by_hand = handwritten_verdicts(new)
    except TreebenchError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for key in kept:
        print(f"kept: {key} (no {results / key / 'verdicts.json'}; `treebench reproduce {key}` writes it)",
              file=sys.stderr)
    for number, line in by_hand:
        print(f"{docs}:{number}: a verdict written by hand: {line.strip()[:120]}", file=sys.stderr)
    if args.check:
        stale = [k for k in done if _block(new, k) != _block(text, k)]
        for key in stale:
            print(f"{docs}: block '{key}' differs from {results / key / 'verdicts.json'}; run make docs-verdicts",
                  file=sys.stderr)
        return 1 if stale or by_hand else 0
    if new != text:
        from treebench.outpaths import write_text

        write_text(docs, new)
    print(f"{docs}: {len(done)} block{'s' if len(done) != 1 else ''} from {results}"
          + (f" ({', '.join(done)})" if done else "") + ("; unchanged" if new == text else ""))
    return 1 if by_hand or not done else 0


def _block(text: str, key: str) -> list[str]:
    lines = text.split("\n")
    return next((lines[s + 1:e] for k, s, e in blocks(lines) if k == key), [])


if __name__ == "__main__":
    raise SystemExit(main())
