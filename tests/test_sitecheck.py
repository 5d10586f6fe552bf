"""tools/sitecheck/check.sh, the deploy gate, on a hand-made site.

It runs on tests/sitecheck_fixture/ (it must pass), then on a copy with a
defect planted for each check (each must be reported, naming its page).
It needs node, Chromium and `bash tools/sitecheck/install.sh`; it runs
where Quarto is on PATH or with BOOK_SITECHECK=1 (BOOK_SITECHECK=0 leaves
it out: conftest.require_site_check). About three minutes.
"""

import json
import os
import shutil
import subprocess
import time

import pytest
from conftest import ROOT, SITECHECK, require_site_check

FIXTURE = ROOT / "tests" / "sitecheck_fixture"


def check(site, *options, **env):
    require_site_check()
    return subprocess.run(
        ["bash", SITECHECK / "check.sh", *options, site],
        capture_output=True,
        text=True,
        timeout=900,
        env={**os.environ, **env},
    )


def plant(site, page, old, new):
    path = site / page
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in the fixture's {page}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def output(result):
    return result.stdout + result.stderr


def test_the_fixture_site_passes(tmp_path):
    result = check(FIXTURE, "--no-lighthouse")
    assert result.returncode == 0, output(result)
    assert "site check passed: 4 pages" in result.stdout


# (page, text there, planted instead, what the check must say); "PAGE: "
# comes before each of the browser's problems.
PLANTED = {
    "broken-link": (
        "chapters/one.html",
        'href="../The-Transformer-Block.pdf"',
        'href="../Missing-Book.pdf"',
        "[404] Missing-Book.pdf",
    ),
    "missing-anchor": (
        "chapters/one.html",
        'href="two.html#fig-two"',
        'href="two.html#fig-missing"',
        "[#] chapters/two.html#fig-missing",
    ),
    "image-without-alt": (
        "chapters/two.html",
        'alt="The same line and bar as in Figure 1.1, shown again."',
        "",
        "chapters/two.html: axe critical image-alt",
    ),
    "faint-short-text": (
        "chapters/one.html",
        "</main>",
        '<button type="button" style="color: #eee; background: #fff">a'
        "</button></main>",
        "chapters/one.html: axe serious color-contrast: Short text must",
    ),
    "dark-scheme-contrast": (
        "chapters/two.html",
        "<h1>",
        '<p class="dim">Dim.</p><style>@media (prefers-color-scheme: dark) '
        "{ .dim { color: #333 } }</style><h1>",
        "chapters/two.html: axe serious color-contrast: Elements must meet "
        "minimum color contrast ratio thresholds [.dim] (dark scheme)",
    ),
    "explorer-result-left-stale": (
        "chapters/two.html",
        "</main>",
        '<form><label for="n">width</label><input id="n" type="number" '
        'value="4"></form><p>Squared: 16.</p></main>',
        'chapters/two.html: clearing the field "width" changes nothing',
    ),
    "link-lands-under-the-header": (
        "chapters/two.html",
        "</body>",
        '<div id="quarto-header" style="position: fixed; top: 0; left: 0; '
        'right: 0; height: 200px; background: #fff"></div><section '
        'id="sec-far" class="level2" style="margin-top: 3000px"><p>Far.</p>'
        '<p style="height: 3000px">Below.</p></section></body>',
        "chapters/two.html: on a phone a link to #sec-far from another page "
        "lands it under the fixed header (200 px of it hidden)",
    ),
    "other-host": (
        "chapters/two.html",
        "</body>",
        '<script src="https://cdn.example.com/lib.js"></script></body>',
        "chapters/two.html: requests another host: "
        "https://cdn.example.com/lib.js",
    ),
    "javascript-error": (
        "404.html",
        "</body>",
        "<script>window.planted.call()</script></body>",
        "404.html: JavaScript error: Cannot read properties",
    ),
    "unused-preload": (
        "chapters/two.html",
        "<title>",
        '<link rel="preload" href="../notebooks/one.ipynb" as="fetch" '
        "crossorigin><title>",
        "chapters/two.html: a preload the page does not use",
    ),
    "menu-wider-than-a-phone": (
        "index.html",
        '<li><a href="chapters/two.html">',
        '<li style="white-space: nowrap">A chapter title far too long to fit '
        "on the screen of any phone at all</li>"
        '<li><a href="chapters/two.html">',
        "index.html: on a phone the menu Chapters runs",
    ),
    "figure-glaring-in-the-dark": (
        "chapters/one.html",
        '<img src="one_files',
        '<img style="filter: none" src="one_files',
        "chapters/one.html: in the dark scheme the figure "
        "fig-one-output-1.png is shown as drawn",
    ),
    "code-beneath-a-see-through-copy-button": (
        "chapters/one.html",
        "</main>",
        '<div style="position: relative"><pre style="overflow-x: auto">'
        "<code>x = 'a line of code far wider than the screen of any phone'"
        '</code></pre><button type="button" class="code-copy-button" '
        'style="position: absolute; top: 0; right: 0; background: none">'
        "Copy</button></div></main>",
        "chapters/one.html: on a phone code runs beneath a see-through",
    ),
    "equation-wider-than-a-phone": (
        "chapters/one.html",
        "</main>",
        '<span class="katex-display" style="display: block; overflow-x: '
        'auto"><span style="display: inline-block; width: 900px">'
        "<annotation>X + F(X)</annotation></span></span></main>",
        "chapters/one.html: on a phone an equation scrolls sideways: "
        '"X + F(X)"',
    ),
    # Built by a script, as an explorer builds its tables (parsed HTML
    # would move the <span> out of the table).
    "cells-out-of-their-columns": (
        "chapters/two.html",
        "</main>",
        "<table><caption>Costs</caption><thead><tr><th>what</th><th>one</th>"
        '<th>all</th></tr></thead><tbody><tr id="kv"><th>cache</th></tr>'
        '</tbody></table><script>const cells = document.createElement("span");'
        'cells.append(document.createElement("td"), '
        'document.createElement("td"));'
        'document.getElementById("kv").append(cells);</script></main>',
        'chapters/two.html: the table "Costs" has a row holding a <span>',
    ),
    "guess-off-on-the-first-screen": (
        "chapters/one.html",
        '<main id="content">',
        '<main id="content"><p style="content-visibility: auto; '
        'contain-intrinsic-block-size: auto 10px; height: 200px">Tall.</p>',
        "chapters/one.html: on a phone the first screen moves as it appears: "
        '"Tall." is laid out only near the screen and stands in at 10 px',
    ),
    "guess-off-further-down": (
        "chapters/two.html",
        "</main>",
        '<p style="height: 3000px">Between.</p><p style="content-visibility: '
        'auto; contain-intrinsic-block-size: auto 300px">Short.</p></main>',
        "chapters/two.html: on a desktop the page's length jumps as it is "
        'scrolled: "Short."',
    ),
    "output-wider-than-a-desktop": (
        "chapters/one.html",
        "<code>residual path: True</code>",
        f"<code>residual path: {'True ' * 60}</code>",
        "chapters/one.html: on a desktop a printed output scrolls sideways",
    ),
}


@pytest.fixture(scope="module")
def broken(tmp_path_factory):
    """The check's report on the fixture with every defect planted."""
    site = tmp_path_factory.mktemp("broken") / "site"
    shutil.copytree(FIXTURE, site)
    for page, old, new, _ in PLANTED.values():
        plant(site, page, old, new)
    return check(site, "--no-lighthouse")


@pytest.mark.parametrize("name", PLANTED)
def test_each_planted_defect_is_reported(broken, name):
    assert broken.returncode == 1, output(broken)
    assert PLANTED[name][3] in output(broken), output(broken)


def test_a_hung_page_fails_fast_named_and_tried_twice(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)
    plant(
        site,
        "chapters/two.html",
        "</body>",
        "<script>onload = () => setTimeout(() => { for (;;); }, 50)"
        "</script></body>",
    )
    start = time.monotonic()
    result = check(site, "--no-lighthouse", SITECHECK_TIMEOUT="5")
    assert result.returncode == 1, output(result)
    assert "(chapters/two.html: the browser failed" in result.stdout
    assert "chapters/two.html: the browser failed twice on it" in result.stdout
    assert time.monotonic() - start < 150, output(result)


def test_lighthouse_accessibility_below_one_blocks(tmp_path):
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)
    plant(site, "chapters/one.html", '<html lang="en">', "<html>")
    result = check(site, LHCI_COLLECT__NUMBER_OF_RUNS="1")
    assert result.returncode == 1, output(result)
    assert "accessibility failure" in result.stderr, output(result)
    assert "lighthouse: FAILED" in result.stdout


@pytest.mark.parametrize(
    ("scores", "code", "said"),
    [
        ((0.6, 0.65, 0.9), 1, "performance failure"),  # below the floor
        ((0.8, 0.9, 0.99), 0, "performance warning"),  # below the goal
        ((0.5, 0.95, 0.96), 0, "All results processed"),  # its median
    ],
)
def test_lighthouse_floor_blocks_and_goal_warns(tmp_path, scores, code, said):
    require_site_check()
    (tmp_path / ".lighthouseci").mkdir()
    url = "http://localhost/p.html"
    for run, score in enumerate(scores):
        categories = {"performance": score, "accessibility": 1}
        lhr = {
            "requestedUrl": url,
            "finalUrl": url,
            "finalDisplayedUrl": url,
            "audits": {},
            "categories": {
                name: {"id": name, "score": value, "auditRefs": []}
                for name, value in categories.items()
            },
        }
        path = tmp_path / ".lighthouseci" / f"lhr-{run}.json"
        path.write_text(json.dumps(lhr), encoding="utf-8")
    result = subprocess.run(
        [SITECHECK / "node_modules" / ".bin" / "lhci", "assert"]
        + [f"--config={SITECHECK / 'lighthouserc.yml'}"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert result.returncode == code, output(result)
    assert said in output(result)
    if code == 0 and said != "performance warning":
        assert "warning" not in output(result)
