"""Shared set-up for the book's tests."""

from __future__ import annotations

import functools
import os
import shutil
from pathlib import Path

import pytest

from tools.source.book import ONE_THREAD

ROOT = Path(__file__).resolve().parent.parent

# A fake built website for the site-check tests, not a notebook to run.
collect_ignore = ["sitecheck_fixture"]

# Kernels started by nbval inherit these: one thread keeps float reductions
# in the order used when the notebooks were generated.
os.environ.update(ONE_THREAD)


def pytest_configure(config):
    config.pluginmanager.register(NotebooksExecutedElsewhere())
    kernel_ports_of_this_process()
    # Build matplotlib's font cache before any kernel starts; otherwise its
    # one-time notice lands in the first notebook's stderr. Once, in the
    # main process: xdist workers (with `workerinput`) start after it.
    if not hasattr(config, "workerinput"):
        import matplotlib.font_manager  # noqa: F401


# Jupyter picks a kernel's five ports by binding to port 0 and letting go,
# and the kernel binds them a second later: another process asking the
# system for a port meanwhile can be handed the same one, and the kernel
# dies ("Address already in use"; jupyter_client issue 487). Each pytest
# process takes its kernels' ports from a range of its own, below the
# range the system hands out (32768 and up on Linux), so no two kernels of
# the suite, nor any other program's bind to port 0, can collide.
KERNEL_PORTS_FROM = 20000
KERNEL_PORTS_EACH = 1500


def kernel_port_range(worker: str | None) -> range:
    """The ports of the pytest process named worker (xdist's gw0, gw1...)."""
    index = int(worker[2:]) + 1 if worker and worker[2:].isdigit() else 0
    start = KERNEL_PORTS_FROM + index * KERNEL_PORTS_EACH
    return range(start, start + KERNEL_PORTS_EACH)


def kernel_ports_of_this_process() -> None:
    import socket

    from jupyter_client.connect import LocalPortCache

    ports = kernel_port_range(os.environ.get("PYTEST_XDIST_WORKER"))
    taken = LocalPortCache.find_available_port
    following = iter(())

    def find_available_port(self, ip: str) -> int:
        nonlocal following
        for _ in range(2):  # the rest of the range, then all of it again
            for port in following:
                if port in self.currently_used_ports:
                    continue
                with socket.socket() as probe:
                    try:
                        probe.bind((ip, port))
                    except OSError:
                        continue  # in use by another program
                self.currently_used_ports.add(port)
                return port
            following = iter(ports)
        return taken(self, ip)

    LocalPortCache.find_available_port = find_available_port


GRADING = "tests/test_grading.py"
# The units that run a whole notebook or wait on a kernel, longest first
# (measured: 14 s down to 1 s), so that no worker is left with one at the
# end: xdist orders its units by their number of tests, which puts these
# (a few tests each) last.
LONGEST_FIRST = [
    "untouched-training",
    "solutions-systems",
    "solutions-maths-and-code",
    "untouched-systems",
    "tests/test_regenerate_cli.py",
    "untouched-maths-and-code",
    "untouched-mechanics",
    "solutions-mechanics",
    "solutions-training",
    "tests/test_assignments.py",
    "tests/test_figure_export.py",
]


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """`--dist loadfile`, with each grading run a unit of its own.

    Otherwise tests/test_grading.py, eight whole chapters, would run on one
    worker while the other sat idle. This changes only where and in which
    order tests run, never which.
    """
    if config.getvalue("dist") != "loadfile":
        return None
    from xdist.scheduler import LoadFileScheduling

    class GradingRunsApart(LoadFileScheduling):
        def _assign_work_unit(self, node) -> None:
            for scope in reversed(LONGEST_FIRST):
                if scope in self.workqueue:
                    self.workqueue.move_to_end(scope, last=False)
            super()._assign_work_unit(node)

        def _split_scope(self, nodeid: str) -> str:
            test_file = super()._split_scope(nodeid)
            if test_file == GRADING:  # "untouched-mechanics" and the like
                return nodeid.rsplit("[", 1)[-1].rstrip("]")
            return test_file

    return GradingRunsApart(config, log)


# The chapter whose notebooks tests/test_regenerate_cli.py regenerates, in
# a copy of the book, and compares byte for byte with these.
REGENERATED = "intuition"


class NotebooksExecutedElsewhere:
    """Leave to other tests the notebooks they already execute.

    A graded chapter's two otter grading runs (tests/test_grading.py)
    execute its student and instructor notebooks and compare every output
    with nbval's own comparison, and tests/test_regenerate_cli.py executes
    REGENERATED's two notebooks and finds them unchanged. nbval executes
    none of them a second time; a notebook named on the command line still
    runs under nbval. A plugin, not a hook of this file, whose collection
    hooks reach only tests/.
    """

    @staticmethod
    def pytest_ignore_collect(collection_path, config):
        if collection_path.suffix != ".ipynb":
            return None
        if str(collection_path.resolve()) in _named_paths(config):
            return None
        folder = collection_path.resolve().parent
        if folder in (ROOT / "notebooks", ROOT / "notebooks" / "instructor"):
            if collection_path.stem in (*_graded_chapters(), REGENERATED):
                return True
        return None


def _named_paths(config) -> set[str]:
    return {str(Path(arg.split("::")[0]).resolve()) for arg in config.args}


@functools.cache
def _graded_chapters() -> tuple[str, ...]:
    from tools.export import graded

    return tuple(graded.graded_chapters())


# What the book's checks read; a checker test copies only this (fast).
SOURCES = [
    "_quarto.yml",
    "_quarto-dev.yml",
    "_quarto-instructor.yml",
    "index.qmd",
    "references.bib",
    "pyproject.toml",
    # The title cells name the pinned torch: without it every notebook
    # of a copy would be out of date.
    "requirements.txt",
    "chapters",
    "notebooks",
    "figures",
]
NOT_SOURCES = shutil.ignore_patterns(
    ".git",
    ".venv",
    "_book*",
    ".quarto",
    ".ruff_cache",
    "__pycache__",
    "node_modules",
)


def copy_book(destination: Path, whole: bool = False) -> Path:
    """A copy of the book's sources to break on purpose in a test.

    `whole=True` copies the entire project (for a Quarto render), not just
    the files the checks read.
    """
    if whole:
        shutil.copytree(ROOT, destination, ignore=NOT_SOURCES)
        return destination
    destination.mkdir(parents=True)
    for name in SOURCES:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, destination / name, ignore=NOT_SOURCES)
        else:
            shutil.copy2(source, destination / name)
    return destination


RENDER_LEFT_OUT = "BOOK_RENDER=0 leaves the render tests out"


def render_left_out() -> bool:
    """Whether BOOK_RENDER=0 asks for the suite as without Quarto."""
    return os.environ.get("BOOK_RENDER") == "0"


def quarto() -> str | None:
    """The Quarto the render tests use: on PATH, else the one in .venv.

    tools/render.sh installs the pinned Quarto into .venv when PATH has
    none (tools/quarto.sh). BOOK_RENDER=0 gives none: the suite then runs
    as on a machine without Quarto (tools/benchmark.py times it so).
    """
    if render_left_out():
        return None
    installed = ROOT / ".venv" / "bin" / "quarto"
    on_path = shutil.which("quarto")
    if on_path or not os.access(installed, os.X_OK):
        return on_path
    return str(installed)


# tools/sitecheck/check.sh: what it needs besides the rendered site.
SITECHECK = ROOT / "tools" / "sitecheck"
BROWSERS = [
    "chromium",
    "chromium-browser",
    "google-chrome",
    "google-chrome-stable",
]


def site_check_missing() -> str | None:
    """What the site check lacks on this machine, if anything."""
    if shutil.which("node") is None:
        return "node is not installed"
    if not (SITECHECK / "node_modules" / ".bin" / "lhci").exists():
        return (
            "its packages are not installed: `bash tools/sitecheck/install.sh`"
        )
    browser = os.environ.get("CHROME_PATH")
    if not (browser and Path(browser).exists()) and not any(
        shutil.which(name) for name in BROWSERS
    ):
        return "no Chromium: `apt-get install chromium` or set CHROME_PATH"
    return None


def require_site_check() -> None:
    """Skip or fail a test that runs the site check, as this machine allows.

    The site check runs wherever Quarto renders the book (`quarto()`), or
    wherever BOOK_SITECHECK=1 asks for it; BOOK_SITECHECK=0 leaves it out
    (it takes minutes). Asked for and unable to run, the test
    fails, saying what is missing; otherwise it is skipped with the reason.
    """
    wanted = os.environ.get("BOOK_SITECHECK")
    if wanted == "0":
        pytest.skip("BOOK_SITECHECK=0 leaves the site check out")
    if wanted != "1" and quarto() is None:
        pytest.skip(
            "the site check runs where Quarto is installed, or with "
            "BOOK_SITECHECK=1"
        )
    missing = site_check_missing()
    if missing and wanted == "1":
        pytest.fail(
            f"BOOK_SITECHECK=1, but the site check cannot run: {missing}"
        )
    if missing:
        pytest.skip(f"the site check cannot run here: {missing}")
