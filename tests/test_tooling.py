"""The book's own tooling and tests are formatted and linted too."""

import subprocess
import sys

from conftest import ROOT


def ruff(*args):
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, "tools", "tests"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )


def test_tooling_is_formatted():
    result = ruff("format", "--check")
    assert result.returncode == 0, result.stdout + result.stderr


def test_tooling_passes_lint():
    result = ruff("check")
    assert result.returncode == 0, result.stdout + result.stderr
