"""Widgets of the reader: the virtual abstract list, the detail pane, the header bar."""
