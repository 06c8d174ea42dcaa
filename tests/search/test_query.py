from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from tui.search import query
from tui.search.query import (
    MAX_QUERY_WORDS,
    FieldClause,
    FieldSpec,
    Phrase,
    QueryError,
    Term,
    parse_query,
)


def test_terms_are_folded_and_last_is_being_typed() -> None:
    q = parse_query("Contrastive Learn")
    assert q.terms == (Term("contrastive"), Term("learn", prefix=True))


def test_trailing_space_ends_typing() -> None:
    assert parse_query("learn ").terms == (Term("learn"),)


def test_hyphenated_word_is_several_terms() -> None:
    q = parse_query("vision-language")
    assert q.terms == (Term("vision"), Term("language", prefix=True))


def test_phrase_and_negations() -> None:
    q = parse_query('"Exact Phrase" -survey -"related work" x')
    assert q.phrases == (Phrase(("exact", "phrase")), Phrase(("related", "work"), negated=True))
    assert Term("survey", negated=True) in q.terms
    assert Term("x", prefix=True) in q.terms


def test_negated_last_term_is_not_a_prefix() -> None:
    assert parse_query("-surv").terms == (Term("surv", negated=True),)


def test_fields() -> None:
    q = parse_query("venue:ICLR year:2022..2024 file:Iclr2020 -year:2023")
    assert q.fields == (
        FieldClause("venue", "ICLR", "iclr"),
        FieldClause("year", "2022..2024", (2022, 2024)),
        FieldClause("file", "Iclr2020", "iclr2020"),
        FieldClause("year", "2023", (2023, 2023), negated=True, typing=True),
    )
    assert not q.terms
    assert not q.needs_personal


def test_personal_fields() -> None:
    q = parse_query("is:bookmarked is:unread has:note note:revisit")
    assert [f.arg for f in q.fields] == ["bookmarked", "unread", "note", ("revisit",)]
    assert q.needs_personal


def test_quoted_field_value() -> None:
    assert parse_query('file:"my file"').fields[0].arg == "my file"


def test_symbol_terms_become_marked_macro_names() -> None:
    # Marked (`\\times`), so they reach symbol and macro occurrences, not the word.
    assert parse_query("×").terms == (Term("\\times"),)
    assert parse_query("√ ").terms == (Term("\\sqrt"),)
    assert parse_query("-≤").terms == (Term("\\leq", negated=True),)
    assert parse_query('"×"').phrases == (Phrase(("\\times",)),)
    # A typed macro is the same as its symbol; half-typed, it completes.
    assert parse_query("\\times ").terms == (Term("\\times"),)
    assert parse_query("\\sq").terms == (Term("\\sq", prefix=True),)
    # A symbol next to a word is ignored, as before: the word is the term.
    assert parse_query("3× ").terms == (Term("3"),)


def test_field_being_typed() -> None:
    assert [f.typing for f in parse_query("note:rev").fields] == [True]
    assert [f.typing for f in parse_query("note:rev ").fields] == [False]
    assert [f.typing for f in parse_query("note:rev x").fields] == [False]
    assert [f.typing for f in parse_query('note:"rev"').fields] == [False]


def test_colon_in_ordinary_text_is_not_a_field() -> None:
    assert parse_query("3:1").terms == (Term("3"), Term("1", prefix=True))


def test_empty_and_blank() -> None:
    assert parse_query("").is_empty
    assert parse_query("   ").is_empty
    assert parse_query("$ -").is_empty


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ('"unclosed phrase', "unclosed quote"),
        ("year:abc", "year:"),
        ("year:", "year:"),
        ("year:2024..2020", "empty range"),
        ("year:..", "year:"),
        ("yaer:2023", "unknown field yaer: (did you mean year:?"),
        ("is:happy", "is:happy"),
        ("venue:", "venue:"),
        ("note:", "note:"),
        ('ab"cd', "quote"),
    ],
)
def test_malformed_queries_explain_themselves(text: str, needle: str) -> None:
    with pytest.raises(QueryError) as info:
        parse_query(text)
    assert needle in str(info.value)


def test_query_error_is_a_value_error() -> None:
    assert issubclass(QueryError, ValueError)


@given(st.text())
def test_parse_never_raises_anything_else(text: str) -> None:
    try:
        parse_query(text)
    except QueryError as error:
        assert str(error)


@given(st.text(alphabet='ab "-:yearvnu0123.', max_size=30))
def test_parse_never_raises_on_syntax_soup(text: str) -> None:
    try:
        parse_query(text)
    except QueryError as error:
        assert str(error)


def test_tag_field_normalises_and_refuses_bad_names() -> None:
    from tui.search.query import QueryError, parse_query

    [clause] = parse_query("tag:#To-Cite").fields
    assert (clause.name, clause.arg, clause.personal, clause.typing) == (
        "tag",
        "to-cite",
        True,
        True,
    )
    [excluded] = parse_query("-tag:rg ").fields
    assert excluded.negated and not excluded.typing
    with pytest.raises(QueryError, match="tag: needs a tag name"):
        parse_query("tag:#")
    with pytest.raises(QueryError, match="starts with -"):
        parse_query("tag:--x")
    assert parse_query("has:tag").fields[0].arg == "tag"


def test_an_unknown_field_with_a_word_after_it_lists_the_fields(monkeypatch) -> None:
    with pytest.raises(QueryError) as info:
        parse_query("graph editor:smith")
    message = str(info.value)
    assert message.startswith("unknown field editor: (fields: ")
    for name in ("venue:", "year:", "is:", "tag:", "topic:", "author:", "title:", "id:"):
        assert name in message
    # The list is the registry's: a field added later is named too.
    monkeypatch.setitem(query._FIELDS, "publisher", FieldSpec("publisher", lambda v: v))
    with pytest.raises(QueryError, match="publisher:"):
        parse_query("editor:smith")
    with pytest.raises(QueryError, match="unknown field editor:"):
        parse_query('editor:"Ada Lovelace"')


def test_a_misspelled_field_still_gets_a_did_you_mean() -> None:
    with pytest.raises(QueryError, match=r"did you mean venue:\? fields: "):
        parse_query("vneue:iclr")


@pytest.mark.parametrize(
    "text",
    [
        "Mixup: Beyond Empirical Risk Minimization",  # a space after the colon: a title
        "ViT: an image is worth 16x16 words",
        '"author:smith"',  # quoted: the words
    ],
)
def test_a_pasted_title_with_a_colon_searches_as_text(text: str) -> None:
    q = parse_query(text)
    assert q.fields == ()
    assert q.terms or q.phrases


def test_a_query_reads_at_most_a_capped_number_of_words() -> None:
    assert len(parse_query("graph " * MAX_QUERY_WORDS).terms) == MAX_QUERY_WORDS
    for text in ("graph " * (MAX_QUERY_WORDS + 1), "graph " * 20_000, '"' + "graph " * 40 + '"'):
        with pytest.raises(QueryError, match=f"at most {MAX_QUERY_WORDS} words"):
            parse_query(text)


@pytest.mark.parametrize(
    ("value", "years"),
    [
        ("2023", (2023, 2023)),
        ("2022..2024", (2022, 2024)),
        ("2022..", (2022, 9999)),
        ("..2024", (0, 2024)),
        ("2023..2023", (2023, 2023)),
    ],
)
def test_year_ranges_may_be_open_at_either_end(value: str, years: tuple[int, int]) -> None:
    [clause] = parse_query(f"year:{value} ").fields
    assert clause.arg == years


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("year:20x3", "year: expects a year like 2023 or a range like 2022..2024, not '20x3'"),
        ("year:", "year: expects a year like 2023 or a range like 2022..2024"),
        ("year:..", "year: expects a year like 2023 or a range like 2022..2024, not '..'"),
        (
            "year:2022..20",
            "year: expects a year like 2023 or a range like 2022..2024, not '2022..20'",
        ),
        (
            "is:happy",
            "unknown value is:happy; try is:bookmarked, is:read, is:unread, is:dismissed, is:new",
        ),
        ("has:notes", "unknown value has:notes; try has:abstract, has:note, has:tag"),
        ("venue: ", "venue: needs a value, for example venue:iclr"),
        ("file:", "file: needs a value, for example file:iclr"),
        ("note:!!", "note: needs a word, for example note:revisit"),
        ('graph "abc', 'unclosed quote: "abc (add a closing ")'),
        ('graph ab"cd', 'a quote inside a word: ab"cd (put a space before the opening ")'),
        ("tag:##", "tag: needs a tag name, for example tag:to-cite"),
        ("topic:", "topic: expects a topic number like topic:3 (T lists them)"),
        ("topic:x", "topic: expects a topic number like topic:3 (T lists them), not 'x'"),
        ("topic:0", "topic: expects a topic number like topic:3 (T lists them), not '0'"),
    ],
)
def test_a_bad_query_is_explained_quoting_only_the_bad_part(text: str, message: str) -> None:
    with pytest.raises(QueryError) as info:
        parse_query(text)
    assert str(info.value) == message


def test_choice_values_are_case_blind() -> None:
    assert [f.arg for f in parse_query("is:Read HAS:Note").fields] == ["read", "note"]


def test_field_values_are_trimmed_and_folded() -> None:
    assert parse_query('venue:" ICLR "').fields[0].arg == "iclr"


def test_a_field_name_one_letter_off_is_an_error_listing_the_fields() -> None:
    with pytest.raises(QueryError) as info:
        parse_query("venu:iclr")
    assert str(info.value) == (
        "unknown field venu: (did you mean venue:? fields: author:, file:, has:, id:, is:, "
        "new:, note:, tag:, title:, topic:, venue:, year:)"
    )


@pytest.mark.parametrize(
    "text",
    [
        "Mixup: Beyond empirical risk",  # a pasted title: the name has no value after it
        "yearly:2023",  # two letters off `year`, and no word after it
        "arXiv:2301.00001",  # a number after it: an identifier pasted
        "https://example.org/paper",  # no word after it: an address
        "a:b",  # one letter: a ratio or a label, not a field's name
        "vanue:",  # no value after it
    ],
)
def test_other_names_with_a_colon_are_text(text: str) -> None:
    q = parse_query(text)
    assert q.fields == () and q.terms


def test_a_three_letter_name_one_letter_off_a_field_is_an_error() -> None:
    with pytest.raises(QueryError, match="did you mean has:"):
        parse_query("haz:note")


def test_quotes_and_negations_parse_as_written() -> None:
    assert parse_query("graph").text == "graph"
    assert parse_query("-vision-language").phrases == (
        Phrase(("vision", "language"), negated=True),
    )
    assert parse_query('-"×"').phrases == (Phrase(("\\times",), negated=True),)
    assert parse_query('"graph neural"x ').terms == (Term("x"),)
    q = parse_query('"" graph ')
    assert q.terms == (Term("graph"),) and q.phrases == ()
    assert parse_query("$ graph ").terms == (Term("graph"),)


def test_a_tag_name_may_be_any_letters() -> None:
    assert parse_query("tag:X").fields[0].arg == "x"
    assert parse_query("tag:#to-cite").fields[0].arg == "to-cite"
