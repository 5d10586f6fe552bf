"""`python -m tools.regenerate`: a broken chapter stops it with a clear
answer, and a fresh copy regenerates to the files the book holds."""

import filecmp
import subprocess
import sys

import pytest
from conftest import REGENERATED, ROOT, copy_book

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


def test_regenerating_a_fresh_copy_changes_nothing(tmp_path):
    """The notebooks, assignments and figures are what the command makes
    from the chapters, on this machine too: a figure redrawn with a last
    bit rounded otherwise is kept as it was (tools/export/figures.py,
    `settle`). The copy has no caches, as a fresh clone has none; nbval
    leaves REGENERATED's notebooks to this test (tests/conftest.py)."""
    book = copy_book(tmp_path / "book", whole=True)
    (book / ".venv").symlink_to(ROOT / ".venv")
    command = [sys.executable, "-m", "tools.regenerate", REGENERATED]
    subprocess.run(command, cwd=book, check=True, capture_output=True)

    def files(root):
        folders = ("notebooks", "assignments", "figures")
        found = (p for f in folders for p in (root / f).rglob("*"))
        return {str(p.relative_to(root)) for p in found if p.is_file()}

    made, kept = files(book), files(ROOT)
    changed = [
        name
        for name in sorted(made & kept)
        if not filecmp.cmp(book / name, ROOT / name, shallow=False)
    ]
    assert not changed and made == kept, (
        f"regenerating changed {changed}; made {sorted(made - kept)}, "
        f"removed {sorted(kept - made)}"
    )
