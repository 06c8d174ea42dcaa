"""The app's controllers: each drives one part of the UI over the shared session.

A controller is built with the `Session` (tui/session: the state, without Textual) and
the app as its `Host` (tui/ui/host.py: Textual's App and the main screen's widgets). It
changes the session through its methods, observes the session's events for what it
shows, and never imports the app or another controller.
"""
