"""Per-file upload errors: the message is shown to the reviewer next to the file name."""

from __future__ import annotations

from anchor_core.errors import AdapterError


class UploadError(AdapterError):
    """One uploaded file cannot be ingested; the other files of the batch go on."""
