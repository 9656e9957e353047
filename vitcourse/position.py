"""Position embeddings: telling attention where each token came from.

Attention treats its tokens as a set: permute them and the outputs are permuted the same way. A position
embedding, one vector per token slot added to the tokens, breaks that symmetry. Two kinds are used:

* **sinusoidal** (fixed, T2T-ViT): ``PE[i, j] = sin(i / 10000**(2 * (j // 2) / d))`` for even j and
  ``cos(...)`` of the same angle for odd j; i runs over token slots, j over the token length d.
* **learned** (ViT): a parameter of shape (1, N, D), started from small random numbers (std 0.02; see
  :func:`learned_position_embedding` for how our start differs from ViT's and timm's).
"""

from __future__ import annotations

import torch
from torch import nn

from ._validate import finite_float, positive_int, real_tensor, tensor_of_rank

__all__ = ["sinusoidal_table", "learned_position_embedding", "cosine_similarity_grid", "POSITION_KINDS"]

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
    of about 0.88 * ``std`` (0.0176 for the default): a small difference from ViT's start that does not matter
    for anything the course shows.

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
    table = torch.empty(1, num_tokens, dim)
    nn.init.trunc_normal_(table, std=std, a=-2 * std, b=2 * std)
    return nn.Parameter(table)


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
