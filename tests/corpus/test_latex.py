"""LaTeX rendered for reading: each conversion, every LaTeX fragment of the seeds, hostile text."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tui.corpus.latex import (
    Rendered,
    StyleSpan,
    needs_rendering,
    render,
    shown_safely,
    to_plain,
)

SEEDS = Path(__file__).resolve().parents[2] / "seeds"


def styled(r: Rendered) -> list[tuple[str, str, str | None]]:
    return [(r.plain[s.start : s.end], s.style, s.url) for s in r.spans]


@pytest.mark.parametrize(
    ("src", "plain"),
    [
        (r"a $3\times$ speedup", "a 3× speedup"),
        (r"ERL-Re$^2$", "ERL-Re²"),
        (r"$\mathcal{O}(\sqrt m)$", "𝒪(√m)"),
        (r"$\alpha, \beta, \Omega$", "α, β, Ω"),
        (r"($<$7\%)", "(<7%)"),
        (r"``quoted''", "“quoted”"),
        ("a---b", "a—b"),
        ("1--2", "1–2"),
        ("a~b", "a\u00a0b"),
        (r"$x_i^2$", "xᵢ²"),
        (r"$10^{-3}$", "10⁻³"),
        (r"$W_Q$", "W_Q"),
        (r"$x^{\mathcal{A}}$", "x^𝒜"),
        (r"$\mathbb{R}^d$", "ℝᵈ"),
        (r"$\frac{a+b}{2}$", "(a+b)/2"),
        (r"$\frac{1}{2}$", "1/2"),
        (r"$\tilde{x}$ $\widetilde{O}(n)$", "x̃ Õ(n)"),
        (r"$\log n$", "log n"),
        (r"$\ell_2$", "ℓ₂"),
        (r"$W^\top$", "Wᵀ"),
        (r"$20^{\circ}$", "20°"),
        (r"$\left( x \right)$", "( x )"),
        (r"\'e \"u \H{o}", "é ü ő"),
        (r"\$5 and 50% off", "$5 and 50% off"),
        (r"$\unicode{x2013}$", "–"),
        # Half of a UTF-16 pair is no character (it could not be written out): kept as source.
        (r"$\unicode{xD800}$ $\unicode{57343}$", r"\unicode{xD800} \unicode{57343}"),
        (r"$\cal O(n)$", "𝒪(n)"),
    ],
)
def test_conversions(src: str, plain: str) -> None:
    assert render(src).plain == plain
    assert to_plain(src) == plain


def test_style_spans() -> None:
    r = render(r"\emph{a} \textit{b c} \textbf{d} \texttt{e} {\em f g} h")
    assert r.plain == "a b c d e f g h"
    assert styled(r) == [
        ("a", "italic", None),
        ("b c", "italic", None),
        ("d", "bold", None),
        ("e", "mono", None),
        ("f g", "italic", None),
    ]
    assert all(isinstance(s, StyleSpan) for s in r.spans)


def test_links() -> None:
    r = render(
        r"see \url{https://x.org/a_b~c} and https://github.com/o/r. Or \href{http://h.io}{here}"
    )
    assert r.plain == "see https://x.org/a_b~c and https://github.com/o/r. Or here"
    assert styled(r) == [
        ("https://x.org/a_b~c", "link", "https://x.org/a_b~c"),
        ("https://github.com/o/r", "link", "https://github.com/o/r"),
        ("here", "link", "http://h.io"),
    ]
    assert render("(see https://en.wikipedia.org/wiki/A_(b))").spans[0].url == (
        "https://en.wikipedia.org/wiki/A_(b)"
    )


@pytest.mark.parametrize(
    ("src", "links"),
    [
        (
            "code at www.example.org/repo/x_y. Thanks",
            [("www.example.org/repo/x_y", "https://www.example.org/repo/x_y")],
        ),
        ("(www.github.com/o/r)", [("www.github.com/o/r", "https://www.github.com/o/r")]),
        (
            "{www.a.org:8080/x?y=1#z},",
            [("www.a.org:8080/x?y=1#z", "https://www.a.org:8080/x?y=1#z")],
        ),
        ("https://www.a.org/x", [("https://www.a.org/x", "https://www.a.org/x")]),
        ("mail a@www.x.org or x.www.y.org", []),
        ("the www. prefix, www.example alone", []),
    ],
)
def test_bare_www_urls_are_links(src: str, links: list[tuple[str, str]]) -> None:
    r = render(src)
    assert r.plain == src.replace("{", "").replace("}", "")
    assert [(text, url) for text, style, url in styled(r) if style == "link"] == links
    assert to_plain(src) == r.plain


@pytest.mark.parametrize(
    "src",
    [
        "see https://a.b/x\x1b]8;;https://evil\x07y",
        "\\url{https://a.b/\x1b[2J}",
        "\\href{https://a.b/\x07}{here}",
        "www.a.org/x\x1b[31m",
    ],
)
def test_link_targets_never_hold_control_characters(src: str) -> None:
    # A link target reaches the terminal in an OSC 8 sequence: ESC or BEL there could end it.
    r = render(src)
    assert r.spans and all(s.url for s in r.spans)
    assert not any(re.search(r"[\x00-\x1f\x7f-\x9f]", s.url or "") for s in r.spans)


@pytest.mark.parametrize(
    "src",
    [r"\citep{smith2020}", r"\ours{}", r"\textcolor{red}{x}", r"\newcommand", r"$\foo{x}$"],
)
def test_unconverted_latex_stays_visible(src: str) -> None:
    plain = render(src).plain
    assert "\\" in plain
    for word in re.findall(r"[a-z0-9]+", src.split("{", 1)[-1]):
        assert word in plain


@pytest.mark.parametrize(
    "src",
    [r"\href{x}", r"\url{", r"$\frac{1}$", r"{{{{", r"}}}", r"$", r"\\", "\\", r"\sqrt", r"$x^$"],
)
def test_broken_input_does_not_raise(src: str) -> None:
    assert isinstance(render(src).plain, str)


def test_deep_nesting_does_not_recurse_forever() -> None:
    src = "{" * 500 + "x" + "}" * 500
    assert "x" in render(src).plain


# Every LaTeX fragment in the bundled seeds, and how it must read.
SEED_FRAGMENTS = {
    r"$-20^{\circ}\texttt{C}\sim 120^{\circ}\texttt{C}$": "-20°C∼ 120°C",
    r"$1$": "1",
    r"$182$": "182",
    r"$230$": "230",
    r"$53.2\%$": "53.2%",
    r"$57\%$": "57%",
    r"$81.1\%$": "81.1%",
    r"$83.2\%$": "83.2%",
    r"$99.3\%$": "99.3%",
    r"$<$": "<",
    r"$K$": "K",
    r"$dH$": "dH",
    r"$\epsilon$": "ϵ",
    r"$\mathcal{O}(1)$": "𝒪(1)",
    r"$\mathcal{O}(\sqrt m)$": "𝒪(√m)",
    r"$\textit{online}$": "online",
    r"$\textit{single pass}$": "single pass",
    r"$\times$": "×",
    r"$\varphi(X) \perp \!\!\! \perp Z \mid Y$": "φ(X) ⊥⊥ Z | Y",
    r"$\varphi(X)$": "φ(X)",
    r"ERL-Re$^2$": "ERL-Re²",
    "Observability---where": "Observability—where",
    "bags-of-words---i.e.": "bags-of-words—i.e.",
    "system---is": "system—is",
    " -- ": " – ",
    r"47.8\%": "47.8%",
    r"\emph{B-stability}": "B-stability",
    r"\emph{COCO-Order \& Flickr30k-Order}": "COCO-Order & Flickr30k-Order",
    r"\emph{all-policy model estimation}": "all-policy model estimation",
    r"\textit{decomposition of perturbations into scale and connectivity components}": (
        "decomposition of perturbations into scale and connectivity components"
    ),
    r"\textit{divide-to-adapt}": "divide-to-adapt",
    r"\textit{l}-variational": "l-variational",
    r"\texttt{HotProtein},": "HotProtein,",
    r"\url{https://github.com/PKU-ML/Rank-Differential-Mechanism}.": (
        "https://github.com/PKU-ML/Rank-Differential-Mechanism."
    ),
    "``curse of dimensionality''": "“curse of dimensionality”",
    "``white-box''": "“white-box”",
    r"{in the large $d$ regime}": "in the large d regime",
    "https://github.com/QingruZhang/AdaLoRA": "https://github.com/QingruZhang/AdaLoRA",
}


@pytest.mark.parametrize(("src", "plain"), list(SEED_FRAGMENTS.items()))
def test_seed_fragment(src: str, plain: str) -> None:
    assert render(src).plain == plain


def test_every_seed_fragment_is_covered_and_seeds_render_clean() -> None:
    """Each `$...$`, macro and quote in the seeds is listed above, and no source is left."""
    text = "\n".join(p.read_text(encoding="utf-8") for p in sorted(SEEDS.glob("*.txt")))
    for math in set(re.findall(r"\$[^$]*\$", text)):
        assert math in text
        r = render(math).plain
        assert "$" not in r and "\\" not in r, math
    plain = to_plain(text)
    assert "\\" not in plain and "$" not in plain and "``" not in plain
    for macro in set(re.findall(r"\\[a-z]+\{", text)):
        assert any(macro in k for k in SEED_FRAGMENTS), macro


@pytest.mark.parametrize(
    ("src", "plain"),
    [
        ("[bold red]x[/]", "[bold red]x[/]"),
        ("[link=http://e.vil]click[/link] [/]", "[link=http://e.vil]click[/link] [/]"),
        ("\x1b[31mred\x1b[0m", "␛[31mred␛[0m"),
        ("bell\x07 nul\x00 del\x7f csi\x9b", "bell␇ nul␀ del␡ csi\ufffd"),
        ("$x$\x1b[2J", "x␛[2J"),
        ("a\rb", "a␍b"),
    ],
)
def test_hostile_text_is_literal_and_harmless(src: str, plain: str) -> None:
    r = render(src)
    assert r.plain == plain
    assert to_plain(src) == plain
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]", r.plain)


BIDI = "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


@pytest.mark.parametrize("char", list(BIDI))
def test_bidi_controls_are_shown_as_replacement_characters(char: str) -> None:
    src = f"price 100{char}$ cheap"
    assert needs_rendering(src)
    assert to_plain(src) == "price 100\ufffd$ cheap"
    assert render(src).plain == "price 100\ufffd$ cheap"
    # Inside LaTeX too, and never dropped: one replacement for each control.
    r = render(f"\\emph{{a{char}b}} ``{char}''")
    assert r.plain == "a\ufffdb \u201c\ufffd\u201d"
    assert r.spans == (StyleSpan(0, 3, "italic"),)


def test_bidi_override_never_reaches_a_link() -> None:
    r = render("see https://example.org/a\u202egnp.exe now")
    assert r.plain == "see https://example.org/a\ufffdgnp.exe now"
    (link,) = r.spans
    assert link.url == "https://example.org/a"
    assert r.plain[link.start : link.end] == link.url
    r = render("\\url{https://e.org/\u2066x}")
    assert r.plain == "https://e.org/\ufffdx"
    assert all(not set(BIDI) & set(s.url or "") for s in r.spans)


def test_source_view_keeps_latex_and_shows_controls() -> None:
    src = "\\emph{a}\u202eb\x1b[2J\tc\u0085"
    assert shown_safely(src) == "\\emph{a}\ufffdb\u241b[2J\tc\ufffd"
    text = "Plain $x$ with \\LaTeX."
    assert shown_safely(text) is text


def test_fast_path_returns_text_unchanged() -> None:
    text = "A plain abstract, with (brackets), 50% and 'quotes' - nothing else."
    assert to_plain(text) is text
    assert render(text) == Rendered(text, ())


def test_spans_lie_within_plain_and_are_sorted() -> None:
    r = render(r"\textbf{a \emph{b} c} https://x.io $\textit{d}$")
    assert [s.start for s in r.spans] == sorted(s.start for s in r.spans)
    assert all(0 <= s.start < s.end <= len(r.plain) for s in r.spans)
