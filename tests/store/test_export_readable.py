"""Exports a reader can use: Markdown as the reader shows it,
notes with their lines, readable BibTeX keys and full titles, and nothing written
when there is nothing to export."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest

from tui.commands.export import EXIT_NOTHING, main_export, main_import, render
from tui.store.formats import bib_keys, bib_title
from tui.store.records import Snapshot, StoreData

LATEX = "We study ``robust'' $\\alpha$-divergences in $\\mathbb{R}^d$. It works."
LONG = (
    "Learning representations that transfer across many tasks and many domains at once is a "
    "central goal of machine learning research, and we show how to reach it with one simple "
    "objective. It works."
)
NOTE = "first line\nsecond line\n\n- a list item\n```not a fence```"


def _record(i: str, text: str, headline: str, venue: str = "ICLR", year: int = 2023) -> dict:
    return {
        "id": i,
        "text": text,
        "headline": headline,
        "source": "/c/f.txt",
        "position": 1,
        "collection": f"{venue} {year} Papers",
        "venue": venue,
        "year": year,
    }


def _store(tmp_path: Path, data_dir: Path, **sections: object) -> None:
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"format": "abstracts-export", "version": 1, **sections}))
    assert main_import([str(path), "--data-dir", str(data_dir)]) == 0


def _export(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    capsys.readouterr()
    assert main_export(list(argv)) == 0
    return capsys.readouterr().out


def test_markdown_renders_latex_as_the_reader_shows_it(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _store(
        tmp_path,
        data_dir,
        records=[_record("r", LATEX, "We study")],
        bookmarks=[{"id": "r", "created": 1.0}],
    )
    out = _export(capsys, "--format", "md")
    assert "> We study “robust” α-divergences in ℝᵈ. It works." in out
    assert "``" not in out and "$" not in out


def test_markdown_keeps_a_notes_lines(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _store(
        tmp_path,
        data_dir,
        records=[_record("r", "Text.", "Text.")],
        notes=[{"id": "r", "text": NOTE}],
    )
    out = _export(capsys, "--format", "md")
    # A fence longer than any run of backticks in the note: the note cannot close it.
    assert f"\n````text\n{NOTE}\n````\n" in out


def test_bibtex_keys_are_readable_and_unique() -> None:
    def snap(headline: str, venue: str | None = "ICLR", year: int | None = 2023) -> Snapshot:
        return Snapshot("", headline, collection="Some Workshop", venue=venue, year=year)

    keys = bib_keys(
        [
            snap("Graph neural networks for molecules."),
            snap("The graph is all you need."),
            snap("Émigré détente: a study."),
            snap("On the 3 αβ things", venue="NeurIPS", year=2022),
            snap("Graph transformers.", venue=None, year=None),
            snap("?!"),
            snap("Graph neural networks, again."),
        ]
    )
    assert keys == [
        "iclr2023grapha",
        "iclr2023graphb",
        "iclr2023emigre",
        "neurips2022things",
        "workshopgraph",
        "iclr2023",
        "iclr2023graphc",
    ]


def test_bibtex_keys_never_collide_with_a_suffixed_key() -> None:
    snaps = [Snapshot("", h, venue="ICLR", year=2023) for h in ("Grapha.", "Graph.", "Graph.")]
    keys = bib_keys(snaps)
    assert keys == ["iclr2023grapha", "iclr2023graphb", "iclr2023graphc"]


def test_bibtex_title_is_the_full_first_sentence(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cut = LONG[:80] + "…"
    assert bib_title(Snapshot(LONG, cut)) == LONG.split(". It")[0]
    assert (
        bib_title(Snapshot(LATEX, "We study “robust”…")) == "We study “robust” α-divergences in ℝᵈ"
    )
    assert bib_title(Snapshot("", "A kept headline…")) == "A kept headline"
    _store(
        tmp_path,
        data_dir,
        records=[_record("r", LONG, cut)],
        bookmarks=[{"id": "r", "created": 1.0}],
    )
    library = bibtexparser.parse_string(_export(capsys, "--format", "bibtex"))
    assert library.failed_blocks == []
    (entry,) = library.entries
    assert entry.key == "iclr2023learning"
    assert entry.fields_dict["title"].value == LONG.split(". It")[0]


READ = {"reads": [{"id": "r", "read_at": 1.0}]}
NOTED = {"notes": [{"id": "r", "text": "a note"}]}
MARKED = {"bookmarks": [{"id": "r", "created": 1.0}]}


@pytest.mark.parametrize(
    ("sections", "argv", "why"),
    [
        (READ, [], "no bookmarks or notes"),
        ({}, ["--format", "json"], "no bookmarks, notes or read marks"),
        (NOTED, ["--bookmarked", "--format", "bibtex"], "no abstract is bookmarked"),
        (MARKED, ["--with-notes", "--format", "csv"], "no abstract has a note"),
        (NOTED, ["--bookmarked", "--with-notes"], "no bookmarked abstract has a note"),
    ],
)
def test_nothing_to_export_says_so_and_writes_nothing(
    sections: dict[str, object],
    argv: list[str],
    why: str,
    tmp_path: Path,
    data_dir: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    _store(tmp_path, data_dir, records=[_record("r", "Text.", "Text.")], **sections)
    target = tmp_path / "out.txt"
    capsys.readouterr()
    assert main_export([*argv, "-o", str(target)]) == EXIT_NOTHING
    out = capsys.readouterr()
    assert not target.exists()
    assert f"nothing to export: {why}" in out.err and "nothing written" in out.err
    assert main_export(argv) == EXIT_NOTHING
    assert capsys.readouterr().out == ""


def test_render_tells_nothing_from_something() -> None:
    empty = StoreData()
    for fmt in ("md", "json", "bibtex", "csv"):
        assert render(empty, fmt, bookmarked=False, with_notes=False) is None
    reads_only = StoreData(reads={"r": 1.0}, records={"r": Snapshot("Text.", "Text.")})
    assert render(reads_only, "md", bookmarked=False, with_notes=False) is None
    assert render(reads_only, "json", bookmarked=False, with_notes=False) is not None


def test_markdown_shows_tags_a_dismissal_and_a_note_as_typed(
    tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The line under the headline says "not interested" for a dismissed abstract, the tags
    have a line of their own, and the note's lines are kept to the last character, even
    where a line ends or starts with an X."""
    note = "Sizes compared: S, M, L, XX\nXXL wins; see figure X"
    _store(
        tmp_path,
        data_dir,
        records=[_record("r", "Text.", "Text")],
        notes=[{"id": "r", "text": note}],
        tags=[{"id": "r", "tag": "later"}, {"id": "r", "tag": "graphs"}],
        dismissals=[{"id": "r", "created": 1.0}],
    )
    out = _export(capsys, "--format", "md")
    assert out.split("\n\n", 1)[1] == "\n".join(
        [
            "## Text",
            "",
            "*ICLR 2023* · /c/f.txt (#1) · id `r` · not interested",
            "",
            "Tags: #graphs #later",
            "",
            "> Text.",
            "",
            "**Note**",
            "",
            "```text",
            "Sizes compared: S, M, L, XX",
            "XXL wins; see figure X",
            "```",
            "",
            "---",
            "",
        ]
    )


def test_bibtex_title_drops_one_full_stop_but_keeps_an_ellipsis() -> None:
    """Bibliography styles add their own full stop; an ellipsis the author wrote stays."""
    assert bib_title(Snapshot("", "Scaling laws hold...")) == "Scaling laws hold..."
    # A headline cut just after a sentence (an imported record, its text not kept).
    assert bib_title(Snapshot("", "It works. …")) == "It works"


def test_a_bibtex_key_with_nothing_to_take_is_abstract() -> None:
    """No venue, collection or year, and no content word in the headline."""
    assert bib_keys([Snapshot("", "On the 42.")]) == ["abstract"]
    assert bib_keys([Snapshot("", "On the 42.")] * 2) == ["abstracta", "abstractb"]


def test_bibtex_keys_go_on_past_z_and_every_key_cites_one_entry() -> None:
    """After `z` come `aa`, `ab`... (letters BibTeX takes in a key). Two entries on
    "Grapha" took `iclr2023graphaa` and `iclr2023graphab` first: the 27th entry on
    "Graph" skips both, so no key is given twice."""
    graph = Snapshot("", "Graph.", venue="ICLR", year=2023)
    keys = bib_keys([graph] * 28)
    assert keys[:2] == ["iclr2023grapha", "iclr2023graphb"]
    assert keys[25:] == ["iclr2023graphz", "iclr2023graphaa", "iclr2023graphab"]
    grapha = Snapshot("", "Grapha.", venue="ICLR", year=2023)
    mixed = bib_keys([grapha, grapha] + [graph] * 27)
    assert mixed[:2] == ["iclr2023graphaa", "iclr2023graphab"]
    assert mixed[-1] == "iclr2023graphac"
    assert len(set(mixed)) == len(mixed)
