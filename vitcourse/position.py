"""Position embeddings: telling attention where each token came from.

Attention treats its tokens as a set: permute them and the outputs are permuted the same way. A position
embedding, one vector per token slot added to the tokens, breaks that symmetry. Two kinds are used:

* **sinusoidal** (fixed, T2T-ViT): ``PE[i, j] = sin(i / 10000**(2 * (j // 2) / d))`` for even j and
  ``cos(...)`` of the same angle for odd j; i runs over token slots, j over the token length d.
* **learned** (ViT): a parameter of shape (1, N, D), started from small random numbers (std 0.02; see
  :func:`learned_position_embedding` for how our start differs from ViT's and timm's).

A learned embedding has one row per patch of the grid it was trained on; :func:`resize_position_embedding`
carries it to another grid (another image size) by 2-D interpolation, as ViT does when it fine-tunes at a
higher resolution.
"""

from __future__ import annotations

from collections.abc import Sequence

import torch
from torch import nn

from ._validate import (
    allocatable,
    dense_tensor,
    finite_float,
    flag,
    non_negative_int,
    positive_int,
    real_tensor,
    tensor_of_rank,
)

__all__ = [
    "sinusoidal_table",
    "learned_position_embedding",
    "resize_position_embedding",
    "cosine_similarity_grid",
    "POSITION_KINDS",
]

#: The kinds of position embedding a model accepts.
POSITION_KINDS = ("learned", "sinusoidal", "none")


def sinusoidal_table(num_tokens: int, dim: int, base: float = 10000.0) -> torch.Tensor:
    """The fixed sinusoidal position table, computed without a Python loop over its entries.

    Args:
        num_tokens: rows N, one per token slot.
        dim: columns d, the token length.
        base: the wavelength base (10000 in the Transformer and T2T papers), a finite number > 0.

    Returns:
        A float32 tensor of shape (N, d) with values in [-1, 1].
    """
    positive_int("num_tokens", num_tokens)
    positive_int("dim", dim)
    base = finite_float("base", base, 0, above=True)  # 0 or less would give NaNs
    allocatable("the table", num_tokens * dim, num_tokens=num_tokens, dim=dim)
    position = torch.arange(num_tokens, dtype=torch.float64)[:, None]  # (N, 1)
    pair = torch.div(torch.arange(dim), 2, rounding_mode="floor").to(torch.float64)  # (d,) j // 2
    angle = position / base ** (2.0 * pair / dim)  # (N, d)
    even = (torch.arange(dim) % 2 == 0)[None, :]  # (1, d)
    return torch.where(even, torch.sin(angle), torch.cos(angle)).to(torch.float32)


def learned_position_embedding(num_tokens: int, dim: int, std: float = 0.02) -> nn.Parameter:
    """A trainable position embedding of shape (1, N, D), drawn from a normal with std ``std`` cut at ``+-2 std``.

    The cut is this course's own choice. ViT's official code draws N(0, 0.02**2) with no truncation
    (``vit_jax/models_vit.py``, ``nn.initializers.normal(stddev=0.02)``); timm calls
    ``trunc_normal_(pos_embed, std=.02)``, whose bounds are absolute (-2 and 2 by default, 100 std), so it is
    untruncated in practice. Cutting at +-2 std drops about 4.6 % of the draws and leaves a standard deviation
    of about 0.88 * ``std`` (0.0176 for the default): a small difference from ViT's start, whose effect on
    training the course has not measured.

    Args:
        num_tokens: rows N, one per token slot (the prediction token's included).
        dim: token length D.
        std: standard deviation of the normal before the cut, a finite number > 0.

    Returns:
        An ``nn.Parameter`` of shape (1, N, D) with every value in [-2 std, 2 std].
    """
    positive_int("num_tokens", num_tokens)
    positive_int("dim", dim)
    std = finite_float("std", std, 0, above=True)
    allocatable("the embedding", num_tokens * dim, num_tokens=num_tokens, dim=dim)
    table = torch.empty(1, num_tokens, dim)
    nn.init.trunc_normal_(table, std=std, a=-2 * std, b=2 * std)
    return nn.Parameter(table)


def _grid(name: str, grid: object) -> tuple[int, int]:
    """``grid`` as (rows, cols) of positive ints, else a TypeError or ValueError naming ``name``."""
    if isinstance(grid, torch.Size):
        grid = tuple(grid)
    if not isinstance(grid, Sequence) or isinstance(grid, str) or len(grid) != 2:
        raise TypeError(f"{name} must be a pair (rows, cols) of patch counts, got {grid!r:.80}")
    return positive_int(f"{name}[0]", grid[0]), positive_int(f"{name}[1]", grid[1])


def resize_position_embedding(
    pos_embed: torch.Tensor,
    old_grid: tuple[int, int],
    new_grid: tuple[int, int],
    num_prefix_tokens: int = 1,
    antialias: bool = False,
) -> torch.Tensor:
    """Carry a learned position embedding from one patch grid to another by 2-D bicubic interpolation.

    The rows of the first ``num_prefix_tokens`` slots (the prediction token's) have no place on the grid and are
    kept as they are. The other rows are laid out on the old grid, row by row, as an image with D channels,
    interpolated to the new grid with ``F.interpolate(mode="bicubic", align_corners=False)``, and read back row
    by row. This is the ViT paper's "2D interpolation of the pre-trained position embeddings, according to their
    location in the original image" (Section 3.2). The paper names no kernel; ViT's official code
    (``vit_jax/checkpoint.py``) zooms square grids with ``scipy.ndimage.zoom(..., order=1)``, a linear spline.
    Bicubic is timm's choice (``resample_abs_pos_embed``) and this course's; timm by default also passes
    ``antialias=True``, with which PyTorch's bicubic weights the neighbours differently, so the numbers differ a
    little even when enlarging (``antialias`` here switches it on).

    Args:
        pos_embed: tensor of shape (1, num_prefix_tokens + rows * cols, D), real floating-point numbers.
        old_grid: (rows, cols) of the grid ``pos_embed`` belongs to.
        new_grid: (rows, cols) of the grid to carry it to.
        num_prefix_tokens: slots in front of the patches (1: the prediction token; 0: none).
        antialias: passed to ``F.interpolate`` (timm's default is True; the ViT paper names no kernel).

    Returns:
        A tensor of shape (1, num_prefix_tokens + new rows * new cols, D), in the dtype of ``pos_embed`` (the
        interpolation itself runs in float32 or float64). Equal to ``pos_embed`` when the grids are equal.

    Raises:
        TypeError: ``pos_embed`` is not a real floating-point tensor, or a grid is not a pair of ints.
        ValueError: ``pos_embed`` is not (1, num_prefix_tokens + rows * cols, D) for ``old_grid``.
    """
    real_tensor("pos_embed", tensor_of_rank("pos_embed", pos_embed, 3, "(1, prefix + rows * cols, D)"))
    h, w = _grid("old_grid", old_grid)
    h2, w2 = _grid("new_grid", new_grid)
    prefix = non_negative_int("num_prefix_tokens", num_prefix_tokens)
    antialias = flag("antialias", antialias)
    if pos_embed.shape[0] != 1 or pos_embed.shape[1] != prefix + h * w:
        raise ValueError(
            f"pos_embed must have shape (1, {prefix} + {h} * {w}, D) = (1, {prefix + h * w}, D) for "
            f"old_grid {(h, w)} and num_prefix_tokens {prefix}, got {tuple(pos_embed.shape)}"
        )
    dim = pos_embed.shape[2]
    allocatable("the resized embedding", (prefix + h2 * w2) * dim, new_grid=(h2, w2))
    kept, grid_rows = pos_embed[:, :prefix], pos_embed[:, prefix:]  # (1, prefix, D), (1, h * w, D)
    work = (
        torch.float64 if pos_embed.dtype == torch.float64 else torch.float32
    )  # interpolate needs one of them
    image = grid_rows.to(work).reshape(1, h, w, dim).permute(0, 3, 1, 2)  # (1, D, h, w): D channels
    image = nn.functional.interpolate(
        image, size=(h2, w2), mode="bicubic", align_corners=False, antialias=antialias
    )  # (1, D, h2, w2)
    resized = image.permute(0, 2, 3, 1).reshape(1, h2 * w2, dim).to(pos_embed.dtype)  # (1, h2 * w2, D)
    return torch.cat([kept, resized], dim=1)  # (1, prefix + h2 * w2, D)


def cosine_similarity_grid(embedding: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """Cosine similarity of every patch's position vector with every other, laid out on the patch grid.

    Args:
        embedding: tensor of shape (N, D) or (1, N, D). If N == rows * cols + 1 the first row (the prediction
            token's slot) is dropped; otherwise N must equal rows * cols.
        rows: patch rows.
        cols: patch columns.

    Returns:
        Tensor of shape (rows, cols, rows, cols): entry [r, c] is the similarity map of patch (r, c) with all
        patches.
    """
    if isinstance(embedding, torch.Tensor) and embedding.ndim == 3:
        dense_tensor("embedding", embedding)
        if embedding.shape[0] != 1:
            raise ValueError(f"embedding must be (N, D) or (1, N, D), got shape {tuple(embedding.shape)}")
        embedding = embedding[0]
    real_tensor("embedding", tensor_of_rank("embedding", embedding, 2, "(N, D)"))
    positive_int("rows", rows)
    positive_int("cols", cols)
    n = embedding.shape[0]
    if n == rows * cols + 1:
        embedding = embedding[1:]
    elif n != rows * cols:
        raise ValueError(
            f"embedding has {n} rows; expected rows * cols = {rows * cols} (or one more with a prediction token)"
        )
    unit = nn.functional.normalize(embedding.detach().float(), dim=-1)  # (P, D)
    sims = unit @ unit.T  # (P, P)
    return sims.reshape(rows, cols, rows, cols)
