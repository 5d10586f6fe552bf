"""Render the book with Quarto, and fail on any warning Quarto prints.

    python -m tools.render_book QUARTO [--profile NAME]          # the book
    python -m tools.render_book QUARTO chapters/x.qmd --to html  # one page

`quarto render` exits 0 when it warns (`--fail-if-warnings` misses an
unresolved cross-reference), so the log is read. The website and the PDF
render side by side, the PDF in a copy of the sources (each format stages
figures in `chapters/<x>_files/`); tools/benchmark.py measures the gain.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
# Not needed to make the PDF. _book* (_book, _book-<profile>): so the one
# in the copy is the PDF's, whichever profile Quarto took (QUARTO_PROFILE).
NOT_COPIED = (
    ".git .venv .quarto .jupyter_cache node_modules __pycache__ notebooks "
    "assignments _assignments tests _book*".split()
)
# What Quarto, Pandoc and the Lua filters print when they warn (colours
# removed); not a bare WARNING, which every kernel prints at its start.
WARNING = re.compile(r"\[WARNING\]|WARN:|^WARNING\b|^\(W\)", re.M)
ANSI = re.compile(r"\x1b\[[0-9;]*m")


def warnings(log: str) -> list[str]:
    return list(filter(WARNING.search, ANSI.sub("", log).splitlines()))


def run(command: list[str], folder: Path, echo: bool) -> tuple[int, str]:
    """(exit code, output) of a render, echoed if asked; with this Python
    for the chapters and the post-render step, unless QUARTO_PYTHON says."""
    python = str(Path(sys.executable).parent)
    environment = {
        "QUARTO_PYTHON": sys.executable,
        **os.environ,
        "PATH": os.pathsep.join([python, os.environ.get("PATH", "")]),
    }
    process = subprocess.Popen(
        command,
        cwd=folder,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    )
    lines = []
    for line in process.stdout:
        lines.append(line)
        if echo:
            print(line, end="", flush=True)
    return process.wait(), "".join(lines)


def copy_pdf_results(copy: Path, root: Path) -> int:
    """The number of PDFs copied back (0: none in a _book* folder)."""
    pdfs = list(copy.glob("_book*/*.pdf"))
    for pdf in pdfs:
        (root / pdf.parent.name).mkdir(exist_ok=True)
        shutil.copy2(pdf, root / pdf.parent.name / pdf.name)
    for result in (copy / "_freeze").rglob("execute-results/typ.json"):
        chapter = result.parent.parent.relative_to(copy)
        target = root / chapter
        (target / "execute-results").mkdir(parents=True, exist_ok=True)
        shutil.copy2(result, target / "execute-results" / "typ.json")
        figures = copy / chapter / "figure-typst"
        shutil.rmtree(target / "figure-typst", ignore_errors=True)
        if figures.is_dir():
            shutil.copytree(figures, target / "figure-typst")
    return len(pdfs)


def render(
    quarto: str, profiles: list[str], root: Path | None = None, echo=True
) -> tuple[int, str]:
    """(the first failing exit code or 0, the log) of both formats."""
    root = root or ROOT
    profile = ["--profile", ",".join(profiles)] if profiles else []
    staged = set(root.glob("chapters/*_files"))
    try:
        with tempfile.TemporaryDirectory(prefix="book-pdf-") as scratch:
            copy = Path(scratch) / "book"
            ignored = shutil.ignore_patterns(*NOT_COPIED)
            shutil.copytree(root, copy, symlinks=True, ignore=ignored)
            render_to = [quarto, "render", *profile, "--to"]
            with ThreadPoolExecutor(max_workers=1) as pool:
                pdf = pool.submit(run, [*render_to, "typst"], copy, False)
                results = {"website": run([*render_to, "html"], root, echo)}
                results["PDF"] = pdf.result()
            log = results["website"][1] + results["PDF"][1]
            if echo:
                print(results["PDF"][1], end="")
            for name, (code, _) in results.items():
                if code != 0:
                    return code, log + f"render: the {name} failed ({code})\n"
            if not copy_pdf_results(copy, root):
                return 1, log + "render: the PDF is in no _book* folder\n"
            return 0, log
    finally:
        # `--to html` leaves the PDF's figures staged beside the chapters.
        for folder in set(root.glob("chapters/*_files")) - staged:
            shutil.rmtree(folder)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("quarto")
    parser.add_argument("--profile", default="")
    arguments, rest = parser.parse_known_args(argv)
    if rest:  # one page: `quarto render` with the arguments as given
        code, log = run([arguments.quarto, "render", *argv[1:]], ROOT, True)
    else:
        profiles = [p for p in arguments.profile.split(",") if p]
        code, log = render(arguments.quarto, profiles)
    if code != 0:
        print(log.splitlines()[-1] if log else "", file=sys.stderr)
        return code
    found = warnings(log)
    if found:
        print(f"render: Quarto warned {len(found)} time(s):", file=sys.stderr)
        print("\n".join(f"  {line}" for line in found), file=sys.stderr)
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
