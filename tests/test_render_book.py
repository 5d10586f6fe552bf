"""tools/render_book.py: the website and the PDF rendered side by side.

A fake `quarto` stands in for Quarto: it writes what each format's render
writes (the website, or the PDF and its frozen Typst results) where it is
run, so the tests see which folder each format ran in and what came back.
"""

import stat
import sys

import pytest

from tools import render_book

PDF = "The-Transformer-Block.pdf"
# Like Quarto: `--to html` stages the PDF's figures beside the chapter and
# leaves them; `--to typst` writes the PDF and its frozen results. Both
# record where they ran; FAKE_FAIL and FAKE_WARN make one misbehave.
FAKE_QUARTO = """#!{python}
import os, shutil, sys
from pathlib import Path
to = sys.argv[sys.argv.index("--to") + 1]
profile = "instructor" in sys.argv
out = Path("_book-instructor" if profile else "_book")
out.mkdir(exist_ok=True)
Path(f"ran-{{to}}").write_text(os.getcwd())
if to == "html":
    (out / "index.html").write_text("<html></html>")
    Path("chapters/a_files/figure-typst").mkdir(parents=True)
else:
    assert not Path(".git").exists() and not Path("notebooks").exists()
    (out / "{pdf}").write_text("%PDF")
    frozen = Path("_freeze/chapters/a")
    (frozen / "execute-results").mkdir(parents=True, exist_ok=True)
    (frozen / "execute-results/typ.json").write_text("new")
    shutil.rmtree(frozen / "figure-typst")  # executed again: new figures
    (frozen / "figure-typst").mkdir()
    (frozen / "figure-typst/f.svg").write_text("<svg/>")
if os.environ.get("FAKE_WARN") == to:
    print("WARN: chapters/a.html: Unable to resolve crossref @fig-x")
print(f"rendered {{to}}")
sys.exit(3 if os.environ.get("FAKE_FAIL") == to else 0)
"""


@pytest.fixture
def book(tmp_path):
    """A small book: config, a chapter, old frozen results, a notebook."""
    root = tmp_path / "book"
    (root / "chapters").mkdir(parents=True)
    (root / "chapters" / "a.qmd").write_text("# A\n")
    (root / "_quarto.yml").write_text("project:\n  output-dir: _book\n")
    (root / "_quarto-instructor.yml").write_text(
        "project:\n  output-dir: _book-instructor\n"
    )
    frozen = root / "_freeze" / "chapters" / "a"
    (frozen / "execute-results").mkdir(parents=True)
    (frozen / "execute-results" / "typ.json").write_text("old")
    (frozen / "execute-results" / "html.json").write_text("html")
    (frozen / "figure-typst").mkdir()
    (frozen / "figure-typst" / "stale.svg").write_text("<svg/>")
    (root / "notebooks").mkdir()
    (root / ".git").mkdir()
    quarto = tmp_path / "quarto"
    quarto.write_text(FAKE_QUARTO.format(python=sys.executable, pdf=PDF))
    quarto.chmod(quarto.stat().st_mode | stat.S_IXUSR)
    return root, str(quarto)


@pytest.mark.parametrize(
    "profiles, out", [([], "_book"), (["instructor"], "_book-instructor")]
)
def test_website_here_and_pdf_in_a_copy(book, profiles, out):
    root, quarto = book
    (root / "chapters" / "kept_files").mkdir()
    code, log = render_book.render(quarto, profiles, root=root, echo=False)
    assert code == 0, log
    assert "rendered html" in log and "rendered typst" in log
    assert (root / "ran-html").read_text() == str(root)
    assert not (root / "ran-typst").exists(), "the PDF was made in the book"
    assert (root / out / "index.html").is_file()
    assert (root / out / PDF).read_text() == "%PDF"
    # The PDF's frozen results come back; staged figures go.
    frozen = root / "_freeze" / "chapters" / "a"
    assert (frozen / "execute-results" / "typ.json").read_text() == "new"
    assert (frozen / "execute-results" / "html.json").read_text() == "html"
    assert [p.name for p in (frozen / "figure-typst").iterdir()] == ["f.svg"]
    assert not (root / "chapters" / "a_files").exists()
    assert (root / "chapters" / "kept_files").is_dir()


@pytest.mark.parametrize("to", ["html", "typst"])
@pytest.mark.parametrize(
    "variable, code, said",
    [
        ("FAKE_FAIL", 3, "render: the {} failed (3)"),
        ("FAKE_WARN", 1, "Unable to resolve crossref @fig-x"),
    ],
)
def test_a_failure_or_warning_in_either_format_fails(
    book, monkeypatch, capsys, to, variable, code, said
):
    root, quarto = book
    monkeypatch.setenv(variable, to)
    monkeypatch.setattr(render_book, "ROOT", root)
    assert render_book.main([quarto]) == code
    name = "website" if to == "html" else "PDF"
    assert said.format(name) in capsys.readouterr().err
    # A failed render leaves no staged figures behind either.
    assert not (root / "chapters" / "a_files").exists()


@pytest.mark.parametrize(
    "line, warns",
    [
        ("[WARNING] Citeproc: citation nokey2020 not found", True),
        ("\x1b[33mWARN: chapters/b.html: Unable to resolve crossref", True),
        ("\x1b[33mWARNING (crossref.lua:12) Unable to resolve @eq-y", True),
        ("WARNING: a Lua filter's warning", True),
        ("(W) another Lua filter's warning", True),
        ("[IPKernelApp] WARNING | Kernel is running over TCP", False),
        ("A WARNINGS section in a chapter's prose", False),
    ],
)
def test_each_kind_of_warning_is_found(line, warns):
    found = render_book.warnings(f"Output created: _book/index.html\n{line}")
    assert found == ([render_book.ANSI.sub("", line)] if warns else [])


def test_one_page_is_rendered_as_asked(book, monkeypatch):
    root, quarto = book
    monkeypatch.setattr(render_book, "ROOT", root)
    assert render_book.main([quarto, "chapters/a.qmd", "--to", "html"]) == 0
    assert (root / "ran-html").read_text() == str(root)
    assert not (root / "_book" / PDF).exists()
