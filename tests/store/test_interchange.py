"""RIS and CSL-JSON exports, as Zotero imports them: plain-text titles and names, the
abstract as its source, the same keys as the BibTeX export."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from tests.store.citing import library
from tests.store.helpers import PAPER, PAPER_TEXT, PARAGRAPHS, make_abstract, make_paper_abstract
from tui.commands.export import main_export, render
from tui.corpus.paper import Author, Paper
from tui.store.db import Store
from tui.store.export import merge, parse_export, to_json
from tui.store.formats import Item
from tui.store.importcheck import ImportProblem
from tui.store.interchange import csl_item, ris_record
from tui.store.operations import SetBookmark
from tui.store.records import (
    NoteRow,
    Snapshot,
    StoreData,
)

A = make_abstract(PARAGRAPHS[0])


LIBRARY = library()


def _data() -> StoreData:
    return StoreData(
        records={a.id: Snapshot.of(a) for a in LIBRARY},
        bookmarks={a.id: 1.0 for a in LIBRARY},
        notes={LIBRARY[2].id: NoteRow("Read §3 & the 100% proof\nagain", 1, 1.0)},
        tags={LIBRARY[1].id: {"to-cite": 1.0}},
    )


EXPECTED_RIS = r"""TY  - CPAPER
ID  - vaswani2017attention
TI  - Attention Is All You Need: BERT & Friends at 100% of O(n²)
AU  - Vaswani, Ashish
AU  - Müller, Jörg
AU  - von Neumann, John
T2  - Advances in Neural Information Processing Systems
PY  - 2017
SP  - 5998
EP  - 6008
PB  - Curran Associates
DO  - 10.5555/3295222.3295349
UR  - https://papers.nips.cc/paper/7181
UR  - https://arxiv.org/abs/1706.03762
L1  - https://arxiv.org/pdf/1706.03762
KW  - transformers
KW  - attention
AB  - The dominant sequence transduction models are based on complex recurrent networks. We propose the Transformer, based solely on attention mechanisms, at $O(n^2)$ cost.
ER  -

TY  - GEN
ID  - iclr2023prove
TI  - We prove bounds on the generalization error of convolutional networks
T2  - ICLR 2023
PY  - 2023
AB  - We prove bounds on the generalization error of convolutional networks. The bounds are in terms of the training loss, the number of parameters and the Lipschitz constant of the loss.
ER  -

TY  - JOUR
ID  - celik2021olcek
TI  - Ölçek: Sparse GP Regression in 𝒪(n)
AU  - Çelik, Ayşe
AU  - de la Fuente, José María
T2  - Journal of Machine Learning Research
PY  - 2021
SP  - 1
EP  - 40
VL  - 22
IS  - 5
AB  - We reduce the cost of Gaussian process regression by 90\% with inducing points $u_1, \dots, u_m$, keeping $x^2$ terms exact.
N1  - Read §3 & the 100% proof again
ER  -

TY  - GEN
ID  - kaplan2020scaling
TI  - Scaling Laws for Neural Language Models
AU  - Kaplan, Jared
AU  - McCandlish, Sam
PY  - 2020
DA  - 2020/01/23
UR  - https://arxiv.org/abs/2001.08361v1
KW  - cs.LG
KW  - stat.ML
KW  - to-cite
AB  - We study empirical scaling laws for language model performance on the loss.
ER  -

TY  - RPRT
ID  - gemini2023gemini
TI  - Gemini: A Family of Highly Capable Multimodal Models
AU  - Gemini Team
AU  - Anil, Rohan
PY  - 2023
UR  - https://example.org/gemini?x={1}
AB  - This report introduces a new family of multimodal models.
ER  -
""".replace("ER  -\n", "ER  - \n")  # RIS ends a record with "ER  - ", its space kept

EXPECTED_CSL = [
    {
        "id": "vaswani2017attention",
        "citation-key": "vaswani2017attention",
        "type": "paper-conference",
        "title": "Attention Is All You Need: BERT & Friends at 100% of O(n²)",
        "author": [
            {"family": "Vaswani", "given": "Ashish"},
            {"family": "Müller", "given": "Jörg"},
            {"family": "von Neumann", "given": "John"},
        ],
        "issued": {"date-parts": [[2017]]},
        "container-title": "Advances in Neural Information Processing Systems",
        "page": "5998-6008",
        "publisher": "Curran Associates",
        "DOI": "10.5555/3295222.3295349",
        # Zotero's place for any paper's arXiv id: a line of the note (its Extra field).
        "note": "arXiv: 1706.03762",
        "URL": "https://papers.nips.cc/paper/7181",
        "keyword": "transformers, attention",
        "abstract": PAPER_TEXT,
    },
    {
        "id": "iclr2023prove",
        "citation-key": "iclr2023prove",
        "type": "document",
        "title": "We prove bounds on the generalization error of convolutional networks",
        "issued": {"date-parts": [[2023]]},
        "container-title": "ICLR 2023",
        "abstract": LIBRARY[4].text,
    },
    {
        "id": "celik2021olcek",
        "citation-key": "celik2021olcek",
        "type": "article-journal",
        "title": "Ölçek: Sparse GP Regression in 𝒪(n)",
        "author": [
            {"family": "Çelik", "given": "Ayşe"},
            {"family": "de la Fuente", "given": "José María"},
        ],
        "issued": {"date-parts": [[2021]]},
        "container-title": "Journal of Machine Learning Research",
        "page": "1-40",
        "volume": "22",
        "issue": "5",
        "abstract": LIBRARY[2].text,
        "note": "Read §3 & the 100% proof\nagain",
    },
    {
        "id": "kaplan2020scaling",
        "citation-key": "kaplan2020scaling",
        "type": "article",
        "title": "Scaling Laws for Neural Language Models",
        "author": [
            {"family": "Kaplan", "given": "Jared"},
            {"family": "McCandlish", "given": "Sam"},
        ],
        "issued": {"date-parts": [[2020, 1, 23]]},
        "publisher": "arXiv",
        "number": "arXiv:2001.08361",
        "URL": "https://arxiv.org/abs/2001.08361v1",
        "keyword": "cs.LG, stat.ML, to-cite",
        "abstract": LIBRARY[1].text,
    },
    {
        "id": "gemini2023gemini",
        "citation-key": "gemini2023gemini",
        "type": "report",
        "title": "Gemini: A Family of Highly Capable Multimodal Models",
        "author": [{"family": "Gemini Team"}, {"family": "Anil", "given": "Rohan"}],
        "issued": {"date-parts": [[2023]]},
        "URL": "https://example.org/gemini?x={1}",
        "abstract": LIBRARY[3].text,
    },
]


def test_ris_export_gives_each_paper_its_fields() -> None:
    assert render(_data(), "ris", bookmarked=False, with_notes=False) == EXPECTED_RIS


def test_csl_json_export_gives_each_paper_its_fields() -> None:
    text = render(_data(), "csljson", bookmarked=False, with_notes=False)
    assert text is not None and text.endswith("]\n")
    assert json.loads(text) == EXPECTED_CSL
    assert '"family": "Müller"' in text  # UTF-8, as written
    # One value per line, indented by one as the JSON export is: a diff of two reads well.
    assert text.startswith('[\n {\n  "id": "vaswani2017attention",\n  "citation-key": ')
    # Key order as Zotero writes it, so a diff of two exports reads well.
    assert list(json.loads(text)[0]) == list(EXPECTED_CSL[0])


def test_a_value_cannot_start_a_new_ris_line_or_send_controls() -> None:
    paper = Paper(title="Two\nlines \x1b[31m", authors=(Author("Doe\r\nER  - ", "J"),))
    abstract = make_paper_abstract(paper, "Text with\na break.")
    data = StoreData(records={abstract.id: Snapshot.of(abstract)}, bookmarks={abstract.id: 1.0})
    text = render(data, "ris", bookmarked=False, with_notes=False)
    assert text is not None
    assert text.splitlines() == [
        "TY  - GEN",
        "ID  - doelines",
        "TI  - Two lines ␛[31m",
        "AU  - Doe␍ ER -, J",
        "AB  - Text with a break.",
        "ER  - ",
    ]


@pytest.mark.parametrize("fmt", ["ris", "csljson"])
def test_the_command_writes_ris_and_csl_json(
    fmt: str, tmp_path: Path, data_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = Store.open(data_dir)
    abstract = make_paper_abstract(PAPER, PAPER_TEXT)
    store.apply([SetBookmark(abstract.id, True, Snapshot.of(abstract), 1.0)])
    store.close()
    target = tmp_path / f"out.{fmt}"
    assert main_export(["--format", fmt, "-o", str(target)]) == 0
    data = StoreData(records={abstract.id: Snapshot.of(abstract)}, bookmarks={abstract.id: 1.0})
    expected = render(data, fmt, bookmarked=False, with_notes=False)
    assert target.read_text(encoding="utf-8") == expected


def _item(paper: Paper) -> Item:
    return Item("i", Snapshot("Text.", "h", paper=paper), False, None, None, ())


def test_ids_and_dates_each_find_their_ris_tag_and_csl_field() -> None:
    openreview = Paper(
        title="Open",
        authors=(Author("Doe", "Jane"),),
        date="2020-05",
        year=2020,
        ids=(("openreview", "AbCd12"), ("isbn", "978-3-16-148410-0")),
        links=(("pdf", "https://openreview.net/pdf?id=AbCd12"),),
        extra=(("pages", "e1234"),),
    )
    assert ris_record(_item(openreview), "k").splitlines() == [
        "TY  - GEN",
        "ID  - k",
        "TI  - Open",
        "AU  - Doe, Jane",
        "PY  - 2020",
        "DA  - 2020/05",
        "SP  - e1234",
        "SN  - 978-3-16-148410-0",
        "UR  - https://openreview.net/forum?id=AbCd12",
        "L1  - https://openreview.net/pdf?id=AbCd12",
        "AB  - Text.",
        "ER  - ",
    ]
    assert csl_item(_item(openreview), "k") == {
        "id": "k",
        "citation-key": "k",
        "type": "document",
        "title": "Open",
        "author": [{"family": "Doe", "given": "Jane"}],
        "issued": {"date-parts": [[2020, 5]]},
        "page": "e1234",
        "ISBN": "978-3-16-148410-0",
        "URL": "https://openreview.net/forum?id=AbCd12",
        "abstract": "Text.",
    }


def test_a_preprint_is_linked_to_arxiv_unless_it_has_a_doi() -> None:
    preprint = Paper(title="Pre", date="May 2020", year=2020, ids=(("arxiv", "2005.00001v2"),))
    assert ris_record(_item(preprint), "k").splitlines()[3:5] == [
        "PY  - 2020",
        "UR  - https://arxiv.org/abs/2005.00001",
    ]
    assert csl_item(_item(preprint), "k") == {
        "id": "k",
        "citation-key": "k",
        "type": "article",
        "title": "Pre",
        "issued": {"date-parts": [[2020]]},
        "publisher": "arXiv",
        "number": "arXiv:2005.00001",
        "URL": "https://arxiv.org/abs/2005.00001",
        "abstract": "Text.",
    }
    published = Paper(
        title="Pub", kind="article", ids=(("doi", "10.1234/x"), ("arxiv", "2005.00002"))
    )
    assert csl_item(_item(published), "k") == {
        "id": "k",
        "citation-key": "k",
        "type": "article-journal",
        "title": "Pub",
        "DOI": "10.1234/x",
        "note": "arXiv: 2005.00002",
        "abstract": "Text.",
    }
    assert ris_record(_item(published), "k").splitlines()[3:5] == [
        "DO  - 10.1234/x",
        "UR  - https://arxiv.org/abs/2005.00002",
    ]


def test_a_date_that_is_only_a_year_is_not_repeated_as_a_ris_date() -> None:
    assert ris_record(_item(Paper(title="Y", date="2020", year=2020)), "k").splitlines()[3:5] == [
        "PY  - 2020",
        "AB  - Text.",
    ]


def test_the_import_report_counts_each_note_added_and_each_copy_kept(tmp_path: Path) -> None:
    """`abstracts import` says how many notes it added and how many it kept as copies
    beside a different local note: two of each here, and an identical note is neither."""
    source = Store.open(tmp_path / "source")
    for abstract_id, text in (("n1", "new one"), ("n2", "new two"), ("c1", "theirs 1")):
        source.save_note(abstract_id, text)
    source.save_note("c2", "theirs 2")
    source.save_note("same", "identical")
    doc = parse_export(to_json(source.load()))
    source.close()
    target = Store.open(tmp_path / "target")
    for abstract_id, text in (("c1", "mine 1"), ("c2", "mine 2"), ("same", "identical")):
        target.save_note(abstract_id, text)
    report = merge(target, doc, "import")
    assert (report.notes, report.copies) == (2, 2)
    assert sorted(report.conflicts) == ["c1", "c2"]
    again = merge(target, doc, "import")  # importing twice changes nothing
    assert (again.notes, again.copies, again.changed) == (0, 0, False)
    target.close()


def test_an_import_adds_what_is_new_after_what_is_already_there(tmp_path: Path) -> None:
    """A record already stored is skipped, not the end of the import: the records after
    it are added too, and the counts say exactly what was added."""
    store = Store.open(tmp_path)
    store.apply(
        [SetBookmark("have", True, Snapshot("Had.", "Had", "/d/a.txt", 2, "C", None, None), 1.0)]
    )
    bare = {"id": "bare", "text": "Bare record.", "headline": "Bare"}  # no source, position
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "records": [{"id": "have", "text": "Had.", "headline": "Had"}, bare],
        "bookmarks": [
            {"id": "have", "created": 1.0},  # already bookmarked: not counted
            {"id": "b1", "created": 2.0},
            {"id": "b2", "created": 4.0},
        ],
        "reads": [{"id": "b1", "read_at": 3.0}],
    }
    report = merge(store, doc, "import")
    assert (report.records, report.bookmarks, report.reads) == (1, 2, 1)
    record = store.load().records["bare"]
    assert (record.source, record.position, record.collection) == ("", 0, "")
    store.close()


def test_an_import_counts_each_dismissal_and_keeps_when_each_tag_was_put_on(
    tmp_path: Path,
) -> None:
    store = Store.open(tmp_path)
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "dismissals": [{"id": "d1", "created": 1.0}, {"id": "d2", "created": 2.0}],
        "tags": [
            {"id": "t1", "tag": "to-cite", "created": 5.0},
            {"id": "t1", "tag": "later"},  # no time in the file: the import's
        ],
    }
    before = time.time()
    report = merge(store, doc, "import")
    after = time.time()
    assert (report.dismissals, report.tags) == (2, 2)
    tags = store.load().tags["t1"]
    assert tags["to-cite"] == 5.0 and before <= tags["later"] <= after
    store.close()


def test_an_import_failing_half_way_changes_nothing_and_says_the_file_is_malformed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Should the checks ever miss a bad field, the import still stops with a message
    (not a traceback), and what it wrote before the bad field is rolled back."""
    from tui.store import export

    monkeypatch.setattr(export, "check_document", lambda doc: None)  # a gap in the checks
    store = Store.open(tmp_path)
    doc = {
        "format": "abstracts-export",
        "version": 1,
        "bookmarks": [{"id": "fine", "created": 1.0}, {"id": "no time"}],
    }
    with pytest.raises(ImportProblem, match=r"^malformed export \(KeyError"):
        merge(store, doc, "import")
    assert store.load().bookmarks == {}
    store.close()
