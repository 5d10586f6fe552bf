"""Quarto's frozen results in _freeze/ match the chapters.

    python -m tools.check.frozen   # list stale or missing results

Each result file records the MD5 of the source it was executed from; a
chapter edited since would be published with old outputs. Quarto has no
command that checks `_freeze/` without rendering.
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

from tools.source import qmd as qmd_module
from tools.source.book import book_files

ROOT = Path(__file__).resolve().parents[2]
FIX = "run `bash tools/render.sh` and commit _freeze/"
# One result file per output format: the website and the PDF (Typst).
FORMATS = ("html", "typ")


def source_hash(path: Path) -> str:
    """The hash Quarto records: MD5 of the text with LF line endings."""
    text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
    return hashlib.md5(text.encode("utf-8")).hexdigest()


def stale(root: Path = ROOT) -> list[str]:
    """A message for each executed chapter whose frozen results are stale."""
    problems = []
    for relative in book_files(root):
        path = root / relative
        if not qmd_module.parse(path).chunks():
            continue  # no code: Quarto freezes nothing for it
        expected = source_hash(path)
        folder = root / "_freeze" / Path(relative).with_suffix("")
        for output in FORMATS:
            result = folder / "execute-results" / f"{output}.json"
            shown = result.relative_to(root)
            if not result.is_file():
                problems.append(f"{relative}: no frozen results {shown}")
                continue
            recorded = json.loads(result.read_text("utf-8")).get("hash")
            if recorded != expected:
                problems.append(
                    f"{relative} changed since its frozen results {shown} "
                    "were made"
                )
    return problems


def main() -> int:
    problems = stale()
    for problem in problems:
        print(f"freeze: {problem}", file=sys.stderr)
    if problems:
        print(f"freeze: {FIX}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
