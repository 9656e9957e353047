"""Interactive explorers for the notebooks, built on ipywidgets.

Each explorer is a thin widget around a *drawing*: one persistent matplotlib figure whose artists an
``update(**settings)`` call changes (``set_data``, ``set_text``, ...), rendered with Agg into PNG bytes that an
``ipywidgets.Image`` shows. Nothing is rebuilt and nothing goes through the inline backend, so a redraw costs
tens of milliseconds. Each drawing also has a plain *view* function (``patch_view``, ``soft_split_view``,
``position_view``, ``attention_view``, ``t2t_stages_view``, ``model_attention_view``) that takes the settings
and returns ``(figure, summary)``: that is what the tests and the notebooks' check cells call.

Impossible settings: a view returns ``None`` for the figure and a sentence saying why; an explorer shows that
sentence in place of the picture, never a traceback. Bad arguments to the explorer and view functions
themselves (a picture that is not 2-D, a model of the wrong kind) raise ``ValueError``/``TypeError`` naming the
parameter.

Dragging a slider never builds a queue: the kernel draws each value it is sent before it reads the next
message, and the browser keeps at most one message per control in flight, merging the values passed over
meanwhile into the newest one (ipywidgets' message throttle). So the picture follows the hand, skipping to the
latest value whenever drawing is slower than the hand.
"""

from __future__ import annotations

import functools
import html
import io
import math
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from PIL import Image

from . import plots
from ._validate import common_divisors, listing
from .tokens import count_tokens, patchify, window_corners

if TYPE_CHECKING:  # ipywidgets is imported only when an explorer is built
    import ipywidgets


__all__ = [
    "Impossible",
    "Drawing",
    "valid_patch_sizes",
    "patch_view",
    "patch_explorer",
    "soft_split_view",
    "soft_split_explorer",
]

#: Resolution of the explorers' pictures: small enough to draw fast, large enough to read.
DPI = 80
#: At most this many rows and columns of a matrix are drawn; larger ones are sampled evenly (nearest neighbour,
#: as the screen would show them anyway).
MAX_DRAWN = 400


class Impossible(ValueError):
    """A setting an explorer cannot draw; the message is the sentence the explorer shows instead."""


def _picture(picture: object, name: str = "picture") -> np.ndarray:
    """A (H, W) float array from a tensor or array, or a TypeError/ValueError naming ``name``."""
    if not isinstance(picture, torch.Tensor | np.ndarray):
        raise TypeError(f"{name} must be a (H, W) numpy array or tensor, got {type(picture).__name__}")
    img = plots.as_numpy(picture).squeeze()
    if img.ndim != 2 or img.size == 0:
        raise ValueError(
            f"{name} must be a non-empty (H, W) array (a (1, H, W) or (1, 1, H, W) one is squeezed), "
            f"got shape {tuple(picture.shape)}"
        )
    return img.astype(np.float32, copy=False)


def _sample(n: int, limit: int = MAX_DRAWN) -> np.ndarray:
    """Indices of at most ``limit`` evenly spread entries of ``range(n)`` (all of them when n <= limit)."""
    return np.arange(n) if n <= limit else np.linspace(0, n - 1, limit).round().astype(int)


def _encode(canvas: FigureCanvasAgg) -> bytes:
    """The canvas's pixels as PNG bytes (RGB, fast compression)."""
    out = io.BytesIO()
    rgba = Image.frombuffer("RGBA", canvas.get_width_height(), canvas.buffer_rgba(), "raw", "RGBA", 0, 1)
    rgba.convert("RGB").save(out, format="png", compress_level=1)
    return out.getvalue()


class Drawing:
    """A persistent figure and the artists that :meth:`update` changes; :meth:`png` renders it with Agg.

    Rendering is incremental: the *static* part of the figure (axes, ticks, colorbars that a setting does not
    change) is drawn once per :meth:`static_key` and kept as pixels; each :meth:`png` restores those pixels and
    draws only the artists in ``self.dynamic`` on top (matplotlib's blitting). The figure itself stays an ordinary
    one: :meth:`view` returns it complete, for ``savefig`` or display.
    """

    def __init__(self, figsize: tuple[float, float]) -> None:
        self.figure = Figure(figsize=figsize, dpi=DPI)
        FigureCanvasAgg(self.figure)
        self.dynamic: list[Any] = []  # artists (whole Axes included) redrawn on every update, in this order
        self._background: tuple[object, Any] | None = None  # (static key, saved pixels)

    def update(self, **settings: Any) -> str:
        """Change the artists for ``settings``; return the one-line summary or raise :class:`Impossible`."""
        raise NotImplementedError

    def static_key(self) -> object:
        """What the static part of the figure depends on (the last update's); it is redrawn when this changes."""
        return None

    def png(self) -> bytes:
        """The figure as PNG bytes: static pixels restored, dynamic artists drawn over them, fast compression."""
        canvas, key = self.figure.canvas, self.static_key()
        for artist in self.dynamic:
            artist.set_animated(True)  # left out of a full draw
        try:
            if self._background is None or self._background[0] != key:
                canvas.draw()
                self._background = (key, canvas.copy_from_bbox(self.figure.bbox))
            else:
                canvas.restore_region(self._background[1])
            for artist in self.dynamic:
                if artist.get_visible():
                    self.figure.draw_artist(artist)
        finally:
            for artist in self.dynamic:
                artist.set_animated(False)
        return _encode(canvas)

    def full_png(self) -> bytes:
        """The whole figure drawn in one ordinary pass (nothing saved, nothing animated), as PNG bytes.

        :meth:`png` gives the same picture up to the stacking order where a dynamic artist overlaps a static one.
        """
        self.figure.canvas.draw()
        self._background = None
        return _encode(self.figure.canvas)

    def view(self, **settings: Any) -> tuple[Figure | None, str]:
        """``(figure, summary)`` for ``settings``, or ``(None, sentence)`` for an impossible one."""
        try:
            return self.figure, self.update(**settings)
        except Impossible as err:
            return None, str(err)


def _matrix_panel(
    ax: Axes, title: str, xlabel: str, ylabel: str, cmap: str, vmin: float, vmax: float, label: str
):
    """An image artist with a colorbar on ``ax``, to be filled later with ``set_data`` (see :func:`_set_matrix`)."""
    im = ax.imshow(np.zeros((1, 1)), cmap=cmap, vmin=vmin, vmax=vmax, aspect="auto", interpolation="nearest")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.figure.colorbar(im, ax=ax, fraction=0.04, pad=0.02, label=label)
    return im


def _set_matrix(im: Any, matrix: np.ndarray, rows: int, cols: int) -> None:
    """Show ``matrix`` (possibly a sample of a ``rows x cols`` one) on the full ``rows x cols`` index range."""
    im.set_data(matrix)
    im.set_extent((-0.5, cols - 0.5, rows - 0.5, -0.5))
    im.axes.set_xlim(-0.5, cols - 0.5)
    im.axes.set_ylim(rows - 0.5, -0.5)


def _picture_panel(ax: Axes, picture: np.ndarray) -> Any:
    """The picture as :func:`plots.show_picture` draws it, with the colorbar on this figure (not pyplot's)."""
    plots.show_picture(picture, ax=ax, colorbar=False)
    ax.figure.colorbar(ax.images[0], ax=ax, fraction=0.03, pad=0.02, label="brightness")
    return ax.images[0]


def _picture_ticks(ax: Axes, height: int, width: int, offset: int = 0) -> None:
    start = 10 * math.ceil(offset / 10)
    ax.set_xticks(np.arange(start, offset + width + 1, 10))
    ax.set_yticks(np.arange(start, offset + height + 1, 10))


# --------------------------------------------------------------------------------------------- patch size


def valid_patch_sizes(height: int, width: int) -> list[int]:
    """Patch sizes that divide both sides of an ``height x width`` image, ascending (cached, O(sqrt n) to build)."""
    return common_divisors(height, width)


class PatchDrawing(Drawing):
    """The picture with its patch grid (left) and the token matrix for one patch size (right)."""

    MAX_NUMBERS = 60  # patches are numbered when there are at most this many

    def __init__(self, picture: np.ndarray | torch.Tensor) -> None:
        super().__init__((11, 3.6))
        self.picture = _picture(picture)
        self.tensor = torch.from_numpy(self.picture)[None, None]  # (1, 1, H, W)
        h, w = self.picture.shape
        self.sizes = valid_patch_sizes(h, w)
        self.ax_pic, self.ax_tok = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.3, 1]})
        _picture_panel(self.ax_pic, self.picture)
        self.grid = LineCollection([], colors="k", linewidths=1.2)
        self.ax_pic.add_collection(self.grid)
        box = {"boxstyle": "round,pad=0.15", "fc": "white", "alpha": 0.75, "lw": 0}
        self.numbers = [
            self.ax_pic.text(0, 0, "", ha="center", va="center", fontsize=8, bbox=box, visible=False)
            for _ in range(self.MAX_NUMBERS)
        ]
        self.tokens = _matrix_panel(
            self.ax_tok,
            "",
            "position in token",
            "token index (patch number - 1)",
            plots.CMAP,
            0,
            1,
            "brightness",
        )
        self.figure.subplots_adjust(left=0.06, right=0.96, bottom=0.15, top=0.9, wspace=0.3)
        self.dynamic = [self.grid, *self.numbers, self.ax_pic.title, self.ax_tok]

    def update(self, patch: int) -> str:  # type: ignore[override]
        h, w = self.picture.shape
        if patch not in self.sizes:
            raise Impossible(
                f"A patch size of {patch} does not divide the {h} x {w} picture; choose one of {listing(self.sizes)}."
            )
        count = count_tokens(h, w, patch, patch, 0)
        length = patch * patch
        self.ax_pic.set_title(f"patches of {patch} x {patch}")
        lines = [[(0, r), (w, r)] for r in range(0, h + 1, patch)] + [
            [(c, 0), (c, h)] for c in range(0, w + 1, patch)
        ]
        self.grid.set_segments(lines)
        for i, text in enumerate(self.numbers):
            shown = count.total <= self.MAX_NUMBERS and i < count.total
            text.set_visible(shown)
            if shown:
                r, c = divmod(i, count.cols)
                text.set_position((c * patch + patch / 2, r * patch + patch / 2))
                text.set_text(str(i + 1))
        toks = patchify(self.tensor, patch)[0].numpy()  # (N, P*P)
        rows, cols = _sample(count.total), _sample(length)
        _set_matrix(self.tokens, toks[np.ix_(rows, cols)], count.total, length)
        self.ax_tok.set_title(f"token matrix {count.total} x {length}")
        return f"P = {patch}: {count.rows} x {count.cols} = {count.total} tokens of length {length}"


def patch_view(picture: np.ndarray | torch.Tensor, patch: int) -> tuple[Figure | None, str]:
    """The picture with its patch grid and the token matrix for patch size ``patch``.

    Returns:
        (figure, summary); the figure is None and the summary says why when ``patch`` does not divide the picture.
    """
    return PatchDrawing(picture).view(patch=patch)


# --------------------------------------------------------------------------------------------- soft split


def _unfold_count(height: int, width: int, kernel: int, stride: int, padding: int) -> int:
    """How many tokens ``nn.Unfold`` makes, from its output shape on a tensor without data (device "meta")."""
    empty = torch.empty(1, 1, height, width, device="meta")
    return F.unfold(empty, kernel, stride=stride, padding=padding).shape[-1]


def _intervals(starts: np.ndarray, length: int) -> list[tuple[int, int]]:
    """The union of the intervals [start, start + length] as disjoint (low, high) pairs, ascending."""
    merged: list[list[int]] = []
    for start in np.unique(starts).tolist():
        if merged and start <= merged[-1][1]:
            merged[-1][1] = start + length
        else:
            merged.append([start, start + length])
    return [(low, high) for low, high in merged]


def _outlines(corners: np.ndarray, kernel: int) -> list[list[tuple[int, int]]]:
    """Line segments covering exactly the outlines of every ``kernel``-square window with these corners.

    Windows on a grid share their edges' lines: along each horizontal line ``y = r`` or ``y = r + k`` the edges
    cover the union of the windows' column spans, and likewise vertically. Drawing those unions gives the same
    pixels as drawing every square, with a few dozen segments instead of up to thousands of squares.
    """
    tops, lefts = np.unique(corners[:, 0]), np.unique(corners[:, 1])
    across, down = _intervals(lefts, kernel), _intervals(tops, kernel)
    ys = np.union1d(tops, tops + kernel).tolist()
    xs = np.union1d(lefts, lefts + kernel).tolist()
    return [[(lo, y), (hi, y)] for y in ys for lo, hi in across] + [
        [(x, lo), (x, hi)] for x in xs for lo, hi in down
    ]


class SoftSplitDrawing(Drawing):
    """The soft split's windows on the padded picture (left) and its token matrix (right)."""

    def __init__(self, picture: np.ndarray | torch.Tensor) -> None:
        super().__init__((11, 3.6))
        self.picture = _picture(picture)
        self.ax_pic, self.ax_tok = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.3, 1]})
        self.image = _picture_panel(self.ax_pic, self.picture)
        self.windows = LineCollection([], colors="tab:orange", linewidths=0.8)
        self.ax_pic.add_collection(self.windows)
        self.first = Rectangle((0, 0), 1, 1, color="tab:orange", alpha=0.5)
        self.ax_pic.add_patch(self.first)
        self.tokens = _matrix_panel(
            self.ax_tok, "", "position in token", "token index", plots.CMAP, 0, 1, "brightness"
        )
        self.figure.subplots_adjust(left=0.06, right=0.96, bottom=0.15, top=0.9, wspace=0.3)
        self.dynamic = [self.windows, self.first, self.ax_pic.title, self.ax_tok]
        self.padding = 0

    def static_key(self) -> object:
        return self.padding  # the padded picture and its ticks

    def update(self, kernel: int, stride: int, padding: int) -> str:  # type: ignore[override]
        h, w = self.picture.shape
        try:
            count = count_tokens(h, w, kernel, stride, padding)
        except (ValueError, TypeError) as err:
            raise Impossible(f"No tokens: {err}.") from None
        unfold = _unfold_count(h, w, kernel, stride, padding)
        if unfold != count.total:  # the formula and nn.Unfold must agree
            raise AssertionError(f"count_tokens says {count.total}, nn.Unfold makes {unfold}")
        padded = np.pad(self.picture, padding)  # (H + 2p, W + 2p)
        ph, pw = padded.shape
        self.image.set_data(padded)
        self.image.set_extent((-padding, w + padding, h + padding, -padding))
        self.ax_pic.set_xlim(-padding, w + padding)
        self.ax_pic.set_ylim(h + padding, -padding)
        _picture_ticks(self.ax_pic, ph, pw, -padding)
        corners = window_corners(h, w, kernel, stride, padding)  # (N, 2) top-left (row, col), unpadded coords
        self.windows.set_segments(_outlines(corners, kernel))
        self.padding = padding
        self.first.set_xy((corners[0][1], corners[0][0]))
        self.first.set_width(kernel)
        self.first.set_height(kernel)
        self.ax_pic.set_title(f"{count.total} windows of {kernel} x {kernel}")
        # the token matrix, entry [n, j] = padded[r_n + j // k, c_n + j % k], drawn on at most MAX_DRAWN rows/cols
        length = kernel * kernel
        rows, cols = _sample(count.total), _sample(length)
        top = (corners[rows, 0] + padding)[:, None] + (cols // kernel)[None, :]
        left = (corners[rows, 1] + padding)[:, None] + (cols % kernel)[None, :]
        _set_matrix(self.tokens, padded[top, left], count.total, length)
        self.ax_tok.set_title(f"token matrix {count.total} x {length}")
        return (
            f"kernel {kernel}, stride {stride}, padding {padding}: padded {ph} x {pw}, "
            f"{count.rows} x {count.cols} = {count.total} tokens of length {length} (nn.Unfold agrees)"
        )


def soft_split_view(
    picture: np.ndarray | torch.Tensor, kernel: int, stride: int, padding: int
) -> tuple[Figure | None, str]:
    """The windows of a soft split on the padded picture, its token grid and its token matrix.

    The token count comes from :func:`count_tokens` and is checked against the shape ``nn.Unfold`` gives.

    Returns:
        (figure, summary); the figure is None and the summary says why when the setting gives no tokens.
    """
    return SoftSplitDrawing(picture).view(kernel=kernel, stride=stride, padding=padding)


# ---------------------------------------------------------------------------------- the explorer widget


def _sentence(err: BaseException) -> str:
    return f"This setting could not be drawn: {type(err).__name__}: {err}"


@functools.cache
def _explorer_class() -> type:
    import ipywidgets as widgets

    class Explorer(widgets.VBox):
        """Controls, a one-line summary and the drawing's picture; every control change redraws once."""

        def __init__(self, name: str, drawing: Drawing, controls: Mapping[str, widgets.ValueWidget]) -> None:
            self.name, self.drawing, self.controls = name, drawing, dict(controls)
            self.image = widgets.Image(format="png")
            self.summary = widgets.HTML()
            self.renders = 0  # pictures drawn so far
            box = widgets.HBox if len(self.controls) <= 3 else widgets.GridBox
            layout = {} if len(self.controls) <= 3 else {"grid_template_columns": "repeat(3, 320px)"}
            super().__init__([box(list(self.controls.values()), layout=layout), self.summary, self.image])
            self.add_class("vitcourse-explorer")
            for control in self.controls.values():
                control.observe(self.redraw, "value")
            self.redraw()

        def settings(self) -> dict[str, Any]:
            return {key: control.value for key, control in self.controls.items()}

        def redraw(self, change: object = None) -> None:
            """Update the drawing for the controls' values; a failure becomes a sentence, never a traceback."""
            try:
                text, png = self.drawing.update(**self.settings()), self.drawing.png()
            except Impossible as err:
                text, png = str(err), None
            except Exception as err:  # noqa: BLE001 -- a widget shows a sentence, never a traceback
                text, png = _sentence(err), None
            self.summary.value = f"<span class='vitcourse-summary'>{html.escape(text)}</span>"
            if png is not None:
                self.image.value = png
                self.renders += 1
            self.image.layout.display = None if png is not None else "none"

        def __repr__(self) -> str:
            return f"{self.name}: {html.unescape(self.summary.value.split('>', 1)[1].rsplit('<', 1)[0])}"

    return Explorer


def _explorer(name: str, drawing: Drawing, controls: Mapping[str, Any]) -> ipywidgets.VBox:
    return _explorer_class()(name, drawing, controls)


def _slider(description: str, value: int, low: int, high: int, step: int = 1) -> ipywidgets.IntSlider:
    import ipywidgets as widgets

    return widgets.IntSlider(
        value=value,
        min=low,
        max=high,
        step=step,
        description=description,
        style={"description_width": "90px"},
    )


def _dropdown(description: str, options: Sequence[Any], value: Any) -> ipywidgets.Dropdown:
    import ipywidgets as widgets

    return widgets.Dropdown(
        options=options, value=value, description=description, style={"description_width": "90px"}
    )


def patch_explorer(picture: np.ndarray | torch.Tensor) -> ipywidgets.VBox:
    """A drop-down of the patch sizes that divide the picture, driving :class:`PatchDrawing`."""
    drawing = PatchDrawing(picture)
    default = 20 if 20 in drawing.sizes else drawing.sizes[-1]
    return _explorer(
        "patch-size explorer", drawing, {"patch": _dropdown("patch size", drawing.sizes, default)}
    )


def soft_split_explorer(picture: np.ndarray | torch.Tensor) -> ipywidgets.VBox:
    """Sliders for kernel, stride and padding, driving :class:`SoftSplitDrawing`."""
    drawing = SoftSplitDrawing(picture)
    side = max(drawing.picture.shape)
    return _explorer(
        "soft-split explorer",
        drawing,
        {
            "kernel": _slider("kernel", min(20, side), 1, side),
            "stride": _slider("stride", 10, 1, max(side // 2, 10)),
            "padding": _slider("padding", 5, 0, 20),
        },
    )
