"""Term counting, done a block of texts at a time with the index's bulk tokenizer, gives
exactly what counting each text's tokens one by one gives."""

from __future__ import annotations

import re

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tui.corpus.stem import stem_words
from tui.corpus.stopwords import STOPWORDS
from tui.corpus.tokens import tokenize
from tui.similar import terms as terms_module
from tui.similar.terms import TermCounter, TermMatrix, count_terms

_LATEX = re.compile(r"\\[A-Za-z]+")
_BREAK = re.compile(r"[.,;:!?()\[\]{}$\"“”]")


def _reference(texts: list[str]) -> TermMatrix:
    """The counts made text by text with Python dictionaries: words numbered as first
    met, stems as their first word is, pairs by stem numbers, rare pairs dropped."""
    form_ids: dict[str, int] = {}
    stem_ids: dict[str, int] = {}
    form_stem: list[int] = []
    rows: list[dict[tuple[int, int], int]] = []
    form_count: dict[int, int] = {}
    written: dict[tuple[int, int], int] = {}
    for text in texts:
        tokens = tokenize(_BREAK.sub(" 0 ", _LATEX.sub(" ", text)))
        keep = [len(t) > 1 and t not in STOPWORDS and not t.isdigit() for t in tokens]
        row: dict[tuple[int, int], int] = {}
        previous = None
        for token, content in zip(tokens, keep, strict=True):
            if not content:
                previous = None
                continue
            if token not in form_ids:
                form_ids[token] = len(form_ids)
                key = stem_words([token])[0]
                form_stem.append(stem_ids.setdefault(key, len(stem_ids)))
            form = form_ids[token]
            form_count[form] = form_count.get(form, 0) + 1
            cell = (form_stem[form], -1)
            row[cell] = row.get(cell, 0) + 1
            if previous is not None:
                cell = (form_stem[previous], form_stem[form])
                row[cell] = row.get(cell, 0) + 1
                written[(previous, form)] = written.get((previous, form), 0) + 1
            previous = form
        rows.append(row)
    names = list(form_ids)
    pair_docs: dict[tuple[int, int], int] = {}
    for row in rows:
        for cell in row:
            if cell[1] >= 0:
                pair_docs[cell] = pair_docs.get(cell, 0) + 1
    pairs = sorted(p for p, docs in pair_docs.items() if docs >= 2)
    term_of = {(s, -1): s for s in range(len(stem_ids))}
    term_of |= {p: len(stem_ids) + k for k, p in enumerate(pairs)}

    # Each term as its most frequent written form (ties: the first met).
    vocab = [
        names[
            min(
                (f for f in range(len(names)) if form_stem[f] == s),
                key=lambda f: (-form_count[f], f),
            )
        ]
        for s in range(len(stem_ids))
    ]
    n_forms = len(names)
    for p in pairs:
        options = [(a, b) for (a, b) in written if (form_stem[a], form_stem[b]) == p]
        a, b = min(options, key=lambda ab: (-written[ab], ab[0] * n_forms + ab[1]))
        vocab.append(f"{names[a]} {names[b]}")
    indptr, indices, counts = [0], [], []
    for row in rows:
        cells = sorted((term_of[c], n) for c, n in row.items() if c in term_of)
        indices += [t for t, _ in cells]
        counts += [n for _, n in cells]
        indptr.append(len(indices))
    parts = [[s, -1] for s in range(len(stem_ids))] + [list(p) for p in pairs]
    return TermMatrix(
        vocab,
        np.asarray(indptr, dtype=np.int64),
        np.asarray(indices, dtype=np.int32),
        np.asarray(counts, dtype=np.int32),
        np.asarray(parts, dtype=np.int32).reshape(-1, 2),
    )


def _same(a: TermMatrix, b: TermMatrix) -> bool:
    return a.vocab == b.vocab and all(
        np.array_equal(getattr(a, name), getattr(b, name))
        for name in ("indptr", "indices", "counts", "parts")
    )


_WORDS = ["graph", "graphs", "neural", "network", "networks", "the", "of", "learning", "learned"]
_WORDS += [
    "Café",
    "α-stable",
    "2024",
    "x",
    "\\mathcal{O}",
    "fine-tuning",
    "“quoted”",
    "(a)",
    "Bayes;",
]


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([*_WORDS, ".", ",", "\n"]), max_size=25).map(" ".join),
        max_size=12,
    )
)
def test_counts_equal_counting_each_text_alone(texts: list[str]) -> None:
    assert _same(count_terms(texts), _reference(texts))


def test_counts_do_not_depend_on_how_texts_are_batched(monkeypatch: pytest.MonkeyPatch) -> None:
    texts = [" ".join(_WORDS[k:] + _WORDS[:k]) + " graph neural network." for k in range(9)]
    whole = count_terms(texts)
    monkeypatch.setattr(terms_module, "_BLOCK_TEXTS", 2)
    assert _same(count_terms(texts), whole)
    assert _same(whole, _reference(texts))


@settings(max_examples=60, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([*_WORDS, ".", ","]), max_size=12).map(" ".join),
        max_size=10,
    ),
    st.integers(min_value=1, max_value=4),
)
def test_counts_made_in_blocks_of_any_size_are_those_of_the_whole(
    texts: list[str], size: int
) -> None:
    counter = TermCounter()
    for start in range(0, len(texts), size):
        counter.add(texts[start : start + size])
    assert _same(counter.matrix(), _reference(texts))


def _seed_texts() -> list[str]:
    """What similarity counts of each seed abstract (LaTeX, non-ASCII words, titles)."""
    from tests.conftest import SEEDS
    from tui.corpus.load import load_corpus

    return [a.similarity_text for a in load_corpus([SEEDS]).abstracts]


@pytest.mark.parametrize("cut", [0, 1, 30, 75, 76])
def test_counts_whose_later_texts_a_helper_tokenized_are_those_of_one_process(
    monkeypatch: pytest.MonkeyPatch, cut: int
) -> None:
    texts = _seed_texts()
    assert len(texts) == 76
    monkeypatch.setattr(terms_module, "_BLOCK_TEXTS", 7)  # several blocks on either side
    whole = count_terms(texts)
    assert _same(count_terms(texts[:cut], lambda: iter(texts[cut:])), whole)


@settings(max_examples=25, deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([*_WORDS, ".", ",", "\n"]), max_size=25).map(" ".join),
        max_size=12,
    ),
    st.integers(min_value=0, max_value=12),
)
def test_a_helper_tokenizing_any_later_texts_changes_no_count(texts: list[str], cut: int) -> None:
    assert _same(count_terms(texts[:cut], lambda: texts[cut:]), _reference(texts))


def test_texts_a_failed_helper_did_not_tokenize_are_counted_here(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = _seed_texts()

    def fail(out: object, texts: object) -> None:
        raise RuntimeError("the helper fails")

    monkeypatch.setattr(terms_module, "_send_tokens", fail)
    assert _same(count_terms(texts[:40], lambda: texts[40:]), count_terms(texts))
