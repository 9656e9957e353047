"""Measures of what a trained model learned: numbers to read beside the figures of notebooks 12 and 13.

* :func:`row_column_score`: does a position embedding know the patch grid's rows and columns?
* :func:`similarity_by_distance`: its mean cosine similarity per distance on the grid, same row, same column
  and neither apart: the table that separates row and column structure from plain locality.
* :func:`distance_only_embedding` and :func:`distance_only_scores`: the locality control, an embedding whose
  similarity depends on distance alone, and the row/column scores it gets.
* :func:`smooth_random_embedding`: smooth random codes with no built-in rows or columns, the null for the fit
  below.
* :func:`row_column_beyond_locality`: the same-row and same-column terms of a least-squares fit of the
  pairs' cosine similarities, with a smooth function of distance fitted beside them: row and column structure
  beyond plain locality, as two numbers.
* :func:`attention_entropy`: how spread out is each query's attention (0 = one key, log N = all keys alike)?
* :func:`mean_attention_distance`: how far, in pixels, each head looks on average (ViT paper, Figure 7 right).
* :func:`attention_distance_bounds`: the references beside it: a head that attends only to itself, only to its
  nearest neighbours, or evenly to every patch.
* :func:`filter_components`: the principal components of a patch embedding's filters (ViT paper, Figure 7 left).
"""

from __future__ import annotations

from typing import NamedTuple

import torch

from ._validate import (
    choice,
    cpu_generator,
    finite_float,
    non_empty,
    positive_int,
    real_tensor,
    tensor_of_rank,
)
from .position import cosine_similarity_grid

__all__ = [
    "row_column_score",
    "DistanceClass",
    "similarity_by_distance",
    "similarity_by_offset",
    "distance_only_embedding",
    "distance_only_scores",
    "smooth_random_embedding",
    "LineFit",
    "row_column_beyond_locality",
    "attention_entropy",
    "mean_attention_distance",
    "attention_distance_bounds",
    "FilterComponents",
    "filter_components",
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


def similarity_by_offset(embedding: torch.Tensor, rows: int, cols: int) -> torch.Tensor:
    """The mean cosine similarity of two patches' position vectors by their offset on the grid.

    Entry (rows - 1 + dr, cols - 1 + dc) is the mean over every pair of different patches whose second patch lies
    dr patch rows below and dc patch columns to the right of the first (dr, dc negative: above, to the left). The
    centre, offset (0, 0), is a patch with itself: 1. Its middle row holds the pairs that share a patch row, its
    middle column those that share a patch column. The far corners average one pair each.

    Args:
        embedding: (N, D) or (1, N, D); with N = rows * cols + 1 the first row (the prediction token's slot)
            is left out.
        rows: patch rows (at least 1).
        cols: patch columns (at least 1).

    Returns:
        A float64 tensor of shape (2 * rows - 1, 2 * cols - 1).
    """
    positive_int("rows", rows)
    positive_int("cols", cols)
    n = rows * cols
    sims = cosine_similarity_grid(embedding, rows, cols).cpu().double().reshape(n, n)  # (N, N)
    r, c = torch.arange(n) // cols, torch.arange(n) % cols  # (N,) each: every patch's row and column
    down = r[None, :] - r[:, None] + rows - 1  # (N, N): rows down from the first patch to the second, from 0
    across = c[None, :] - c[:, None] + cols - 1  # (N, N): columns across, from 0
    offset = (down * (2 * cols - 1) + across).flatten()  # (N * N,): one index per offset
    sums = torch.zeros((2 * rows - 1) * (2 * cols - 1), dtype=torch.float64).index_add_(
        0, offset, sims.flatten()
    )
    counts = torch.zeros_like(sums).index_add_(0, offset, torch.ones(n * n, dtype=torch.float64))
    result = (sums / counts).reshape(2 * rows - 1, 2 * cols - 1)  # every offset has at least one pair
    result[rows - 1, cols - 1] = 1.0  # a patch with itself
    return result


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


def smooth_random_embedding(
    rows: int, cols: int, length: float = 1.0, dim: int = 64, generator: torch.Generator | None = None
) -> torch.Tensor:
    """Random position vectors that vary smoothly over the grid, the same way in every direction.

    Each of the ``dim / 2`` pairs of entries is a cosine and a sine of one random direction across the grid,
    ``cos(w . x)`` and ``sin(w . x)`` for the patch centre ``x`` (in patches) and ``w`` drawn from a normal with
    standard deviation ``1 / length`` on both axes (random Fourier features). Averaged over draws, the cosine
    similarity of two patches is ``exp(-distance^2 / (2 length^2))``, the Gaussian of
    :func:`distance_only_embedding`; a single draw is smooth but uneven, with chance preferences for some
    directions. That makes many draws the null for :func:`row_column_beyond_locality`: how large the row and
    column terms of a smooth code with no built-in rows or columns come out by chance.

    Args:
        rows, cols: the patch grid (at least 2 each).
        length: the scale over which the vectors change, in patches, a finite number > 0.
        dim: the vectors' length, an even number >= 2.
        generator: a ``torch.Generator`` for repeatable draws (None: the global generator).

    Returns:
        (rows * cols, dim) float64: row i is patch i's vector (no prediction token's row).
    """
    _check_grid(rows, cols)
    length = finite_float("length", length, 0, above=True)
    if positive_int("dim", dim) % 2:
        raise ValueError(f"dim must be an even number >= 2 (cosine and sine pairs), got {dim}")
    cpu_generator("generator", generator, optional=True)
    n = rows * cols
    centres = torch.stack([torch.arange(n) // cols, torch.arange(n) % cols], 1).double()  # (N, 2)
    directions = torch.randn(dim // 2, 2, generator=generator, dtype=torch.float64) / length  # (dim / 2, 2)
    angles = centres @ directions.T  # (N, dim / 2)
    return torch.cat([torch.cos(angles), torch.sin(angles)], 1)  # (N, dim)


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


class LineFit(NamedTuple):
    """The result of :func:`row_column_beyond_locality`: a least-squares fit of the pairs' cosine similarities.

    The model, for two different patches i, j a distance d apart (in patches, between the patch centres)::

        cos(i, j) ~ intercept + sum_k smooth[k] * exp(-(d - centres[k])**2 / (2 * width**2))
                    + same_row * [i and j share a row] + same_column * [i and j share a column]

    Attributes:
        same_row: how much more alike two patches of one row are than locality alone (the smooth part at their
            distance) predicts; in cosine-similarity units.
        same_column: the same for two patches of one column.
        intercept: the smooth part's constant.
        smooth: the smooth part's coefficients, one per Gaussian of ``centres``.
        centres: where the Gaussians of the distance sit, in patches: 0, width, 2 * width, ... past the largest
            distance on the grid.
        width: the Gaussians' width (standard deviation), in patches.
        r_squared: the fraction of the similarities' variance over the pairs that the fit explains (1 when the
            similarities are all equal, which the intercept reproduces exactly).
        pairs: how many pairs of patches were fitted, rows * cols * (rows * cols - 1) / 2.
    """

    same_row: float
    same_column: float
    intercept: float
    smooth: tuple[float, ...]
    centres: tuple[float, ...]
    width: float
    r_squared: float
    pairs: int

    def smooth_at(self, distance: torch.Tensor | float) -> torch.Tensor:
        """The fitted smooth part (intercept included) at ``distance`` (in patches): what locality alone predicts."""
        d = torch.as_tensor(distance, dtype=torch.float64)
        return self.intercept + _gaussians(d, torch.tensor(self.centres, dtype=torch.float64), self.width) @ (
            torch.tensor(self.smooth, dtype=torch.float64)
        )


def _gaussians(distance: torch.Tensor, centres: torch.Tensor, width: float) -> torch.Tensor:
    """(..., K): the Gaussian radial basis functions of the distance, one per centre."""
    return torch.exp(-((distance[..., None] - centres) ** 2) / (2 * width**2))


def row_column_beyond_locality(pos_embed: torch.Tensor, grid: tuple[int, int], width: float = 1.0) -> LineFit:
    """Row and column structure of a position embedding, separated from plain locality by a least-squares fit.

    The cosine similarities of all pairs of different patches (i < j) are fitted, by least squares, as a smooth
    function of the distance d between the two patch centres (in patches) plus a same-row term and a
    same-column term::

        cos(i, j) ~ c_0 + sum_k c_k exp(-(d - k * width)**2 / (2 * width**2))
                    + same_row * [same row] + same_column * [same column]

    with Gaussians centred at 0, width, 2 * width, ... up to one width past the largest distance on the grid.

    Why a fit: an embedding whose similarity only falls with distance already makes a patch's row- and
    column-mates more alike than the rest, because they are nearer on average (:func:`distance_only_scores`).
    Comparing pairs at the same distance does not help on a small grid: on 3 x 5 every distance class lies
    wholly in a row or column (1, 2, 3, 4) or wholly off them (sqrt 2, sqrt 5, sqrt 8, ...), see
    :func:`similarity_by_distance`. What does separate them is that the in-line distances and the off-line ones
    interleave (2 < sqrt 5 < sqrt 8 < 3 < sqrt 10 < ...): a function of distance that cannot wiggle between
    neighbouring distances has to pass between the two kinds of pair, and the indicator terms take what it
    cannot follow.

    How smooth: ``width`` sets it. Each Gaussian is ``width`` patches wide and they sit ``width`` apart, so the
    smooth part varies over about a patch (the default) and cannot go up and down between distances 2, sqrt 5
    and sqrt 8 (0.24 and 0.59 patches apart). A much narrower width lets it follow every distance class and
    absorb the row and column terms; a much wider one cannot follow a similarity that falls within a patch or
    two and leaves misfit that the terms may pick up. With the default, an embedding whose similarity is a
    Gaussian of the distance (width 1 to 1.5 patches) gets terms below 0.01 on grids from 3 x 5 to 12 x 20.

    What the values mean: ``same_row`` is how much higher the cosine similarity of two patches of one row is
    than the smooth part predicts for their distance; about 0 for locality alone or for random vectors, 0.5
    for vectors made of a one-hot row code next to a one-hot column code (cosine 1/2 in a line, 0 off it), 1
    for a one-hot row code alone (and then ``same_column`` is 0). Negative values mean less alike than the
    distance predicts. Distance 1 holds only row- and column-mates, so how alike neighbours are is shared
    between the smooth part and the terms; the terms are set by the pairs further apart. ``r_squared`` says
    how much of the similarities the whole fit explains: read the terms only beside a high one.

    Args:
        pos_embed: the position vectors, (N, D) or (1, N, D); with N = rows * cols + 1 the first row (the
            prediction token's slot) is left out. Real floats, finite.
        grid: the patch grid (rows, cols), each at least 2 so that some patches share neither row nor column.
        width: the width of the Gaussians of the distance, in patches, a finite number > 0 (default 1).

    Returns:
        A :class:`LineFit`.

    Raises:
        ValueError: when the grid has too few distinct distances for this width to tell the terms from the
            smooth part (e.g. 2 x 2, which has only the distances 1 and sqrt 2).
    """
    if not (isinstance(grid, tuple | list) and len(grid) == 2):
        raise TypeError(f"grid must be a pair (rows, cols), got {grid!r:.80}")
    rows = positive_int("grid[0] (rows)", grid[0])
    cols = positive_int("grid[1] (cols)", grid[1])
    if rows < 2 or cols < 2:
        raise ValueError(
            f"grid must be at least 2 x 2 so that some patches share neither row nor column, got {rows} x {cols}"
        )
    width = finite_float("width", width, 0, above=True)
    if isinstance(pos_embed, torch.Tensor) and pos_embed.ndim == 3:
        if pos_embed.shape[0] != 1:
            raise ValueError(f"pos_embed must be (N, D) or (1, N, D), got shape {tuple(pos_embed.shape)}")
        pos_embed = pos_embed[0]
    tensor_of_rank("pos_embed", pos_embed, 2, "(N, D) or (1, N, D)")
    real_tensor("pos_embed", pos_embed)
    n = rows * cols
    if pos_embed.shape[0] == n + 1:
        pos_embed = pos_embed[1:]
    elif pos_embed.shape[0] != n:
        raise ValueError(
            f"pos_embed has {pos_embed.shape[0]} rows; expected rows * cols = {n} for grid {rows} x {cols} "
            f"(or {n + 1} with a prediction token first)"
        )
    unit = torch.nn.functional.normalize(pos_embed.detach().cpu().double(), dim=-1)  # (n, D)
    if not torch.isfinite(unit).all():
        raise ValueError("pos_embed holds NaN or infinite values")
    i, j = torch.triu_indices(n, n, 1)  # each unordered pair once
    target = (unit @ unit.T)[i, j]  # (pairs,) cosine similarities
    distance, same_row, same_col = (m[i, j] for m in _grid_geometry(rows, cols))
    count = int(distance.max().item() / width) + 2  # centres up to one width past the largest distance
    centres = torch.arange(count, dtype=torch.float64) * width
    smooth = torch.cat([torch.ones_like(distance)[:, None], _gaussians(distance, centres, width)], 1)
    design = torch.cat([smooth, same_row.double()[:, None], same_col.double()[:, None]], 1)  # (pairs, K + 3)
    if torch.linalg.matrix_rank(design) < torch.linalg.matrix_rank(smooth) + 2:
        raise ValueError(
            f"grid {rows} x {cols} has too few distinct distances for width={width:g}: a smooth function of the "
            f"distance can follow every in-line and off-line pair, so the row and column terms cannot be told "
            f"apart from it; use a larger grid or a larger width"
        )
    coef = torch.linalg.lstsq(design, target[:, None], driver="gelsd").solution[:, 0]  # (K + 3,)
    residual = target - design @ coef
    total = ((target - target.mean()) ** 2).sum().item()
    r_squared = 1.0 if total <= 1e-24 else 1.0 - (residual**2).sum().item() / total
    return LineFit(
        same_row=coef[-2].item(),
        same_column=coef[-1].item(),
        intercept=coef[0].item(),
        smooth=tuple(coef[1:-2].tolist()),
        centres=tuple(centres.tolist()),
        width=width,
        r_squared=r_squared,
        pairs=len(target),
    )


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
    non_empty("weights", weights, "(..., N)")
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


def attention_distance_bounds(rows: int, cols: int, patch: int) -> dict[str, float]:
    """The references to read :func:`mean_attention_distance` against, in pixels, on a ``rows x cols`` grid.

    * "itself": every patch attends only to itself: 0.
    * "nearest": every patch attends only to its nearest other patches (left, right, above, below): ``patch``,
      the distance between neighbouring patch centres. A head below it must put weight on the query patch itself.
    * "uniform": every patch spreads its weight evenly over all patches (itself included): the mean distance
      between patch centres; a head that ignores where the patches are, as an untrained one nearly does, sits here.
    * "farthest": the largest possible, every patch attending only to the patch farthest from it.
    """
    positive_int("rows", rows)
    positive_int("cols", cols)
    positive_int("patch", patch)
    n = rows * cols
    if n < 2:
        raise ValueError(f"the grid must hold at least 2 patches, got {rows} x {cols}")
    r = torch.div(torch.arange(n), cols, rounding_mode="floor").double()
    c = (torch.arange(n) % cols).double()
    centres = torch.stack([r, c], -1) * patch  # (n, 2) in pixels
    distance = torch.cdist(centres, centres)  # (n, n)
    return {
        "itself": 0.0,
        "nearest": float(patch),
        "uniform": distance.mean().item(),
        "farthest": distance.max(-1).values.mean().item(),
    }


class FilterComponents(NamedTuple):
    """What :func:`filter_components` returns.

    Attributes:
        components: (k, C, P, P): the leading principal components of the filters, each of unit length, shaped
            like a filter; the sign of each is arbitrary (it is chosen so that its largest entry is positive).
        explained: (k,): the fraction of the filters' variance (around their mean filter) each component holds.
        mean: (C, P, P): the mean filter, taken out before the components are found.
    """

    components: torch.Tensor
    explained: torch.Tensor
    mean: torch.Tensor


def filter_components(weight: torch.Tensor, k: int | None = None) -> FilterComponents:
    """The principal components of a patch embedding's filters (the ViT paper's Figure 7, left).

    The D filters of the patch embedding (a ``Conv2d`` weight, (D, C, P, P); in this course the patch
    embedding is a linear layer on unfolded patches, so ``model.patch_embed.proj.weight.reshape(D, C, P, P)``,
    the layout ``nn.Unfold`` gives each patch's C * P * P numbers) are D points in a space of C * P * P numbers. Their principal components are the directions
    along which the filters vary most: found by an SVD of the filters, centred on their mean filter. Each
    component is a C x P x P pattern; the paper shows the first 28 of ViT-L/32's and notes that they look like
    plausible basis functions for a low-dimensional representation of the fine structure within each patch.

    Args:
        weight: (D, C, P, P) real floating-point filters.
        k: how many components (default: all, min(D - 1, C * P * P)).

    Returns:
        A :class:`FilterComponents`.
    """
    tensor_of_rank("weight", weight, 4, "(D, C, P, P), a patch embedding's Conv2d weight")
    real_tensor("weight", weight)
    d, channels, height, width = weight.shape
    if d < 2:
        raise ValueError(f"weight must hold at least 2 filters to have components, got D = {d}")
    flat = weight.detach().cpu().double().reshape(d, -1)  # (D, C * P * P)
    if not torch.isfinite(flat).all():
        raise ValueError("weight holds NaN or infinite values")
    available = min(d - 1, flat.shape[1])
    k = available if k is None else positive_int("k", k)
    if k > available:
        raise ValueError(f"k must be at most min(D - 1, C * P * P) = {available}, got {k}")
    mean = flat.mean(0)
    _, singular, vh = torch.linalg.svd(flat - mean, full_matrices=False)  # vh: (r, C * P * P)
    variance = singular**2
    total = variance.sum()
    explained = variance / total if total > 0 else torch.zeros_like(variance)
    components = vh[:k]
    peak = components.gather(1, components.abs().argmax(1, keepdim=True))  # (k, 1): the largest entry
    components = components * torch.where(peak < 0, -1.0, 1.0)
    shape = (channels, height, width)
    return FilterComponents(
        components.reshape(k, *shape).float(), explained[:k].float(), mean.reshape(shape).float()
    )
