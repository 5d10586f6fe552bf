"""The notebook and source links of every chapter page, written into its
front matter (Quarto cannot template it) from `book: repo-url`."""

from __future__ import annotations

import re
from pathlib import Path

import yaml

from tools.source.book import quarto_config

KEYS = ("other-links", "code-links")


def repo_url(root: Path) -> str:
    return quarto_config(root)["book"]["repo-url"].rstrip("/")


def site_url(root: Path) -> str:
    """`book: site-url`, ending in `/` (tests/test_links.py keeps it the
    GitHub Pages address of `book: repo-url`)."""
    return quarto_config(root)["book"]["site-url"].rstrip("/") + "/"


def colab_url(root: Path) -> str:
    # Where Colab opens the repository's files (a file's path follows).
    github = repo_url(root).removeprefix("https://github.com/")
    return f"https://colab.research.google.com/github/{github}/blob/main/"


def expected(root: Path, name: str) -> dict:
    url = repo_url(root)
    notebook = f"notebooks/{name}.ipynb"
    return {
        "other-links": [
            {
                "text": "Download this chapter's notebook",
                "href": f"../{notebook}",
                "icon": "download",
            },
            {
                "text": "Open this chapter's notebook in Colab",
                "href": colab_url(root) + notebook,
                "icon": "google",
                "target": "_blank",
            },
        ],
        "code-links": [
            {
                "text": "This chapter's source on GitHub",
                "href": f"{url}/blob/main/chapters/{name}.qmd",
                "icon": "github",
            }
        ],
    }


def rewrite(text: str, links: dict) -> str:
    match = re.match(r"---\n(.*?\n)---\n", text, re.S)
    if not match:
        raise ValueError("chapter has no front matter")
    lines = match.group(1).splitlines(keepends=True)
    kept, skipping = [], False
    for line in lines:
        if not line.startswith((" ", "\t", "-")):  # a top-level key
            skipping = line.split(":")[0].strip() in KEYS
        if not skipping:
            kept.append(line)
    block = yaml.safe_dump(
        links, sort_keys=False, allow_unicode=True, width=200
    )
    front = "".join(kept) + block
    return f"---\n{front}---\n" + text[match.end() :]


def sync(root: Path, name: str) -> bool:
    """Rewrite chapter `name`'s links; return True if the file changed."""
    path = root / "chapters" / f"{name}.qmd"
    text = path.read_text("utf-8")
    updated = rewrite(text, expected(root, name))
    if updated != text:
        path.write_text(updated, "utf-8")
    return updated != text
