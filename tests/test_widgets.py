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

from vitcourse import attention, cost, load_mountains, models, plots, position, tokens, widgets

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
    image = np.asarray(drawing.tokens.get_array())  # 400 positions on a narrower panel: averaged in blocks
    groups = 400 // image.shape[1]
    assert image.shape == (15, 400 // groups) and groups % 2 == 0
    assert 2 * image.shape[1] <= drawing.ax_tok.get_window_extent().width  # two screen pixels a cell at least
    assert f"the mean of {groups} neighbouring positions" in drawing.ax_tok.get_title()
    expected = tokens.patchify(torch.as_tensor(PICTURE, dtype=torch.float32)[None, None], 20)[0]
    np.testing.assert_allclose(image, expected.numpy().reshape(15, -1, groups).mean(-1), rtol=1e-6)
    drawing.update(patch=2)  # grid lines every 2 pixels would cover the picture
    assert not drawing.grid.get_segments() and "no grid lines" in drawing.ax_pic.get_title()


def block_means(matrix: np.ndarray, rows: int, cols: int) -> np.ndarray:
    """Means of consecutive ``rows x cols`` blocks; the last block of a side may be shorter."""
    n, m = matrix.shape
    full = np.full((-(-n // rows) * rows, -(-m // cols) * cols), np.nan)
    full[:n, :m] = matrix
    return np.nanmean(full.reshape(full.shape[0] // rows, rows, full.shape[1] // cols, cols), axis=(1, 3))


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
def test_soft_split_drawing_shows_the_token_matrix_and_three_windows(
    kernel: int, stride: int, padding: int
) -> None:
    drawing = widgets.SoftSplitDrawing(PICTURE)
    drawing.update(kernel=kernel, stride=stride, padding=padding)
    toks = tokens.soft_split(
        torch.as_tensor(PICTURE, dtype=torch.float32)[None, None], kernel, stride, padding
    )[0].numpy()
    box = drawing.ax_tok.get_window_extent()
    rows, cols = widgets._group_size(toks.shape[0], box.height), widgets._group_size(toks.shape[1], box.width)
    assert all(n == 1 or n % 2 == 0 for n in (rows, cols))  # one entry a cell, or an even run of them
    image = np.asarray(drawing.tokens.get_array())
    assert 2 * image.shape[0] <= box.height and 2 * image.shape[1] <= box.width  # two screen pixels a cell
    np.testing.assert_allclose(image, block_means(toks, rows, cols), rtol=1e-5, atol=1e-6)
    # the shaded first window, the next one along its row and the first of the next row, where they exist
    count = tokens.count_tokens(60, 100, kernel, stride, padding)
    corners = tokens.window_corners(60, 100, kernel, stride, padding)
    expected = {drawing.first: 0, drawing.right: 1 if count.cols > 1 else None,
                drawing.below: count.cols if count.rows > 1 else None}  # fmt: skip
    for window, index in expected.items():
        assert window.get_visible() == (index is not None)
        if index is not None:
            assert window.get_xy() == (corners[index][1], corners[index][0])
            assert window.get_width() == window.get_height() == kernel


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
    assert frames.shape[0] == 60 and frames.shape[2:] == (110 * 3, 3)
    assert frames.shape[1] > 70 * 3  # the padded picture, with a caption above and a legend below
    assert len({frame.tobytes() for frame in frames}) == 60  # every frame names and marks its own window
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


def changes_with_each(drawing: widgets.Drawing, base: dict, changes: list[dict]) -> None:
    """Each change of one control changes the picture, and the fast picture matches a full draw."""
    drawing.update(**base)
    before = drawing.png()
    for change in changes:
        drawing.update(**{**base, **change})
        assert drawing.png() != before, change
        assert_same_picture(drawing)
        drawing.update(**base)
        assert drawing.png() == before, f"back to the start after {change}"


def test_position_view_changes_with_every_control_and_refuses_with_sentences() -> None:
    drawing = widgets.PositionDrawing()
    base = {"num_tokens": 176, "dim": 768, "base": 10000.0, "pair": 2, "position": 10}
    changes_with_each(
        drawing, base,
        [{"num_tokens": 100}, {"dim": 400}, {"base": 100.0}, {"pair": 3}, {"position": 11}],
    )  # fmt: skip
    table = np.asarray(drawing.table.get_array())
    np.testing.assert_allclose(
        table, position.sinusoidal_table(176, 768).numpy()[:, widgets.table_columns(768)]
    )
    np.testing.assert_allclose(drawing.sim.get_ydata()[10], 1.0, rtol=1e-6)
    fig, summary = widgets.position_view(15, 400, pair=200)
    assert fig is None and "need a token length d >= 402" in summary
    fig, summary = widgets.position_view(15, 400, position=15)
    assert fig is None and "choose i < 15" in summary
    assert "repeat every 6.283 positions" in widgets.position_view(15, 400, pair=0, position=0)[1]


@settings(max_examples=15, deadline=None)
@given(heads=st.sampled_from(widgets.HEAD_CHOICES), scale=st.sampled_from(widgets.SCALES),
       temperature=st.floats(0.1, 10))  # fmt: skip
def test_attention_weights_match_the_attention_module(heads: int, scale: str, temperature: float) -> None:
    drawing = widgets.AttentionDrawing(PICTURE)
    weights = drawing.weights(heads, scale, temperature)
    module = attention.Attention(400, 64, num_heads=heads, qkv_bias=True)
    module.load_state_dict(drawing.attention.state_dict())
    factor = (64 // heads) ** -0.5 if scale == widgets.SCALES[0] else 1.0
    module.scale = factor / temperature
    x = torch.nn.functional.layer_norm(
        tokens.patchify(torch.as_tensor(PICTURE, dtype=torch.float32)[None, None], 20), (400,)
    )
    expected = module.steps(x)[1].weights[0].double()
    torch.testing.assert_close(weights, expected, atol=1e-5, rtol=1e-4)
    summary = drawing.update(heads=heads, scale=scale, temperature=temperature)
    assert (
        f"{heads} {'head' if heads == 1 else 'heads'} of head_dim {64 // heads}" in summary
        and "qkv 76,992 + proj 4,160" in summary
    )
    assert summary.startswith(f"scale {factor:.3g}, T = {temperature:.3g}: ")


def test_attention_view_changes_with_every_control() -> None:
    drawing = widgets.AttentionDrawing(PICTURE)
    base = {"heads": 4, "scale": widgets.SCALES[0], "temperature": 1.0}
    changes_with_each(drawing, base, [{"heads": 2}, {"heads": 16}, {"scale": "none"}, {"temperature": 2.0}])
    assert widgets.attention_view(PICTURE, heads=3)[0] is None
    assert "must be > 0" in widgets.attention_view(PICTURE, temperature=0.0)[1]
    with pytest.raises(ValueError, match="picture"):
        widgets.attention_view(np.zeros((30, 50)))


@pytest.mark.parametrize(
    "size, stages",
    [((224, 224), tokens.T2T_STAGES), ((60, 100), tokens.T2T_STAGES), ((400, 100), tokens.T2T_STAGES),
     ((37, 81), ((5, 3, 1), (3, 1, 0), (2, 2, 0)))],
)  # fmt: skip
def test_t2t_stage_macs_equal_the_counted_ones(size: tuple[int, int], stages: tuple) -> None:
    module = models.TokensToToken(size, 1, embed_dim=384, stages=stages)
    counted = cost.count_macs(module, torch.zeros(1, 1, *size), depth=1)
    expected = [counted[f"attention{i}"] for i in (1, 2)] + [counted["project"]]
    assert widgets.t2t_stage_macs(*size, stages) == expected


def test_t2t_stages_view() -> None:
    fig, summary = widgets.t2t_stages_view(224, 224)
    assert "56 x 56 = 3136, 28 x 28 = 784, 14 x 14 = 196" in summary
    assert all(ax.get_title() and ax.get_xlabel() and ax.get_ylabel() for ax in fig.axes)
    fig, summary = widgets.t2t_stages_view(8, 8, ((7, 4, 2), (3, 2, 1), (9, 2, 0)))
    assert fig is None and summary.startswith("No tokens at stage 3 (its input is 1 x 1)")
    drawing = widgets.T2TStagesDrawing()
    base = {"height": 224, "width": 224}
    for i, stage in enumerate(tokens.T2T_STAGES, start=1):
        base |= dict(zip((f"kernel{i}", f"stride{i}", f"padding{i}"), stage, strict=True))
    changes = [{"height": 200}, {"width": 100}] + [{f"{n}{i}": base[f"{n}{i}"] + 1} for i in (1, 2, 3)
                                                    for n in ("kernel", "stride", "padding")]  # fmt: skip
    changes_with_each(drawing, base, changes)


def test_model_attention_view_reads_the_model() -> None:
    torch.manual_seed(0)
    model = models.VisionTransformer(embed_dim=32, depth=2, num_heads=2)
    fig, summary = widgets.model_attention_view(model, PICTURE, block=1, head=1)  # blocks count from 0
    expected = model.attention_weights(torch.as_tensor(PICTURE, dtype=torch.float32)[None, None], 1)[0, 1, 0]
    assert summary.startswith("block 1, head 1:")
    assert f"gives {expected[0]:.2f} of its attention to itself" in summary
    np.testing.assert_allclose(
        np.asarray(fig.axes[0].images[0].get_array()), expected[1:].reshape(3, 5).numpy(), rtol=1e-5
    )
    labels = [t.get_text() for t in fig.axes[0].texts]
    assert labels[4] == f"4: {expected[5]:.2f}"  # each patch's index (token 5 holds patch 4) and weight
    assert widgets.model_attention_view(model, PICTURE, block=2)[0] is None
    assert widgets.model_attention_view(model, PICTURE, block=-1)[0] is None
    changes_with_each(
        widgets.ModelAttentionDrawing(model, PICTURE), {"block": 0, "head": 0}, [{"block": 1}, {"head": 1}]
    )
    with pytest.raises(TypeError, match="model"):
        widgets.model_attention_view(torch.nn.Linear(2, 2), PICTURE)
    with pytest.raises(ValueError, match="picture is 30 x 50"):
        widgets.model_attention_view(model, np.zeros((30, 50)))


def test_new_explorers_build_and_redraw() -> None:
    torch.manual_seed(0)
    model = models.VisionTransformer(embed_dim=32, depth=2, num_heads=2)
    for explorer in (widgets.position_explorer(), widgets.attention_explorer(PICTURE),
                     widgets.t2t_stages_explorer(), widgets.model_attention_explorer(model, PICTURE)):  # fmt: skip
        assert explorer.renders == 1 and explorer.image.value
        for name, control in explorer.controls.items():
            before = explorer.renders
            if hasattr(control, "options"):
                control.value = next(o for o in control.options if o != control.value)
            else:
                control.value = control.value + (
                    control.step if control.value < control.max else -control.step
                )
            assert explorer.renders == before + 1 or "could not" not in explorer.summary.value, name
            assert "could not be drawn" not in explorer.summary.value, name


# ------------------------------------------------------------------ incremental drawing: panels and saved states


def _t2t_settings(**change: int) -> dict:
    settings = {"height": 224, "width": 224}
    for i, stage in enumerate(tokens.T2T_STAGES, start=1):
        settings |= dict(zip((f"kernel{i}", f"stride{i}", f"padding{i}"), stage, strict=True))
    return settings | change


#: For each drawing: how to build a fresh one, the starting settings, and values each control may take.
WALKS = {
    "patch": (lambda: widgets.PatchDrawing(PICTURE), {"patch": 20}, {"patch": [1, 2, 4, 5, 10, 20]}),
    "soft split": (
        lambda: widgets.SoftSplitDrawing(PICTURE),
        {"kernel": 20, "stride": 10, "padding": 5},
        {"kernel": [3, 7, 19, 20, 21, 33], "stride": [1, 4, 10, 11, 25], "padding": [0, 1, 5, 6, 11, 20]},
    ),
    "position": (
        widgets.PositionDrawing,
        {"num_tokens": 176, "dim": 768, "base": 1e4, "pair": 60, "position": 10},
        {
            "num_tokens": [11, 99, 150, 151, 176, 177, 400],
            "dim": [122, 128, 766, 768, 1024],
            "base": [100.0, 1e4, 1e5],
            "pair": [0, 59, 60],
            "position": [0, 10, 11],
        },
    ),  # fmt: skip
    "attention": (
        lambda: widgets.AttentionDrawing(PICTURE),
        {"heads": 4, "scale": widgets.SCALES[0], "temperature": 1.0},
        {"heads": list(widgets.HEAD_CHOICES), "scale": list(widgets.SCALES), "temperature": [0.1, 1.0, 3.5]},
    ),
    "T2T stages": (
        widgets.T2TStagesDrawing,
        _t2t_settings(),
        {
            "height": [8, 60, 224, 225, 448],
            "width": [60, 100, 224, 448],
            "kernel1": [3, 7, 8],
            "stride1": [2, 4, 8],
            "padding1": [0, 2, 7],
            "stride2": [1, 2, 3],
            "kernel3": [1, 3, 5],
        },
    ),  # fmt: skip
}


@pytest.mark.parametrize("name", WALKS)
def test_incremental_pictures_equal_a_fresh_full_draw(name: str) -> None:
    """A seeded walk of settings (new values and values seen before), drawn incrementally: every picture equals
    a new drawing's ordinary full draw of the same settings, and the walk never needs a full redraw."""
    make, settings, values = WALKS[name]
    drawing = make()
    drawing.update(**settings)
    drawing.png()
    rng = np.random.default_rng(0)
    drawn = 0
    for _ in range(14):
        control = rng.choice(sorted(values))
        trial = settings | {control: values[control][rng.integers(len(values[control]))]}
        fresh = make()
        try:
            fresh.update(**trial)
        except widgets.Impossible:
            continue  # the explorer shows a sentence for it; nothing is drawn
        settings = trial
        drawing.update(**settings)
        fast, full = pixels(drawing.png()), pixels(fresh.full_png())
        assert fast.shape == full.shape
        differ = np.abs(fast - full).max(axis=-1) > 40
        assert differ.mean() < 0.002, (name, settings, differ.mean())  # at most where artists overlap
        drawn += 1
    assert drawn >= 8
    assert drawing.full_draws == 1, "a change fell back to drawing the whole figure"


def test_a_setting_seen_before_redraws_no_static_part() -> None:
    drawing = widgets.PositionDrawing()
    first = {"num_tokens": 176, "dim": 768, "base": 1e4, "pair": 60, "position": 10}
    drawing.update(**first)
    picture = drawing.png()
    drawing.update(**(first | {"dim": 128, "num_tokens": 20}))
    drawing.png()
    drawn = []
    original = widgets.Axes.draw
    try:
        widgets.Axes.draw = lambda ax, renderer: drawn.append(ax) or original(ax, renderer)
        drawing.update(**first)
        assert drawing.png() == picture
    finally:
        widgets.Axes.draw = original
    assert drawn == []  # the saved pixels came back, only the dynamic artists were drawn


def test_round_ends() -> None:
    assert [widgets._round_end(n) for n in (0, 1, 7, 10, 11, 149, 150, 151, 399, 1234)] == [
        1, 1, 8, 10, 15, 150, 150, 200, 400, 1500,
    ]  # fmt: skip
    for n in range(1, 2000):
        assert n <= widgets._round_end(n) <= 1.5 * n
