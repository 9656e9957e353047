"""A JupyterLab server and a headless Chromium for the browser tests.

The server runs on 127.0.0.1 on a free port with a random token, over a temporary copy of the notebooks (so
nothing the browser saves touches the course), with the settings ``make lab`` uses (the repository's
``jupyter/`` folder first on JUPYTER_CONFIG_PATH: no news, no update checks) and notebook windowing off (every
cell stays in the page). The browser is Debian's ``/usr/bin/chromium`` driven by Playwright (never a
downloaded browser); every request to another host than 127.0.0.1 is aborted. The server is stopped even when
a test fails.
"""

from __future__ import annotations

import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = Path(os.environ.get("VITCOURSE_CHROMIUM", "/usr/bin/chromium"))
SCREENSHOTS = ROOT / "screenshots"

if not CHROMIUM.exists():
    pytest.skip(
        f"browser tests need Chromium at {CHROMIUM} (apt-get install chromium)", allow_module_level=True
    )
playwright_sync = pytest.importorskip(
    "playwright.sync_api", reason="browser tests need the playwright package"
)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Lab:
    def __init__(self, port: int, token: str, root: Path) -> None:
        self.port, self.token, self.root = port, token, root

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}/{path}?token={self.token}"

    def _api(self, method: str, path: str) -> object:
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/api/{path}",
            method=method,
            headers={"Authorization": f"token {self.token}"},
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            body = response.read()
        return json.loads(body) if body else None

    def stop_kernels(self) -> None:
        """Shut down every kernel, so one test's kernel does not slow the next."""
        for session in self._api("GET", "sessions"):
            self._api("DELETE", f"sessions/{session['id']}")


def _settings(folder: Path) -> None:
    """User settings: no windowing (all cells in the DOM). News and update checks are off through jupyter/."""
    entries = {
        "@jupyterlab/notebook-extension/tracker.jupyterlab-settings": {"windowingMode": "none"},
    }
    for name, value in entries.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps(value))


@pytest.fixture(scope="session")
def lab(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Lab]:
    work = tmp_path_factory.mktemp("lab")
    shutil.copytree(ROOT / "notebooks", work / "notebooks")
    _settings(work / "settings")
    port, token = _free_port(), secrets.token_hex(16)
    config_path = [str(ROOT / "jupyter"), os.environ.get("JUPYTER_CONFIG_PATH", "")]
    env = dict(
        os.environ,
        JUPYTERLAB_SETTINGS_DIR=str(work / "settings"),
        JUPYTER_RUNTIME_DIR=str(work / "runtime"),
        JUPYTER_CONFIG_PATH=os.pathsep.join(filter(None, config_path)),
    )
    env.pop("MPLBACKEND", None)
    cmd = [
        sys.executable, "-m", "jupyter", "lab", "--no-browser",
        "--ServerApp.ip=127.0.0.1", f"--ServerApp.port={port}", "--ServerApp.port_retries=0",
        f"--IdentityProvider.token={token}", f"--ServerApp.root_dir={work / 'notebooks'}",
        "--LabApp.expose_app_in_browser=True", "--allow-root", "--LabApp.extension_manager=readonly",
    ]  # fmt: skip
    log = (work / "lab.log").open("w")
    server = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/status?token={token}", timeout=2):
                    break
            except OSError:
                if server.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"JupyterLab did not start; see {work / 'lab.log'}") from None
                time.sleep(0.5)
        yield Lab(port, token, work / "notebooks")
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGTERM)
            try:
                server.wait(timeout=15)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)
                server.wait()
        log.close()


@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    with playwright_sync.sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=str(CHROMIUM),
            headless=True,
            args=[
                "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-sync",
                "--disable-background-networking", "--disable-component-update",
            ],
        )  # fmt: skip
        try:
            yield chromium
        finally:
            chromium.close()


@pytest.fixture
def page(browser, lab: Lab) -> Iterator[object]:
    context = browser.new_context(viewport={"width": 1400, "height": 1000})

    def only_local(route) -> None:
        host = route.request.url.split("/")[2].split(":")[0] if "://" in route.request.url else ""
        if host in ("127.0.0.1", "localhost") or route.request.url.startswith(("data:", "blob:")):
            route.continue_()
        else:
            route.abort()

    context.route("**/*", only_local)
    pg = context.new_page()
    pg.set_default_timeout(60_000)
    try:
        yield pg
    finally:
        context.close()
        lab.stop_kernels()
