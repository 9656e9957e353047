"""Diagrams drawn by code: the ViT pipeline, the pre-norm encoder block, the token transformer with its v skip,
and the T2T loop, each labelled with the running shapes of the course's example.

Every diagram is a function that takes an optional ``ax`` and returns it (like :mod:`vitcourse.plots`); the
boxes and arrows come from the two small helpers below, so all diagrams look alike.
"""

from __future__ import annotations

import matplotlib.pyplot as plt
from matplotlib.axes import Axes
from matplotlib.patches import FancyArrowPatch, FancyBboxPatch

__all__: list[str] = []

BOX_COLOURS = {
    "data": "#ede7f6",  # tensors: what flows
    "layer": "#d1c4e9",  # layers with weights
    "op": "#fff3e0",  # operations without weights (reshape, add, softmax)
}


def _canvas(ax: Axes | None, width: float, height: float, figsize: tuple[float, float]) -> Axes:
    """An axes with data coordinates (0..width, 0..height), no ticks or frame: the diagram's drawing board."""
    if ax is None:
        _, ax = plt.subplots(figsize=figsize)
    ax.set_xlim(0, width)
    ax.set_ylim(0, height)
    ax.set_axis_off()
    return ax


def _box(
    ax: Axes, x: float, y: float, w: float, h: float, text: str, kind: str = "layer", fontsize: float = 9
) -> tuple[float, float, float, float]:
    """A rounded box with centred text, lower-left corner (x, y); returns (x, y, w, h) for arrows."""
    ax.add_patch(
        FancyBboxPatch(
            (x, y),
            w,
            h,
            boxstyle="round,pad=0.02,rounding_size=0.08",
            facecolor=BOX_COLOURS[kind],
            edgecolor="#4a148c",
            linewidth=1.0,
        )
    )
    ax.text(x + w / 2, y + h / 2, text, ha="center", va="center", fontsize=fontsize, wrap=True)
    return x, y, w, h


def _arrow(
    ax: Axes,
    start: tuple[float, float],
    end: tuple[float, float],
    label: str = "",
    connectionstyle: str = "arc3",
    fontsize: float = 8,
) -> None:
    """An arrow from ``start`` to ``end``; ``label`` (a shape, say) is written beside its middle."""
    ax.add_patch(
        FancyArrowPatch(
            start, end, arrowstyle="-|>", mutation_scale=10, color="#311b92", connectionstyle=connectionstyle
        )
    )
    if label:
        mx, my = (start[0] + end[0]) / 2, (start[1] + end[1]) / 2
        ax.text(mx + 0.05, my, label, fontsize=fontsize, color="#311b92", ha="left", va="center")


# ----------------------------------------------------------------------------------------------------------
# ViT (notebook 05): vit_pipeline, encoder_block


# ----------------------------------------------------------------------------------------------------------
# Tokens-to-Token (notebook 06): token_transformer, t2t_loop
