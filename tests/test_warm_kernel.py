"""tools/warm_kernel.py and warm_launcher.py: kernels forked from a server.

The server here preloads ipykernel, numpy (whose global random generator a
fork would copy) and `colorsys` (a module no kernel loads by itself), not
torch: what is tested is what a forked kernel is, not how long torch
takes.
"""

import contextlib
import json
import os
import socket
import time
from pathlib import Path

import pytest
import render_env
import suite_kernels
import warm_fresh
import warm_kernel
import warm_launcher
from jupyter_client import KernelManager

PRELOADED = ["ipykernel.ipkernel", "numpy.random", "colorsys"]
PROBE = """
import json, os, random, sys
import numpy
from ipykernel.kernelapp import IPKernelApp
print(json.dumps({
    "drawn": [random.random(), numpy.random.random()],
    "parent": IPKernelApp.instance().parent_handle
    == int(os.environ["JPY_PARENT_PID"]),
    "preloaded": "colorsys" in sys.modules,
    "names": sorted(n for n in dir() if not n.startswith("_")),
    "main": sys.modules["__main__"].__name__,
    # The connection file's path aside: each kernel has its own.
    "argv": [a if not a.endswith(".json") else "" for a in sys.argv],
    "path": sys.path,
    "folder": os.getcwd(),
    "environment": dict(os.environ),
    "pid": os.getpid(),
    "session": os.getsid(0) == os.getpid(),  # its own, as Jupyter starts it
    "frozen": __import__("gc").get_freeze_count(),
}))
"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A running server; its socket's path.

    It has the environment the kernels will have (render_book.py starts
    it so), that is, the kernelspec's variables too.
    """
    with listening(tmp_path_factory.mktemp("warm"), PRELOADED) as path:
        yield path


@contextlib.contextmanager
def listening(folder: Path, modules, **variables):
    """render_env's server, once it listens, with the kernels' variables.

    Its socket's path; it must end with code 0.
    """
    path = str(folder / "server")
    environment = {
        **kernel_environment(),
        **render_env.warm_kernels(folder, path),
        **variables,
    }
    with render_env.warm_kernel_server(path, environment, modules) as process:
        while not os.path.exists(path):
            assert process.poll() is None, "the server ended"
            time.sleep(0.01)
        yield path
    assert process.returncode == 0, "the server failed"


def kernel_environment() -> dict[str, str]:
    """This process's environment, without what pytest sets for a test."""
    environment = dict(os.environ)
    environment.pop("PYTEST_CURRENT_TEST", None)
    return environment


def set_kernel_environment(monkeypatch, server, **variables) -> None:
    """The environment the server's kernels have, and variables."""
    monkeypatch.delenv("PYTEST_CURRENT_TEST", raising=False)
    # As the server fixture made it (for a missing server, alike).
    spec = render_env.warm_kernels(Path(server).parent, server)
    variables = {**spec, **variables}
    for name, value in variables.items():
        monkeypatch.setenv(name, value)


def start(tmp_path, monkeypatch, server=None, **variables):
    """A kernel as Quarto starts one, from the render's kernelspec or not."""
    folder = tmp_path / "chapters"
    folder.mkdir(exist_ok=True)
    if server:
        set_kernel_environment(monkeypatch, server, **variables)
    else:  # not from the suite's server either (tests/suite_kernels.py)
        monkeypatch.delenv(warm_kernel.SOCKET_VARIABLE, raising=False)
        monkeypatch.setenv("JUPYTER_PATH", str(tmp_path / "no-kernelspecs"))
    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(cwd=str(folder))
    client = manager.client()
    client.start_channels()
    client.wait_for_ready(timeout=30)
    return manager, client


def run(client, code: str, timeout: float = 30) -> tuple[str, dict]:
    """(standard output, reply content) of code run in the kernel."""
    printed = []

    def output(message):
        if message["msg_type"] == "stream":
            printed.append(message["content"]["text"])

    reply = client.execute_interactive(
        code, output_hook=output, timeout=timeout
    )
    return "".join(printed), reply["content"]


def probe(client) -> dict:
    return json.loads(run(client, PROBE)[0])


def stop(manager, client) -> None:
    client.stop_channels()
    manager.shutdown_kernel(now=True)


def gone(pid: int) -> bool:
    """Whether process pid ends within 5 s."""
    for _ in range(100):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


def test_a_forked_kernel_is_a_fresh_one(tmp_path, monkeypatch, server):
    warm = start(tmp_path, monkeypatch, server=server)
    forked = probe(warm[1])
    assert forked["pid"] != warm[0].provisioner.process.pid  # not launched
    stop(*warm)  # kills the launcher's process group
    assert gone(forked["pid"]), "the kernel outlived its launcher"
    # Its random generators are seeded anew, as a new interpreter's are,
    # not copies of the server's.
    second = start(tmp_path, monkeypatch, server=server)
    again = probe(second[1])
    assert again["pid"] != second[0].provisioner.process.pid  # forked too
    stop(*second)
    drawn = zip(forked["drawn"], again["drawn"], strict=True)
    assert all(first != second for first, second in drawn)
    ordinary = start(tmp_path, monkeypatch)
    fresh = probe(ordinary[1])
    stop(*ordinary)
    assert forked["preloaded"] and not fresh["preloaded"]
    # The libraries' objects are frozen, out of the collector's way (the
    # server's load says why); a new kernel's are not.
    assert forked["frozen"] > 0 and fresh["frozen"] == 0
    # Nothing else tells them apart: not the chapter's namespace, the
    # path modules are found on, the folder, or the environment beyond
    # what is set for each kernel.
    assert fresh["parent"]  # ipykernel knows the process that asked for it
    keys = ("parent", "session", "names", "main", "argv", "path", "folder")
    for key in keys:
        assert forked[key] == fresh[key], key
    assert "colorsys" not in forked["names"]
    for name in ("JUPYTER_PATH", warm_kernel.SOCKET_VARIABLE):
        for kernel in (forked, fresh):
            kernel["environment"].pop(name, None)
    assert (
        warm_fresh.differences(forked["environment"], fresh["environment"])
        == []
    )


def asleep(message: dict, request: str) -> bool:
    """Whether message is request's code printing that it is asleep."""
    return (
        message["parent_header"].get("msg_id") == request
        and message["msg_type"] == "stream"
        and message["content"]["text"] == "asleep\n"
    )


def test_interrupts_shutdown_and_exit_codes_pass_between_kernel_and_jupyter(
    tmp_path, monkeypatch, server
):
    manager, client = start(tmp_path, monkeypatch, server=server)
    assert probe(client)["preloaded"]
    # stop_on_error=False: ipykernel aborts the requests that arrive just
    # after a cell fails (this one, interrupted) unless told not to, and
    # the next cell, which registers the exit handler, was aborted.
    message = client.execute(
        "import time; print('asleep'); time.sleep(30)", stop_on_error=False
    )
    # Not before the code runs: a signal that comes between the kernel's
    # announcing it and running it interrupts no code (ipykernel logs
    # "KeyboardInterrupt caught in kernel"), and the sleep goes on.
    while not asleep(client.get_iopub_msg(timeout=10), message):
        pass
    manager.interrupt_kernel()
    reply = client.get_shell_msg(timeout=10)
    assert reply["parent_header"]["msg_id"] == message
    assert reply["content"]["ename"] == "KeyboardInterrupt"
    # A kernel asked to shut down runs the exit handlers of its code.
    ended = tmp_path / "ended"
    registered = f"import atexit; atexit.register(open, {str(ended)!r}, 'w')"
    assert run(client, registered)[1]["status"] == "ok"
    client.stop_channels()
    # Jupyter sends SIGTERM to a kernel that has not ended 2.5 s after it
    # was asked to (shutdown_wait_time / 2), which skips exit handlers; a
    # loaded machine (a full test run) once took longer.
    manager.shutdown_wait_time = 30
    manager.shutdown_kernel()
    assert ended.is_file()
    manager, client = start(tmp_path, monkeypatch, server=server)
    client.execute("import os; os._exit(3)")
    assert manager.provisioner.process.wait(timeout=10) == 3
    client.stop_channels()
    manager.cleanup_resources()


class OrdinaryKernelError(Exception):
    pass


def launched(monkeypatch) -> str:
    """Why the launcher became an ordinary kernel (it is stopped first)."""

    def ordinary_kernel(arguments, reason=""):
        raise OrdinaryKernelError(reason)

    monkeypatch.setattr(warm_launcher, "ordinary_kernel", ordinary_kernel)
    with pytest.raises(OrdinaryKernelError) as stopped:
        warm_launcher.launch(["-f", "kernel.json"])
    return str(stopped.value)


def test_without_a_server_the_kernel_is_an_ordinary_one(tmp_path, monkeypatch):
    monkeypatch.delenv(warm_kernel.SOCKET_VARIABLE, raising=False)
    assert launched(monkeypatch) == ""  # not asked to: nothing to say
    monkeypatch.setattr(warm_launcher, "WAIT_FOR_SERVER", 0.05)
    set_kernel_environment(monkeypatch, str(tmp_path / "no-server"))
    assert launched(monkeypatch).startswith("no server")


def test_a_kernel_in_another_environment_is_refused(monkeypatch, server):
    set_kernel_environment(monkeypatch, server, OMP_NUM_THREADS="7")
    reason = launched(monkeypatch)
    assert reason == "the kernel's environment differs: OMP_NUM_THREADS"


def test_what_each_kernel_is_given_may_differ():
    imported_under = {
        "HOME": "/h",
        "OMP_NUM_THREADS": "1",
        "PWD": "/a",
        "MPLBACKEND": warm_fresh.INLINE_BACKEND,
    }
    kernel = {
        **imported_under,
        "PWD": "/b",
        "JPY_PARENT_PID": "12",
        "QUARTO_FIG_DPI": "96",
    }
    assert warm_fresh.differences(imported_under, kernel) == []
    del kernel["MPLBACKEND"]  # ipykernel sets the same one
    assert warm_fresh.differences(imported_under, kernel) == []
    kernel["MPLBACKEND"] = "agg"
    del kernel["HOME"]
    assert warm_fresh.differences(imported_under, kernel) == [
        "HOME",
        "MPLBACKEND",
    ]


def test_a_server_with_a_second_thread_forks_nothing(monkeypatch):
    monkeypatch.setattr(warm_fresh, "threads", lambda: 2)
    same = {"MPLBACKEND": warm_fresh.INLINE_BACKEND}
    request = {"environment": same}
    assert warm_fresh.refusal(same, request) == "the server has 2 threads"
    monkeypatch.setattr(warm_fresh, "threads", lambda: 1)
    assert warm_fresh.refusal(same, request) == ""


def server_importing(tmp_path, code: str):
    """A server that imports a module running code; its socket's path.

    The module is on PYTHONPATH, which the kernels must have too.
    """
    (tmp_path / "probe_module.py").write_text(code)
    return listening(tmp_path, ["probe_module"], PYTHONPATH=str(tmp_path))


@pytest.mark.parametrize(
    "code, said",
    [
        ("print('a notice')", "a notice"),
        ("import warnings\nwarnings.warn('a warning')", "a warning"),
    ],
)
def test_a_server_whose_imports_said_something_forks_nothing(
    tmp_path, monkeypatch, code, said
):
    """A new kernel would show it in the cell that imports the module."""
    with server_importing(tmp_path, code) as path:
        set_kernel_environment(monkeypatch, path, PYTHONPATH=str(tmp_path))
        reason = launched(monkeypatch)
    assert reason == f"importing the libraries said {said!r}"


def test_the_warnings_filters_an_import_sets_are_the_kernels(
    tmp_path, monkeypatch
):
    """As numpy, torch and IPython set some when they are imported."""
    code = "import warnings\nwarnings.filterwarnings('ignore', 'tb-probe')"
    check = (
        "import sys, warnings\n"
        "print('probe_module' in sys.modules, any(f[1] is not None and "
        "f[1].pattern == 'tb-probe' for f in warnings.filters))"
    )
    with server_importing(tmp_path, code) as path:
        manager, client = start(
            tmp_path, monkeypatch, path, PYTHONPATH=str(tmp_path)
        )
        printed = run(client, check)[0]
        stop(manager, client)
    assert printed == "True True\n"  # forked, with the filter


def test_a_launcher_that_leaves_at_once_leaves_the_server_serving(
    tmp_path, monkeypatch
):
    """Its kernel is killed; the kernels of other launchers go on."""
    with server_importing(tmp_path, "") as path:
        set_kernel_environment(monkeypatch, path, PYTHONPATH=str(tmp_path))
        request = {
            "arguments": ["-f", str(tmp_path / "kernel.json")],
            "folder": str(tmp_path),
            "environment": dict(os.environ),
        }
        streams = [os.open(os.devnull, os.O_RDWR) for _ in range(3)]
        for _ in range(3):  # gone before the server answers
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as gone:
                gone.connect(path)
                data = json.dumps(request).encode() + b"\n"
                socket.send_fds(gone, [data], streams)
        for stream in streams:
            os.close(stream)
        manager, client = start(
            tmp_path, monkeypatch, path, PYTHONPATH=str(tmp_path)
        )
        printed = run(
            client, "import sys; print('probe_module' in sys.modules)"
        )
        stop(manager, client)
    assert printed[0] == "True\n"


def test_the_socket_appears_only_once_it_listens(tmp_path, monkeypatch):
    """A launcher waits for the file, then connects: it must not be refused."""
    path = str(tmp_path / "server")
    seen = []

    class Socket(socket.socket):
        def listen(self, *arguments):
            seen.append(os.path.exists(path))
            return super().listen(*arguments)

    monkeypatch.setattr(warm_kernel.socket, "socket", Socket)
    server = warm_kernel.Server(path)
    try:
        assert seen == [False]
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as launcher:
            launcher.connect(path)
    finally:
        server.listener.close()


def test_a_matplotlibrc_in_either_folder_is_refused(tmp_path, monkeypatch):
    """matplotlib reads one in the current folder as it is imported."""
    monkeypatch.setattr(warm_fresh, "threads", lambda: 1)  # not this one's
    server, kernel = tmp_path / "server", tmp_path / "kernel"
    server.mkdir()
    kernel.mkdir()
    same = {"MPLBACKEND": warm_fresh.INLINE_BACKEND}
    request = {"environment": same, "folder": str(kernel)}
    assert warm_fresh.refusal(same, request, folder=str(server)) == ""
    for folder in (server, kernel):
        (folder / "matplotlibrc").write_text("lines.linewidth: 7\n")
        reason = warm_fresh.refusal(same, request, folder=str(server))
        assert (
            reason == "a matplotlibrc where the kernel or the server started"
        )
        (folder / "matplotlibrc").unlink()
    request["folder"] = str(server)  # the same folder: read by both
    (server / "matplotlibrc").write_text("lines.linewidth: 7\n")
    assert warm_fresh.refusal(same, request, folder=str(server)) == ""


def test_the_suites_notebook_kernels_are_forked():
    """nbval's and otter's kernels come from tests/suite_kernels.py's server.

    It imports the book's libraries (warm_kernel.PRELOADED), torch among
    them, and otter's nbconvert, so a kernel forked from it has them loaded
    before any code ran, though not in its namespace.
    """
    if not suite_kernels.wanted():
        pytest.skip(f"{suite_kernels.OPT_OUT}=1, or not Linux")
    import nbval.kernel

    loaded = ("torch", *suite_kernels.ALSO_PRELOADED)
    code = (
        "import sys\n"
        f"print(all(m in sys.modules for m in {loaded}), 'torch' in dir())"
    )
    draw = "import torch\nprint(torch.rand(1).item())"
    drawn = []
    for name in suite_kernels.KERNEL_NAMES:
        manager = KernelManager(
            kernel_name=name,
            kernel_spec_manager=nbval.kernel.NbvalKernelspecManager(),
        )
        manager.start_kernel()
        client = manager.client()
        client.start_channels()
        client.wait_for_ready(timeout=30)
        assert run(client, code)[0] == "True False\n", name
        drawn.append(run(client, draw)[0])
        stop(manager, client)
    # Each kernel seeds torch's generator anew, as a new interpreter does.
    assert drawn[0] != drawn[1]
