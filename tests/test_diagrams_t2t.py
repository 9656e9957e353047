"""The T2T diagrams of notebooks 08 and 09: they return their Axes, and every shape they write is the model's own."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch
from diagram_keys import colours_without_a_key  # tests/diagram_keys.py
from matplotlib.axes import Axes

from vitcourse import diagrams
from vitcourse.blocks import TokenTransformer
from vitcourse.models import TokensToToken


def _texts(ax: Axes) -> list[str]:
    return [t.get_text() for t in ax.texts]


def _module_shapes(height: int, width: int, in_chans: int, batch: int, embed_dim: int) -> list[tuple]:
    """Shapes that flow through a real TokensToToken, recorded by hooks: the image, and each step's output."""
    model = TokensToToken((height, width), in_chans=in_chans, embed_dim=embed_dim)
    shapes: list[tuple] = []

    def record(module: torch.nn.Module, inputs: tuple, output: torch.Tensor) -> None:
        if module is not model.soft_split0 and hasattr(
            module, "kernel"
        ):  # a later split: its input is rebuilt
            shapes.append(tuple(inputs[0].shape))
        shapes.append(tuple(output.shape))

    for name, module in model.named_children():
        if name.startswith(("soft_split", "attention", "project")):
            module.register_forward_hook(record)
    images = torch.zeros(batch, in_chans, height, width)
    with torch.no_grad():
        model(images)
    return [tuple(images.shape), *shapes]


@pytest.mark.parametrize(
    ("height", "width", "in_chans"), [(60, 100, 1), (400, 100, 1), (224, 224, 3), (33, 47, 2)]
)
def test_t2t_loop_labels_are_the_model_shapes(height: int, width: int, in_chans: int) -> None:
    expected = _module_shapes(height, width, in_chans, batch=13, embed_dim=96)
    assert (
        len(expected) == 9
    )  # image, then split, transformer, rebuild, split, transformer, rebuild, split, linear
    ax = diagrams.t2t_loop(height=height, width=width, in_chans=in_chans, batch=13, embed_dim=96)
    try:
        assert isinstance(ax, Axes)
        labels = [t for t in _texts(ax) if t.startswith("(")]
        assert labels == [str(shape) for shape in expected]
    finally:
        plt.close(ax.figure)


def test_t2t_loop_without_batch_and_on_a_given_axes() -> None:
    fig, ax = plt.subplots()
    try:
        assert diagrams.t2t_loop(ax, height=60, width=100) is ax
        labels = [t for t in _texts(ax) if t.startswith("(")]
        assert labels[0] == "(1, 60, 100)" and labels[-1] == "(28, 768)"
    finally:
        plt.close(fig)


def test_token_transformer_labels_are_the_model_shapes() -> None:
    batch, tokens, dim, chan = 13, 100, 49, 64
    block = TokenTransformer(dim, chan).eval()
    x = torch.randn(batch, tokens, dim)
    with torch.no_grad():
        out, steps = block.attn.steps(block.norm1(x))
        final = block(x)
    ax = diagrams.token_transformer(batch=batch, tokens=tokens, dim=dim, chan=chan)
    try:
        assert isinstance(ax, Axes)
        text = "\n".join(_texts(ax))
        for shape in (x.shape, steps.q.shape, steps.merged.shape, out.shape, final.shape):
            assert str(tuple(shape)) in text
        assert "skip through v" in text and "residual" in text
    finally:
        plt.close(ax.figure)


def test_diagrams_leave_no_figure_open_when_closed() -> None:
    before = len(plt.get_fignums())
    for draw in (diagrams.token_transformer, diagrams.t2t_loop):
        plt.close(draw().figure)
    assert len(plt.get_fignums()) == before


@pytest.mark.parametrize(
    "draw", [diagrams.token_transformer, diagrams.t2t_loop], ids=["token_transformer", "t2t_loop"]
)
def test_every_box_colour_has_a_legend_entry(draw) -> None:
    ax = draw()
    try:
        assert colours_without_a_key(ax, with_circles=False) == set()
    finally:
        plt.close(ax.figure)
