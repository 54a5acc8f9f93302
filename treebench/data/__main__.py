"""``python -m treebench.data ...`` runs the ``treebench datasets`` commands."""

from treebench.data.cli import run

run()
