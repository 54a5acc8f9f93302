"""``python -m treebench``: the same command line as the ``treebench`` script."""

from treebench.cli import main

main()
