"""Measures of what a trained model learned: numbers to read beside the figures of notebook 07.

* :func:`row_column_score`: does a position embedding know the patch grid's rows and columns?
* :func:`similarity_by_distance`: its mean cosine similarity per distance on the grid, same row, same column
  and neither apart: the table that separates row and column structure from plain locality.
* :func:`distance_only_embedding` and :func:`distance_only_scores`: the locality control, an embedding whose
  similarity depends on distance alone, and the row/column scores it gets.
* :func:`attention_entropy`: how spread out is each query's attention (0 = one key, log N = all keys alike)?
* :func:`mean_attention_distance`: how far, in pixels, each head looks on average (ViT paper, Figure 7 right).
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from ._validate import choice, finite_float, positive_int, real_tensor
from .position import cosine_similarity_grid

__all__ = [
    "row_column_score",
    "DistanceClass",
    "similarity_by_distance",
    "distance_only_embedding",
    "distance_only_scores",
    "attention_entropy",
    "mean_attention_distance",
]


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


class DistanceClass(NamedTuple):
    """One line of :func:`similarity_by_distance`: the pairs of patches a given distance apart on one kind of line.

    Attributes:
        distance: the distance between the two patch centres, in patches (1 for neighbours, sqrt(2) diagonally).
        line: "row" (same patch row), "column" (same patch column) or "neither".
        pairs: how many unordered pairs of patches the class holds.
        mean: their mean cosine similarity.
    """

    distance: float
    line: str
    pairs: int
    mean: float


def _grid_geometry(rows: int, cols: int) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
    """(distance (N, N) in patches, same row (N, N), same column (N, N)) for the patches of a rows x cols grid."""
    r = torch.div(torch.arange(rows * cols), cols, rounding_mode="floor")
    c = torch.arange(rows * cols) % cols
    distance = torch.sqrt(((r[:, None] - r[None]) ** 2 + (c[:, None] - c[None]) ** 2).double())  # (N, N)
    return distance, r[:, None] == r[None], c[:, None] == c[None]


def _check_grid(rows: int, cols: int) -> None:
    positive_int("rows", rows)
    positive_int("cols", cols)
    if rows < 2 or cols < 2:
        raise ValueError(f"rows and cols must both be at least 2, got {rows} x {cols}")


def similarity_by_distance(embedding: torch.Tensor, rows: int, cols: int) -> list[DistanceClass]:
    """The mean cosine similarity of the patches' position vectors, per distance and per kind of line.

    Every pair of different patches falls into one class: its distance on the grid (in patches, between the
    patch centres) and whether the two share a row, a column, or neither (two different patches cannot share
    both). An embedding whose similarity only falls with distance gives means that fall with distance whatever
    the line; row or column structure shows as pairs in one row or column that stay more alike than nearer pairs
    in neither. :func:`row_column_score` cannot tell the two apart on a small grid: on 3 x 5 every distance
    class lies wholly in a row or column or wholly off them, so the score is a weighted difference of these means.

    Args:
        embedding: (N, D) or (1, N, D); with N = rows * cols + 1 the first row (the prediction token's slot)
            is left out.
        rows: patch rows (at least 2).
        cols: patch columns (at least 2).

    Returns:
        The classes that hold at least one pair, sorted by distance, then "row", "column", "neither".
    """
    _check_grid(rows, cols)
    sims = cosine_similarity_grid(embedding, rows, cols).cpu().double().reshape(rows * cols, rows * cols)
    distance, same_row, same_col = _grid_geometry(rows, cols)
    upper = torch.ones_like(same_row).triu(1)  # (N, N): each unordered pair once
    classes = []
    for d in torch.unique(distance[upper]).tolist():
        at = upper & torch.isclose(distance, torch.tensor(d, dtype=torch.float64))
        for line, on in (("row", same_row), ("column", same_col), ("neither", ~same_row & ~same_col)):
            pairs = at & on
            if pairs.any():
                classes.append(DistanceClass(d, line, int(pairs.sum()), sims[pairs].mean().item()))
    return classes


def distance_only_embedding(rows: int, cols: int, sigma: float = 1.0) -> torch.Tensor:
    """Position vectors whose cosine similarity depends on the distance between patches alone.

    Vector i and vector j have cosine similarity exp(-distance(i, j)^2 / (2 sigma^2)) (a Gaussian of the
    distance in patches): near patches alike, far ones nearly orthogonal, with no preference for rows or
    columns. It is the locality control for :func:`row_column_score`.

    Args:
        rows: patch rows (at least 2).
        cols: patch columns (at least 2).
        sigma: the width of the Gaussian, in patches, a finite number > 0.

    Returns:
        (rows * cols, rows * cols) float64: row i is patch i's vector (no prediction token's row).
    """
    _check_grid(rows, cols)
    sigma = finite_float("sigma", sigma, 0, above=True)
    distance, _, _ = _grid_geometry(rows, cols)
    gram = torch.exp(-(distance**2) / (2 * sigma**2))  # (N, N): positive definite, ones on the diagonal
    values, vectors = torch.linalg.eigh(gram)
    return vectors * values.clamp_min(0).sqrt()  # (N, N): its rows' dot products give the gram matrix


def distance_only_scores(rows: int, cols: int, sigma: float = 1.0) -> dict[str, float]:
    """The :func:`row_column_score` of :func:`distance_only_embedding`: what locality alone scores.

    Args:
        rows: patch rows (at least 2).
        cols: patch columns (at least 2).
        sigma: the Gaussian's width, in patches, a finite number > 0.

    Returns:
        {"both": ..., "row": ..., "column": ...}: the score along rows and columns, rows only, columns only.
    """
    control = distance_only_embedding(rows, cols, sigma)
    return {along: row_column_score(control, rows, cols, along=along) for along in ("both", "row", "column")}


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
