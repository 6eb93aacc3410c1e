"""The Streamlit dashboard, installed as ``anchor_app``: ``anchor dashboard`` runs ``main.py``.

Streamlit runs ``main.py`` as a script with this folder on ``sys.path``, so the pages import
``resources`` and ``widgets`` by their bare names; nothing imports this package as such.
"""
