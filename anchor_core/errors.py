"""Errors whose message is shown to the user as is: each says what went wrong and what to do."""


class AnchorError(Exception):
    """Base class. ``str(err)`` is a complete, actionable message."""


class ConfigError(AnchorError):
    pass


class AdapterError(AnchorError):
    """A corpus source could not be read: unknown adapter, missing path, empty folder, bad file."""


class CorpusNotFound(AnchorError):
    pass


class EmptyStore(AnchorError):
    pass


class QueryError(AnchorError):
    """The question cannot be searched (empty, or only stop-words)."""


class ModelMissing(AnchorError):
    pass


class StoreError(AnchorError):
    pass
