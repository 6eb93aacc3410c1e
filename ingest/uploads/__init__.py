"""Uploaded documents (PDF, Word, HTML, Markdown, text) → units, chunks and references with
page provenance. :func:`ingest_uploads` is the entry point for the CLI and the dashboard."""

from ingest.uploads.errors import UploadError
from ingest.uploads.pipeline import DEFAULT_MAX_MB, FileResult, Progress, Upload, ingest_uploads

__all__ = ["DEFAULT_MAX_MB", "FileResult", "Progress", "Upload", "UploadError", "ingest_uploads"]
