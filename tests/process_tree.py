"""Watching a process and its descendants: CPU used, spells of doing nothing, ending the whole tree.

Used by tests/test_nbgrader.py (a run of notebooks that makes no progress fails instead of waiting) and by
tests/stall_check.py. Not a test module: pytest collects only files named test_*.py.
"""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Callable

import psutil  # installed with ipykernel

IDLE_RATE = 0.05  # a tree using less than 5 % of one core is idle
SAMPLE_S = 0.5


class IdleWatch(threading.Thread):
    """Samples the CPU time of process `pid` and its descendants every 0.5 s.

    A spell is a stretch of samples in which the tree used less than 5 % of one core. `idle` adds up spells of
    `min_spell` seconds or more, `longest` is the longest spell. When a spell reaches `stall_after` seconds,
    `on_stall(seconds)` is called once (from this thread) and watching ends.
    """

    def __init__(
        self,
        pid: int,
        min_spell: float = 2.0,
        stall_after: float | None = None,
        on_stall: Callable[[float], None] | None = None,
    ) -> None:
        super().__init__(daemon=True)
        self.pid = pid
        self.min_spell = min_spell
        self.stall_after = stall_after
        self.on_stall = on_stall
        self.idle = 0.0
        self.longest = 0.0
        self.stalled = False
        self._stop_event = threading.Event()

    def stop(self) -> None:
        self._stop_event.set()
        if self.is_alive() and threading.current_thread() is not self:
            self.join()

    def run(self) -> None:
        try:
            root = psutil.Process(self.pid)
        except psutil.NoSuchProcess:
            return
        cpu_by_pid: dict[int, float] = {}
        previous_total, previous_t = 0.0, time.perf_counter()
        spell_start: float | None = None
        while not self._stop_event.wait(SAMPLE_S):
            try:
                procs = [root, *root.children(recursive=True)]
            except psutil.NoSuchProcess:
                break
            for proc in procs:
                try:
                    times = proc.cpu_times()
                    cpu_by_pid[proc.pid] = times.user + times.system
                except psutil.Error:
                    pass
            total, now = sum(cpu_by_pid.values()), time.perf_counter()
            rate = (total - previous_total) / (now - previous_t)
            previous_total, previous_t = total, now
            if rate >= IDLE_RATE:
                if spell_start is not None:
                    self._close_spell(now - spell_start)
                spell_start = None
                continue
            spell_start = now if spell_start is None else spell_start
            if self.stall_after is not None and now - spell_start >= self.stall_after:
                self.stalled = True
                self._close_spell(now - spell_start)
                if self.on_stall is not None:
                    self.on_stall(now - spell_start)
                return
        if spell_start is not None:
            self._close_spell(time.perf_counter() - spell_start)

    def _close_spell(self, length: float) -> None:
        if length >= self.min_spell:
            self.idle += length
            self.longest = max(self.longest, length)


def kill_tree(pid: int) -> None:
    """End process `pid` and every process below it (the parent first, so that it cannot react).

    The signals go out with `os.kill`, not `psutil.Process.kill`: psutil refuses to signal a process it believes
    to be a reused PID, and where the boot time it reads drifts (some containers) it believes that of live
    processes too, which left the parent running while its child was killed.
    """
    try:
        pids = [pid, *(child.pid for child in psutil.Process(pid).children(recursive=True))]
    except psutil.Error:
        pids = [pid]
    for each in pids:
        try:
            os.kill(each, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and any(_alive(each) for each in pids):
        time.sleep(0.05)


def _alive(pid: int) -> bool:
    """Whether `pid` still runs (a zombie waiting for its parent to collect it counts as ended)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False
