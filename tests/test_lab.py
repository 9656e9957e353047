"""`make lab` starts JupyterLab the way the README says, as root too, with no news question and no update checks,
on learner copies of the notebooks: made when missing, never overwritten (a learner's work survives).

The test runs the Makefile's ``lab`` target with ``LAB_ARGS`` (a free port on 127.0.0.1, a random token, no
browser), waits until the server answers over HTTP, reads the settings the page would get, and stops the
whole process group, also when an assertion fails. ``make -o .venv/.installed`` treats the environment as
installed, so the test never installs anything (a fresh checkout's pyproject.toml can be newer than the stamp).
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
NOTIFICATION = "@jupyterlab/apputils-extension:notification"

pytestmark = [
    pytest.mark.skipif(shutil.which("make") is None, reason="make lab needs make"),
    pytest.mark.skipif(
        not (ROOT / ".venv" / "bin" / "jupyter").exists(),
        reason="make lab runs .venv/bin/jupyter: create the environment first (make lab or make test)",
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


LEARNER_EDIT = "my_note = 'a learner wrote this cell'"


class Server:
    def __init__(self, process: subprocess.Popen, port: int, token: str, log: Path, learner: Path) -> None:
        self.process, self.port, self.token, self.log, self.learner = process, port, token, log, learner

    def get(self, path: str) -> object:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/{path}", headers={"Authorization": f"token {self.token}"}
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return json.loads(response.read())


def _stop(process: subprocess.Popen) -> None:
    """SIGTERM to the process group (make and JupyterLab), SIGKILL if it is still there after 20 s."""
    for sig, wait in ((signal.SIGTERM, 20.0), (signal.SIGKILL, 10.0)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            process.poll()
            try:
                os.killpg(process.pid, 0)  # anyone left in the group?
            except ProcessLookupError:
                return
            time.sleep(0.2)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    work = tmp_path_factory.mktemp("make_lab")
    port, token = _free_port(), secrets.token_hex(16)
    env = dict(
        os.environ,
        # an empty settings folder: the user's own settings must not hide what the course ships
        JUPYTERLAB_SETTINGS_DIR=str(work / "settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(work / "workspaces"),
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
    )
    # `make lab` as a learner runs it, from a shell: not as a sub-make of `make test`, whose flags (-j3, output
    # sync) would hold the recipe's messages back until JupyterLab ends.
    for name in ("MAKEFLAGS", "MFLAGS", "MAKELEVEL", "MAKE_TERMOUT", "MAKE_TERMERR"):
        env.pop(name, None)
    lab_args = (
        f"--no-browser --ServerApp.ip=127.0.0.1 --ServerApp.port={port} --ServerApp.port_retries=0 "
        f"--IdentityProvider.token={token}"
    )
    # The learner copies go to a temporary folder; one of them is there already, edited as a learner would.
    learner = work / "learner"
    learner.mkdir()
    edited = nbformat.read(ROOT / "notebooks" / "01_patch_tokenization.ipynb", as_version=4)
    edited.cells.insert(0, nbformat.v4.new_code_cell(LEARNER_EDIT))
    edited.cells[1].outputs = []
    nbformat.write(edited, learner / "01_patch_tokenization.ipynb")
    cmd = [
        "make",
        "--no-print-directory",
        "-o",
        ".venv/.installed",
        "lab",
        f"LAB_ARGS={lab_args}",
        f"LEARNER={learner}",
    ]
    log = work / "make_lab.log"
    with log.open("w") as out:
        process = subprocess.Popen(
            cmd, cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True
        )
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"make lab did not start a server:\n{log.read_text()[-3000:]}")
                time.sleep(0.5)
        yield Server(process, port, token, log, learner)
    finally:
        _stop(process)


def test_make_lab_starts_and_serves_the_course(server: Server) -> None:
    assert server.process.poll() is None, "the server answered, so make lab must still be running"
    # JupyterLab serves the folder of the notebook it is given: the learner copies
    notebook = server.get("api/contents/00_start_here.ipynb?content=0")
    assert notebook["type"] == "notebook"


def test_make_lab_serves_fresh_learner_copies_without_outputs(server: Server) -> None:
    served = server.get("api/contents/04_attention.ipynb")
    code = [c for c in served["content"]["cells"] if c["cell_type"] == "code"]
    assert code and all(c["outputs"] == [] for c in code), "a fresh learner copy must hold no output"
    names = {c["name"] for c in server.get("api/contents")["content"]}
    expected = {p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")}
    assert expected <= names


def test_make_lab_keeps_a_learners_edit(server: Server) -> None:
    kept = nbformat.read(server.learner / "01_patch_tokenization.ipynb", as_version=4)
    assert kept.cells[0].source == LEARNER_EDIT, "make lab overwrote a learner's copy"
    served = server.get("api/contents/01_patch_tokenization.ipynb")
    assert served["content"]["cells"][0]["source"] == LEARNER_EDIT


def test_make_lab_says_why_it_adds_allow_root(server: Server) -> None:
    said = server.log.read_text()
    if os.geteuid() == 0:
        assert "running as root" in said and "--allow-root" in said
    else:
        assert "--allow-root" not in said


def test_news_and_update_checks_are_off_as_served(server: Server) -> None:
    served = server.get(f"lab/api/settings/{NOTIFICATION}")
    assert served["settings"] == {}, "the test's settings folder is empty: these are the course's defaults"
    defaults = {name: spec["default"] for name, spec in served["schema"]["properties"].items()}
    effective = defaults | served["settings"]
    # "none" would ask "Would you like to get notified about official Jupyter news?" on the first start
    assert effective["fetchNews"] == "false"
    assert effective["checkForUpdates"] is False
    # and the server itself fetches no news and checks for no update
    assert server.get("lab/api/news") == {"news": []}
    assert server.get("lab/api/update") == {"notification": None}


def test_stopping_the_process_group_ends_jupyterlab(server: Server) -> None:
    """Runs last: the fixture stops the server this way also when a test fails."""
    _stop(server.process)
    with pytest.raises(ProcessLookupError):
        os.killpg(server.process.pid, 0)
    with pytest.raises(OSError), socket.create_connection(("127.0.0.1", server.port), timeout=2):
        pass
