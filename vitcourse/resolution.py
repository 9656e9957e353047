"""A trained ViT at another image size: the picture's world drawn larger, the position table resized in 2-D.

The ViT paper fine-tunes at a higher resolution than it pre-trains at, with the same patch size, so the patch
grid grows; it carries the learned position embedding over by 2-D interpolation (Dosovitskiy et al., 2021,
Section 3.2). This module does the same for the course's models:

* :func:`upscale`: scenes (B, C, 60, 100) drawn ``scale`` times larger, each pixel repeated ``scale x scale``
  times (nearest neighbour: the pixel-art picture stays sharp, nothing is invented between pixels);
* :func:`fit_images`: images brought to the size a model takes (a whole multiple of the scenes' size);
* :func:`at_resolution`: a copy of a :class:`~vitcourse.models.VisionTransformer` for another image size, every
  weight copied and the learned position table carried to the new grid by
  :func:`vitcourse.position.resize_position_embedding` (or, for the control, a freshly drawn table).

Decision: the larger scenes are the same scenes upscaled, not scenes drawn at a finer resolution. The picture's
drawing code works on its 60 x 100 pixel grid; upscaling keeps the task, the labels and the held-out set exactly
those of the model's training, so a change in accuracy comes from the resolution alone.
"""

from __future__ import annotations

import copy

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import (
    flag,
    image_size,
    instance_of,
    non_negative_int,
    positive_int,
    real_tensor,
    tensor_of_rank,
)
from .data import HEIGHT, WIDTH
from .position import learned_position_embedding, resize_position_embedding

__all__ = ["MAX_SCALE", "upscale", "fit_images", "at_resolution"]

#: The largest upscaling factor: 4 gives 240 x 400 scenes (a ViT with 10-pixel patches then has 960 tokens).
MAX_SCALE = 4


def upscale(images: torch.Tensor, scale: int) -> torch.Tensor:
    """Images (B, C, H, W) drawn ``scale`` times larger, (B, C, scale * H, scale * W), by repeating each pixel.

    Args:
        images: real floating-point tensor (B, C, H, W).
        scale: a whole number from 1 to :data:`MAX_SCALE`; 1 returns ``images`` itself.
    """
    real_tensor("images", tensor_of_rank("images", images, 4, "(B, C, H, W)"))
    if positive_int("scale", scale) > MAX_SCALE:
        raise ValueError(f"scale must be a whole number from 1 to {MAX_SCALE}, got {scale}")
    if scale == 1:
        return images
    return F.interpolate(images, scale_factor=scale, mode="nearest")  # (B, C, scale * H, scale * W)


def _img_size(model: nn.Module) -> tuple[int, int]:
    tokenizer = getattr(model, "tokenizer", None)
    size = getattr(tokenizer, "img_size", None)
    if size is None:
        raise TypeError(
            f"model must be a vitcourse VisionTransformer or T2TViT (it has a tokenizer with img_size), "
            f"got {type(model).__name__}"
        )
    return tuple(size)


def fit_images(images: torch.Tensor, model: nn.Module) -> torch.Tensor:
    """Scenes (B, C, 60, 100) upscaled to the image size ``model`` takes, when that is a whole multiple of them.

    Images already of the model's size are returned as they are.

    Raises:
        ValueError: the model's image size is not 1 to :data:`MAX_SCALE` times the images' size.
    """
    real_tensor("images", tensor_of_rank("images", images, 4, "(B, C, H, W)"))
    height, width = _img_size(model)
    h, w = images.shape[-2:]
    if (h, w) == (height, width):
        return images
    scale = height // h
    if height % h or width % w or width // w != scale or not 1 <= scale <= MAX_SCALE:
        raise ValueError(
            f"images of {h} x {w} cannot be fitted to a model for {height} x {width}: its size must be 1 to "
            f"{MAX_SCALE} times theirs on both axes"
        )
    return upscale(images, scale)


def at_resolution(model: nn.Module, scale: int, resize_pos: bool = True, seed: int = 0) -> nn.Module:
    """A copy of a ViT for scenes ``scale`` times larger, same patch size, so a grid ``scale`` times larger.

    Every weight is copied; only the position embedding changes size. A learned one is carried to the new grid
    by 2-D bicubic interpolation, the prediction token's row kept (the ViT paper's recipe), or, with
    ``resize_pos=False``, drawn afresh as an untrained model's would be (from ``seed``): the control that
    shows what the carried table is worth. A model without a position embedding needs nothing resized.

    Args:
        model: a :class:`~vitcourse.models.VisionTransformer` for the 60 x 100 scenes, learned or no position
            embedding (a sinusoidal table belongs to the sequence, not to a 2-D grid, so it is refused).
        scale: 1 to :data:`MAX_SCALE`.
        resize_pos: carry the trained table over (True) or start it afresh (False).
        seed: seeds the fresh table when ``resize_pos`` is False.

    Returns:
        The new model, on the CPU, in eval mode; ``model`` is left as it was.
    """
    from .models import VisionTransformer  # here: models imports position, which this module imports too

    instance_of("model", model, VisionTransformer, "a vitcourse.models.VisionTransformer")
    if positive_int("scale", scale) > MAX_SCALE:
        raise ValueError(f"scale must be a whole number from 1 to {MAX_SCALE}, got {scale}")
    resize_pos = flag("resize_pos", resize_pos)
    non_negative_int("seed", seed)
    if model.pos_kind == "sinusoidal":
        raise ValueError(
            "model has a sinusoidal position table; at_resolution carries learned tables (pos_embed='learned') "
            "or none (pos_embed='none')"
        )
    height, width = image_size(_img_size(model))
    if (height, width) != (HEIGHT, WIDTH):
        raise ValueError(f"model must take the {HEIGHT} x {WIDTH} scenes, it takes {height} x {width}")
    source = copy.deepcopy(model).cpu()
    patch = source.patch_embed.patch_size
    blocks = source.blocks
    new = VisionTransformer(
        (scale * HEIGHT, scale * WIDTH),
        patch,
        source.in_chans,
        num_classes=source.head.out_features,
        embed_dim=source.embed_dim,
        depth=len(blocks),
        num_heads=blocks[0].attn.num_heads,
        mlp_ratio=blocks[0].mlp.fc1.out_features / source.embed_dim,
        qkv_bias=blocks[0].attn.qkv.bias is not None,
        norm_eps=source.norm.eps,
        pos_embed=source.pos_kind,
    )
    state = source.state_dict()
    if source.pos_embed is not None:
        old_grid = (HEIGHT // patch, WIDTH // patch)
        new_grid = (scale * HEIGHT // patch, scale * WIDTH // patch)
        if resize_pos:
            state["pos_embed"] = resize_position_embedding(state["pos_embed"], old_grid, new_grid)
        else:
            with torch.random.fork_rng(devices=[]):
                torch.manual_seed(seed)
                fresh = learned_position_embedding(1 + new_grid[0] * new_grid[1], source.embed_dim)
            state["pos_embed"] = fresh.detach().to(state["pos_embed"].dtype)
    new.load_state_dict(state)
    return new.eval()
