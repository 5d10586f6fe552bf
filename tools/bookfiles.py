"""The book's files: what `_quarto.yml` lists, which chapters have a
notebook, where its two editions live (and the command that writes them),
and every `.qmd` parsed.

The checks (tools/qmdcheck.py, tools/outputcheck.py, tools/nbcheck.py) and
tools/regenerate.py find the book's files here.
"""

from __future__ import annotations

from pathlib import Path

import qmd as qmd_module

ROOT = Path(__file__).resolve().parent.parent
REGENERATE = ".venv/bin/python tools/regenerate.py"


def quarto_config(root: Path) -> dict:
    return qmd_module.load_yaml(
        (root / "_quarto.yml").read_text(encoding="utf-8")
    )


def book_files(root: Path) -> list[str]:
    """Every file `_quarto.yml` lists as a chapter or appendix, in order."""
    book = quarto_config(root).get("book", {})
    files: list[str] = []
    for key in ("chapters", "appendices"):
        for entry in book.get(key, []) or []:
            if isinstance(entry, str):
                files.append(entry)
            elif isinstance(entry, dict):
                if "href" in entry:
                    files.append(entry["href"])
                files.extend(entry.get("chapters", []) or [])
    return files


def notebook_chapters(root: Path) -> list[str]:
    """Stems of the chapters that contain python code (one notebook each)."""
    names = []
    for path in sorted((root / "chapters").glob("[!_]*.qmd")):
        if qmd_module.parse(path).chunks():
            names.append(path.stem)
    return names


def notebook_path(root: Path, name: str, edition: str) -> Path:
    if edition == "student":
        return root / "notebooks" / f"{name}.ipynb"
    return root / "notebooks" / edition / f"{name}.ipynb"


def parsed_book(root: Path) -> tuple[dict, list[str]]:
    """Parse every `.qmd` of the book; return parsed files and problems."""
    parsed, problems = {}, []
    partials = [
        str(path.relative_to(root))
        for path in sorted((root / "chapters").glob("_*.qmd"))
    ]
    paths = sorted({*book_files(root), *chapter_files(root), *partials})
    for relative in paths:
        path = root / relative
        if not path.exists() or path.suffix != ".qmd":
            continue
        try:
            parsed[relative] = qmd_module.parse(path)
        except qmd_module.QmdError as error:
            problems.append(str(error).replace(str(root) + "/", ""))
    return parsed, problems


def chapter_files(root: Path) -> list[str]:
    """Chapter files; `_name.qmd` files are partials Quarto never renders
    alone (they are pulled into a chapter with the include shortcode)."""
    return [
        str(path.relative_to(root))
        for path in sorted((root / "chapters").glob("[!_]*.qmd"))
    ]
