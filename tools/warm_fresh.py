"""When a kernel forked by tools/warm_kernel.py is as fresh as a new one.

The server imports its libraries once, under its own environment and in
its own folder; a kernel forked from it has them as a new kernel would
have imported them only when nothing that decides how they load differs
(refusal says what does), and nothing a new kernel would show was
printed while they loaded. warm_kernel.py's docstring says what still
tells a forked kernel apart.
"""

from __future__ import annotations

import os

INLINE_BACKEND = "module://matplotlib_inline.backend_inline"
# Set for each kernel by Quarto, Jupyter, pytest and the shell; by otter
# (its conda folder first on PATH), IPython's test plugin (the terminal's
# size) and torch (once it has compiled) in the test suite's processes.
# None of warm_kernel.PRELOADED reads them when it is imported.
VARYING_PREFIXES = ("QUARTO_", "DENO_", "JPY_", "PYTEST_")
VARYING = {
    *"PYDEVD_DISABLE_FILE_VALIDATION PWD OLDPWD SHLVL _ PATH".split(),
    *"COLUMNS LINES TORCHINDUCTOR_CACHE_DIR BOOK_WARM_KERNEL_IDLE".split(),
}


def differences(imported_under: dict, kernel: dict) -> list[str]:
    """Variables that differ between two environments, and matter."""
    # ipykernel sets MPLBACKEND when it is not set before any of the
    # kernel's code runs (IPKernelApp.init_gui_pylab).
    kernel = {"MPLBACKEND": INLINE_BACKEND, **kernel}
    names = set(imported_under) | set(kernel)
    return sorted(
        name
        for name in names
        if imported_under.get(name) != kernel.get(name)
        and name not in VARYING
        and not name.startswith(VARYING_PREFIXES)
    )


def refusal(
    imported_under: dict, request: dict, noise: str = "", folder: str = ""
) -> str:
    """Why the server cannot fork this kernel; "" when it can.

    noise is what importing the libraries printed or warned: a new kernel
    would show it in the cell that imports them, a forked one would not.
    folder is where the server imported them: matplotlib reads a
    `matplotlibrc` in the current folder when it is imported.
    """
    if noise:
        return f"importing the libraries said {noise!r}"
    folders = {
        os.path.realpath(f) for f in (folder, request.get("folder")) if f
    }
    if len(folders) > 1 and any(
        os.path.isfile(os.path.join(f, "matplotlibrc")) for f in folders
    ):
        return "a matplotlibrc where the kernel or the server started"
    running = threads()
    if running != 1:
        return f"the server has {running} threads"
    different = differences(imported_under, request.get("environment", {}))
    if different:
        return "the kernel's environment differs: " + ", ".join(different)
    return ""


def threads() -> int:
    return len(os.listdir("/proc/self/task"))  # servers run on Linux only
