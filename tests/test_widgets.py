import matplotlib

matplotlib.use("Agg")  # unit tests only; the notebooks keep the inline backend

import matplotlib.pyplot as plt
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from vitcourse import load_mountains, plots, tokens, widgets

PICTURE = load_mountains()


def test_valid_patch_sizes() -> None:
    assert widgets.valid_patch_sizes(60, 100) == [1, 2, 4, 5, 10, 20]


@pytest.mark.parametrize("patch", widgets.valid_patch_sizes(60, 100))
def test_patch_view(patch: int) -> None:
    fig, summary = widgets.patch_view(PICTURE, patch)
    count = tokens.count_tokens(60, 100, patch, patch, 0)
    assert f"= {count.total} tokens of length {patch * patch}" in summary
    assert all(ax.get_title() for ax in fig.axes if ax.get_label() != "<colorbar>")
    plt.close(fig)


def test_patch_view_refuses_with_a_sentence() -> None:
    fig, summary = widgets.patch_view(PICTURE, 7)
    assert fig is None and "does not divide" in summary


@settings(max_examples=40, deadline=None)
@given(kernel=st.integers(1, 100), stride=st.integers(1, 50), padding=st.integers(0, 20))
def test_soft_split_view_never_raises(kernel: int, stride: int, padding: int) -> None:
    fig, summary = widgets.soft_split_view(PICTURE, kernel, stride, padding)
    if kernel > min(60, 100) + 2 * padding:
        assert fig is None and summary.startswith("No tokens")
    else:
        total = tokens.count_tokens(60, 100, kernel, stride, padding).total
        assert f"= {total} tokens" in summary and "nn.Unfold agrees" in summary
        plt.close(fig)


def test_explorers_build() -> None:
    assert widgets.patch_explorer(PICTURE).children[0].options == (1, 2, 4, 5, 10, 20)
    assert len(widgets.soft_split_explorer(torch.as_tensor(PICTURE)).children) == 4  # 3 sliders + output


def test_animation_is_deterministic_and_complete() -> None:
    import imageio.v3 as iio

    gif = plots.soft_split_animation(PICTURE, 20, 10, 5)
    assert gif == plots.soft_split_animation(PICTURE, 20, 10, 5)
    frames = iio.imread(gif, extension=".gif", index=None)
    assert frames.shape == (60, 70 * 3, 110 * 3, 3)
    meta = iio.immeta(gif, extension=".gif")
    assert meta["duration"] == 500 and meta["loop"] == 0


def test_explorers_are_annotated_with_the_widget_class() -> None:
    import typing

    import ipywidgets

    for explorer in (widgets.patch_explorer, widgets.soft_split_explorer):
        assert typing.get_type_hints(explorer, vars(widgets) | {"ipywidgets": ipywidgets})["return"] is (
            ipywidgets.interactive
        )
    assert isinstance(widgets.patch_explorer(PICTURE), ipywidgets.interactive)
