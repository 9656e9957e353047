"""Every figure the course draws, as small named functions (no plotting lives in model code).

Conventions: the picture is shown with the ``Purples_r`` colormap over [0, 1], ticks every 10 pixels and a
colorbar; every axis carries a label and every figure a title.

One calling convention, with three kinds of exception that say so in their docstrings:

* a **panel** function takes ``ax: Axes | None = None`` (``None`` makes a new figure) and returns the Axes it
  drew on, so notebooks can compose panels into one figure (:func:`show_picture`, :func:`show_matrix`, ...);
* an **overlay** draws on a panel that already holds a picture, so its Axes comes first and is required
  (:func:`draw_patch_grid`, :func:`draw_windows`); it returns that Axes;
* a **multi-panel** figure lays out a grid of its own Axes and a shared colorbar, so it takes no ``ax`` and
  returns the Figure (:func:`show_similarity_grid`, :func:`show_attention_on_picture`);
* the **animation** is not drawn with matplotlib at all: :func:`soft_split_frames` returns pixel arrays and
  :func:`soft_split_animation` the bytes of a GIF, so the frames are the same bytes on every machine.
"""

from __future__ import annotations

from collections.abc import Sequence

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.colors import Colormap, Normalize, TwoSlopeNorm
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from ._validate import (
    allocatable,
    dense_tensor,
    finite_float,
    flag,
    instance_of,
    non_empty,
    non_negative_int,
    positive_int,
)

__all__ = [
    "CMAP",
    "as_numpy",
    "show_picture",
    "draw_patch_grid",
    "draw_windows",
    "show_matrix",
    "show_table_columns",
    "show_token_strip",
    "show_data_scale",
]

CMAP = "Purples_r"

#: The soft split's colours, the same in every view of it (the windows figure, the animation's frames, the
#: explorer widget): the window in focus is orange, its neighbours on the token grid are cyan.
WINDOW_COLOUR = "#ff8c00"
NEIGHBOUR_COLOUR = "#00d2ff"

#: What the figure functions accept as data: a tensor (any device; detached and copied) or a numpy array.
Array = torch.Tensor | np.ndarray


def as_numpy(x: torch.Tensor | np.ndarray, name: str = "x") -> np.ndarray:
    """A CPU numpy copy of a tensor (detached), or the array itself; ``name`` is the argument named in errors.

    Raises:
        TypeError: ``x`` is neither a tensor nor an array of real numbers (None, a string, complex numbers), or is
            a sparse, nested or quantized tensor (``x.to_dense()``, ``x.dequantize()``).
        ValueError: ``x`` is a meta tensor, which holds no numbers to draw.
    """
    if isinstance(x, torch.Tensor):
        dense_tensor(name, x)
        if x.is_complex():
            raise TypeError(f"{name} is a complex tensor; pass {name}.real or {name}.abs()")
        return x.detach().to("cpu", torch.float32).numpy()
    if isinstance(x, list | tuple):
        x = np.asarray(x)
    if not isinstance(x, np.ndarray):
        raise TypeError(f"{name} must be a torch.Tensor or a numpy array, got {type(x).__name__}")
    if x.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got an array of dtype {x.dtype}")
    return x


def _axes(ax: object, required: bool = False) -> Axes | None:
    """``ax`` if it is a matplotlib Axes (or None where a new figure may be made), else a TypeError naming it."""
    if ax is None and not required:
        return None
    what = "a matplotlib Axes" if required else "a matplotlib Axes or None (None makes a new figure)"
    return instance_of("ax", ax, Axes, what, "; e.g. fig, ax = plt.subplots()")


def _image(x: object, name: str) -> np.ndarray:
    """``x`` as a non-empty (H, W) array, else raise naming ``name``. A (1, H, W) or (1, 1, H, W) one (one picture,
    one channel, as the models take it) loses its leading axes; H and W are never squeezed away, so a one-row
    picture stays (1, W)."""
    img = as_numpy(x, name)
    if img.ndim in (3, 4) and img.shape[: img.ndim - 2] == (1,) * (img.ndim - 2):
        img = img.reshape(img.shape[-2:])
    if img.ndim != 2 or img.size == 0:
        raise ValueError(
            f"{name} must be a non-empty (H, W) array (or (1, H, W), (1, 1, H, W): one picture, one channel), got "
            f"shape {tuple(np.shape(x))}"
        )
    return img


def _matrix(x: object, name: str, layout: str = "(rows, cols)") -> np.ndarray:
    """``x`` as a non-empty 2-D array, else a TypeError/ValueError naming ``name``."""
    m = as_numpy(x, name)
    if m.ndim != 2 or m.size == 0:
        raise ValueError(f"{name} must be a non-empty 2-D array {layout}, got shape {m.shape}")
    return m


def _colour_range(vmin: object, vmax: object, optional: bool = False) -> tuple[float | None, float | None]:
    """``(vmin, vmax)`` as finite floats with ``vmin <= vmax`` (either may be None when ``optional``)."""
    low = None if optional and vmin is None else finite_float("vmin", vmin)
    high = None if optional and vmax is None else finite_float("vmax", vmax)
    if low is not None and high is not None and low > high:
        raise ValueError(f"vmin must be <= vmax, got vmin={low:g} and vmax={high:g}")
    return low, high


def _colour(name: str, value: object) -> object:
    """``value`` if matplotlib reads it as a colour, else a TypeError/ValueError naming ``name``."""
    from matplotlib.colors import is_color_like

    wanted = f"{name} must be a matplotlib colour (a name such as 'k', '#rrggbb' or RGB numbers)"
    if not isinstance(value, str | tuple | list | np.ndarray):
        raise TypeError(f"{wanted}, got {type(value).__name__}")
    if not is_color_like(value):
        raise ValueError(f"{wanted}, got {value!r:.60}")
    return value


def _index(name: str, value: object, count: int, what: str) -> int:
    """``value`` if it is an int in [0, ``count``), else a TypeError/ValueError naming ``name``."""
    wanted = f"{name} must be an int in [0, {count - 1}] ({count} {what})"
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        raise TypeError(f"{wanted}, got {type(value).__name__} {value!r:.40}")
    if not 0 <= value < count:
        raise ValueError(f"{wanted}, got {value}")
    return int(value)


def _ticks(ax: Axes, height: int, width: int, step: int = 10) -> None:
    ax.set_xticks(np.arange(0, width + 1, step))
    ax.set_yticks(np.arange(0, height + 1, step))
    ax.set_xlabel("column (pixels)")
    ax.set_ylabel("row (pixels)")


def show_picture(
    picture: torch.Tensor | np.ndarray,
    ax: Axes | None = None,
    title: str = "Mountain at Dusk",
    colorbar: bool = True,
    vmin: float = 0.0,
    vmax: float = 1.0,
    extent_offset: float = 0.0,
) -> Axes:
    """Show a (H, W) picture with the course's colormap, ticks every 10 pixels and a colorbar.

    ``extent_offset`` shifts the pixel coordinates (e.g. ``-padding`` to show a padded picture in the
    coordinates of the unpadded one).
    """
    _axes(ax)
    img = _image(picture, "picture")
    vmin, vmax = _colour_range(vmin, vmax)
    extent_offset = finite_float("extent_offset", extent_offset)
    colorbar = flag("colorbar", colorbar)
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.8))
    h, w = img.shape
    o = extent_offset
    im = ax.imshow(img, cmap=CMAP, vmin=vmin, vmax=vmax, extent=(o, o + w, o + h, o))
    _ticks(ax, h, w)
    if o:
        ax.set_xticks(np.arange(10 * np.ceil(o / 10), o + w + 1, 10))
        ax.set_yticks(np.arange(10 * np.ceil(o / 10), o + h + 1, 10))
    ax.set_title(title)
    if colorbar:
        plt.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label="brightness")
    return ax


def draw_patch_grid(
    ax: Axes,
    height: int,
    width: int,
    patch: int,
    numbers: bool | Sequence[int] = True,
    color: str = "k",
    where: str = "centre",
) -> Axes:
    """Overlay: draw the P x P patch grid over a picture on ``ax`` and number the patches 0, 1, 2, ... row by row
    (the course counts everything from 0, as Python indexes: the label is the index of the patch's token).

    ``numbers`` may instead give the label of each grid cell, row by row (e.g. the original number of each
    patch of a scrambled picture); ``False`` draws no labels. ``where`` puts each label in the centre of its
    patch (``"centre"``) or in its top-left corner (``"corner"``, small, leaving the patch's content visible).
    """
    _axes(ax, required=True)
    if where not in ("centre", "corner"):
        raise ValueError(f"where must be 'centre' or 'corner', got {where!r}")
    positive_int("height", height)
    positive_int("width", width)
    positive_int("patch", patch)
    if patch > min(height, width):
        raise ValueError(
            f"patch={patch} is larger than the {height} x {width} picture, so no patch fits; use patch <= "
            f"{min(height, width)}"
        )
    _colour("color", color)
    cells_count = (height // patch) * (width // patch)
    if isinstance(numbers, bool | np.bool_):
        numbers = bool(numbers)
    elif isinstance(numbers, str) or not isinstance(numbers, Sequence | np.ndarray):
        raise TypeError(
            f"numbers must be True, False or a sequence of {cells_count} labels (one per patch, row by row), "
            f"got {type(numbers).__name__}"
        )
    elif len(numbers) != cells_count:
        raise ValueError(
            f"numbers must hold one label per patch, {cells_count} for a {height // patch} x {width // patch} "
            f"grid, got {len(numbers)}"
        )
    for r in range(0, height + 1, patch):
        ax.axhline(r, color=color, lw=1.2)
    for c in range(0, width + 1, patch):
        ax.axvline(c, color=color, lw=1.2)
    if numbers is False:
        return ax
    cells = [(r, c) for r in range(0, height - patch + 1, patch) for c in range(0, width - patch + 1, patch)]
    labels = range(len(cells)) if numbers is True else numbers
    box = {"boxstyle": "round,pad=0.15", "fc": "white", "alpha": 0.75, "lw": 0}
    for (r, c), label in zip(cells, labels, strict=True):
        if where == "corner":
            inset = patch * 0.06
            ax.text(c + inset, r + inset, str(label), ha="left", va="top", fontsize=7, bbox=box)
        else:
            ax.text(c + patch / 2, r + patch / 2, str(label), ha="center", va="center", fontsize=9, bbox=box)
    return ax


def draw_windows(
    ax: Axes, corners: np.ndarray, kernel: int, highlight: int | None = None, color: str = "tab:orange"
) -> Axes:
    """Overlay: outline sliding windows on ``ax`` given their top-left (row, col) corners; ``highlight`` fills one."""
    _axes(ax, required=True)
    positive_int("kernel", kernel)
    points = as_numpy(corners, "corners")
    if points.ndim != 2 or points.shape[-1] != 2:
        raise ValueError(f"corners must be an (N, 2) array of (row, col), got shape {points.shape}")
    if not np.isfinite(points).all():
        raise ValueError("corners must hold finite numbers (row, col), got NaN or infinity")
    if highlight is not None:
        _index("highlight", highlight, len(points), "windows, numbered from 0; or None for no window filled")
    _colour("color", color)
    for i, (r, c) in enumerate(points):
        filled = i == highlight
        ax.add_patch(
            Rectangle(
                (c, r),
                kernel,
                kernel,
                fill=filled,
                alpha=0.45 if filled else 0.9,
                ec=color,
                fc=color,
                lw=2.0 if filled else 0.8,
            )
        )
    return ax


def show_window_and_neighbours(
    picture: torch.Tensor | np.ndarray,
    kernel: int,
    stride: int,
    padding: int,
    index: int = 0,
    ax: Axes | None = None,
    title: str | None = None,
    mark: tuple[float, float, float, float] | None = None,
    mark_label: str = "marked",
) -> Axes:
    """One soft-split window and its neighbours on the zero-padded picture, in the picture's own coordinates.

    Window ``index`` (= token ``index``) is shaded orange (:data:`WINDOW_COLOUR`) over its exact extent; its
    neighbours on the token grid (left, right, above, below) are outlined cyan (:data:`NEIGHBOUR_COLOUR`), each
    outline drawn 0.3 pixel inside its window so that edges which coincide stay apart. The strips the window
    shares with its right and its lower neighbour are hatched cyan (the strips shared with its left and upper
    neighbours mirror them). The picture's border is dashed white, the padding lies outside it; a legend names
    every colour. The animation's frames (:func:`soft_split_frames`) use the same colours.

    Args:
        picture: (H, W) values in [0, 1].
        kernel, stride, padding: the soft split's settings (as :func:`vitcourse.tokens.window_corners` takes).
        index: the window in focus, numbered from 0 row by row as the tokens come out.
        ax: the axes to draw on (a new figure when None).
        title: the axes title (None: a title naming the window and the settings).
        mark: an optional (top, left, height, width) box in the picture's coordinates, outlined dotted white.
        mark_label: the box's name in the legend.

    Returns:
        The axes.

    Raises:
        ValueError, TypeError: a bad ``picture``, ``index`` (not a window), ``mark`` (not four finite numbers
            with height and width above 0), ``title`` or ``mark_label`` (not a string), or a setting
            :func:`vitcourse.tokens.window_corners` refuses.
    """
    from matplotlib.patches import Patch

    from .tokens import count_tokens, window_corners

    _axes(ax)
    img = _image(picture, "picture")
    height, width = img.shape
    corners = window_corners(height, width, kernel, stride, padding)  # (N, 2) top-left (row, col)
    grid = count_tokens(height, width, kernel, stride, padding)
    index = _index("index", index, len(corners), "windows (= tokens), numbered from 0 row by row")
    if title is not None and not isinstance(title, str):
        raise TypeError(f"title must be a string or None, got {type(title).__name__}")
    if not isinstance(mark_label, str):
        raise TypeError(f"mark_label must be a string, got {type(mark_label).__name__}")
    if mark is not None:
        if not isinstance(mark, tuple | list) or len(mark) != 4:
            raise TypeError(f"mark must be None or a (top, left, height, width) tuple, got {mark!r:.60}")
        box = [finite_float(f"mark[{i}]", v) for i, v in enumerate(mark)]
        if box[2] <= 0 or box[3] <= 0:
            raise ValueError(f"mark's height and width must be > 0, got {box[2]:g} and {box[3]:g}")
    if ax is None:
        _, ax = plt.subplots(figsize=(7.5, 4.2))
    if title is None:
        title = f"window {index} and its neighbours ({kernel} x {kernel}, stride {stride}, padding {padding})"
    show_picture(np.pad(img, padding), ax=ax, title=title, extent_offset=-padding)
    border = Rectangle((0, 0), width, height, fill=False, ec="white", ls="--", lw=1.2)
    ax.add_patch(border)
    top, left = (int(v) for v in corners[index])
    ax.add_patch(Rectangle((left, top), kernel, kernel, fc=WINDOW_COLOUR, alpha=0.45, ec="none"))
    ax.add_patch(Rectangle((left, top), kernel, kernel, fill=False, ec=WINDOW_COLOUR, lw=2.2))
    row, col = divmod(index, grid.cols)
    steps = {(0, -1): "left", (0, 1): "right", (-1, 0): "above", (1, 0): "below"}
    neighbours = {
        (row + dr) * grid.cols + col + dc: where
        for (dr, dc), where in steps.items()
        if 0 <= row + dr < grid.rows and 0 <= col + dc < grid.cols
    }
    inset = 0.3  # in pixels: an outline that coincides with another edge is drawn beside it
    for n in neighbours:
        n_top, n_left = (int(v) for v in corners[n])
        ax.add_patch(
            Rectangle(
                (n_left + inset, n_top + inset),
                kernel - 2 * inset,
                kernel - 2 * inset,
                fill=False,
                ec=NEIGHBOUR_COLOUR,
                lw=1.8,
            )
        )
    shared = max(kernel - stride, 0)  # the width of the strip two neighbours share
    names = ", ".join(map(str, neighbours))
    handles = [
        Patch(fc=WINDOW_COLOUR, alpha=0.6, ec=WINDOW_COLOUR, label=f"window {index} (token {index})"),
        Patch(fill=False, ec=NEIGHBOUR_COLOUR, lw=1.8, label=f"its neighbours: {names}"),
    ]
    for n, where in neighbours.items():
        if where not in ("right", "below") or shared == 0:
            continue
        n_top, n_left = (int(v) for v in corners[n])
        r0, c0 = max(top, n_top), max(left, n_left)  # the shared strip: the two windows' intersection
        r1, c1 = min(top, n_top) + kernel, min(left, n_left) + kernel
        hatch = "//" if where == "right" else "\\\\"  # the two strips hatched across each other
        strip = Rectangle((c0, r0), c1 - c0, r1 - r0, fill=False, hatch=hatch, ec=NEIGHBOUR_COLOUR, lw=0)
        ax.add_patch(strip)
        unit, side = ("columns", "to the right") if where == "right" else ("rows", "below")
        label = f"shared with window {n} ({side}): {shared} {unit}"
        handles.append(Patch(fill=False, hatch=hatch, ec=NEIGHBOUR_COLOUR, lw=0, label=label))
    if mark is not None:
        marked = Rectangle((box[1], box[0]), box[3], box[2], fill=False, ec="white", ls=":", lw=2.6, zorder=5)
        ax.add_patch(marked)
        handles.append(Patch(fill=False, ec="white", ls=":", lw=2.6, label=mark_label))
    handles.append(Patch(fill=False, ec="white", ls="--", lw=1.2, label="picture border, zeros outside"))
    ax.set_xlim(-padding, width + padding)
    ax.set_ylim(height + padding, -padding)
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.19, 1.0), fontsize=8, facecolor="0.55")
    return ax


def show_matrix(
    matrix: torch.Tensor | np.ndarray,
    ax: Axes | None = None,
    title: str = "",
    xlabel: str = "",
    ylabel: str = "",
    cmap: str | Colormap = CMAP,
    vmin: float | None = None,
    vmax: float | None = None,
    colorbar: bool = True,
    aspect: str = "auto",
    label: str = "",
) -> Axes:
    """A labelled heatmap of a 2-D matrix (token matrices, attention weights, position tables); ``label``
    names the colorbar's quantity."""
    _axes(ax)
    m = _matrix(matrix, "matrix")
    vmin, vmax = _colour_range(vmin, vmax, optional=True)
    colorbar = flag("colorbar", colorbar)
    if not (isinstance(aspect, str) and aspect in ("auto", "equal")):
        if isinstance(aspect, str):
            raise ValueError(f"aspect must be 'auto', 'equal' or a number > 0, got {aspect!r}")
        finite_float("aspect", aspect, 0, above=True)
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    im = ax.imshow(m, cmap=cmap, vmin=vmin, vmax=vmax, aspect=aspect, interpolation="nearest")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if colorbar:
        plt.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label=label)
    return ax


#: The most columns :func:`show_table_columns` draws in one panel. A panel a few inches wide then still gives
#: every column about three screen pixels or more; with many more columns than pixels, columns that alternate
#: (the sine and cosine entries of a position table) blend into stripes that are not in the data (aliasing).
MAX_TABLE_COLUMNS = 160


def _ordinal(n: int) -> str:
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def _columns_shown(columns: Sequence[int], total: int) -> str:
    """Which columns a panel shows, in words: "columns 0-95 of 768", "every 8th column, 0 to 760, of 768"."""
    first, last = columns[0], columns[-1]
    if len(columns) == 1:
        return f"column {first} of {total}"
    steps = {b - a for a, b in zip(columns[:-1], columns[1:], strict=True)}
    if steps == {1}:
        return f"columns {first}-{last} of {total}"
    if len(steps) == 1:
        return f"every {_ordinal(steps.pop())} column, {first} to {last}, of {total}"
    return f"{len(columns)} chosen columns of {total}"


def show_table_columns(
    table: Array,
    columns: Sequence[int],
    ax: Axes | None = None,
    title: str = "",
    ylabel: str = "token slot i",
    vmin: float = -1.0,
    vmax: float = 1.0,
    label: str = "value",
    cmap: str | Colormap = "RdBu_r",
) -> Axes:
    """A heat map of chosen columns of a (rows, d) table (a position table, tokens, tokens + table), each column
    drawn as its own cell, side by side, without resampling.

    A position table has hundreds of columns whose sine and cosine entries alternate; squeezed into fewer screen
    pixels than columns, its heat map shows stripes that are not in the data. This panel draws at most
    :data:`MAX_TABLE_COLUMNS` columns, so each stays visible, and its x axis says which ones: the ticks carry the
    columns' own indices j and the axis label names the choice ("columns 0-95 of 768", "every 8th column, 0 to
    760, of 768"). The colour scale runs from ``vmin`` to ``vmax`` with 0 in the middle colour (white for the
    default diverging colormap) when the range holds 0, and the colour bar shows the whole range.

    Args:
        table: (rows, d) tensor or array of real numbers.
        columns: column indices to draw, increasing, each in [0, d), at most ``MAX_TABLE_COLUMNS`` of them
            (e.g. ``range(96)`` or ``range(0, 768, 8)``).
        ax: the Axes to draw on, or None for a new figure.
        title: the panel's title.
        ylabel: the quantity along the rows.
        vmin, vmax: the colour range, vmin < vmax (a position table's is [-1, 1]).
        label: the colour bar's quantity.
        cmap: a colormap (diverging by default, so that signs show).

    Returns:
        The Axes drawn on.

    Raises:
        TypeError: ``table`` is not a tensor or array, or ``columns`` is not a sequence of ints.
        ValueError: ``table`` is not 2-D; ``columns`` is empty, too long, not increasing or out of range;
            ``vmin >= vmax``.
    """
    _axes(ax)
    m = as_numpy(table, "table")
    if m.ndim != 2:
        raise ValueError(f"table must be 2-D (rows, d), got shape {m.shape}")
    non_empty("table", m, "(rows, d)")
    if isinstance(columns, str) or not isinstance(columns, Sequence | np.ndarray | torch.Tensor):
        raise TypeError(f"columns must be a sequence of column indices, got {type(columns).__name__}")
    index = np.asarray(columns).reshape(-1)
    if index.size and index.dtype.kind not in "iu":
        raise TypeError(f"columns must hold whole numbers (column indices), got dtype {index.dtype}")
    cols = [int(c) for c in index]
    if not cols:
        raise ValueError("columns must name at least one column")
    if len(cols) > MAX_TABLE_COLUMNS:
        raise ValueError(
            f"columns names {len(cols)} columns; at most {MAX_TABLE_COLUMNS} can each be drawn visibly in one "
            f"panel: pick a range or every k-th column"
        )
    if any(b <= a for a, b in zip(cols[:-1], cols[1:], strict=True)):
        raise ValueError("columns must be increasing")
    if cols[0] < 0 or cols[-1] >= m.shape[1]:
        raise ValueError(f"columns must lie in [0, {m.shape[1]}), got {cols[0]} to {cols[-1]}")
    if not (np.isfinite(vmin) and np.isfinite(vmax)) or vmin >= vmax:
        raise ValueError(f"vmin must be less than vmax (both finite), got {vmin} and {vmax}")
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    norm = TwoSlopeNorm(vcenter=0.0, vmin=vmin, vmax=vmax) if vmin < 0 < vmax else Normalize(vmin, vmax)
    im = ax.imshow(m[:, cols], cmap=cmap, norm=norm, aspect="auto", interpolation="nearest")
    locator = MaxNLocator(nbins=7, integer=True, steps=[1, 2, 4, 5, 10])  # round steps between shown columns
    ticks = [int(t) for t in locator.tick_values(0, len(cols) - 1) if 0 <= t <= len(cols) - 1]
    ax.set_xticks(ticks, [str(cols[t]) for t in ticks])
    ax.set_xlabel(f"entry j of the token ({_columns_shown(cols, m.shape[1])})")
    ax.set_ylabel(ylabel)
    ax.set_title(title)
    bar = plt.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label=label)
    if vmax - vmin <= 4:  # ticks every 0.5, the ends included
        bar.set_ticks(np.arange(np.ceil(vmin * 2) / 2, vmax + 1e-9, 0.5))
    bar.ax.minorticks_off()
    return ax


def show_token_strip(token: torch.Tensor | np.ndarray, ax: Axes | None = None, title: str = "") -> Axes:
    """One token drawn as a 1-pixel-high strip, with its entries along the x axis."""
    _axes(ax)
    t = as_numpy(token, "token").reshape(1, -1)
    if t.size == 0:
        raise ValueError(f"token must hold at least one entry, got shape {tuple(np.shape(token))}")
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 1.2))
    ax.imshow(t, cmap=CMAP, vmin=0, vmax=1, aspect="auto", interpolation="nearest")
    ax.set_yticks([])
    ax.set_xlabel("position in the token")
    ax.set_title(title)
    return ax


def _colorize(picture: np.ndarray, vmin: float = 0.0, vmax: float = 1.0) -> np.ndarray:
    """(H, W) values -> (H, W, 3) uint8 colours of the course's colormap."""
    cmap = plt.get_cmap(CMAP)
    scaled = np.clip((picture - vmin) / (vmax - vmin), 0.0, 1.0)
    return (cmap(scaled)[..., :3] * 255).round().astype(np.uint8)


# 5 x 9 bitmap glyphs (rows 0-6 above the baseline, 7-8 descenders): the animation's captions are drawn with
# numpy alone, so a frame is the same bytes on every machine (no font files, no renderer).
_GLYPHS: dict[str, tuple[str, ...]] = {
    " ": (".....",) * 7,
    "0": (".###.", "#...#", "#..##", "#.#.#", "##..#", "#...#", ".###."),
    "1": ("..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."),
    "2": (".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"),
    "3": ("#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."),
    "4": ("...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."),
    "5": ("#####", "#....", "####.", "....#", "....#", "#...#", ".###."),
    "6": ("..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."),
    "7": ("#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."),
    "8": (".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."),
    "9": (".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."),
    "a": (".....", ".....", ".###.", "....#", ".####", "#...#", ".####"),
    "b": ("#....", "#....", "#.##.", "##..#", "#...#", "#...#", "####."),
    "c": (".....", ".....", ".###.", "#....", "#....", "#...#", ".###."),
    "d": ("....#", "....#", ".##.#", "#..##", "#...#", "#...#", ".####"),
    "e": (".....", ".....", ".###.", "#...#", "#####", "#....", ".###."),
    "f": ("..##.", ".#..#", ".#...", "###..", ".#...", ".#...", ".#..."),
    "g": (".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", ".###."),
    "h": ("#....", "#....", "#.##.", "##..#", "#...#", "#...#", "#...#"),
    "i": ("..#..", ".....", ".##..", "..#..", "..#..", "..#..", ".###."),
    "j": ("...#.", ".....", "..##.", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."),
    "k": ("#....", "#....", "#..#.", "#.#..", "##...", "#.#..", "#..#."),
    "l": (".##..", "..#..", "..#..", "..#..", "..#..", "..#..", ".###."),
    "m": (".....", ".....", "##.#.", "#.#.#", "#.#.#", "#...#", "#...#"),
    "n": (".....", ".....", "#.##.", "##..#", "#...#", "#...#", "#...#"),
    "o": (".....", ".....", ".###.", "#...#", "#...#", "#...#", ".###."),
    "p": (".....", ".....", "####.", "#...#", "#...#", "#...#", "####.", "#....", "#...."),
    "q": (".....", ".....", ".####", "#...#", "#...#", "#...#", ".####", "....#", "....#"),
    "r": (".....", ".....", "#.##.", "##..#", "#....", "#....", "#...."),
    "s": (".....", ".....", ".###.", "#....", ".###.", "....#", "####."),
    "t": (".#...", ".#...", "###..", ".#...", ".#...", ".#..#", "..##."),
    "u": (".....", ".....", "#...#", "#...#", "#...#", "#..##", ".##.#"),
    "v": (".....", ".....", "#...#", "#...#", "#...#", ".#.#.", "..#.."),
    "w": (".....", ".....", "#...#", "#...#", "#.#.#", "#.#.#", ".#.#."),
    "x": (".....", ".....", "#...#", ".#.#.", "..#..", ".#.#.", "#...#"),
    "y": (".....", ".....", "#...#", "#...#", "#...#", "#...#", ".####", "....#", ".###."),
    "z": (".....", ".....", "#####", "...#.", "..#..", ".#...", "#####"),
    "-": (".....", ".....", ".....", "#####", ".....", ".....", "....."),
    ",": (".....", ".....", ".....", ".....", ".....", ".##..", "..#..", ".#..."),
    ":": (".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."),
    ".": (".....", ".....", ".....", ".....", ".....", ".##..", ".##.."),
    "(": ("...#.", "..#..", ".#...", ".#...", ".#...", "..#..", "...#."),
    ")": (".#...", "..#..", "...#.", "...#.", "...#.", "..#..", ".#..."),
    "=": (".....", ".....", "#####", ".....", "#####", ".....", "....."),
}
_GLYPH_H, _GLYPH_W = 9, 5


def _text_mask(text: str, size: int) -> np.ndarray:
    """A bool mask of ``text`` in the glyphs above, each glyph pixel ``size`` x ``size`` screen pixels, with one
    glyph column of space between characters."""
    unknown = sorted({ch for ch in text if ch not in _GLYPHS})
    if unknown:
        raise ValueError(f"text has characters the animation's glyphs lack: {unknown}")
    cells = []
    for ch in text:
        rows = list(_GLYPHS[ch]) + ["....."] * (_GLYPH_H - len(_GLYPHS[ch]))
        glyph = np.array([[c == "#" for c in row + "."] for row in rows])  # (9, 6): the glyph and a space
        cells.append(glyph)
    mask = np.concatenate(cells, axis=1) if cells else np.zeros((_GLYPH_H, 0), dtype=bool)
    return np.kron(mask, np.ones((size, size), dtype=bool))


def _caption(width: int, lines: Sequence[Sequence[tuple[np.ndarray | None, str]]], size: int) -> np.ndarray:
    """A white caption strip ``width`` screen pixels wide. Each line is a sequence of (swatch, text) parts drawn
    left to right in dark grey, each text after its swatch (a small (s, s, 3) image, or None for none); text
    that would run past the right edge is cut there."""
    line_h = (_GLYPH_H + 3) * size
    strip = np.full((line_h * len(lines) + size, width, 3), 255, dtype=np.uint8)
    for n, parts in enumerate(lines):
        top, x = n * line_h + 2 * size, 2 * size
        for swatch, text in parts:
            if swatch is not None:
                side = min(swatch.shape[1], max(0, width - x))
                strip[top : top + swatch.shape[0], x : x + side] = swatch[:, :side]
                x += swatch.shape[1] + 2 * size
            mask = _text_mask(text, size)[:, : max(0, width - x)]
            strip[top : top + mask.shape[0], x : x + mask.shape[1]][mask] = _INK
            x += mask.shape[1] + 4 * size
    return strip


def _outline(
    canvas: np.ndarray,
    top: int,
    left: int,
    height: int,
    width: int,
    colours: Sequence[np.ndarray],
    thick: int,
    dash: int | None = None,
) -> None:
    """Draw the outline of a rectangle (screen pixels, clipped to the canvas), ``thick`` pixels wide inside it.

    One colour draws a solid line; several draw dashes that take turns (e.g. white and black: a border that shows
    on bright and on dark pixels alike), each dash ``dash`` pixels long (``3 * thick`` if not given).
    """
    h, w = canvas.shape[:2]
    dash = dash or 3 * thick

    def paint(r0: int, r1: int, c0: int, c1: int, along_columns: bool) -> None:
        rr0, rr1, cc0, cc1 = max(r0, 0), min(r1, h), max(c0, 0), min(c1, w)
        if rr0 >= rr1 or cc0 >= cc1:
            return
        steps = np.arange(cc0 - c0, cc1 - c0) if along_columns else np.arange(rr0 - r0, rr1 - r0)
        which = (steps // dash) % len(colours)
        for n, colour in enumerate(colours):
            keep = which == n
            if along_columns:
                canvas[rr0:rr1, cc0:cc1][:, keep] = colour
            else:
                canvas[rr0:rr1, cc0:cc1][keep, :] = colour

    paint(top, top + thick, left, left + width, True)
    paint(top + height - thick, top + height, left, left + width, True)
    paint(top, top + height, left, left + thick, False)
    paint(top, top + height, left + width - thick, left + width, False)


_INK = np.array([40, 40, 40], dtype=np.uint8)  # caption text
_CURRENT = np.array([255, 140, 0], dtype=np.uint8)  # orange (WINDOW_COLOUR): the window of this frame
_NEIGHBOUR = np.array([0, 210, 255], dtype=np.uint8)  # cyan (NEIGHBOUR_COLOUR): its neighbours on the grid
# the picture's border: white and black dashes, which show on bright and on dark pixels alike
_BORDER = (np.array([255, 255, 255], dtype=np.uint8), np.array([0, 0, 0], dtype=np.uint8))


def _swatch(size: int, outline: np.ndarray | None = None, fill: np.ndarray | None = None) -> np.ndarray:
    """A legend swatch 7 glyph pixels square: ``fill`` (white if None) inside an ``outline`` of that colour, or,
    with no outline, a white-and-black dashed line across the middle (the picture's border in the frames)."""
    side = 7 * size
    swatch = np.full((side, side, 3), 255, dtype=np.uint8)
    if fill is not None:
        swatch[:] = fill
    if outline is not None:
        _outline(swatch, 0, 0, side, side, [outline], size)
    else:
        middle = side // 2 - size // 2
        swatch[middle : middle + size, :] = _BORDER[1]
        for start in range(0, side, 4 * size):  # white dashes on black, as the border is drawn
            swatch[middle : middle + size, start : start + 2 * size] = _BORDER[0]
    return swatch


def soft_split_frames(
    picture: torch.Tensor | np.ndarray, kernel: int, stride: int, padding: int, scale: int = 3
) -> list[np.ndarray]:
    """The frames of the soft-split animation, one per window (= token), in the order the tokens come out.

    Each frame reads on its own: on the zero-padded picture (``scale`` screen pixels per picture pixel, the
    picture's border dashed white and black), window i is tinted and outlined orange, and its neighbours on the
    token grid (left, right, above, below) are outlined cyan: a cyan line inside the orange square is where a
    neighbour begins or ends, so the part each shares with window i shows (the colours of
    :func:`show_window_and_neighbours`, :data:`WINDOW_COLOUR` and :data:`NEIGHBOUR_COLOUR`). A
    caption above names the window, its token and its pixel span in the picture's coordinates (the padding
    lies at negative coordinates and beyond the last row and column); a legend below names the colours. Drawn
    with numpy alone (a small bitmap font, no renderer, so no ``ax``), so the frames are the same bytes on every
    machine.

    Raises:
        ValueError, TypeError: a bad ``picture`` (not 2-D after squeezing), ``scale`` (not a positive whole
            number), or a kernel, stride or padding :func:`vitcourse.tokens.window_corners` refuses.

    Returns:
        One uint8 array of shape (caption + (H + 2p) * scale + legend, (W + 2p) * scale, 3) per token.
    """
    from .tokens import count_tokens, window_corners

    scale = positive_int("scale", scale)
    img = _image(picture, "picture").astype(np.float64)  # non-empty (H, W)
    height, width = img.shape
    corners = window_corners(height, width, kernel, stride, padding)  # (N, 2), the picture's coordinates
    grid = count_tokens(height, width, kernel, stride, padding)
    screen = (height + 2 * padding) * (width + 2 * padding) * scale**2 * 3  # one frame's picture part
    allocatable("the frames", grid.total * screen, picture=img.shape, padding=padding, scale=scale)
    padded = _colorize(np.pad(img, padding))  # (H + 2p, W + 2p, 3)
    base = np.kron(padded, np.ones((scale, scale, 1), dtype=np.uint8))  # (Hp * scale, Wp * scale, 3)
    thick = max(1, scale // 2)
    if padding > 0:  # the picture's border, drawn in the padding just outside the picture
        edge = padding * scale
        _outline(
            base,
            edge - thick,
            edge - thick,
            height * scale + 2 * thick,
            width * scale + 2 * thick,
            _BORDER,
            thick,
        )
    side = kernel * scale
    last_row, last_col = height + padding - 1, width + padding - 1
    last = len(corners) - 1
    widest = [  # the longest caption texts any frame draws, each after a swatch (7 glyph pixels and a gap of 2)
        f"window {last} = token {last} (of 0 to {last})",
        f"rows {-padding} to {last_row}, columns {-padding} to {last_col}",
        "picture border, zeros outside",
        "where a neighbour begins or ends",
    ]
    needed = max(_text_mask(t, 2).shape[1] for t in widest) + (2 + 9) * 2  # left margin, swatch, at size 2
    size = 2 if needed <= base.shape[1] else 1  # glyphs twice as large wherever the caption fits
    tint = (_CURRENT // 2 + 128).astype(np.uint8)  # the window's tint on a mid-grey pixel, for its swatches
    edge = _swatch(size, _CURRENT, fill=tint)  # a neighbour's edge crossing the window: a cyan line in orange
    middle = edge.shape[1] // 2
    edge[size:-size, middle : middle + size] = _NEIGHBOUR
    legend = _caption(
        base.shape[1],
        [
            [(_swatch(size, _NEIGHBOUR), "its neighbours on the grid")],
            [(edge, "where a neighbour begins or ends")],
            [(_swatch(size, fill=_colorize(np.zeros((1, 1)))[0, 0]), "picture border, zeros outside")],
        ],
        size,
    )
    frames = []
    for i, (top, left) in enumerate(corners.tolist()):
        frame = base.copy()
        r0, c0 = (top + padding) * scale, (left + padding) * scale
        inner = frame[r0 : r0 + side, c0 : c0 + side].astype(np.uint16)
        frame[r0 : r0 + side, c0 : c0 + side] = ((inner + _CURRENT) // 2).astype(np.uint8)  # tinted
        row, col = divmod(i, grid.cols)
        for dr, dc in ((0, -1), (0, 1), (-1, 0), (1, 0)):
            if 0 <= row + dr < grid.rows and 0 <= col + dc < grid.cols:
                n_top, n_left = corners[(row + dr) * grid.cols + col + dc].tolist()
                _outline(
                    frame,
                    (n_top + padding) * scale,
                    (n_left + padding) * scale,
                    side,
                    side,
                    [_NEIGHBOUR],
                    thick,
                )
        _outline(frame, r0, c0, side, side, [_CURRENT], 2 * thick)
        title = _caption(
            base.shape[1],
            [
                [
                    (
                        _swatch(size, _CURRENT, fill=tint),
                        f"window {i} = token {i} (of 0 to {last})",
                    )
                ],
                [(None, f"rows {top} to {top + kernel - 1}, columns {left} to {left + kernel - 1}")],
            ],
            size,
        )
        frames.append(np.concatenate([title, frame, legend]))
    return frames


def soft_split_animation(
    picture: torch.Tensor | np.ndarray,
    kernel: int,
    stride: int,
    padding: int,
    scale: int = 3,
    frames_per_second: float = 2.0,
) -> bytes:
    """A looping GIF, built in memory, that shows the soft-split windows one by one, each frame captioned (see
    :func:`soft_split_frames`).

    Returns the GIF's bytes (no ``ax``: a notebook shows them with ``IPython.display.Image``).

    Raises:
        ValueError, TypeError: ``frames_per_second`` is not a finite number above 0 (GIFs count in
            milliseconds), or an argument :func:`soft_split_frames` refuses.
    """
    import imageio.v3 as iio

    fps = finite_float("frames_per_second", frames_per_second, 0.0, above=True)
    frames = soft_split_frames(picture, kernel, stride, padding, scale)
    return iio.imwrite("<bytes>", np.stack(frames), extension=".gif", duration=1000.0 / fps, loop=0)


def show_similarity_grid(
    sims: torch.Tensor | np.ndarray, title: str = "", vmin: float = -1.0, vmax: float = 1.0
) -> Figure:
    """Show a (rows, cols, rows, cols) similarity grid as rows x cols small maps, one per patch.

    Map (r, c) shows how similar patch (r, c)'s position vector is to every patch's; it is drawn in the place of
    patch (r, c) on the patch grid. A multi-panel figure: it makes its own grid of Axes with one shared colorbar,
    so it takes no ``ax`` and returns the Figure.
    """
    s = as_numpy(sims, "sims")
    if s.ndim != 4 or s.shape[:2] != s.shape[2:] or s.size == 0:
        raise ValueError(f"sims must have shape (rows, cols, rows, cols), rows and cols >= 1, got {s.shape}")
    vmin, vmax = _colour_range(vmin, vmax)
    rows, cols = s.shape[:2]
    fig, axes = plt.subplots(rows, cols, figsize=(1.7 * cols + 1.2, 1.2 * rows + 0.8), squeeze=False)
    im = None
    for r in range(rows):
        for c in range(cols):
            ax = axes[r, c]
            im = ax.imshow(s[r, c], cmap="RdBu_r", vmin=vmin, vmax=vmax)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"patch {r * cols + c}", fontsize=8)
            if r == rows - 1:
                ax.set_xlabel("patch column", fontsize=7)
            if c == 0:
                ax.set_ylabel("patch row", fontsize=7)
    fig.suptitle(title)
    fig.colorbar(im, ax=axes, fraction=0.02, pad=0.02, label="cosine similarity")
    return fig


def show_attention_on_picture(
    picture: torch.Tensor | np.ndarray,
    weights: torch.Tensor | np.ndarray,
    patch: int,
    query: int | None,
    title: str = "",
) -> Figure:
    """Lay each head's attention weights for one query patch back onto the picture's patch grid.

    Args:
        picture: (H, W).
        weights: (heads, N) attention weights of the query token over the N patch tokens.
        patch: patch size P; the grid is (H / P) x (W / P).
        query: index of the query patch (0-based), outlined; None when the query is not a patch (the prediction
            token).

    Returns:
        The figure: one panel per head, the picture in grey with the weights over it (a multi-panel figure
        with one shared colorbar, so it takes no ``ax``).
    """
    img = _image(picture, "picture")
    w = as_numpy(weights, "weights")
    h_img, w_img = img.shape
    positive_int("patch", patch)
    if h_img % patch or w_img % patch:
        raise ValueError(
            f"patch={patch} does not divide the {h_img} x {w_img} picture; use a patch size that divides both"
        )
    rows, cols = h_img // patch, w_img // patch
    if w.ndim != 2 or w.shape[0] < 1 or w.shape[1] != rows * cols:
        raise ValueError(f"weights must be (heads, {rows * cols}) with heads >= 1, got shape {w.shape}")
    if query is not None:
        _index("query", query, rows * cols, f"patches of the {rows} x {cols} grid; or None for no patch")
    heads = w.shape[0]
    fig, axes = plt.subplots(1, heads, figsize=(3.4 * heads + 1.0, 2.6), squeeze=False)
    vmax = float(w.max())
    im = None
    for h, ax in enumerate(axes[0]):
        ax.imshow(img, cmap="Greys_r", vmin=0, vmax=1, extent=(0, w_img, h_img, 0))
        im = ax.imshow(
            w[h].reshape(rows, cols), cmap="magma", alpha=0.6, vmin=0, vmax=vmax, extent=(0, w_img, h_img, 0)
        )
        if query is not None:
            qr, qc = divmod(query, cols)
            ax.add_patch(Rectangle((qc * patch, qr * patch), patch, patch, fill=False, ec="cyan", lw=2))
        ax.set_title(f"head {h}")
        _ticks(ax, h_img, w_img, step=20)
    fig.suptitle(title)
    fig.colorbar(im, ax=axes, fraction=0.02, pad=0.02, label="attention weight")
    return fig


def outline_rows_and_columns(ax: Axes, indices: Sequence[int], size: int, color: str = "lime") -> Axes:
    """Outline rows and columns ``indices`` of a ``size`` x ``size`` matrix drawn by :func:`show_matrix`.

    Used to show where a permutation of the tokens moves entries of an attention-weight matrix.
    """
    _axes(ax, required=True)
    positive_int("size", size)
    if isinstance(indices, str) or not isinstance(indices, Sequence | np.ndarray | range):
        raise TypeError(f"indices must be a sequence of row/column indices, got {type(indices).__name__}")
    indices = [_index(f"indices[{n}]", i, size, "rows of the matrix") for n, i in enumerate(indices)]
    _colour("color", color)
    for i in indices:
        ax.add_patch(Rectangle((-0.5, i - 0.5), size, 1, fill=False, ec=color, lw=1.8))  # row i
        ax.add_patch(Rectangle((i - 0.5, -0.5), 1, size, fill=False, ec=color, lw=1.8, ls="--"))  # column i
    return ax


def show_learning_rate(lrs: Sequence[float], warmup: int, ax: Axes | None = None, title: str = "") -> Axes:
    """Plot the learning rate of every training step (e.g. ``TrainResult.lrs``) and mark the end of the warm-up.

    Args:
        lrs: the learning rate each step used, step 0 first.
        warmup: warm-up steps; a dotted line marks where the cosine decay starts.
        ax: the axes to draw on (a new figure when None).
        title: the axes title.

    Returns:
        The axes.
    """
    _axes(ax)
    if isinstance(lrs, str) or not isinstance(lrs, Sequence | np.ndarray | torch.Tensor):
        raise TypeError(f"lrs must be a sequence of learning rates, one per step, got {type(lrs).__name__}")
    try:
        rates = as_numpy(lrs if isinstance(lrs, torch.Tensor) else np.asarray(lrs), "lrs").reshape(-1)
    except ValueError as err:
        if "lrs" in str(err):
            raise
        raise ValueError(f"lrs must be a flat sequence of numbers, one per step: {err}") from err
    if rates.size == 0:
        raise ValueError("lrs must hold at least one learning rate, got none")
    if not np.isfinite(rates).all():
        bad = int(np.flatnonzero(~np.isfinite(rates))[0])
        raise ValueError(f"lrs must hold finite numbers, got {rates[bad]} at step {bad}")
    non_negative_int("warmup", warmup)
    if warmup > len(rates):
        raise ValueError(f"warmup must be at most the {len(rates)} steps plotted, got {warmup}")
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3))
    ax.plot(range(len(rates)), rates.tolist(), color="tab:purple")
    ax.axvline(warmup, color="grey", ls=":", label=f"first cosine step (step {warmup})")
    ax.set_xlabel("training step")
    ax.set_ylabel("learning rate")
    ax.set_title(title or "learning rate: linear warm-up, then cosine decay to 0")
    ax.legend()
    return ax


def show_counts(counts: Array, ax: Axes | None = None, title: str = "", label: str = "count") -> Axes:
    """A whole-number count per pixel (e.g. how many soft-split windows cover it) as a labelled heat map.

    Args:
        counts: (H, W) whole numbers.
        ax: the axes to draw on (a new figure when None).
        title: the axes title.
        label: the colorbar's label; the colorbar has one colour and one tick per count that occurs (a count
            between the smallest and the largest that no pixel has gets no colour).

    Returns:
        The axes.
    """
    _axes(ax)
    m = _image(counts, "counts")
    if not (np.isfinite(m).all() and (m == np.round(m)).all()):
        raise ValueError("counts must hold whole numbers (a count per pixel), not fractions, NaN or infinity")
    low, high = int(m.min()), int(m.max())
    if high - low >= 256:
        raise ValueError(
            f"counts span {high - low + 1} values ({low} to {high}); one colour per count is readable up to 256: "
            f"show them with show_matrix instead"
        )
    from matplotlib.colors import ListedColormap

    present = np.unique(m)  # the counts that occur, ascending
    palette = plt.get_cmap("viridis")(np.linspace(0, 1, high - low + 1))  # one colour per count in the range
    discrete = ListedColormap(palette[(present - low).astype(int)])  # ... kept only for the counts that occur
    slot = np.searchsorted(present, m)  # (H, W): which of the counts that occur each pixel has
    ax = show_matrix(
        slot,
        ax=ax,
        title=title,
        cmap=discrete,
        vmin=-0.5,
        vmax=len(present) - 0.5,
        colorbar=False,
        aspect="equal",
    )
    _ticks(ax, *m.shape)
    bar = plt.colorbar(ax.images[-1], ax=ax, fraction=0.03, pad=0.02, label=label, ticks=range(len(present)))
    bar.set_ticklabels([str(int(v)) for v in present])
    return ax


def show_grid_values(
    values: torch.Tensor | np.ndarray,
    ax: Axes | None = None,
    title: str = "",
    vmin: float = 0.0,
    vmax: float | None = None,
    label: str = "",
    colorbar: bool = True,
) -> Axes:
    """One value per patch (e.g. a head's attention weights) as a heat map on the patch grid, values written in.

    Args:
        values: (rows, cols), patch (r, c) in row r, column c; patches are numbered 0, 1, ... row by row, the ticks too.
        ax: the axes to draw on (a new figure when None).
        title: the axes title.
        vmin, vmax: the colour range (vmax None: the largest value); pass the same range to panels compared.
        label: the colorbar's label.
        colorbar: draw a colorbar beside these axes (False when the figure draws one shared colorbar).

    Returns:
        The axes.
    """
    _axes(ax)
    m = _matrix(values, "values")
    if not np.isfinite(m).all():
        raise ValueError("values must hold finite numbers (each is written in its cell), got NaN or infinity")
    vmin, vmax = _colour_range(vmin, vmax, optional=True)
    if vmin is None:
        raise TypeError("vmin must be a finite number, got None")
    if vmax is None:  # the largest value, or vmin when every value lies below it
        vmax = max(float(m.max()), vmin)
    colorbar = flag("colorbar", colorbar)
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 2.6))
    top = vmax
    show_matrix(m, ax, title, "patch column", "patch row", "magma", vmin, top, colorbar, "equal", label)
    rows, cols = m.shape
    for r in range(rows):
        for c in range(cols):
            dark = m[r, c] < vmin + 0.6 * (top - vmin)
            colour = "white" if dark else "black"
            ax.text(c, r, f"{m[r, c]:.2f}", ha="center", va="center", fontsize=8, color=colour)
    ax.set_xticks(range(cols), [str(c) for c in range(cols)])
    ax.set_yticks(range(rows), [str(r) for r in range(rows)])
    return ax


def show_attention_lookup(
    query: Array,
    keys: Array,
    values: Array,
    scale: float | None = None,
    title: str = "Attention as a lookup: one query, matched against every key",
) -> Figure:
    """Attention drawn as a soft lookup, as d2l and the Annotated Transformer draw it: one query is matched
    against every key, a softmax turns the scores into weights, and the output is the weighted sum of the values.

    A multi-panel figure (it takes no ``ax``). Bottom row, left to right: the keys (one row per key), the weights
    as horizontal bars (bar j's width is weight j, labelled with the score and the weight), the values (row j
    belongs to key j). Top row: the query above the keys, the output above the values. Entries are written in
    their cells; the four matrices share one colour range and one colour bar. The best match (the largest
    weight) has a darker bar, and its key row and value row are outlined. The panels carry the labels
    ``"query"``, ``"keys"``, ``"weights"``, ``"values"`` and ``"output"`` (``Axes.get_label()``).

    Args:
        query: (d,) one query.
        keys: (n, d) n keys, one per row.
        values: (n, d_v) n values; value j belongs to key j.
        scale: the factor on the scores q . k_j; None (the default) uses 1 / sqrt(d).
        title: the figure's title.

    Returns:
        The Figure. Its weights are softmax(scale * q . k_j) over j; its output is sum_j weight_j * v_j.
    """
    q = as_numpy(query, "query")
    if q.ndim != 1 or q.size == 0:
        raise ValueError(f"query must be a non-empty 1-D array (d,), got shape {q.shape}")
    k = _matrix(keys, "keys", "(n, d)")
    v = _matrix(values, "values", "(n, d_v)")
    if k.shape[1] != q.size:
        raise ValueError(f"keys must have d = {q.size} columns, as the query has, got shape {k.shape}")
    if v.shape[0] != k.shape[0]:
        raise ValueError(f"values must have one row per key ({k.shape[0]}), got shape {v.shape}")
    if not (np.isfinite(q).all() and np.isfinite(k).all() and np.isfinite(v).all()):
        raise ValueError("query, keys and values must hold finite numbers (each is written in its cell)")
    factor = 1 / np.sqrt(q.size) if scale is None else finite_float("scale", scale)
    scores = (k.astype(np.float64) @ q.astype(np.float64)) * factor  # (n,)
    weights = np.exp(scores - scores.max())
    weights /= weights.sum()  # (n,): softmax over the keys
    out = weights @ v.astype(np.float64)  # (d_v,)
    n, d, d_v = k.shape[0], q.size, v.shape[1]
    limit = float(max(np.abs(q).max(), np.abs(k).max(), np.abs(v).max(), np.abs(out).max(), 1e-12))

    fig = plt.figure(figsize=(13, 1.6 + 0.55 * n), layout="constrained")
    grid = fig.add_gridspec(2, 3, height_ratios=[1, n], width_ratios=[max(d, 2), 3.5, max(d_v, 2)])
    ax_q, ax_k = fig.add_subplot(grid[0, 0]), fig.add_subplot(grid[1, 0])
    ax_w = fig.add_subplot(grid[1, 1])
    ax_o, ax_v = fig.add_subplot(grid[0, 2]), fig.add_subplot(grid[1, 2])

    def panel(ax: Axes, m: np.ndarray, name: str, panel_title: str, ylabel: str, rows: list[str]) -> None:
        show_matrix(m, ax, panel_title, "channel", ylabel, "RdBu_r", -limit, limit, False, "auto")
        ax.set_label(name)
        ax.set_xticks(range(m.shape[1]))
        ax.set_yticks(range(m.shape[0]), rows)
        for r in range(m.shape[0]):
            for c in range(m.shape[1]):
                dark = abs(m[r, c]) > 0.6 * limit
                ax.text(c, r, f"{m[r, c]:.2f}", ha="center", va="center", fontsize=8,
                        color="white" if dark else "black")  # fmt: skip

    key_rows = [str(j) for j in range(n)]
    panel(ax_q, q[None, :], "query", "the query $q$", "query", ["q"])
    panel(ax_k, k, "keys", "the keys $k_j$: $q$ is compared with each", "key j", key_rows)
    panel(ax_v, v, "values", "the values $v_j$: one per key", "key j", key_rows)
    panel(
        ax_o,
        out[None, :],
        "output",
        r"the output $\Sigma_j\, a_j v_j$: a weighted sum of the values",
        "query",
        ["q"],
    )

    ax_w.set_label("weights")
    best = int(np.argmax(weights))  # the best match: its bar, key row and value row are marked
    bar_colours = ["indigo" if j == best else "tab:purple" for j in range(n)]
    ax_w.barh(range(n), weights, color=bar_colours, height=0.6)
    for j in range(n):
        note = " (best)" if j == best else ""
        ax_w.text(weights[j] + 0.02, j, f"score {scores[j]:.2f} → weight $a_{j}$ = {weights[j]:.2f}{note}",
                  va="center", fontsize=9, fontweight="bold" if j == best else "normal")  # fmt: skip
    for ax, width in ((ax_k, d), (ax_v, d_v)):  # outline the best key and its value
        ax.add_patch(Rectangle((-0.5, best - 0.5), width, 1, fill=False, ec="black", lw=2.5))
    ax_w.set_xlim(0, 1.7)
    ax_w.set_ylim(n - 0.5, -0.5)  # key 0 on top, as in the keys' panel
    ax_w.set_yticks(range(n), key_rows)
    ax_w.set_xlabel("attention weight (the weights sum to 1)")
    ax_w.set_ylabel("key j")
    ax_w.set_xticks([0, 0.25, 0.5, 0.75, 1])  # a weight is at most 1, so its axis stops at 1;
    ax_w.spines["bottom"].set_bounds(0, 1)  # the room to the right of 1 holds the labels
    ax_w.spines[["top", "right"]].set_visible(False)
    scaled = r"$q \cdot k_j / \sqrt{d}$" if scale is None else rf"{factor:.3g} $q \cdot k_j$"
    ax_w.set_title(f"weights $a_j$: softmax over the keys of {scaled}")
    fig.colorbar(ax_k.images[0], ax=[ax_q, ax_k, ax_o, ax_v], fraction=0.02, pad=0.01, label="entry")
    fig.suptitle(title)
    return fig


def _pixel_axes(fig: Figure, box: tuple[float, float, float, float]) -> Axes:
    """Axes placed in screen pixels, ``box = (left, bottom, width, height)`` from the figure's bottom-left
    corner, on a figure of known size and dots per inch."""
    fw, fh = fig.get_size_inches() * fig.dpi
    return fig.add_axes((box[0] / fw, box[1] / fh, box[2] / fw, box[3] / fh))


def show_patch_and_token(
    patch: Array, token: Array, name: str = "the patch", px: int = 2, line_color: str = "white"
) -> Figure:
    """Multi-panel: a square patch above its token, the patch read row by row. The patch's row 0 is outlined in
    orange in both panels, and lines in ``line_color`` in the token mark where each row of the patch ends. Each
    entry of the token gets exactly ``px`` screen pixels across, so that no entry is drawn wider than another."""
    pt = _image(patch, "patch")
    t = as_numpy(token, "token").reshape(-1)
    side = pt.shape[0]
    if pt.shape != (side, side) or t.size != side * side:
        raise ValueError(
            f"patch must be square and token its {side * side} entries, got {pt.shape}, {t.size}"
        )
    px = positive_int("px", px)
    strip_w = px * t.size
    fig = plt.figure(figsize=((70 + strip_w + 110) / 100, 430 / 100), dpi=100)
    ax_patch = _pixel_axes(fig, (70 + strip_w // 2 - 100, 180, 200, 200))  # centred above the strip
    show_picture(pt, ax=ax_patch, title=f"{name} (orange: its row 0)", colorbar=False)
    ax_patch.set_xticks(range(0, side + 1, 5))
    ax_patch.set_yticks(range(0, side + 1, 5))
    ax_patch.set_xlabel("column in the patch")
    ax_patch.set_ylabel("row in the patch")
    outline = {"fill": False, "ec": "tab:orange", "lw": 2.5, "clip_on": False}
    ax_patch.add_patch(Rectangle((0, 0), side, 1, **outline))  # the patch's row 0
    ax_strip = _pixel_axes(fig, (70, 55, strip_w, 40))
    show_token_strip(
        t, ax=ax_strip, title=f"{name} flattened: a token of length {t.size} (orange: the patch's row 0)"
    )
    ax_strip.set_xlabel(f"position in the token ({line_color} lines: where each row of the patch ends)")
    ax_strip.set_xticks(range(0, t.size + 1, 2 * side))
    for row in range(1, side):
        ax_strip.axvline(row * side - 0.5, color=line_color, lw=0.6)
    ax_strip.add_patch(Rectangle((-0.5, -0.5), side, 1, **outline))  # positions 0 to side - 1
    cax = _pixel_axes(fig, (70 + strip_w // 2 + 120, 180, 14, 200))
    fig.colorbar(ax_strip.images[0], cax=cax, label="brightness (both panels)")
    return fig


def show_token_matrix_exact(
    matrix: Array, title: str = "", xlabel: str = "", ylabel: str = "", px: int = 2, row_px: int = 16,
    xstep: int = 40,
) -> Figure:  # fmt: skip
    """Multi-panel: a token matrix (tokens, entries) over [0, 1] where every entry gets exactly ``px`` screen
    pixels across and every token ``row_px`` down, so that entries which alternate (a one-pixel pattern) are not
    resampled into stripes that are not in the data; a colour bar beside it."""
    m = _matrix(matrix, "matrix", "(tokens, entries)")
    n, length = m.shape
    px, row_px = positive_int("px", px), positive_int("row_px", row_px)
    fig = plt.figure(figsize=((90 + px * length + 100) / 100, (row_px * n + 100) / 100), dpi=100)
    ax = _pixel_axes(fig, (90, 60, px * length, row_px * n))
    show_matrix(m, ax=ax, title=title, xlabel=xlabel, ylabel=ylabel, vmin=0, vmax=1, colorbar=False)
    ax.set_yticks(range(n))
    ax.set_xticks(range(0, length + 1, xstep))
    cax = _pixel_axes(fig, (90 + px * length + 15, 60, 14, row_px * n))
    fig.colorbar(ax.images[0], cax=cax, label="brightness")
    return fig


def show_first_window_and_matrix(toks: Array, window: Array, pad: int, px: int = 3) -> Figure:
    """Multi-panel: a soft split's first window (k x k, its first ``pad`` rows and columns padding) beside the
    token matrix (tokens, entries) in two halves, at exactly ``px`` x ``px`` screen pixels per entry, so that the
    picture's one-pixel pattern is not resampled into stripes; one colour scale, [0, 1], for all panels."""
    m = _matrix(toks, "toks", "(tokens, entries)")
    win = _image(window, "window")
    n, length = m.shape
    half, px = length // 2, positive_int("px", px)
    mat_w, mat_h = half * px, n * px
    fig = plt.figure(figsize=((360 + mat_w + 90) / 100, (mat_h * 2 + 200) / 100), dpi=100)
    ax_win = _pixel_axes(fig, (55, 120, 210, 300))
    halves = [_pixel_axes(fig, (360, mat_h + 160, mat_w, mat_h)), _pixel_axes(fig, (360, 60, mat_w, mat_h))]
    title = f"first window (token 0)\npadding: rows and columns 0-{pad - 1}\nsame colour scale as right"
    show_picture(win, ax=ax_win, title=title, colorbar=False)
    ax_win.set_xticks(range(0, win.shape[1] + 1, 5))
    ax_win.set_yticks(range(0, win.shape[0] + 1, 5))
    ax_win.set_xlabel("column in the window")
    ax_win.set_ylabel("row in the window")
    for i, ax in enumerate(halves):
        lo = i * half
        show_matrix(
            m[:, lo : lo + half], ax=ax, title=f"token matrix {n} x {length}: positions {lo} to {lo + half - 1}",
            xlabel="position in the token", ylabel="token index", vmin=0, vmax=1, colorbar=False,
        )  # fmt: skip
        ax.images[0].set_extent((lo - 0.5, lo + half - 0.5, n - 0.5, -0.5))
        ax.set_xlim(lo - 0.5, lo + half - 0.5)
        ax.set_xticks(range(lo, lo + half + 1, 20))
    cax = _pixel_axes(fig, (360 + mat_w + 15, 60, 15, 2 * mat_h + 100))
    fig.colorbar(halves[0].images[0], cax=cax, label="brightness")
    return fig


# --- notebooks 03 and 12: the permutation demo, the sinusoidal pairs and the resized table's nearest old patches ---


def show_swapped_weights(
    a: Array, a_swapped: Array, residual: Array, marked: Sequence[int] = (0, 2)
) -> Figure:
    """Multi-panel: attention weights (query token by key token) before and after some tokens trade places, and
    the absolute difference from the old weights reordered, on one colour scale (the old weights' largest).

    Args:
        a, a_swapped, residual: (N, N) each; ``residual`` is |a_swapped - a reordered|.
        marked: the tokens that trade places, marked in red on both axes.

    Returns:
        The figure.
    """
    panels = [_matrix(m, name) for m, name in ((a, "a"), (a_swapped, "a_swapped"), (residual, "residual"))]
    n = panels[0].shape[0]
    marked = [_index("marked", t, n, "tokens") for t in marked]
    fig, axes = plt.subplots(1, 3, figsize=(16, 5), layout="constrained")
    titles = (
        "weights A, tokens in picture order",
        f"weights, tokens {' and '.join(map(str, marked))} swapped",
        f"|swapped weights - A with rows\nand columns {', '.join(map(str, marked))} swapped|",
    )
    for k, (ax, weights, name) in enumerate(zip(axes, panels, titles, strict=True)):
        label = "absolute difference" if k == 2 else "attention weight"
        show_matrix(
            weights,
            ax,
            name,
            "key token",
            "query token",
            "magma",
            0,
            float(panels[0].max()),
            True,
            "equal",
            label,
        )
        ax.set_title(name, pad=14)  # room for the marks above the marked columns
        ax.set_xticks(range(n))
        ax.set_yticks(range(n))
        ax.tick_params(labelsize=7)
        for labels in (ax.get_xticklabels(), ax.get_yticklabels()):
            for t in marked:
                labels[t].set_color("red")
                labels[t].set_fontweight("bold")
        limits = (
            ax.get_xlim(),
            ax.get_ylim(),
        )  # small red marks outside the matrix, beside rows and above columns
        ax.plot([n - 0.1] * len(marked), marked, "<", color="red", ms=5, clip_on=False)
        ax.plot(marked, [-1.1] * len(marked), "v", color="red", ms=5, clip_on=False)
        ax.set_xlim(limits[0])
        ax.set_ylim(limits[1])
    return fig


def show_sine_pairs(table: Array, pairs: Sequence[int], slots: int, ax: Axes | None = None) -> Axes:
    """Panel: pairs m of a sinusoidal table as curves over the first ``slots`` rows, column 2m (sine, solid)
    and 2m + 1 (cosine, dashed), each pair around its own 0 line, the first pair on top."""
    _axes(ax)
    t = _matrix(table, "table", "(slots, columns)")
    slots = positive_int("slots", slots)
    if ax is None:
        _, ax = plt.subplots(figsize=(6.5, 6))
    for k, m in enumerate(pairs):
        offset = 2.5 * (len(pairs) - 1 - k)
        for j, style in ((2 * m, "o-"), (2 * m + 1, "s--")):
            ax.plot(range(slots), t[:slots, j] + offset, style, ms=2.5, lw=1, color=f"C{k}")
        ax.axhline(offset, color="grey", lw=0.5)
        ax.text(slots + 0.5, offset, f"pair {m}:\ncolumns {2 * m}, {2 * m + 1}", va="center", fontsize=8)
    ax.set_yticks([2.5 * k + v for k in range(len(pairs)) for v in (-1, 0, 1)])
    ax.set_yticklabels(["-1", "0", "1"] * len(pairs), fontsize=7)
    ax.set_xlim(-1, slots + 15)
    ax.set_xlabel("token slot i (row of the table)")
    ax.set_ylabel("value (each pair around its own 0 line)")
    ax.set_title(f"{2 * len(pairs)} columns as curves: sine (solid), cosine (dashed)")
    return ax


def show_table_column_curves(
    table: Array, columns: Sequence[int], slots: int, ax: Axes | None = None
) -> Axes:
    """Panel: some columns of a sinusoidal table as curves over its first ``slots`` rows, the legend outside."""
    _axes(ax)
    t = _matrix(table, "table", "(slots, columns)")
    slots = positive_int("slots", slots)
    if ax is None:
        _, ax = plt.subplots(figsize=(10, 3.5))
    styles = ("o-", "s--") + ("-",) * max(0, len(columns) - 2)
    for j, style in zip(columns, styles, strict=False):
        ax.plot(t[:slots, j], style, ms=3, label=f"column {j} ({'sin' if j % 2 == 0 else 'cos'})")
    ax.set_xlabel("token slot i (row of the table)")
    ax.set_ylabel("value")
    ax.set_title(f"{len(columns)} columns of the table, first {slots} slots")
    ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1), fontsize=8)
    return ax


def show_most_like_grid(most_like: dict[str, Array], place: Array, old_grid: tuple[int, int]) -> Figure:
    """Multi-panel: for each way of resizing a position table, the new grid with each new patch labelled and
    coloured by the old patch (0, 1, ...) its vector is most like; red boxes mark misses, black lines the old
    patches' borders.

    Args:
        most_like: name -> (rows, cols) of 0-based old patch indices, one panel each.
        place: (rows, cols), the 0-based old patch at each new patch's place.
        old_grid: the old grid's (rows, cols).

    Returns:
        The figure.
    """
    target = _matrix(place, "place")
    old_rows, old_cols = (positive_int("old_grid", v) for v in old_grid)
    rows, cols = target.shape
    total = old_rows * old_cols
    # distinct colours, one per old patch: tab20 without its two reds, kept for the boxes around misses
    from matplotlib.colors import ListedColormap

    colours = ListedColormap(
        [c for k, c in enumerate(plt.get_cmap("tab20").colors) if k not in (6, 7)][:total]
    )
    fig, axes = plt.subplots(1, len(most_like), figsize=(6.5 * len(most_like), 4.8), layout="constrained")
    for ax, (name, best) in zip(np.atleast_1d(axes), most_like.items(), strict=True):
        best = _matrix(best, "most_like")
        hits = int((best == target).sum())
        show_matrix(
            best,
            ax,
            f"{name}: {hits} of {target.size} at their place",
            f"patch column of the {rows} x {cols} grid (from 0)",
            f"patch row of the {rows} x {cols} grid (from 0)",
            colours,
            -0.5,
            total - 0.5,
            False,
            "equal",
        )
        for r in range(rows):
            for c in range(cols):
                ax.text(c, r, str(int(best[r, c])), ha="center", va="center", fontsize=9)
                if best[r, c] != target[r, c]:  # a miss: most like an old patch somewhere else
                    ax.add_patch(Rectangle((c - 0.42, r - 0.42), 0.84, 0.84, fill=False, ec="red", lw=2))
        for k in range(old_rows + 1):  # the old patches' borders
            ax.axhline(k * rows / old_rows - 0.5, color="k", lw=2)
        for k in range(old_cols + 1):
            ax.axvline(k * cols / old_cols - 0.5, color="k", lw=2)
    fig.suptitle(
        f"the {rows} x {cols} grid: each new patch labelled and coloured by the old patch (0-{total - 1}) it is most "
        f"like\n(red box: not the old patch at its place; black lines: the borders of the old {old_rows} x "
        f"{old_cols} patches)"
    )
    fig.get_layout_engine().set(h_pad=0.15)  # room between the two-line title and the panels' titles
    return fig


# --- notebook 13: a trained ViT's attention on a scene and on the picture ---


def show_cls_attention(scene: Array, cls_weights: Array, target: tuple[int, int], patch: int = 20) -> Figure:
    """Multi-panel: a scene with its target patch outlined in red, beside one map per block and head of the
    prediction token's weights over the patches, on the patch grid with values written in, one colour range.

    Args:
        scene: (H, W) picture.
        cls_weights: (blocks, heads, 1 + patches): the prediction token's weights over itself and the patches.
        target: the target patch's 0-based (patch row, patch column).
        patch: the patch side in pixels.

    Returns:
        The figure.
    """
    img = _image(scene, "scene")
    weights = as_numpy(cls_weights, "cls_weights")
    if weights.ndim != 3:
        raise ValueError(f"cls_weights must be (blocks, heads, 1 + patches), got shape {weights.shape}")
    patch = positive_int("patch", patch)
    depth, heads = weights.shape[:2]
    grid = (img.shape[0] // patch, img.shape[1] // patch)
    row, col = (int(v) for v in target)
    fig = plt.figure(figsize=(3.6 * (heads + 2), 2.7 * depth))
    grid_spec = fig.add_gridspec(depth, heads + 1, width_ratios=[2] + [1] * heads)
    scene_ax = fig.add_subplot(grid_spec[:, 0])  # the scene once, beside every row of maps
    show_picture(img, ax=scene_ax, title="held-out scene", colorbar=False)
    draw_patch_grid(scene_ax, img.shape[0], img.shape[1], patch, where="corner")
    scene_ax.add_patch(Rectangle((col * patch, row * patch), patch, patch, fill=False, ec="red", lw=3))
    map_axes = [[fig.add_subplot(grid_spec[b, h + 1]) for h in range(heads)] for b in range(depth)]
    for b in range(depth):
        for h in range(heads):
            ax = map_axes[b][h]
            title = f"block {b}, head {h}: itself {weights[b, h, 0]:.2f}"
            show_grid_values(
                weights[b, h, 1:].reshape(grid), ax=ax, title=title, vmin=0, vmax=1, colorbar=False
            )
            ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, ec="red", lw=3))
    fig.colorbar(
        map_axes[0][0].images[0], ax=sum(map_axes, []), fraction=0.02, pad=0.02, label="attention weight"
    )
    fig.suptitle(
        f"Trained ViT: the prediction token's attention over the {weights.shape[2] - 1} patches, per block and head"
    )
    return fig


def show_attention_map(
    picture: Array,
    maps: Array,
    block: int,
    head: int,
    others: bool = True,
    patch: int = 20,
    shown: str = "the picture",
) -> Figure:
    """Multi-panel: the picture with its numbered patches, beside one head's full attention map (query token by
    key token, token 0 the prediction token, thin lines between it and each row of patches) drawn large, and,
    with ``others``, the block's other heads drawn small, all on one colour range.

    Args:
        picture: (H, W).
        maps: (blocks, heads, tokens, tokens), row = query token, column = key token.
        block, head: 0-based, the head drawn large.
        shown: what ``picture`` is, as the titles name it (e.g. "the held-out scene").

    Returns:
        The figure.
    """
    img = _image(picture, "picture")
    m = as_numpy(maps, "maps")
    if m.ndim != 4:
        raise ValueError(f"maps must be (blocks, heads, tokens, tokens), got shape {m.shape}")
    block = _index("block", block, m.shape[0], "blocks")
    head = _index("head", head, m.shape[1], "heads")
    patch = positive_int("patch", patch)
    n_keys = m.shape[-1]
    cols = img.shape[1] // patch
    rest = [h for h in range(m.shape[1]) if h != head] if others else []
    fig = plt.figure(figsize=(14 if rest else 11, 6.4), layout="constrained")
    grid_spec = fig.add_gridspec(
        max(len(rest), 1), 3 if rest else 2, width_ratios=[1.6, 2.3, 0.8][: 3 if rest else 2]
    )
    picture_ax = fig.add_subplot(grid_spec[:, 0])
    show_picture(img, ax=picture_ax, title=f"{shown}: patch p is token p + 1", colorbar=False)
    draw_patch_grid(picture_ax, img.shape[0], img.shape[1], patch)
    top = float(m[block].max())  # one colour range for every head of the block
    map_axes = [fig.add_subplot(grid_spec[:, 1])] + [
        fig.add_subplot(grid_spec[i, 2]) for i in range(len(rest))
    ]
    for ax, h in zip(map_axes, [head] + rest, strict=True):
        large = h == head
        show_matrix(
            m[block, h],
            ax,
            f"block {block}, head {h}" if large else f"head {h}",
            "key token" if large else "key",
            "query token" if large else "query",
            "magma",
            0,
            top,
            False,
            "equal",
        )
        ticks = range(n_keys) if large else range(0, n_keys, 5)
        ax.set_xticks(ticks, [str(t) for t in ticks], fontsize=10 if large else 7)
        ax.set_yticks(ticks, [str(t) for t in ticks], fontsize=10 if large else 7)
        for edge in np.arange(0.5, n_keys - 1, cols):  # token 0 | each row of patches
            ax.axhline(edge, color="white", lw=0.6, alpha=0.6)
            ax.axvline(edge, color="white", lw=0.6, alpha=0.6)
    fig.colorbar(map_axes[0].images[0], ax=map_axes, fraction=0.03, pad=0.02, label="attention weight")
    fig.suptitle(f"Shipped ViT, block {block}: attention weights on {shown} (token 0: the prediction token)")
    return fig


def show_data_scale(
    runs: Sequence[dict],
    models: dict[str, str],
    ax: Axes | None = None,
    x: str = "train_size",
    chance: float | None = 0.5,
    title: str = "",
) -> Axes:
    """Held-out accuracy against training-set size (or ``x``, another number each run stores), one line per model:
    the mean over the seeds of each setting, with a bar from the lowest to the highest seed. Against another
    ``x`` the runs are grouped by training-set size too, so a bar never spans sizes; sizes that share one value
    of ``x`` (one budget) are drawn as separate points at that value.

    Against training-set size each model's points sit a little to the side of the size (the ticks), in the
    legend's order, so that two models with equal means stay visible; the y axis has light gridlines.

    Args:
        runs: records as :mod:`vitcourse.datascale` stores them (``model``, ``accuracy`` and ``x`` in each).
        models: the models to draw, name -> label, in the legend's order; each must have runs.
        ax: the axes to draw on (a new figure when None).
        x: the record's key for the horizontal axis, drawn on a log scale ("train_size" or "multiply_adds").
        chance: a dotted line at this accuracy (None: none).
        title: the axes title.

    Returns:
        The axes.
    """
    _axes(ax)
    if isinstance(runs, str | dict) or not isinstance(runs, Sequence) or not runs:
        raise TypeError("runs must be a non-empty list of run records (dicts), e.g. data_scale.json's 'runs'")
    if not all(isinstance(r, dict) and {"model", "accuracy", x} <= set(r) for r in runs):
        raise ValueError(f"every run must be a dict with 'model', 'accuracy' and {x!r}")
    if not isinstance(models, dict) or not models:
        raise TypeError("models must be a non-empty dict of model name -> label, e.g. {'vit': 'ViT'}")
    missing = [m for m in models if not any(r["model"] == m for r in runs)]
    if missing:
        raise ValueError(f"models {missing} have no runs; the runs hold {sorted({r['model'] for r in runs})}")
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 4))
    markers = "osD^vP*X"
    # the seeds of one setting make a point and its bar: runs are grouped by x and, where x is not the size, by
    # training-set size too (one budget can serve several sizes: then one column of points, one per size)
    by_size = x != "train_size" and all("train_size" in r for r in runs)
    for k, (name, label) in enumerate(models.items()):
        mine = [r for r in runs if r["model"] == name]
        keys = sorted({(r[x], r["train_size"] if by_size else 0) for r in mine})
        acc = [
            [r["accuracy"] for r in mine if (r[x], r["train_size"] if by_size else 0) == key] for key in keys
        ]
        mean = np.array([np.mean(a) for a in acc])
        low = mean - np.array([min(a) for a in acc])
        high = np.array([max(a) for a in acc]) - mean
        values = [key[0] for key in keys]
        shared = len(set(values)) < len(values)  # several sizes at one x: points, no line between them
        if x == "train_size":  # each model a little to the side, so that equal points do not hide each other
            values = [v * 2 ** (0.05 * (k - (len(models) - 1) / 2)) for v in values]
        ax.errorbar(
            values, mean, yerr=[low, high], marker=markers[k % len(markers)], capsize=3, label=label,
            ls="none" if shared else "-",
        )  # fmt: skip
    if chance is not None:
        ax.axhline(chance, color="grey", ls=":", lw=1, label=f"chance ({chance:g})")
    ax.set_xscale("log", base=2 if x == "train_size" else 10)
    if x == "train_size":  # the sizes themselves as ticks
        shown = sorted({r[x] for r in runs if r["model"] in models})
        ax.set_xticks(shown, [f"{v:,}" for v in shown])
        ax.minorticks_off()
    ax.set_xlabel({"train_size": "training pictures", "multiply_adds": "training multiply-adds"}.get(x, x))
    ax.set_ylabel("held-out accuracy")
    ax.grid(axis="y", alpha=0.3)
    ax.set_title(
        title or "held-out accuracy against training images (mean of the seeds; bars: lowest to highest)"
    )
    ax.legend(fontsize=8)
    return ax


def show_picture_regions(
    picture: Array, regions: dict[str, tuple[slice, slice]], title: str = "Mountain at Dusk"
) -> Figure:
    """Multi-panel: a (H, W) picture with each named region's box of pixels outlined in orange and labelled,
    beside a level bar: one swatch per grey level at its value (a picture with many levels gets a plain bar) and a
    red line at one half, with a visible gap between the line and the swatches nearest it."""
    from matplotlib import patheffects

    img = _image(picture, "picture")
    levels = np.unique(img)
    fig, (ax, bar) = plt.subplots(1, 2, figsize=(8, 4), width_ratios=(12, 1))
    show_picture(img, ax=ax, title=title, colorbar=False)
    outline = [patheffects.withStroke(linewidth=2.5, foreground="black")]  # readable on white and on purple
    for name, (
        rows,
        cols,
    ) in regions.items():  # inset a little, so that a box on the frame still reads as a box
        ax.add_patch(
            Rectangle(
                (cols.start + 0.25, rows.start + 0.25),
                cols.stop - cols.start - 0.5,
                rows.stop - rows.start - 0.5,
                fill=False,
                ec="orange",
                lw=1.5,
            )
        )
        ax.text(cols.start + 1, rows.stop + 0.5, name, color="orange", fontsize=9, va="top",
                fontweight="bold", path_effects=outline)  # fmt: skip
    bar.set_ylim(-0.05, 1.05)
    bar.set_xticks([])
    if len(levels) <= 16:  # separate swatches on no background, like a legend, each with a black edge
        bar.set_facecolor("none")
        for spine in bar.spines.values():
            spine.set_visible(False)
        for level in levels:
            bar.add_patch(
                Rectangle((0, level - 0.03), 1, 0.06, fc=plt.get_cmap(CMAP)(level), ec="black", lw=0.8)
            )
        bar.set_yticks(levels, [f"{v:.2f}" for v in levels])
    else:
        bar.imshow(
            np.linspace(0, 1, 256)[:, None], cmap=CMAP, aspect="auto", extent=(0, 1, 0, 1), origin="lower"
        )
    bar.axhline(0.5, color="red", lw=1.5, ls="--")
    bar.yaxis.tick_right()
    bar.set_title("red: ½", fontsize=9, color="red")
    bar.set_ylabel("brightness (one swatch per grey level)", fontsize=9)
    bar.yaxis.set_label_position("right")
    return fig


def mark_token_spans(ax: Axes, spans: Sequence[tuple[int, int, int, int, str]], color: str = "lime") -> Axes:
    """Outline spans of a token matrix drawn by ``show_token_matrix_exact``: each span is ``(first token, last
    token, first position, last position, label)``, both ends included; the label is written beside the box, at
    its right (at its left where the box reaches the right edge), in ``color`` with a black outline."""
    from matplotlib import patheffects

    outline = [patheffects.withStroke(linewidth=2.5, foreground="black")]
    right_edge = max(ax.get_xlim())
    for t0, t1, q0, q1, label in spans:
        ax.add_patch(Rectangle((q0 - 0.5, t0 - 0.5), q1 - q0 + 1, t1 - t0 + 1, fill=False, ec=color, lw=2,
                               clip_on=False))  # fmt: skip
        at_left = q1 + 0.1 * right_edge > right_edge  # no room at the right
        ax.text(
            q0 - 3 if at_left else q1 + 3,
            (t0 + t1) / 2,
            label,
            color=color,
            fontsize=9,
            fontweight="bold",
            va="center",
            ha="right" if at_left else "left",
            path_effects=outline,
            clip_on=False,
        )
    return ax


def show_token_steps(
    picture: Array,
    patches: Array,
    steps: dict[str, tuple[Array, str]],
    patch_size: int,
    title: str = "",
) -> Figure:
    """One picture through a ViT, step by step: on top the (H, W) picture with its numbered patch grid and its
    (N, P*P*C) flattened patches on the picture's scale; below, one panel per entry of ``steps`` (name ->
    (tokens of shape (rows, D), the rows' label)), each on a red-blue scale centred at 0 with its own range."""
    if not isinstance(steps, dict) or len(steps) < 2:
        raise ValueError("steps must be a dict of two or more entries: name -> (tokens, row label)")
    img = _image(picture, "picture")
    flat = _matrix(patches, "patches")
    top = ["picture"] + ["patches"] * (len(steps) - 1)  # the patches span every column but the first
    fig, axes = plt.subplot_mosaic([top, list(steps)], figsize=(12, 6.4), layout="constrained")
    numbers = f"patches 0-{flat.shape[0] - 1}"
    show_picture(img, ax=axes["picture"], title=f"the picture {img.shape}, {numbers}", colorbar=False)
    draw_patch_grid(axes["picture"], *img.shape, patch_size)  # numbered row by row, from 0
    show_matrix(flat, ax=axes["patches"], title=f"patches {flat.shape}", xlabel="entry (pixel of the patch)",
                ylabel="patch", vmin=0, vmax=1, label="brightness")  # fmt: skip
    for name, (values, row_name) in steps.items():
        m = _matrix(values, name)
        limit = float(np.abs(m).max()) or 1.0  # each panel's own range, centred at 0
        shown = axes[name].imshow(
            m, aspect="auto", cmap="RdBu_r", vmin=-limit, vmax=limit, interpolation="nearest"
        )
        axes[name].set_title(f"{name}\n{m.shape}", fontsize=10)
        axes[name].set(xlabel="entry", ylabel=row_name)
        fig.colorbar(shown, ax=axes[name], fraction=0.05, label="entry value, own range")
    for name in ["patches", *steps]:
        axes[name].yaxis.set_major_locator(MaxNLocator(integer=True))
    fig.suptitle(title)
    return fig
