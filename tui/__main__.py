"""`python -m tui` runs the same entry point as the `abstracts` command."""

from tui.cli import main

raise SystemExit(main())
