"""plots.show_token_steps: notebook 07's figure of one picture through a ViT, step by step."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from vitcourse import plots


def test_the_figure_has_one_labelled_panel_per_step_and_a_colour_bar_each() -> None:
    picture = torch.rand(60, 100)
    patches = torch.rand(15, 400)
    steps = {"tokens": (torch.randn(15, 8), "patch"), "after": (torch.randn(16, 8), "token")}
    fig = plots.show_token_steps(picture, patches, steps, patch_size=20, title="t")
    titles = [ax.get_title() for ax in fig.axes]
    assert "tokens\n(15, 8)" in titles and "after\n(16, 8)" in titles and "patches (15, 400)" in titles
    labelled = {ax.get_title(): ax.get_ylabel() for ax in fig.axes}
    assert labelled["tokens\n(15, 8)"] == "patch" and labelled["after\n(16, 8)"] == "token"
    bars = [ax for ax in fig.axes if ax.get_label() == "<colorbar>"]
    assert len(bars) == 3  # the patches and the two token panels
    token_image = next(ax for ax in fig.axes if ax.get_title() == "after\n(16, 8)").images[0]
    assert token_image.norm.vmin == -token_image.norm.vmax  # centred at 0
    plt.close(fig)


def test_empty_steps_are_refused() -> None:
    with pytest.raises(ValueError, match="steps"):
        plots.show_token_steps(torch.rand(60, 100), torch.rand(15, 400), {}, patch_size=20)
