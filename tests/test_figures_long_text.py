"""A figure never fails on a long text: every drawn text is cut to ``MAX_DRAWN_CHARS`` (issue 43 F3)."""

from __future__ import annotations

from pathlib import Path

from treebench.report.figures import MAX_DRAWN_CHARS, new_figure, save


def test_megabyte_labels_are_cut_and_the_figure_is_written(tmp_path: Path) -> None:
    long = "y" * 1_000_000
    fig, ax = new_figure(4.0, 3.0)
    ax.bar([0, 1], [1.0, 2.0], label=long)
    ax.set_xticks([0, 1])
    ax.set_xticklabels([long, "short"])
    ax.set_title(long)
    ax.legend()
    texts = {t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))}
    written = save(fig, tmp_path / "f")
    assert [p.suffix for p in written] == [".png", ".svg"]
    assert all(p.stat().st_size > 0 for p in written)
    assert long in texts  # the figure held the long text before saving
    svg = written[1].read_text(encoding="utf-8")
    assert "y" * (MAX_DRAWN_CHARS + 1) not in svg
    assert "short" in svg
