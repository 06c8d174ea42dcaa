"""Opening and copying a paper (w, W, y, Y, c): what each does, what it says, and why it
could not; the keys in the footer only while a paper is highlighted; the BibTeX entry."""

from __future__ import annotations

import threading

import pytest

from tests.search.papers import paper_abstract, paper_corpus
from tests.ui.helpers import record_notifications, wait_until
from tui.corpus.paper import Author, Paper
from tui.ui.app import make_app
from tui.ui.controllers.papers import bibtex_of, can_start_browser

# Rows of paper_corpus(): 0 Vaswani (arXiv), 1 Müller (DOI and page), 3 no abstract
# (OpenReview), 4 no id and no link, 5 and 6 conference text.
NO_LINK, PARAGRAPH = 4, 5


def app_with_browser(monkeypatch, available: bool = True):
    app = make_app(corpus=paper_corpus())
    opened: list[str] = []
    app.papers.browser_available = available

    def opener(url: str, done) -> None:
        opened.append(url)  # and nothing more: a browser that opened says nothing back

    app.papers.opener = opener
    return app, opened, record_notifications(app, monkeypatch)


async def move_to(pilot, row: int) -> None:
    pilot.app.abstract_list.cursor = row
    await pilot.pause()


async def test_w_opens_the_page_and_W_the_pdf(monkeypatch: pytest.MonkeyPatch) -> None:
    app, opened, said = app_with_browser(monkeypatch)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("w")
        await pilot.press("W")
        assert opened == ["https://arxiv.org/abs/1706.03762", "https://arxiv.org/pdf/1706.03762"]
        assert said[-2:] == [
            "Opening the page: https://arxiv.org/abs/1706.03762",
            "Opening the PDF: https://arxiv.org/pdf/1706.03762",
        ]


async def test_without_a_browser_w_copies_the_link_and_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, opened, said = app_with_browser(monkeypatch, available=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await move_to(pilot, 1)
        await pilot.press("w")
        assert opened == []
        assert app.clipboard == "https://proceedings.mlr.press/v202/muller23a.html"
        assert "No browser can start here" in said[-1]


async def test_a_browser_that_fails_copies_the_link(monkeypatch: pytest.MonkeyPatch) -> None:
    app, _, said = app_with_browser(monkeypatch)
    # As webbrowser answers: from the thread that tried.
    app.papers.opener = lambda url, done: threading.Thread(target=done, args=(False,)).start()
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("w")
        await wait_until(pilot, lambda: app.clipboard != "")
        assert app.clipboard == "https://arxiv.org/abs/1706.03762"
        assert "No browser could be started" in said[-1]


async def test_no_link_known_is_said_for_a_paper_and_for_conference_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    app, opened, said = app_with_browser(monkeypatch)
    async with app.run_test(size=(120, 36)) as pilot:
        await move_to(pilot, NO_LINK)
        await pilot.press("w", "W", "Y")
        assert opened == []
        assert said[-3].startswith("No page link known for this paper")
        assert said[-2].startswith("No PDF link known for this paper")
        assert said[-1].startswith("No link known for this paper")
        await move_to(pilot, PARAGRAPH)
        await pilot.press("w", "y")
        assert opened == []
        assert said[-2].startswith("No link known: this abstract comes from conference text")
        assert said[-1].startswith("No id to copy: this abstract comes from conference text")
        assert app.clipboard == ""


async def test_y_copies_the_best_id_and_Y_the_link(monkeypatch: pytest.MonkeyPatch) -> None:
    app, _, said = app_with_browser(monkeypatch)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("y")
        assert app.clipboard == "1706.03762"
        assert said[-1] == "Copied the arXiv id 1706.03762"
        await move_to(pilot, 1)
        await pilot.press("y")
        assert app.clipboard == "10.5555/icml.2023.1234"
        assert said[-1] == "Copied the DOI 10.5555/icml.2023.1234"
        await pilot.press("Y")
        assert app.clipboard == "https://proceedings.mlr.press/v202/muller23a.html"
        await move_to(pilot, NO_LINK)
        await pilot.press("y")
        assert said[-1].startswith("No id to copy: the source gives no DOI")


async def test_c_copies_the_bibtex_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    app, _, said = app_with_browser(monkeypatch)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("c")
        assert app.clipboard.startswith("@inproceedings{vaswani2017attention,\n")
        assert said[-1] == "Copied the BibTeX entry vaswani2017attention"
        await move_to(pilot, PARAGRAPH)
        await pilot.press("c")
        assert app.clipboard.startswith("@misc{iclr2023graph,\n")


def footer_keys(app) -> set[str]:
    """The keys the footer lists: the active bindings it shows (what Footer reads)."""
    return {k for k, active in app.screen.active_bindings.items() if active.binding.show}


async def test_the_paper_keys_are_in_the_footer_only_on_a_paper() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        assert {"w", "c"} <= footer_keys(app)
        await move_to(pilot, PARAGRAPH)
        await pilot.pause()
        assert not {"w", "c"} & footer_keys(app)


async def test_help_names_each_paper_key_once() -> None:
    app = make_app(corpus=paper_corpus())
    async with app.run_test(size=(160, 45)):
        main = dict(app.help_sections()[0][1])
        assert main["w"] == "Open the paper's page in the browser"
        assert main["W"] == "Open the paper's PDF in the browser"
        assert main["c"] == "Copy the paper's BibTeX entry"
        keys = [k for k, _ in app.help_sections()[0][1]]
        assert keys.count("w") == 1 and keys.count("y") == 1


def test_no_display_means_no_browser_unless_one_is_named() -> None:
    assert not can_start_browser({}, "linux")
    assert can_start_browser({"DISPLAY": ":0"}, "linux")
    assert can_start_browser({"WAYLAND_DISPLAY": "wayland-0"}, "linux")
    assert can_start_browser({"BROWSER": "firefox"}, "linux")
    assert can_start_browser({}, "darwin")


def test_the_copied_entry_is_the_exports_entry() -> None:
    corpus = paper_corpus()
    key, entry = bibtex_of(corpus.abstracts[1])
    assert key == "muller2023sparse"
    assert entry.startswith("@inproceedings{muller2023sparse,\n")
    assert r"  title = {Sparse Recovery with $\ell_1$ Penalties and {BERT} Features}," in entry
    assert "  author = {Müller, Jörg and Ńowak, Zofia}," in entry
    assert "  year = {2023}," in entry and "  doi = {10.5555/icml.2023.1234}," in entry
    key, vaswani = bibtex_of(corpus.abstracts[0])
    assert "  eprint = {1706.03762},\n  archivePrefix = {arXiv}," in vaswani
    assert "  pages = {5998--6008}," in vaswani and "  abstract = {The dominant" in vaswani
    _, journal = bibtex_of(corpus.abstracts[3])
    assert journal.startswith("@article{mueller2024survey,")
    assert "  journal = {Transactions on Machine Learning Research}," in journal
    arxiv_only = Paper(title="On Things", authors=(Author("Ng", "Ann"),), year=2021)
    assert bibtex_of(paper_abstract(arxiv_only, "", 1))[1].startswith("@misc{ng2021things,")
