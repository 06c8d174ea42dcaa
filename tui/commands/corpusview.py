"""The loaded abstracts as a subcommand sees them: from the corpus rows when they are fresh.

`abstracts search` and `abstracts list` print a few fields of some abstracts. When
the files have not changed since the rows were written (`tui.corpus.rows`, checked
by stat), they answer from the rows and the search index's cache alone: no file
is read or parsed, and only the rows printed are read. Otherwise the corpus is
loaded as before (unchanged files from the parsed-files cache), and the rows are
written once the command's output is out. A large corpus that must be built for
(the rows, the search index) says so in one line on stderr first.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from tui import locations
from tui.corpus import rows as corpus_rows
from tui.corpus.model import Abstract, Corpus, LoadProblem

if TYPE_CHECKING:
    from tui.search.index import SearchIndex
    from tui.similar.model import SimilarityModel

#: From this many abstracts on, a build takes long enough to be announced (below it,
#: well under a second: the line would be noise).
ANNOUNCE_FROM = 2_000


def announce_build(prog: str, what: str, count: int) -> None:
    """One line on stderr saying that `what` is being built, for a large corpus."""
    if count >= ANNOUNCE_FROM:
        print(
            f"{prog}: building {what} for {count:,} abstracts "
            "(once: later runs on these files use it)",
            file=sys.stderr,
            flush=True,
        )


def similarity_model(prog: str, corpus: Corpus, cache_dir: Path) -> SimilarityModel:
    """The similarity model of `corpus`: from its cache, else built (saying so) and cached."""
    from tui.similar import cache

    model = cache.load(corpus, cache_dir)
    if model is None:
        announce_build(prog, "the similarity model", len(corpus))
        model = cache.load_or_build(corpus, cache_dir)
    return model


class CorpusView:
    """One command's abstracts: `rows` when fresh, else the loaded `corpus`."""

    def __init__(
        self,
        prog: str,
        args: Sequence[str | os.PathLike[str]],
        cache_dir: Path,
        rows: corpus_rows.Rows | None,
        corpus: Corpus | None,
        before: corpus_rows.Snapshot | None = None,
    ) -> None:
        self.prog = prog
        self._args = list(args)
        self._cache_dir = cache_dir
        self._rows = rows
        self._corpus = corpus
        self._before = before
        self._announced = False

    @property
    def problems(self) -> list[LoadProblem]:
        """The load problems, as loading reports them."""
        if self._rows is not None:
            return self._rows.problems
        assert self._corpus is not None
        return self._corpus.problems

    def __len__(self) -> int:
        if self._rows is not None:
            return self._rows.count
        assert self._corpus is not None
        return len(self._corpus)

    def corpus(self) -> Corpus:
        """The whole corpus (loaded now when the view answered from the rows; unchanged
        files come from the parsed-files cache)."""
        if self._corpus is None:
            from tui.corpus.load import load_corpus

            self._drop_rows()
            self._corpus = load_corpus(self._args, cache_dir=self._cache_dir)
        return self._corpus

    def _drop_rows(self) -> None:
        if self._rows is not None:
            self._rows.close()
            self._rows = None

    def ids(self) -> list[str]:
        """Every abstract's id in order (from the rows when their digest holds)."""
        if self._rows is not None:
            try:
                return self._rows.ids()
            except corpus_rows.RowsError:
                self._drop_rows()
        return self.corpus().ids

    def abstracts(
        self,
        indices: Iterable[int] | None = None,
        text: bool = False,
        ids: Sequence[str] | None = None,
    ) -> Iterator[Abstract]:
        """The abstracts at `indices` (None: all), with their text when `text` (without it,
        only id, collection, source, headline and paper are to be used). With `ids` (the
        search index's), a row whose id is not `ids[i]` is not used."""
        wanted = None if indices is None else list(indices)
        done = 0
        if self._rows is not None:
            try:
                for abstract in self._rows.abstracts(wanted, text):
                    if ids is not None and ids[abstract.index] != abstract.id:
                        raise corpus_rows.RowsError("a row of another corpus")
                    yield abstract
                    done += 1
                return
            except corpus_rows.RowsError:
                pass  # damaged rows: the rest comes from the files themselves
        corpus = self.corpus()
        rest = range(len(corpus)) if wanted is None else wanted
        for i in list(rest)[done:]:
            yield corpus.abstracts[i]

    def json_lines(self) -> Iterator[tuple[str, str]]:
        """Every abstract's id and `json_line(json_row(abstract))`, in order."""
        from tui.corpus.jsonrow import json_row
        from tui.sanitize import json_line

        done = 0
        if self._rows is not None:
            try:
                for found in self._rows.lines():
                    yield found
                    done += 1
                return
            except corpus_rows.RowsError:
                pass  # damaged rows: the rest comes from the files themselves
        for abstract in self.corpus().abstracts[done:]:
            yield abstract.id, json_line(json_row(abstract))

    def announce(self, what: str | None = None) -> None:
        """Say once what is being built (`the search index`, and the corpus cache when the
        rows are to be written)."""
        if self._announced:
            return
        self._announced = True
        built = [what] if what else []
        if self._before is not None:
            built.append("the corpus cache")
        announce_build(self.prog, " and ".join(built), len(self))

    def search_index(self) -> SearchIndex:
        """The search index of these abstracts: from its cache, else built (and cached)."""
        from tui.search import cache

        if self._rows is not None:
            # The header holds the rows' ids digest; each row printed is checked against
            # the index's own ids (`abstracts(ids=...)`).
            index = cache.load_by(self._cache_dir, self._rows.fingerprint, self._rows.ids_digest)
            if index is not None and len(index) == len(self):
                return index
        corpus = self.corpus()
        index = cache.load(corpus, self._cache_dir)
        if index is None:
            self.announce("the search index")
            index = cache.load_or_build(corpus, self._cache_dir)
        return index

    def finish(self) -> None:
        """Once the output is out: write the rows when they were not fresh (a corpus
        loaded from files that did not change meanwhile)."""
        if self._rows is not None:
            self._rows.close()
            return
        if self._before is not None and self._corpus is not None and self._corpus.abstracts:
            self.announce()
            corpus_rows.save(self._cache_dir, self._args, self._corpus, self._before)


def open_view(prog: str, paths: Sequence[str], data_dir: Path) -> CorpusView:
    """The abstracts `paths` name (none: the library of fetched papers, else the seeds)."""
    from tui.inbox.library import default_paths

    args: list[str | os.PathLike[str]] = list(paths) or list(default_paths(data_dir))
    cache_dir = locations.cache_dir(data_dir)
    fresh = corpus_rows.open_fresh(cache_dir, args)
    if fresh is not None:
        return CorpusView(prog, args, cache_dir, fresh, None)
    from tui.corpus.load import load_corpus

    before = corpus_rows.Snapshot.take(args)
    corpus = load_corpus(args, cache_dir=cache_dir)
    return CorpusView(prog, args, cache_dir, None, corpus, before)
