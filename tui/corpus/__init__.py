"""The pure core's corpus: loading abstract files, ids, LaTeX rendering, headlines.

Never imports Textual (enforced by tests/test_import_hygiene.py).
"""
