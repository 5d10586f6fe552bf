"""Shared set-up for the book's tests."""

from __future__ import annotations

import contextlib
import functools
import io
import os
import shutil
import sys
import types
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))

# `pytest` run directly with a package missing from requirements.txt: name
# it and say how to install it, not an ImportError deep inside a test.
import check_env  # noqa: E402

if check_env.main([]) != 0:
    raise SystemExit(4)

# pytester runs pytest inside a test (tests/test_checker.py).
pytest_plugins = ["pytester"]

# A fake built website for the site-check tests, not a notebook to run.
collect_ignore = ["sitecheck_fixture"]

# Kernels started by nbval inherit these: one thread keeps float reductions
# in the order used when the notebooks were generated.
os.environ["OMP_NUM_THREADS"] = "1"
os.environ["MKL_NUM_THREADS"] = "1"


def pytest_configure(config):
    # Build matplotlib's font cache before any kernel starts; otherwise its
    # one-time notice lands in the first notebook's stderr.
    import matplotlib.font_manager  # noqa: F401


@functools.cache
def _chapter_namespace(name: str) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import nbformat

    notebook = nbformat.read(
        ROOT / "notebooks" / "instructor" / f"{name}.ipynb", 4
    )
    # A registered module, so dataclasses and pickling find their classes.
    module = types.ModuleType(f"chapter_{name.replace('-', '_')}")
    sys.modules[module.__name__] = module
    namespace = module.__dict__
    with contextlib.redirect_stdout(io.StringIO()):
        for cell in notebook.cells:
            if cell.cell_type != "code":
                continue
            exec(compile(cell.source, f"{name}.ipynb", "exec"), namespace)
            plt.close("all")
    return namespace


@pytest.fixture(scope="module")
def chapter():
    """Run a chapter's code (instructor edition) in this process.

    `chapter("maths-and-code")` returns the namespace after every cell has
    run, so tests can call the chapter's self-check functions and reference
    solutions directly.
    """
    return _chapter_namespace


@pytest.fixture
def printed(capsys):
    """Call a function and return (its result, what it printed)."""

    def call(function, *args, **kwargs):
        capsys.readouterr()
        result = function(*args, **kwargs)
        return result, capsys.readouterr().out.strip()

    return call


def copy_book(destination: Path) -> Path:
    """A copy of the book's sources to break on purpose in a test."""
    shutil.copytree(
        ROOT,
        destination,
        ignore=shutil.ignore_patterns(
            ".git",
            ".venv",
            "_book*",
            ".quarto",
            "__pycache__",
            "node_modules",
        ),
    )
    return destination
