"""Render the whole book with Quarto, where Quarto is installed."""

import html
import os
import re
import shutil
import subprocess
import sys

import bookcheck
import pytest
import qmd
import render_log
from conftest import copy_book

needs_quarto = pytest.mark.skipif(
    shutil.which("quarto") is None,
    reason="quarto is not on PATH: install it from quarto.org to render",
)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory):
    """A copy of the book rendered to HTML once: (folder, log, exit code)."""
    copy = copy_book(tmp_path_factory.mktemp("render") / "book", whole=True)
    # Quarto executes the chapters with this Python, which has the book's
    # packages (as tools/render.sh does with .venv's).
    environment = {**os.environ, "QUARTO_PYTHON": sys.executable}
    result = subprocess.run(
        ["quarto", "render", "--to", "html"],
        cwd=copy,
        env=environment,
        capture_output=True,
        text=True,
    )
    return copy, result.stdout + result.stderr, result.returncode


@needs_quarto
def test_book_renders_without_warnings(rendered):
    copy, log, code = rendered
    assert code == 0, log[-4000:]
    warnings = render_log.warnings(log)
    assert not warnings, "\n".join(warnings)
    assert (copy / "_book" / "index.html").exists()


@needs_quarto
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


# Without Quarto: the warning lines Quarto and pandoc print (see
# shared/quarto-facts.md and quarto-cli's filters/common/log.lua), in
# colour as a terminal gets them, and lines that only look alike.
WARNINGS = [
    "[WARNING] Citeproc: citation nokey2020 not found",
    "\x1b[33mWARN: chapters/b.html: Unable to resolve crossref @fig-x\x1b[39m",
    "\x1b[33mWARNING (crossref.lua:12) Unable to resolve crossref @eq-y",
    "WARNING: a Lua filter's warning",
    "(W) another Lua filter's warning",
]
NOT_WARNINGS = [
    "[IPKernelApp] WARNING | Kernel is running over TCP without encryption.",
    "Output created: _book/index.html",
    "A WARNINGS section in a chapter's prose",
]


def test_render_log_finds_each_kind_of_warning():
    log = "\n".join([*NOT_WARNINGS, *WARNINGS])
    assert render_log.warnings(log) == [
        render_log.ANSI.sub("", line) for line in WARNINGS
    ]


def test_render_log_command_fails_on_a_warning(tmp_path, capsys):
    log = tmp_path / "render.log"
    log.write_text("\n".join(NOT_WARNINGS), encoding="utf-8")
    assert render_log.main([str(log)]) == 0
    log.write_text("\n".join([*NOT_WARNINGS, WARNINGS[2]]), encoding="utf-8")
    assert render_log.main([str(log)]) == 1
    assert "Unable to resolve crossref @eq-y" in capsys.readouterr().err
