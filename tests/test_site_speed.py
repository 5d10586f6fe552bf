"""The website's speed work (tools/site: lazy, dom, prune_css, icons).

Checked on small pages and stylesheets shaped like Quarto's output,
without Quarto; tests/test_render.py checks a real render, and the site
check (tools/sitecheck) measures it in a browser.
"""

from __future__ import annotations

import html
import re

import pytest
from conftest import ROOT

from tools.site import dom, icons, lazy, postrender, prune_css

HEAD = """<html><head>
<style>p{}</style>
<script defer src="../site_libs/quarto-nav/quarto-nav.js"></script>
<script defer src="../site_libs/quarto-search/autocomplete.umd.js"></script>
<script defer src="../site_libs/quarto-search/fuse.min.js"></script>
<script defer src="../site_libs/quarto-search/quarto-search.js"></script>
<script defer src="../site_libs/quarto-html/popper.min.js"></script>
<script defer src="../site_libs/quarto-html/tippy.umd.min.js"></script>
<script defer src="../site_libs/quarto-html/anchor.min.js"></script>
<script defer src="../site_libs/bootstrap/bootstrap.min.js"></script>
</head><body>
<header id="quarto-header" class="headroom fixed-top">
<nav>x</nav>
</header>
<script id="quarto-html-after-body">
    function tippyHover(el, contentFn) {
      window.tippy(el, config);
    }
</script>
"""


def page(body: str = "") -> str:
    return HEAD + body + "</body></html>"


# ------------------------------------------------------------- lazy.py


def test_search_and_tooltip_scripts_load_on_demand():
    finished = lazy.lazy_scripts(page())
    head = finished[: finished.index("</head>")]
    for name in lazy.LAZY_SCRIPTS["search"] + lazy.LAZY_SCRIPTS["tips"]:
        assert (
            f'<script defer src="../site_libs/quarto-search/{name}"'
            not in (head)
        )
        assert name in head  # named in the loader, in order
    sources = re.search(r"const sources = (\{.*?\});", head).group(1)
    assert sources.index("autocomplete") < sources.index("quarto-search.js")
    assert sources.index("popper") < sources.index("tippy")
    # The scripts every page needs at once stay as they were.
    assert '<script defer src="../site_libs/quarto-nav/quarto-nav.js">' in head
    assert (
        '<script defer src="../site_libs/quarto-html/anchor.min.js">' in head
    )
    # Quarto's tooltips go through the loader's wrapper.
    assert "window.tbTippy(el, config);" in finished
    assert "window.tippy(el, config);" not in finished.split("</head>")[1]
    assert lazy.lazy_scripts(finished) == finished


def test_tooltip_scripts_stay_if_quarto_calls_tippy_differently():
    changed = page().replace("window.tippy(el, config);", "tippy(el);")
    assert lazy.lazy_scripts(changed) == changed


def test_header_height_is_set_before_the_first_paint():
    finished = lazy.header_offset(page())
    after = finished.index("</header>\n") + len("</header>\n")
    assert finished[after:].startswith("<script data-tb-header-offset>")
    assert lazy.header_offset(finished) == finished


MATHS_PAGE = """<html><head>
<link rel="stylesheet" href="../tools/site/katex/katex.min.css">
</head><body><p><span class="math inline"><span class="katex">FORMULA
</span></span></p></body></html>"""
VARIABLE = '<span class="mord mathnormal">x</span>'


def test_a_page_fetches_the_maths_fonts_it_uses_with_its_styles():
    page = MATHS_PAGE.replace("FORMULA", VARIABLE)
    finished = lazy.preload_maths_fonts(page)
    head = finished[: finished.index("</head>")]
    folder = "../tools/site/katex/fonts/"
    preloads = re.findall(r'<link rel="preload" href="([^"]+)"[^>]*>', head)
    assert preloads == [
        folder + "KaTeX_Main-Regular.woff2",
        folder + "KaTeX_Math-Italic.woff2",
    ]
    # Beside the stylesheet that names them, fetched as the fonts will be.
    assert head.index("preload") < head.index("katex.min.css")
    for link in re.findall(r'<link rel="preload"[^>]*>', head):
        assert 'as="font"' in link and " crossorigin" in link
    assert lazy.preload_maths_fonts(finished) == finished


def test_only_a_font_the_maths_uses_is_preloaded():
    numbers_only = lazy.preload_maths_fonts(MATHS_PAGE.replace("FORMULA", "2"))
    assert "KaTeX_Main-Regular" in numbers_only
    assert "KaTeX_Math-Italic" not in numbers_only
    prose = page("<p>No maths here.</p>")
    assert lazy.preload_maths_fonts(prose) == prose


# ------------------------------------------------------------- dom.py

FONT = "data:n/a;base64,AAEAAA"
ANCHORJS = (
    "A.sheet.insertRule('@font-face{font-family:anchorjs-icons;src:url("
    + FONT
    + ') format("truetype")}\',A.sheet.cssRules.length)'
)


def test_anchor_font_is_read_from_anchorjs():
    assert dom.anchor_font(ANCHORJS) == FONT
    assert dom.anchor_font("no font here") is None


def test_anchors_are_written_as_anchorjs_writes_them():
    body = (
        '<h2 data-number="1" class="anchored" data-anchor-id="sec-a">'
        "A</h2>\n"
        '<div id="fig-b" class="quarto-float anchored">\n'
        "<div><figure>b</figure></div>\n</div>\n<p>after</p>"
    )
    finished = dom.prebuilt_anchors(page(body), FONT)
    # The link is the last child of each element (AnchorJS then sees it
    # and adds none), pointing at the id, else at the data-anchor-id.
    assert f"A{dom.ANCHOR_LINK.format(id='sec-a')}</h2>" in finished
    assert (
        f"</div>\n{dom.ANCHOR_LINK.format(id='fig-b')}</div>\n<p>after"
    ) in finished
    # AnchorJS's stylesheet, with its font, before the head's first style.
    style = finished.index('<style class="anchorjs">')
    assert style < finished.index("<style>p{}")
    assert FONT in finished[style : finished.index("</style>", style)]
    assert finished.count('<a class="anchorjs-link ') == 2
    assert dom.prebuilt_anchors(finished, FONT) == finished


def test_without_anchorjs_font_the_page_is_left_to_anchorjs():
    body = '<h2 class="anchored" data-anchor-id="a">A</h2>'
    assert dom.prebuilt_anchors(page(body), None) == page(body)


CODE = (
    '<pre class="sourceCode python code-with-copy"><code class="sourceCode '
    'python"><span id="cb3-1"><span class="kw">def</span> f(x):</span>\n'
    '<span id="cb3-2">    <span class="cf">return</span> x '
    '<span class="op">&lt;</span> <span class="dv">1</span></span>\n'
    '<span id="cb3-3"></span>\n'
    '<span id="cb3-4"><span class="co"># done</span></span></code></pre>'
)


def text_of(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_code_lines_share_one_wrapper_and_keep_their_text():
    finished = dom.single_code_wrappers(page(CODE))
    assert 'id="cb3-' not in finished
    assert '<code class="sourceCode python"><span><span class="kw">' in (
        finished
    )
    assert finished.count("<span>") == 1
    assert '<span class="co"># done</span></span></code>' in finished
    # What a reader copies (the code's text) is unchanged, line for line.
    assert text_of(finished) == text_of(page(CODE))
    assert dom.single_code_wrappers(finished) == finished


def test_code_lines_stay_wrapped_where_annotations_use_them():
    annotated = page(CODE + '<dl class="code-annotation-container-grid">')
    assert dom.single_code_wrappers(annotated) == annotated


def test_a_code_block_carries_its_line_counts():
    block = f'<div class="sourceCode cell-code" id="cb3">{CODE}</div>'
    finished = dom.sized_code_blocks(page(block))
    # Four lines, each shorter than a phone's row.
    assert '<div class="sourceCode cell-code" id="cb3" style="' in finished
    assert 'style="--tb-lines:4;--tb-middle-lines:4">' in finished
    assert text_of(finished) == text_of(page(block))
    assert dom.sized_code_blocks(finished) == finished
    long = "x = " + " + ".join(["value"] * 12)  # 100 characters
    wide = f'<div class="sourceCode"><pre><code>{long}\n</code></pre></div>'
    assert dom.wrapped_rows(long, dom.MIDDLE_COLUMNS) == 2
    # A phone scrolls the long line: its rows are the lines, 2.
    sizes = "--tb-lines:2;--tb-middle-lines:3"
    assert sizes in dom.sized_code_blocks(wide)


INLINE_MATHS = (
    '<span class="math inline"><span class="katex"><span class="katex-mathml">'
    "<math><semantics><mi>x</mi><annotation>x^{2}</annotation></semantics>"
    '</math></span><span class="katex-html" aria-hidden="true">x2</span>'
    "</span></span>"
)


SECTION = '<h2 id="s">S</h2>'


def test_a_paragraph_carries_the_characters_it_shows():
    text = f"<p>Square &amp; {INLINE_MATHS} it.\u200b</p>"
    outside = "<p>In the footer.</p>"
    finished = dom.sized_paragraphs(
        f"<body><main class='content'>{SECTION}{text}</main>{outside}</body>"
    )
    # "Square & x2 it.": the MathML, its TeX source and KaTeX's
    # zero-width spaces are not shown.
    assert f'<p style="--tb-chars:15">Square &amp; {INLINE_MATHS}' in finished
    assert outside in finished
    assert text_of(finished) == text_of(f"{SECTION}{text}{outside}")
    assert dom.sized_paragraphs(finished) == finished


def test_what_may_be_on_the_first_screen_is_not_sized():
    # The title block and the opening, up to the first section heading;
    # and an image, whose height is not its text's.
    title = '<header id="title-block-header"><p>The authors</p></header>'
    opening = "<p>The opening.</p>"
    image = '<p><img src="a.png" alt="A."></p>'
    main = f"<main>{title}{opening}{SECTION}{image}<p>Text.</p></main>"
    finished = dom.sized_paragraphs(main)
    assert finished.startswith(f"<main>{title}{opening}{SECTION}{image}")
    assert '<p style="--tb-chars:5">Text.</p>' in finished
    # A page without sections is all opening.
    assert dom.sized_paragraphs(f"<main>{opening}</main>") == (
        f"<main>{opening}</main>"
    )


def display(height: str) -> str:
    """A display equation as KaTeX draws it, its tallest strut `height`."""
    return (
        '<span class="math display"><span class="katex-display">'
        '<span class="katex"><span class="katex-html">'
        f'<span class="katex-strut" style="height:{height}em;"></span>'
        '<span>y=1</span><span class="katex-tag">(1.1)</span>'
        "</span></span></span></span>"
    )


@pytest.mark.parametrize(
    "height, wide, phone",
    [
        # One line: never shorter than 1.34 rows (1.21 on a phone).
        ("1.0", 1.34 + 1.33, 1.21 + 1.33 + 0.88),
        # A fraction of a sum; on a phone its number has a line below it.
        ("3.1304", 0.81 * 3.1304 + 1.66, 0.74 * 3.1304 + 1.66 + 0.88),
    ],
)
def test_a_display_equation_counts_its_rows_not_its_characters(
    height, wide, phone
):
    paragraph = f"<p>Hence {display(height)} so.</p>"
    finished = dom.sized_paragraphs(f"<main>{SECTION}{paragraph}</main>")
    # "Hence so.": the equation is not counted as text.
    sizes = (
        f"--tb-chars:9;--tb-display-rows:{wide:.2f};"
        f"--tb-phone-display-rows:{phone:.2f}"
    )
    assert f'<p style="{sizes}">' in finished
    assert text_of(finished) == text_of(f"<main>{SECTION}{paragraph}</main>")
    two = f"<p>{display('1.0')}{display('1.0').replace('katex-tag', 'x')}</p>"
    assert f"--tb-phone-display-rows:{2 * (1.21 + 1.33) + 0.88:.2f}" in (
        dom.sized_paragraphs(f"<main>{SECTION}{two}</main>")
    )


def test_the_stylesheet_sizes_skipped_paragraphs_by_their_characters():
    scss = (ROOT / "tools" / "site" / "book.scss").read_text(encoding="utf-8")
    # Only the paragraphs postrender.py sized are skipped.
    rule = re.search(
        r'#quarto-document-content p\[style\*="--tb-chars"\] \{(.*?)\n\}',
        scss,
        re.S,
    )
    assert rule, "book.scss has no rule for the text's sized paragraphs"
    assert "content-visibility: auto;" in rule.group(1)
    written = re.findall(
        r"(--tb-[a-z-]+):",
        dom.sized_paragraphs(f"<main>{SECTION}<p>y {display('1')}</p></main>"),
    )
    assert written == [
        "--tb-chars",
        "--tb-display-rows",
        "--tb-phone-display-rows",
    ]
    for name in written:
        assert f"var({name}" in scss
    # Each range of widths sets the characters a row holds.
    assert re.search(r"@media \(max-width: \$widest\)", scss)
    # Without it containment cuts off a focused link's outline.
    assert "overflow-clip-margin:" in rule.group(1)
    # A link to an anchor has the page laid out whole first (the header
    # script adds the class): the site check's landing test shows why.
    assert "html.tb-laid-out #quarto-document-content p {" in scss
    assert 'classList.add("tb-laid-out")' in lazy.HEADER_OFFSET


@pytest.mark.parametrize(
    "line, indent, rows",
    [
        ("", 8, 1),
        ("x" * 10, 8, 1),
        ("x" * 10 + " " + "y" * 9, 8, 1),  # exactly a row of 20
        ("x" * 10 + " " + "y" * 10, 8, 2),  # the word moves to the next row
        ("x" * 10 + " " + "y" * 13, 8, 3),  # 8 + 13 is more than a row
        ("    " + "x" * 16, 8, 1),  # indentation counts
        ("x" * 45, 0, 3),  # a word longer than a row breaks inside
        ("x" * 45, 8, 4),  # rows after the first hold 12 of it
        ("ab " * 10, 8, 2),
        # By default the rest begins 4 deeper than the line: 8 + 4.
        ("        " + "x" * 10 + " " + "y" * 9, None, 3),
    ],
)
def test_wrapped_rows_of_a_line_of_code(line, indent, rows):
    assert dom.wrapped_rows(line, 20, indent) == rows


def test_a_long_line_of_code_keeps_a_wrapper_for_its_hanging_indent():
    long = "    x = " + " + ".join(["value"] * 7)  # 4 + 60 characters
    code = (
        '<div class="sourceCode"><pre><code class="sourceCode python">'
        f'<span id="cb1-1">{html.escape(long)}</span>\n'
        '<span id="cb1-2">y = 1</span></code></pre></div>'
    )
    finished = dom.single_code_wrappers(code)
    hang = 4 + dom.HANGING
    assert (
        f'<span><span class="tb-long" style="--tb-hang:{hang}ch">'
        f"{html.escape(long)}</span>\ny = 1</span>"
    ) in finished
    scss = (ROOT / "tools" / "site" / "book.scss").read_text(encoding="utf-8")
    rule = re.search(r"span\.tb-long \{(.*?)\}", scss, re.S)
    assert "padding-left: var(--tb-hang);" in rule.group(1)
    assert "text-indent: calc(-1 * var(--tb-hang));" in rule.group(1)


def test_the_stylesheet_sizes_skipped_code_by_the_counts_written():
    scss = (ROOT / "tools" / "site" / "book.scss").read_text(encoding="utf-8")
    written = re.findall(
        r"(--tb-[a-z-]+):",
        dom.sized_code_blocks(
            '<div class="sourceCode"><pre><code>x</code></pre></div>'
        ),
    )
    assert written == ["--tb-lines", "--tb-middle-lines"]
    for name in written:
        assert f"var({name}," in scss
    assert "content-visibility: auto;" in scss


def test_finish_applies_the_speed_work():
    block = f'<div class="sourceCode" id="cb3">{CODE}</div>'
    heading = '<h2 class="anchored" data-anchor-id="a">A</h2>'
    finished = postrender.finish(
        page(f"<main>{block}{heading}<p>Text.</p></main>"), FONT
    )
    assert "data-tb-lazy-scripts" in finished
    assert "data-tb-header-offset" in finished
    assert 'id="cb3-1"' not in finished
    assert '<style class="anchorjs">' in finished
    assert 'style="--tb-lines:4;' in finished
    # Paragraphs are sized once their maths is drawn (test_postrender.py).
    assert "<p>Text.</p>" in finished


# ------------------------------------------------------------- prune_css.py

CSS = (
    '@charset "UTF-8";/*! licence */:root{--x:1}'
    ".used{a:1}.absent{a:2}.used .absent,.used>p{a:3}"
    "p:not(.absent){a:4}#here{a:5}#gone{a:6}"
    '.used::after{content:"}{"}[data-x=".absent"]{a:7}'
    "@media (min-width:1px){.absent{a:8}.used{a:9}}"
    "@media print{.absent{a:10}}"
    "@font-face{font-family:x;src:url(x.woff2)}"
    "@keyframes k{0%{a:0}to{a:1}}"
    ".bs-tooltip-auto{a:11}.esc\\:x{a:12}"
)
WORDS = {"used", "here", "p"}


def test_rules_no_element_can_match_are_dropped():
    pruned = prune_css.prune(CSS, WORDS)
    for kept in (
        '@charset "UTF-8";',
        "/*! licence */",
        ":root{--x:1}",
        ".used{a:1}",
        ".used>p{a:3}",
        "p:not(.absent){a:4}",
        "#here{a:5}",
        '.used::after{content:"}{"}',
        '[data-x=".absent"]{a:7}',
        "@media (min-width:1px){.used{a:9}}",
        "@font-face{font-family:x;src:url(x.woff2)}",
        "@keyframes k{0%{a:0}to{a:1}}",
        ".bs-tooltip-auto{a:11}",
        ".esc\\:x{a:12}",
    ):
        assert kept in pruned, kept
    for dropped in ("a:2", ".used .absent", "a:6", "a:8", "a:10"):
        assert dropped not in pruned, dropped
    assert prune_css.prune(pruned, WORDS) == pruned


def test_pruning_with_every_name_present_changes_nothing():
    class Everything(set):
        def __contains__(self, name):
            return True

    assert prune_css.prune(CSS, Everything()) == CSS


def test_site_words_come_from_pages_and_scripts(tmp_path):
    (tmp_path / "a.html").write_text('<p class="x-one">', encoding="utf-8")
    (tmp_path / "b.js").write_text('add("x-two")', encoding="utf-8")
    (tmp_path / "c.css").write_text(".x-three{}", encoding="utf-8")
    words = prune_css.site_words(tmp_path)
    assert {"x-one", "x-two"} <= words
    assert "x-three" not in words


# ------------------------------------------------------------- icons.py


def test_the_subset_draws_exactly_the_listed_icons():
    css = (icons.HERE / icons.CSS).read_text(encoding="utf-8")
    assert icons.subset_icons(css) == set(icons.ICONS)
    assert f'url("./{icons.FONT}") format("woff2")' in css
    font = (icons.HERE / icons.FONT).read_bytes()
    assert font[:4] == b"wOF2"
    assert len(font) < 4000


def site_with_icons(tmp_path, used):
    target = tmp_path / "site_libs" / "bootstrap"
    target.mkdir(parents=True)
    (target / icons.CSS).write_text(".bi-alarm::before{}", encoding="utf-8")
    (target / "bootstrap-icons.woff").write_bytes(b"wOFF")
    (tmp_path / "index.html").write_text(
        f'<i class="bi bi-{used}"></i>', encoding="utf-8"
    )
    return target


def test_the_subset_replaces_quartos_icon_font(tmp_path):
    target = site_with_icons(tmp_path, "github")
    words = prune_css.site_words(tmp_path)
    assert icons.install(tmp_path, words) == []
    assert (target / icons.CSS).read_text(encoding="utf-8") == (
        icons.HERE / icons.CSS
    ).read_text(encoding="utf-8")
    assert (target / icons.FONT).read_bytes()[:4] == b"wOF2"
    assert not (target / "bootstrap-icons.woff").exists()
    assert icons.install(tmp_path, words) == []  # again: nothing changes


def test_an_icon_missing_from_the_subset_warns_and_keeps_quartos(
    tmp_path, capsys
):
    target = site_with_icons(tmp_path, "alarm")
    assert icons.install(tmp_path, prune_css.site_words(tmp_path)) == ["alarm"]
    assert "WARN:" in capsys.readouterr().err
    assert (target / "bootstrap-icons.woff").exists()
    assert (target / icons.CSS).read_text(encoding="utf-8") == (
        ".bi-alarm::before{}"
    )


@pytest.mark.parametrize("used", ["github", "file-pdf", "bi-x"])
def test_icon_names_are_found_in_pages_and_scripts(tmp_path, used):
    (tmp_path / "a.js").write_text(f'icon = "bi-{used}";', encoding="utf-8")
    words = prune_css.site_words(tmp_path)
    assert icons.used_icons(words) == {used}
