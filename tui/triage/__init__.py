"""Triage helpers the UI calls: next unread (navigation), undo/redo (undo), overview counts
and distinctive terms (overview).

Pure functions and small classes over indices and id sets; nothing here reads
the disk or imports Textual (enforced by tests/test_import_hygiene.py). The
package imports none of its modules itself: overview needs NumPy, which the
app must not pay for before its first paint.
"""
