"""The one-listing ViT that notebook 06 prints is the package's VisionTransformer: same weights, same outputs."""

from __future__ import annotations

import inspect
from pathlib import Path

import pytest
import torch

from vitcourse import train, vit_listing
from vitcourse.models import VisionTransformer
from vitcourse.vit_listing import ViTListing

CONFIGS = [
    # (img_size, patch, chans, classes, D, depth, heads, mlp_ratio, batch)
    ((60, 100), 20, 1, 1, 64, 2, 4, 4.0, 3),  # the picture model of notebooks 06 and 07
    ((60, 100), 10, 1, 8, 32, 3, 2, 2.0, 2),  # a 6 x 10 grid, MLP ratio 2 as the trained models use
    ((32, 48), 8, 3, 5, 48, 1, 6, 3.0, 4),  # three channels, a non-square picture, another ratio
    ((16, 16), 4, 2, 10, 24, 2, 1, 1.5, 1),  # one head, a hidden width that int() rounds down
]


def _listing_like(model: VisionTransformer, mlp_ratio: float) -> ViTListing:
    tok = model.patch_embed
    blk = model.blocks[0]
    listing = ViTListing(
        img_size=tok.img_size,
        patch_size=tok.patch_size,
        in_chans=tok.in_chans,
        num_classes=model.head.out_features,
        embed_dim=model.embed_dim,
        depth=len(model.blocks),
        num_heads=blk.attn.num_heads,
        mlp_ratio=mlp_ratio,
        eps=blk.norm1.eps,
    )
    listing.load_state_dict(model.state_dict())  # strict: every name matches, none is missing or extra
    return listing.eval()


@pytest.mark.parametrize("config", CONFIGS)
def test_same_weights_same_outputs(config) -> None:
    img, patch, chans, classes, dim, depth, heads, ratio, batch = config
    torch.manual_seed(0)
    model = VisionTransformer(
        img_size=img,
        patch_size=patch,
        in_chans=chans,
        num_classes=classes,
        embed_dim=dim,
        depth=depth,
        num_heads=heads,
        mlp_ratio=ratio,
    ).eval()
    with torch.no_grad():  # move every parameter away from its start, so no zero bias hides a wrong order
        for p in model.parameters():
            p.add_(0.1 * torch.randn_like(p))
    listing = _listing_like(model, ratio)
    images = torch.randn(batch, chans, *img, generator=torch.Generator().manual_seed(1))
    with torch.no_grad():
        torch.testing.assert_close(listing(images), model(images), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name", ["vit_where", "vit_within"])
def test_a_shipped_checkpoint_gives_the_same_outputs(name: str) -> None:
    shipped = train.load_shipped(name, "cpu")
    listing = _listing_like(shipped.model, shipped.config.mlp_ratio)
    images = torch.rand(4, 1, 60, 100, generator=torch.Generator().manual_seed(2))
    with torch.no_grad():
        torch.testing.assert_close(listing(images), shipped.model(images), rtol=1e-4, atol=1e-5)


def test_the_listing_fits_on_a_few_screens() -> None:
    source = Path(inspect.getsourcefile(vit_listing)).read_text()
    assert len(source.splitlines()) <= 110
    assert source.count("class ") == 1  # one class
    imports = [line for line in source.splitlines() if line.startswith(("import ", "from "))]
    assert imports == ["import torch", "from torch import nn"]  # plain torch, nothing from the package
