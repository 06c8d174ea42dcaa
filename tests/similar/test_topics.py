"""The topic model: the k rule, determinism, numbering, labels, the cache."""

from __future__ import annotations

import random
from pathlib import Path

import numpy as np
import pytest

from tests.similar.fixtures import make_corpus
from tui.corpus.model import Corpus
from tui.similar import SimilarityModel, topic_cache
from tui.similar import topics as topics_module
from tui.similar.labels import label_groups
from tui.similar.topics import compute_topics, topic_count

THEMES = {
    "graph": "graph neural networks pass messages between nodes of molecules and atoms",
    "diffusion": "diffusion models denoise images with a learned score and guidance sampling",
    "bandit": "bandit algorithms bound the regret of exploration with confidence intervals",
}
# What every abstract says whatever its subject: never a topic.
FILLER = (
    "We propose a novel method in this paper. Results show state of the art performance "
    "as shown by Smith et al. in 2023, with 95 percent accuracy on 3 benchmarks."
)


def themed_corpus(per_theme: int = 8, seed: int = 1) -> tuple[Corpus, list[str]]:
    """Abstracts on three themes (shuffled words of each theme, plus filler)."""
    rng = random.Random(seed)
    texts, themes = [], []
    for theme, words in THEMES.items():
        for _ in range(per_theme):
            chosen = words.split()
            rng.shuffle(chosen)
            texts.append(f"{' '.join(chosen[: len(chosen) * 3 // 4])}. {FILLER}")
            themes.append(theme)
    order = list(range(len(texts)))
    rng.shuffle(order)
    return make_corpus([texts[i] for i in order]), [themes[i] for i in order]


def test_k_grows_as_the_square_root_of_the_corpus_within_bounds() -> None:
    assert topic_count(0) == 0
    assert topic_count(1) == 1
    assert topic_count(3) == 2
    assert topic_count(76) == 9
    assert topic_count(400) == 20
    assert topic_count(6_506) == 40
    assert topic_count(100_000) == 40
    assert all(topic_count(n) <= topic_count(n + 1) for n in range(1, 3_000))


def test_topics_are_deterministic_and_numbered_by_size() -> None:
    corpus, _ = themed_corpus()
    model = SimilarityModel.build(corpus)
    first = compute_topics(model.terms, model.weights, k=3)
    again = compute_topics(SimilarityModel.build(corpus).terms, model.weights, k=3)
    assert np.array_equal(first.number, again.number)
    assert first.labels == again.labels
    sizes = first.sizes()
    assert sizes == sorted(sizes, reverse=True) and sum(sizes) == len(corpus)
    assert set(first.number.tolist()) == {1, 2, 3}


def test_each_theme_is_one_topic_labelled_by_its_words() -> None:
    corpus, themes = themed_corpus()
    model = SimilarityModel.build(corpus)
    topics = compute_topics(model.terms, model.weights, k=3)
    for theme in THEMES:
        numbers = {int(t) for t, th in zip(topics.number, themes, strict=True) if th == theme}
        assert len(numbers) == 1, theme  # a theme is not split
        labels = topics.labels[numbers.pop() - 1]
        assert 2 <= len(labels) <= 4
        assert all(set(label.split()) <= set(THEMES[theme].split()) for label in labels)


def test_labels_never_name_what_every_abstract_says() -> None:
    corpus, _ = themed_corpus()
    model = SimilarityModel.build(corpus)
    topics = compute_topics(model.terms, model.weights)
    filler = {"propose", "novel", "method", "paper", "results", "show", "state", "art"}
    filler |= {"performance", "smith", "et", "al", "2023", "95", "percent", "accuracy"}
    filler |= {"benchmarks"}
    for labels in topics.labels:
        for label in labels:
            assert not set(label.split()) & filler, label


def test_one_label_per_meaning() -> None:
    texts = [
        "Graph neural networks learn graph neural representations of molecules.",
        "We train graph neural networks; graph neural models pass messages on graphs.",
        "Message passing graph neural networks and pre-trained pretrained encoders.",
        "Zebras gallop across savannahs while giraffes browse acacia trees.",
        "Giraffes browse acacia trees; zebras gallop on the savannah at dusk.",
        "At dusk zebras and giraffes share the savannah with acacia trees.",
    ]
    corpus = make_corpus(texts)
    terms = SimilarityModel.build(corpus).terms
    labels = label_groups(terms, np.asarray([0, 0, 0, 1, 1, 1]), 2, top=4)
    words = " ".join(labels[0]).split()
    assert len(words) == len(set(words))  # `graph` never beside `graph neural`
    assert "graph" in words
    assert not {"zebras", "giraffes"} & set(words)


def test_an_abstract_without_shared_terms_has_no_topic() -> None:
    corpus, _ = themed_corpus()
    lonely = make_corpus([a.text for a in corpus.abstracts] + ["Quokkas smile."], None)
    model = SimilarityModel.build(lonely)
    topics = compute_topics(model.terms, model.weights, k=3)
    assert topics.number[-1] == 0
    assert topics.members(1).size == topics.sizes()[0]


def test_cache_round_trip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    corpus, _ = themed_corpus()
    model = SimilarityModel.build(corpus)
    built = topic_cache.load_or_build(corpus, tmp_path, model)
    assert topic_cache.cache_path(corpus, tmp_path).is_file()

    def no_build(*_args: object, **_kwargs: object) -> None:
        raise AssertionError("computed again although the cache was valid")

    monkeypatch.setattr(topic_cache, "compute_topics", no_build)
    loaded = topic_cache.load_or_build(corpus, tmp_path, model)
    assert np.array_equal(loaded.number, built.number)
    assert loaded.labels == built.labels
    # Another corpus never reads these topics.
    other = make_corpus([a.text for a in corpus.abstracts[:-1]])
    assert topic_cache.load(other, tmp_path) is None


def test_a_damaged_cache_is_ignored(tmp_path: Path) -> None:
    corpus, _ = themed_corpus()
    model = SimilarityModel.build(corpus)
    topic_cache.load_or_build(corpus, tmp_path, model)
    topic_cache.cache_path(corpus, tmp_path).write_bytes(b"PK\x03\x04 truncated")
    assert topic_cache.load(corpus, tmp_path) is None
    rebuilt = topic_cache.load_or_build(corpus, tmp_path, model)
    assert rebuilt.count == topic_count(len(corpus))
    assert topic_cache.load(corpus, tmp_path) is not None


def test_blocks_made_from_the_rows_in_use_are_those_of_every_row_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    corpus, _ = themed_corpus()
    model = SimilarityModel.build(corpus)
    terms, weights = model.terms, model.weights
    monkeypatch.setattr(topics_module, "_BLOCK_ROWS", 5)
    features = topics_module._features(terms)
    whole = topics_module._vectors(terms, weights, features, np.arange(terms.n_docs))
    for made, expected in zip(
        topics_module._all_blocks(terms, weights, features), whole.blocks(), strict=True
    ):
        assert made.rows.tolist() == expected.rows.tolist()
        assert made.features.tolist() == expected.features.tolist()
        assert made.weights.tolist() == expected.weights.tolist()


def test_a_corpus_without_topics_reads_its_cache_back(tmp_path: Path) -> None:
    """Two abstracts that share no word have no topic; their cache, read at the next
    start, is no topics (it raised, and the app ended, on every start after the first)."""
    corpus = make_corpus(["Quokkas smile in the sun.", "Glaciers carve deep valleys."])
    model = SimilarityModel.build(corpus)
    built = topic_cache.load_or_build(corpus, tmp_path, model)
    assert built.count == 0
    loaded = topic_cache.load(corpus, tmp_path)
    assert loaded is not None and loaded.count == 0 and loaded.labels == []


def _centroids_by_one_count(x: topics_module._Vectors, labels: np.ndarray, k: int) -> np.ndarray:
    """The centroids as one count over every entry keyed by cluster and feature makes
    them (how they were computed before they were summed a cluster at a time)."""
    row_of = x.row_of()
    assigned = labels[row_of]
    use = assigned >= 0
    keys = assigned[use].astype(np.int64) * x.n_features + x.features[use]
    sums = np.bincount(keys, weights=x.weights[use], minlength=k * x.n_features)
    centroids = sums.reshape(k, x.n_features)
    norms = np.linalg.norm(centroids, axis=1)
    norms[norms == 0] = 1.0
    return (centroids / norms[:, None]).astype(np.float32)


@pytest.mark.parametrize("k", [2, 5, 9])
def test_centroids_summed_a_cluster_at_a_time_are_those_of_one_count_over_every_entry(
    seeds_dir: Path, k: int
) -> None:
    from tui.corpus.load import load_corpus

    model = SimilarityModel.build(load_corpus([seeds_dir]))
    terms, weights = model.terms, model.weights
    features = topics_module._features(terms)
    x = topics_module._vectors(terms, weights, features, np.arange(terms.n_docs))
    rng = np.random.default_rng(k)
    # Some rows in no cluster, and (with 9) clusters left empty.
    labels = rng.integers(-1, min(k, 6), size=x.n_rows).astype(np.int32)
    made = topics_module._centroids(x, labels, k)
    assert made.dtype == np.float32
    assert made.tobytes() == _centroids_by_one_count(x, labels, k).tobytes()
