"""The watchdog of the notebook-executing tests: an idle process tree is noticed and ended, a busy one is not."""

import subprocess
import sys

from process_tree import IdleWatch, kill_tree


def test_an_idle_tree_is_reported_and_ended() -> None:
    # a parent that waits on a sleeping child: neither uses CPU, like a kernel and client waiting on each other
    code = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import time; time.sleep(120)'])"
    proc = subprocess.Popen([sys.executable, "-c", code])
    stalls: list[float] = []
    watch = IdleWatch(proc.pid, stall_after=3, on_stall=lambda s: (stalls.append(s), kill_tree(proc.pid)))
    watch.start()
    try:
        proc.wait(timeout=100)
    finally:
        kill_tree(proc.pid)
        watch.stop()
    assert watch.stalled and len(stalls) == 1 and stalls[0] >= 3
    assert proc.returncode != 0  # killed, not finished


def test_a_busy_tree_is_not_a_stall() -> None:
    code = "import time\nend = time.process_time() + 4\nwhile time.process_time() < end: pass"
    proc = subprocess.Popen([sys.executable, "-c", code])
    watch = IdleWatch(proc.pid, stall_after=3)
    watch.start()
    proc.wait(timeout=300)
    watch.stop()
    assert not watch.stalled and proc.returncode == 0


def test_the_tree_ends_even_where_psutil_refuses_to_signal(monkeypatch) -> None:
    # where the boot time psutil reads drifts, it takes live processes for reused PIDs and will not signal them
    import psutil

    def refuse(self, *args: object) -> None:
        raise psutil.NoSuchProcess(self.pid, msg="taken for a reused PID")

    monkeypatch.setattr(psutil.Process, "kill", refuse)
    monkeypatch.setattr(psutil.Process, "send_signal", refuse)
    code = "import subprocess, sys; subprocess.run([sys.executable, '-c', 'import time; time.sleep(120)'])"
    proc = subprocess.Popen([sys.executable, "-c", code])
    try:
        proc.wait(timeout=2)
    except subprocess.TimeoutExpired:
        pass
    kill_tree(proc.pid)
    assert proc.wait(timeout=20) == -9  # the parent was killed, not left to finish after its child
