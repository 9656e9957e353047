"""The check both diagram test modules use: every fill colour a diagram draws is named by its legend.

Not a test module (pytest collects only files named test_*.py).
"""

from __future__ import annotations

from matplotlib.axes import Axes


def colours_without_a_key(ax: Axes, with_circles: bool = True) -> set[str]:
    """The fill colours of the diagram's boxes (and circles, unless ``with_circles`` is False) that its legend
    does not name: empty when all are named."""
    from matplotlib.colors import to_hex
    from matplotlib.patches import Circle, FancyBboxPatch, Patch

    legend = ax.get_legend()
    assert legend is not None, "the diagram has no legend for its colours"
    named = {
        to_hex(handle.get_facecolor())
        for handle, text in zip(legend.legend_handles, legend.get_texts(), strict=True)
        if isinstance(handle, Patch) and text.get_text().strip()
    }
    shapes = FancyBboxPatch | Circle if with_circles else FancyBboxPatch
    used = {to_hex(p.get_facecolor()) for p in ax.patches if isinstance(p, shapes)}
    assert used, "the diagram draws no boxes"
    return used - named
