"""`python -m tools.regenerate` on a broken chapter: a clear answer.

An unclosed code chunk or fenced div must stop the command with the file
and line of the problem and a non-zero exit code, not a traceback from
inside the converter. The command runs in a subprocess on a copy of the
book (regenerate.py finds the book from its own location, so the copy
carries its own `tools/`), and fails before any kernel starts.
"""

import shutil
import subprocess
import sys

import pytest
from conftest import ROOT

# What the command reads before it executes anything.
BOOK_FILES = ["_quarto.yml", "_quarto-instructor.yml", "index.qmd"]
BROKEN = {
    "chunk": "```{python}\nprint('never closed')\n",
    "div": "::: {.callout-note}\nA div that is never closed.\n",
}


def chapter_with_code() -> str:
    """A chapter that regenerate.py accepts by name (it has code)."""
    for path in sorted((ROOT / "chapters").glob("[!_]*.qmd")):
        if "```{python}" in path.read_text(encoding="utf-8"):
            return path.stem
    pytest.skip("no chapter with python code to break")


def broken_book(tmp_path, kind: str) -> tuple:
    """A copy of the book whose chapter ends in an unclosed `kind`."""
    book = tmp_path / "book"
    shutil.copytree(
        ROOT / "tools",
        book / "tools",
        ignore=shutil.ignore_patterns("node_modules", "__pycache__"),
    )
    shutil.copytree(ROOT / "chapters", book / "chapters")
    for name in BOOK_FILES:
        if (ROOT / name).exists():
            shutil.copy(ROOT / name, book / name)
    name = chapter_with_code()
    chapter = book / "chapters" / f"{name}.qmd"
    text = chapter.read_text(encoding="utf-8").rstrip("\n") + "\n\n"
    line = text.count("\n") + 1  # where the unclosed block opens
    chapter.write_text(text + BROKEN[kind], encoding="utf-8")
    return book, name, line


def test_regenerate_names_file_and_line(tmp_path):
    # Both cases at once: each command spends most of its time importing
    # nbformat, so running them side by side halves the wait.
    cases = {}
    for kind, all_chapters in (("chunk", False), ("div", True)):
        book, name, line = broken_book(tmp_path / kind, kind)
        command = [sys.executable, "-m", "tools.regenerate"]
        if not all_chapters:
            command.append(name)
        process = subprocess.Popen(
            command,
            cwd=book,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        cases[kind] = (process, f"chapters/{name}.qmd:{line}:")
    for kind, (process, where) in cases.items():
        stdout, stderr = process.communicate(timeout=120)
        said = f"unclosed {kind}: exit {process.returncode}\n{stdout}{stderr}"
        assert process.returncode != 0, said
        assert where in stderr, said
        assert "Traceback" not in stderr, said


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
