"""Render the whole book with Quarto, where Quarto is installed."""

import re
import shutil
import subprocess

import pytest
from conftest import copy_book

# Quarto's real warnings (see shared/quarto-facts.md): pandoc's
# "[WARNING] ...", crossref "WARN: ..." and Lua-filter "(W) ..." lines.
# A bare WARNING would also match every kernel's harmless TCP notice.
WARNING = re.compile(r"\[WARNING\]|WARN:|^\(W\)", re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


@pytest.mark.skipif(
    shutil.which("quarto") is None,
    reason="quarto is not on PATH: install it from quarto.org to render",
)
def test_book_renders_without_warnings(tmp_path):
    copy = copy_book(tmp_path / "book")
    result = subprocess.run(
        ["quarto", "render", "--to", "html"],
        cwd=copy,
        capture_output=True,
        text=True,
    )
    log = ANSI.sub("", result.stdout + result.stderr)
    assert result.returncode == 0, log[-4000:]
    warnings = [line for line in log.splitlines() if WARNING.search(line)]
    assert not warnings, "\n".join(warnings)
    assert (copy / "_book" / "index.html").exists()
