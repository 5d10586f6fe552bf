"""tools/warm_server.py: a kernel server that outlasts its render.

The servers here import ipykernel or nothing, not torch: what is tested is
how long a server lasts and who finds it, not what it preloads.
"""

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
import render_env
import warm_kernel
import warm_server
from jupyter_client import KernelManager

TOOLS = Path(__file__).resolve().parent.parent / "tools"
pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"),
    reason="kernels are forked from a server on Linux only",
)


def until(condition, seconds: float = 10) -> bool:
    """Whether condition() holds within seconds."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if condition():
            return True
        time.sleep(0.05)
    return False


def kernel_environment(book: Path, path: str) -> dict[str, str]:
    """The environment of a render's kernels (and so of its server)."""
    environment = {**os.environ, **render_env.warm_kernels(book, path)}
    environment.pop("PYTEST_CURRENT_TEST", None)
    return environment


def lasting(tmp_path: Path, idle: float, modules=("json",)):
    """A book's folder, a lasting server's socket and its process."""
    book = tmp_path / "book"
    book.mkdir(exist_ok=True)
    path = warm_server.socket_path(book, dict(os.environ))
    environment = kernel_environment(book, path)
    server = warm_server.ensure(path, book, environment, idle, modules)
    assert server is not None, "a server was there already"
    assert until(lambda: warm_server.alive(path)), "the server never listened"
    return book, path, server


def test_the_socket_is_named_by_what_a_kernel_depends_on(tmp_path):
    name = warm_server.digest
    book = tmp_path
    base = {"LANG": "C.UTF-8", "PWD": "/a", "QUARTO_DOCUMENT_PATH": "/a"}
    # What differs for each kernel does not count; anything else does.
    assert name(book, base) == name(
        book, {**base, "PWD": "/b", "QUARTO_DOCUMENT_PATH": "/b"}
    )
    assert name(book, base) != name(book, {**base, "LANG": "C"})
    assert name(book, base) != name(tmp_path / "other", base)
    # The server's own socket is in its kernels' environment.
    named = {**base, warm_kernel.SOCKET_VARIABLE: "/tmp/x"}
    assert name(book, base) == name(book, named)


def test_how_long_a_server_waits():
    assert warm_server.idle_seconds({}) == warm_server.IDLE
    assert warm_server.idle_seconds({warm_server.IDLE_VARIABLE: "5"}) == 5
    assert warm_server.idle_seconds({"CI": "true"}) == 0
    told = {"CI": "true", warm_server.IDLE_VARIABLE: "5"}
    assert warm_server.idle_seconds(told) == 5


def test_the_next_render_forks_its_kernel_from_the_server_left(
    tmp_path, monkeypatch
):
    book = tmp_path / "book"
    book.mkdir()
    path = warm_server.socket_path(book, dict(os.environ))
    environment = kernel_environment(book, path)
    # A render that starts one: whoever reads its output to the end (as
    # the tests read Quarto's) does not wait for the server, which lasts.
    start = (
        "import sys, warm_server; from pathlib import Path; "
        f"sys.exit(warm_server.ensure({path!r}, Path({str(book)!r}), "
        "dict(__import__('os').environ), 60, ('ipykernel.ipkernel',)) "
        "is None)"
    )
    render = subprocess.run(
        [sys.executable, "-c", start],
        cwd=TOOLS,
        env=environment,
        capture_output=True,
        timeout=20,
    )
    assert render.returncode == 0, render.stderr
    assert until(lambda: warm_server.alive(path)), "the server is gone"
    # The next render finds it, and its kernel comes from it.
    assert warm_server.ensure(path, book, environment, 60) is None
    # The render's kernelspec, whatever the suite's own (suite_kernels).
    monkeypatch.setenv("JUPYTER_PATH", environment["JUPYTER_PATH"])
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(cwd=str(book), env=environment)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=30)
        printed = []
        client.execute_interactive(
            "import os; print(os.getpid())",
            output_hook=lambda m: printed.append(m["content"].get("text")),
            timeout=30,
        )
        launched = manager.provisioner.process.pid
        assert f"{launched}\n" not in printed, "an ordinary kernel"
        assert any(text and text.strip().isdigit() for text in printed)
        # A server that loses its socket (to a later server) keeps its
        # running kernels: it ends only once they have.
        Path(path).unlink()
        time.sleep(1.5)  # more than warm_kernel.WATCH
        reply = client.execute_interactive("1 + 1", timeout=10)
        assert reply["content"]["status"] == "ok", "the kernel was killed"
    finally:
        client.stop_channels()
        manager.shutdown_kernel(now=True)
    shutil.rmtree(book)  # and so the server ends, its kernel gone


def test_a_server_ends_once_unused(tmp_path):
    _, path, server = lasting(tmp_path, idle=1.5)
    # A look keeps it (a render looks before it starts Quarto).
    for _ in range(4):
        time.sleep(0.5)
        assert warm_server.alive(path)
    assert server.poll() is None
    assert until(lambda: server.poll() is not None, 5), "still running"
    assert server.returncode == 0
    assert not warm_server.alive(path)
    assert not Path(path).exists(), "left its socket behind"


def test_a_server_ends_with_its_book_or_its_socket(tmp_path):
    book, path, server = lasting(tmp_path, idle=600)
    shutil.rmtree(book)
    assert until(lambda: server.poll() is not None, 5), "outlived its book"
    assert not Path(path).exists(), "left its socket behind"
    book, path, server = lasting(tmp_path, idle=600)
    # A server started later (the same render, run twice at once) puts its
    # own socket at the path: this one ends, and leaves that one there.
    Path(path).unlink()
    Path(path).write_text("a later server's socket")
    try:
        assert until(lambda: server.poll() is not None, 5), "lost its socket"
        assert Path(path).read_text() == "a later server's socket"
    finally:  # the path is in the user's real folder of sockets
        Path(path).unlink(missing_ok=True)
