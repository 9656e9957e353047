"""Turning an image into tokens: ViT's non-overlapping patches and T2T's overlapping soft split.

Both are one call of ``nn.Unfold`` (``F.unfold``): a window of ``kernel x kernel`` pixels slides over the
(padded) image with a given stride, and each window, flattened channel by channel, becomes one token of length
``C * kernel**2``. ViT's patches are the special case ``stride = kernel``, ``padding = 0``.

Shapes (B = batch, C = channels, H x W = image, N = tokens):

* :func:`patchify` / :func:`soft_split`: ``(B, C, H, W) -> (B, N, C * k * k)``
* :class:`PatchTokenizer`: ``(B, C, H, W) -> (B, N, D)``, split then a linear projection to D
* :func:`rebuild_image`: ``(B, H * W, C) -> (B, C, H, W)``, the step T2T takes between its stages
* :func:`count_tokens`: the token grid, ``rows x cols``, without building any tensor
* :func:`stage_grids`: the token grid after each soft split of a chain of them (the T2T module's walk,
  default :data:`T2T_STAGES`), each split working on the previous grid

Images and tokens must hold real floating-point numbers (float32, float64, float16, bfloat16; the result keeps
the dtype): an integer, bool or complex tensor is refused with a TypeError that says how to convert it, e.g.
``x.float() / 255`` for an 8-bit picture. :class:`PatchTokenizer` casts floating images to its weight's dtype.
Sparse tensors are refused (``x.to_dense()``); a meta tensor (a shape with no numbers) gives a meta result of
the right shape, so a model built on the meta device can be run to find its shapes. A result that would
exceed :data:`~vitcourse._validate.LARGEST_ALLOCATION` elements (a huge kernel and padding, say) is refused
before it is allocated.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ._validate import (
    allocatable,
    check_image,
    common_divisors,
    image_size,
    listing,
    non_negative_int,
    positive_int,
    real_tensor,
    tensor_of_rank,
)

__all__ = [
    "TokenCount",
    "T2T_STAGES",
    "count_tokens",
    "stage_grids",
    "t2t_stride_padding",
    "patchify",
    "PatchTokenizer",
    "soft_split",
    "SoftSplit",
    "rebuild_image",
    "unsplit",
    "window_corners",
    "window_reach",
    "check_stages",
]


#: The T2T module's default soft splits, (kernel, stride, padding) per stage.
T2T_STAGES: tuple[tuple[int, int, int], ...] = ((7, 4, 2), (3, 2, 1), (3, 2, 1))


class TokenCount(NamedTuple):
    """How many tokens a sliding window makes: ``rows`` down, ``cols`` across, ``total = rows * cols``."""

    rows: int
    cols: int
    total: int


def count_tokens(height: int, width: int, kernel: int, stride: int, padding: int) -> TokenCount:
    """Count the tokens that ``nn.Unfold(kernel, stride=stride, padding=padding)`` makes from an image.

    Along each side the count is ``floor((side + 2 * padding - (kernel - 1) - 1) / stride + 1)``
    (nn.Unfold's formula with dilation 1).

    Args:
        height: image rows H (>= 1).
        width: image columns W (>= 1).
        kernel: window side k (>= 1).
        stride: step between windows s (>= 1).
        padding: zeros added on every side p (>= 0).

    Returns:
        ``TokenCount(rows, cols, total)``; rows comes first, as in a (H, W) array.

    Raises:
        ValueError: the window does not fit in the padded image (no token at all), or an argument is out of range.
        TypeError: an argument is not an int.
    """
    positive_int("height", height)
    positive_int("width", width)
    positive_int("kernel", kernel)
    positive_int("stride", stride)
    non_negative_int("padding", padding)
    padded_h, padded_w = height + 2 * padding, width + 2 * padding
    if kernel > min(padded_h, padded_w):
        short = " and ".join(
            side for side, size in (("height", padded_h), ("width", padded_w)) if kernel > size
        )
        raise ValueError(
            f"kernel={kernel} is larger than the padded {short} (the padded image is {padded_h} x {padded_w} with "
            f"padding={padding}), so no window fits and there are no tokens; use kernel <= "
            f"{min(padded_h, padded_w)} or more padding"
        )
    rows = (padded_h - (kernel - 1) - 1) // stride + 1
    cols = (padded_w - (kernel - 1) - 1) // stride + 1
    return TokenCount(rows, cols, rows * cols)


def stage_grids(
    height: int, width: int, stages: Sequence[tuple[int, int, int]] = T2T_STAGES
) -> list[TokenCount]:
    """The token grid after each soft split of a chain, each split applied to the previous split's grid.

    This is the walk the T2T module makes: between two splits the tokens are rebuilt into an image of
    ``rows x cols`` pixels (not a square root, so any H x W works), and the next split counts on that image.

    Args:
        height: image rows H.
        width: image columns W.
        stages: (kernel, stride, padding) per split; default :data:`T2T_STAGES`, T2T's (7, 4, 2), (3, 2, 1), (3, 2, 1).

    Returns:
        One :class:`TokenCount` per stage; the last one's ``total`` is the number of tokens out.

    Raises:
        ValueError: no stages, or a window that does not fit the grid it is applied to.
    """
    stages = check_stages(stages)
    grids = []
    for kernel, stride, padding in stages:
        grid = count_tokens(height, width, kernel, stride, padding)
        grids.append(grid)
        height, width = grid.rows, grid.cols
    return grids


def check_stages(stages: object) -> tuple[tuple[int, int, int], ...]:
    """``stages`` as a tuple of (kernel, stride, padding) triples of ints, or a TypeError/ValueError naming it."""
    layout = "a sequence of (kernel, stride, padding) triples, e.g. ((7, 4, 2), (3, 2, 1), (3, 2, 1))"
    if not isinstance(stages, Sequence) or isinstance(stages, str):
        raise TypeError(f"stages must be {layout}, got {type(stages).__name__} {stages!r:.80}")
    if len(stages) < 1:
        raise ValueError(f"stages must hold at least one (kernel, stride, padding), got {stages!r}")
    checked = []
    for i, stage in enumerate(stages):
        if not isinstance(stage, Sequence) or isinstance(stage, str) or len(stage) != 3:
            raise TypeError(
                f"stages[{i}] must be a (kernel, stride, padding) triple of ints, got {stage!r:.80}"
            )
        kernel, stride, padding = stage
        checked.append(
            (
                positive_int(f"stages[{i}] kernel", kernel),
                positive_int(f"stages[{i}] stride", stride),
                non_negative_int(f"stages[{i}] padding", padding),
            )
        )
    return tuple(checked)


def t2t_stride_padding(kernel: int) -> tuple[int, int]:
    """Stride and padding for a soft split of window ``kernel``: ``stride = ceil(k / 2)``, ``padding = ceil(k / 4)``.

    The rule is the article series' (neither the T2T paper nor its code states it); it reproduces the official
    settings (7, 4, 2) and (3, 2, 1).
    """
    positive_int("kernel", kernel)
    return math.ceil(kernel / 2), math.ceil(kernel / 4)


def _split_settings(kernel: int, stride: int | None, padding: int | None) -> tuple[int, int]:
    """``(stride, padding)`` with each ``None`` replaced by T2T's rule for ``kernel``."""
    default_stride, default_padding = t2t_stride_padding(kernel)
    return default_stride if stride is None else stride, default_padding if padding is None else padding


def soft_split(
    images: torch.Tensor, kernel: int, stride: int | None = None, padding: int | None = None
) -> torch.Tensor:
    """Cut images into overlapping windows and flatten each into a token (T2T's soft split).

    Args:
        images: tensor of shape (B, C, H, W).
        kernel: window side k.
        stride: step between windows; ``None`` takes T2T's ``ceil(k / 2)``.
        padding: zeros on every side; ``None`` takes T2T's ``ceil(k / 4)``.

    Returns:
        Tokens of shape (B, N, C * k * k), N from :func:`count_tokens`, windows in row-major order.
    """
    tensor_of_rank("images", images, 4, "(B, C, H, W)", shapes_only=True)  # a meta image gives meta tokens
    real_tensor("images", images, shapes_only=True)
    stride, padding = _split_settings(kernel, stride, padding)
    grid = count_tokens(images.shape[2], images.shape[3], kernel, stride, padding)  # raises if no token
    batch, chans = images.shape[:2]
    allocatable(
        "the tokens",
        batch * grid.total * chans * kernel**2,
        images=tuple(images.shape),
        kernel=kernel,
        stride=stride,
        padding=padding,
    )
    cols = F.unfold(images, kernel_size=kernel, stride=stride, padding=padding)  # (B, C*k*k, N)
    return cols.transpose(1, 2)  # (B, N, C*k*k)


def _check_patch_size(height: int, width: int, patch_size: int) -> None:
    positive_int("patch_size", patch_size)
    if height % patch_size or width % patch_size:
        raise ValueError(
            f"patch_size={patch_size} does not divide the image ({height} x {width}); "
            f"sizes that divide both sides: {listing(common_divisors(height, width))}"
        )


def patchify(images: torch.Tensor, patch_size: int) -> torch.Tensor:
    """Cut images into non-overlapping ``patch_size x patch_size`` patches and flatten each into a token.

    Args:
        images: tensor of shape (B, C, H, W); ``patch_size`` must divide H and W.
        patch_size: patch side P.

    Returns:
        Tokens of shape (B, H * W / P**2, C * P**2), patches numbered row by row.
    """
    tensor_of_rank("images", images, 4, "(B, C, H, W)", shapes_only=True)
    real_tensor("images", images, shapes_only=True)
    _check_patch_size(images.shape[2], images.shape[3], patch_size)
    return soft_split(images, patch_size, stride=patch_size, padding=0)


class SoftSplit(nn.Module):
    """A soft split as a module: ``(B, C, H, W) -> (B, N, C * k * k)``; see :func:`soft_split`."""

    def __init__(self, kernel: int, stride: int | None = None, padding: int | None = None) -> None:
        super().__init__()
        stride, padding = _split_settings(kernel, stride, padding)
        self.kernel = kernel
        self.stride = positive_int("stride", stride)
        self.padding = non_negative_int("padding", padding)

    def grid(self, height: int, width: int) -> TokenCount:
        """The token grid this split makes from an ``height x width`` image."""
        return count_tokens(height, width, self.kernel, self.stride, self.padding)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return soft_split(images, self.kernel, self.stride, self.padding)

    def extra_repr(self) -> str:
        return f"kernel={self.kernel}, stride={self.stride}, padding={self.padding}"


class PatchTokenizer(nn.Module):
    """ViT's patch embedding: split into P x P patches (nn.Unfold), then project each to length D (nn.Linear).

    This equals ``nn.Conv2d(C, D, kernel_size=P, stride=P)`` followed by flattening, when the linear weight is
    the convolution weight reshaped to (D, C * P * P). The attribute ``proj`` carries timm's name
    (``patch_embed.proj``); only the weight's layout differs (see ``vitcourse.checkpoints``).

    Args:
        img_size: (H, W) of the images this tokenizer accepts.
        patch_size: patch side P; must divide H and W.
        in_chans: channels C.
        embed_dim: the model width D (the length of each token after the projection).

    Shapes: ``(B, C, H, W) -> (B, N, D)`` with N = H * W / P**2.
    """

    def __init__(self, img_size: tuple[int, int], patch_size: int, in_chans: int, embed_dim: int) -> None:
        super().__init__()
        height, width = image_size(img_size)
        _check_patch_size(height, width, patch_size)
        self.img_size = (height, width)
        self.patch_size = patch_size
        self.in_chans = positive_int("in_chans", in_chans)
        self.embed_dim = positive_int("embed_dim", embed_dim)
        allocatable(
            "PatchTokenizer's parameters",
            self.parameter_count(patch_size, in_chans, embed_dim),
            patch_size=patch_size,
            in_chans=in_chans,
            embed_dim=embed_dim,
        )
        self.grid = count_tokens(height, width, patch_size, patch_size, 0)
        self.num_patches = self.grid.total
        self.proj = nn.Linear(in_chans * patch_size**2, embed_dim)

    @staticmethod
    def parameter_count(patch_size: int, in_chans: int, embed_dim: int) -> int:
        """The parameters a tokenizer with these settings holds (the projection's weight and bias), without
        building it."""
        return (in_chans * patch_size**2 + 1) * embed_dim

    def split(self, images: torch.Tensor) -> torch.Tensor:
        """The first step alone: ``(B, C, H, W) -> (B, N, C * P**2)``."""
        images = check_image(images, self.in_chans, self.img_size, like=self.proj.weight)  # cast to its dtype
        return patchify(images, self.patch_size)

    def forward(self, images: torch.Tensor) -> torch.Tensor:
        return self.proj(self.split(images))  # (B, N, D)


def rebuild_image(tokens: torch.Tensor, height: int, width: int) -> torch.Tensor:
    """Lay a sequence of tokens back onto a 2-D grid: token i becomes pixel (i // width, i % width).

    Each token's entries become the channels of its pixel. This is how T2T turns the output of a token
    transformer into an image for its next soft split; it works for any ``height x width``.

    Args:
        tokens: tensor of shape (B, N, C) with N == height * width.
        height: rows of the rebuilt image.
        width: columns of the rebuilt image.

    Returns:
        Tensor of shape (B, C, height, width).
    """
    tensor_of_rank("tokens", tokens, 3, "(B, N, C)", shapes_only=True)  # meta tokens give a meta image
    positive_int("height", height)
    positive_int("width", width)
    batch, n, chans = tokens.shape
    if n != height * width:
        raise ValueError(
            f"tokens has {n} tokens but height * width = {height} * {width} = {height * width}; "
            f"they must be equal (use count_tokens to find the grid)"
        )
    return tokens.transpose(1, 2).reshape(batch, chans, height, width)  # (B, C, H, W)


def unsplit(
    tokens: torch.Tensor,
    height: int,
    width: int,
    kernel: int,
    stride: int | None = None,
    padding: int | None = None,
) -> torch.Tensor:
    """Undo :func:`soft_split`: put every window back in its place and average where windows overlap.

    Which pixels come back: ``unsplit(soft_split(x, ...), ...)`` equals ``x`` (up to rounding) at every pixel
    that at least one window covers, and is 0 at every pixel that no window covers. Pixel (r, c) is covered
    when some window's rows include r and some window's columns include c; the windows' rows start at
    ``i * stride - padding`` (i = 0 .. rows - 1, see :func:`window_corners`) and run for ``kernel`` rows, and
    likewise for columns. So a row is missed when it lies in a gap between windows (``stride > kernel``), above
    the first window (``padding >= kernel``), or below the last one: the last window ends ``(side + 2 *
    padding - kernel) % stride`` pixels short of the padded edge, and rows are missed there when that
    remainder exceeds ``padding``. Example: ``soft_split(x, 9, 9, 1)`` of a 9 x 14 image makes one window
    covering rows 0-7 and columns 0-7; row 8 and columns 8-13 come back as 0. With ``stride <= kernel``,
    ``padding < kernel`` and the remainder ``<= padding`` along both sides, every pixel comes back.

    Args:
        tokens: tensor of shape (B, N, C * k * k), as :func:`soft_split` returns.
        height, width: size of the image before the split.
        kernel, stride, padding: the split's settings (``None`` takes T2T's rule, as in :func:`soft_split`).

    Returns:
        Tensor of shape (B, C, height, width).
    """
    tensor_of_rank("tokens", tokens, 3, "(B, N, C * k * k)", shapes_only=True)
    real_tensor("tokens", tokens, shapes_only=True)
    stride, padding = _split_settings(kernel, stride, padding)
    grid = count_tokens(height, width, kernel, stride, padding)
    if tokens.shape[1] != grid.total or tokens.shape[2] % (kernel * kernel):
        raise ValueError(
            f"tokens has shape {tuple(tokens.shape)}; a split of a {height} x {width} image with kernel={kernel}, "
            f"stride={stride}, padding={padding} makes {grid.total} tokens of length C * {kernel * kernel}"
        )
    chans = tokens.shape[2] // (kernel * kernel)
    allocatable("the rebuilt images", tokens.shape[0] * chans * height * width, height=height, width=width)
    settings = {"output_size": (height, width), "kernel_size": kernel, "stride": stride, "padding": padding}
    summed = F.fold(tokens.transpose(1, 2), **settings)  # (B, C, H, W)
    ones = torch.ones_like(tokens[:1, :, : kernel * kernel]).transpose(1, 2)  # (1, k*k, N)
    cover = F.fold(ones, **settings)  # (1, 1, H, W): how many windows hold each pixel
    return summed / cover.clamp(min=1)


def window_corners(height: int, width: int, kernel: int, stride: int, padding: int) -> np.ndarray:
    """Top-left corners of every window, in the unpadded image's pixel coordinates (can be negative).

    Returns:
        Integer array of shape (N, 2) of (row, col), in the order the tokens come out of :func:`soft_split`.
    """
    grid = count_tokens(height, width, kernel, stride, padding)
    allocatable(
        "the window corners", 2 * grid.total, height=height, width=width, stride=stride, padding=padding
    )
    rows = np.arange(grid.rows) * stride - padding
    cols = np.arange(grid.cols) * stride - padding
    rr, cc = np.meshgrid(rows, cols, indexing="ij")
    return np.stack([rr.ravel(), cc.ravel()], axis=1)


def windows_holding(
    square: tuple[int, int, int, int], height: int, width: int, kernel: int, stride: int, padding: int
) -> list[int]:
    """The windows (counted from 0, in token order) of a sliding window that hold the rectangle
    ``square = (top, left, rows, cols)`` of a ``height x width`` image whole: its rows and its columns both
    lie inside the window's."""
    top, left, rows, cols = square
    corners = window_corners(height, width, kernel, stride, padding)  # (N, 2) top-left (row, col)
    inside = (
        (corners[:, 0] <= top)
        & (top + rows <= corners[:, 0] + kernel)
        & (corners[:, 1] <= left)
        & (left + cols <= corners[:, 1] + kernel)
    )
    return np.flatnonzero(inside).tolist()


def patches_meeting(square: tuple[int, int, int, int], width: int, patch_size: int) -> list[int]:
    """The non-overlapping ``patch_size`` patches (numbered from 0, row by row, as the course counts) of an image
    ``width`` pixels wide that hold part of the rectangle ``square = (top, left, rows, cols)``."""
    top, left, rows, cols = square
    per_row = width // patch_size
    return sorted(
        {
            (r // patch_size) * per_row + c // patch_size
            for r in range(top, top + rows)
            for c in range(left, left + cols)
        }
    )


def entries_per_token(mask: torch.Tensor) -> dict[int, tuple[int, int, int]]:
    """Where a (N, length) boolean mask over a token matrix is True, token by token: each token that holds a
    True entry -> (how many, first position, last position), both ends included; tokens without one are left out."""
    if not isinstance(mask, torch.Tensor) or mask.dim() != 2:
        raise ValueError(f"mask must be a (tokens, entries) tensor, got {type(mask).__name__}")
    found = {}
    for t, row in enumerate(mask.bool()):
        where = row.nonzero().flatten()
        if where.numel():
            found[t] = (int(where.numel()), int(where[0]), int(where[-1]))
    return found


def window_reach(height: int, width: int, stages: Sequence[tuple[int, int, int]], token: int) -> torch.Tensor:
    """Which pixels of a ``height`` x ``width`` image the windows of final token ``token`` cover.

    Runs the soft splits ``stages`` ((kernel, stride, padding) each) with a rebuild between two splits and no
    token transformer, on a blank image, and backpropagates the sum of the token's entries to the image: a pixel
    the token's windows never hold gets a gradient of exactly 0 (every other pixel a positive count).

    Args:
        height, width: the image's size in pixels.
        stages: the soft splits in order, such as :data:`T2T_STAGES`.
        token: the final token's index on the last split's grid (row-major, from 0).

    Returns:
        A bool tensor of shape ``(height, width)``: True where the token's windows reach.
    """
    stages = check_stages(stages)
    probe = torch.zeros(
        1, 1, positive_int("height", height), positive_int("width", width), requires_grad=True
    )
    img = probe
    for i, (k, s, p) in enumerate(stages):
        grid = count_tokens(img.shape[2], img.shape[3], k, s, p)
        toks = soft_split(img, k, s, p)  # (1, N, C * k * k)
        if i < len(stages) - 1:
            img = rebuild_image(toks, grid.rows, grid.cols)  # (1, C * k * k, rows, cols)
    if isinstance(token, bool) or not isinstance(token, int) or not 0 <= token < toks.shape[1]:
        raise ValueError(f"token must be a whole number from 0 to {toks.shape[1] - 1}, got {token!r}")
    (grad,) = torch.autograd.grad(toks[0, token].sum(), probe)
    return grad[0, 0] != 0
