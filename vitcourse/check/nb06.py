"""Exercise checkers for notebook 06 tokens-to-token.

Each right answer is computed by package code (``vitcourse.attention.Attention``,
``vitcourse.blocks.TokenTransformer``, ``vitcourse.tokens``, ``vitcourse.models.T2T_STAGES``); each ``wrong`` entry or ``Mistake`` is a typical wrong answer, recognised and
named. Any other wrong answer gets a nudge (which section to revisit), then a pointer (which idea or symbolic
rule), never the value.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

import torch

from ..attention import Attention
from ..blocks import TokenTransformer
from ..models import T2T_STAGES
from ._core import Mistake, Verdict, check_function, int_answer, never_raises, say

__all__ = ["v_skip_function", "t2t_token_transformer_params", "t2t_window_side", "t2t_smallest_side_function"]

TOKEN_DIM = 64  # T2T's token length inside the module (official code: token_dim=64)


Stages = Sequence[tuple[int, int, int]]


# --- Exercise 06.1: the token transformer's attention with its skip through v -------------------------------


def _package_attention(
    x: torch.Tensor, w_qkv: torch.Tensor, w_proj: torch.Tensor, b_proj: torch.Tensor, scale: float
) -> torch.Tensor:
    """The right answer: ``vitcourse.attention.Attention`` (one head, no qkv bias, ``v_skip=True``) holding
    the given weights, on the step-by-step path."""
    dim, chan = x.shape[-1], w_proj.shape[0]
    attention = Attention(dim, chan, num_heads=1, qkv_bias=False, qk_scale=scale, v_skip=True, fused=False)
    with torch.no_grad():
        attention.qkv.weight.copy_(w_qkv)
        attention.proj.weight.copy_(w_proj)
        attention.proj.bias.copy_(b_proj)
        return attention(x)


def _pieces(
    x: torch.Tensor, w_qkv: torch.Tensor, scale: float, axis: int = -1
) -> tuple[torch.Tensor, torch.Tensor]:
    """(weights @ v, v) for one head: the attention's mix before the projection, and v."""
    q, k, v = (x @ w_qkv.T).chunk(3, dim=-1)  # each (B, N, chan)
    weights = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=axis)  # (B, N, N)
    return weights @ v, v


def _with_skip(
    x: torch.Tensor,
    w_qkv: torch.Tensor,
    w_proj: torch.Tensor,
    b_proj: torch.Tensor,
    scale: float,
    axis: int = -1,
) -> torch.Tensor:
    """The right computation with a chosen scale and softmax axis (to build the mistaken variants)."""
    mixed, v = _pieces(x, w_qkv, scale, axis)
    return v + mixed @ w_proj.T + b_proj


V_SKIP_MISTAKES = [
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _pieces(x, w_qkv, scale)[0] @ w_proj.T + b_proj,
        "the skip is missing: the token transformer's attention adds v to its projected output (section 2, "
        "why the skip goes through V).",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: sum(_pieces(x, w_qkv, scale)) @ w_proj.T + b_proj,
        "you added v before the projection, so v went through proj too; the skip adds v to the projected "
        "output, after proj.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: x + _pieces(x, w_qkv, scale)[0] @ w_proj.T + b_proj,
        "you added x, the input. That runs only when dim equals chan, as in this test; in T2T's first token "
        f"transformer x has length dim = {T2T_STAGES[0][0] ** 2} and the output length chan = {TOKEN_DIM}, so x + "
        "out raises a size error. The skip adds the tensor of length chan made from x: v.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, scale, axis=-2),
        "softmax over the wrong axis: each query's weights over the keys (the last axis of q k^T) must sum "
        "to 1.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, 1.0),
        "the scores are not scaled: multiply q k^T by the argument `scale`.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, 1 / scale),
        "you divided the scores by `scale`; it is already the factor to multiply them by.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, w_proj.shape[0] ** -0.5),
        "you scaled by chan ** -0.5 yourself; use the argument `scale` (T2T takes its scale from dim, not "
        "chan: section 2, the scale).",
    ),
]

_X_SKIP_RAISES = (
    "adding the input x fails: x has length dim = {dim}, while q, k, v and the projected output have length "
    "chan = {chan}, and tensors of different lengths cannot be added. The skip adds the tensor of length chan "
    "made from x: v."
)


def _v_skip_cases() -> list[tuple[tuple, torch.Tensor]]:
    """Tokens and weights (seeded) for (batch, tokens, dim, chan, scale): dim == chan first (where adding x
    runs, so that mistake is recognised), then T2T's sizes with T2T's scale, then others."""
    gen = torch.Generator().manual_seed(6)
    cases = []
    for batch, n, dim, chan, scale in (
        (2, 6, 8, 8, 8**-0.5),
        (2, 10, 49, 64, 49**-0.5),
        (1, 7, 12, 4, 0.3),
        (3, 5, 9, 16, 0.5),
    ):
        x = torch.randn(batch, n, dim, generator=gen)
        w_qkv = torch.randn(3 * chan, dim, generator=gen) * dim**-0.5  # q, k, v entries of about unit size
        w_proj = torch.randn(chan, chan, generator=gen) * chan**-0.5
        b_proj = 0.1 * torch.randn(chan, generator=gen)
        args = (x, w_qkv, w_proj, b_proj, scale)
        cases.append((args, _package_attention(*args)))
    return cases


@never_raises
def v_skip_function(func: object) -> Verdict:
    """Exercise 06.1: ``func(x, w_qkv, w_proj, b_proj, scale)``, one head of a token transformer's attention
    with its skip through v, as ``Attention(dim, chan, 1, qkv_bias=False, qk_scale=scale, v_skip=True)``."""
    what = "your token attention"
    cases = _v_skip_cases()
    if callable(func):  # adding x where its length differs from chan raises: name that mistake
        args = next(a for a, _ in cases if a[0].shape[-1] != a[2].shape[0])
        dim, chan = args[0].shape[-1], args[2].shape[0]
        try:
            with torch.no_grad():
                func(*args)
        except RuntimeError as err:
            sizes = {int(n) for n in re.findall(r"size of tensor \w \((\d+)\)", str(err))}
            if sizes == {dim, chan}:
                return say(False, f"{what}: {_X_SKIP_RAISES.format(dim=dim, chan=chan)}")
        except Exception:  # any other failure is reported by check_function below
            pass
    return check_function(
        func,
        what,
        cases,
        mistakes=V_SKIP_MISTAKES,
        nudge="Revisit section 2: the equation for Y, and why the skip goes through V.",
        pointer="Cut x @ w_qkv.T into three equal parts along its last axis, in the order q, k, v; the weights "
        "are a softmax over the keys' axis; proj acts on weights @ v, and the skip is added after proj.",
    )


# --- Exercise 06.2: parameters of the first token transformer on RGB images ---------------------------------


@never_raises
def t2t_token_transformer_params(answer: object) -> Verdict:
    """Exercise 06.2: parameters of T2T's first token transformer (both LayerNorms, qkv, proj, the MLP) on RGB
    224 x 224 images, counted by ``TokenTransformer.parameter_count``."""
    kernel = T2T_STAGES[0][0]
    dim = 3 * kernel * kernel  # RGB: each 7 x 7 window holds 3 channels
    chan = TOKEN_DIM
    right = TokenTransformer.parameter_count(dim, chan)  # one head, MLP ratio 1, no qkv bias: T2T's block
    norms = 2 * dim + 2 * chan
    mlp = 2 * (chan * chan + chan)
    attention = dim * 3 * chan + chan * chan + chan
    wrong = {
        TokenTransformer.parameter_count(kernel * kernel, chan): "that is the count for a one-channel image: "
        "an RGB window holds the pixels of all three channels, and norm1 and qkv act on that length.",
        right
        - norms: "the two LayerNorms are missing: each holds a scale and a shift per entry of the token "
        "it normalises.",
        right
        - dim
        - chan: "a LayerNorm holds two vectors, a scale and a shift, each as long as the token it "
        "normalises.",
        right
        - 2 * dim
        + 2 * chan: "norm1 acts on the token *coming in*, of length dim (one RGB window), not on "
        "length chan.",
        right + 3 * chan: "T2T's qkv layer has no bias (qkv_bias=False); proj and the MLP's layers have one.",
        right
        - 3 * chan: "only the qkv layer lacks a bias; proj and the two layers of the MLP have one each.",
        right - mlp + (chan * 4 * chan + 4 * chan) + (4 * chan * chan + chan): "that "
        "MLP is four times wider than T2T's: a token transformer's MLP has ratio 1, hidden width chan.",
        attention: "that is the attention alone (qkv and proj); the token transformer also holds two LayerNorms "
        "and an MLP.",
        dim * 3 * chan: "that is the qkv layer alone; count every layer of the block.",
    }
    return int_answer(
        answer,
        right,
        "parameters of the first token transformer on RGB 224 x 224",
        "Revisit section 2: the token transformer's layers (two LayerNorms, qkv, proj, the MLP) and the token "
        "length each one acts on.",
        wrong=wrong,
        pointer="Count layer by layer: a LayerNorm over n entries holds a scale and a shift of n entries each; a "
        "linear layer from length a to length b holds a x b weights, plus b biases where it has a bias; norm1 "
        "and qkv read one window of all the image's channels, everything after qkv has length token_dim.",
    )


# --- Exercise 06.3: how wide a square one final token's windows cover ---------------------------------------


def _window_side(stages: Stages) -> int:
    """Pixels across the square one final token's windows cover, away from the edges: each stage's window of
    k cells adds k - 1 steps of the current grid, whose cells lie the product of the earlier strides apart."""
    side, step = 1, 1
    for k, s, _ in stages:
        side += (k - 1) * step
        step *= s
    return side


def _window_side_one_stride(stages: Stages, which: str) -> int:
    """A slip: each later grid's step taken as one stride (the ``"first"`` stage's, or the ``"previous"``
    stage's) instead of the product of all the earlier strides."""
    side = stages[0][0]
    for i in range(1, len(stages)):
        step = stages[0][1] if which == "first" else stages[i - 1][1]
        side += (stages[i][0] - 1) * step
    return side


@never_raises
def t2t_window_side(answer: object) -> Verdict:
    """Exercise 06.3: pixels across the square of the image one final token's windows cover (T2T's three
    soft splits, token transformers left aside, a token away from the edges)."""
    kernels = [k for k, _, _ in T2T_STAGES]
    strides = 1
    for _, s, _ in T2T_STAGES:
        strides *= s
    product = 1
    for k in kernels:
        product *= k
    cells_as_pixels = sum(kernels) - (len(kernels) - 1)  # each later window counted as k pixels
    whole_kernels = (
        _window_side([(k + 1, s, p) for k, s, p in T2T_STAGES]) - 1
    )  # k steps per window, not k - 1
    wrong = {
        product: "you multiplied the kernels: neighbouring windows overlap, so a window of k cells is not k "
        "whole earlier windows side by side.",
        cells_as_pixels: "you counted each later window's cells as single pixels; a cell of a rebuilt grid "
        "stands for a whole earlier window, and neighbouring cells start several pixels apart.",
        _window_side(T2T_STAGES[:-1]): "that is after two soft splits; T2T makes three.",
        kernels[0]: "that is the first soft split's window only; T2T makes three.",
        _window_side_one_stride(T2T_STAGES, "first"): "one step of the last rebuilt grid is the product of "
        "*both* earlier strides in pixels, not the first stride again.",
        _window_side_one_stride(
            T2T_STAGES, "previous"
        ): "one step of the last rebuilt grid is the product of "
        "*both* earlier strides in pixels, not the last stride alone.",
        whole_kernels: "a window of k cells spans k - 1 steps between its first and its last cell, plus the "
        "width of that last cell.",
        strides: "that is how far apart neighbouring final tokens start (the product of the strides), not how "
        "wide a square one token's windows cover.",
    }
    return int_answer(
        answer,
        _window_side(T2T_STAGES),
        "pixels across one final token's windows",
        "Revisit section 1 (where windows start, every s pixels) and section 4 (each stage splits the grid "
        "the previous one rebuilt).",
        wrong=wrong,
        pointer="Build it up a stage at a time: the first window is k pixels wide; a window of k cells of a "
        "rebuilt grid adds k - 1 steps of that grid, and one step of a grid is the product of the strides of "
        "the stages before it, in pixels.",
    )


# --- Exercise 06.4: the smallest side that gives a number of tokens -----------------------------------------


def _undo(
    target: int, stages: Stages, one_stage: Callable[[int, int, int, int], int], backwards: bool = True
) -> int:
    """Undo the soft splits one at a time (last first when ``backwards``) with ``one_stage(t, k, s, p)``."""
    side = target
    for k, s, p in reversed(stages) if backwards else stages:
        side = one_stage(side, k, s, p)
    return side


def _smallest_side(target: int, stages: Stages) -> int:
    """Smallest side n whose chain of soft splits gives ``target`` tokens: undo floor((n + 2p - k) / s) + 1 = t."""
    return _undo(target, stages, lambda t, k, s, p: (t - 1) * s + k - 2 * p)


# Typical wrong ways to undo the soft splits, as functions of (target, stages) -> side: a slip in undoing
# floor((n + 2p - k) / s) + 1 = t, in the order of the stages, or in which side is asked for.
def _no_padding(target: int, stages: Stages) -> int:
    return _undo(target, stages, lambda t, k, s, p: (t - 1) * s + k)


def _no_minus_one(target: int, stages: Stages) -> int:
    return _undo(target, stages, lambda t, k, s, p: t * s + k - 2 * p)


def _first_stage_first(target: int, stages: Stages) -> int:
    return _undo(target, stages, lambda t, k, s, p: (t - 1) * s + k - 2 * p, backwards=False)


def _largest(target: int, stages: Stages) -> int:
    return _smallest_side(target + 1, stages) - 1


def _strides_only(target: int, stages: Stages) -> int:
    return _undo(target, stages, lambda t, k, s, p: t * s)


_SAME_SIDE_SLIP = (
    "t windows need t - 1 strides plus one kernel, and the padding supplies some of those pixels; with s = 2p "
    "(T2T's stages) leaving out the padding and counting t strides instead of t - 1 give the same side, so check "
    "both."
)
SIDE_MISTAKES = [
    Mistake(_no_padding, f"your sides are larger: you left out the padding (or the - 1); {_SAME_SIDE_SLIP}"),
    Mistake(
        _no_minus_one,
        f"your sides are larger: you counted t strides (or left out the padding); {_SAME_SIDE_SLIP}",
    ),
    Mistake(
        _first_stage_first,
        "undo the stages from the last to the first: the last split's smallest input is the grid the earlier "
        "stages must produce.",
    ),
    Mistake(
        _largest,
        "that is the largest side giving this many tokens (one less than the smallest side giving one more); "
        "the task asks for the smallest.",
    ),
    Mistake(
        _strides_only,
        "multiplying by the strides ignores the kernels and the padding: the last window needs a whole kernel, "
        "and the padding supplies pixels on both sides.",
    ),
]


@never_raises
def t2t_smallest_side_function(func: object) -> Verdict:
    """Exercise 06.4: ``func(target, stages)`` must return the smallest side giving ``target`` tokens on it."""
    vit = [(16, 16, 0)]
    cases = [
        ((target, stages), _smallest_side(target, stages))
        for target, stages in (
            (14, T2T_STAGES),
            (4, T2T_STAGES),
            (7, T2T_STAGES),
            (14, vit),
            (10, [(3, 2, 1)]),
            (5, [(20, 10, 5)]),
            (3, [(5, 3, 1), (3, 2, 1)]),
        )
    ]
    return check_function(
        func,
        "your smallest side",
        cases,
        mistakes=SIDE_MISTAKES,
        nudge="Revisit the count formula (notebook 02, and the start of section 1 here): undo it for one stage, "
        "then chain the stages.",
        pointer="For one stage, count the pixels t windows need: each window after the first starts one stride "
        "later, the last one needs a whole kernel, and the padding supplies p pixels on each side. Undo the "
        "last stage first; tokens.count_tokens checks a candidate side.",
    )
