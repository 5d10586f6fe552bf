"""tools/site/postrender.py finishes the rendered pages as it promises.

Checked on small pages shaped like Quarto's output, without Quarto; the
site check (tools/sitecheck) then checks a real render in a browser.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from conftest import ROOT

from tools.site import maths, postrender, search_text

RUNTIME = "../site_libs/quarto-ojs/quarto-ojs-runtime.js"
HEAD = """<html><head>
<script src="../site_libs/quarto-nav/quarto-nav.js"></script>
<script type="module" src="RUNTIME"></script>
  <script defer="" src="../tools/site/katex/katex.min.js"></script>
  <script>document.addEventListener("DOMContentLoaded", function () {
 var mathElements = document.getElementsByClassName("math");
 katex.render(texText.data, mathElements[i]);
}});
  </script>
</head><body>
""".replace("RUNTIME", RUNTIME)
OJS_START = """<script type="module">
if (window.location.protocol === "file:") { alert("no"); }
window._ojs.paths.docToRoot = "..";
window._ojs.runtime.interpretFromScriptTags();
</script>
"""
WIDE = "x" * (postrender.PHONE_COLUMNS + 1)


def page(body: str) -> str:
    return HEAD + body + "</body></html>"


def test_ojs_runtime_loads_on_demand():
    finished = postrender.finish(
        page('<div id="ojs-cell-1"></div>' + OJS_START)
    )
    assert (
        'src="../site_libs/quarto-ojs/quarto-ojs-runtime.js"' not in finished
    )
    assert 'await import("../site_libs/quarto-ojs/quarto-ojs-runtime.js")' in (
        finished
    )
    assert "IntersectionObserver" in finished
    # Quarto's statements still run, after the import.
    assert finished.index("await import(") < finished.index(
        "interpretFromScriptTags();"
    )


def test_explorer_libraries_load_with_the_runtime():
    libraries = (
        '<script src="../tools/site/ojs/htl.min.js"></script>\n'
        '<script src="../tools/site/ojs/inputs.min.js"></script>\n'
    )
    finished = postrender.finish(
        page(libraries + '<div id="ojs-cell-1"></div>' + OJS_START)
    )
    assert '<script src="../tools/site/ojs/' not in finished
    loader = finished[finished.index("data-tb-lazy-ojs") :]
    # In order, and before the runtime (whose cells use window.Inputs).
    assert (
        loader.index('"../tools/site/ojs/htl.min.js"')
        < loader.index('"../tools/site/ojs/inputs.min.js"')
        < loader.index("await import(")
    )
    assert postrender.finish(finished) == finished


def test_page_without_explorer_keeps_its_scripts():
    original = page("<p>No explorer.</p>")
    finished = postrender.finish(original)
    assert "quarto-ojs-runtime.js" in finished  # no loader to replace it


def test_head_scripts_are_deferred_and_finishing_is_idempotent():
    finished = postrender.finish(page(""))
    assert '<script defer src="../site_libs/quarto-nav/quarto-nav.js">' in (
        finished
    )
    assert postrender.finish(finished) == finished


@pytest.mark.parametrize("width, focusable", [(WIDE, True), ("short", False)])
def test_only_wide_outputs_become_focusable(width, focusable):
    body = (
        '<div class="cell-output cell-output-stdout">\n'
        f"<pre><code>{width}</code></pre>\n</div>"
    )
    finished = postrender.finish(page(body))
    assert ('<pre tabindex="0"' in finished) is focusable


def test_a_floating_colour_toggle_gets_a_name():
    script = (
        "<script>const a = window.document.createElement('a');\n"
        "      a.classList.add('top-right');\n</script>"
    )
    finished = postrender.finish(page(script))
    assert (
        "a.classList.add('top-right');\n"
        '      a.title = "Toggle dark mode";\n</script>'
    ) in finished
    assert postrender.finish(finished) == finished


def test_pagination_links_lose_their_partial_label():
    link = (
        '<a href="b.html" class="pagination-link" aria-label="Bee">'
        '<span class="chapter-number">2</span> Bee</a>'
    )
    finished = postrender.finish(page(link))
    assert 'aria-label="Bee"' not in finished
    assert 'class="pagination-link">' in finished


@pytest.mark.skipif(shutil.which("node") is None, reason="node is not on PATH")
def test_maths_is_drawn_at_build_time(tmp_path):
    path = tmp_path / "a.html"
    path.write_text(
        page(
            '<p><span class="math inline">a &lt; b</span> and '
            '<span class="math display">x^2 \\tag{1.1}</span></p>'
        ),
        encoding="utf-8",
    )
    assert postrender.main([str(tmp_path)]) == 0
    drawn = path.read_text(encoding="utf-8")
    assert drawn.count('class="katex"') == 2
    assert 'class="katex-display"' in drawn
    assert '<span class="katex-display" tabindex="0">' in drawn
    assert "katex.min.js" not in drawn
    assert "mathElements" not in drawn
    # A second run leaves the drawn formulas alone (it redrew KaTeX's
    # markup as TeX before).
    assert postrender.main([str(tmp_path)]) == 0
    assert path.read_text(encoding="utf-8") == drawn


def fake_katex(monkeypatch):
    """maths.draw without Node: each formula as <b>TeX</b>; the calls."""
    calls = []

    def draw(found):
        calls.append(found)
        return [f"<b>{tex}</b>" for tex, _ in found]

    monkeypatch.setattr(maths.shutil, "which", lambda _: "/usr/bin/node")
    monkeypatch.setattr(maths, "draw", draw)
    return calls


def test_maths_drawn_while_finishing_is_what_the_page_holds(monkeypatch):
    calls = fake_katex(monkeypatch)
    raw = {"a.html": '<p><span class="math inline">x</span></p>'}
    started = maths.start(raw)
    finished = {"a.html": raw["a.html"].replace("<p>", "<p id='n'>")}
    drawn = maths.drawn_pages(finished, started)
    assert (
        drawn["a.html"] == "<p id='n'><span class=\"math inline\">"
        "<b>x</b></span></p>"
    )
    assert len(calls) == 1  # drawn once, by start, on the text as written
    # Had finishing changed a formula, the finished text is drawn again.
    changed = {"a.html": raw["a.html"].replace(">x<", ">y<")}
    drawn = maths.drawn_pages(changed, maths.start(raw))
    assert "<b>y</b>" in drawn["a.html"]
    assert "<b>x</b>" not in drawn["a.html"]
    assert calls[-1] == [["y", False]]


def test_paragraphs_are_sized_by_their_maths_as_drawn(monkeypatch, tmp_path):
    fake_katex(monkeypatch)
    monkeypatch.setattr(
        maths, "draw", lambda found: ["<b>LN1</b>"] * len(found)
    )
    path = tmp_path / "a.html"
    tex = "\\operatorname{LN}_1"
    formula = f'<span class="math inline">{tex}</span>'
    path.write_text(
        page(f"<main><h2>S</h2><p>{formula} x</p></main>"), encoding="utf-8"
    )
    assert postrender.main([str(tmp_path)]) == 0
    # "LN1 x", not the 21 characters of its TeX.
    assert '<p style="--tb-chars:5">' in path.read_text(encoding="utf-8")


def test_a_page_without_maths_starts_no_node(monkeypatch):
    calls = fake_katex(monkeypatch)
    pages = {"a.html": "<p>no formula</p>"}
    assert maths.start(pages) is None
    assert maths.drawn_pages(pages, None) == pages
    assert calls == []


def test_each_theme_blocks_rendering_only_in_its_own_scheme():
    head = (
        '<link href="b.css" rel="stylesheet" class="quarto-color-scheme" '
        'id="quarto-bootstrap">\n'
        '<link href="b-dark.css" rel="stylesheet" '
        'class="quarto-color-scheme quarto-color-alternate" '
        'id="quarto-bootstrap">\n'
    )
    body = '<script id="quarto-html-before-body">toggle();</script>\n<p>x</p>'
    finished = postrender.finish(page(head + body))
    assert (
        'href="b.css" rel="stylesheet" media="(prefers-color-scheme: light)"'
    ) in finished
    assert (
        'href="b-dark.css" rel="stylesheet" '
        'media="(prefers-color-scheme: dark)"'
    ) in finished
    # Quarto's scheme script runs first, then the one that releases media.
    assert finished.index("toggle();") < finished.index("data-tb-scheme")
    assert postrender.finish(finished) == finished


@pytest.mark.parametrize("width, focusable", [(WIDE, True), ("short", False)])
def test_only_code_wider_than_a_phone_becomes_focusable(width, focusable):
    code = (
        '<div class="sourceCode cell-code" id="cb1"><pre class="sourceCode '
        f'python code-with-copy"><code class="sourceCode python"><span>'
        f"x = 1\n{width}</span></code></pre></div>"
    )
    finished = postrender.finish(page(code))
    assert ('tabindex="0" role="region" aria-label="Code"' in finished) is (
        focusable
    )
    assert finished.count(width) == 1


def test_tables_become_focusable():
    finished = postrender.finish(page('<table class="caption-top table">'))
    assert '<table tabindex="0" class="caption-top table">' in finished


def test_figures_get_their_size_and_all_but_the_first_load_lazily(tmp_path):
    png = (ROOT / "figures").glob("*.png")
    figure = next(png)
    for name in ("one.png", "two.png"):
        shutil.copy(figure, tmp_path / name)
    path = tmp_path / "a.html"
    path.write_text(
        page('<img src="one.png" alt="1"><img src="two.png" alt="2">'),
        encoding="utf-8",
    )
    assert postrender.main([str(tmp_path)]) == 0
    text = path.read_text(encoding="utf-8")
    width, height = postrender.image_size(figure)
    assert f'<img src="one.png" width="{width}" height="{height}" alt' in text
    assert (
        f'<img src="two.png" width="{width}" height="{height}" '
        'loading="lazy" alt'
    ) in text
    # Running again changes nothing.
    assert postrender.main([str(tmp_path)]) == 0
    assert path.read_text(encoding="utf-8") == text


def test_an_svg_figure_gets_its_size_in_pixels(tmp_path):
    # The landing page's diagram: without a size, the text below it moved
    # down as it arrived.
    svg = ROOT / "figures" / "fig-prenorm-block.svg"
    root = re.search(r"<svg\b[^>]*>", svg.read_text(encoding="utf-8"))
    points = [
        float(re.search(rf'\b{name}="([\d.]+)pt"', root.group(0)).group(1))
        for name in ("width", "height")
    ]
    assert postrender.image_size(svg) == tuple(
        round(size * 4 / 3) for size in points
    )
    (tmp_path / "d.svg").write_text(
        '<?xml version="1.0"?>\n<svg width="30px" height="20px"></svg>',
        encoding="utf-8",
    )
    body = '<img src="d.svg" class="img-fluid" alt="D.">'
    finished = postrender.sized_lazy_images(page(body), tmp_path)
    assert '<img src="d.svg" width="30" height="20" class' in finished
    assert postrender.image_size(tmp_path / "missing.svg") is None


def test_a_first_figure_below_the_opening_loads_lazily(tmp_path):
    figure = next((ROOT / "figures").glob("*.png"))
    shutil.copy(figure, tmp_path / "one.png")
    body = (
        '<h2 id="toc-title">Contents</h2><main><p>Opening.</p>'
        '<h2>A section</h2><img src="one.png" alt="1"></main>'
    )
    finished = postrender.sized_lazy_images(page(body), tmp_path)
    assert 'loading="lazy"' in finished
    # In the opening (before the first heading of <main>) it stays eager.
    early = body.replace("<p>Opening.</p>", '<img src="one.png" alt="0">')
    finished = postrender.sized_lazy_images(page(early), tmp_path)
    assert finished.count('loading="lazy"') == 1
    assert '<img src="one.png" width=' in finished


def test_empty_code_line_links_are_removed():
    line = (
        '<span id="cb3-1"><a href="#cb3-1" aria-hidden="true" '
        'tabindex="-1"></a>x = 1</span>'
    )
    finished = postrender.finish(page(line))
    assert '<span id="cb3-1">x = 1</span>' in finished


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
        (r"P = 4D \tag{4.1}", "P = 4D "),
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


PAGE_WITH_TOC = """<div id="quarto-margin-sidebar" class="sidebar">
<nav id="TOC" role="doc-toc" class="toc-active">
<h2 id="toc-title">Table of contents</h2>
<ul>
<li><a href="#one" id="toc-one" class="nav-link active" \
data-scroll-target="#one"><span class="header-section-number">1.1</span> \
One</a>
<ul class="collapse">
<li><a href="#two" id="toc-two" class="nav-link" data-scroll-target="#two">\
<span class="header-section-number">1.1.1</span> Two</a></li>
</ul></li>
</ul>
<div class="toc-actions"><ul><li><a href="https://x/src" \
class="toc-action">View source</a></li></ul></div>\
<div class="quarto-other-links"><h2>Other Links</h2><ul><li>\
<a href="../notebooks/one.ipynb">Download this chapter's notebook</a>\
</li></ul></div></nav>
</div>
<main class="content" id="quarto-document-content">
<header id="title-block-header"><h1>One</h1></header>
<p>Text.</p>
"""


def test_a_phone_gets_the_contents_and_notebook_links_under_the_title():
    finished = postrender.finish(page(PAGE_WITH_TOC))
    start = finished.index('<details class="tb-phone-toc">')
    assert finished.index("</header>") < start < finished.index("<p>Text.")
    copy = finished[start : finished.index("</details>", start)]
    assert '<a href="../notebooks/one.ipynb">' in copy
    assert '<a href="#one">' in copy and '<a href="#two">' in copy
    assert " id=" not in copy and "collapse" not in copy
    assert "View source" not in copy and "<h2" not in copy
    assert postrender.finish(finished).count("tb-phone-toc") == 1


def test_a_page_without_contents_gets_no_copy():
    plain = page('<main class="content"><header></header><p>x</p></main>')
    assert "tb-phone-toc" not in postrender.finish(plain)


def test_a_one_page_render_finishes_only_the_page_it_wrote(
    tmp_path, monkeypatch
):
    site = tmp_path / "_book"
    (site / "chapters").mkdir(parents=True)
    plain = page(OJS_START)
    for name in ("index.html", "chapters/a.html", "chapters/b.html"):
        (site / name).write_text(plain, encoding="utf-8")
    # Quarto names the files it wrote relative to the project, its cwd.
    monkeypatch.chdir(tmp_path)
    one_page = {"QUARTO_PROJECT_OUTPUT_FILES": "_book/chapters/a.html\n"}
    assert postrender.main(["_book"], one_page) == 0
    changed = {
        str(path.relative_to(site))
        for path in site.rglob("*.html")
        if path.read_text(encoding="utf-8") != plain
    }
    assert changed == {"chapters/a.html"}
    every_page = {**one_page, "QUARTO_PROJECT_RENDER_ALL": "1"}
    assert postrender.main(["_book"], every_page) == 0
    assert all(
        path.read_text(encoding="utf-8") != plain
        for path in site.rglob("*.html")
    )
