"""Shared matplotlib set-up: headless backend, consistent style, PNG + SVG output."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot() -> Any:
    import matplotlib

    # Reports are written on servers and in CI: never ask for a display.
    matplotlib.use("Agg", force=True)
    import matplotlib.pyplot as plt

    return plt


def new_figure(width: float, height: float, ncols: int = 1) -> tuple[Any, Any]:
    """A figure of ``width`` x ``height`` inches with ``ncols`` axes."""
    plt = _pyplot()
    fig, axes = plt.subplots(1, ncols, figsize=(width, height), squeeze=True)
    return fig, axes


def new_grid(n_panels: int, panel_width: float, panel_height: float, max_columns: int = 4) -> tuple[Any, list[Any]]:
    """A figure of ``n_panels`` axes in rows of at most ``max_columns`` (unused cells hidden)."""
    plt = _pyplot()
    ncols = max(1, min(max_columns, n_panels))
    nrows = max(1, -(-n_panels // ncols))
    fig, axes = plt.subplots(nrows, ncols, figsize=(panel_width * ncols, panel_height * nrows), squeeze=False)
    flat = list(axes.ravel())
    for ax in flat[n_panels:]:
        ax.set_visible(False)
    return fig, flat[:n_panels]


def save(fig: Any, path: Path) -> list[Path]:
    """Save ``fig`` as ``path.png`` (150 dpi) and ``path.svg``; close it; return both paths.

    Each file is written to a temporary name and renamed (:func:`treebench.outpaths.write_with`);
    a folder that cannot be made or written is one :class:`~treebench.errors.TreebenchError` line.
    ``path`` keeps a dot of its own (``tree-c4.5-r0f0`` -> ``tree-c4.5-r0f0.png``).
    """
    from treebench.outpaths import with_extension, write_with

    plt = _pyplot()
    path = Path(path)
    out = []
    try:
        shorten_texts(fig)
        for suffix, kwargs in ((".png", {"dpi": 150}), (".svg", {})):
            target = with_extension(path, suffix)
            # svg.hashsalt and metadata keep the SVG byte-stable between runs.
            meta = {"Date": None} if suffix == ".svg" else None
            write_with(target, lambda tmp, kw=kwargs, md=meta: fig.savefig(tmp, bbox_inches="tight", metadata=md, **kw))
            out.append(target)
    finally:
        plt.close(fig)
    return out


#: The longest text drawn on a figure; a longer one is cut with an ellipsis (a label of a
#: megabyte would otherwise widen a tight bounding box past what matplotlib can render).
MAX_DRAWN_CHARS = 80


def _short(text: str, limit: int = MAX_DRAWN_CHARS) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def shorten_texts(fig: Any, limit: int = MAX_DRAWN_CHARS) -> None:
    """Cut every text of ``fig`` longer than ``limit`` characters (titles, legends, tick labels).

    Tick labels set from a list are re-made from their formatter at every draw, so a
    formatter of given labels is wrapped to cut them too (numeric formatters are left alone).
    """
    from matplotlib.text import Text
    from matplotlib.ticker import FixedFormatter, FuncFormatter

    for artist in fig.findobj(Text):
        text = artist.get_text()
        if len(text) > limit:
            artist.set_text(_short(text, limit))
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            formatter = axis.get_major_formatter()
            if isinstance(formatter, (FixedFormatter, FuncFormatter)):
                axis.set_major_formatter(FuncFormatter(
                    lambda x, pos=None, inner=formatter: _short(str(inner(x, pos)), limit)))


def palette(n: int) -> list[Any]:
    """``n`` distinguishable colours (tab10, then tab20)."""
    plt = _pyplot()
    cmap = plt.get_cmap("tab10" if n <= 10 else "tab20")
    return [cmap(i % cmap.N) for i in range(n)]
