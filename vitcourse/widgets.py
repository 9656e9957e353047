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
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np
import torch
import torch.nn.functional as F
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.collections import LineCollection
from matplotlib.colors import PowerNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FixedLocator, MaxNLocator
from matplotlib.transforms import Bbox
from PIL import Image
from torch import nn

from . import plots
from ._validate import common_divisors, listing
from .attention import Attention
from .position import sinusoidal_table
from .tokens import T2T_STAGES, count_tokens, patchify, stage_grids, window_corners

if TYPE_CHECKING:  # ipywidgets is imported only when an explorer is built
    import ipywidgets

    from .models import VisionTransformer


__all__ = [
    "Impossible",
    "Drawing",
    "valid_patch_sizes",
    "patch_view",
    "patch_explorer",
    "soft_split_view",
    "soft_split_explorer",
    "position_view",
    "position_explorer",
    "attention_view",
    "attention_explorer",
    "t2t_stage_macs",
    "t2t_stages_view",
    "t2t_stages_explorer",
    "model_attention_view",
    "model_attention_explorer",
]

#: Resolution of the explorers' pictures: small enough to draw fast, large enough to read.
DPI = 80
#: At most this many rows and columns of a matrix are drawn; larger ones are sampled evenly (nearest neighbour,
#: as the screen would show them anyway).
MAX_DRAWN = 400


class Impossible(ValueError):
    """A setting an explorer cannot draw; the message is the sentence the explorer shows instead."""


def _picture(picture: object, name: str = "picture") -> np.ndarray:
    """A (H, W) float array from a 2-D tensor or array, or a TypeError/ValueError naming ``name``.

    Only a 2-D picture is drawn: a (1, H, W) or (1, 1, H, W) one is refused with the call that makes it 2-D, since
    its first axes may as well be a batch or colour channels, and squeezing them would hide that.
    """
    if not isinstance(picture, torch.Tensor | np.ndarray):
        raise TypeError(f"{name} must be a (H, W) numpy array or tensor, got {type(picture).__name__}")
    img = plots.as_numpy(picture, name)
    if img.ndim != 2:
        advice = ""
        if img.ndim > 2 and img.shape[-2] and img.shape[-1] and math.prod(img.shape[:-2]) == 1:
            advice = f"; for one picture with one channel pass {name}.squeeze() or {name}[{'0, ' * (img.ndim - 2)}...]"
        raise ValueError(
            f"{name} must be a 2-D (H, W) array, one channel, got shape {tuple(img.shape)}{advice}"
        )
    if img.size == 0:
        raise ValueError(f"{name} must have at least one row and one column, got shape {tuple(img.shape)}")
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

    Rendering is incremental, in three layers:

    - *dynamic* artists (``self.dynamic``: lines, images, titles, whole Axes) are drawn on every :meth:`png`;
    - *panels* (:meth:`panel_keys`: Axes whose ticks or limits follow a setting) keep their static part (frame,
      ticks, tick labels, axis labels) as pixels until their key changes; then only that panel's region of the
      canvas is cleared and drawn again;
    - everything else is drawn once per :meth:`static_key`.

    The saved pixels of the last ``CACHED`` static states are kept (about 1 MB each), so going back to a setting
    seen a moment ago (a dropdown flipped back, a slider moved back and forth) redraws no static part at all.

    Text is what costs most in a matplotlib draw (1-2 ms for each tick label here), so a change redraws only
    the text it changes. Each :meth:`png` restores the saved pixels and draws the dynamic artists on top
    (matplotlib's blitting). Where a panel's region would overlap another Axes' or the figure's own static text,
    the whole figure is drawn instead, so the picture is always the one a full draw gives. The figure itself
    stays an ordinary one: :meth:`view` returns it complete, for ``savefig`` or display.
    """

    CACHED = 12  # static states whose pixels are kept

    def __init__(self, figsize: tuple[float, float]) -> None:
        self.figure = Figure(figsize=figsize, dpi=DPI)
        FigureCanvasAgg(self.figure)
        self.dynamic: list[Any] = []  # artists (whole Axes included) redrawn on every update, in this order
        self._background: tuple[object, Any] | None = None  # (static key, saved pixels)
        self._panel_state: dict[Axes, object] = {}  # each panel's key when its pixels were drawn
        self._extents: dict[Axes, list[Bbox]] = {}  # the boxes each static Axes drew into, in pixels
        self.full_draws = 0  # how often png() drew the whole figure (the tests watch this)
        self._cache: OrderedDict[tuple, tuple[Any, dict, dict]] = (
            OrderedDict()
        )  # static state -> saved pixels

    def update(self, **settings: Any) -> str:
        """Change the artists for ``settings``; return the one-line summary or raise :class:`Impossible`."""
        raise NotImplementedError

    def static_key(self) -> object:
        """What the figure's static part outside the panels depends on (the last update's); a change redraws all."""
        return None

    def panel_keys(self) -> dict[Axes, object]:
        """Panels and what each one's static part depends on (the last update's); see the class docstring."""
        return {}

    def png(self) -> bytes:
        """The figure as PNG bytes: saved pixels restored, changed panels and dynamic artists drawn, fast PNG."""
        canvas, key, panels = self.figure.canvas, self.static_key(), self.panel_keys()
        state = (key, *panels.values())
        renderer = canvas.get_renderer()
        for ax in self.figure.axes:  # boxes of fixed aspect follow the settings, as a draw would place them
            locator = ax.get_axes_locator()
            ax.apply_aspect(locator(ax, renderer) if locator else None)
        for artist in self.dynamic:
            artist.set_animated(True)  # left out of a full draw
        try:
            if (saved := self._cache.get(state)) is not None:
                self._cache.move_to_end(state)
                region, extents, panel_state = saved
                self._background, self._extents, self._panel_state = (
                    (key, region),
                    dict(extents),
                    dict(panel_state),
                )
                canvas.restore_region(region)
            else:
                if self._background is None or self._background[0] != key or not self._redraw_panels(panels):
                    canvas.draw()
                    self.full_draws += 1
                    renderer = canvas.get_renderer()
                    self._extents = {ax: self._extent(ax, renderer) for ax in self.figure.axes}
                    self._panel_state = dict(panels)
                    self._background = (key, canvas.copy_from_bbox(self.figure.bbox))
                self._cache[state] = (self._background[1], dict(self._extents), dict(self._panel_state))
                while len(self._cache) > self.CACHED:
                    self._cache.popitem(last=False)
            framed: dict[Axes, None] = {}
            for artist in self.dynamic:
                if artist.get_visible() and (artist.axes is None or artist.axes.get_visible()):
                    self.figure.draw_artist(artist)
                    if artist.axes is not None and artist.axes not in self.dynamic:
                        framed[artist.axes] = None
            for ax in framed:  # the frame goes over the data, as in a full draw
                for spine in ax.spines.values():
                    if spine.get_visible() and ax.axison and ax.get_frame_on():
                        self.figure.draw_artist(spine)
        finally:
            for artist in self.dynamic:
                artist.set_animated(False)
        return _encode(canvas)

    def _extent(self, ax: Axes, renderer: Any) -> list[Bbox]:
        """The pixels ``ax``'s static part covers (frame, axes' ticks and labels, static title and children)."""
        if not ax.get_visible() or ax in self.dynamic:
            return []
        boxes = [ax.get_window_extent(renderer)]
        if ax.axison:
            boxes += [axis.get_tightbbox(renderer) for axis in (ax.xaxis, ax.yaxis) if axis.get_visible()]
        if ax.title.get_visible() and ax.title.get_text() and ax.title not in self.dynamic:
            boxes.append(ax.title.get_window_extent(renderer))
        boxes += [
            a.get_tightbbox(renderer)
            for a in ax.get_default_bbox_extra_artists()
            if a not in self.dynamic and not a.get_clip_on()  # clipped ones stay inside the frame
        ]
        # kept apart, not merged: a long title's box and the frame's box together would cover a neighbour
        return [b.padded(2) for b in boxes if b is not None and b._is_finite() and (b.width or b.height)]

    def _redraw_panels(self, panels: dict[Axes, object]) -> bool:
        """Restore the saved pixels and redraw the panels whose key changed; False where only a full draw will do."""
        if set(panels) != set(self._panel_state):
            return False
        changed = [ax for ax, key in panels.items() if self._panel_state[ax] != key]
        canvas = self.figure.canvas
        if not changed:
            canvas.restore_region(self._background[1])
            return True
        renderer = canvas.get_renderer()
        others = [box for ax, boxes in self._extents.items() if ax not in changed for box in boxes]
        for text in [*self.figure.texts, *self.figure.legends, self.figure._suptitle]:
            if text is not None and text.get_visible() and text not in self.dynamic:
                others.append(text.get_window_extent(renderer))
        canvas.restore_region(self._background[1])
        pixels = np.asarray(canvas.buffer_rgba())  # (height, width, 4), row 0 at the top
        height, width = pixels.shape[:2]
        paper = (np.array(self.figure.get_facecolor()) * 255).round().astype(np.uint8)
        for ax in changed:  # clear what the panel covered before
            for region in self._extents.get(ax, []):
                x0, x1 = max(0, math.floor(region.x0)), min(width, math.ceil(region.x1))
                y0, y1 = max(0, height - math.ceil(region.y1)), min(height, height - math.floor(region.y0))
                pixels[y0:y1, x0:x1] = paper
        for ax in changed:
            ax.draw(renderer)  # its dynamic artists are animated: left out
            self._extents[ax] = self._extent(ax, renderer)
            self._panel_state[ax] = panels[ax]
        drawn = [box for ax in changed for box in self._extents[ax]]
        if any(box.overlaps(other) for box in drawn for other in others):
            return False  # the panel now reaches into another's pixels (a full draw follows)
        self._background = (self._background[0], canvas.copy_from_bbox(self.figure.bbox))
        return True

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
    ax.figure.colorbar(im, ax=ax, fraction=0.04, pad=0.05, label=label)  # clear of the last tick label
    return im


def _set_matrix(im: Any, matrix: np.ndarray, rows: int, cols: int) -> None:
    """Show ``matrix`` (possibly a sample of a ``rows x cols`` one) on the full ``rows x cols`` index range.

    At most six integer ticks a side (each tick label costs a millisecond or two to draw), one for a single row
    or column.
    """
    im.set_data(matrix)
    im.set_extent((-0.5, cols - 0.5, rows - 0.5, -0.5))
    im.axes.set_xlim(-0.5, cols - 0.5)
    im.axes.set_ylim(rows - 0.5, -0.5)
    for axis, n in ((im.axes.xaxis, cols), (im.axes.yaxis, rows)):
        axis.set_major_locator(FixedLocator([0]) if n == 1 else MaxNLocator(5, integer=True))


def _picture_panel(ax: Axes, picture: np.ndarray) -> Any:
    """The picture as :func:`plots.show_picture` draws it, with the colorbar on this figure (not pyplot's)."""
    plots.show_picture(picture, ax=ax, colorbar=False)
    _picture_ticks(ax, *picture.shape)
    ax.figure.colorbar(ax.images[0], ax=ax, fraction=0.03, pad=0.05, label="brightness")
    return ax.images[0]


def _picture_ticks(ax: Axes, height: int, width: int, offset: int = 0, step: int = 20) -> None:
    """Pixel ticks every ``step`` pixels from ``offset`` (few: each tick label costs a millisecond or two)."""
    start = step * math.ceil(offset / step)
    ax.set_xticks(np.arange(start, offset + width + 1, step))
    ax.set_yticks(np.arange(start, offset + height + 1, step))


# --------------------------------------------------------------------------------------------- patch size


def valid_patch_sizes(height: int, width: int) -> list[int]:
    """Patch sizes that divide both sides of an ``height x width`` image, ascending (cached, O(sqrt n) to build)."""
    return common_divisors(height, width)


def _group_size(n: int, room: float) -> int:
    """How many neighbouring entries of a side of ``n`` one drawn cell averages, so that each cell gets at least
    two of the ``room`` screen pixels: 1 when all fit, otherwise an even number, so that a one-pixel alternation
    (the picture's dithered band) averages out instead of being resampled into stripes that are not in the data.
    """
    size = max(1, math.ceil(n / max(1, int(room) // 2)))
    return size + size % 2 if size > 1 else 1


def _grouped_means(matrix: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Means of blocks of ``rows x cols`` neighbouring entries, in order (the last block of a side may be short)."""
    starts = [np.arange(0, n, size) for n, size in zip(matrix.shape, (rows, cols), strict=True)]
    sums = np.add.reduceat(np.add.reduceat(matrix, starts[0], axis=0), starts[1], axis=1)
    sizes = [np.diff(np.r_[s, n]) for s, n in zip(starts, matrix.shape, strict=True)]
    return sums / np.outer(*sizes)


def _show_token_matrix(im: Any, matrix: np.ndarray) -> str:
    """Draw the (tokens, positions) ``matrix`` on ``im``'s panel, averaged in blocks where it has more entries
    than the panel has pairs of screen pixels (see :func:`_group_size`); return the title's note saying so."""
    n, length = matrix.shape
    box = im.axes.get_window_extent()  # the panel in screen pixels (its place is fixed, aspect "auto")
    rows, cols = _group_size(n, box.height), _group_size(length, box.width)
    _set_matrix(im, _grouped_means(matrix, rows, cols) if rows * cols > 1 else matrix, n, length)
    im.set_extent((-0.5, math.ceil(length / cols) * cols - 0.5, math.ceil(n / rows) * rows - 0.5, -0.5))
    if rows > 1 and cols > 1:
        return f"\neach cell: the mean of {rows} tokens x {cols} positions"
    if rows > 1 or cols > 1:
        return (
            f"\neach cell: the mean of {max(rows, cols)} neighbouring {'tokens' if rows > 1 else 'positions'}"
        )
    return ""


class PatchDrawing(Drawing):
    """The picture with its patch grid (left) and the token matrix for one patch size (right).

    Grid lines are left out for patches under ``MIN_GRID`` pixels, where they would cover the picture; a token
    matrix with more entries than its panel has pairs of screen pixels is drawn averaged in blocks of neighbouring
    entries, which its title names (see :func:`_show_token_matrix`).
    """

    MAX_NUMBERS = 60  # patches are numbered when there are at most this many
    MIN_GRID = 5  # grid lines are drawn for patches of at least this many pixels

    def __init__(self, picture: np.ndarray | torch.Tensor) -> None:
        super().__init__((11, 3.9))
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
            self.ax_pic.text(
                0, 0, "", ha="center", va="center", fontsize=8, bbox=box, visible=False, clip_on=True
            )
            for _ in range(self.MAX_NUMBERS)
        ]
        self.tokens = _matrix_panel(
            self.ax_tok,
            "",
            "position in token",
            "token (= patch number)",
            plots.CMAP,
            0,
            1,
            "brightness",
        )
        self.figure.subplots_adjust(left=0.06, right=0.93, bottom=0.14, top=0.85, wspace=0.3)
        self.patch = (
            0  # everything drawn depends on the patch size alone: no dynamic artists, and each of the
        )
        # (few) sizes, once drawn, comes back from the saved states

    def panel_keys(self) -> dict[Axes, object]:
        return {self.ax_pic: self.patch, self.ax_tok: self.patch}

    def update(self, patch: int) -> str:  # type: ignore[override]
        h, w = self.picture.shape
        if patch not in self.sizes:
            raise Impossible(
                f"A patch size of {patch} does not divide the {h} x {w} picture; choose one of {listing(self.sizes)}."
            )
        count = count_tokens(h, w, patch, patch, 0)
        length = patch * patch
        self.patch = patch
        lines = [[(0, r), (w, r)] for r in range(0, h + 1, patch)] + [
            [(c, 0), (c, h)] for c in range(0, w + 1, patch)
        ]
        gridded = patch >= self.MIN_GRID
        self.grid.set_segments(lines if gridded else [])
        self.ax_pic.set_title(
            f"patches of {patch} x {patch}"
            + ("" if gridded else f"\n(no grid lines under {self.MIN_GRID} pixels)")
        )
        for i, text in enumerate(self.numbers):
            shown = count.total <= self.MAX_NUMBERS and i < count.total
            text.set_visible(shown)
            if shown:
                r, c = divmod(i, count.cols)
                text.set_position((c * patch + patch / 2, r * patch + patch / 2))
                text.set_text(str(i))
        toks = patchify(self.tensor, patch)[0].numpy()  # (N, P*P): all H*W values, cheap to average
        note = _show_token_matrix(self.tokens, toks)
        self.ax_tok.set_title(f"token matrix {count.total} x {length}{note}", fontsize=10)
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


class SoftSplitDrawing(Drawing):
    """Three of the soft split's windows on the padded picture (left) and its token matrix (right).

    Drawing every window would only show a grid of lines; the first window (token 0, shaded orange) and its two
    neighbours on the token grid (outlined cyan: the next one along its row, token 1, and the first of the next
    row, token ``cols``) show the stride and the overlap, in the colours of the notebook's other soft-split
    figures (:data:`plots.WINDOW_COLOUR`, :data:`plots.NEIGHBOUR_COLOUR`). The
    picture's own border is dashed, so the zero padding around it can be told from its dark pixels.
    """

    def __init__(self, picture: np.ndarray | torch.Tensor) -> None:
        super().__init__((11, 3.9))
        self.picture = _picture(picture)
        self.tensor = torch.from_numpy(self.picture)[None, None]  # (1, 1, H, W)
        self.ax_pic, self.ax_tok = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [1.3, 1]})
        self.image = _picture_panel(self.ax_pic, self.picture)
        h, w = self.picture.shape
        self.ax_pic.add_patch(
            Rectangle((0, 0), w, h, fill=False, edgecolor="white", linestyle="--", linewidth=1)
        )
        # the soft split's colours in every view: orange the window in focus (token 0), cyan its neighbours
        self.first = Rectangle((0, 0), 1, 1, color=plots.WINDOW_COLOUR, alpha=0.55)
        self.right = Rectangle((0, 0), 1, 1, fill=False, edgecolor=plots.NEIGHBOUR_COLOUR, linewidth=1.6)
        self.below = Rectangle((0, 0), 1, 1, fill=False, edgecolor=plots.NEIGHBOUR_COLOUR, linewidth=1.6)
        for window in (self.first, self.right, self.below):
            self.ax_pic.add_patch(window)
        self.figure.legend(
            handles=[
                Rectangle((0, 0), 1, 1, color=plots.WINDOW_COLOUR, alpha=0.55, label="token 0's window"),
                Rectangle((0, 0), 1, 1, fill=False, edgecolor=plots.NEIGHBOUR_COLOUR, linewidth=1.6,
                          label="its neighbours on the token grid"),
            ],
            loc="lower left",
            bbox_to_anchor=(0.01, 0.0),
            ncol=2,
            fontsize=8,
            frameon=False,
        )  # fmt: skip
        self.tokens = _matrix_panel(
            self.ax_tok, "", "position in token", "token index", plots.CMAP, 0, 1, "brightness"
        )
        self.figure.subplots_adjust(left=0.06, right=0.93, bottom=0.2, top=0.85, wspace=0.3)  # legend below
        self.dynamic = [self.first, self.right, self.below, self.ax_pic.title, self.tokens, self.ax_tok.title]
        self.padding, self.matrix = 0, (0, 0)

    def panel_keys(self) -> dict[Axes, object]:
        return {
            self.ax_pic: self.padding,
            self.ax_tok: self.matrix,
        }  # the padded picture; the matrix's ranges

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
        self.padding = padding
        shown = {
            self.first: 0,
            self.right: 1 if count.cols > 1 else None,
            self.below: count.cols if count.rows > 1 else None,
        }
        for window, index in shown.items():
            window.set_visible(index is not None)
            if index is not None:
                window.set_xy((corners[index][1], corners[index][0]))
                window.set_width(kernel)
                window.set_height(kernel)
        outlined = " and ".join(str(i) for i in (shown[self.right], shown[self.below]) if i is not None)
        self.ax_pic.set_title(
            f"{count.rows} x {count.cols} windows of {kernel} x {kernel}: 0 orange"
            + (f", {outlined} cyan" if outlined else "")
        )
        # the token matrix (N, k*k), averaged in blocks where the panel has too few screen pixels for it
        length = kernel * kernel
        matrix = F.unfold(self.tensor, kernel, stride=stride, padding=padding)[0].numpy().T  # (N, k*k)
        note = _show_token_matrix(self.tokens, matrix)
        self.matrix = (count.total, length)
        self.ax_tok.set_title(f"token matrix {count.total} x {length}{note}", fontsize=10)
        ones = torch.ones(1, 1, h, w)  # fold the split of an all-ones picture: each pixel's window count
        cover = F.fold(
            F.unfold(ones, kernel, stride=stride, padding=padding),
            (h, w),
            kernel,
            stride=stride,
            padding=padding,
        )
        missed = int((cover == 0).sum())
        gaps = f" ({_plural(missed, 'pixel')} in no window, so in no token)" if missed else ""
        return (
            f"kernel {kernel}, stride {stride}, padding {padding}: padded {ph} x {pw}, "
            f"{count.rows} x {count.cols} = {count.total} tokens of length {length} (nn.Unfold agrees){gaps}"
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


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


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


def _slider(
    description: str, value: int, low: int, high: int, step: int = 1, width: str = "90px"
) -> ipywidgets.IntSlider:
    import ipywidgets as widgets

    return widgets.IntSlider(
        value=value,
        min=low,
        max=high,
        step=step,
        description=description,
        style={"description_width": width},
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


# ------------------------------------------------------------------------------- position embeddings


#: The ends an axis may take (times powers of ten): the next one is at most 1.5 times the last.
ROUND_ENDS = (1, 1.5, 2, 3, 4, 5, 6, 8)


def _round_end(last: float) -> float:
    """The smallest of ``ROUND_ENDS x 10**k`` that is >= ``last`` (and >= 1), for an axis ending near ``last``.

    Curves over N positions end at position N - 1; letting the axis end at a round number instead means a change
    of N moves the axis (and redraws its tick labels) only now and then, and the curves still fill 2/3 of it or
    more.
    """
    last = max(float(last), 1.0)
    power = 10.0 ** math.floor(math.log10(last))
    return next((end * power for end in (*ROUND_ENDS, 10) if end * power >= last * (1 - 1e-12)), 10 * power)


#: Up to this length d the position explorer draws every column of the table; above it, only the sine columns.
ALL_COLUMNS = 256


def table_columns(dim: int) -> np.ndarray:
    """The columns of a ``d``-column sinusoidal table that the position explorer draws.

    Sine and cosine columns alternate; a picture some 270 pixels wide cannot show more than about 256 columns,
    and sampling an alternating sequence makes runs of sines and runs of cosines (false stripes). So up to
    :data:`ALL_COLUMNS` columns every column is drawn, above it the sine columns 0, 2, 4, ... (evenly sampled
    down to :data:`ALL_COLUMNS` of them), each as wide as its pair.
    """
    if dim <= ALL_COLUMNS:
        return np.arange(dim)
    return 2 * _sample(dim // 2, ALL_COLUMNS)


#: Drawn sine columns whose neighbour drifts out of step by more than this (in waves) over the table are shaded.
MAX_DRIFT = 0.25


def fringed_width(num_tokens: int, dim: int, base: float, cols: np.ndarray) -> float:
    """How many of the table's ``dim`` columns, from the left, the drawn ``cols`` cannot show without fringes.

    Where only some columns are drawn (sines, :func:`table_columns`), two drawn neighbours have different
    frequencies and drift out of step down the ``num_tokens`` positions; by more than :data:`MAX_DRIFT` of a wave,
    the drawing fills with fringes (moire) that are not in the table. 0 when every column is drawn.
    """
    if len(cols) >= dim:
        return 0.0
    frequency = float(base) ** (-2 * (cols // 2) / dim)  # (len(cols),)
    drift = (num_tokens - 1) * -np.diff(frequency) / (2 * math.pi)  # waves, each drawn column to the next
    fringed = np.nonzero(drift > MAX_DRIFT)[0]
    return 0.0 if len(fringed) == 0 else (fringed[-1] + 1) * dim / len(cols)


@functools.lru_cache(maxsize=8)
def _table(num_tokens: int, dim: int, base: float) -> np.ndarray:
    return sinusoidal_table(num_tokens, dim, base).numpy()  # (N, d)


class PositionDrawing(Drawing):
    """The sinusoidal table (left), two of its columns as curves (middle), one position's similarity (right)."""

    def __init__(self) -> None:
        super().__init__((13, 3.5))
        self.ax_table, self.ax_curves, self.ax_sim = self.figure.subplots(
            1, 3, gridspec_kw={"width_ratios": [1.25, 1, 1]}
        )
        self.table = _matrix_panel(
            self.ax_table, "", "column j (0 ... d - 1)", "position i", "RdBu_r", -1, 1, "value"
        )
        # over the columns too short to draw from the sampled sine columns (see fringed_width): a grey band
        self.fringes = Rectangle((-0.5, 0), 0, 1, transform=self.ax_table.get_xaxis_transform(), color="0.88")
        self.ax_table.add_patch(self.fringes)
        self.fringe_note = self.ax_table.text(
            0, 0.5, "short waves: see the curves", transform=self.ax_table.get_xaxis_transform(),
            rotation=90, ha="center", va="center", fontsize=8, color="0.25",
        )  # fmt: skip
        self.marks = LineCollection([], colors=["gold", "gold", "lime"], linewidths=1.8, linestyles="--")
        self.ax_table.add_collection(self.marks)
        (self.sin,) = self.ax_curves.plot([], [], color="tab:blue", label="sin (column 2m)")
        (self.cos,) = self.ax_curves.plot([], [], color="tab:orange", label="cos (2m + 1)")
        self.ax_curves.set_ylim(-1.1, 1.6)
        self.ax_curves.set_xlabel("position i")
        self.ax_curves.set_ylabel("PE[i, j]")
        # upper left, clear of the grey band past the last position (a dynamic artist, drawn over the legend)
        self.ax_curves.legend(loc="upper left", fontsize=8, ncol=2, columnspacing=1, handlelength=1.5)
        (self.sim,) = self.ax_sim.plot([], [], color="tab:green")
        # past the last position the axes go on to a round length (see _round_end): shaded, no data there
        self.beyond = [
            Rectangle((0, 0), 0, 1, transform=ax.get_xaxis_transform(), color="0.9", zorder=0.5)
            for ax in (self.ax_curves, self.ax_sim)
        ]
        for ax, band in zip((self.ax_curves, self.ax_sim), self.beyond, strict=True):
            ax.add_patch(band)
        self.here = self.ax_sim.axvline(0, color="tab:green", ls="--", lw=1)
        self.ax_sim.set_ylim(-1.05, 1.05)
        self.ax_sim.set_xlabel("position k")
        self.ax_sim.set_ylabel("cosine similarity")
        for ax in (self.ax_curves, self.ax_sim):
            ax.set_yticks([-1, -0.5, 0, 0.5, 1])
        for axis in (self.ax_curves.xaxis, self.ax_sim.xaxis):  # the table's ticks: _set_matrix
            axis.set_major_locator(MaxNLocator(5, integer=True))  # fewer labels: text is most of a redraw
        self.figure.subplots_adjust(left=0.05, right=0.98, bottom=0.15, top=0.88, wspace=0.45)
        self.shape: tuple[int, int, float] = (0, 0, 0.0)
        self.dynamic = [self.table, self.fringes, self.fringe_note, self.marks, *self.beyond, self.sin, self.cos, self.sim, self.here,
                        self.ax_table.title, self.ax_curves.title, self.ax_sim.title]  # fmt: skip

    def panel_keys(self) -> dict[Axes, object]:
        num_tokens, dim, _ = self.shape  # the axes' ranges; the base changes only dynamic artists
        end = _round_end(num_tokens - 1)  # the curves' x range moves in round steps, not with every N
        return {self.ax_table: (num_tokens, dim), self.ax_curves: end, self.ax_sim: end}

    def update(self, num_tokens: int, dim: int, base: float, pair: int, position: int) -> str:  # type: ignore[override]
        if 2 * pair + 1 >= dim:
            raise Impossible(
                f"Columns 2m = {2 * pair} and 2m + 1 = {2 * pair + 1} need a token length d >= {2 * pair + 2}; "
                f"d is {dim}: choose m <= {(dim - 2) // 2}."
            )
        if position >= num_tokens:
            raise Impossible(
                f"Position {position} is past the table's last row ({num_tokens - 1}); choose i < {num_tokens}."
            )
        table = _table(num_tokens, dim, float(base))  # (N, d)
        self.shape = (num_tokens, dim, float(base))
        rows, cols = _sample(num_tokens), table_columns(dim)
        _set_matrix(self.table, table[np.ix_(rows, cols)], num_tokens, dim)
        fringed = fringed_width(num_tokens, dim, base, cols)
        self.fringes.set_width(fringed)
        self.fringes.set_visible(fringed > 0)
        self.fringe_note.set_x(fringed / 2 - 0.5)
        self.fringe_note.set_visible(fringed > 0.07 * dim)  # room for the note's line of text
        j = 2 * pair
        self.marks.set_segments(
            [[(j, -0.5), (j, num_tokens - 0.5)], [(j + 1, -0.5), (j + 1, num_tokens - 0.5)],
             [(-0.5, position), (dim - 0.5, position)]]
        )  # fmt: skip
        sines = ", sin columns" if len(cols) < dim else ""
        self.ax_table.set_title(f"sinusoidal table {num_tokens} x {dim}, base {base:g}{sines}")
        steps = np.arange(num_tokens)
        self.sin.set_data(steps, table[:, j])
        self.cos.set_data(steps, table[:, j + 1])
        self.ax_curves.set_xlim(0, _round_end(num_tokens - 1))
        wavelength = 2 * math.pi * base ** (j / dim)
        self.ax_curves.set_title(f"columns {j}, {j + 1}: wavelength {wavelength:.4g} positions")
        unit = table / np.linalg.norm(table, axis=1, keepdims=True)
        similarity = unit @ unit[position]  # (N,)
        self.sim.set_data(steps, similarity)
        self.here.set_xdata([position, position])
        self.ax_sim.set_xlim(0, _round_end(num_tokens - 1))
        self.ax_sim.set_title(f"cosine similarity to position {position}")
        end = _round_end(num_tokens - 1)
        for band in self.beyond:
            band.set_x(num_tokens - 1)
            band.set_width(max(end - (num_tokens - 1), 0))
        near = (
            f"; to position {position + 1}: {similarity[position + 1]:.3f}"
            if position + 1 < num_tokens
            else ""
        )
        return (
            f"table {num_tokens} x {dim}, base {base:g}: columns {j} (sin) and {j + 1} (cos) repeat every "
            f"{wavelength:.4g} positions; position {position} has cosine similarity 1 with itself{near}"
        )


def position_view(
    num_tokens: int = 176, dim: int = 768, base: float = 10000.0, pair: int = 60, position: int = 10
) -> tuple[Figure | None, str]:
    """The sinusoidal table ``num_tokens x dim`` with base ``base``, columns ``2 pair`` and ``2 pair + 1`` as
    curves, and the cosine similarity of row ``position`` to every row.

    Returns:
        (figure, summary); the figure is None and the summary says why for an impossible combination.
    """
    return PositionDrawing().view(num_tokens=num_tokens, dim=dim, base=base, pair=pair, position=position)


def position_explorer() -> ipywidgets.VBox:
    """Sliders for the table's size, base, the pair of columns and the position, driving :class:`PositionDrawing`."""
    return _explorer(
        "position-embedding explorer",
        PositionDrawing(),
        {
            "num_tokens": _slider("positions N", 176, 2, 400),
            "dim": _slider("length d", 768, 2, 1024, step=2),
            "base": _dropdown("base", [100.0, 1000.0, 10000.0, 100000.0], 10000.0),
            "pair": _slider("pair m", 60, 0, 511),
            "position": _slider("position i", 10, 0, 399),
        },
    )


# --------------------------------------------------------------------------------------------- attention

#: Head counts the attention explorer offers (divisors of its 64 channels); at most 8 heads are drawn.
HEAD_CHOICES = (1, 2, 4, 8, 16)
SCALES = ("1/sqrt(head_dim)", "none")


class AttentionDrawing(Drawing):
    """Attention of the picture's 15 patch tokens: each head's weights and the mean entropy of its rows.

    The tokens are the picture's 20 x 20 patches (15 tokens of length 400), layer-normalised; one seeded
    :class:`~vitcourse.attention.Attention` (400 -> 64 channels, qkv bias) projects them, so changing the head
    count only regroups the same 64 query and key channels. The weights are ``softmax(Q K^T * scale / T)``.
    """

    SHOWN = 8  # heads drawn

    def __init__(self, picture: np.ndarray | torch.Tensor, chan: int = 64, seed: int = 0) -> None:
        super().__init__((12.5, 4.6))
        img = _picture(picture)
        h, w = img.shape
        if h % 20 or w % 20:
            raise ValueError(f"picture must have sides divisible by 20 (its patches), got {h} x {w}")
        tokens = patchify(torch.from_numpy(img)[None, None], 20)[0]  # (N, 400)
        tokens = F.layer_norm(tokens, (tokens.shape[-1],))
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            self.attention = Attention(tokens.shape[-1], chan, num_heads=1, qkv_bias=True)
            # as notebook 05 does: std 1/sqrt(D), so Q and K entries have variance about 1 (nn.Linear's default
            # gives about 1/3, and then even T = 0.1 leaves the weights far from one-hot)
            nn.init.normal_(self.attention.qkv.weight, std=tokens.shape[-1] ** -0.5)
        with torch.no_grad():
            qkv = self.attention.qkv(tokens)  # (N, 3 * chan)
        self.q, self.k = qkv[:, :chan].double(), qkv[:, chan : 2 * chan].double()  # (N, chan) each
        self.chan, self.n = chan, tokens.shape[0]
        self.params = {name: sum(p.numel() for p in m.parameters()) for name, m in
                       (("qkv", self.attention.qkv), ("proj", self.attention.proj))}  # fmt: skip
        self.head_axes = [self.figure.add_axes((0.05 + 0.145 * c, 0.56 - 0.45 * r, 0.12, 0.3))
                          for r in range(2) for c in range(4)]  # fmt: skip
        self.images = []
        for i, ax in enumerate(self.head_axes):
            im = ax.imshow(
                np.zeros((self.n, self.n)), cmap="magma", norm=PowerNorm(0.5, 0, 1), interpolation="nearest"
            )
            self.images.append(im)
            ax.set_xticks(range(0, self.n, 7))
            ax.set_yticks(range(0, self.n, 7))
            ax.set_title(" ", fontsize=9)
            ax.set_xlabel("key token", fontsize=8)  # on every panel: the lower row is covered below 8 heads
            if i % 4 == 0:
                ax.set_ylabel("query token", fontsize=8)
        self.figure.colorbar(
            self.images[0], cax=self.figure.add_axes((0.635, 0.11, 0.012, 0.75)),
            label="attention weight (square-root scale)",
        )  # fmt: skip
        ax = self.ax_entropy = self.figure.add_axes((0.76, 0.11, 0.22, 0.75))
        self.bars = ax.bar(range(max(HEAD_CHOICES)), np.zeros(max(HEAD_CHOICES)), color="tab:purple").patches
        uniform = math.log(self.n)
        ax.axhline(uniform, color="grey", ls="--", lw=1)
        ax.text(0.98, uniform, f"uniform: ln {self.n} = {uniform:.2f}", transform=ax.get_yaxis_transform(),
                ha="right", va="bottom", fontsize=8, color="dimgrey")  # fmt: skip
        ax.set_ylim(0, uniform * 1.15)
        ax.set_yticks(range(math.ceil(uniform * 1.15)))
        ax.set_xlabel("head")
        ax.set_ylabel("mean entropy of a row (nats)")
        ax.set_title(" ")
        self.figure.suptitle(" ")
        self.heads = 4
        # every head panel's frame and ticks stay drawn; a blank sheet covers those of the heads not in use, so a
        # change of head count redraws no tick labels (each costs a millisecond or two)
        renderer = self.figure.canvas.get_renderer()
        to_figure = self.figure.transFigure.inverted()
        self.covers = []
        for head_ax in self.head_axes:
            (x0, y0), (x1, y1) = to_figure.transform(head_ax.get_tightbbox(renderer).padded(2).get_points())
            cover = Rectangle((x0, y0), x1 - x0, y1 - y0, transform=self.figure.transFigure,
                              facecolor=self.figure.get_facecolor(), edgecolor="none", visible=False)  # fmt: skip
            self.covers.append(self.figure.add_artist(cover))
        self.dynamic = [*self.images, *(ax.title for ax in self.head_axes), *self.covers, *self.bars, ax.title,
                        self.figure._suptitle]  # fmt: skip

    def panel_keys(self) -> dict[Axes, object]:
        return {self.ax_entropy: self.heads}  # the bar chart's range and ticks

    def weights(self, heads: int, scale: str, temperature: float) -> torch.Tensor:
        """(heads, N, N) attention weights for these settings."""
        head_dim = self.chan // heads
        q = self.q.reshape(self.n, heads, head_dim).transpose(0, 1)  # (heads, N, head_dim)
        k = self.k.reshape(self.n, heads, head_dim).transpose(0, 1)  # (heads, N, head_dim)
        factor = head_dim**-0.5 if scale == SCALES[0] else 1.0
        return ((q @ k.transpose(-2, -1)) * factor / temperature).softmax(dim=-1)  # (heads, N, N)

    def update(self, heads: int, scale: str, temperature: float) -> str:  # type: ignore[override]
        if heads not in HEAD_CHOICES:
            raise Impossible(
                f"{heads} heads do not split {self.chan} channels here; choose one of {list(HEAD_CHOICES)}."
            )
        if scale not in SCALES:
            raise Impossible(f"The scale is one of {list(SCALES)}, not {scale!r}.")
        if not temperature > 0:
            raise Impossible(f"The temperature divides the scores, so it must be > 0, not {temperature}.")
        weights = self.weights(heads, scale, temperature)
        entropy = (
            -(weights * weights.clamp_min(1e-300).log()).sum(-1).mean(-1)
        )  # (heads,) nats, mean over rows
        self.heads, shown = heads, min(heads, self.SHOWN)
        for i, (ax, im, cover) in enumerate(zip(self.head_axes, self.images, self.covers, strict=True)):
            im.set_visible(i < shown)
            ax.title.set_visible(i < shown)
            cover.set_visible(i >= shown)
            if i < shown:
                im.set_data(weights[i].numpy())
                ax.set_title(f"head {i}: entropy {entropy[i]:.2f}", fontsize=9)
        head_dim = self.chan // heads
        factor = head_dim**-0.5 if scale == SCALES[0] else 1.0
        for i, bar in enumerate(self.bars):
            bar.set_visible(i < heads)
            bar.set_height(float(entropy[i]) if i < heads else 0.0)
        self.ax_entropy.set_xlim(-0.6, heads - 0.4)
        self.ax_entropy.set_xticks(range(0, heads, 1 if heads <= 8 else 3))
        self.ax_entropy.set_title(f"scale {factor:.3g}, temperature {temperature:.3g}")
        shown = "" if heads <= self.SHOWN else f" (heads 0-{self.SHOWN - 1} of {heads} drawn)"
        self.figure.suptitle(
            f"{_plural(heads, 'head')} x head_dim {head_dim} = {self.chan} channels: softmax(Q K^T x {factor:.3g} / {temperature:.3g})"
            + shown
        )
        return (
            f"scale {factor:.3g}, T = {temperature:.3g}: {_plural(heads, 'head')} of head_dim {head_dim}; parameters: "
            f"qkv {self.params['qkv']:,} + proj {self.params['proj']:,} = {sum(self.params.values()):,}, the same "
            f"for every head count; mean row entropy {entropy.mean():.2f} nats (uniform {math.log(self.n):.2f}, one-hot 0)"
        )


def attention_view(
    picture: np.ndarray | torch.Tensor, heads: int = 4, scale: str = SCALES[0], temperature: float = 1.0
) -> tuple[Figure | None, str]:
    """Each head's attention weights over the picture's patch tokens and their entropy (see :class:`AttentionDrawing`).

    Args:
        picture: (H, W) with sides divisible by 20.
        heads: one of :data:`HEAD_CHOICES`.
        scale: ``"1/sqrt(head_dim)"`` or ``"none"`` (factor 1).
        temperature: T > 0; the scores are divided by it before the softmax.

    Returns:
        (figure, summary); the figure is None and the summary says why for an impossible setting.
    """
    return AttentionDrawing(picture).view(heads=heads, scale=scale, temperature=temperature)


def attention_explorer(picture: np.ndarray | torch.Tensor) -> ipywidgets.VBox:
    """Head count, scale and temperature controls, driving :class:`AttentionDrawing`."""
    import ipywidgets as widgets

    temperature = widgets.FloatLogSlider(
        value=1.0, base=10, min=-1, max=1, step=0.05, description="temperature T",
        style={"description_width": "90px"},
    )  # fmt: skip
    return _explorer(
        "attention explorer",
        AttentionDrawing(picture),
        {"heads": _dropdown("heads", HEAD_CHOICES, 4), "scale": _dropdown("scale", SCALES, SCALES[0]),
         "temperature": temperature},
    )  # fmt: skip


# ------------------------------------------------------------------------------------------- T2T stages


def t2t_stage_macs(
    height: int, width: int, stages: Sequence[tuple[int, int, int]] = T2T_STAGES, in_chans: int = 1,
    token_dim: int = 64, embed_dim: int = 384,
) -> list[int]:  # fmt: skip
    """Multiply-adds of each stage of a :class:`~vitcourse.models.TokensToToken` module, by formula.

    Stage i (all but the last) is a soft split to N tokens of length L = C k**2 followed by a token transformer
    to ``c = token_dim`` channels (one head, MLP ratio 1): ``3 N L c`` (qkv) ``+ 2 N**2 c`` (scores and
    weights @ V) ``+ N c**2`` (proj) ``+ 2 N c**2`` (MLP). The last stage is a soft split and the linear
    projection to ``embed_dim``: ``N L D``. The soft splits themselves multiply nothing. (The tests check
    these numbers against :func:`vitcourse.cost.count_macs` on the real module.)

    Raises:
        ValueError: a window that does not fit the grid it is applied to (see :func:`stage_grids`).
    """
    grids = stage_grids(height, width, stages)
    macs, chans = [], in_chans
    for i, ((kernel, _, _), grid) in enumerate(zip(stages, grids, strict=True)):
        n, length = grid.total, chans * kernel * kernel
        if i < len(stages) - 1:
            c = token_dim
            macs.append(3 * n * length * c + 2 * n * n * c + 3 * n * c * c)
            chans = token_dim
        else:
            macs.append(n * length * embed_dim)
    return macs


class T2TStagesDrawing(Drawing):
    """The token grid after each of three soft splits (left) and each stage's share of the multiply-adds (right)."""

    def __init__(self, token_dim: int = 64, embed_dim: int = 384) -> None:
        super().__init__((12, 3.8))
        self.token_dim, self.embed_dim = token_dim, embed_dim
        self.ax_grid, self.ax_macs = self.figure.subplots(1, 2, gridspec_kw={"width_ratios": [2.2, 1]})
        self.lines = LineCollection([], colors="tab:purple", linewidths=0.5)
        self.ax_grid.add_collection(self.lines)
        self.frames = LineCollection([], colors="k", linewidths=1.5)
        self.ax_grid.add_collection(self.frames)
        self.labels = [self.ax_grid.text(0, 0, "", ha="left", va="top", fontsize=9) for _ in range(3)]
        self.ax_grid.set_xlabel("token columns (the three grids side by side, to scale with one another)")
        self.ax_grid.set_ylabel("token rows")
        self.ax_grid.set_xticks([])
        self.ax_grid.set_yticks([])
        names = ["stage 1\ntoken transf.", "stage 2\ntoken transf.", f"stage 3\nlinear to {embed_dim}"]
        self.bars = self.ax_macs.bar(names, [1, 1, 1], color=["tab:purple", "tab:blue", "tab:orange"])
        self.ax_macs.set_ylabel("share of the module's multiply-adds (%)")
        self.ax_macs.set_ylim(0, 115)  # room for the labels above the bars
        self.ax_macs.set_xlabel("stage")
        self.ax_macs.tick_params(axis="x", labelsize=8)
        self.bar_labels = [
            self.ax_macs.text(i, 0, "", ha="center", va="bottom", fontsize=8) for i in range(3)
        ]
        self.figure.subplots_adjust(left=0.06, right=0.98, bottom=0.2, top=0.9, wspace=0.25)
        self.dynamic = [self.lines, self.frames, *self.labels, self.ax_grid.title,
                        *self.bars, *self.bar_labels, self.ax_macs.title]  # fmt: skip

    def update(self, height: int, width: int, **stage_settings: int) -> str:  # type: ignore[override]
        stages = [
            tuple(stage_settings[f"{name}{i}"] for name in ("kernel", "stride", "padding")) for i in (1, 2, 3)
        ]
        h, w = height, width
        grids = []
        for i, (k, s, p) in enumerate(stages, start=1):
            try:
                grids.append(count_tokens(h, w, k, s, p))
            except ValueError as err:
                raise Impossible(f"No tokens at stage {i} (its input is {h} x {w}): {err}.") from None
            h, w = grids[-1].rows, grids[-1].cols
        macs = t2t_stage_macs(height, width, stages, 1, self.token_dim, self.embed_dim)
        segments, frames, x0, gap = [], [], 0.0, max(g.cols for g in grids) * 0.15 + 1
        step = max(1, max(max(g.rows, g.cols) for g in grids) // 60)  # at most ~60 grid lines a side
        for i, (label, grid, (k, s, p)) in enumerate(zip(self.labels, grids, stages, strict=True), start=1):
            rows, cols = grid.rows, grid.cols
            segments += [[(x0, r), (x0 + cols, r)] for r in range(0, rows + 1, step)]
            segments += [[(x0 + c, 0), (x0 + c, rows)] for c in range(0, cols + 1, step)]
            frames.append([(x0, 0), (x0 + cols, 0), (x0 + cols, rows), (x0, rows), (x0, 0)])
            label.set_position((x0, rows + 0.03 * max(g.rows for g in grids)))
            label.set_text(f"stage {i} ({k}, {s}, {p}): {rows} x {cols}")
            x0 += cols + gap
        self.lines.set_segments(segments)
        self.frames.set_segments(frames)
        top = max(g.rows for g in grids)
        # to scale (one unit as long across as down) in a box that stays put: widen whichever range is short
        across, down = x0 + 1, top * 1.15 + 2  # row 0 at the top, room for the labels
        box = self.ax_grid.bbox.width / self.ax_grid.bbox.height
        across, down = max(across, down * box), max(down, across / box)
        self.ax_grid.set_xlim(-1, across - 1)
        self.ax_grid.set_ylim(down - 1, -1)
        self.ax_grid.set_title(
            f"{height} x {width} image -> token grids " + " -> ".join(str(g.total) for g in grids)
        )
        for bar, text, m in zip(self.bars, self.bar_labels, macs, strict=True):
            bar.set_height(100 * m / sum(macs))
            text.set_position((bar.get_x() + bar.get_width() / 2, 100 * m / sum(macs)))
            text.set_text(f"{m / 1e6:.1f} M")
        self.ax_macs.set_title(f"bars: share of {sum(macs) / 1e6:.1f} M; labels: millions", fontsize=10)
        counts = ", ".join(f"{g.rows} x {g.cols} = {g.total}" for g in grids)
        shares = ", ".join(f"{m / sum(macs):.0%}" for m in macs)
        return f"{height} x {width}: tokens per stage {counts}; multiply-adds per stage {shares} of {sum(macs):,}"


def t2t_stages_view(
    height: int = 224, width: int = 224, stages: Sequence[tuple[int, int, int]] = T2T_STAGES
) -> tuple[Figure | None, str]:
    """Token grids, token counts and multiply-adds of a T2T module's three stages on a ``height x width`` image.

    Returns:
        (figure, summary); the figure is None and the summary says why when a stage's window does not fit.
    """
    if len(stages) != 3:
        raise ValueError(f"stages must hold three (kernel, stride, padding) settings, got {len(stages)}")
    settings = {f"{name}{i}": value for i, stage in enumerate(stages, start=1)
                for name, value in zip(("kernel", "stride", "padding"), stage, strict=True)}  # fmt: skip
    return T2TStagesDrawing().view(height=height, width=width, **settings)


def t2t_stages_explorer(height: int = 224, width: int = 224) -> ipywidgets.VBox:
    """Sliders for the image size and each stage's kernel, stride and padding, driving :class:`T2TStagesDrawing`."""
    controls = {
        "height": _slider("image H", height, 8, 448, width="110px"),
        "width": _slider("image W", width, 8, 448, width="110px"),
    }
    for i, (k, s, p) in enumerate(T2T_STAGES, start=1):
        controls |= {
            f"kernel{i}": _slider(f"stage {i} kernel", k, 1, 15, width="110px"),
            f"stride{i}": _slider(f"stage {i} stride", s, 1, 8, width="110px"),
            f"padding{i}": _slider(f"stage {i} padding", p, 0, 7, width="110px"),
        }
    return _explorer("T2T stages explorer", T2TStagesDrawing(), controls)


# ------------------------------------------------------------------------------- inside a trained model


class ModelAttentionDrawing(Drawing):
    """Where a trained ViT's prediction token looks: one block's, one head's weights over the picture's patches.

    Each patch is filled with its weight (one colour scale for every block and head) and the weight is written
    on it with the patch's number; the picture is drawn as white outlines over it, so the picture's brightness
    does not mix with the weights' colours. Blocks and heads count from 0, as the notebooks do.
    """

    def __init__(self, model: VisionTransformer, picture: np.ndarray | torch.Tensor) -> None:
        from .models import VisionTransformer

        if not isinstance(model, VisionTransformer):
            raise TypeError(f"model must be a vitcourse VisionTransformer, got {type(model).__name__}")
        super().__init__((7.5, 3.8))
        img = _picture(picture)
        if img.shape != tuple(model.patch_embed.img_size):
            raise ValueError(
                f"picture is {img.shape[0]} x {img.shape[1]} but the model was built for "
                f"{tuple(model.patch_embed.img_size)}"
            )
        self.patch = model.patch_embed.patch_size
        self.rows, self.cols = img.shape[0] // self.patch, img.shape[1] // self.patch
        device = next(model.parameters()).device
        images = torch.from_numpy(img)[None, None].to(device)  # (1, 1, H, W)
        was_training = model.training
        model.eval()
        try:
            per_block = [
                model.attention_weights(images, b)[0, :, 0].cpu().double() for b in range(len(model.blocks))
            ]
        finally:
            model.train(was_training)
        self.weights = torch.stack(per_block)  # (blocks, heads, N + 1): the prediction token's row
        self.blocks, self.heads = self.weights.shape[:2]
        self.ax = self.figure.subplots()
        h, w = img.shape
        low, high = float(self.weights[:, :, 1:].min()), float(self.weights[:, :, 1:].max())
        self.overlay = self.ax.imshow(
            np.zeros((self.rows, self.cols)), cmap="magma", vmin=low, vmax=max(high, low + 1e-6),
            extent=(0, w, h, 0), interpolation="nearest",
        )  # fmt: skip
        self.outlines = self.ax.contour(
            np.arange(w) + 0.5,
            np.arange(h) + 0.5,
            img,
            levels=[0.3, 0.6, 0.85],
            colors="white",
            linewidths=0.8,
        )
        p = self.patch
        self.grid = LineCollection(
            [[(0, r), (w, r)] for r in range(p, h, p)] + [[(c, 0), (c, h)] for c in range(p, w, p)],
            colors="0.6", linewidths=0.8,
        )  # fmt: skip
        self.ax.add_collection(self.grid)
        box = {"boxstyle": "round,pad=0.15", "fc": "black", "alpha": 0.55, "lw": 0}
        self.labels = [
            self.ax.text((n % self.cols + 0.5) * p, (n // self.cols + 0.5) * p, "", ha="center", va="center",
                         fontsize=7, color="white", bbox=box, clip_on=True)
            for n in range(self.rows * self.cols)
        ]  # fmt: skip
        self.figure.colorbar(self.overlay, ax=self.ax, fraction=0.03, pad=0.05,
                             label="attention weight (one scale\nfor every block and head)")  # fmt: skip
        _picture_ticks(self.ax, h, w)
        self.ax.set_xlim(0, w)
        self.ax.set_ylim(h, 0)
        self.ax.set_xlabel("column (pixels)")
        self.ax.set_ylabel("row (pixels)")
        self.ax.set_title(" ")
        self.figure.subplots_adjust(left=0.09, right=0.86, bottom=0.14, top=0.88)
        self.dynamic = [self.overlay, self.outlines, self.grid, *self.labels, self.ax.title]

    def update(self, block: int, head: int) -> str:  # type: ignore[override]
        if not 0 <= block < self.blocks or not 0 <= head < self.heads:
            raise Impossible(
                f"This model has blocks 0-{self.blocks - 1} and heads 0-{self.heads - 1}; block {block}, "
                f"head {head} is not one of them."
            )
        row = self.weights[block, head]  # (N + 1,)
        patches = row[1:]
        self.overlay.set_data(patches.reshape(self.rows, self.cols).numpy())
        for n, label in enumerate(self.labels):
            label.set_text(f"{n}: {patches[n]:.2f}")
        self.ax.set_title(f"block {block}, head {head}: the prediction token's attention")
        best = int(patches.argmax())
        return (
            f"block {block}, head {head}: the prediction token gives {row[0]:.2f} of its attention to itself and "
            f"{patches.sum():.2f} to the {patches.numel()} patches, the most to patch {best} ({patches[best]:.2f})"
        )


def model_attention_view(
    model: VisionTransformer, picture: np.ndarray | torch.Tensor, block: int = 0, head: int = 0
) -> tuple[Figure | None, str]:
    """The prediction token's attention in ``block`` and ``head`` (both counted from 0) of a (trained) ViT.

    Returns:
        (figure, summary); the figure is None and the summary says why for a block or head the model lacks.
    """
    return ModelAttentionDrawing(model, picture).view(block=block, head=head)


def model_attention_explorer(model: VisionTransformer, picture: np.ndarray | torch.Tensor) -> ipywidgets.VBox:
    """Block and head sliders over a trained ViT, driving :class:`ModelAttentionDrawing`."""
    drawing = ModelAttentionDrawing(model, picture)
    return _explorer(
        "model-attention explorer",
        drawing,
        {
            "block": _slider("block", 0, 0, drawing.blocks - 1),
            "head": _slider("head", 0, 0, drawing.heads - 1),
        },
    )
