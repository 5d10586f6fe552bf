"""tools/site's post-render step, on pages shaped like Quarto's.

tests/test_render.py checks that every page of a real render is finished
(assert_finished) and the site check (tools/sitecheck) checks them in a
browser; here, what those cannot see: what each rewrite writes, that it
leaves alone what it must, and that finishing twice changes nothing.
"""

from __future__ import annotations

import html
import json
import re
import shutil

import pytest
from conftest import ROOT

from tools.site import dom, postrender, prune_css, search_text

HEAD = """<html><head>
<style>p{}</style>
<script src="../site_libs/quarto-nav/quarto-nav.js"></script>
<script src="../site_libs/quarto-search/autocomplete.umd.js"></script>
<script src="../site_libs/quarto-search/fuse.min.js"></script>
<script src="../site_libs/quarto-search/quarto-search.js"></script>
<script src="../site_libs/quarto-html/popper.min.js"></script>
<script src="../site_libs/quarto-html/tippy.umd.min.js"></script>
<script src="../site_libs/bootstrap/bootstrap.min.js"></script>
<script type="module" src="../site_libs/quarto-ojs/quarto-ojs-runtime.js">\
</script>
<script defer="" src="../tools/site/katex/katex.min.js"></script>
<script>document.addEventListener("DOMContentLoaded", function () {
 var mathElements = document.getElementsByClassName("math");
}});
</script>
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
OJS_START = """<script type="module">
if (window.location.protocol === "file:") { alert("no"); }
window._ojs.paths.docToRoot = "..";
window._ojs.runtime.interpretFromScriptTags();
</script>
"""
WIDE = "x" * (postrender.PHONE_COLUMNS + 1)


def page(body: str = "") -> str:
    return HEAD + body + "</body></html>"


def code(text: str) -> str:
    return (
        '<div class="sourceCode cell-code" id="cb1"><pre class="sourceCode '
        'python code-with-copy"><code class="sourceCode python">'
        f'<span id="cb1-1"><a href="#cb1-1" aria-hidden="true" tabindex="-1">'
        f"</a>{text}</span></code></pre></div>"
    )


def output(text: str) -> str:
    return (
        '<div class="cell-output cell-output-stdout">\n'
        f"<pre><code>{text}</code></pre>\n</div>"
    )


# (what the page holds, what its finished page must hold, must not hold)
FINISHED = {
    "explorer-runtime-loads-near-the-screen": (
        '<script src="../tools/site/ojs/htl.min.js"></script>\n'
        '<script src="../tools/site/ojs/inputs.min.js"></script>\n'
        '<div id="ojs-cell-1"></div>' + OJS_START,
        [
            "IntersectionObserver",
            'await tbLoadInOrder\\(\\["../tools/site/ojs/htl.min.js", '
            '"../tools/site/ojs/inputs.min.js"\\]\\);\n  await import\\('
            '"../site_libs/quarto-ojs/quarto-ojs-runtime.js"\\);\n  if[^@]*'
            "interpretFromScriptTags",
        ],
        ['<script type="module" src="[^"]*runtime', "<script src=[^>]*ojs/"],
    ),
    "page-without-explorer-keeps-its-runtime": (
        "<p>No explorer.</p>",
        ['<script type="module" src="[^"]*quarto-ojs-runtime.js">'],
        ["data-tb-lazy-ojs"],
    ),
    "search-tips-and-bootstrap-load-when-wanted": (
        "",
        [
            'const sources = {"search": \\["[^"]*autocomplete.umd.js", '
            '"[^"]*fuse.min.js", "[^"]*quarto-search.js"\\], "tips": '
            '\\["[^"]*popper.min.js", "[^"]*tippy.umd.min.js"\\], '
            '"bootstrap": \\["[^"]*bootstrap.min.js"\\]}',
            re.escape("window.tbTippy(el, config);"),
        ],
        ["<script[^>]*src=[^>]*(search|popper|tippy|bootstrap)"],
    ),
    "wide-output-focusable": (
        output(WIDE),
        ['<pre tabindex="0" role="region" aria-label="Printed output">'],
        [],
    ),
    "short-output-not-focusable": (output("short"), [], ["<pre tabindex"]),
    "wide-code-focusable-and-its-line-anchors-gone": (
        code(WIDE),
        ['<pre tabindex="0" role="region" aria-label="Code"'],
        ['<a href="#cb1-1"'],
    ),
    "short-code-not-focusable": (code("x = 1"), [], ["<pre tabindex"]),
    "floating-colour-toggle-named": (
        "<script>a.classList.add('top-right');\n</script>",
        ["a.classList.add\\('top-right'\\);\n *a.title = \"Toggle dark"],
        [],
    ),
    "a-phone-gets-the-contents-and-notebook-links-under-the-title": (
        '<nav id="TOC" role="doc-toc" class="toc-active"><h2 id="toc-title">'
        'Contents</h2><ul><li><a href="#one" id="toc-one" class="nav-link '
        'active" data-scroll-target="#one">One</a><ul class="collapse"><li>'
        '<a href="#two" id="toc-two" class="nav-link">Two</a></li></ul></li>'
        '</ul><div class="toc-actions"><ul><li><a href="https://x/src">View '
        'source</a></li></ul></div><div class="quarto-other-links"><h2>Other '
        'Links</h2><ul><li><a href="../notebooks/one.ipynb">Notebook</a></li>'
        '</ul></div></nav><main class="content" id="quarto-document-content">'
        "<header><h1>One</h1></header><p>Text.",
        [
            '</header>\n<details class="tb-phone-toc"><summary>On this page'
            '</summary><ul class="tb-phone-links"><li><a href="../notebooks/'
            'one.ipynb">Notebook</a></li></ul><ul><li><a href="#one">One</a>'
            '<ul><li><a href="#two">Two</a></li></ul></li></ul></details>\n'
            "<p>Text."
        ],
        [],
    ),
}


@pytest.mark.parametrize("name", FINISHED)
def test_finishing_a_page(name):
    body, present, absent = FINISHED[name]
    finished = postrender.finish(page(body))
    for pattern in present:
        assert re.search(pattern, finished), pattern
    for pattern in absent:
        assert not re.search(pattern, finished), pattern
    assert postrender.finish(finished) == finished


def test_tooltip_scripts_stay_if_quarto_calls_tippy_differently():
    changed = page().replace("window.tippy(el, config);", "tippy(el);")
    assert 'tippy.umd.min.js"></script>' in postrender.finish(changed)


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_maths_is_drawn_at_build_time_with_its_fonts_preloaded(tmp_path):
    path = tmp_path / "a.html"
    path.write_text(
        page(
            '<link rel="stylesheet" href="../tools/site/katex/katex.min.css">'
            '<p><span class="math inline">a &lt; b</span> and '
            '<span class="math display">x^2 \\tag{1.1}</span></p>'
        ),
        encoding="utf-8",
    )
    assert postrender.main([str(tmp_path)]) == 0
    drawn = path.read_text(encoding="utf-8")
    assert drawn.count('class="katex"') == 2
    assert '<span class="katex-display" tabindex="0">' in drawn  # scrolls
    assert "katex.min.js" not in drawn and "mathElements" not in drawn
    # The fonts its formulas use, fetched with the styles, as fonts are.
    fonts = re.findall(r'<link rel="preload" href="([^"]+)"[^>]*>', drawn)
    assert [font.rsplit("/", 1)[1] for font in fonts] == [
        "KaTeX_Main-Regular.woff2",
        "KaTeX_Math-Italic.woff2",
    ]
    assert 'as="font" type="font/woff2" crossorigin' in drawn
    assert postrender.main([str(tmp_path)]) == 0  # drawn formulas stay
    assert path.read_text(encoding="utf-8") == drawn


def test_figures_carry_their_size_and_load_lazily_below_the_opening(tmp_path):
    png = next((ROOT / "figures").glob("*.png"))
    shutil.copy(png, tmp_path / "one.png")
    (tmp_path / "d.svg").write_text(
        '<?xml version="1.0"?>\n<svg width="30pt" height="15px"></svg>',
        encoding="utf-8",
    )
    width, height = postrender.image_size(png)
    body = (
        '<main><img src="one.png" alt="1"><img src="d.svg" alt="2">'
        '<h2>A section</h2><img src="one.png" alt="3"></main>'
    )
    path = tmp_path / "a.html"
    path.write_text(page(body), encoding="utf-8")
    assert postrender.main([str(tmp_path)]) == 0
    text = path.read_text(encoding="utf-8")
    # Only a first figure in the page's opening loads at once.
    assert f'<img src="one.png" width="{width}" height="{height}" alt="1"' in (
        text
    )
    assert '<img src="d.svg" width="40" height="15" loading="lazy"' in text
    assert f'height="{height}" loading="lazy" alt="3"' in text
    assert postrender.main([str(tmp_path)]) == 0
    assert path.read_text(encoding="utf-8") == text
    below = page('<main><p>x</p><h2>S</h2><img src="one.png" alt="1"></main>')
    assert 'loading="lazy"' in postrender.sized_lazy_images(below, tmp_path)


@pytest.mark.parametrize(
    ("tex", "text"),
    [
        (r"X \in \mathbb{R}^{B \times S \times D}", "X ∈ ℝ^B × S × D"),
        (r"W_1 \in \mathbb{R}^{D_{ff} \times D}", "W_1 ∈ ℝ^D_ff × D"),
        (r"\operatorname{LN}_1(X) \qquad Y", "LN_1(X) Y"),
        (
            r"\frac{z - \mu}{\sqrt{\sigma^2 + \epsilon}}",
            "(z - μ)/(√(σ^2 + ε))",
        ),
        (r"\underbrace{4D^2}_{\text{attention}} + 4D", "4D^2 + 4D"),
        (
            r"\begin{aligned} H &= X, \\ P = {} & 4D \end{aligned} \tag{2.1}",
            "H = X, P = 4D ",
        ),
        # An ampersand outside an equation of several lines stays.
        (r"a & b", "a & b"),
        # Printed code keeps its backslashes.
        (r'print("a\nb", r"\d+")', r'print("a\nb", r"\d+")'),
    ],
)
def test_search_results_show_maths_as_symbols(tex, text):
    assert search_text.readable(tex) == text


def test_the_search_index_is_rewritten(tmp_path):
    entry = {
        "objectID": "a",
        "title": r"On \mu",
        "text": r"z \in \mathbb{R}^D" + "\n\nNoteDefinition: a term\nA Note.",
    }
    (tmp_path / "search.json").write_text(json.dumps([entry]), "utf-8")
    search_text.rewrite_index(tmp_path)
    rewritten = json.loads((tmp_path / "search.json").read_text("utf-8"))
    text = "z ∈ ℝ^D\n\nDefinition: a term\nA Note."
    assert rewritten == [{"objectID": "a", "title": "On μ", "text": text}]


CODE = (
    '<div class="sourceCode cell-code" id="cb3"><pre class="sourceCode '
    'python code-with-copy"><code class="sourceCode python">'
    '<span id="cb3-1"><span class="kw">def</span> f(x):</span>\n'
    '<span id="cb3-2">    <span class="cf">return</span> x '
    '<span class="op">&lt;</span> <span class="dv">1</span></span>\n'
    '<span id="cb3-3"></span>\n'
    '<span id="cb3-4">    y = "LONG"</span></code></pre></div>'
).replace("LONG", "a" * dom.LONG_LINE)


def text_of(markup: str) -> str:
    return html.unescape(re.sub(r"<[^>]+>", "", markup))


def test_code_keeps_its_text_in_one_wrapper_sized_by_its_lines():
    finished = postrender.finish(page(CODE))
    block = finished[finished.index('<div class="sourceCode') :]
    assert block.startswith(
        '<div class="sourceCode cell-code" id="cb3" style="--tb-lines:4">'
    )
    assert 'id="cb3-' not in finished
    assert '<code class="sourceCode python"><span><span class="kw">' in block
    # A line long enough to wrap hangs 4 characters deeper than it starts.
    assert '<span class="tb-long" style="--tb-hang:8ch">    y = ' in block
    # What a reader copies (the code's text) is unchanged, line for line.
    assert text_of(block[: block.index("</pre>")]) == text_of(CODE)
    assert postrender.finish(finished) == finished
    # Code annotations find their lines by Quarto's wrappers: kept.
    annotated = CODE + '<dl class="code-annotation-container-grid">'
    assert 'id="cb3-1"' in postrender.finish(page(annotated))


FONT = "data:n/a;base64,AAEAAA"


def test_anchors_are_written_as_anchorjs_writes_them():
    script = (
        f"insertRule('@font-face{{font-family:anchorjs-icons;src:url({FONT}) "
    )
    assert dom.anchor_font(script) == FONT
    body = (
        '<h2 data-number="1" class="anchored" data-anchor-id="sec-a">A</h2>\n'
        '<div id="fig-b" class="quarto-float anchored">\n'
        "<div><figure>b</figure></div>\n</div>\n<p>after</p>"
    )
    finished = postrender.finish(page(body), FONT)
    # The last child of each element (AnchorJS then adds none), pointing
    # at its id, else at its data-anchor-id; AnchorJS's stylesheet, with
    # its font, before the head's first style.
    assert f"A{dom.ANCHOR_LINK.format(id='sec-a')}</h2>" in finished
    assert (
        f"</div>\n{dom.ANCHOR_LINK.format(id='fig-b')}</div>\n<p>" in finished
    )
    style = finished.index('<style class="anchorjs">')
    assert style < finished.index("<style>p{}")
    assert FONT in finished[style : finished.index("</style>", style)]
    assert postrender.finish(finished, FONT) == finished
    # Without AnchorJS's font the page is left to AnchorJS.
    assert "anchorjs" not in postrender.finish(page(body))


def test_css_rules_nothing_in_the_site_can_match_are_dropped():
    css = (
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
    pruned = prune_css.prune(css, {"used", "here", "p"})
    assert pruned == (
        '@charset "UTF-8";/*! licence */:root{--x:1}.used{a:1}.used>p{a:3}'
        'p:not(.absent){a:4}#here{a:5}.used::after{content:"}{"}'
        '[data-x=".absent"]{a:7}@media (min-width:1px){.used{a:9}}'
        "@font-face{font-family:x;src:url(x.woff2)}"
        "@keyframes k{0%{a:0}to{a:1}}.bs-tooltip-auto{a:11}.esc\\:x{a:12}"
    )
    assert prune_css.prune(pruned, {"used", "here", "p"}) == pruned


def site_with_icons(tmp_path, used):
    target = tmp_path / "site_libs" / "bootstrap"
    target.mkdir(parents=True)
    (target / prune_css.ICON_CSS).write_text(
        ".bi-alarm::before{}", encoding="utf-8"
    )
    (target / "bootstrap-icons.woff").write_bytes(b"wOFF")
    (tmp_path / "index.html").write_text(
        f'<i class="bi bi-{used}"></i>', encoding="utf-8"
    )
    (tmp_path / "a.js").write_text('icon = "bi-file-pdf";', encoding="utf-8")
    return target


def test_the_icon_subset_replaces_quartos_font(tmp_path):
    css = (prune_css.ICONS / prune_css.ICON_CSS).read_text(encoding="utf-8")
    target = site_with_icons(tmp_path, "github")
    words = prune_css.site_words(tmp_path)
    assert prune_css.used_icons(words) == {"github", "file-pdf"}
    assert prune_css.install_icons(tmp_path, words) == []
    assert (target / prune_css.ICON_CSS).read_text(encoding="utf-8") == css
    assert (target / prune_css.ICON_FONT).read_bytes()[:4] == b"wOF2"
    assert not (target / "bootstrap-icons.woff").exists()
    assert (
        prune_css.install_icons(tmp_path, words) == []
    )  # again: nothing changes


def test_an_icon_missing_from_the_subset_warns_and_keeps_quartos(
    tmp_path, capsys
):
    target = site_with_icons(tmp_path, "alarm")
    assert prune_css.install_icons(
        tmp_path, prune_css.site_words(tmp_path)
    ) == ["alarm"]
    assert "WARN:" in capsys.readouterr().err
    assert (target / "bootstrap-icons.woff").exists()
