"""Corpus stores: the embedded SQLite store and Elasticsearch, one :class:`~anchor_core.stores.base.Store`
contract. Each store is built from its own settings record (:class:`~anchor_core.config.SQLiteSettings`,
:class:`~anchor_core.config.ElasticSettings`); :func:`open_store` picks the configured one.

The store modules are imported only when opened, so the CLI on SQLite never loads the Elasticsearch client.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from anchor_core.config import Settings
    from anchor_core.stores.base import Store


def open_store(settings: Settings) -> Store:
    """The configured store: the workspace's SQLite file, or Elasticsearch (health-checked on open)."""
    if settings.store == "elasticsearch":
        from anchor_core.stores.elastic import ElasticStore

        return ElasticStore.from_settings(settings.elasticsearch)
    from anchor_core.stores.sqlite import SQLiteStore

    return SQLiteStore.from_settings(settings.sqlite)


__all__ = ["open_store"]
