"""Records follow a paper by its identifiers: a new version with new text, or a DOI
gained since (which changes the paper's id), keeps the reader's marks, notes and tags."""

from __future__ import annotations

from pathlib import Path

from tui.corpus.load import load_corpus
from tui.corpus.model import Abstract, Collection, Corpus, SourceRef
from tui.corpus.paper import Paper
from tui.store.attach import SAME_PAPER, match_identities, match_orphans
from tui.store.userdata import UserData

V1 = (
    "We show that sparse attention over long documents keeps the accuracy of dense "
    "attention while its memory grows linearly with the length of the input."
)
V2 = "A rewritten abstract: linear-memory sparse attention, now with proofs and code."


def _paper(key: str, text: str, ids: tuple[tuple[str, str], ...]) -> Abstract:
    paper = Paper("Sparse Attention", ids=ids)
    return Abstract(key, text, Collection("arXiv"), [SourceRef(Path("a.xml"), 1)], paper=paper)


def test_an_orphan_goes_to_the_loaded_paper_sharing_an_identifier_whatever_its_text() -> None:
    loaded = _paper("new", V2, (("doi", "10.1/x"), ("arxiv", "2612.00042")))
    other = _paper("other", V1, (("arxiv", "2612.00099"),))
    corpus = Corpus([loaded, other], [], [])
    was = Paper("Sparse Attention", ids=(("arxiv", "2612.00042"),))
    moved, unsure = match_orphans({"old": V1}, corpus, {"old": was})
    assert [(m.old_id, m.new_id, m.score) for m in moved] == [("old", "new", SAME_PAPER)]
    assert unsure == []


def test_an_identifier_two_loaded_abstracts_share_decides_nothing() -> None:
    one = _paper("one", V2, (("arxiv", "2612.00042"),))
    two = _paper("two", V2 + " More.", (("arxiv", "2612.00042"),))
    corpus = Corpus([one, two], [], [])
    was = Paper("Sparse Attention", ids=(("arxiv", "2612.00042"),))
    assert match_identities({"old": was}, corpus) == []


def test_a_citekey_alone_is_not_an_identity() -> None:
    loaded = _paper("new", V2, (("citekey", "smith2020"),))
    was = Paper("Sparse Attention", ids=(("citekey", "smith2020"),))
    assert match_identities({"old": was}, Corpus([loaded], [], [])) == []


def _feed(path: Path, version: int, text: str, doi: str | None) -> None:
    doi_line = f"<arxiv:doi>{doi}</arxiv:doi>" if doi else ""
    path.write_text(
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">'
        "<title>arXiv: cs.LG</title><id>http://arxiv.org/api/x</id>"
        f"<entry><id>http://arxiv.org/abs/2612.00042v{version}</id>"
        "<published>2026-12-01T00:00:00Z</published>"
        f"<updated>2026-12-0{version}T00:00:00Z</updated>"
        f"<title>Sparse Attention</title><summary>{text}</summary>{doi_line}"
        "<author><name>Ada Lovelace</name></author></entry></feed>",
        encoding="utf-8",
    )


def test_marks_notes_and_tags_stay_on_a_paper_that_gains_a_doi_and_new_text(
    tmp_path: Path,
) -> None:
    library, data_dir = tmp_path / "library.xml", tmp_path / "data"
    _feed(library, 1, V1, None)
    before = load_corpus([library]).abstracts[0]
    data = UserData.open(data_dir)
    try:
        data.attach(load_corpus([library]))
        data.set_bookmark(before, True)
        data.save_note(before, "read the proofs")
        data.set_tags(on=[(before.id, "to-cite")])
        assert data.flush()
    finally:
        data.close()

    _feed(library, 2, V2, "10.5555/sparse.2026")
    corpus = load_corpus([library])
    (after,) = corpus.abstracts
    assert after.id != before.id  # the DOI now names the paper
    data = UserData.open(data_dir)
    try:
        report = data.attach(corpus)
        assert [(m.old_id, m.new_id) for m in report.reattached] == [(before.id, after.id)]
        assert report.orphans == []
        assert after.id in data.bookmarked_ids()
        assert data.note(after.id) == "read the proofs"
        assert data.tags_of(after.id) == {"to-cite"}
    finally:
        data.close()
