"""The suite's notebook kernels, forked from one warm server.

Every notebook the suite executes (under nbval, and in otter's grading
runs) starts a kernel that then imports torch and matplotlib: about 2.5 s
of CPU each time, for a dozen kernels. On Linux the first pytest process
starts one tools/warm_kernel.py server, which imports them once, and the
kernels of every pytest process are forked from it. That module's
docstring says why such a kernel is as fresh as a new one: it has run no
code, its namespace is empty, its random generators are seeded anew. The
server refuses a kernel, which then starts the ordinary way, when the
kernel's environment differs from the server's (a test that sets a
variable) or when importing the libraries printed or warned, which a new
kernel would show in the cell that imports them.

tools/warm_kernel.py lists the differences that remain, such as the
server's seed for Python's string hashing, which all its kernels share:
the order of a set of strings is the same in all of them (and different
in the next run of the suite).

`BOOK_FRESH_KERNELS=1` starts every kernel the ordinary way.
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
from pathlib import Path

OPT_OUT = "BOOK_FRESH_KERNELS"
# nbval's name for the kernel of its own environment (--nbval-current-env),
# and the kernel otter's grading runs and nbclient ask for.
KERNEL_NAMES = (":nbval-parent-env", "python3")
# Imported by the server besides what a render's kernels start with
# (warm_kernel.PRELOADED): a graded notebook's first cell runs
# `import otter`, which imports nbconvert (otter.export), about 0.3 s in
# the kernel of each grading run.
ALSO_PRELOADED = ("nbconvert",)


def wanted() -> bool:
    return sys.platform.startswith("linux") and os.environ.get(OPT_OUT) != "1"


def start_server(config) -> None:
    """In the first pytest process: the server, until pytest ends.

    Its socket is in the environment that the xdist workers, and every
    kernel, inherit; the server imports under that environment.
    """
    import render_env
    import warm_kernel

    stack = contextlib.ExitStack()
    folder = stack.enter_context(
        tempfile.TemporaryDirectory(
            prefix="book-kernels-", ignore_cleanup_errors=True
        )
    )
    socket = str(Path(folder) / "server")
    os.environ[warm_kernel.SOCKET_VARIABLE] = socket
    stack.enter_context(
        render_env.warm_kernel_server(
            socket, {**os.environ}, (*warm_kernel.PRELOADED, *ALSO_PRELOADED)
        )
    )
    config.add_cleanup(stack.close)


def fork_kernels(socket: str) -> None:
    """Make this process's kernels of KERNEL_NAMES come from the server.

    Only while the environment still names the suite's server: a test
    that starts a kernel of its own kind unsets or changes the variable.
    """
    import ipykernel.kernelspec
    import render_env
    import warm_kernel
    from jupyter_client.kernelspec import KernelSpec, KernelSpecManager
    from nbval.kernel import NbvalKernelspecManager

    spec = KernelSpec(
        resource_dir=ipykernel.kernelspec.RESOURCES,
        **render_env.warm_kernelspec(),
    )

    def patched(original):
        def get_kernel_spec(self, kernel_name):
            ours = os.environ.get(warm_kernel.SOCKET_VARIABLE) == socket
            if ours and kernel_name in KERNEL_NAMES:
                return spec
            return original(self, kernel_name)

        return get_kernel_spec

    for manager in (KernelSpecManager, NbvalKernelspecManager):
        manager.get_kernel_spec = patched(manager.get_kernel_spec)


def configure(config) -> None:
    """(Its modules are imported only where it forks: not on Windows.)"""
    if not wanted():
        return
    import warm_kernel

    if not hasattr(config, "workerinput"):
        start_server(config)
    socket = os.environ.get(warm_kernel.SOCKET_VARIABLE)
    if socket:
        fork_kernels(socket)
