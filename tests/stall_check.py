"""Run the notebook-executing tests N times and show that none of them stalls.

    .venv/bin/python tests/stall_check.py --runs 10            # tests/test_nbgrader.py (the student copies and the solutions, autograded), ten times
    .venv/bin/python tests/stall_check.py --runs 3 --nbval     # ... plus strict nbval over notebooks/

A stall is wall time during which the whole process tree (pytest, nbconvert, the kernels) does nothing: every
process waits for a message that does not come. Contention is different: the tree wants to run but other work
on the machine holds the cores. Per run this prints the wall time, the CPU time of the process tree (user + system
of every process that ran and was waited for, from `getrusage(RUSAGE_CHILDREN)`), their ratio, the seconds during
which the tree used less than 5 % of one core for 2 s or more (sampled every 0.5 s), and the machine's load average
at the start and at the end. It exits with status 1 if any run fails or has a wall/CPU ratio above `--max-ratio`
(1.3 by default). A ratio above the limit with a load average well above the number of cores says the machine was
busy; a ratio above the limit with idle seconds says the tree stalled.

This file is not collected by pytest (its name does not start with `test_`); it is a command-line check.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from process_tree import IdleWatch, kill_tree  # tests/process_tree.py, beside this file

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class Run:
    """One run of the tests: times in seconds, load averages over one minute."""

    returncode: int
    wall: float
    cpu: float
    idle: float
    longest_idle: float
    load_start: float
    load_end: float
    tail: str

    @property
    def ratio(self) -> float:
        return self.wall / self.cpu if self.cpu > 0 else float("inf")


def run_once(command: list[str], timeout: float) -> Run:
    """Run `command` once from the repository root and measure its whole process tree."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    load_start = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    proc = subprocess.Popen(
        command, cwd=ROOT, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    sampler = IdleWatch(proc.pid, min_spell=2.0)  # shorter waits are ordinary (a kernel starting)
    sampler.start()
    try:
        output, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        kill_tree(proc.pid)  # nbconvert and the kernel too: they hold the output pipe open
        output, _ = proc.communicate()
        output += f"\nstall_check: killed after {timeout:.0f} s"
    wall = time.perf_counter() - start
    sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    tail = "\n".join(output.strip().splitlines()[-15:])
    return Run(
        proc.returncode, wall, cpu, sampler.idle, sampler.longest, load_start, os.getloadavg()[0], tail
    )


def build_command(nbval: bool, extra: list[str]) -> list[str]:
    command = [sys.executable, "-m", "pytest", "tests/test_nbgrader.py", "-q", "-p", "no:cacheprovider"]
    if nbval:
        command += ["--nbval", "--nbval-current-env", "--nbval-sanitize-with", "notebooks/sanitize.cfg"]
        command += ["notebooks"]
    return command + extra


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=10, help="how many times to run the tests (default 10)")
    parser.add_argument(
        "--max-ratio", type=float, default=1.3, help="largest wall/CPU ratio that passes (default 1.3)"
    )
    parser.add_argument("--nbval", action="store_true", help="also run strict nbval over notebooks/")
    parser.add_argument(
        "--timeout", type=float, default=3600, help="seconds after which one run is killed (default 3600)"
    )
    parser.add_argument("pytest_args", nargs="*", help="more arguments for pytest (after --)")
    args = parser.parse_args(argv)
    if args.runs < 1:
        parser.error(f"--runs must be at least 1, got {args.runs}")
    if args.max_ratio <= 0:
        parser.error(f"--max-ratio must be positive, got {args.max_ratio}")

    command = build_command(args.nbval, args.pytest_args)
    cores = os.cpu_count() or 1
    print(f"command: {' '.join(command[1:])}")
    print(f"{cores} cores; a load average near or above {cores} means other work competes for them")
    header = f"{'run':>3} {'wall s':>7} {'CPU s':>7} {'wall/CPU':>8} {'idle s':>6} {'longest':>7} {'load':>11}  result"
    print(header)
    runs: list[Run] = []
    for index in range(1, args.runs + 1):
        run = run_once(command, args.timeout)
        runs.append(run)
        verdict = "ok" if run.returncode == 0 and run.ratio <= args.max_ratio else "FAIL"
        if run.returncode != 0:
            verdict += f" (pytest exit {run.returncode})"
        elif run.ratio > args.max_ratio:
            verdict += f" (ratio > {args.max_ratio})"
        print(
            f"{index:>3} {run.wall:7.1f} {run.cpu:7.1f} {run.ratio:8.2f} {run.idle:6.1f} {run.longest_idle:7.1f} "
            f"{run.load_start:5.2f}>{run.load_end:5.2f}  {verdict}",
            flush=True,
        )
        if run.returncode != 0:
            print(run.tail)

    worst = max(runs, key=lambda r: r.ratio)
    failed = [r for r in runs if r.returncode != 0 or r.ratio > args.max_ratio]
    print(
        f"worst wall/CPU {worst.ratio:.2f}; total idle {sum(r.idle for r in runs):.1f} s; "
        f"{len(failed)} of {len(runs)} runs failed"
    )
    if failed and any(r.load_start > cores or r.load_end > cores for r in failed):
        print(
            f"note: the load average (which counts this run's own one or two busy processes) passed {cores} "
            "during a failed run: other work was competing for the cores"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
