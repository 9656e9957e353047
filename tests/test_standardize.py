"""Input standardisation (vitcourse.standardize) against the formula, and the loader of every shipped file."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch
from torch import nn

from vitcourse import models, train
from vitcourse.standardize import Standardize, Standardized, logit_spread


def _images() -> torch.Tensor:
    gen = torch.Generator().manual_seed(0)
    return torch.rand(16, 2, 6, 10, generator=gen) * torch.tensor([1.0, 3.0])[:, None, None] + 0.5


def test_per_channel_is_torchvision_normalize_with_the_pictures_statistics() -> None:
    x = _images()
    stats = Standardize.fit(x, "channel")
    assert stats.mean.shape == stats.std.shape == (1, 2, 1, 1)
    mean = x.permute(1, 0, 2, 3).reshape(2, -1).mean(1)
    std = x.permute(1, 0, 2, 3).reshape(2, -1).std(1)
    expected = (x - mean[None, :, None, None]) / std[None, :, None, None]  # Normalize(mean, std) by hand
    torch.testing.assert_close(stats(x), expected)


def test_per_pixel_gives_every_pixel_mean_0_and_spread_1() -> None:
    x = _images()
    out = Standardize.fit(x, "pixel")(x)
    torch.testing.assert_close(out.mean(0), torch.zeros(2, 6, 10), atol=1e-5, rtol=0)
    torch.testing.assert_close(out.std(0), torch.ones(2, 6, 10), atol=1e-5, rtol=0)


def test_the_floor_keeps_a_constant_pixel_finite() -> None:
    x = torch.zeros(8, 1, 2, 2)
    x[:4, 0, 0, 0] = 1.0
    stats = Standardize.fit(x, "pixel", floor=0.1)
    assert stats.std[0, 0, 1, 1] == pytest.approx(0.1)
    assert torch.isfinite(stats(torch.ones(1, 1, 2, 2))).all()


@pytest.mark.parametrize(
    ("call", "error", "match"),
    [
        (lambda: Standardize.fit(torch.rand(4, 1, 3, 3), "batch"), ValueError, "per"),
        (lambda: Standardize.fit(torch.rand(1, 1, 3, 3)), ValueError, "at least 2"),
        (lambda: Standardize.fit(torch.rand(4, 3, 3)), ValueError, "images"),
        (lambda: Standardize(torch.zeros(1, 1, 1, 1), torch.zeros(1, 1, 1, 1)), ValueError, "std"),
        (lambda: Standardize(torch.zeros(1, 1, 1, 1), torch.ones(1, 2, 1, 1)), ValueError, "one shape"),
        (lambda: Standardized(nn.Identity(), nn.Identity()), TypeError, "standardize"),
        (lambda: logit_spread(nn.Identity(), torch.rand(1, 1, 2, 2)), ValueError, "at least 2"),
    ],
)
def test_bad_input_names_the_parameter(call, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        call()


def test_standardized_model_keeps_the_inner_names_out_of_weight_decay() -> None:
    vit = models.VisionTransformer((20, 20), 10, 1, num_classes=2, embed_dim=8, depth=1, num_heads=2)
    wrapped = Standardized(Standardize.fit(torch.rand(4, 1, 20, 20)), vit)
    assert wrapped.no_weight_decay() == {"model.cls_token", "model.pos_embed"}
    bare, ours = train.param_groups(vit, 0.05), train.param_groups(wrapped, 0.05)
    assert [len(g["params"]) for g in bare] == [len(g["params"]) for g in ours]
    # the statistics travel in the state_dict, and are no parameters
    assert {"standardize.mean", "standardize.std"} <= set(wrapped.state_dict())
    assert sum(p.numel() for p in wrapped.parameters()) == sum(p.numel() for p in vit.parameters())


def test_logit_spread_is_zero_for_a_model_that_ignores_its_input() -> None:
    class Constant(nn.Module):
        def forward(self, x: torch.Tensor) -> torch.Tensor:
            return torch.ones(len(x), 3)

    assert logit_spread(Constant(), torch.rand(5, 1, 4, 4)) == 0.0
    assert logit_spread(nn.Flatten(), torch.rand(5, 1, 4, 4)) > 0.1


def test_one_loader_reads_every_shipped_file() -> None:
    folder = Path(train.__file__).parent / "assets" / "checkpoints"
    files = sorted(folder.glob("*.pt"))
    assert len(files) >= 15
    for path in files:
        model, settings = train.load_checkpoint(path)
        assert isinstance(model, nn.Module) and not model.training, path.name
        assert settings is not None
