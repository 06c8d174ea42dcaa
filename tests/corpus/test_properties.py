"""Property tests: parsing, loading and rendering never raise and never lose text."""

from __future__ import annotations

import re
import tempfile
import unicodedata
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tui.corpus.latex import render, to_plain
from tui.corpus.load import load_corpus
from tui.corpus.model import abstract_id
from tui.corpus.parse import parse_text

P = Path("/x/f.txt")
WS = st.sampled_from([" ", "\t", "\n", "\r\n", "\r", "\n\n", "\n \n", "\u00a0", "\u3000", "\f"])
WORD = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=12)


@given(st.text())
def test_parse_never_raises(text: str) -> None:
    parsed = parse_text(text, P)
    assert all(p and p == " ".join(p.split()) for p in parsed.paragraphs)


@given(st.lists(st.tuples(WORD, WS), max_size=40))
def test_parse_keeps_every_word_of_the_body(pieces: list[tuple[str, str]]) -> None:
    body = "".join(w + s for w, s in pieces)
    parsed = parse_text("ICLR 2023 Papers\n\n" + body, P)
    assert parsed.collection.venue == "ICLR"
    assert " ".join(parsed.paragraphs).split() == body.split()


@given(st.lists(st.tuples(WORD, WS), min_size=1, max_size=30))
def test_parse_keeps_every_word_without_a_known_header(pieces: list[tuple[str, str]]) -> None:
    text = "".join(w + s for w, s in pieces)
    parsed = parse_text(text, P)
    # Words of a header line live on in the label; every other word is in a paragraph.
    label = parsed.collection.label.split() if parsed.has_header else []
    assert label + " ".join(parsed.paragraphs).split() == text.removeprefix("\ufeff").split()


@given(st.binary(max_size=2000))
@settings(max_examples=60, suppress_health_check=[HealthCheck.too_slow])
def test_load_arbitrary_bytes_never_raises(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as d:
        f = Path(d) / "any.txt"
        f.write_bytes(data)
        corpus = load_corpus([f])
        assert corpus.abstracts or corpus.problems
        for a in corpus.abstracts:
            assert a.id == abstract_id(a.text)


# Characters that are never LaTeX markup (nor controls or format characters such as
# U+FEFF and U+200B, which are shown as pictures).
PLAIN_ALPHABET = st.characters(
    blacklist_categories=("Cs", "Cc", "Cf"), blacklist_characters="\\${}^_~`'-"
)


@given(st.text(PLAIN_ALPHABET))
def test_render_of_text_without_markup_is_the_input(text: str) -> None:
    r = render(text)
    assert r.plain.split() == text.split()
    assert to_plain(text) == r.plain


def _fold(text: str) -> str:
    """Letters and digits as a reader sees them: 𝒪 -> O, ² -> 2, é -> e."""
    decomposed = unicodedata.normalize("NFKD", text)
    return "".join(c for c in decomposed if c.isalnum() and not unicodedata.combining(c))


LATEXISH = st.lists(
    st.one_of(
        st.sampled_from([*"\\${}^_~`'- []%&", "\\emph{", "\\frac", "$$", "\\url{", "--"]),
        st.sampled_from(["\\alpha", "\\sqrt", "\\textbf{", "\\mathcal{", "https://a.b/c", "\\'"]),
        st.characters(blacklist_categories=("Cs",)),
    ),
    max_size=40,
).map("".join)


@given(LATEXISH)
@settings(max_examples=400)
def test_render_never_raises_and_keeps_letters_and_digits(src: str) -> None:
    r = render(src)
    assert to_plain(src) == r.plain
    assert all(0 <= s.start < s.end <= len(r.plain) for s in r.spans)
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", r.plain)
    # Letters inside macro names are markup; every other letter or digit must survive in order.
    visible = re.sub(r"\\[A-Za-z]+", "", src)
    have = iter(_fold(r.plain + "".join(s.url or "" for s in r.spans)))
    missing = [c for c in _fold(visible) if not any(c == h for h in have)]
    assert not missing, (src, r.plain)
