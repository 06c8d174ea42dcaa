"""tui.sanitize: the one path text from data takes to a terminal."""

from __future__ import annotations

import json
import re
import subprocess
import sys

from hypothesis import given
from hypothesis import strategies as st

from tui.corpus import latex
from tui.sanitize import json_line, json_safe, storable, visible, visible_line

OSC52 = "\x1b]52;c;aGVsbG8=\x07"
TITLE = "\x1b]0;TITLE\x07"
CLEAR = "\x1b[2J"
# What a terminal may obey: C0 (but tab and LF for `visible`), DEL, C1, bidi controls;
# and lone surrogates, which cannot even be written as UTF-8.
OBEYED = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff"
    # and invisible format characters (zero width space, byte order mark, word joiner)
    "\u180e\u200b\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb\U000e0001\U000e0020-\U000e007f]"
)
# Any text, lone surrogates included (a file name that is not UTF-8 holds them).
ANY_TEXT = st.text(st.characters(blacklist_categories=()))
OBEYED_IN_A_LINE = re.compile("[\t\n]|" + OBEYED.pattern)


def test_escape_sequences_become_visible_symbols() -> None:
    shown = visible(f"a{OSC52}b{TITLE}c{CLEAR}d\x9b31m\u202eevil\u2066")
    assert shown == ("a␛]52;c;aGVsbG8=␇b␛]0;TITLE␇c␛[2Jd\ufffd31m\ufffdevil\ufffd")


def test_zero_width_and_format_characters_become_visible_but_joiners_stay() -> None:
    assert visible("pass\u200bword\ufeff") == "pass\ufffdword\ufffd"
    assert visible_line("a\u2060b\U000e0041") == "a\ufffdb\ufffd"
    # Joiners shape scripts and emoji: they are kept.
    assert visible("\u0645\u200c\u06cc \U0001f469\u200d\U0001f4bb") == (
        "\u0645\u200c\u06cc \U0001f469\u200d\U0001f4bb"
    )
    assert json_line("a\u200b\U000e0041") == '"a\\u200b\\udb40\\udc41"'


def test_tabs_and_line_breaks_stay_in_text_and_show_in_a_line() -> None:
    assert visible("a\tb\nc\rd") == "a\tb\nc␍d"
    assert visible_line("a\tb\nc\rd") == "a␉b␊c␍d"


def test_printable_text_is_returned_as_it_is() -> None:
    text = "Attention is all you need: α→β, 100% [bold]not markup[/] — ok"
    assert visible(text) is text
    assert visible_line(text) is text


@given(ANY_TEXT)
def test_never_a_control_and_never_a_printable_character_lost(text: str) -> None:
    for shown, obeyed in ((visible(text), OBEYED), (visible_line(text), OBEYED_IN_A_LINE)):
        assert not obeyed.search(shown)
        shown.encode("utf-8")  # never raises: a terminal can be sent it
        assert len(shown) == len(text)  # one for one: offsets stay valid
        for before, after in zip(text, shown, strict=True):
            if not obeyed.match(before):
                assert after == before


@given(st.recursive(ANY_TEXT | st.integers(), lambda c: st.lists(c) | st.dictionaries(ANY_TEXT, c)))
def test_json_stays_the_same_value_with_nothing_a_terminal_obeys(value: object) -> None:
    line = json_line(value)
    assert json.loads(line) == value
    assert not OBEYED_IN_A_LINE.search(line)
    line.encode("utf-8")
    indented = json_safe(json.dumps(value, ensure_ascii=False, indent=1))
    assert json.loads(indented) == value


def test_a_lone_surrogate_shows_as_the_replacement_character() -> None:
    """A file name that is not UTF-8 (byte 0xff read as U+DCFF) is shown, stored and
    written as U+FFFD; in JSON it is an escape, so the value is kept."""
    name = "bad\udcffname.txt"
    assert visible(name) == visible_line(name) == storable(name) == "bad\ufffdname.txt"
    assert json_line(name) == '"bad\\udcffname.txt"'
    assert storable("plain ✓") == "plain ✓"
    assert storable("a\tb") == "a\tb"  # only surrogates: controls are for `visible`


def test_latex_uses_the_same_sanitiser() -> None:
    """One implementation: the LaTeX source view and render() show controls as this does."""
    assert latex.shown_safely is visible
    assert latex.render(f"x{OSC52}").plain == visible(f"x{OSC52}")


def test_importing_the_sanitiser_does_not_import_textual() -> None:
    code = "import sys, tui.sanitize; print(any(m.startswith('textual') for m in sys.modules))"
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert result.stdout.strip() == "False"
