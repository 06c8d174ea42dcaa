"""Command-line subcommands (search, export, import, similar); no Textual here."""
