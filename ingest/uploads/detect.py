"""Which format an uploaded file is, from its bytes (the extension is only a hint).

Extensions lie: a ``.pdf`` saved from a browser may be HTML, a ``.txt`` may be a Word file.
The content decides; a disagreeing extension becomes a warning.
"""

from __future__ import annotations

import io
import re
import zipfile
from pathlib import PurePosixPath
from typing import Literal

from ingest.uploads.errors import UploadError

Format = Literal["pdf", "docx", "html", "markdown", "text"]
SUPPORTED = "PDF, Word (.docx), HTML, Markdown and plain text"

_EXT_FORMAT = {".pdf": "pdf", ".docx": "docx", ".html": "html", ".htm": "html", ".xhtml": "html",
               ".md": "markdown", ".markdown": "markdown", ".txt": "text", ".text": "text"}
# Magic numbers of formats people upload by mistake, with what to do instead.
_KNOWN_BINARY = [
    (b"\x89PNG\r\n\x1a\n", "a PNG image: there is no text to read; run OCR first"),
    (b"\xff\xd8\xff", "a JPEG image: there is no text to read; run OCR first"),
    (b"GIF8", "a GIF image: there is no text to read; run OCR first"),
    (b"II*\x00", "a TIFF image: there is no text to read; run OCR first"),
    (b"MM\x00*", "a TIFF image: there is no text to read; run OCR first"),
    (b"\xd0\xcf\x11\xe0\xa1\xb1\x1a\xe1", "a legacy Word/Excel (.doc/.xls) file: save it as .docx or PDF"),
    (b"{\\rtf", "an RTF document: save it as .docx or PDF"),
    (b"\x1f\x8b", "a gzip archive: unpack it and upload the documents"),
    (b"Rar!", "a RAR archive: unpack it and upload the documents"),
    (b"7z\xbc\xaf", "a 7-Zip archive: unpack it and upload the documents"),
]
_HTML_START = re.compile(rb"^\s*(?:<\?xml[^>]*>\s*)?(?:<!--.*?-->\s*)*<(?:!doctype\s+html|html|head|body)\b",
                         re.I | re.S)
_HTML_TAGS = re.compile(rb"<(?:p|div|h[1-6]|table|ul|ol|li|span|br)\b[^>]*>", re.I)
_MD_SIGNS = re.compile(r"^(?:#{1,6} \S|```|\* \S|- \S|\d+\. \S)", re.M)


def detect_format(name: str, data: bytes) -> tuple[Format, list[str]]:
    """The format of ``data`` and warnings (e.g. an extension that disagrees with the content).

    Raises:
        UploadError: empty file, or a format Anchor cannot read (images, archives, .doc, ...).
    """
    ext = PurePosixPath(name).suffix.lower()
    if not data.strip():
        raise UploadError("the file is empty" if not data else "the file holds only whitespace: no text to ingest")
    head = data[:2048]
    fmt: Format
    if b"%PDF-" in data[:1024]:
        fmt = "pdf"
    elif head.startswith(b"PK\x03\x04"):
        fmt = _zip_format(data)
    else:
        for magic, what in _KNOWN_BINARY:
            if head.startswith(magic):
                raise UploadError(f"unsupported format: {what} (Anchor reads {SUPPORTED})")
        if _HTML_START.match(head) or len(_HTML_TAGS.findall(head)) >= 3:
            fmt = "html"
        elif ext in (".md", ".markdown"):
            fmt = "markdown"
        elif ext in ("", ".txt", ".text") or not ext:
            fmt = "text"
        else:
            fmt = "markdown" if _looks_markdown(head) else "text"
    warnings = []
    expected = _EXT_FORMAT.get(ext)
    if ext and expected is None and fmt in ("pdf", "docx", "html"):
        warnings.append(f"the extension {ext} is unusual; read as {fmt} from the content")
    elif expected is not None and expected != fmt and {expected, fmt} != {"markdown", "text"}:
        warnings.append(f"named {ext} but the content is {fmt}; read as {fmt}")
    return fmt, warnings


def _zip_format(data: bytes) -> Format:
    try:
        names = set(zipfile.ZipFile(io.BytesIO(data)).namelist())
    except (zipfile.BadZipFile, OSError, ValueError) as err:
        raise UploadError(f"the file is a damaged ZIP/Office container ({err}); save it again and re-upload") from None
    if "word/document.xml" in names:
        return "docx"
    if "xl/workbook.xml" in names:
        raise UploadError(f"unsupported format: an Excel workbook (Anchor reads {SUPPORTED})")
    if "ppt/presentation.xml" in names:
        raise UploadError(f"unsupported format: a PowerPoint deck; export it as PDF (Anchor reads {SUPPORTED})")
    if "content.xml" in names and "mimetype" in names:
        raise UploadError("unsupported format: an OpenDocument file; save it as .docx or PDF")
    raise UploadError("unsupported format: a ZIP archive; unpack it and upload the documents")


def _looks_markdown(head: bytes) -> bool:
    return len(_MD_SIGNS.findall(head.decode("utf-8", "replace"))) >= 2


def decode_text(data: bytes) -> str:
    """UTF-8 (with or without BOM) or BOM-marked UTF-16; anything else is refused, naming the byte."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as err:
            raise UploadError(f"the file says it is UTF-16 but byte {err.start} is invalid; save it as UTF-8") from None
    if b"\x00" in data[:4096]:
        raise UploadError(f"the file is binary (NUL bytes), not text; Anchor reads {SUPPORTED}")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        bad = data[err.start:err.start + 1].hex()
        raise UploadError(f"the text is not UTF-8 (byte 0x{bad} at position {err.start}); convert it to UTF-8, "
                          "e.g. `iconv -f windows-1252 -t utf-8 FILE`, and upload it again") from None
