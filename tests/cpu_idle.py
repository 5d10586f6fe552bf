"""Waiting for the machine's processors to go quiet before a measurement.

Lighthouse's performance score (tools/sitecheck) times the page's work on
this machine's processor. Run inside the test suite, it shares the
machine with the other pytest-xdist workers, whose notebooks it would
count as the page's: on two cores the systems chapter scored 0.94 beside
a busy worker and 0.97 alone. A test that measures waits here first.
"""

from __future__ import annotations

import sys
import time

# Busy below this share of the processors' time (one core of two at
# half load): what a quiet desktop, the browser idling, stays under.
IDLE_SHARE = 0.75


def idle_share(seconds: float = 1.0) -> float | None:
    """Share of the processors' time spent idle over the next seconds.

    From /proc/stat (Linux); None where it cannot be read.
    """

    def sample() -> tuple[int, int]:
        with open("/proc/stat", encoding="ascii") as stat:
            fields = [int(v) for v in stat.readline().split()[1:]]
        idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
        return idle, sum(fields)

    if not sys.platform.startswith("linux"):
        return None
    try:
        idle_before, total_before = sample()
        time.sleep(seconds)
        idle_after, total_after = sample()
    except (OSError, ValueError, IndexError):
        return None
    elapsed = total_after - total_before
    return (idle_after - idle_before) / elapsed if elapsed else None


def wait_until_idle(timeout: float = 240.0) -> float | None:
    """Wait (at most timeout s) for the processors to be mostly idle.

    Returns the last idle share measured (None where it cannot be), so a
    failing test can say how busy the machine was.
    """
    deadline = time.monotonic() + timeout
    share = idle_share()
    while share is not None and share < IDLE_SHARE:
        if time.monotonic() > deadline:
            break
        share = idle_share(2.0)
    return share
