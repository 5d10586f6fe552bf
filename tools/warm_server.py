"""A warm kernel server that outlasts one render, for the next.

tools/render_book.py forks a page's kernel from a tools/warm_kernel.py
server. A server started with the render takes 4 to 6 s here to import
torch, torch._dynamo and matplotlib, longer than Quarto takes to start
and ask for the kernel (about 3.5 s): the kernel waits for the imports.
An author edits a chapter and renders its page again and again, so each
render leaves its server running, and the next render of the same book
under the same environment and libraries forks from it at once.

- The server's socket is named by a digest (socket_path) of all a kernel
  depends on: the book's folder, the Python, its libraries' folders, the
  scripts of server and launcher, and the environment (but for what
  differs for each kernel, warm_fresh.VARYING). A render with anything
  else different finds no server there and starts its own.
- It ends once no kernel has run for IDLE seconds (BOOK_WARM_KERNEL_IDLE
  sets another time), when the book's folder is gone (a test's copy), or
  when a server started later took its socket; as it ends, it removes its
  socket (not a later server's). With 0, or under CI
  (unless BOOK_WARM_KERNEL_IDLE says otherwise), each render has a server
  of its own that ends with it (render_book.py).
- Its output goes to `.quarto/warm-kernels.log`, not the render's: a
  program reading the render's output to its end never waits for it.

A kernel forked from a server that has served ten renders is as fresh as
one from a new server: the server never runs a chapter's code, and each
kernel is a new process (tools/warm_kernel.py says what it shares).
"""

from __future__ import annotations

import hashlib
import json
import os
import socket
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import warm_fresh  # noqa: E402
import warm_kernel  # noqa: E402

TOOLS = Path(__file__).resolve().parent
IDLE = 600  # seconds
IDLE_VARIABLE = "BOOK_WARM_KERNEL_IDLE"
SCRIPTS = ("warm_kernel.py", "warm_fresh.py", "warm_launcher.py")


def idle_seconds(environment: dict[str, str]) -> float:
    """How long a server waits for the next render; 0: it does not."""
    if IDLE_VARIABLE in environment:
        return float(environment[IDLE_VARIABLE])
    return 0 if environment.get("CI") else IDLE


def digest(root: Path, environment: dict[str, str]) -> str:
    """A name for what a kernel forked from the server depends on."""
    kept = {
        name: value
        for name, value in environment.items()
        if name not in warm_fresh.VARYING
        and not name.startswith(warm_fresh.VARYING_PREFIXES)
        and name != warm_kernel.SOCKET_VARIABLE
    }
    # A library installed or removed changes its folder's time (Python's
    # own folders only: not the current one, which a render writes to).
    libraries = {
        folder: os.stat(folder).st_mtime_ns
        for folder in sys.path
        if os.path.isdir(folder)
        and folder.startswith((sys.prefix, sys.base_prefix))
    }
    scripts = [(TOOLS / name).read_text("utf-8") for name in SCRIPTS]
    described = [
        str(root.resolve()),
        sys.executable,
        libraries,
        scripts,
        warm_kernel.PRELOADED,
        sorted(kept.items()),
    ]
    text = json.dumps(described, sort_keys=True)
    return hashlib.sha256(text.encode()).hexdigest()[:20]


def socket_path(root: Path, environment: dict[str, str]) -> str | None:
    """Where the server for this book and environment listens.

    In a folder of this user's own: a socket path must be short (about
    100 bytes), which a book's own folder may not allow. None if that
    folder is another user's, or others may write in it.
    """
    folder = Path(tempfile.gettempdir()) / f"book-kernels-{os.getuid()}"
    folder.mkdir(mode=0o700, exist_ok=True)
    held = folder.lstat()
    if (
        held.st_uid != os.getuid()
        or held.st_mode & 0o077
        or folder.is_symlink()
    ):
        return None
    return str(folder / digest(root, environment))


def alive(path: str) -> bool:
    """Whether a server listens on path (the look keeps it waiting)."""
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError:
        return False
    finally:
        probe.close()
    return True


def ensure(
    path: str,
    root: Path,
    environment: dict[str, str],
    idle: float,
    modules: tuple[str, ...] = (),
) -> subprocess.Popen | None:
    """A lasting server on path: the one started, None if one was there.

    environment is the one its kernels will have, with path in it; the
    server imports modules (by default warm_kernel.PRELOADED).
    """
    if alive(path):
        return None
    Path(path).unlink(missing_ok=True)  # a server that was killed
    log = root / ".quarto" / "warm-kernels.log"
    log.parent.mkdir(exist_ok=True)
    script = str(TOOLS / "warm_kernel.py")
    with log.open("ab") as output:
        return subprocess.Popen(
            [sys.executable, script, "serve", path, "--idle", str(idle)]
            + [str(root.resolve()), *modules],
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=output,
            env=environment,
            cwd=root,
            start_new_session=True,  # not ended by the render's Ctrl-C
        )
