"""Abstract.headline skips rendering the whole abstract when its start has no
LaTeX; the result must be exactly the headline of the fully rendered text."""

from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from tui.corpus.headline import make_headline
from tui.corpus.latex import to_plain
from tui.corpus.load import load_corpus
from tui.corpus.model import Abstract, Collection, SourceRef, abstract_id

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def _abstract(text: str) -> Abstract:
    return Abstract(abstract_id(text), text, Collection("x"), [SourceRef(Path("x.txt"), 1)])


def test_every_seed_headline_equals_the_full_rendering() -> None:
    for abstract in load_corpus([SEEDS]).abstracts:
        assert abstract.headline == make_headline(to_plain(abstract.text))


words = st.sampled_from(
    [
        "We",
        "show",
        "a",
        "e.g.",
        "Fig.",
        "3.5",
        "model.",
        "Results",
        "$x$",
        "--",
        "\\emph{b}",
        "ok?",
        "Yes!",
        "i.e.",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(words, min_size=1, max_size=200))
def test_shortcut_matches_full_rendering(parts: list[str]) -> None:
    text = " ".join(parts)
    assert _abstract(text).headline == make_headline(to_plain(text))
