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
from matplotlib.colors import Colormap
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from ._validate import instance_of, positive_int

__all__ = [
    "CMAP",
    "as_numpy",
    "show_picture",
    "draw_patch_grid",
    "draw_windows",
    "show_matrix",
    "show_token_strip",
]

CMAP = "Purples_r"

#: What the figure functions accept as data: a tensor (any device; detached and copied) or a numpy array.
Array = torch.Tensor | np.ndarray


def as_numpy(x: torch.Tensor | np.ndarray, name: str = "x") -> np.ndarray:
    """A CPU numpy copy of a tensor (detached), or the array itself; ``name`` is the argument named in errors.

    Raises:
        TypeError: ``x`` is neither a tensor nor an array of real numbers (None, a string, complex numbers).
    """
    if isinstance(x, torch.Tensor):
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
    img = as_numpy(picture, "picture").squeeze()
    if img.ndim != 2:
        raise ValueError(f"picture must be (H, W) after squeezing, got shape {img.shape}")
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
    ax: Axes, height: int, width: int, patch: int, numbers: bool | Sequence[int] = True, color: str = "k"
) -> Axes:
    """Overlay: draw the P x P patch grid over a picture on ``ax`` and number the patches 1, 2, ... row by row.

    ``numbers`` may instead give the label of each grid cell, row by row (e.g. the original number of each
    patch of a scrambled picture); ``False`` draws no labels.
    """
    _axes(ax, required=True)
    positive_int("height", height)
    positive_int("width", width)
    positive_int("patch", patch)
    for r in range(0, height + 1, patch):
        ax.axhline(r, color=color, lw=1.2)
    for c in range(0, width + 1, patch):
        ax.axvline(c, color=color, lw=1.2)
    if numbers is False:
        return ax
    cells = [(r, c) for r in range(0, height - patch + 1, patch) for c in range(0, width - patch + 1, patch)]
    labels = range(1, len(cells) + 1) if numbers is True else numbers
    box = {"boxstyle": "round,pad=0.15", "fc": "white", "alpha": 0.75, "lw": 0}
    for (r, c), label in zip(cells, labels, strict=True):
        ax.text(c + patch / 2, r + patch / 2, str(label), ha="center", va="center", fontsize=9, bbox=box)
    return ax


def draw_windows(
    ax: Axes, corners: np.ndarray, kernel: int, highlight: int | None = None, color: str = "tab:orange"
) -> Axes:
    """Overlay: outline sliding windows on ``ax`` given their top-left (row, col) corners; ``highlight`` fills one."""
    _axes(ax, required=True)
    positive_int("kernel", kernel)
    if as_numpy(corners, "corners").ndim != 2 or np.shape(corners)[-1] != 2:
        raise ValueError(f"corners must be an (N, 2) array of (row, col), got shape {np.shape(corners)}")
    for i, (r, c) in enumerate(np.asarray(corners)):
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
    m = as_numpy(matrix, "matrix")
    if m.ndim != 2:
        raise ValueError(f"matrix must be 2-D, got shape {m.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(7, 3.5))
    im = ax.imshow(m, cmap=cmap, vmin=vmin, vmax=vmax, aspect=aspect, interpolation="nearest")
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    if colorbar:
        plt.colorbar(im, ax=ax, fraction=0.03, pad=0.02, label=label)
    return ax


def show_token_strip(token: torch.Tensor | np.ndarray, ax: Axes | None = None, title: str = "") -> Axes:
    """One token drawn as a 1-pixel-high strip, with its entries along the x axis."""
    _axes(ax)
    t = as_numpy(token, "token").reshape(1, -1)
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


def soft_split_frames(
    picture: torch.Tensor | np.ndarray, kernel: int, stride: int, padding: int, scale: int = 3
) -> list[np.ndarray]:
    """The frames of the soft-split animation: on the zero-padded picture, windows appear one by one.

    Frame i outlines windows 0..i and fills window i. Drawn with numpy alone (no fonts, no renderer, so no
    ``ax``), so the frames are the same bytes on every machine.

    Returns:
        One uint8 array of shape ((H + 2p) * scale, (W + 2p) * scale, 3) per token.
    """
    from .tokens import window_corners

    img = as_numpy(picture).squeeze().astype(np.float64)
    corners = window_corners(img.shape[0], img.shape[1], kernel, stride, padding) + padding  # padded coords
    padded = np.pad(img, padding)
    base = np.kron(_colorize(padded), np.ones((scale, scale, 1), dtype=np.uint8))  # (Hp*s, Wp*s, 3)
    outline = np.array([255, 140, 0], dtype=np.uint8)  # orange
    frames = []
    canvas = base.copy()
    for r, c in corners:
        r0, c0, r1, c1 = r * scale, c * scale, (r + kernel) * scale - 1, (c + kernel) * scale - 1
        canvas[r0, c0 : c1 + 1] = outline
        canvas[r1, c0 : c1 + 1] = outline
        canvas[r0 : r1 + 1, c0] = outline
        canvas[r0 : r1 + 1, c1] = outline
        frame = canvas.copy()
        inner = frame[r0 + 1 : r1, c0 + 1 : c1].astype(np.uint16)
        frame[r0 + 1 : r1, c0 + 1 : c1] = ((inner + outline) // 2).astype(np.uint8)  # current window, tinted
        frames.append(frame)
    return frames


def soft_split_animation(
    picture: torch.Tensor | np.ndarray,
    kernel: int,
    stride: int,
    padding: int,
    scale: int = 3,
    frames_per_second: float = 2.0,
) -> bytes:
    """A looping GIF, built in memory, of the soft-split windows appearing one by one (see :func:`soft_split_frames`).

    Returns the GIF's bytes (no ``ax``: a notebook shows them with ``IPython.display.Image``).
    """
    import imageio.v3 as iio

    frames = soft_split_frames(picture, kernel, stride, padding, scale)
    return iio.imwrite(
        "<bytes>", np.stack(frames), extension=".gif", duration=1000.0 / frames_per_second, loop=0
    )


def show_similarity_grid(
    sims: torch.Tensor | np.ndarray, title: str = "", vmin: float = -1.0, vmax: float = 1.0
) -> Figure:
    """Show a (rows, cols, rows, cols) similarity grid as rows x cols small maps, one per patch.

    Map (r, c) shows how similar patch (r, c)'s position vector is to every patch's; it is drawn in the place of
    patch (r, c) on the patch grid. A multi-panel figure: it makes its own grid of Axes with one shared colorbar,
    so it takes no ``ax`` and returns the Figure.
    """
    s = as_numpy(sims)
    if s.ndim != 4 or s.shape[:2] != s.shape[2:]:
        raise ValueError(f"sims must have shape (rows, cols, rows, cols), got {s.shape}")
    rows, cols = s.shape[:2]
    fig, axes = plt.subplots(rows, cols, figsize=(1.7 * cols + 1.2, 1.2 * rows + 0.8), squeeze=False)
    im = None
    for r in range(rows):
        for c in range(cols):
            ax = axes[r, c]
            im = ax.imshow(s[r, c], cmap="RdBu_r", vmin=vmin, vmax=vmax)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_title(f"patch {r * cols + c + 1}", fontsize=8)
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
    img = as_numpy(picture).squeeze()
    w = as_numpy(weights)
    h_img, w_img = img.shape
    rows, cols = h_img // patch, w_img // patch
    if w.ndim != 2 or w.shape[1] != rows * cols:
        raise ValueError(f"weights must be (heads, {rows * cols}), got shape {w.shape}")
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
    if ax is None:
        _, ax = plt.subplots(figsize=(9, 3))
    ax.plot(range(len(lrs)), list(lrs), color="tab:purple")
    ax.axvline(warmup, color="grey", ls=":", label=f"end of warm-up (step {warmup})")
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
        label: the colorbar's label; the colorbar has one colour and one tick per count.

    Returns:
        The axes.
    """
    _axes(ax)
    m = as_numpy(counts, "counts").squeeze()
    if m.ndim != 2:
        raise ValueError(f"counts must be (H, W) after squeezing, got shape {m.shape}")
    low, high = int(m.min()), int(m.max())
    discrete = plt.get_cmap("viridis", high - low + 1)  # one colour per count
    ax = show_matrix(
        m, ax=ax, title=title, cmap=discrete, vmin=low - 0.5, vmax=high + 0.5, colorbar=False, aspect="equal"
    )
    _ticks(ax, *m.shape)
    plt.colorbar(ax.images[-1], ax=ax, fraction=0.03, pad=0.02, label=label, ticks=range(low, high + 1))
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
        values: (rows, cols), patch (r, c) in row r, column c; patches are numbered 1, 2, ... row by row.
        ax: the axes to draw on (a new figure when None).
        title: the axes title.
        vmin, vmax: the colour range (vmax None: the largest value); pass the same range to panels compared.
        label: the colorbar's label.
        colorbar: draw a colorbar beside these axes (False when the figure draws one shared colorbar).

    Returns:
        The axes.
    """
    _axes(ax)
    m = as_numpy(values, "values")
    if m.ndim != 2:
        raise ValueError(f"values must be (rows, cols), got shape {m.shape}")
    if ax is None:
        _, ax = plt.subplots(figsize=(4, 2.6))
    top = float(m.max()) if vmax is None else vmax
    show_matrix(m, ax, title, "patch column", "patch row", "magma", vmin, top, colorbar, "equal", label)
    rows, cols = m.shape
    for r in range(rows):
        for c in range(cols):
            dark = m[r, c] < vmin + 0.6 * (top - vmin)
            colour = "white" if dark else "black"
            ax.text(c, r, f"{m[r, c]:.2f}", ha="center", va="center", fontsize=8, color=colour)
    ax.set_xticks(range(cols), [str(c + 1) for c in range(cols)])
    ax.set_yticks(range(rows), [str(r + 1) for r in range(rows)])
    return ax
