"""Plugins: user modules or ``.py`` files that register criteria when imported.

A config's ``plugins:`` are imported by the validator and again in every
worker process before its first trial (a worker does not import the config).
The importer itself lives in :mod:`treebench.criteria.plugins`, so that
``treebench criteria list --plugin FILE`` (criteria layer) shares it.
"""

from __future__ import annotations

from treebench.criteria.plugins import import_plugin

__all__ = ["import_plugin"]
