"""The dashboard pages, one short script each (run by ``st.navigation``, not imported)."""
