"""config.toml's settings: what is well formed is read, what is not is reported with the
file and the key named, and the rest still applies."""

from __future__ import annotations

from pathlib import Path

from tui.config import Settings, read_settings


def _write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "config.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_no_file_means_no_settings_and_no_problems(tmp_path: Path) -> None:
    assert read_settings(tmp_path / "config.toml") == (Settings(), [])


def test_every_setting_is_read(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'theme = "gruvbox"\nauto_read = false\ndefault_sort = "file"\n'
        '[keys]\n"abstracts.bookmark" = "s,ctrl+b"\n',
    )
    settings, problems = read_settings(path)
    assert problems == []
    assert settings == Settings({"abstracts.bookmark": "s,ctrl+b"}, "gruvbox", False, "file")


def test_a_wrong_value_names_the_file_and_key_and_the_rest_applies(tmp_path: Path) -> None:
    path = _write(
        tmp_path,
        'theme = "nord"\nauto_read = "no"\ndefault_sort = "date"\n'
        '[keys]\n"abstracts.bookmark" = 3\n"abstracts.dismiss" = "z"\n',
    )
    settings, problems = read_settings(path)
    assert settings == Settings({"abstracts.dismiss": "z"}, "nord", None, None)
    assert len(problems) == 3
    assert all(p.startswith(f"{path}: ") and p.endswith("; ignored") for p in problems)
    assert f"{path}: auto_read: must be true or false; ignored" in problems
    assert any("default_sort" in p and '"relevance" or "file"' in p for p in problems)
    assert any("[keys] abstracts.bookmark" in p for p in problems)


def test_keys_that_are_not_a_table_are_reported(tmp_path: Path) -> None:
    settings, problems = read_settings(_write(tmp_path, 'keys = "b"\ntheme = "nord"\n'))
    assert settings.keys == {}
    assert settings.theme == "nord"
    assert len(problems) == 1 and ": keys: must be a table" in problems[0]


def test_a_file_that_is_not_toml_applies_nothing_and_says_so(tmp_path: Path) -> None:
    path = _write(tmp_path, "theme = \n")
    settings, problems = read_settings(path)
    assert settings == Settings()
    assert len(problems) == 1
    assert problems[0].startswith(f"{path}: not valid TOML")
    assert "no settings from it apply" in problems[0]
