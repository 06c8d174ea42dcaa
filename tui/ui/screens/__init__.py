"""Modal screens: help, load report, note editor, notes, similar abstracts, overview."""
