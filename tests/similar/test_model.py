from __future__ import annotations

import numpy as np
import pytest

from tests.similar.fixtures import (
    I_GRAPH,
    I_GRAPH_NB,
    I_GRAPH_RW,
    I_LANG,
    I_LANG_NB,
    I_RL,
    I_VISION,
    I_VISION_NB,
    I_ZEBRA,
    TEXTS,
    make_corpus,
)
from tui.corpus.stem import stem
from tui.corpus.stopwords import STOPWORDS
from tui.similar import SimilarityModel
from tui.similar import model as similar_model
from tui.similar.terms import content_tokens, count_terms


@pytest.fixture(scope="module")
def model() -> SimilarityModel:
    return SimilarityModel.build(make_corpus())


def test_content_tokens_drop_stopwords_numbers_and_latex() -> None:
    tokens = content_tokens(r"We prove that the \mathcal{O}(n^2) bound of CIFAR-10 is tight.")
    assert tokens == ["prove", "bound", "cifar", "tight"]


def test_vectors_are_unit_length(model: SimilarityModel) -> None:
    for i in range(len(model)):
        assert model.scores(i)[i] == pytest.approx(1.0, abs=1e-5)


@pytest.mark.parametrize(
    ("query", "neighbour"),
    [(I_GRAPH, I_GRAPH_NB), (I_VISION, I_VISION_NB), (I_LANG, I_LANG_NB), (I_LANG_NB, I_LANG)],
)
def test_nearest_neighbour_is_the_known_one(
    model: SimilarityModel, query: int, neighbour: int
) -> None:
    ranked = model.similar(query, k=3)
    assert ranked[0][0] == neighbour
    assert all(j != query for j, _ in ranked)


def test_scores_are_descending_cosines(model: SimilarityModel) -> None:
    ranked = model.similar(I_GRAPH_NB, k=10)
    scores = [s for _, s in ranked]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 < s <= 1.0 + 1e-6 for s in scores)


def test_nothing_shared_means_nothing_similar(model: SimilarityModel) -> None:
    assert model.similar(I_ZEBRA) == []


def test_near_duplicates_are_left_out_of_similar_but_reported(model: SimilarityModel) -> None:
    assert I_GRAPH_RW not in [j for j, _ in model.similar(I_GRAPH)]
    assert I_GRAPH_RW in [j for j, _ in model.similar(I_GRAPH, include_duplicates=True)]
    dups = model.near_duplicates(I_GRAPH)
    assert [j for j, _ in dups] == [I_GRAPH_RW]
    assert dups[0][1] > 0.9
    assert [j for j, _ in model.near_duplicates(I_GRAPH_RW)] == [I_GRAPH]


def test_topical_neighbour_is_not_a_duplicate(model: SimilarityModel) -> None:
    assert model.near_duplicates(I_VISION) == []
    assert not model.is_near_duplicate(I_GRAPH, I_GRAPH_NB)
    assert not model.is_near_duplicate(I_GRAPH, I_GRAPH)


def test_high_cosine_but_shuffled_text_is_not_confirmed() -> None:
    # Same words, different order: TF-IDF cannot tell, the character ratio can.
    words = TEXTS[I_RL].split()
    shuffled = " ".join(reversed(words))
    model = SimilarityModel.build(make_corpus([TEXTS[I_RL], shuffled, TEXTS[I_ZEBRA]]))
    assert model.scores(0)[1] > 0.99
    assert model.near_duplicates(0) == []


def test_like_ranks_by_seed_topic(model: SimilarityModel) -> None:
    ranked = model.like([I_GRAPH, I_VISION], candidates=None, k=10)
    top_two = {j for j, _ in ranked[:2]}
    assert top_two == {I_GRAPH_NB, I_VISION_NB}
    returned = [j for j, _ in ranked]
    assert I_GRAPH not in returned and I_VISION not in returned  # seeds
    assert I_GRAPH_RW not in returned  # a reworded copy of a seed is not a recommendation


def test_like_respects_candidates(model: SimilarityModel) -> None:
    ranked = model.like([I_LANG], candidates=[I_RL, I_LANG_NB, I_VISION, I_LANG], k=5)
    assert ranked[0][0] == I_LANG_NB
    assert {j for j, _ in ranked} <= {I_RL, I_LANG_NB, I_VISION}


def _dense(model: SimilarityModel, i: int) -> np.ndarray:
    vector = np.zeros(model.terms.n_terms)
    start, end = model.terms.indptr[i], model.terms.indptr[i + 1]
    vector[model.terms.indices[start:end]] = model.weights[start:end]
    return vector


def test_like_score_blends_centroid_cosine_and_best_match(model: SimilarityModel) -> None:
    seeds = [I_GRAPH_NB, I_VISION, I_LANG]
    vectors = {i: _dense(model, i) for i in range(len(model))}
    mean = np.mean([vectors[s] for s in seeds], axis=0)
    centroid = mean / np.linalg.norm(mean)
    for j, score in model.like(seeds, None, k=10):
        best = max(float(vectors[s] @ vectors[j]) for s in seeds)
        assert score == pytest.approx(0.5 * float(centroid @ vectors[j]) + 0.5 * best, abs=1e-5)


def test_like_without_seeds_or_k_is_empty(model: SimilarityModel) -> None:
    assert model.like([], None, 10) == []
    assert model.like([I_GRAPH], None, 0) == []
    assert model.like([999], None, 5) == []


def test_shared_terms_explain_a_match(model: SimilarityModel) -> None:
    words = model.shared_terms(I_GRAPH, I_GRAPH_NB, top=3)
    assert len(words) == 3
    stems = {stem(w) for w in content_tokens(TEXTS[I_GRAPH])} & {
        stem(w) for w in content_tokens(TEXTS[I_GRAPH_NB])
    }
    assert {stem(w) for term in words for w in term.split()} <= stems
    assert model.shared_terms(I_GRAPH, I_ZEBRA) == []


def test_shared_terms_are_one_per_meaning_and_may_be_pairs() -> None:
    texts = [
        "Fine tuning adapts each parameter of large models; fine tuning needs few parameters.",
        "We study fine tuning where the parameters of large models change by one parameter.",
        "Fine tuning of vision models updates parameters.",
        "Zebras gallop across savannahs.",
    ]
    model = SimilarityModel.build(make_corpus(texts))
    words = model.shared_terms(0, 1, top=5)
    assert "fine tuning" in words
    # `parameter` and `parameters` are one stem, shown once; `fine` is not shown beside
    # `fine tuning`.
    assert len([w for w in words if w.startswith("parameter")]) == 1
    assert "fine" not in words and "tuning" not in words


def test_stop_words_are_the_maintained_list() -> None:
    # scikit-learn's English list (the Glasgow IR group's), not one tuned to a field.
    assert {"the", "first", "find", "show", "system", "amongst", "twenty"} <= STOPWORDS
    assert not {"graph", "network", "learning", "model"} & STOPWORDS


def test_empty_corpus_builds() -> None:
    model = SimilarityModel.build(make_corpus([]))
    assert len(model) == 0
    assert model.like([0], None, 3) == []


def test_weights_made_a_few_rows_at_a_time_are_those_of_the_whole_matrix(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    terms = count_terms(TEXTS)
    n = terms.n_docs
    idf = np.log((1.0 + n) / (1.0 + terms.document_frequency())) + 1.0
    weights = (1.0 + np.log(terms.counts.astype(np.float64))) * idf[terms.indices]
    row_of = np.repeat(np.arange(n), np.diff(terms.indptr))
    norms = np.sqrt(np.bincount(row_of, weights=weights * weights, minlength=n))
    expected = (weights / norms[row_of]).astype(np.float32)
    monkeypatch.setattr(similar_model, "_ROWS", 2)
    assert similar_model._tfidf(terms).tolist() == expected.tolist()


def test_texts_in_two_are_every_text_once_in_order(monkeypatch: pytest.MonkeyPatch) -> None:
    corpus = make_corpus(TEXTS)
    texts = similar_model.SimilarityTexts(corpus.abstracts)
    first, rest = texts.in_two()
    assert rest is None and list(first) == list(texts)
    monkeypatch.setattr(similar_model, "workers_for", lambda n, fork_safe=False: 2)
    first, rest = texts.in_two()
    assert rest is not None
    mine = list(first)
    assert 0 < len(mine) < len(texts)
    assert mine + list(rest()) == list(texts)
