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


def test_tooling_lines_fit_79_characters():
    # ruff format keeps code within 79 but leaves long strings and
    # comments alone (E501 is off for the chapters' `#|` option lines).
    paths = sorted([*ROOT.glob("tools/*.py"), *ROOT.glob("tests/*.py")])
    too_long = [
        f"{path.relative_to(ROOT)}:{number}"
        for path in paths
        for number, line in enumerate(
            path.read_text(encoding="utf-8").splitlines(), start=1
        )
        if len(line) > 79
    ]
    assert not too_long, "lines over 79 characters: " + ", ".join(too_long)
