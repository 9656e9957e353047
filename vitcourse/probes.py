"""Measures of what a trained model learned: numbers to read beside the figures of notebook 07.

* :func:`row_column_score`: does a position embedding know the patch grid's rows and columns?
* :func:`attention_entropy`: how spread out is each query's attention (0 = one key, log N = all keys alike)?
* :func:`mean_attention_distance`: how far, in pixels, each head looks on average (ViT paper, Figure 7 right).
"""

from __future__ import annotations

import torch

from ._validate import choice, positive_int, real_tensor
from .position import cosine_similarity_grid

__all__ = ["row_column_score", "attention_entropy", "mean_attention_distance"]


def row_column_score(embedding: torch.Tensor, rows: int, cols: int, along: str = "both") -> float:
    """How much more alike a patch's position vector is to those of its own row or column than to the rest.

    For each patch i: the mean cosine similarity to the other patches in its row or column, minus the mean
    cosine similarity to the patches in neither; the score is that difference averaged over the patches.
    With ``along="row"`` (or ``"column"``) only the row (column) counts: the other patches of its row minus
    the patches of the other rows (columns).
    When the vectors have similar norms, a component shared by every patch raises the similarities in and
    off the patch's lines about alike, so it does not by itself make the score positive (it does shrink the
    differences); with unequal norms it can tilt the score either way. About 0 for random vectors, 0.5 for
    vectors made of a one-hot row code and a one-hot column code.

    Args:
        embedding: (N, D) or (1, N, D); with N = rows * cols + 1 the first row (the prediction token's slot)
            is left out.
        rows: patch rows (at least 2, so that some patches share neither row nor column).
        cols: patch columns (at least 2).
        along: "both" (row or column), "row" or "column".

    Returns:
        The score, a float in [-2, 2].
    """
    choice("along", along, ("both", "row", "column"))
    positive_int("rows", rows)
    positive_int("cols", cols)
    if rows < 2 or cols < 2:
        raise ValueError(f"rows and cols must both be at least 2, got {rows} x {cols}")
    sims = cosine_similarity_grid(embedding, rows, cols).cpu().reshape(rows * cols, rows * cols)  # (N, N)
    r, c = torch.div(torch.arange(rows * cols), cols, rounding_mode="floor"), torch.arange(rows * cols) % cols
    same_row, same_col = r[:, None] == r[None], c[:, None] == c[None]  # (N, N)
    itself = torch.eye(rows * cols, dtype=torch.bool)
    together = {"both": same_row | same_col, "row": same_row, "column": same_col}[along]  # (N, N)
    line = together & ~itself  # (N, N): same row and/or column, not the patch itself
    other = ~together  # (N, N): the rest
    in_line = (sims * line).sum(1) / line.sum(1)  # (N,)
    off_line = (sims * other).sum(1) / other.sum(1)  # (N,)
    return (in_line - off_line).mean().item()


def attention_entropy(weights: torch.Tensor) -> torch.Tensor:
    """The entropy (in nats) of each attention distribution: -sum_j w_j log w_j over the last axis.

    Args:
        weights: (..., N) attention weights, each row summing to 1.

    Returns:
        (...): 0 when a query attends to a single key, log N when it attends to all N keys equally.
    """
    if not isinstance(weights, torch.Tensor):
        raise TypeError(f"weights must be a torch.Tensor of shape (..., N), got {type(weights).__name__}")
    real_tensor("weights", weights)  # dense, holding real floats: before the shape, which a nested one lacks
    if weights.ndim < 1:
        raise ValueError("weights must have at least one dimension (..., N), got a 0-d tensor")
    w = weights.detach().float()
    return -(w * torch.log(w.clamp_min(1e-12))).sum(-1)


def mean_attention_distance(weights: torch.Tensor, rows: int, cols: int, patch: int) -> torch.Tensor:
    """The mean distance, in pixels, between each query patch and the patches it attends to, per head.

    For query patch i: sum_j w_ij * |centre_i - centre_j| (Euclidean, in pixels), averaged over the query
    patches; the ViT paper (Dosovitskiy et al., 2021, Figure 7 right) plots this per head and per depth.
    When the weights include a prediction token (N = rows * cols + 1), its row and column are dropped and
    each patch's remaining weights are rescaled to sum to 1.

    Args:
        weights: (..., N, N) attention weights (rows: queries, columns: keys), e.g. (B, heads, N, N).
        rows: patch rows of the grid.
        cols: patch columns.
        patch: patch side P in pixels (the distance between neighbouring patch centres).

    Returns:
        (...): e.g. (B, heads). 0 when every patch attends only to itself.
    """
    positive_int("rows", rows)
    positive_int("cols", cols)
    positive_int("patch", patch)
    if not isinstance(weights, torch.Tensor):
        raise TypeError(f"weights must be a torch.Tensor of shape (..., N, N), got {type(weights).__name__}")
    real_tensor("weights", weights)  # dense, holding real floats: before the shape, which a nested one lacks
    if weights.ndim < 2 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(f"weights must be a tensor of shape (..., N, N), got shape {tuple(weights.shape)}")
    n = rows * cols
    w = weights.detach().float()
    if w.shape[-1] == n + 1:
        w = w[..., 1:, 1:]  # (..., n, n): patches only
        w = w / w.sum(-1, keepdim=True).clamp_min(1e-12)
    elif w.shape[-1] != n:
        raise ValueError(f"weights are over {w.shape[-1]} tokens; expected rows * cols = {n} (or {n + 1})")
    r = torch.div(torch.arange(n), cols, rounding_mode="floor").float()
    c = (torch.arange(n) % cols).float()
    centres = torch.stack([r, c], -1) * patch  # (n, 2) in pixels
    distance = torch.cdist(centres, centres).to(w.device)  # (n, n)
    return (w * distance).sum(-1).mean(-1)  # (...)
