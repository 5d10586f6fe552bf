"""Every work of `references.bib` as the website cites and lists it.
Quarto formats citations with Pandoc's citeproc (Chicago author-date) only
inside a render, so each work is cited here in its three forms by the same
Pandoc (Quarto's 3.9, from the pinned pypandoc-binary)."""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

ENTRY = re.compile(
    r"^::: \{#ref-(\S+) \.csl-entry\}\n(.*?)\n:::$", re.M | re.S
)
KEY = re.compile(r"^\s*@\w+\s*\{\s*([^,\s]+)\s*,", re.M)


@dataclass
class Work:
    cited: str  # inside a parenthetical citation: "Vaswani et al. 2017"
    narrative: str  # "Vaswani et al. (2017)"
    year: str  # "2017", or "2016a" beside a work of the same authors
    reference: str  # the References entry, in Markdown
    order: int  # its place in the References list


def read(bibliography: Path) -> dict[str, Work]:
    import pypandoc  # 50 ms, only where the book is numbered

    keys = KEY.findall(bibliography.read_text(encoding="utf-8"))
    forms = [f"[@{k}]\n\n@{k}\n\n[-@{k}]" for k in keys]
    command = [
        pypandoc.get_pandoc_path(),
        "--citeproc",
        f"--bibliography={bibliography}",
        "--from=markdown",
        "--to=markdown-smart",
        "--wrap=none",
    ]
    text = "---\nnocite: '@*'\n---\n" + "\n\n".join(forms)
    written = subprocess.run(
        command, input=text, capture_output=True, text=True, check=True
    ).stdout
    cited = [text.strip() for text in written.split("\n\n")]
    entries = ENTRY.findall(written)  # as the References list orders them
    order = {key: n for n, (key, _) in enumerate(entries)}
    reference = {key: text.strip() for key, text in entries}
    works = {}
    for index, key in enumerate(keys):
        bracketed, narrative, year = cited[3 * index : 3 * index + 3]
        works[key] = Work(
            bracketed[1:-1], narrative, year[1:-1], reference[key], order[key]
        )
    return works
