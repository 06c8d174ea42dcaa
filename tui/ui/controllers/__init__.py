"""The app's typed parts: each holds its own state and is called through typed methods.

`AbstractsApp` owns one of each (`app.search`, `app.personal`, `app.triage`) and wires
them to keys, widgets and screens. A controller reads another only through its typed
attributes (`app.personal.userdata`), so mypy sees every reach across parts, and none
of them repaints by hand: a change is announced once, with `app.view_changed()`.
"""
