"""Render the book's website and its PDF side by side, one core each.

    python tools/render_book.py QUARTO [--profile NAME]          # the book
    python tools/render_book.py QUARTO chapters/x.qmd --to html  # one page

`bash tools/render.sh` calls this. A plain `quarto render` makes both
formats one after the other in a single process (about 33 s here, 24 s of
it the website); two processes on the machine's two cores take about as
long as the website alone. They cannot share a folder: each format stages
figures in `chapters/<chapter>_files/` and removes that folder when done,
and `--to html` removes the PDF from the output folder (`--to typst` the
website). So the PDF is made in a copy of the book's sources, then its
PDF and its frozen Typst results (`_freeze/**/typ.json`, `figure-typst/`)
are copied back, exactly where a plain `quarto render` puts them.

Any other arguments are Quarto's own, for one render as asked (one
chapter's page, one format). Quarto runs the post-render step
(tools/site/postrender.py) after that render too, so a page rendered
alone is finished as the published one is (tests/test_render.py).

Quarto runs in the environment tools/render_env.py builds: the caches that
make a re-render fast, and how the render's kernels start and end.

Quarto's exit code passes through; its warnings are listed, and any makes
the exit code 1 (tools/render_log.py says which lines are warnings).
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
import render_log  # noqa: E402
import warm_server  # noqa: E402
from render_env import (  # noqa: E402
    jupyter_cache,
    render_environment,
    warm_kernel_server,
)

TOOLS = Path(__file__).resolve().parent
ROOT = TOOLS.parent
# Not needed to make the PDF: version control, environments, caches,
# generated notebooks and assignments, tests, and earlier outputs.
NOT_COPIED = {
    ".git",
    ".venv",
    ".quarto",
    "node_modules",
    "__pycache__",
    "notebooks",
    "assignments",
    "_assignments",
    "tests",
}


# The website's code is coloured after the render (tools/site/highlight.py
# says why); given to Quarto, not set in _quarto.yml, which would drop the
# themes' code colours too.
PLAIN_CODE = ["--syntax-highlighting=none"]


def website_only(arguments: list[str]) -> bool:
    """Whether Quarto's arguments ask for the website's format alone."""
    for index, argument in enumerate(arguments):
        if argument in ("--to", "-t") and index + 1 < len(arguments):
            return arguments[index + 1] == "html"
        if argument.startswith("--to="):
            return argument == "--to=html"
    return False


def output_dir(root: Path, profiles: list[str]) -> str:
    """The output folder the profiles give (`project: output-dir`)."""
    folder = "_book"
    for name in ["_quarto.yml"] + [f"_quarto-{p}.yml" for p in profiles]:
        path = root / name
        if not path.is_file():
            continue
        config = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
        folder = (config.get("project") or {}).get("output-dir", folder)
    return folder


def copy_sources(root: Path, destination: Path, outputs: set[str]) -> None:
    """Copy what a render reads, without outputs, caches or environments."""

    def ignored(folder: str, names: list[str]) -> set[str]:
        skip = {name for name in names if name in NOT_COPIED}
        if Path(folder) == root:
            skip |= {name for name in names if name in outputs}
        return skip

    shutil.copytree(root, destination, ignore=ignored, symlinks=True)


def copy_pdf_results(copy: Path, root: Path, output: str) -> None:
    """The copy's PDF and frozen Typst results, into the book itself."""
    for pdf in (copy / output).glob("*.pdf"):
        (root / output).mkdir(exist_ok=True)
        shutil.copy2(pdf, root / output / pdf.name)
    for result in (copy / "_freeze").rglob("execute-results/typ.json"):
        chapter = result.parent.parent.relative_to(copy)
        target = root / chapter
        (target / "execute-results").mkdir(parents=True, exist_ok=True)
        shutil.copy2(result, target / "execute-results" / "typ.json")
        figures = copy / chapter / "figure-typst"
        if (target / "figure-typst").exists():
            shutil.rmtree(target / "figure-typst")
        if figures.is_dir():
            shutil.copytree(figures, target / "figure-typst")


def staged_figures(root: Path) -> set[Path]:
    """Folders where Quarto stages a page's figures while it renders."""
    found = [*root.glob("*_files"), *root.glob("*/*_files")]
    return {
        path
        for path in found
        if path.is_dir() and path.relative_to(root).parts[0] not in NOT_COPIED
    }


def profile_arguments(profiles: list[str]) -> list[str]:
    """Quarto's `--profile` option for the profiles, if any."""
    return ["--profile", ",".join(profiles)] if profiles else []


def run(
    command: list[str], folder: Path, echo: bool, environment: dict[str, str]
) -> tuple[int, str]:
    """Run a render; return its exit code and output (echoed if asked)."""
    process = subprocess.Popen(
        command,
        cwd=folder,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        errors="replace",
    )
    lines = []
    for line in process.stdout:
        lines.append(line)
        if echo:
            sys.stdout.write(line)
            sys.stdout.flush()
    return process.wait(), "".join(lines)


def render(
    quarto: str,
    profiles: list[str],
    root: Path | None = None,
    echo: bool = True,
) -> tuple[int, str]:
    """Render both formats: the first failing exit code (else 0), the log.

    The book is root (default ROOT). The website's output is echoed as it
    comes when asked, the PDF's after it.
    """
    root = root or ROOT
    profile = profile_arguments(profiles)
    output = output_dir(root, profiles)
    staged = staged_figures(root)
    try:
        return render_side_by_side(quarto, profile, root, output, echo)
    finally:
        # `--to html` leaves the PDF's figures staged beside the chapters
        # (a plain `quarto render` removes them once the PDF is made).
        for folder in staged_figures(root) - staged:
            shutil.rmtree(folder)


def render_side_by_side(
    quarto: str, profile: list[str], root: Path, output: str, echo: bool
) -> tuple[int, str]:
    """The website in root and the PDF in a copy, at once; (code, log)."""
    with tempfile.TemporaryDirectory(prefix="book-pdf-") as scratch:
        copy = Path(scratch) / "book"
        copy_sources(root, copy, {"_book", output})
        results = {}
        website = render_environment(root)
        pdf_cache = jupyter_cache(root, "jupyter-cache-pdf")
        pdf_environment = {**website, "JUPYTERCACHE": str(pdf_cache)}

        def pdf() -> None:
            command = [quarto, "render", "--to", "typst", *profile]
            results["PDF"] = run(command, copy, False, pdf_environment)

        worker = threading.Thread(target=pdf)
        worker.start()
        command = [quarto, "render", "--to", "html", *PLAIN_CODE, *profile]
        results["website"] = run(command, root, echo, website)
        worker.join()
        heading = "render: the PDF, made beside the website in a copy:\n"
        log = results["website"][1] + heading + results["PDF"][1]
        if echo:
            print(heading + results["PDF"][1], end="")
        for name, (code, _) in results.items():
            if code != 0:
                return code, log + f"render: the {name} failed ({code})\n"
        copy_pdf_results(copy, root, output)
    return 0, log


def render_as_asked(
    quarto: str,
    arguments: list[str],
    profiles: list[str],
    root: Path | None = None,
) -> tuple[int, str]:
    """One `quarto render ARGUMENTS`: (code, log).

    On Linux its kernels come from a tools/warm_kernel.py server: the one
    an earlier render left (tools/warm_server.py), or else one started
    now, which imports the book's libraries while Quarto starts up. (Not
    on macOS, where a forked process may not use the system's libraries
    as numpy does, its BLAS among them.)
    """
    plain = PLAIN_CODE if website_only(arguments) else []
    command = [quarto, "render", *arguments, *plain]
    command += profile_arguments(profiles)
    root = root or ROOT
    if not sys.platform.startswith("linux"):
        return run(command, root, True, render_environment(root))
    environment = lasting_server(root)
    if environment:
        return run(command, root, True, environment)
    with tempfile.TemporaryDirectory(prefix="book-kernels-") as folder:
        socket = str(Path(folder) / "server")
        # The server imports under the environment its kernels will have.
        environment = render_environment(root, server=socket)
        with warm_kernel_server(socket, environment):
            return run(command, root, True, environment)


def lasting_server(root: Path) -> dict[str, str] | None:
    """The environment of a render whose kernels come from a lasting
    server (started if there is none); None if it is to have none (on
    Linux only, not under BOOK_WARM_KERNEL_IDLE=0) or cannot."""
    idle = warm_server.idle_seconds(os.environ)
    if idle <= 0 or not sys.platform.startswith("linux"):
        return None
    socket = warm_server.socket_path(root, render_environment(root))
    if socket is None:
        return None
    environment = render_environment(root, server=socket)
    warm_server.ensure(socket, root, environment, idle)
    return environment


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("quarto")
    parser.add_argument("--profile", default="")
    arguments, rest = parser.parse_known_args(argv)
    profiles = [p for p in arguments.profile.split(",") if p]
    if rest:
        code, log = render_as_asked(arguments.quarto, rest, profiles)
    else:
        code, log = render(arguments.quarto, profiles)
        # Not for the whole book, whose PDF keeps the other core busy; but
        # the page an author renders next finds a warm server.
        if code == 0:
            lasting_server(ROOT)
    if code != 0:
        print(log.splitlines()[-1] if log else "", file=sys.stderr)
        return code
    return render_log.report(log)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
