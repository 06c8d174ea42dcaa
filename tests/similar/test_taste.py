"""taste.rank on small made-up corpora whose topics are known."""

from __future__ import annotations

import random

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
    TEXTS,
    make_corpus,
)
from tui.similar import SimilarityModel, taste
from tui.similar.taste import Recommendation, rank

WORDS = {
    "graph": "graph node edge vertex message passing neighbourhood molecule spectral "
    "laplacian adjacency subgraph clique walk homophily heterophily",
    "vision": "image pixel convolution segmentation detection camera scene texture "
    "photograph object bounding crop resolution occlusion depth",
    "language": "sentence token vocabulary translation grammar parsing dialogue syntax "
    "lexicon corpus prompt instruction summarisation paraphrase reading",
    "sound": "audio speech waveform spectrogram speaker acoustic pitch melody music "
    "phoneme microphone echo noise timbre rhythm",
}
COMMON = "learning method results propose performance training approach show novel efficient"


def _text(topic: str, rng: random.Random, extra: str = "") -> str:
    words = rng.choices(WORDS[topic].split(), k=14) + rng.choices(COMMON.split(), k=8)
    words += extra.split()
    rng.shuffle(words)
    return ". ".join(" ".join(words[i : i + 5]) for i in range(0, len(words), 5)) + "."


def _topical(per_topic: int = 12, seed: int = 3) -> tuple[SimilarityModel, dict[str, list[int]]]:
    """A corpus of `per_topic` abstracts per topic of `WORDS`, interleaved."""
    rng = random.Random(seed)
    texts, topic_of = [], {}
    for n in range(per_topic):
        for topic in WORDS:
            topic_of[len(texts)] = topic
            texts.append(_text(topic, rng) + f" Paper {n}.")
    by_topic: dict[str, list[int]] = {t: [] for t in WORDS}
    for i, t in topic_of.items():
        by_topic[t].append(i)
    return SimilarityModel.build(make_corpus(texts)), by_topic


@pytest.fixture(scope="module")
def fixture_model() -> SimilarityModel:
    return SimilarityModel.build(make_corpus())


@pytest.fixture(scope="module")
def topical() -> tuple[SimilarityModel, dict[str, list[int]]]:
    return _topical()


def test_the_likes_topic_ranks_first(topical: tuple[SimilarityModel, dict[str, list[int]]]) -> None:
    model, by_topic = topical
    likes = by_topic["graph"][:3]
    picks = rank(model, likes, k=len(by_topic["graph"]) - 3)
    assert [p.index for p in picks] != []
    assert {p.index for p in picks} == set(by_topic["graph"][3:])


def test_the_known_neighbour_comes_first(fixture_model: SimilarityModel) -> None:
    assert rank(fixture_model, [I_GRAPH], k=1)[0].index == I_GRAPH_NB
    top_two = {p.index for p in rank(fixture_model, [I_LANG, I_VISION], k=2)}
    assert top_two == {I_LANG_NB, I_VISION_NB}


def test_likes_dismissals_and_reworded_likes_are_never_recommended(
    fixture_model: SimilarityModel,
) -> None:
    picks = rank(fixture_model, [I_GRAPH, I_VISION], unlikes=[I_RL], k=20)
    returned = {p.index for p in picks}
    assert not returned & {I_GRAPH, I_VISION, I_RL}
    assert I_GRAPH_RW not in returned  # a lightly reworded copy of a like


def test_scores_descend_and_are_cosines(fixture_model: SimilarityModel) -> None:
    picks = rank(fixture_model, [I_GRAPH_NB, I_LANG], k=20)
    scores = [p.score for p in picks]
    assert scores == sorted(scores, reverse=True)
    assert all(0.0 < s <= 1.0 + 1e-9 for s in scores)


def test_a_dismissed_abstract_and_its_near_neighbours_sink() -> None:
    rng = random.Random(9)
    texts = [_text("graph", rng) for _ in range(8)]
    # A graph paper touching on sound, and a close rewording of it.
    mixed = _text("graph", rng, extra="audio speech")
    texts += [mixed, mixed + " We also study pitch."]
    texts += [_text(t, rng) for t in ("vision", "language", "sound") for _ in range(4)]
    model = SimilarityModel.build(make_corpus(texts))
    likes, plain = [0, 1, 2], range(3, 8)
    before = [p.index for p in rank(model, likes, k=len(texts))]
    assert before.index(9) < max(before.index(j) for j in plain)  # beats a plain graph paper
    after = [p.index for p in rank(model, likes, unlikes=[8], k=len(texts))]
    assert 8 not in after
    assert after.index(9) > max(after.index(j) for j in plain)


def test_more_dismissals_still_sink_each_ones_neighbour(
    topical: tuple[SimilarityModel, dict[str, list[int]]],
) -> None:
    model, by_topic = topical
    likes = by_topic["graph"][:4]
    target = by_topic["graph"][4]
    picks = rank(model, likes, k=8)
    assert target in [p.index for p in picks]
    # Dismissing it with a crowd of unrelated abstracts still removes it from the top.
    unlikes = [target, *by_topic["vision"][:6], *by_topic["sound"][:6]]
    assert target not in [p.index for p in rank(model, likes, unlikes, k=8)]


def test_because_is_the_closest_like_and_shared_explains_it(
    fixture_model: SimilarityModel,
) -> None:
    likes = [I_GRAPH, I_LANG]
    picks = rank(fixture_model, likes, k=5)
    assert picks
    for pick in picks:
        assert isinstance(pick, Recommendation)
        cosines = {s: float(fixture_model.scores(s)[pick.index]) for s in likes}
        assert pick.because == max(likes, key=lambda s: (cosines[s], -s))
        assert list(pick.shared) == fixture_model.shared_terms(pick.because, pick.index)
    because = {p.index: p.because for p in picks[:2]}
    assert because == {I_GRAPH_NB: I_GRAPH, I_LANG_NB: I_LANG}
    assert all(p.shared for p in picks[:2])


def test_candidates_are_respected(fixture_model: SimilarityModel) -> None:
    candidates = [I_RL, I_LANG_NB, I_VISION, I_LANG, 999, -1]
    picks = rank(fixture_model, [I_LANG], candidates=candidates, k=5)
    assert picks[0].index == I_LANG_NB
    assert {p.index for p in picks} <= {I_RL, I_LANG_NB, I_VISION}
    assert rank(fixture_model, [I_LANG], candidates=[], k=5) == []


def test_no_likes_no_recommendations(fixture_model: SimilarityModel) -> None:
    assert rank(fixture_model, [], k=10) == []
    assert rank(fixture_model, [], unlikes=[I_RL], k=10) == []
    assert rank(fixture_model, [999, -3], k=10) == []
    assert rank(fixture_model, [I_GRAPH], k=0) == []


def test_liked_and_dismissed_counts_as_liked(fixture_model: SimilarityModel) -> None:
    assert rank(fixture_model, [I_GRAPH], unlikes=[I_GRAPH], k=3) == rank(
        fixture_model, [I_GRAPH], k=3
    )


def test_deterministic_and_ties_go_to_the_lower_index() -> None:
    rng = random.Random(5)
    graph = [_text("graph", rng) for _ in range(4)]
    twin = _text("graph", rng)
    # The same text twice, far from both likes' wording: equal scores, lower index first.
    texts = [*graph, twin, _text("sound", rng), twin]
    model = SimilarityModel.build(make_corpus(texts))
    first = rank(model, [0, 1], k=10)
    assert first == rank(model, [1, 0, 1], k=10)
    twins = [p for p in first if p.index in (4, 6)]
    assert [p.index for p in twins] == [4, 6] and twins[0].score == twins[1].score


@pytest.mark.parametrize("batch", [1, 3, taste.FIRST_BATCH])
def test_a_short_list_is_the_head_of_the_long_one(
    topical: tuple[SimilarityModel, dict[str, list[int]]],
    monkeypatch: pytest.MonkeyPatch,
    batch: int,
) -> None:
    # Candidates are examined in batches; stopping early must not change the answer.
    monkeypatch.setattr(taste, "FIRST_BATCH", batch)
    model, by_topic = topical
    likes = [by_topic["graph"][0], by_topic["language"][0]]
    unlikes = [by_topic["graph"][1], by_topic["graph"][2], by_topic["vision"][0]]
    everything = rank(model, likes, unlikes, k=len(model))
    assert len(everything) > 40
    for k in (1, 5, 20, 40):
        assert rank(model, likes, unlikes, k=k) == everything[:k]


def test_likes_without_content_words_recommend_nothing() -> None:
    model = SimilarityModel.build(make_corpus(["The of and 42.", "Of the 7 and.", TEXTS[I_RL]]))
    assert rank(model, [0], k=5) == []
    assert rank(model, [0, 1], unlikes=[2], k=5) == []
