"""Multi-head self-attention, step by step or fused.

For tokens ``x`` of shape (B, N, dim) and ``chan`` channels split over ``num_heads`` heads
(head_dim = chan / num_heads):

    Q, K, V = split(x @ W_qkv)                 each (B, heads, N, head_dim)
    A = softmax(Q K^T * scale)                 (B, heads, N, N), scale = head_dim ** -0.5 unless given
    out = merge_heads(A V) @ W_proj + b_proj   (B, N, chan)

The **step-by-step** path computes and can return every intermediate (q, k, v, scores, weights, heads); the
**fused** path hands the same computation to ``F.scaled_dot_product_attention``, which can avoid storing the
N x N matrix (its flash and memory-efficient kernels do; its plain math fallback builds it). The fused path is
used whenever ``fused`` is on and no intermediates are asked for.

When the token length changes (dim != chan, as in T2T's token transformers) the usual residual ``x + attn(x)``
cannot be added; T2T adds ``v`` instead. That skip is chosen by the explicit argument ``v_skip``.
"""

from __future__ import annotations

import itertools
from typing import NamedTuple

import torch
import torch.nn.functional as F
from torch import nn

from ._validate import (
    allocatable,
    check_tokens,
    divisors,
    finite_float,
    flag,
    instance_of,
    listing,
    non_negative_int,
    positive_int,
    real_tensor,
)

__all__ = [
    "Attention",
    "AttentionSteps",
    "ClearestColumn",
    "ClearestRow",
    "clearest_column",
    "clearest_row",
    "map_questions",
    "set_fused",
]


class AttentionSteps(NamedTuple):
    """Every intermediate of one attention call (step-by-step path). Shapes for B, heads, N, head_dim, chan."""

    q: torch.Tensor  # (B, heads, N, head_dim)
    k: torch.Tensor  # (B, heads, N, head_dim)
    v: torch.Tensor  # (B, heads, N, head_dim)
    scores: torch.Tensor  # (B, heads, N, N), Q K^T already multiplied by the scale
    weights: torch.Tensor  # (B, heads, N, N), softmax over the last axis: each row sums to 1
    heads: torch.Tensor  # (B, heads, N, head_dim), weights @ v
    merged: torch.Tensor  # (B, N, chan), heads glued back side by side


class Attention(nn.Module):
    """Multi-head self-attention with a teaching path and a fused path.

    Args:
        dim: length of the input tokens.
        chan: channels of q, k, v and of the output (default: ``dim``).
        num_heads: heads; must divide ``chan``.
        qkv_bias: whether the qkv projection has a bias (timm's ViT: yes; T2T-ViT: no).
        qk_scale: the factor on ``Q K^T`` (a finite number > 0); ``None`` takes ``head_dim ** -0.5``.
        v_skip: add ``v`` (heads merged) to the output, T2T's skip connection for when ``dim != chan``.
        fused: use ``F.scaled_dot_product_attention`` when no intermediates are asked for.

    Parameters: ``qkv`` (dim -> 3 * chan) and ``proj`` (chan -> chan), as timm names them; that is
    ``dim * chan * 3`` (+ ``3 * chan`` bias) and ``chan**2 + chan`` weights.

    Shapes: ``(B, N, dim) -> (B, N, chan)``.
    """

    def __init__(
        self,
        dim: int,
        chan: int | None = None,
        num_heads: int = 1,
        qkv_bias: bool = False,
        qk_scale: float | None = None,
        v_skip: bool = False,
        fused: bool = True,
    ) -> None:
        super().__init__()
        self.dim = positive_int("dim", dim)
        self.chan = positive_int("chan", dim if chan is None else chan)
        self.num_heads = positive_int("num_heads", num_heads)
        if self.chan % num_heads:
            raise ValueError(
                f"num_heads={num_heads} does not divide chan={self.chan}; "
                f"valid head counts: {listing(divisors(self.chan))}"
            )
        self.head_dim = self.chan // num_heads
        self.scale = (
            self.head_dim**-0.5 if qk_scale is None else finite_float("qk_scale", qk_scale, 0, above=True)
        )
        self.v_skip = flag("v_skip", v_skip)
        self.fused = flag("fused", fused)
        flag("qkv_bias", qkv_bias)
        allocatable(
            "Attention's parameters", self.parameter_count(dim, self.chan, qkv_bias), dim=dim, chan=self.chan
        )
        self.qkv = nn.Linear(dim, self.chan * 3, bias=qkv_bias)
        self.proj = nn.Linear(self.chan, self.chan)

    @staticmethod
    def parameter_count(dim: int, chan: int, qkv_bias: bool) -> int:
        """The parameters an attention layer with these settings holds (``qkv`` and ``proj``), without building it."""
        return dim * chan * 3 + (3 * chan if qkv_bias else 0) + chan * chan + chan

    def _split(self, x: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        x = check_tokens("x", x, self.dim, like=self.qkv.weight)  # (B, N, dim), cast to the weights' dtype
        batch, n, _ = x.shape
        qkv = self.qkv(x).reshape(batch, n, 3, self.num_heads, self.head_dim)  # (B, N, 3, heads, head_dim)
        q, k, v = qkv.permute(2, 0, 3, 1, 4).unbind(0)  # each (B, heads, N, head_dim)
        return q, k, v

    def _finish(self, heads: torch.Tensor, v: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        batch, _, n, _ = heads.shape
        merged = heads.transpose(1, 2).reshape(batch, n, self.chan)  # (B, N, chan)
        out = self.proj(merged)  # (B, N, chan)
        if self.v_skip:
            out = out + v.transpose(1, 2).reshape(batch, n, self.chan)  # (B, N, chan)
        return out, merged

    def steps(self, x: torch.Tensor) -> tuple[torch.Tensor, AttentionSteps]:
        """The step-by-step path: returns the output and every intermediate (see :class:`AttentionSteps`)."""
        q, k, v = self._split(x)
        scores = (q @ k.transpose(-2, -1)) * self.scale  # (B, heads, N, N)
        weights = scores.softmax(dim=-1)  # (B, heads, N, N)
        heads = weights @ v  # (B, heads, N, head_dim)
        out, merged = self._finish(heads, v)
        return out, AttentionSteps(q, k, v, scores, weights, heads, merged)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if not self.fused:
            return self.steps(x)[0]
        q, k, v = self._split(x)
        heads = F.scaled_dot_product_attention(q, k, v, scale=self.scale)  # (B, heads, N, head_dim)
        return self._finish(heads, v)[0]

    def extra_repr(self) -> str:
        return (
            f"dim={self.dim}, chan={self.chan}, num_heads={self.num_heads}, scale={self.scale:.4g}, "
            f"v_skip={self.v_skip}, fused={self.fused}"
        )


def set_fused(model: nn.Module, fused: bool) -> int:
    """Switch every :class:`Attention` in ``model`` to the fused or the step-by-step path; returns how many."""
    instance_of("model", model, nn.Module, "a torch.nn.Module")
    fused = flag("fused", fused)
    count = 0
    for module in model.modules():
        if isinstance(module, Attention):
            module.fused = fused
            count += 1
    return count


class ClearestRow(NamedTuple):
    """Where an attention map is easiest to read (see :func:`clearest_row`); every index is 0-based."""

    index: tuple[int, ...]  # the leading indices of the map, e.g. (block, head)
    query: int  # the row
    key: int  # the column that holds the row's largest weight
    column_reading: int  # the row that holds the largest weight of column ``query``: a row/column mix-up
    ratio: float  # the row's largest weight over its second largest


def clearest_row(weights: torch.Tensor, first: int = 1) -> ClearestRow:
    """The row of a stack of attention maps whose largest weight stands out most, for reading a map by eye.

    Among the maps of ``weights`` (..., N, N) (rows: queries; columns: keys) and the rows of the queries numbered
    ``first`` or more whose largest weight falls on a key numbered ``first`` or more (``first=1`` leaves out
    token 0, a ViT's prediction token) and off the diagonal, the row whose largest weight is the most times
    larger than its second largest. Rows where reading column ``query`` instead of row ``query`` would give
    ``key`` or a neighbour of it (``key - 1``, ``key + 1``) are passed over, so that the two readings, and an
    off-by-one count, can be told apart.

    Args:
        weights: attention weights (..., N, N), each row summing to 1, with at least one leading axis.
        first: the lowest token number a query and its key may have (0 <= first < N - 1).

    Returns:
        :class:`ClearestRow`.

    Raises:
        TypeError: ``weights`` is not a real floating-point tensor, or ``first`` is not an int.
        ValueError: ``weights`` has fewer than 3 axes or its last two differ, ``first`` is out of range, or no
            row qualifies.
    """
    if not isinstance(weights, torch.Tensor):
        raise TypeError(f"weights must be a torch.Tensor of shape (..., N, N), got {type(weights).__name__}")
    real_tensor("weights", weights)
    if weights.ndim < 3 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(
            f"weights must have shape (..., N, N) with at least 3 axes, got {tuple(weights.shape)}"
        )
    n = weights.shape[-1]
    first = non_negative_int("first", first)
    if first >= n - 1:
        raise ValueError(f"first must be below N - 1 = {n - 1} for maps of N = {n} tokens, got {first}")
    w = weights.detach().to("cpu", torch.float64)
    best: ClearestRow | None = None
    for index in itertools.product(*(range(size) for size in w.shape[:-2])):
        grid = w[index]  # (N, N)
        for query in range(first, n):
            top = grid[query].topk(2)  # the row's two largest weights
            key = int(top.indices[0])
            column_reading = int(grid[:, query].argmax())  # the query that weighs key ``query`` most
            if key < first or key == query or column_reading in (key - 1, key, key + 1):
                continue
            ratio = float(top.values[0] / top.values[1])
            if best is None or ratio > best.ratio:
                best = ClearestRow(index, query, key, column_reading, ratio)
    if best is None:
        raise ValueError(
            "no row of weights has its largest weight off the diagonal and apart from its column's"
        )
    return best


class ClearestColumn(NamedTuple):
    """Where one attention map's column is easiest to read (see :func:`clearest_column`); 0-based."""

    key: int  # the column
    query: int  # the row that holds the column's largest weight
    row_reading: int  # the key with the largest weight in row ``key``: a row/column mix-up
    ratio: float  # the column's largest weight over its second largest


def clearest_column(weights: torch.Tensor, first: int = 1, skip: tuple[int, ...] = ()) -> ClearestColumn:
    """The column of one attention map whose largest weight stands out most, for reading a column by eye.

    Only the rows and columns numbered ``first`` or more take part. Among the columns not in ``skip`` whose
    largest weight lies in a row not in ``skip``, and whose row-reading (the largest weight's key in row ``key``)
    differs from that row, the one whose largest weight is the most times larger than its second largest.

    Raises:
        ValueError: ``weights`` is not (N, N), ``first`` is out of range, or no column qualifies.
    """
    real_tensor("weights", weights)
    if weights.ndim != 2 or weights.shape[0] != weights.shape[1]:
        raise ValueError(f"weights must have shape (N, N), got {tuple(weights.shape)}")
    n = weights.shape[-1]
    first = non_negative_int("first", first)
    if first >= n - 1:
        raise ValueError(f"first must be below N - 1 = {n - 1}, got {first}")
    w = weights.detach().to("cpu", torch.float64)
    best: ClearestColumn | None = None
    for key in range(first, n):
        top = w[first:, key].topk(2)  # the two largest weights of the queries numbered first or more
        query, row_reading = first + int(top.indices[0]), int(w[key].argmax())
        if key in skip or query in skip or row_reading == query or top.values[1] <= 0:
            continue
        ratio = float(top.values[0] / top.values[1])
        if best is None or ratio > best.ratio:
            best = ClearestColumn(key, query, row_reading, ratio)
    if best is None:
        raise ValueError("no column of weights qualifies")
    return best


def map_questions(weights: torch.Tensor, first: int = 1) -> tuple[ClearestRow, ClearestColumn]:
    """Two questions to read off one map of a stack of attention maps (..., N, N): the map whose clearest row
    (:func:`clearest_row`) and clearest column (:func:`clearest_column`, the row question's query and key, and
    the queries below ``first``, left out) both stand out most, judged by the smaller of their two ratios.

    Raises:
        ValueError: as :func:`clearest_row`, or no map has both a row and a column to ask about.
    """
    real_tensor("weights", weights)
    if weights.ndim < 3 or weights.shape[-1] != weights.shape[-2]:
        raise ValueError(
            f"weights must have shape (..., N, N) with at least 3 axes, got {tuple(weights.shape)}"
        )
    best: tuple[float, ClearestRow, ClearestColumn] | None = None
    for index in itertools.product(*(range(size) for size in weights.shape[:-2])):
        try:
            row = clearest_row(weights[index][None], first=first)
            column = clearest_column(weights[index], first=first, skip=(*range(first), row.query, row.key))
        except ValueError:
            continue
        score = min(row.ratio, column.ratio)
        if best is None or score > best[0]:
            best = (score, row._replace(index=index), column)
    if best is None:
        raise ValueError("no map has both a clear row and a clear column to ask about")
    return best[1], best[2]
