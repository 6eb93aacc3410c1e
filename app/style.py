"""The dashboard's own CSS: one constant, drawn once per page by the entry script."""

# Layout fixes the theme has no option for: a table cell breaks a long word (a file name, an error
# class) instead of pushing the table past its box; a claim's radio button sits by the first line
# of a label that wraps; a badge holding a reviewer's long name wraps instead of ending in "…".
# A constant: no data of a run reaches it.
LAYOUT_CSS = """<style>
[data-testid="stTable"] td, [data-testid="stTable"] th { overflow-wrap: anywhere; }
[data-testid="stRadioOption"] > div { align-items: flex-start; }
[data-testid="stRadioOption"] > div > div:first-child { margin-top: 0.2rem; flex-shrink: 0; }
.stMarkdownBadge { white-space: normal; overflow: visible; text-overflow: clip; max-width: 100%; }
</style>"""
