"""Kernels that start with the book's libraries already imported.

    python tools/warm_kernel.py serve SOCKET [--idle SECONDS DIR] [MODULE...]

A new kernel waits 3 to 6 s before its first line runs, while it imports
matplotlib and torch. This server imports them (PRELOADED by default) once
and forks kernels for tools/render_book.py's page renders (kept for the
next by tools/warm_server.py) and the suite (tests/suite_kernels.py).
Jupyter launches tools/warm_launcher.py (the kernelspec
tools/render_env.py writes), which asks the server for a kernel.

A forked kernel is still a fresh one: a new process that has run no code
of any chapter. The libraries are loaded (in sys.modules) but not in the
chapter's namespace, so a chapter that forgets `import torch` still fails;
numpy's and torch's random generators are seeded anew, as an import seeds
them; the warnings filters their imports set are there. The server
imports them under the environment the kernel would have (with
ipykernel's MPLBACKEND set first). It refuses (tools/warm_fresh.py) a
kernel whose environment differs in anything but what is set for each
kernel (VARYING), or whose folder differs from its own where either
holds a `matplotlibrc`; every kernel once it has a second thread (a fork
copies only the thread that forks), and every kernel when importing the
libraries printed or warned, which a new kernel would show in the cell
that imports them. What still
tells a forked kernel apart: it shares the server's seed for Python's
string hashing; a submodule the server imported (matplotlib.figure) is an
attribute of its package before the kernel imports it; the libraries'
objects are never collected (gc.freeze); and torch's log messages pass
through the server's standard error, which the kernel forwards to the
cell a moment later than it would its own.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import selectors
import signal
import socket
import sys
import time

# When a fork is as fresh as a new kernel.
from warm_fresh import INLINE_BACKEND, refusal

# The protocol between server and launcher; SOCKET_VARIABLE for others too.
from warm_launcher import (  # noqa: F401
    FORWARDED,
    SOCKET_VARIABLE,
    STREAMS,
    kill,
    receive,
    send,
)

# Not ipykernel.kernelapp: its classes read JPY_PARENT_PID when defined
# (the kernel's parent, which differs for each kernel). What it imports is
# here, and loading it in the kernel takes about 4 ms.
PRELOADED = (
    "ipykernel.ipkernel",
    "numpy",
    "torch",
    "matplotlib",
    "matplotlib.figure",
    "matplotlib.backends.backend_agg",
    # Imported by torch on first use of a dispatch mode or a padding mask
    # (FlopCounterMode in systems, key_padding_mask in maths-and-code):
    # about 800 modules, sympy among them, 1 to 1.3 s in that cell.
    "torch._dynamo",
    # Quarto's setup cell imports it (otter-grader's): 0.37 s a page.
    "pandas",
)
WATCH = 1  # seconds between a lasting server's looks at its folder


def become_kernel(request: dict, streams: list[int]) -> None:
    """In the forked child: turn into `python -m ipykernel_launcher`."""
    import runpy

    os.setsid()  # as Jupyter starts a kernel: a session of its own
    for number in (*FORWARDED, signal.SIGCHLD):
        signal.signal(number, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    for target, stream in enumerate(streams):
        os.dup2(stream, target)
        os.close(stream)
    os.chdir(request["folder"])
    os.environ.clear()
    os.environ.update(request["environment"])
    # A new interpreter seeds numpy's global generator and torch's from the
    # system as it imports them; a fork copies the server's (Python's
    # `random` seeds itself anew in a forked child).
    for name in ("numpy.random", "torch"):
        if name in sys.modules:
            sys.modules[name].seed()
    # The path is this process's, without tools/ (Server.load): as for
    # `python -m ipykernel_launcher`, which takes the current folder off
    # the path, where IPython puts it back.
    sys.argv = ["ipykernel_launcher", *request["arguments"]]

    def kernel() -> None:
        try:
            runpy.run_module(
                "ipykernel_launcher", run_name="__main__", alter_sys=True
            )
        finally:
            # As at any interpreter's exit (the chapter's handlers too).
            atexit._run_exitfuncs()

    exit_without_teardown(kernel)


def exit_without_teardown(body) -> None:
    """Run body, then end the process with its exit code at once: taking
    apart an interpreter with torch takes 0.6 s, which a render would wait
    for, and a forked kernel must never return into the server's code."""
    code = 0
    try:
        body()
    except SystemExit as stop:
        code = (
            stop.code if isinstance(stop.code, int) else int(bool(stop.code))
        )
    except BaseException:
        import traceback

        traceback.print_exc()
        code = 1
    finally:
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(code)


class Server:
    def __init__(self, path: str) -> None:
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        # The socket appears at path once it listens, not as bind makes
        # it: a launcher that finds the file could be refused in between.
        staging = f"{path}.{os.getpid()}"
        self.listener.bind(staging)
        self.listener.listen(8)
        os.rename(staging, path)
        self.path, self.inode = path, os.stat(path).st_ino
        self.selector = selectors.DefaultSelector()
        self.kernels: dict[int, socket.socket | None] = {}
        # As ipykernel sets it before a kernel's code can load matplotlib.
        os.environ.setdefault("MPLBACKEND", INLINE_BACKEND)
        self.imported_under = dict(os.environ)
        self.folder = os.getcwd()
        self.noise = ""

    def load(self, modules: list[str]) -> None:
        """Import modules; what they print or warn becomes self.noise.

        The warnings filters they add stay, as in a kernel that imported
        them. Their objects are frozen: a kernel's full collections would
        walk and write to them all, copying every page the fork shares
        (ffn-gradients in maths-and-code took 0.70 s of CPU, now 0.35 s).
        """
        import gc
        import importlib
        import tempfile
        import warnings

        # This script's folder (tools/) must not shadow a library.
        here = os.path.dirname(os.path.realpath(__file__))
        if sys.path and os.path.realpath(sys.path[0]) == here:
            del sys.path[0]
        warned = []
        shown = warnings.showwarning
        warnings.showwarning = lambda message, *_: warned.append(message)
        kept = [os.dup(target) for target in (1, 2)]
        with tempfile.TemporaryFile() as printed:
            failed = True
            try:
                for target in (1, 2):
                    os.dup2(printed.fileno(), target)
                for name in modules:
                    importlib.import_module(name)
                failed = False
            finally:
                warnings.showwarning = shown
                sys.stdout.flush()
                sys.stderr.flush()
                for target, stream in zip((1, 2), kept, strict=True):
                    os.dup2(stream, target)
                    os.close(stream)
                printed.seek(0)
                said = printed.read().decode(errors="replace")
                if failed:  # shown with the import's error
                    sys.stderr.write(said)
        said = [str(message) for message in warned] + said.splitlines()
        self.noise = said[0][:100] if said else ""
        gc.freeze()

    def serve(self, idle: float = 0, watched: str = "") -> None:
        """Fork kernels until standard input closes (its parent ended).

        With idle (seconds), until no kernel has run for that long, the
        folder watched is gone, or another server took the socket; its
        standard input then plays no part (tools/warm_server.py).
        """
        self.wakeup, self.woken = socket.socketpair()
        self.wakeup.setblocking(False)
        self.woken.setblocking(False)
        signal.set_wakeup_fd(self.wakeup.fileno())
        signal.signal(signal.SIGCHLD, lambda *_: None)
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        self.selector.register(self.listener, selectors.EVENT_READ, "new")
        self.selector.register(self.woken, selectors.EVENT_READ, "child")
        if not idle:
            self.selector.register(sys.stdin, selectors.EVENT_READ, "parent")
        last_used = time.monotonic()
        try:
            while idle <= 0 or not self.done(last_used, idle, watched):
                events = self.selector.select(
                    min(WATCH, idle) if idle else None
                )
                for key, _ in events:
                    if key.data == "parent" and not os.read(0, 4096):
                        return
                    if key.data == "new":
                        self.fork(self.listener.accept()[0])
                    elif key.data == "child":
                        self.woken.recv(4096)
                        self.reap()
                    elif isinstance(key.data, int):
                        self.launcher_gone(key.data)
                if events or self.kernels:  # a look (alive()) counts
                    last_used = time.monotonic()
        finally:
            for pid in self.kernels:
                kill(pid)
            self.release()

    def holds_socket(self) -> bool:
        """Whether the socket at the path is still this server's (a server
        started later puts its own there)."""
        try:
            return os.stat(self.path).st_ino == self.inode
        except OSError:
            return False

    def release(self) -> None:
        """Take the socket away, unless it is no longer this server's."""
        if self.holds_socket():
            with contextlib.suppress(OSError):
                os.unlink(self.path)

    def done(self, last_used: float, idle: float, watched: str) -> bool:
        """Whether a lasting server is no longer wanted (once its kernels
        have ended: they are never cut short)."""
        lost = not self.holds_socket() or not os.path.isdir(watched or "/")
        unused = time.monotonic() - last_used > idle
        return not self.kernels and (lost or unused)

    def fork(self, connection: socket.socket) -> None:
        message, streams = receive(connection)
        reason = "?"
        if message:
            reason = refusal(
                self.imported_under, message, self.noise, self.folder
            )
        if reason or len(streams) != STREAMS:
            for stream in streams:
                os.close(stream)
            with contextlib.suppress(OSError):
                send(connection, {"refused": reason or "no streams"})
            connection.close()
            return
        pid = os.fork()
        if pid == 0:

            def child() -> None:
                self.leave()
                connection.close()
                become_kernel(message, streams)

            exit_without_teardown(child)  # never back into the server's loop
        for stream in streams:
            os.close(stream)
        try:
            send(connection, {"pid": pid})
        except OSError:  # its launcher has gone: so goes the kernel
            kill(pid)
            connection.close()
            return
        self.kernels[pid] = connection
        self.selector.register(connection, selectors.EVENT_READ, pid)

    def leave(self) -> None:
        """In a forked child: let go of everything the server holds."""
        signal.set_wakeup_fd(-1)
        self.selector.close()
        for held in (self.listener, self.wakeup, self.woken):
            held.close()
        for connection in self.kernels.values():
            if connection is not None:
                connection.close()
        self.kernels = {}  # the server's kernels are not this one's

    def reap(self) -> None:
        """Tell each ended kernel's launcher its exit code."""
        while self.kernels:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            connection = self.kernels.pop(pid, None)
            if connection is None:  # its launcher had gone
                continue
            self.selector.unregister(connection)
            try:
                send(connection, {"exit": os.waitstatus_to_exitcode(status)})
            except OSError:
                pass
            connection.close()

    def launcher_gone(self, pid: int) -> None:
        """A launcher that ends takes its kernel with it."""
        connection = self.kernels.get(pid)
        if connection is None:  # reaped in the same round of events
            return
        if not connection.recv(4096):
            self.selector.unregister(connection)
            connection.close()
            self.kernels[pid] = None
            kill(pid)


def serve(
    path: str, modules: list[str], idle: float = 0, watched: str = ""
) -> None:
    """Import modules, then fork kernels (SIGTERM ends it with code 0)."""

    def body() -> None:
        # Ctrl-C reaches the server too; its parent ends it (SIGTERM).
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        server = Server(path)
        server.load(modules)
        server.serve(idle, watched)

    exit_without_teardown(body)


def main(arguments: list[str]) -> int:
    if arguments[:1] != ["serve"] or len(arguments) < 2:
        print(__doc__.split("\n\n")[1], file=sys.stderr)
        return 2
    path, rest = arguments[1], arguments[2:]
    idle, watched = 0.0, ""
    if rest[:1] == ["--idle"] and len(rest) > 2:
        idle, watched, rest = float(rest[1]), rest[2], rest[3:]
    serve(path, rest or list(PRELOADED), idle, watched)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
