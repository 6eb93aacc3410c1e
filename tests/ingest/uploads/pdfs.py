"""PDF fixtures made on the fly with reportlab (no binary files in the repo).

The contract is drawn line by line, so line breaks (and the hyphenated word across one) are
exactly where the test expects them, with a running header and a ``Page N of 3`` footer.
"""

from __future__ import annotations

import io

HEADER = "ACME Group Accident Policy - Confidential"

CONTRACT_PAGES = [
    [
        "GROUP PERSONAL ACCIDENT AGREEMENT",
        'This Agreement is made between ACME Insurance Ltd (the "Insurer") and Beta Logistics plc.',
        "1. DEFINITIONS",
        '1.1 "Insured Person" means any employee of the Policyholder named in Schedule 1.',
        '1.2 "Claim" means a written demand for payment under clause 6.',
        '1.3 "Policyholder" means Beta Logistics plc and its subsidiaries.',
        "2. COVER",
        "2.1 The Insurer shall indem-",
        "nify each Insured Person against loss arising from accidental bodily injury.",
        "2.2 Cover applies only if:",
        "(a) the Insured Person is at work or travelling for work; and",
        "(b) the loss is notified in accordance with clause 6.2.",
        "3. EXCLUSIONS",
        "3.1 The Insurer shall not pay any Claim arising from war, terrorism or nuclear risks.",
        "3.2 Self-inflicted injury is excluded unless paragraph (a) of clause 2.2 applies.",
    ],
    [
        "4. PREMIUM",
        "4.1 The Policyholder shall pay the premium within 30 days of each invoice.",
        "4.2 Unpaid premium suspends cover for every Insured Person.",
        "5. TERM",
        "5.1 This Agreement runs for twelve months from the start date.",
        "6. CLAIMS",
        "6.1 The Policyholder shall notify the Insurer of any Claim within 14 days of the",
        "accident, with a medical certificate.",
        "6.2 Notice must be given in writing to the address set out in Schedule 2.",
        "6.3 The Insurer shall settle a valid Claim within 45 days of receiving the certificate.",
    ],
    [
        "7. TERMINATION",
        "7.1 Either party may terminate this Agreement on 90 days' written notice, subject to",
        "clause 4.1 and as defined in Section 1.",
        "SCHEDULE 1 - INSURED PERSONS",
        "1. All permanent employees of the Policyholder.",
        "2. Temporary staff engaged for more than three months.",
        "SCHEDULE 2 - NOTICES",
        "1. Notices to the Insurer: Claims Department, 1 Lime Street, London.",
    ],
]


def contract_pdf(title: str = "Group Personal Accident Agreement", edits: dict[str, str] | None = None) -> bytes:
    """The 3-page contract; ``edits`` replaces words in its lines (a new version of it)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=1)
    c.setTitle(title)
    n = len(CONTRACT_PAGES)
    for i, lines in enumerate(CONTRACT_PAGES, start=1):
        c.setFont("Helvetica", 9)
        c.drawString(72, 800, HEADER)
        c.setFont("Helvetica", 10)
        y = 760
        for line in lines:
            for old, new in (edits or {}).items():
                line = line.replace(old, new)
            c.drawString(72, y, line)
            y -= 16
        c.setFont("Helvetica", 9)
        c.drawString(280, 40, f"Page {i} of {n}")
        c.showPage()
    c.save()
    return buf.getvalue()


def text_pdf(pages: list[list[str]]) -> bytes:
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, invariant=1)
    for lines in pages:
        y = 780
        for line in lines:
            c.drawString(72, y, line)
            y -= 14
        c.showPage()
    c.save()
    return buf.getvalue()


def encrypted_pdf(password: str = "secret") -> bytes:
    from pypdf import PdfReader, PdfWriter

    w = PdfWriter()
    for page in PdfReader(io.BytesIO(contract_pdf())).pages:
        w.add_page(page)
    w.encrypt(user_password=password, owner_password="owner", algorithm="RC4-128")
    buf = io.BytesIO()
    w.write(buf)
    return buf.getvalue()


def image_only_pdf(pages: int = 2) -> bytes:
    """Pages with drawings and no text layer, as a scan without OCR looks to a text extractor."""
    from reportlab.pdfgen import canvas

    buf = io.BytesIO()
    c = canvas.Canvas(buf, invariant=1)
    for i in range(pages):
        for k in range(20):
            c.rect(72, 700 - k * 25, 400 - i * 10, 12, fill=1)
        c.showPage()
    c.save()
    return buf.getvalue()


def corrupt_pdf() -> bytes:
    """A contract PDF cut off at a third of its bytes (a broken download)."""
    data = contract_pdf()
    return data[: len(data) // 3]


def garbage_pdf() -> bytes:
    return b"%PDF-1.7\n" + bytes(range(256)) * 8


LEASE_HEADER = "Lease Agreement 2024 - Tenant copy"
LEASE_PAGES = [
    # Body lines at the page edges differ from their neighbours on the other pages only in their
    # digits, at the same line positions; some of those digits even count up with the page, as a
    # page number does (list items 1., 2., 3.; clauses 9, 10, 11).
    [
        "Clause 4.1 applies from day 30.",
        "1. The tenant shall pay the rent by day 1 of each month.",
        "The landlord insures the building against fire and flood.",
        "The tenant keeps the premises in good repair.",
        "1. The tenant shall allow access for inspections.",
        "Clause 9 applies to notices.",
    ],
    [
        "Clause 5.2 applies from day 60.",
        "4. The tenant shall pay the rent by day 2 of each month.",
        "The landlord repairs the roof and the outer walls.",
        "The tenant shall not sublet the premises.",
        "2. The tenant shall allow access for inspections.",
        "Clause 10 applies to notices.",
    ],
    [
        "Clause 6.3 applies from day 90.",
        "7. The tenant shall pay the rent by day 3 of each month.",
        "The landlord returns the deposit within 30 days.",
        "The tenant returns the keys at the end of the term.",
        "3. The tenant shall allow access for inspections.",
        "Clause 11 applies to notices.",
    ],
]


def lease_pdf(pages: list[list[str]] | None = None, *, header: str | None = LEASE_HEADER,
              footer: str | None = "Page {page} of {pages}") -> bytes:
    """A lease with a running header and a ``Page N of M`` footer; ``None`` leaves either out."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pages = LEASE_PAGES if pages is None else pages
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=1)
    for i, lines in enumerate(pages, start=1):
        c.setFont("Helvetica", 9)
        if header is not None:
            c.drawString(72, 800, header.format(page=i, pages=len(pages)))
        c.setFont("Helvetica", 10)
        y = 760
        for line in lines:
            c.drawString(72, y, line)
            y -= 16
        if footer is not None:
            c.setFont("Helvetica", 9)
            c.drawString(280, 40, footer.format(page=i, pages=len(pages)))
        c.showPage()
    c.save()
    return buf.getvalue()


# A regulation set as the Official Journal sets one: 10 pt body, 7 pt notes at the foot of the page
# under the last body line, a page number under the notes. Page 1's last sentence runs over the page
# break; page 2's body ends a sentence; page 2's last note goes on at the foot of page 3; page 4 ends
# with small print that is not a note (no mark).
REGULATION_PAGES: list[tuple[list[str], list[str]]] = [
    ([
        "Article 1",
        "Subject matter",
        "1. This Regulation lays down rules on the accreditation of bodies that assess",
        "the conformity of products (1). It applies to the bodies notified under Directive",
        "2014/53/EU (2). Each Member State shall appoint a single national accreditation",
        "body, which shall assess the conformity of products that are",
    ], [
        "(1) Regulation (EC) No 765/2008 of the European Parliament and of the Council of 9 July 2008 setting out",
        "the requirements for accreditation (OJ L 218, 13.8.2008, p. 30).",
        "(2) Directive 2014/53/EU on radio equipment (OJ L 153, 22.5.2014, p. 62).",
    ]),
    ([
        "placed on the market in its territory.",
        "Article 2",
        "Definitions",
        "For the purposes of this Regulation, 'product' means any product within the scope",
        "of Directive 2001/95/EC (3).",
    ], [
        "(3) Directive 2001/95/EC of the European Parliament and of the Council of 3 December 2001 on general",
    ]),
    ([
        "Article 3",
        "Entry into force",
        "This Regulation shall enter into force on the twentieth day following that of its",
        "publication, in accordance with Article 4 of Regulation (EU) 2019/1020 (4).",
    ], [
        "product safety (OJ L 11, 15.1.2002, p. 4).",
        "(4) Regulation (EU) 2019/1020 on market surveillance (OJ L 169, 25.6.2019, p. 1).",
    ]),
    ([
        "Article 4",
        "Statistics",
        "The Commission shall publish the number of accredited bodies each year.",
    ], [
        "Source: Commission staff working document, 2023.",
    ]),
]


def regulation_pdf(pages: list[tuple[list[str], list[str]]] | None = None, note_size: float = 7) -> bytes:
    """The regulation above (or ``pages``: body lines and foot lines per page), foot lines at ``note_size`` pt."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    pages = REGULATION_PAGES if pages is None else pages
    buf = io.BytesIO()
    c = canvas.Canvas(buf, pagesize=A4, invariant=1)
    for i, (body, foot) in enumerate(pages, start=1):
        y = 780
        for line in body:
            _marked(c, y, line, 10)
            y -= 14
        y = 90
        for line in foot:
            _marked(c, y, line, note_size)
            y -= note_size + 2
        c.setFont("Helvetica", 9)
        c.drawString(290, 40, str(i))
        c.showPage()
    c.save()
    return buf.getvalue()


def _marked(c, y: float, line: str, size: float) -> None:
    """Draw ``line`` at ``size``; ``^2`` in it is a note mark set at two thirds of the size and raised, as Word
    prints a footnote reference (and the mark before a footnote's text)."""
    x = 72.0
    for k, part in enumerate(line.split("^")):
        if k:
            mark, part = part[0], part[1:]
            c.setFont("Helvetica", size * 0.65)
            c.drawString(x, y + size * 0.4, mark)
            x += c.stringWidth(mark, "Helvetica", size * 0.65)
        c.setFont("Helvetica", size)
        c.drawString(x, y, part)
        x += c.stringWidth(part, "Helvetica", size)
