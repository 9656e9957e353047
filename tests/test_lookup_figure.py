"""plots.show_attention_lookup draws what attention computes: weights softmax(q . k / sqrt(d)), output sum a_j v_j."""

from __future__ import annotations

import math

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest
import torch

from vitcourse import plots


def _tensors(n: int = 4, d: int = 4, d_v: int = 3, seed: int = 0):
    gen = torch.Generator().manual_seed(seed)
    return torch.randn(d, generator=gen), torch.randn(n, d, generator=gen), torch.randn(n, d_v, generator=gen)


def _panels(fig) -> dict:
    return {ax.get_label(): ax for ax in fig.axes if ax.get_label()}


@pytest.mark.parametrize("shape", [(4, 4, 3), (1, 2, 2), (6, 8, 5)])
def test_bars_are_the_softmax_of_the_scaled_scores(shape) -> None:
    q, k, v = _tensors(*shape)
    fig = plots.show_attention_lookup(q, k, v)
    try:
        panels = _panels(fig)
        widths = torch.tensor([bar.get_width() for bar in panels["weights"].patches], dtype=torch.float64)
        expected = (k.double() @ q.double() / math.sqrt(q.numel())).softmax(0)
        assert torch.allclose(widths, expected, atol=1e-9)
        output = torch.tensor(panels["output"].images[0].get_array(), dtype=torch.float64)[0]
        assert torch.allclose(output, expected @ v.double(), atol=1e-6)
        keys = torch.tensor(panels["keys"].images[0].get_array(), dtype=torch.float64)
        assert torch.allclose(keys, k.double(), atol=1e-6)
    finally:
        plt.close(fig)


def test_a_given_scale_is_used() -> None:
    q, k, v = _tensors()
    fig = plots.show_attention_lookup(q, k, v, scale=1.0)
    try:
        widths = torch.tensor(
            [bar.get_width() for bar in _panels(fig)["weights"].patches], dtype=torch.float64
        )
        assert torch.allclose(widths, (k.double() @ q.double()).softmax(0), atol=1e-9)
    finally:
        plt.close(fig)


def test_every_panel_is_labelled() -> None:
    q, k, v = _tensors()
    fig = plots.show_attention_lookup(q, k, v)
    try:
        panels = _panels(fig)
        assert set(panels) >= {"query", "keys", "weights", "values", "output"}
        for name in ("query", "keys", "weights", "values", "output"):
            ax = panels[name]
            assert ax.get_xlabel() and ax.get_ylabel() and ax.get_title(), name
        assert "weight" in panels["weights"].get_xlabel()
        assert panels["keys"].get_ylabel() == "key j"
        # one shared colour bar, labelled
        assert panels["<colorbar>"].get_ylabel() == "entry"
        assert fig.get_suptitle()
    finally:
        plt.close(fig)


@pytest.mark.parametrize(
    "args",
    [
        (torch.randn(2, 4), torch.randn(4, 4), torch.randn(4, 3)),  # query not 1-D
        (torch.randn(5), torch.randn(4, 4), torch.randn(4, 3)),  # query and keys disagree on d
        (torch.randn(4), torch.randn(4, 4), torch.randn(3, 3)),  # a value per key
        (torch.tensor([float("nan"), 0, 0, 0]), torch.randn(4, 4), torch.randn(4, 3)),
    ],
)
def test_bad_inputs_say_what_is_wrong(args) -> None:
    with pytest.raises(ValueError):
        plots.show_attention_lookup(*args)
