"""The detail pane of a paper: title, authors, venue, year, ids and links above the
abstract; a plain word where the source has no abstract; data never read as markup."""

from __future__ import annotations

from tests.search.papers import paper_abstract, paper_corpus
from tui.corpus.model import Corpus
from tui.corpus.paper import Author, Paper
from tui.ui.app import make_app
from tui.ui.widgets.paper_detail import authors_line


def shown(app, part: str) -> str:
    return app.detail.text_of(part).plain


async def test_paper_block_shows_title_authors_venue_ids_and_links() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        paper = shown(app, "paper")
        lines = paper.splitlines()
        assert lines[0] == "Attention Is All You Need"
        assert lines[1].startswith("Ashish Vaswani, Noam Shazeer")
        assert "2017 · Advances in Neural Information Processing Systems (NeurIPS)" in paper
        assert "arXiv 1706.03762" in paper and "key vaswani2017attention" in paper
        assert "Page https://arxiv.org/abs/1706.03762" in paper
        assert "PDF https://arxiv.org/pdf/1706.03762" in paper
        assert shown(app, "body").startswith("The dominant sequence transduction")


async def test_title_latex_is_rendered() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("j")
        title = shown(app, "paper").splitlines()[0]
        assert title == "Sparse Recovery with ℓ₁ Penalties and BERT Features"


async def test_many_authors_are_shortened_with_more_when_the_pane_is_narrow() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        authors = shown(app, "paper").splitlines()[1]
        assert authors.startswith("Ashish Vaswani") and authors.endswith("more")
        assert "Illia Polosukhin" not in authors


def test_authors_line_says_et_al_for_a_sources_others() -> None:
    people = (Author("Müller", "Hans"), Author("Lovelace", "Ada"), Author("others"))
    assert authors_line(people, 80) == "Hans Müller, Ada Lovelace et al."


def test_authors_line_names_as_many_as_fit() -> None:
    people = [Author("Lovelace", "Ada"), Author("Babbage", "Charles"), Author("Turing", "Alan")]
    assert authors_line(people, 80) == "Ada Lovelace, Charles Babbage, Alan Turing"
    assert authors_line(people, 37) == "Ada Lovelace, Charles Babbage +1 more"
    assert authors_line(people, 10) == "Ada Lovelace +2 more"  # the first is always named


async def test_an_entry_without_abstract_says_so() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("j", "j", "j")
        assert app.detail.view.abstract.paper.title.startswith("A Survey of Graph")
        assert shown(app, "body") == "No abstract in the source."
        assert "no abstract" in shown(app, "meta")


async def test_conference_text_has_no_paper_block() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("G")
        assert app.detail.text_of("paper") is None
        assert shown(app, "meta").startswith("ICLR 2023 · iclr2023.txt #2")


async def test_a_paper_from_two_files_lists_both() -> None:
    paper = Paper(
        title="One Paper", authors=(Author("Lovelace", "Ada"),), ids=(("arxiv", "2101.00001"),)
    )
    abstract = paper_abstract(paper, "An abstract of one paper.", 3)
    abstract.sources.append(
        type(abstract.sources[0])(abstract.sources[0].path.with_name("feed.xml"), 7)
    )
    app = make_app(corpus=Corpus([abstract], [], []))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert "Sources: library.bib #3 · feed.xml #7" in shown(app, "meta")


async def test_markup_in_a_title_or_name_is_shown_as_written() -> None:
    paper = Paper(
        title="[bold]Not bold[/] and [@click=app.quit]no link[/]",
        authors=(Author("[red]Red[/]", "Ada"),),
        venue="[i]Venue[/i]",
        year=2024,
    )
    app = make_app(corpus=Corpus([paper_abstract(paper, "Text.", 1)], [], []))
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        block = shown(app, "paper")
        assert "[bold]Not bold[/]" in block and "[@click=app.quit]no link[/]" in block
        assert "Ada [red]Red[/]" in block and "[i]Venue[/i]" in block
