"""The environment tools/render_book.py runs Quarto in.

Everything here makes a render faster without changing what it makes.
It all lives in the book's `.quarto/`, which Quarto owns and git ignores:

- `jupyter-cache/`: Jupyter's cache of executed chapters
  (`execute: cache` in _quarto.yml). A chapter whose code did not change
  is not executed again, only its prose re-rendered. The PDF, made in a
  copy of the book at the same time, has a cache of its own
  (`jupyter-cache-pdf/`), so the two renders never write one database at
  once.
- `ipython/`: the kernels' IPython folder (IPYTHONDIR). A kernel that has
  imported torch and matplotlib spends about 0.6 s taking its interpreter
  apart when it exits, and Quarto waits for it after every chapter it
  executes. A startup file there ends the process once its exit handlers
  have run, without that teardown: nothing a render keeps comes from a
  kernel after its last output.
- `jupyter/`: for one page's render, a kernelspec whose kernels are forked
  from a process that has imported the book's libraries already
  (tools/warm_kernel.py says how, and why such a kernel is still fresh).
- `themes/`: the website's compiled themes, kept across renders by
  tools/sass_cache.py (QUARTO_DART_SASS, and the program it runs in
  `bin/`), which says why Quarto would compile them every time.

One setting lives outside it: Quarto's launcher gives its JavaScript
engine `--max-heap-size=8192`, with which V8 keeps the young generation
(where new objects start) under 1 MB, and collects it about 1,600 times
in the render of one page, 0.3 to 0.4 s of the 3 s Quarto spends in its
own code. QUARTO_DENO_V8_OPTIONS, which the launcher appends to its own,
undoes that flag (0 is V8's default), so V8 sizes the young generation
itself: about 35 collections. Old objects keep their 8 GB limit
(`--max-old-space-size=8192`, also the launcher's).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import warm_kernel  # noqa: E402

TOOLS = Path(__file__).resolve().parent


# The young generation sized by V8, not by the launcher's heap limit.
V8_FLAGS = "--max-heap-size=0"


def jupyter_cache(root: Path, name: str = "jupyter-cache") -> Path:
    """Where the book in root keeps a render's cache of executed chapters."""
    return root / ".quarto" / name


KERNEL_STARTUP = "50-exit-without-teardown.py"
EXIT_WITHOUT_TEARDOWN = """# Written by tools/render_env.py, which says why.


def _exit_without_teardown_at_exit():
    # IPython runs this file in the chapter's namespace: names defined here
    # would be there, so that a chapter that forgets `import os` renders.
    import atexit
    import os
    import sys

    def exit_without_teardown():
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(0)

    # Exit handlers run last registered first: this one is registered
    # before any a chapter's code adds, so those still run before it.
    atexit.register(exit_without_teardown)


_exit_without_teardown_at_exit()
del _exit_without_teardown_at_exit
"""


def write_if_changed(path: Path, text: str, executable: bool = False) -> None:
    """Write text to path unless it holds it already."""
    if not path.is_file() or path.read_text("utf-8") != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, "utf-8")
    if executable and not os.access(path, os.X_OK):
        path.chmod(0o755)


def kernel_settings(root: Path) -> Path:
    """IPython's folder for a render's kernels, with its startup file."""
    folder = root / ".quarto" / "ipython"
    startup = folder / "profile_default" / "startup" / KERNEL_STARTUP
    write_if_changed(startup, EXIT_WITHOUT_TEARDOWN)
    return folder


SASS_WRAPPER = """#!/bin/sh
# Written by tools/render_env.py: Quarto's Sass compiler, cached.
exec {python} {script} "$@"
"""


def sass_compiler(root: Path) -> Path:
    """The program Quarto is to compile Sass with: tools/sass_cache.py."""
    wrapper = root / ".quarto" / "bin" / "sass"
    script = SASS_WRAPPER.format(
        python=shlex.quote(sys.executable),
        script=shlex.quote(str(TOOLS / "sass_cache.py")),
    )
    write_if_changed(wrapper, script, executable=True)
    return wrapper


def warm_kernelspec() -> dict:
    """The kernelspec of a kernel forked from a tools/warm_kernel.py server.

    Its command is tools/warm_launcher.py, which asks the server named by
    the kernel's environment (warm_kernel.SOCKET_VARIABLE).
    """
    return {
        "argv": [
            sys.executable,
            str(TOOLS / "warm_launcher.py"),
            "-f",
            "{connection_file}",
        ],
        "display_name": "Python 3 (ipykernel)",
        "language": "python",
        "metadata": {"debugger": True},
    }


def warm_kernels(root: Path, server: str) -> dict[str, str]:
    """Variables that make a render's kernels come from the server."""
    folder = root / ".quarto" / "jupyter"
    kernel = folder / "kernels" / "python3" / "kernel.json"
    spec = json.dumps(warm_kernelspec(), indent=1)
    write_if_changed(kernel, spec + "\n")
    inherited = os.environ.get("JUPYTER_PATH", "").split(os.pathsep)
    paths = [str(folder), *(p for p in inherited if p and p != str(folder))]
    return {
        "JUPYTER_PATH": os.pathsep.join(paths),
        warm_kernel.SOCKET_VARIABLE: server,
    }


@contextlib.contextmanager
def warm_kernel_server(
    socket: str, environment: dict[str, str], modules: tuple[str, ...] = ()
):
    """A tools/warm_kernel.py server on socket while the block runs.

    It imports modules (by default warm_kernel.PRELOADED) under
    environment, which must be the one its kernels will have. It is ended
    at once when the block ends, even while it imports; its standard input
    closes too, so it ends when this process is killed.
    """
    script = str(TOOLS / "warm_kernel.py")
    server = subprocess.Popen(
        [sys.executable, script, "serve", socket, *modules],
        stdin=subprocess.PIPE,
        env=environment,
    )
    try:
        yield server
    finally:
        server.terminate()
        server.stdin.close()
        server.wait(timeout=10)  # it ends at once: an error if it hangs


def render_environment(
    root: Path, server: str | None = None
) -> dict[str, str]:
    """The environment a render of the book in root runs Quarto in.

    With server (the socket of a tools/warm_kernel.py server), the
    render's kernels are forked from it.
    """
    environment = {
        **os.environ,
        "JUPYTERCACHE": str(jupyter_cache(root)),
        "IPYTHONDIR": str(kernel_settings(root)),
        "BOOK_SASS_CACHE": str(root / ".quarto" / "themes"),
        "QUARTO_DART_SASS": str(sass_compiler(root)),
        # Appended to the launcher's flags: a later flag wins, and one
        # given by whoever runs the render comes last.
        "QUARTO_DENO_V8_OPTIONS": ",".join(
            flag
            for flag in [V8_FLAGS, os.environ.get("QUARTO_DENO_V8_OPTIONS")]
            if flag
        ),
    }
    # A compiler chosen by whoever runs the render is the one cached.
    if os.environ.get("QUARTO_DART_SASS"):
        environment["BOOK_DART_SASS"] = os.environ["QUARTO_DART_SASS"]
    # Not a server this process's own parent named (the test suite's).
    environment.pop(warm_kernel.SOCKET_VARIABLE, None)
    if server:
        environment.update(warm_kernels(root, server))
    return environment
