"""PURE CORE: the user's bookmarks, notes, reading state and UI state in one SQLite file.

`db.Store` is the synchronous database layer (`opening` creates the file, sets damaged
ones aside and refuses newer schemas); `userdata.UserData` is the in-memory view the
UI reads and writes through, over `writer.Writer`, the background thread that
commits; `rescue` writes changes that cannot be committed at close to an importable
file; `export` turns the store into Markdown, JSON, BibTeX or CSV and merges JSON back in.
"""
