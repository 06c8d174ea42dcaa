"""Text from data made safe for a terminal: the one path every shown or exported text takes.

Abstract text, notes, file names, headlines and ids come from files and imports the
user did not write character by character. A terminal obeys control characters
instead of showing them: an OSC 52 sequence in a file name sets the clipboard,
`ESC [2J` clears the screen, a bidi override makes text display other than it reads.
Invisible format characters (U+200B zero width space, U+FEFF, word joiners) are
treated the same way. Here each such character becomes a visible symbol (a Unicode control picture, or
U+FFFD where none exists), one character for one, so offsets into the text stay
valid and every printable character is kept exactly.

`visible` keeps tabs and line breaks (a paragraph, a note); `visible_line` shows
them too (a name, an id, a headline: one line that must not become two);
`json_safe` escapes what JSON itself leaves raw, so JSON output stays lossless.
"""

from __future__ import annotations

import json
import re
from typing import Any

__all__ = [
    "BIDI",
    "CONTROL",
    "FORMAT",
    "SURROGATES",
    "json_line",
    "json_safe",
    "storable",
    "visible",
    "visible_line",
]

# Bidirectional controls: marks, embeddings, overrides and isolates. A terminal
# obeys them and reorders what follows, so text can display other than it reads.
BIDI = "\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069"
# Invisible format characters: zero width, so text holding them displays other than
# it reads (`pass\u200bword`), and terminals disagree on their width, shifting what
# follows. Zero-width joiner and non-joiner stay: scripts (Persian, Indic) and emoji
# need them to be written at all.
FORMAT = "\u180e\u200b\u2060-\u2064\u206a-\u206f\ufeff\ufff9-\ufffb\U000e0001\U000e0020-\U000e007f"
# Lone surrogates: no terminal, file or database can take them as UTF-8 (writing one
# raises). A file name that is not UTF-8 holds them (Python's surrogateescape), and
# LaTeX can name one (`\unicode{xD800}`).
SURROGATES = "\ud800-\udfff"
# C0 controls but tab and line feed, DEL, C1 controls (U+009B is a one-character
# CSI) and bidi controls: the characters a terminal may obey instead of showing; and
# lone surrogates, which it cannot be sent at all.
CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f" + BIDI + FORMAT + SURROGATES + "]")
_LINE_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f" + BIDI + FORMAT + SURROGATES + "]")
_PICTURES = {
    **{c: 0x2400 + c for c in range(0x20) if c not in (0x09, 0x0A)},
    0x7F: 0x2421,
    # C1 controls have no pictures; the replacement character shows one was there.
    **{c: 0xFFFD for c in range(0x80, 0xA0)},
    # Nor do bidi controls: shown as the replacement character, never dropped, so
    # the text keeps its length.
    **{c: 0xFFFD for c in (0x061C, 0x200E, 0x200F, *range(0x202A, 0x202F), *range(0x2066, 0x206A))},
    # Nor do invisible format characters: the replacement character shows one is there.
    **{
        c: 0xFFFD
        for c in (
            0x180E,
            0x200B,
            *range(0x2060, 0x2065),
            *range(0x206A, 0x2070),
            0xFEFF,
            *range(0xFFF9, 0xFFFC),
            0xE0001,
            *range(0xE0020, 0xE0080),
        )
    },
    # A lone surrogate is a character that could not be decoded: U+FFFD is its symbol.
    **{c: 0xFFFD for c in range(0xD800, 0xE000)},
}
_SURROGATE = re.compile("[" + SURROGATES + "]")
_LINE_PICTURES = {**_PICTURES, 0x09: 0x2409, 0x0A: 0x240A}
# What json.dumps(ensure_ascii=False) writes raw but a terminal may obey.
_JSON_RAW = re.compile(r"[\x7f-\x9f" + BIDI + FORMAT + SURROGATES + "]")


def visible(text: str) -> str:
    """`text` with every control character but tab and line feed shown as a symbol.

    One character for one; `text` itself when there is nothing to replace.
    """
    if text.isprintable() or not CONTROL.search(text):
        return text
    return text.translate(_PICTURES)


def storable(text: str) -> str:
    """`text` with each lone surrogate as U+FFFD, as it is shown: a name or a label
    taken from a file name that is not UTF-8 can then be stored and written."""
    if text.isprintable() or not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub("\ufffd", text)


def visible_line(text: str) -> str:
    """`text` on one line: as `visible`, and tabs and line breaks shown as symbols too."""
    if text.isprintable() or not _LINE_CONTROL.search(text):
        return text
    return text.translate(_LINE_PICTURES)


def json_safe(encoded: str) -> str:
    """JSON text (from `json.dumps(..., ensure_ascii=False)`) with DEL, C1 and bidi
    controls and lone surrogates written as `\\uXXXX` escapes: the same JSON value,
    nothing a terminal obeys, and text that can be written as UTF-8.

    JSON escapes C0 controls itself; outside strings JSON text is ASCII, so every
    character replaced here is inside a string, where the escape means the same.
    """
    return _JSON_RAW.sub(lambda m: _json_escape(m.group()), encoded)


def _json_escape(char: str) -> str:
    """`\\uXXXX`, or the surrogate pair JSON writes for a character beyond U+FFFF."""
    code = ord(char)
    if code <= 0xFFFF:
        return f"\\u{code:04x}"
    code -= 0x10000
    return f"\\u{0xD800 + (code >> 10):04x}\\u{0xDC00 + (code & 0x3FF):04x}"


#: `json.dumps(value, ensure_ascii=False)` without making an encoder per call (a quarter
#: of the encoding time of `abstracts list --json`'s 100,000 short rows).
_ENCODER = json.JSONEncoder(ensure_ascii=False)


def json_line(value: Any) -> str:
    """`value` as one line of JSON, readable (non-ASCII kept) and safe for a terminal."""
    return json_safe(_ENCODER.encode(value))
