"""Quarto's frozen results in _freeze/ match the chapters (each records
the MD5 of the source it ran; tests/test_render.py checks). Quarto has no
command that checks `_freeze/` without rendering.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from tools.source import qmd as qmd_module
from tools.source.book import ROOT, book_parts

FIX = "run `bash tools/render.sh` and commit _freeze/"
# One result file per output format: the website and the PDF (Typst).
FORMATS = ("html", "typ")


def stale(root: Path = ROOT) -> list[str]:
    problems = []
    for relative, _ in book_parts(root):
        path = root / relative
        if not qmd_module.parse(path).chunks():
            continue  # no code: Quarto freezes nothing for it
        # Quarto hashes the text with LF line endings.
        text = path.read_text(encoding="utf-8").replace("\r\n", "\n")
        expected = hashlib.md5(text.encode("utf-8")).hexdigest()
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
