"""`python -m tools.regenerate`: a broken chapter stops it with a clear
answer, and a fresh clone regenerates to what is committed."""

import subprocess
import sys

import pytest
from conftest import ROOT, copy_book

from tools import regenerate


def test_a_broken_chapter_stops_it_with_file_and_line(tmp_path, monkeypatch):
    # Each kind of break, named: test_nbmarkdown.py.
    book = copy_book(tmp_path / "book")
    chapter = book / "chapters" / "mechanics.qmd"
    text = chapter.read_text(encoding="utf-8").rstrip("\n") + "\n\n"
    chapter.write_text(text + "```{python}\nprint(1)\n", encoding="utf-8")
    monkeypatch.setattr(regenerate, "ROOT", book)
    where = f"mechanics.qmd:{text.count(chr(10)) + 1}: python chunk"
    with pytest.raises(SystemExit, match=where):
        regenerate.main(["intuition"])


def test_regenerating_a_fresh_clone_changes_nothing(tmp_path):
    """The committed notebooks, assignment and figures are what the
    command makes from the committed chapters, on this machine too: a
    figure redrawn with a last bit rounded otherwise is kept as it was
    (tools/export/figures.py, `settle`)."""
    clone = tmp_path / "book"
    subprocess.run(["git", "clone", "-q", ROOT, clone], check=True)
    (clone / ".venv").symlink_to(ROOT / ".venv")
    command = [sys.executable, "-m", "tools.regenerate", "intuition"]
    subprocess.run(command, cwd=clone, check=True, capture_output=True)
    status = ["git", "status", "--porcelain", "--untracked-files=all"]
    changed = subprocess.run(
        status, cwd=clone, capture_output=True, text=True, check=True
    ).stdout
    assert not changed, f"regenerating a fresh clone changed:\n{changed}"
