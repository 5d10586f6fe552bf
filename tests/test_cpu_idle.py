"""tests/cpu_idle.py: a measuring test waits for the processors to quiet."""

import sys

import cpu_idle
import pytest


def test_waits_while_busy_and_returns_once_idle(monkeypatch):
    shares = iter([0.30, 0.50, 0.90, 0.10])
    monkeypatch.setattr(cpu_idle, "idle_share", lambda *_: next(shares))
    assert cpu_idle.wait_until_idle(timeout=60) == 0.90
    assert next(shares) == 0.10  # it stopped asking once idle


def test_gives_up_at_the_timeout(monkeypatch):
    monkeypatch.setattr(cpu_idle, "idle_share", lambda *_: 0.2)
    assert cpu_idle.wait_until_idle(timeout=0) == 0.2


def test_where_it_cannot_measure_it_does_not_wait(monkeypatch):
    monkeypatch.setattr(cpu_idle, "idle_share", lambda *_: None)
    assert cpu_idle.wait_until_idle(timeout=60) is None


@pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="reads /proc/stat"
)
def test_reads_a_share_between_zero_and_one():
    share = cpu_idle.idle_share(0.05)
    assert share is None or 0.0 <= share <= 1.0
