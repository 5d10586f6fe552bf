"""Render the whole book with Quarto, where Quarto is installed."""

import html
import re
import shutil
import subprocess

import bookcheck
import pytest
import qmd
from conftest import copy_book

# Quarto's real warnings (see shared/quarto-facts.md): pandoc's
# "[WARNING] ...", crossref "WARN: ..." and Lua-filter "(W) ..." lines.
# A bare WARNING would also match every kernel's harmless TCP notice.
WARNING = re.compile(r"\[WARNING\]|WARN:|^\(W\)", re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*m")

pytestmark = pytest.mark.skipif(
    shutil.which("quarto") is None,
    reason="quarto is not on PATH: install it from quarto.org to render",
)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A copy of the book rendered to HTML once: (folder, log, exit code)."""
    copy = copy_book(tmp_path_factory.mktemp("render") / "book", whole=True)
    result = subprocess.run(
        ["quarto", "render", "--to", "html"],
        cwd=copy,
        capture_output=True,
        text=True,
    )
    return copy, ANSI.sub("", result.stdout + result.stderr), result.returncode


def test_book_renders_without_warnings(rendered):
    copy, log, code = rendered
    assert code == 0, log[-4000:]
    warnings = [line for line in log.splitlines() if WARNING.search(line)]
    assert not warnings, "\n".join(warnings)
    assert (copy / "_book" / "index.html").exists()


def test_student_site_contains_no_solution(rendered):
    """The rendered student pages and search index carry no solution text."""
    copy, log, code = rendered
    assert code == 0, log[-4000:]
    pages = "\n".join(
        path.read_text(encoding="utf-8", errors="replace")
        for pattern in ("*.html", "*.json")
        for path in (copy / "_book").rglob(pattern)
    )
    # Text as a reader sees it: tags (syntax highlighting splits code into
    # spans) removed, entities decoded, white space folded.
    site = " ".join(html.unescape(re.sub(r"<[^>]+>", " ", pages)).split())
    words = re.compile(r"[A-Za-z]+(?:[ ,]+[A-Za-z]+){6,}")
    for name in bookcheck.notebook_chapters(copy):
        parsed = qmd.parse(copy / "chapters" / f"{name}.qmd")
        for text in parsed.solutions():
            for phrase in words.findall(text):
                phrase = " ".join(phrase.split())
                assert phrase not in site, (
                    f"_book: solution text from chapters/{name}.qmd "
                    f"reached the student site: {phrase!r}"
                )
