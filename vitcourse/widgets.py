"""Interactive explorers for the notebooks, built on ipywidgets.

Each explorer is a thin widget around a plain *view* function that takes the settings and returns the figure
and a one-line summary. The view functions are what the tests call; an impossible setting makes a view return
``None`` for the figure and a sentence saying why, so a widget shows the sentence, never a traceback.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import matplotlib.pyplot as plt
import numpy as np
import torch
from matplotlib.axes import Axes
from matplotlib.collections import PatchCollection
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from . import plots
from ._validate import common_divisors, listing
from .data import to_tensor
from .tokens import count_tokens, patchify, soft_split, window_corners

if TYPE_CHECKING:  # ipywidgets is imported only when an explorer is built
    import ipywidgets

__all__ = ["valid_patch_sizes", "patch_view", "patch_explorer", "soft_split_view", "soft_split_explorer"]


def valid_patch_sizes(height: int, width: int) -> list[int]:
    """Patch sizes that divide both sides of an ``height x width`` image, ascending (cached, O(sqrt n) to build)."""
    return common_divisors(height, width)


def patch_view(picture: np.ndarray, patch: int) -> tuple[Figure | None, str]:
    """The picture with its patch grid and the token matrix for patch size ``patch``.

    Returns:
        (figure, summary); the figure is None and the summary says why when ``patch`` does not divide the picture.
    """
    height, width = picture.shape
    sizes = valid_patch_sizes(height, width)
    if patch not in sizes:
        return None, (
            f"A patch size of {patch} does not divide the {height} x {width} picture; "
            f"choose one of {listing(sizes)}."
        )
    toks = patchify(to_tensor(picture), patch)[0]  # (N, P*P)
    count = count_tokens(height, width, patch, patch, 0)
    summary = f"P = {patch}: {count.rows} x {count.cols} = {count.total} tokens of length {toks.shape[1]}"
    fig, ax_pic = _picture_and_tokens(
        picture, toks, f"patches of {patch} x {patch}", "token index (patch number - 1)"
    )
    plots.draw_patch_grid(ax_pic, height, width, patch, numbers=count.total <= 60)
    return fig, summary


def soft_split_view(picture: np.ndarray, kernel: int, stride: int, padding: int) -> tuple[Figure | None, str]:
    """The windows of a soft split on the padded picture, its token grid and its token matrix.

    The token count comes from :func:`count_tokens` and is checked against ``nn.Unfold``.

    Returns:
        (figure, summary); the figure is None and the summary says why when the setting gives no tokens.
    """
    height, width = picture.shape
    try:
        count = count_tokens(height, width, kernel, stride, padding)
    except (ValueError, TypeError) as err:
        return None, f"No tokens: {err}."
    toks = soft_split(to_tensor(picture), kernel, stride, padding)[0]  # (N, k*k)
    if toks.shape[0] != count.total:  # the formula and nn.Unfold must agree
        raise AssertionError(f"count_tokens says {count.total}, nn.Unfold made {toks.shape[0]}")
    summary = (
        f"kernel {kernel}, stride {stride}, padding {padding}: padded {height + 2 * padding} x "
        f"{width + 2 * padding}, {count.rows} x {count.cols} = {count.total} tokens of length {toks.shape[1]} "
        f"(nn.Unfold agrees)"
    )
    title = f"{count.total} windows of {kernel} x {kernel}"
    fig, ax_pic = _picture_and_tokens(np.pad(picture, padding), toks, title, "token index", offset=-padding)
    corners = window_corners(height, width, kernel, stride, padding)
    boxes = [Rectangle((c, r), kernel, kernel) for r, c in corners]
    ax_pic.add_collection(PatchCollection(boxes, facecolor="none", edgecolor="tab:orange", linewidth=0.8))
    ax_pic.add_patch(Rectangle((corners[0][1], corners[0][0]), kernel, kernel, color="tab:orange", alpha=0.5))
    return fig, summary


def _picture_and_tokens(
    picture: np.ndarray, toks: torch.Tensor, title: str, token_label: str, offset: float = 0.0
) -> tuple[Figure, Axes]:
    """The two panels every view shows: the picture (left, returned for overlays) and the token matrix (right)."""
    fig, (ax_pic, ax_tok) = plt.subplots(1, 2, figsize=(11, 3.6), gridspec_kw={"width_ratios": [1.3, 1]})
    plots.show_picture(picture, ax=ax_pic, title=title, extent_offset=offset)
    n, length = toks.shape
    plots.show_matrix(
        toks, ax=ax_tok, title=f"token matrix {n} x {length}", xlabel="position in token", ylabel=token_label,
        vmin=0, vmax=1,
    )  # fmt: skip
    fig.subplots_adjust(
        left=0.06, right=0.96, bottom=0.15, top=0.9, wspace=0.3
    )  # fixed: tight_layout costs ~0.2 s
    return fig, ax_pic


def _show(fig: Figure | None, summary: str) -> None:
    print(summary)
    if fig is not None:
        plt.show()


def patch_explorer(picture: np.ndarray | torch.Tensor) -> ipywidgets.interactive:
    """A drop-down of the patch sizes that divide the picture, driving :func:`patch_view`."""
    import ipywidgets as widgets

    picture = plots.as_numpy(picture).squeeze()
    sizes = valid_patch_sizes(*picture.shape)
    default = 20 if 20 in sizes else sizes[-1]
    return widgets.interactive(
        lambda patch: _show(*patch_view(picture, patch)),
        patch=widgets.Dropdown(options=sizes, value=default, description="patch size"),
    )


def soft_split_explorer(picture: np.ndarray | torch.Tensor) -> ipywidgets.interactive:
    """Sliders for kernel, stride and padding, driving :func:`soft_split_view`."""
    import ipywidgets as widgets

    picture = plots.as_numpy(picture).squeeze()
    height, width = picture.shape
    style = {"description_width": "70px"}
    return widgets.interactive(
        lambda kernel, stride, padding: _show(*soft_split_view(picture, kernel, stride, padding)),
        kernel=widgets.IntSlider(value=20, min=1, max=max(height, width), description="kernel", style=style),
        stride=widgets.IntSlider(
            value=10, min=1, max=max(height, width) // 2, description="stride", style=style
        ),
        padding=widgets.IntSlider(value=5, min=0, max=20, description="padding", style=style),
    )
