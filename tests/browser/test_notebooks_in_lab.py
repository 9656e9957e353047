"""Every notebook, opened and run in JupyterLab in Chromium: no errors, every figure rendered, widgets respond."""

from __future__ import annotations

import json
import re
import secrets
from pathlib import Path

import pytest

from .conftest import ROOT, SCREENSHOTS, Lab

NOTEBOOKS = sorted(p.name for p in (ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb"))


def _stored_figures(name: str) -> int:
    nb = json.loads((ROOT / "notebooks" / name).read_text())
    return sum(
        "image/png" in o.get("data", {})
        for c in nb["cells"]
        if c["cell_type"] == "code"
        for o in c["outputs"]
    )


_KERNEL = "window.jupyterapp?.shell?.currentWidget?.sessionContext?.session?.kernel"


def _open_and_run(page, lab: Lab, name: str, timeout_s: float = 240) -> None:
    # a workspace of its own, reset, so JupyterLab does not reopen the notebooks of earlier tests
    page.goto(lab.url(f"lab/workspaces/{Path(name).stem}-{secrets.token_hex(4)}/tree/{name}") + "&reset")
    page.wait_for_function(f"() => {_KERNEL}?.status === 'idle'", timeout=120_000, polling=250)
    # clear the stored outputs first (execution counts become null), so everything checked below is fresh
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:clear-all-cell-outputs')")
    page.wait_for_function(
        "() => window.jupyterapp.shell.currentWidget.content.widgets.every(c => c.model.type !== 'code'"
        " || c.model.executionCount === null)"
    )
    page.evaluate("() => window.jupyterapp.commands.execute('notebook:run-all-cells')")
    # done when every code cell has a new execution count and the kernel is idle again
    page.wait_for_function(
        f"""() => {{
            const nb = window.jupyterapp?.shell?.currentWidget?.content;
            if (!nb || {_KERNEL}?.status !== 'idle') return false;
            const cells = nb.widgets.filter(c => c.model.type === 'code' && c.model.sharedModel.getSource().trim());
            return cells.every(c => c.model.executionCount !== null);
        }}""",
        timeout=timeout_s * 1000,
        polling=500,
    )


def _errors(page) -> list[str]:
    return page.eval_on_selector_all(
        ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']",
        "els => els.map(e => e.innerText)",
    )


def _figures(page) -> list[int]:
    """Natural widths of the rendered output images (0 for one that failed to render)."""
    return page.eval_on_selector_all(
        ".jp-OutputArea-output img", "els => els.map(e => e.complete ? e.naturalWidth : 0)"
    )


@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_in_lab(page, lab: Lab, name: str) -> None:
    _open_and_run(page, lab, name)
    assert _errors(page) == [], f"{name} shows an error or traceback"
    widths = _figures(page)
    assert len(widths) >= _stored_figures(name), (
        f"{name}: {len(widths)} figures rendered, stored {_stored_figures(name)}"
    )
    assert all(w > 0 for w in widths), f"{name}: a figure did not render"
    SCREENSHOTS.mkdir(exist_ok=True)
    page.evaluate(
        "() => { const nb = window.jupyterapp.shell.currentWidget.content;"
        " nb.activeCellIndex = 0; nb.node.querySelectorAll('.jp-WindowedPanel-outer').forEach(e => e.scrollTop = 0);"
        " nb.node.scrollTop = 0; }"
    )
    page.wait_for_timeout(500)
    page.screenshot(path=str(SCREENSHOTS / f"{Path(name).stem}.png"))


def _widget_text(page) -> str:
    return page.inner_text(".jupyter-widgets.widget-output, .widget-output")


def test_patch_size_dropdown(page, lab: Lab) -> None:
    _open_and_run(page, lab, "01_patch_tokenization.ipynb")
    widget = page.locator(".widget-interact").first
    widget.scroll_into_view_if_needed()
    assert "P = 20: 3 x 5 = 15 tokens" in widget.inner_text()
    before = widget.locator("img").first.get_attribute("src")
    for size, expected in (("10", "P = 10: 6 x 10 = 60 tokens"), ("4", "P = 4: 15 x 25 = 375 tokens")):
        widget.locator("select").select_option(size)
        page.wait_for_function(
            "([el, text]) => el.innerText.includes(text)",
            arg=[widget.element_handle(), expected],
            timeout=30_000,
        )
    assert widget.locator("img").first.get_attribute("src") != before, "the figure did not change"
    widget.screenshot(path=str(SCREENSHOTS / "widget_01_patch_size.png"))


def _set_slider(page, slider, value: int) -> None:
    readout = slider.locator(".widget-readout")
    readout.click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(value))
    page.keyboard.press("Enter")


def test_soft_split_sliders(page, lab: Lab) -> None:
    _open_and_run(page, lab, "02_soft_split.ipynb")
    widget = page.locator(".widget-interact").first
    widget.scroll_into_view_if_needed()
    text = widget.inner_text()
    assert "kernel 20, stride 10, padding 5" in text and "= 60 tokens" in text
    sliders = widget.locator(".widget-slider")
    assert sliders.count() == 3
    before = widget.locator("img").first.get_attribute("src")
    handle = sliders.nth(1).locator(".noUi-handle")
    handle.focus()
    page.keyboard.press("ArrowRight")  # stride 10 -> 11
    page.wait_for_function(
        "el => el.innerText.includes('stride 11')", arg=widget.element_handle(), timeout=30_000
    )
    assert re.search(r"= \d+ tokens", widget.inner_text())
    _set_slider(page, sliders.nth(2), 2)  # padding 5 -> 2
    page.wait_for_function(
        "el => el.innerText.includes('padding 2')", arg=widget.element_handle(), timeout=30_000
    )
    assert widget.locator("img").first.get_attribute("src") != before, "the figure did not change"
    _set_slider(page, sliders.nth(0), 80)  # kernel 80 > padded 64: no window fits
    page.wait_for_function(
        "el => el.innerText.includes('No tokens')", arg=widget.element_handle(), timeout=30_000
    )
    assert "kernel=80 is larger than the padded height " in widget.inner_text()
    assert widget.locator("img").count() == 0
    assert _errors(page) == []
    widget.screenshot(path=str(SCREENSHOTS / "widget_02_no_tokens.png"))


def test_lab_opens_without_the_news_question(page, lab: Lab) -> None:
    """No first-start question about Jupyter news: the server uses make lab's settings (jupyter/)."""
    page.goto(lab.url(f"lab/workspaces/news-{secrets.token_hex(4)}/tree/00_start_here.ipynb") + "&reset")
    page.wait_for_function(f"() => {_KERNEL}?.status === 'idle'", timeout=120_000, polling=250)
    page.wait_for_timeout(3000)  # when asked, the question is a toast that appears once the page is restored
    assert "official Jupyter news" not in page.inner_text("body")
