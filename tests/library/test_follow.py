"""`abstracts follow` and its config file, the sources it accepts, and `abstracts fetch`
on the command line."""

from __future__ import annotations

import tomllib
from datetime import timedelta
from pathlib import Path

import pytest

from tests.library.arxiv_server import FakeArxiv, papers
from tui import cli, locations
from tui.inbox.config import ConfigError, read_config, write_follow
from tui.inbox.sources import SourceError, parse_source


@pytest.mark.parametrize(
    ("text", "query", "kind"),
    [
        ("cs.LG", "cat:cs.LG", "category"),
        ("math.AP", "cat:math.AP", "category"),
        ("hep-th", "cat:hep-th", "category"),
        ("astro-ph.CO", "cat:astro-ph.CO", "category"),
        ("cond-mat.mes-hall", "cat:cond-mat.mes-hall", "category"),
        ('abs:"diffusion" AND cat:cs.CV', 'abs:"diffusion" AND cat:cs.CV', "query"),
        ('author:"Yoshua Bengio"', 'au:"Yoshua Bengio"', "author"),
        ("author:Bengio", 'au:"Bengio"', "author"),
    ],
)
def test_sources_become_api_queries(text: str, query: str, kind: str) -> None:
    source = parse_source(text)
    assert (source.query, source.kind) == (query, kind)
    assert "/" not in source.slug and not source.slug.startswith(".")


@pytest.mark.parametrize("text", ["cs.lg", "cs.LGX", "foo.BAR", "diffusion", "", 'abs:"open'])
def test_what_is_no_source_is_refused_with_an_example(text: str) -> None:
    with pytest.raises(SourceError):
        parse_source(text)


def test_following_keeps_every_other_key_and_comment(config_dir: Path) -> None:
    path = locations.config_path(config_dir)
    config_dir.mkdir()
    path.write_text(
        '# my settings\napi_url = "http://mirror.example/api/query"  # a mirror\n'
        'follow = [\n  "cs.LG",  # mine\n]\n\n[ui]\ntheme = "nord"\n',
        encoding="utf-8",
    )
    write_follow(path, ["cs.LG", 'abs:"diffusion" AND cat:cs.CV'])
    text = path.read_text(encoding="utf-8")
    assert "# my settings" in text and "# a mirror" in text
    data = tomllib.loads(text)
    assert data["follow"] == ["cs.LG", 'abs:"diffusion" AND cat:cs.CV']
    assert data["ui"] == {"theme": "nord"}
    assert read_config(path).api_url == "http://mirror.example/api/query"


def test_a_config_that_is_not_toml_is_named_and_left_alone(config_dir: Path) -> None:
    path = locations.config_path(config_dir)
    config_dir.mkdir()
    path.write_text("follow = [cs.LG\n", encoding="utf-8")
    with pytest.raises(ConfigError, match="not valid TOML"):
        write_follow(path, ["cs.LG"])
    assert path.read_text(encoding="utf-8") == "follow = [cs.LG\n"


def test_follow_list_and_remove_on_the_command_line(
    config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert cli.main(["follow", "cs.LG"]) == 0
    assert cli.main(["follow", "author:Yoshua Bengio"]) == 0
    assert cli.main(["follow", "cs.LG"]) == 1  # already followed
    assert cli.main(["follow", "quantum"]) == 2
    capsys.readouterr()
    assert cli.main(["follow", "--list"]) == 0
    assert capsys.readouterr().out.splitlines() == ["cs.LG", "author:Yoshua Bengio"]
    assert cli.main(["follow", "--remove", "cs.LG"]) == 0
    assert cli.main(["follow", "--remove", "cs.LG"]) == 1
    assert read_config(locations.config_path(config_dir)).follow == ("author:Yoshua Bengio",)


def test_fetch_offline_says_so_in_one_line_and_exits_1(
    config_dir: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cli.main(["follow", "cs.LG"])
    capsys.readouterr()
    status = cli.main(["fetch", "--api-url", "http://127.0.0.1:9/api/query"])
    err = capsys.readouterr().err
    assert status == 1
    assert len(err.splitlines()) == 1 and "could not reach arXiv" in err


def test_fetch_with_nothing_followed_says_what_to_do(capsys: pytest.CaptureFixture[str]) -> None:
    assert cli.main(["fetch"]) == 2
    assert "abstracts follow cs.LG" in capsys.readouterr().err


def test_fetch_reads_the_api_url_from_the_config_and_then_list_reads_the_library(
    config_dir: Path, arxiv: FakeArxiv, capsys: pytest.CaptureFixture[str]
) -> None:
    from datetime import UTC, datetime

    cli.main(["follow", "cs.LG"])
    path = locations.config_path(config_dir)
    path.write_text(path.read_text() + f'api_url = "{arxiv.url}"\n', encoding="utf-8")
    arxiv.catalogue = papers(5, datetime.now(UTC) - timedelta(hours=1))
    assert cli.main(["fetch", "--quiet"]) == 0
    assert "cs.LG: 5 new papers" in capsys.readouterr().out
    assert cli.main(["list"]) == 0
    assert len(capsys.readouterr().out.splitlines()) == 5
