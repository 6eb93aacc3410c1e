r"""Tables in stored text, and the units their column headers give to bare numbers.

An uploaded Word or HTML table is stored one row per line, its cells joined by ``" | "`` (a Markdown table keeps
its own ``| a | b |`` lines). A fee schedule or a retention schedule often writes its unit once, in the column
header, and bare numbers in the rows::

    Service | Fee (USD)
    Incorporation of a private company | 1,500

The row alone states no amount ("1,500" of what?); read under its header it states 1,500 USD. :func:`readings`
gives each row of a text the words a value test should read (``"Incorporation of a private company | 1,500
USD"``); the stored text, its offsets and every quote stay as they are.

>>> text = "Company fees\nService | Fee (USD)\nIncorporation of a private company | 1,500\nAnnual renewal | 1,200"
>>> readings(text)["Annual renewal | 1,200"]
'Annual renewal | 1,200 USD'
>>> readings("Record | Keep for (years)\nPayroll | 6\nCCTV footage | 31 days")  # a cell with its own unit stays
{'Payroll | 6': 'Payroll | 6 years'}
>>> readings("Year | Event\n2019 | Launch")  # a column of calendar years, not of lengths
{}
"""

from __future__ import annotations

import re

_SEPARATOR = re.compile(r"\s\|\s")
# a Markdown table's rule line ("|---|:---:|")
_RULE = re.compile(r"^\s*\|?\s*:?-{3,}:?\s*(?:\|\s*:?-{3,}:?\s*)*\|?\s*$")
# a cell that is a number and nothing else ("1,500", "6", "0.5")
_BARE_NUMBER = re.compile(r"\d{1,3}(?:[,\s]\d{3})+(?:\.\d+)?|\d+(?:\.\d+)?")



def _time(*singular: str) -> re.Pattern[str]:
    """A unit of time as a header names one: in the plural ("Retention period in years", "Days") or in brackets
    ("Term (year)"); a header "Year" over "2019" is a column of calendar years, not of lengths."""
    plurals = "|".join(f"{u}s" for u in singular)
    either = "|".join(f"{u}s?" for u in singular)
    return re.compile(rf"\b(?:{plurals})\b|\(\s*(?:in\s+)?(?:{either})\s*\)", re.I)


# the unit a header names: a currency, a share, or a unit of time, as a word of the header ("Fee (USD)", "Rate
# (%)", "Retention period (years)", "Days")
_UNITS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?:USD|US\$|US dollars?)(?!\w)|(?<!\w)\$", re.I), "USD"),
    (re.compile(r"\b(?:EUR|euros?)\b|€", re.I), "EUR"),
    (re.compile(r"\b(?:AED|dirhams?)\b", re.I), "AED"),
    (re.compile(r"\b(?:GBP|pounds? sterling)\b|£", re.I), "GBP"),
    (re.compile(r"%|\bper ?cent\b|\bpercentage\b", re.I), "%"),
    (re.compile(r"\b(?:business|working) days?\b", re.I), "business days"),
    (_time("year", "yr"), "years"),
    (_time("month"), "months"),
    (_time("week"), "weeks"),
    (_time("day"), "days"),
    (_time("hour"), "hours"),
)


def is_row(line: str) -> bool:
    """A line of a table: a Markdown row (``| a | b |``) or cells joined by ``" | "``."""
    s = line.strip()
    return s.startswith("|") or bool(_SEPARATOR.search(s))


_DRAWING = re.compile(r"[\s+\-=|/\\^v<>*.:_]*")


def is_data_row(line: str) -> bool:
    """A row that states something: at least two cells with text, none of them drawn ("+----+", "^") as in the
    ASCII figures of RFCs, no bracket left open, and not a wrapped line of prose that ends in a bar.

    >>> is_data_row("| HS256 | HMAC using SHA-256 | Required |"), is_data_row("| +-----+  | (5) Code  +------+")
    (True, False)
    """
    s = line.strip()
    if "\n" in s or not is_row(s) or (s.endswith("|") and not s.startswith("|")):
        return False
    if not balanced(s):
        return False
    full = [c for c in cells(s) if c]
    return len(full) >= 2 and not any(_drawn(c) or _drawn(c.split()[-1]) for c in full)


def balanced(line: str) -> bool:
    """Whether ``line`` closes every bracket it opens: a table row does; a wrapped line of prose that happens to
    write bars may not ("Status: <Draft | Active |")."""
    return all(line.count(a) == line.count(b) for a, b in ("()", "<>", "[]", "{}"))


def _drawn(text: str) -> bool:
    """A piece of an ASCII figure ("+------+", "^"), not a table's "-" for an empty value."""
    return bool(_DRAWING.fullmatch(text)) and (len(text) >= 3 or text in ("^", "v", "|"))


def cells(line: str) -> list[str]:
    """A row's cells, stripped ("| a | b |" and "a | b" both give ``['a', 'b']``)."""
    s = line.strip()
    if s.startswith("|"):
        s = s[1:]
    if s.endswith("|"):
        s = s[:-1]
    return [c.strip() for c in s.split("|")]


def header_unit(cell: str) -> str:
    """The unit a header cell names (``"Fee (USD)"``: ``"USD"``), or ``""``."""
    for rx, unit in _UNITS:
        if rx.search(cell):
            return unit
    return ""


def _read(row: list[str], units: list[str]) -> list[str]:
    out = []
    for i, cell in enumerate(row):
        unit = units[i] if i < len(units) else ""
        if unit and _BARE_NUMBER.fullmatch(cell):
            cell = f"{cell}{unit}" if unit == "%" else f"{cell} {unit}"
        out.append(cell)
    return out


def table_runs(text: str) -> list[list[str]]:
    r"""The tables of ``text``, each as its lines (stripped), header first: a run of at least two data rows
    (:func:`is_data_row`) with as many cells each, Markdown rule lines ("|---|") left out. A table whose cells wrap
    onto further lines (a line of bars whose first cell is empty continues the row above, as the RFCs draw their
    registries) is no table here: none of its lines states a whole row.

    >>> table_runs("Fees\nService | Fee (USD)\nRenewal | 1,200\nThe fees are final.")
    [['Service | Fee (USD)', 'Renewal | 1,200']]
    >>> table_runs("| Alg | Description |\n| A128KW | AES Key Wrap with |\n|        | default value |")
    []
    """
    lines = [ln.strip() for ln in text.split("\n") if not _RULE.match(ln)]
    out: list[list[str]] = []
    i = 0
    while i < len(lines):
        if not is_row(lines[i]):
            i += 1
            continue
        j = i
        while j < len(lines) and is_row(lines[j]):  # the block of lines with bars
            j += 1
        block = lines[i:j]
        if not any(_continues(ln) for ln in block):
            k = 0
            while k < len(block):
                if not is_data_row(block[k]):
                    k += 1
                    continue
                width = len(cells(block[k]))
                m = k + 1
                while m < len(block) and is_data_row(block[m]) and len(cells(block[m])) == width:
                    m += 1
                if m - k >= 2:
                    out.append(block[k:m])
                k = m
        i = j
    return out


def _continues(line: str) -> bool:
    """A line of a table whose cells wrap: its first cell is empty and another is not."""
    row = cells(line)
    return len(row) >= 2 and not row[0] and any(row[1:])


def readings(text: str) -> dict[str, str]:
    """Each table row of ``text`` (:func:`table_runs`; stripped, as a line) that holds a bare number under a header
    naming its unit, mapped to the row as a value test should read it (the unit written after the number)."""
    out: dict[str, str] = {}
    for run in table_runs(text):
        units = [header_unit(c) for c in cells(run[0])]
        if not any(units):
            continue
        for line in run[1:]:
            row = cells(line)
            read = _read(row, units)
            if read != row:
                out[line] = " | ".join(read)
    return out


def read_text(text: str) -> str:
    r"""``text`` with each table row that :func:`readings` reads replaced by its reading (for a value test only).

    >>> read_text("Service | Fee (USD)\nAnnual renewal | 1,200")
    'Service | Fee (USD)\nAnnual renewal | 1,200 USD'
    """
    table = readings(text) if "|" in text else {}
    return "\n".join(table.get(ln.strip(), ln) for ln in text.split("\n")) if table else text
