"""PURE CORE: the user's bookmarks, notes, reading state and UI state in one SQLite file.

`db.Store` is the synchronous database layer; `userdata.UserData` is the in-memory
view the UI reads and writes through (writes go to a background thread); `export`
turns the store into Markdown, JSON, BibTeX or CSV and merges JSON back in.
"""
