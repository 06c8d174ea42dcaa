"""Write the same papers in every format the app reads, for the benches.

The papers are the development set's titles and abstracts (`iclr-titles.jsonl`,
or any file of `{"title", "year", "abstract"}` lines), with authors, arXiv ids and
DOIs made up deterministically (the titles file has none): authors are drawn from a
pool of given and family names (some with diacritics), so a bench can check that
`author:` finds every paper of an author.

    from paperfiles import load_papers, write
    papers = load_papers(path, limit=10_000)
    write("bibtex", papers, out_path)
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from xml.sax.saxutils import escape as _xml_escape

GIVEN = [
    "Ada",
    "Alan",
    "Grace",
    "Yoshua",
    "Geoffrey",
    "Yann",
    "Fei-Fei",
    "Daphne",
    "Judea",
    "Michael",
    "Jürgen",
    "Sepp",
    "Ilya",
    "Oriol",
    "Kaiming",
    "Ross",
    "Pieter",
    "Sergey",
    "Chelsea",
    "Percy",
    "Christopher",
    "Dan",
    "Luke",
    "Noam",
    "Ashish",
    "Łukasz",
    "Jakob",
    "Aidan",
    "Niki",
    "Illia",
    "Ian",
    "Diederik",
    "Max",
    "Danilo",
    "Shakir",
    "Durk",
    "Tim",
    "Alec",
    "Jeff",
    "Quoc",
    "Mingxing",
    "Zoë",
    "Søren",
    "Émilie",
    "José",
    "María",
    "Andrés",
    "Zhang",
    "Wei",
    "Li",
    "Na",
    "Hiroshi",
    "Yuki",
    "Priya",
    "Arjun",
    "Aditi",
    "Olusegun",
]
FAMILY = [
    "Lovelace",
    "Turing",
    "Hopper",
    "Bengio",
    "Hinton",
    "LeCun",
    "Li",
    "Koller",
    "Pearl",
    "Jordan",
    "Schmidhuber",
    "Hochreiter",
    "Sutskever",
    "Vinyals",
    "He",
    "Girshick",
    "Abbeel",
    "Levine",
    "Finn",
    "Liang",
    "Manning",
    "Jurafsky",
    "Zettlemoyer",
    "Shazeer",
    "Vaswani",
    "Kaiser",
    "Uszkoreit",
    "Gomez",
    "Parmar",
    "Polosukhin",
    "Goodfellow",
    "Kingma",
    "Welling",
    "Rezende",
    "Mohamed",
    "Salimans",
    "Radford",
    "Dean",
    "Le",
    "Tan",
    "Müller",
    "Schölkopf",
    "Nørskov",
    "García",
    "Pérez",
    "Núñez",
    "Wang",
    "Zhang",
    "Chen",
    "Liu",
    "Yamada",
    "Tanaka",
    "Sharma",
    "Gupta",
    "Iyer",
    "Okafor",
    "Adeyemi",
    "Østergaard",
    "Dubois",
    "Lefèvre",
    "Kowalski",
    "Nowak",
]


@dataclass(frozen=True)
class FakePaper:
    """One paper of the bench: title, abstract, year, made-up authors and ids."""

    n: int
    title: str
    abstract: str
    year: int
    authors: tuple[tuple[str, str], ...]  # (given, family)
    arxiv: str
    doi: str

    @property
    def citekey(self) -> str:
        word = next((w for w in self.title.lower().split() if w.isalpha() and len(w) > 3), "x")
        family = self.authors[0][1].lower().replace(" ", "")
        return f"{family}{self.year}{word}{self.n}"


def load_papers(path: Path, limit: int | None = None, seed: int = 7) -> list[FakePaper]:
    """The titles file's papers (distinct abstracts, in file order) with made-up authors and ids."""
    rng = random.Random(seed)
    out: list[FakePaper] = []
    seen: set[str] = set()
    with path.open(encoding="utf-8") as f:
        for line in f:
            row = json.loads(line)
            if row["abstract"] in seen:
                continue
            seen.add(row["abstract"])
            n = len(out)
            authors = tuple(
                (rng.choice(GIVEN), rng.choice(FAMILY)) for _ in range(rng.choice((1, 2, 3, 4, 6)))
            )
            year = int(row.get("year") or 2020)
            arxiv = f"{year % 100:02d}{rng.randint(1, 12):02d}.{10000 + n:05d}"
            out.append(
                FakePaper(n, row["title"], row["abstract"], year, authors, arxiv, f"10.5555/b.{n}")
            )
            if limit is not None and len(out) >= limit:
                break
    return out


def repeat_to(papers: list[FakePaper], count: int) -> list[FakePaper]:
    """`count` papers, the list repeated with distinct ids and a marker in the abstract."""
    out = list(papers)
    while len(out) < count:
        p = papers[len(out) % len(papers)]
        n = len(out)
        out.append(
            FakePaper(
                n,
                p.title,
                f"{p.abstract} (copy {n})",
                p.year,
                p.authors,
                f"{p.year % 100:02d}01.{n:05d}",
                f"10.5555/c.{n}",
            )
        )
    return out


_XML_FORBIDDEN = dict.fromkeys([*range(0x00, 0x09), 0x0B, 0x0C, *range(0x0E, 0x20)])


def escape(text: str) -> str:
    """Text for XML: markup escaped, and the control characters XML 1.0 forbids dropped
    (the development set has a few; a real feed cannot)."""
    return _xml_escape(text.translate(_XML_FORBIDDEN))


def _bib_escape(text: str) -> str:
    return text.replace("{", "\\{").replace("}", "\\}").replace("&", "\\&").replace("%", "\\%")


def bibtex(papers: list[FakePaper]) -> str:
    """A Zotero-like BibTeX library (title, author, booktitle, year, doi, eprint, abstract)."""
    parts = ["% Exported by a reference manager\n"]
    for p in papers:
        authors = " and ".join(f"{fam}, {given}" for given, fam in p.authors)
        parts.append(
            f"@inproceedings{{{p.citekey},\n"
            f"  title = {{{_bib_escape(p.title)}}},\n"
            f"  author = {{{authors}}},\n"
            f"  booktitle = {{International Conference on Learning Representations}},\n"
            f"  year = {{{p.year}}},\n"
            f"  doi = {{{p.doi}}},\n"
            f"  eprint = {{{p.arxiv}}},\n"
            f"  archivePrefix = {{arXiv}},\n"
            f"  abstract = {{{_bib_escape(p.abstract)}}},\n"
            "}\n\n"
        )
    return "".join(parts)


def ris(papers: list[FakePaper]) -> str:
    """A RIS file as Zotero writes it."""
    parts = []
    for p in papers:
        lines = ["TY  - CONF", f"TI  - {p.title}"]
        lines += [f"AU  - {fam}, {given}" for given, fam in p.authors]
        lines += [
            "T2  - International Conference on Learning Representations",
            f"PY  - {p.year}",
            f"DO  - {p.doi}",
            f"UR  - https://arxiv.org/abs/{p.arxiv}",
            f"AB  - {p.abstract}",
            "ER  - ",
            "",
        ]
        parts.append("\r\n".join(lines) + "\r\n")
    return "".join(parts)


def atom(papers: list[FakePaper]) -> str:
    """An arXiv API answer (Atom), one entry per paper, version 1."""
    head = (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" '
        'xmlns:opensearch="http://a9.com/-/spec/opensearch/1.1/" '
        'xmlns:arxiv="http://arxiv.org/schemas/atom">\n'
        "  <title>arXiv Query: bench</title>\n"
        f"  <opensearch:totalResults>{len(papers)}</opensearch:totalResults>\n"
    )
    entries = []
    for p in papers:
        authors = "".join(
            f"    <author><name>{escape(f'{g} {f}')}</name></author>\n" for g, f in p.authors
        )
        entries.append(
            "  <entry>\n"
            f"    <id>http://arxiv.org/abs/{p.arxiv}v1</id>\n"
            f"    <updated>{p.year}-01-15T00:00:00Z</updated>\n"
            f"    <published>{p.year}-01-15T00:00:00Z</published>\n"
            f"    <title>{escape(p.title)}</title>\n"
            f"    <summary>{escape(p.abstract)}</summary>\n"
            f"{authors}"
            f'    <link href="http://arxiv.org/abs/{p.arxiv}v1" rel="alternate" type="text/html"/>\n'
            f'    <link title="pdf" href="http://arxiv.org/pdf/{p.arxiv}v1" rel="related" '
            'type="application/pdf"/>\n'
            '    <arxiv:primary_category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n'
            '    <category term="cs.LG" scheme="http://arxiv.org/schemas/atom"/>\n'
            "  </entry>\n"
        )
    return head + "".join(entries) + "</feed>\n"


def rss(papers: list[FakePaper]) -> str:
    """An arXiv listing feed (RSS 2.0, rss.arxiv.org shape)."""
    items = []
    for p in papers:
        creators = ", ".join(f"{g} {f}" for g, f in p.authors)
        items.append(
            "<item>\n"
            f"<title>{escape(p.title)}</title>\n"
            f"<link>https://arxiv.org/abs/{p.arxiv}</link>\n"
            f"<description>arXiv:{p.arxiv}v1 Announce Type: new \nAbstract: "
            f"{escape(p.abstract)}</description>\n"
            f'<guid isPermaLink="false">oai:arXiv.org:{p.arxiv}v1</guid>\n'
            "<category>cs.LG</category>\n"
            f"<dc:creator>{escape(creators)}</dc:creator>\n"
            "</item>\n"
        )
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<rss xmlns:dc="http://purl.org/dc/elements/1.1/" version="2.0">\n<channel>\n'
        "<title>cs.LG updates on arXiv.org</title>\n<link>http://rss.arxiv.org/rss/cs.LG</link>\n"
        "<description>cs.LG updates</description>\n" + "".join(items) + "</channel>\n</rss>\n"
    )


def s2_json(papers: list[FakePaper]) -> str:
    """A Semantic Scholar API answer: `{"data": [...]}`."""
    data = [
        {
            "paperId": f"{p.n:040x}",
            "externalIds": {"DOI": p.doi, "ArXiv": p.arxiv},
            "title": p.title,
            "abstract": p.abstract,
            "venue": "ICLR",
            "year": p.year,
            "authors": [
                {"authorId": str(i), "name": f"{g} {f}"} for i, (g, f) in enumerate(p.authors)
            ],
        }
        for p in papers
    ]
    return json.dumps({"total": len(data), "data": data}, ensure_ascii=False)


def openreview_json(papers: list[FakePaper]) -> str:
    """An OpenReview API 2 answer: `{"notes": [...]}` with `{"value": ...}` fields."""
    notes = [
        {
            "id": f"or{p.n:08d}",
            "forum": f"or{p.n:08d}",
            "content": {
                "title": {"value": p.title},
                "abstract": {"value": p.abstract},
                "authors": {"value": [f"{g} {f}" for g, f in p.authors]},
                "venue": {"value": f"ICLR {p.year}"},
                "pdf": {"value": f"/pdf/{p.n:040x}.pdf"},
            },
        }
        for p in papers
    ]
    return json.dumps({"notes": notes}, ensure_ascii=False)


def csl_json(papers: list[FakePaper]) -> str:
    """CSL-JSON as Zotero exports it."""
    items = [
        {
            "id": p.citekey,
            "type": "paper-conference",
            "title": p.title,
            "author": [{"family": f, "given": g} for g, f in p.authors],
            "container-title": "International Conference on Learning Representations",
            "issued": {"date-parts": [[p.year]]},
            "DOI": p.doi,
            "abstract": p.abstract,
        }
        for p in papers
    ]
    return json.dumps(items, ensure_ascii=False, indent=2)


def jsonl(papers: list[FakePaper]) -> str:
    """JSON Lines, one flat object per paper."""
    return "".join(
        json.dumps(
            {
                "title": p.title,
                "abstract": p.abstract,
                "authors": [f"{g} {f}" for g, f in p.authors],
                "year": p.year,
                "venue": "ICLR",
                "arxiv_id": p.arxiv,
            },
            ensure_ascii=False,
        )
        + "\n"
        for p in papers
    )


def csv_text(papers: list[FakePaper]) -> str:
    """A CSV with a header, as Zotero's CSV export names the columns."""
    import csv
    import io

    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(
        [
            "Key",
            "Item Type",
            "Publication Year",
            "Author",
            "Title",
            "Publication Title",
            "DOI",
            "Abstract Note",
        ]
    )
    for p in papers:
        writer.writerow(
            [
                p.citekey,
                "conferencePaper",
                p.year,
                "; ".join(f"{f}, {g}" for g, f in p.authors),
                p.title,
                "International Conference on Learning Representations",
                p.doi,
                p.abstract,
            ]
        )
    return "\ufeff" + out.getvalue()


def conference_text(papers: list[FakePaper]) -> str:
    """The bundled seeds' format: a header, then one abstract per paragraph (no titles)."""
    return "ICLR 2023 Papers\n\n" + "".join(f"{p.abstract}\n\n" for p in papers)


def titled_text(papers: list[FakePaper]) -> str:
    """Conference text with a title line above each abstract."""
    return "ICLR 2023 Papers\n\n" + "".join(f"{p.title}\n{p.abstract}\n\n" for p in papers)


def arxiv_listing(papers: list[FakePaper]) -> str:
    """Blocks as pasted from an arXiv listing page."""
    return "".join(
        f"arXiv:{p.arxiv}\nTitle: {p.title}\nAuthors: "
        + ", ".join(f"{g} {f}" for g, f in p.authors)
        + f"\nSubjects: Machine Learning (cs.LG)\n\n{p.abstract}\n\n"
        for p in papers
    )


FORMATS: dict[str, tuple[str, Callable[[list[FakePaper]], str]]] = {
    "text": (".txt", conference_text),
    "text+titles": (".txt", titled_text),
    "arxiv listing": (".txt", arxiv_listing),
    "bibtex": (".bib", bibtex),
    "ris": (".ris", ris),
    "arxiv atom": (".xml", atom),
    "arxiv rss": (".xml", rss),
    "s2 json": (".json", s2_json),
    "openreview json": (".json", openreview_json),
    "csl-json": (".json", csl_json),
    "jsonl": (".jsonl", jsonl),
    "csv": (".csv", csv_text),
}


def write(fmt: str, papers: list[FakePaper], folder: Path, name: str | None = None) -> Path:
    """Write `papers` in format `fmt` into `folder`; the path written."""
    ext, writer = FORMATS[fmt]
    path = folder / f"{name or fmt.replace(' ', '-').replace('+', '-')}{ext}"
    path.write_text(writer(papers), encoding="utf-8")
    return path
