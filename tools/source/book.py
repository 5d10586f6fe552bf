"""The book's files: what `_quarto.yml` lists, the chapters with a
notebook, where each edition lives, and every `.qmd` parsed. Beside
`quarto inspect`, which lists them too but needs Quarto; the tests do not."""

from __future__ import annotations

import re
from pathlib import Path

from tools.source import qmd as qmd_module

ROOT = Path(__file__).resolve().parents[2]
REGENERATE = ".venv/bin/python -m tools.regenerate"
# Every kernel that records or checks an output runs on one thread, which
# keeps float reductions in one order (tools/setup.sh exports the same).
ONE_THREAD = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}


def quarto_config(root: Path) -> dict:
    return qmd_module.load_yaml((root / "_quarto.yml").read_text("utf-8"))


def pinned(name: str, root: Path = ROOT) -> str | None:
    """The version `requirements.txt` pins name to (`name==X.Y.Z`)."""
    path = root / "requirements.txt"
    text = path.read_text(encoding="utf-8") if path.is_file() else ""
    found = re.search(rf"^{re.escape(name)}==([\w.]+)", text, re.M)
    return found[1] if found else None


def book_parts(root: Path) -> list[tuple[str, bool]]:
    """Every file `_quarto.yml` lists, in order, each with whether it is
    an appendix (a part's `href` and chapters count as chapters)."""
    book = quarto_config(root).get("book", {})

    def entries(items) -> list[str]:
        files = []
        for item in items or []:
            if isinstance(item, str):
                files.append(item)
            elif isinstance(item, dict):
                files += [item["href"]] if "href" in item else []
                files += entries(item.get("chapters"))
        return files

    return [(f, False) for f in entries(book.get("chapters"))] + [
        (f, True) for f in entries(book.get("appendices"))
    ]


def notebook_chapters(root: Path) -> list[str]:
    """Stems of the chapters with python code (one notebook each)."""
    files = chapter_files(root)
    return [Path(f).stem for f in files if qmd_module.parse(root / f).chunks()]


def notebook_path(root: Path, name: str, edition: str) -> Path:
    folder = "" if edition == "student" else edition  # student: notebooks/
    return root / "notebooks" / folder / f"{name}.ipynb"


def parsed_book(root: Path) -> tuple[dict, list[str]]:
    """Every `.qmd` of the book (partials too), parsed; and problems."""
    parsed, problems = {}, []
    listed = [f for f, _ in book_parts(root) if f.endswith(".qmd")]
    everything = [f"chapters/{p.name}" for p in root.glob("chapters/*.qmd")]
    for relative in sorted({*listed, *everything}):
        if not (root / relative).exists():
            continue  # check_quarto_files says so
        try:
            parsed[relative] = qmd_module.parse(root / relative)
        except qmd_module.QmdError as error:
            problems.append(str(error).replace(str(root) + "/", ""))
    return parsed, problems


def chapter_files(root: Path) -> list[str]:
    """Chapter files; `_name.qmd` partials are included into a chapter."""
    return [
        str(path.relative_to(root))
        for path in sorted((root / "chapters").glob("[!_]*.qmd"))
    ]
