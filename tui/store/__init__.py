"""PURE CORE: the user's bookmarks, notes, reading state and UI state in one SQLite file.

`db.Store` is the synchronous database layer (`opening` creates the file, sets damaged
ones aside and refuses newer schemas; `schema` and `strict` migrate it). `userdata.UserData`
is the facade the UI reads and writes through, over three parts sharing one lock:
`memory.Memory` (what is shown), `writer.Writer` (the queue and the background thread that
commits it) and `searchdata.SavedSearches`. Each kind of change is an `operations`
class that writes itself (`sql`, `searches`), settles memory and goes into a rescue file;
`rescue` writes changes that cannot be committed at close to an importable file;
`export` turns the store into Markdown, JSON, BibTeX or CSV and merges JSON back in.
"""
