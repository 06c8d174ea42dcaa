"""The Textual user interface: the app factory, widgets and screens."""
