"""Every notebook, opened and run in JupyterLab in Chromium: no errors, every figure rendered, widgets respond."""

from __future__ import annotations

import json
import secrets
import statistics
from collections.abc import Callable
from dataclasses import dataclass
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


# Each notebook runs once in the lab; its explorer (and, in 02, the impossible setting) is then driven on that run,
# so no notebook is executed twice by this suite.
@pytest.mark.parametrize("name", NOTEBOOKS)
def test_notebook_runs_in_lab_and_its_explorer_responds(page, lab: Lab, name: str) -> None:
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
    spec = next((e for e in EXPLORERS if e.notebook == name), None)
    if spec is not None:
        _every_control_draws(page, spec)
    if name == "02_soft_split.ipynb":
        _impossible_setting_shows_a_sentence(page)


# ------------------------------------------------------------------------------------------------ explorers
#
# Every explorer (`.vitcourse-explorer`: controls, a `.vitcourse-summary` line, an <img>) is driven the way a
# learner drives it: every control is changed, each change must bring a new picture into the page (the <img>
# gets a new src and fires its load event), and the time from the input event to that load event is recorded.
# Then a slider is dragged with the mouse: the picture must end on the slider's final value.


@dataclass(frozen=True)
class Explorer:
    notebook: str
    initial: str  # in the summary before anything is touched
    drag: str  # the label of the slider dragged
    dragged: Callable[[str], str]  # readout of that slider -> text the summary then shows


EXPLORERS = [
    Explorer("01_patch_tokenization.ipynb", "P = 20: 3 x 5 = 15 tokens of length 400", "", str),
    Explorer("02_soft_split.ipynb", "kernel 20, stride 10, padding 5", "kernel", lambda v: f"kernel {v},"),
    Explorer("03_position_embeddings.ipynb", "table 176 x 768, base 10000", "position i", lambda v: f"position {v} has"),
    Explorer("05_multi_head_attention.ipynb", "scale 0.25, T = 1: 4 heads", "temperature T", lambda v: f"T = {float(v):.3g}:"),
    Explorer("09_tokens_to_token.ipynb", "224 x 224: tokens per stage 56 x 56 = 3136", "image W", lambda v: f"x {v}:"),
    Explorer("13_inside_trained_models.ipynb", "block 0, head 0:", "head", lambda v: f"head {v}:"),
]  # fmt: skip

# Installs (once per explorer) a recorder on the explorer's element: `arm()` forgets the last measurement; the
# first keydown/input/change inside the explorer after it starts the clock; the <img>'s next load with a new src
# stops it. `loads` counts every picture loaded, `lastLoad` and `lastText` are when the picture and the summary
# last changed (each redraw sets the summary, then the picture).
_RECORDER = """root => {
    if (root.__lat) return;
    const img = root.querySelector('img');
    const lat = root.__lat = {t0: null, t1: null, src: img.src, loads: 0, lastLoad: 0, lastText: 0};
    new MutationObserver(() => { lat.lastText = performance.now(); }).observe(
        root.querySelector('.vitcourse-summary').parentElement, {childList: true, subtree: true, characterData: true});
    lat.arm = () => { lat.t0 = null; lat.t1 = null; lat.src = img.src; };
    const start = () => { if (lat.t0 === null) lat.t0 = performance.now(); };
    for (const type of ['keydown', 'pointerdown', 'input', 'change']) root.addEventListener(type, start, true);
    img.addEventListener('load', () => {
        lat.loads += 1; lat.lastLoad = performance.now();
        if (lat.t0 !== null && lat.t1 === null && img.src !== lat.src) lat.t1 = performance.now();
    });
}"""


def _summary(explorer) -> str:
    return explorer.locator(".vitcourse-summary").inner_text()


def _picture_shown(explorer) -> bool:
    return explorer.locator("img").evaluate("img => getComputedStyle(img).display !== 'none' && img.complete")


def _measure(page, explorer, act: Callable[[], None]) -> float:
    """Do ``act`` (one control change); wait for the new picture; the milliseconds from input event to load."""
    root = explorer.element_handle()
    root.evaluate("root => root.__lat.arm()")
    act()
    page.wait_for_function("root => root.__lat.t1 !== null", arg=root, timeout=60_000, polling="raf")
    t0, t1 = root.evaluate("root => [root.__lat.t0, root.__lat.t1]")
    assert t0 is not None, "the control change was not seen as an input event"
    return t1 - t0


def _changes(page, control) -> list[Callable[[], None]]:
    """Four changes of one control, ending where it started: right, left, right, left (or the next option)."""
    if control.evaluate("el => el.tagName") == "SELECT":
        start = control.evaluate("el => el.selectedIndex")
        other = start + 1 if start + 1 < control.evaluate("el => el.options.length") else start - 1
        return [lambda i=i: control.select_option(index=i) for i in (other, start, other, start)]
    handle = control.locator(".noUi-handle")

    def press(key: str) -> Callable[[], None]:
        return lambda: (handle.focus(), page.keyboard.press(key))

    return [press(k) for k in ("ArrowRight", "ArrowLeft", "ArrowRight", "ArrowLeft")]


def _drag(page, explorer, spec: Explorer) -> dict[str, float]:
    """Drag ``spec.drag``'s slider by hand (10 mouse moves of 4 px, 40 ms apart); the picture must end on its value."""
    slider = explorer.locator(".widget-slider", has_text=spec.drag).first
    root = explorer.element_handle()
    box = slider.locator(".noUi-handle").bounding_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    loads_before = root.evaluate("root => root.__lat.loads")
    page.mouse.move(x, y)
    page.mouse.down()
    for i in range(1, 11):
        page.mouse.move(x + 4 * i, y)
        page.wait_for_timeout(40)
    page.mouse.up()
    released = root.evaluate("() => performance.now()")
    final = slider.locator(".widget-readout").inner_text().strip()
    expected = spec.dragged(final)
    page.wait_for_function(
        "([root, text]) => root.querySelector('.vitcourse-summary').innerText.includes(text)"
        " && root.__lat.lastLoad > root.__lat.lastText",
        arg=[root, expected],
        timeout=60_000,
    )
    page.wait_for_timeout(1500)  # anything still queued would arrive now
    settled = root.evaluate("root => [root.__lat.loads, root.__lat.lastLoad, root.__lat.lastText]")
    assert expected in _summary(explorer), f"{spec.notebook}: the summary left the final value {final}"
    assert settled[1] > settled[2], f"{spec.notebook}: the last picture is older than the last summary"
    assert _picture_shown(explorer)
    assert slider.locator(".widget-readout").inner_text().strip() == final
    return {
        "drag_pictures": settled[0] - loads_before,
        "drag_final_picture_after_release_ms": round(max(settled[1] - released, 0.0), 1),
    }


def _record(notebook: str, entry: dict[str, object]) -> None:
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / "latency.json"
    data = json.loads(path.read_text()) if path.exists() else {}
    data[notebook] = entry
    path.write_text(json.dumps(data, indent=2, sort_keys=True) + "\n")


def test_every_explorer_is_driven() -> None:
    """Each explorer belongs to a notebook the suite runs (the notebook's test drives it)."""
    assert {e.notebook for e in EXPLORERS} <= set(NOTEBOOKS)
    assert len(EXPLORERS) == 6


def _every_control_draws(page, spec: Explorer) -> None:
    """Every control of the notebook's first explorer changed four times, each change a new picture; a drag."""
    explorer = page.locator(".vitcourse-explorer").first
    explorer.scroll_into_view_if_needed()
    assert spec.initial in _summary(explorer)
    assert _picture_shown(explorer)
    explorer.evaluate(_RECORDER)
    controls = explorer.locator("select, .widget-slider")
    latencies: dict[str, list[float]] = {}
    for n in range(controls.count()):
        control = controls.nth(n)
        label = control.evaluate(
            "el => (el.closest('.widget-dropdown') || el).querySelector('label')?.innerText || String(el.value)"
        )
        for act in _changes(page, control):
            before = explorer.locator("img").get_attribute("src")
            latencies.setdefault(label, []).append(round(_measure(page, explorer, act), 1))
            assert explorer.locator("img").get_attribute("src") != before, f"{label}: no new picture"
            assert _picture_shown(explorer), f"{label}: {_summary(explorer)}"
    everything = [ms for values in latencies.values() for ms in values]
    entry: dict[str, object] = {
        "median_ms": statistics.median(everything),
        "max_ms": max(everything),
        "changes": len(everything),
        "per_control_ms": latencies,
    }
    if spec.drag:
        entry |= _drag(page, explorer, spec)
    print(f"\n{spec.notebook}: {json.dumps(entry)}")
    _record(spec.notebook, entry)
    assert _errors(page) == []
    explorer.screenshot(path=str(SCREENSHOTS / f"explorer_{spec.notebook.split('_')[0]}.png"))


def _type_into(page, slider, value: int) -> None:
    slider.locator(".widget-readout").click()
    page.keyboard.press("Control+A")
    page.keyboard.type(str(value))
    page.keyboard.press("Enter")


def _impossible_setting_shows_a_sentence(page) -> None:
    """Notebook 02's explorer at kernel 80 (larger than the padded picture): a sentence, no picture; then back."""
    explorer = page.locator(".vitcourse-explorer").first
    explorer.scroll_into_view_if_needed()
    _type_into(
        page, explorer.locator(".widget-slider", has_text="kernel").first, 80
    )  # > padded 70: no window
    page.wait_for_function(
        "el => el.querySelector('.vitcourse-summary').innerText.includes('No tokens')",
        arg=explorer.element_handle(),
        timeout=60_000,
    )
    assert "kernel=80 is larger than the padded height " in _summary(explorer)
    assert not _picture_shown(explorer)
    _type_into(page, explorer.locator(".widget-slider", has_text="kernel").first, 20)  # back: a picture again
    page.wait_for_function(
        "el => el.querySelector('.vitcourse-summary').innerText.includes('= 60 tokens')",
        arg=explorer.element_handle(),
        timeout=60_000,
    )
    page.wait_for_function(
        "el => getComputedStyle(el).display !== 'none'", arg=explorer.locator("img").element_handle()
    )
    assert _errors(page) == []
    explorer.screenshot(path=str(SCREENSHOTS / "explorer_02_no_tokens.png"))


def test_lab_opens_without_the_news_question(page, lab: Lab) -> None:
    """No first-start question about Jupyter news: the server uses make lab's settings (jupyter/)."""
    page.goto(lab.url(f"lab/workspaces/news-{secrets.token_hex(4)}/tree/00_start_here.ipynb") + "&reset")
    page.wait_for_function(f"() => {_KERNEL}?.status === 'idle'", timeout=120_000, polling=250)
    page.wait_for_timeout(3000)  # when asked, the question is a toast that appears once the page is restored
    assert "official Jupyter news" not in page.inner_text("body")


def test_a_learner_copy_opens_with_what_follows_each_exercise_folded(page, lab: Lab) -> None:
    """In JupyterLab, a learner copy shows each "After Exercise N" heading with the cells under it folded away:
    the answer, worked through, stays out of sight until the learner opens the section."""
    import nbformat

    from vitcourse import classroom

    copy = classroom.learner_notebook(nbformat.read(ROOT / "notebooks" / "02_soft_split.ipynb", 4), "02")
    headings = [i for i, c in enumerate(copy.cells) if c.metadata.get(classroom.COLLAPSED_HEADING)]
    assert headings
    nbformat.write(copy, lab.root / "learner_02.ipynb")
    page.goto(lab.url(f"lab/workspaces/fold-{secrets.token_hex(4)}/tree/learner_02.ipynb") + "&reset")
    cells = page.locator(".jp-Notebook .jp-Cell")
    cells.nth(len(copy.cells) - 1).wait_for(state="attached", timeout=120_000)
    assert cells.count() == len(copy.cells)
    for index in headings:
        assert cells.nth(index).is_visible(), f"cell {index}: the heading itself is in view"
        assert not cells.nth(index + 1).is_visible(), f"cell {index + 1}: under a folded heading, yet in view"
    assert cells.nth(0).is_visible()
