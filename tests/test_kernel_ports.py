"""Kernels of the suite take ports from a range of their own (conftest)."""

import contextlib
import os
import socket

from conftest import kernel_port_range
from jupyter_client.connect import LocalPortCache


def test_each_pytest_process_has_its_own_ports_below_the_systems():
    ranges = [kernel_port_range(w) for w in (None, "gw0", "gw1", "gw5")]
    ports = [set(r) for r in ranges]
    assert all(a.isdisjoint(b) for a in ports for b in ports if a is not b)
    assert max(max(r) for r in ranges) < 32768  # Linux hands out 32768+


def test_a_kernel_gets_a_free_port_of_this_process():
    mine = kernel_port_range(os.environ.get("PYTEST_XDIST_WORKER"))
    cache = LocalPortCache()
    first = cache.find_available_port("127.0.0.1")
    assert first in mine
    # Another program holds the next port: it is passed over. (Once in a
    # full run a program held it already, which tests the same.)
    with socket.socket() as holder:
        with contextlib.suppress(OSError):
            holder.bind(("127.0.0.1", first + 1))
        second = cache.find_available_port("127.0.0.1")
    assert second in mine and second not in (first, first + 1)
