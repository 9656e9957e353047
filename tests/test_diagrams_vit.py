"""The ViT diagrams (notebooks 06 and 07): they return their Axes and carry the shapes a real model produces."""

import matplotlib

matplotlib.use("Agg")  # tests draw off screen; the notebooks keep their inline backend

import matplotlib.pyplot as plt
import pytest
import torch
from diagram_keys import colours_without_a_key  # tests/diagram_keys.py
from matplotlib.axes import Axes

from vitcourse.blocks import EncoderBlock
from vitcourse.diagrams import encoder_block, pipeline_shapes, vit_pipeline
from vitcourse.models import VisionTransformer


def _texts(ax: Axes) -> str:
    return "\n".join(t.get_text() for t in ax.texts)


def _times(*sizes: int) -> str:
    return " × ".join(str(s) for s in sizes)


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    plt.close("all")


def test_pipeline_shapes_equal_a_real_forward() -> None:
    torch.manual_seed(0)
    model = VisionTransformer(embed_dim=32, depth=2, num_heads=4, num_classes=3).eval()
    images = torch.randn(2, 1, 60, 100)
    shapes = pipeline_shapes(model, batch=2)
    with torch.no_grad():
        assert shapes["patches"] == tuple(model.patch_embed.split(images).shape)
        assert shapes["tokens"] == tuple(model.tokenize(images).shape)
        assert shapes["embedded"] == tuple(model.embed(images).shape)
        assert shapes["norm"] == tuple(model.forward_features(images).shape)
        assert shapes["head"] == tuple(model(images).shape)
    assert shapes["token0"] == (2, 32)


@pytest.mark.parametrize("batch", [13, 2])
def test_vit_pipeline_labels_come_from_the_model(batch: int) -> None:
    with torch.device("meta"):
        model = VisionTransformer(embed_dim=192, num_heads=3, num_classes=5)
    n, dim = model.patch_embed.num_patches, model.embed_dim
    ax = vit_pipeline(batch=batch, model=model)
    assert isinstance(ax, Axes)
    text = _texts(ax)
    for label in (
        _times(batch, 1, 60, 100),
        _times(batch, n, 400),
        _times(batch, n, dim),
        _times(batch, n + 1, dim),
        _times(batch, dim),
        _times(batch, 5),
        f"{len(model.blocks)} encoder blocks",
    ):
        assert label in text, label


def test_vit_pipeline_default_is_the_picture_model_and_draws_into_a_given_axes() -> None:
    _, given = plt.subplots()
    ax = vit_pipeline(ax=given)
    assert ax is given
    text = _texts(ax)
    assert _times(13, 15, 768) in text and _times(13, 16, 768) in text and _times(13, 1) in text


def test_encoder_block_shows_the_mlp_width_and_the_unchanged_shape() -> None:
    with torch.device("meta"):
        block = EncoderBlock(64, num_heads=4, mlp_ratio=4.0)
    ax = encoder_block(block=block, batch=3, tokens=7)
    assert isinstance(ax, Axes)
    text = _texts(ax)
    assert _times(3, 7, 64) in text and _times(3, 7, 256) in text
    assert "64 → 256" in text and "256 → 64" in text and "4 heads of 16" in text
    assert text.count("residual") == 2


def test_encoder_block_default_is_vit_base() -> None:
    text = _texts(encoder_block())
    assert _times(13, 16, 768) in text and _times(13, 16, 3072) in text


@pytest.mark.parametrize("draw", [vit_pipeline, encoder_block], ids=["vit_pipeline", "encoder_block"])
def test_every_box_colour_has_a_legend_entry(draw) -> None:
    ax = draw()
    assert colours_without_a_key(ax) == set()
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "layer with weights" in labels and "operation, no weights" in labels
