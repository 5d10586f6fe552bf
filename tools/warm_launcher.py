"""The kernel Jupyter launches when its kernels come from a warm server.

    python tools/warm_launcher.py -f CONNECTION_FILE ...

This is the command of the kernelspec tools/render_env.py writes. It hands
the tools/warm_kernel.py server named by BOOK_WARM_KERNELS its arguments,
folder, environment and standard streams, and stands in for the kernel
the server forks: it passes on the signals Jupyter sends and exits with
the kernel's exit code. Without a server, or if the server refuses, it
becomes an ordinary kernel (`python -m ipykernel_launcher`) instead, and
says why on its standard error. The two exchange newline-ended JSON
messages (send, receive) over the server's Unix socket.
"""

from __future__ import annotations

import array
import json
import os
import signal
import socket
import sys
import time

SOCKET_VARIABLE = "BOOK_WARM_KERNELS"
WAIT_FOR_SERVER = 5  # seconds
FORWARDED = (
    signal.SIGINT,
    signal.SIGTERM,
    signal.SIGHUP,
    signal.SIGQUIT,
    signal.SIGUSR1,
    signal.SIGUSR2,
)
STREAMS = 3  # standard input, output and error


def send(connection: socket.socket, message: dict) -> None:
    connection.sendall(json.dumps(message).encode() + b"\n")


def receive(
    connection: socket.socket, limit: int = 1 << 20
) -> tuple[dict, list[int]]:
    """One newline-ended JSON message and the streams passed along with it.

    The message is {} when the peer has gone (or sent more than limit).
    """
    streams = array.array("i")
    data = b""
    while not data.endswith(b"\n"):
        chunk, ancillary, _, _ = connection.recvmsg(
            1 << 16, socket.CMSG_SPACE(STREAMS * streams.itemsize)
        )
        for level, kind, payload in ancillary:
            if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                usable = len(payload) - len(payload) % streams.itemsize
                streams.frombytes(payload[:usable])
        if not chunk or len(data) > limit:
            return {}, list(streams)
        data += chunk
    return json.loads(data), list(streams)


def kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def ordinary_kernel(arguments: list[str], reason: str = "") -> None:
    """Become `python -m ipykernel_launcher ARGUMENTS`, saying why if told."""
    if reason:
        print(f"warm_kernel: an ordinary kernel ({reason})", file=sys.stderr)
        sys.stderr.flush()
    os.execv(
        sys.executable,
        [sys.executable, "-m", "ipykernel_launcher", *arguments],
    )


def launch(arguments: list[str]) -> int:
    """Ask the server for a kernel; wait for it and return its exit code."""
    path = os.environ.get(SOCKET_VARIABLE)
    if not path:
        ordinary_kernel(arguments)
    request = {
        "arguments": arguments,
        "folder": os.getcwd(),
        "environment": dict(os.environ),
    }
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        # Started with the render, the server may not have begun to listen.
        for _ in range(int(WAIT_FOR_SERVER / 0.01)):
            if os.path.exists(path):
                break
            time.sleep(0.01)
        server.connect(path)
        data = json.dumps(request).encode() + b"\n"
        socket.send_fds(server, [data], list(range(STREAMS)))
        reply, _ = receive(server)
    except OSError as error:
        reply = {"refused": f"no server: {error}"}
    if "pid" not in reply:
        server.close()
        ordinary_kernel(arguments, reply.get("refused", "the server ended"))
    pid = reply["pid"]
    for number in FORWARDED:
        signal.signal(number, lambda number, _, pid=pid: forward(pid, number))
    ended, _ = receive(server)  # a signal's handler runs; receiving goes on
    if "exit" not in ended:  # the server is gone: so is the kernel
        kill(pid)
        return 1
    code = ended["exit"]
    return code if code >= 0 else 128 - code


def forward(pid: int, number: int) -> None:
    try:
        os.kill(pid, number)
    except ProcessLookupError:
        pass


if __name__ == "__main__":
    sys.exit(launch(sys.argv[1:]))
