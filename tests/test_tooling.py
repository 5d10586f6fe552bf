"""The book's own tooling and tests are formatted and linted too."""

import os
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT


def ruff(*args):
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, "tools", "tests"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


@pytest.mark.parametrize(
    "command",
    [
        ["format", "--check"],
        ["check"],
        # ruff format keeps code within 79 characters, not strings and
        # comments (E501 is off for the chapters' `#|` option lines).
        ["check", "--select", "E501", "--config", "lint.ignore = []"],
        # Imported as the package tools: no sys.path edit, and no import
        # after other code, even where a noqa comment allowed it.
        [
            "check",
            "--isolated",
            "--ignore-noqa",
            "--select",
            "E402,TID251",
            "--config",
            "lint.flake8-tidy-imports.banned-api.'sys.path'.msg = 'no'",
            "--extend-exclude",
            "tests/plants",  # notebook cells, one import where needed
        ],
    ],
)
def test_tooling_is_formatted_and_linted(command):
    result = ruff(*command)
    assert result.returncode == 0, result.stdout + result.stderr


def test_tooling_layers_point_one_way():
    # The contract is in pyproject.toml ([tool.importlinter]).
    result = subprocess.run(
        [Path(sys.executable).with_name("lint-imports"), "--no-cache"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout, result.stdout


# At every render Quarto lists each file under the book's folder but its
# output folder, without following symbolic links (tools/env_dir.sh says
# why): about 300 here. An environment inside the book (.venv's 50,000
# files, the site check's 8,000) costs each page's render 0.2 to 4 s, so
# tools/setup.sh and tools/sitecheck/install.sh put theirs outside.
# .git is left out: its loose objects grow with every commit until git
# packs them (up to 6,700), which says nothing of an environment.
MOST_FILES_WALKED = 2000


def test_no_environment_inside_the_book():
    counts = {  # files under each top-level entry; links are not followed
        entry.name: sum(len(files) for _, _, files in os.walk(entry)) or 1
        for entry in ROOT.iterdir()
        if entry.name not in ("_book", ".git") and not entry.is_symlink()
    }
    biggest = sorted(counts.items(), key=lambda item: -item[1])[:3]
    assert sum(counts.values()) <= MOST_FILES_WALKED, (
        f"Quarto would list {sum(counts.values())} files at every render, "
        f"most under {biggest}: an environment inside the book? "
        "`rm -rf .venv && bash tools/setup.sh` moves .venv out, "
        "`bash tools/sitecheck/install.sh` the site check's packages"
    )
