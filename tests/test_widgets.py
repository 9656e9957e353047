import io

import matplotlib

matplotlib.use("Agg")  # unit tests only; the notebooks keep the inline backend

import matplotlib.pyplot as plt
import numpy as np
import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st
from PIL import Image

from vitcourse import load_mountains, plots, tokens, widgets

PICTURE = load_mountains()


def pixels(png: bytes) -> np.ndarray:
    return np.asarray(Image.open(io.BytesIO(png)).convert("RGB"), dtype=np.int16)


def assert_same_picture(drawing: widgets.Drawing) -> None:
    """The incremental rendering shows what one ordinary full draw shows (up to where artists overlap)."""
    fast, full = pixels(drawing.png()), pixels(drawing.full_png())
    assert fast.shape == full.shape
    assert (np.abs(fast - full).max(axis=-1) > 40).mean() < 0.01


def test_valid_patch_sizes() -> None:
    assert widgets.valid_patch_sizes(60, 100) == [1, 2, 4, 5, 10, 20]


@pytest.mark.parametrize("patch", widgets.valid_patch_sizes(60, 100))
def test_patch_view(patch: int) -> None:
    fig, summary = widgets.patch_view(PICTURE, patch)
    count = tokens.count_tokens(60, 100, patch, patch, 0)
    assert f"= {count.total} tokens of length {patch * patch}" in summary
    assert all(ax.get_title() for ax in fig.axes if ax.get_label() != "<colorbar>")
    assert all(ax.get_xlabel() and ax.get_ylabel() for ax in fig.axes[:2])


def test_patch_view_refuses_with_a_sentence() -> None:
    fig, summary = widgets.patch_view(PICTURE, 7)
    assert fig is None and "does not divide" in summary


def test_patch_drawing_changes_with_the_patch_size_and_matches_a_full_draw() -> None:
    drawing = widgets.PatchDrawing(PICTURE)
    seen = set()
    for patch in (20, 10, 4, 20):
        drawing.update(patch=patch)
        seen.add(drawing.png())
        assert_same_picture(drawing)
    assert len(seen) == 3  # 20 again gives the first picture back
    drawing.update(patch=20)
    image = drawing.tokens.get_array()
    assert image.shape == (15, 400)
    expected = tokens.patchify(torch.as_tensor(PICTURE, dtype=torch.float32)[None, None], 20)[0]
    np.testing.assert_array_equal(np.asarray(image), expected.numpy())


@settings(max_examples=40, deadline=None)
@given(kernel=st.integers(1, 100), stride=st.integers(1, 50), padding=st.integers(0, 20))
def test_soft_split_view_never_raises(kernel: int, stride: int, padding: int) -> None:
    fig, summary = widgets.soft_split_view(PICTURE, kernel, stride, padding)
    if kernel > min(60, 100) + 2 * padding:
        assert fig is None and summary.startswith("No tokens")
    else:
        total = tokens.count_tokens(60, 100, kernel, stride, padding).total
        assert f"= {total} tokens" in summary and "nn.Unfold agrees" in summary


@settings(max_examples=25, deadline=None)
@given(kernel=st.integers(1, 60), stride=st.integers(1, 30), padding=st.integers(0, 20))
def test_soft_split_drawing_shows_the_token_matrix_and_every_window(
    kernel: int, stride: int, padding: int
) -> None:
    drawing = widgets.SoftSplitDrawing(PICTURE)
    drawing.update(kernel=kernel, stride=stride, padding=padding)
    toks = tokens.soft_split(
        torch.as_tensor(PICTURE, dtype=torch.float32)[None, None], kernel, stride, padding
    )[0].numpy()
    rows, cols = widgets._sample(toks.shape[0]), widgets._sample(toks.shape[1])
    np.testing.assert_array_equal(np.asarray(drawing.tokens.get_array()), toks[np.ix_(rows, cols)])
    # the merged outline segments cover exactly the edges of every window
    corners = tokens.window_corners(60, 100, kernel, stride, padding)
    covered = set()
    for (x0, y0), (x1, y1) in drawing.windows.get_segments():
        if y0 == y1:
            covered |= {("h", y0, x) for x in range(int(x0), int(x1))}
        else:
            covered |= {("v", x0, y) for y in range(int(y0), int(y1))}
    edges = set()
    for r, c in corners.tolist():
        for y in (r, r + kernel):
            edges |= {("h", y, x) for x in range(c, c + kernel)}
        for x in (c, c + kernel):
            edges |= {("v", x, y) for y in range(r, r + kernel)}
    assert covered == edges


def test_soft_split_drawing_changes_with_every_slider() -> None:
    drawing = widgets.SoftSplitDrawing(PICTURE)
    drawing.update(kernel=20, stride=10, padding=5)
    before = drawing.png()
    for change in ({"kernel": 21}, {"stride": 11}, {"padding": 6}):
        drawing.update(**{"kernel": 20, "stride": 10, "padding": 5, **change})
        assert drawing.png() != before, change
        assert_same_picture(drawing)


@pytest.mark.parametrize(
    "bad, error",
    [
        (np.zeros((0, 0)), ValueError),
        (np.zeros((2, 3, 4)), ValueError),
        ([[0.0, 1.0]], TypeError),
        (None, TypeError),
    ],
)
def test_bad_pictures_are_refused_naming_the_parameter(bad: object, error: type) -> None:
    for explorer in (widgets.patch_explorer, widgets.soft_split_explorer, widgets.patch_view):
        with pytest.raises(error, match="picture"):
            explorer(bad) if explorer is not widgets.patch_view else explorer(bad, 20)


def test_explorers_build_and_redraw() -> None:
    patch = widgets.patch_explorer(PICTURE)
    assert patch.controls["patch"].options == (1, 2, 4, 5, 10, 20)
    assert repr(patch) == "patch-size explorer: P = 20: 3 x 5 = 15 tokens of length 400"
    first = patch.image.value
    patch.controls["patch"].value = 10
    assert patch.image.value != first and "60 tokens" in repr(patch) and patch.renders == 2
    split = widgets.soft_split_explorer(torch.as_tensor(PICTURE))
    assert list(split.controls) == ["kernel", "stride", "padding"]
    split.controls["kernel"].value = 80  # no window fits: a sentence, the picture hidden
    assert "No tokens" in split.summary.value and split.image.layout.display == "none"
    split.controls["kernel"].value = 20
    assert split.image.layout.display is None and "= 60 tokens" in split.summary.value


def test_an_exception_in_a_drawing_becomes_a_sentence(monkeypatch: pytest.MonkeyPatch) -> None:
    split = widgets.soft_split_explorer(PICTURE)

    def broken(**settings: object) -> str:
        raise RuntimeError("out of memory")

    monkeypatch.setattr(split.drawing, "update", broken)
    split.controls["stride"].value = 11
    assert "could not be drawn: RuntimeError: out of memory" in split.summary.value
    assert split.image.layout.display == "none"


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
        hints = typing.get_type_hints(explorer, vars(widgets) | {"ipywidgets": ipywidgets})
        assert hints["return"] is ipywidgets.VBox
    assert isinstance(widgets.patch_explorer(PICTURE), ipywidgets.VBox)
    plt.close("all")
