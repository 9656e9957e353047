"""Exercise checkers for notebook 04 attention."""

from __future__ import annotations

import math

import numpy as np
import torch
import torch.nn.functional as F

from ._core import Mistake, Verdict, check_function, describe, int_answer, never_raises, say, shape_answer

__all__ = [
    "entropy_prediction",
    "attention_entropy_function",
    "scores_shape",
    "merge_heads_function",
    "attention_function",
    "attention_parameter_count",
]


@never_raises
def entropy_prediction(answer: object) -> Verdict:
    """Exercise 04.1 (prediction): which weights have the larger entropy, "scaled" or "unscaled"?"""
    what = "your prediction"
    if not isinstance(answer, str) or answer.strip().lower() not in ("scaled", "unscaled"):
        return say(False, f'{what}: write "scaled" or "unscaled", got {describe(answer)}.')
    if answer.strip().lower() == "unscaled":
        return say(
            False,
            f"{what}: not quite. Dividing the scores by sqrt(d_k) shrinks the gaps between them, so the softmax is "
            "flatter, and flatter weights have the larger entropy.",
        )
    return say(
        True, f"{what}: scaled is right: smaller gaps between scores give flatter, higher-entropy weights."
    )


def _entropies(q: torch.Tensor, k: torch.Tensor, scale: float, dim: int = -1) -> torch.Tensor:
    """Entropy in nats of every row of softmax(q k^T * scale) (softmax over ``dim``); shape (..., N)."""
    p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=dim)  # (..., N, N)
    return torch.special.entr(p).sum(dim)


def _scalar(result: object) -> object:
    """A Python number or a one-entry tensor or array as a 0-d tensor; anything else as it is."""
    if isinstance(result, bool):
        return result
    if isinstance(result, int | float | np.floating | np.integer):
        return torch.tensor(float(result), dtype=torch.float64)
    if isinstance(result, torch.Tensor) and result.numel() == 1 and not result.is_complex():
        if result.device.type != "meta":
            return result.detach().reshape(())
    return result


@never_raises
def attention_entropy_function(func: object) -> Verdict:
    """Exercise 04.1: ``func(q, k, scale)`` returns the mean row entropy (nats) of softmax(q k^T * scale)."""
    gen = torch.Generator().manual_seed(4)
    cases = []
    for shape, scale in (((2, 1, 10, 64), 1 / 8), ((2, 1, 10, 64), 1.0), ((1, 4, 7, 16), 0.25)):
        q, k = torch.randn(shape, generator=gen), torch.randn(shape, generator=gen)
        cases.append(((q, k, scale), _entropies(q, k, scale).mean().double()))
    mistakes = [
        Mistake(
            lambda q, k, s: _entropies(q, k, s, dim=-2).mean(),
            "softmax over the wrong axis: each query's weights over the keys (the last axis) must sum to 1.",
        ),
        Mistake(
            lambda q, k, s: _entropies(q, k, s).mean() / math.log(2),
            "that is the entropy in bits; use the natural logarithm (nats).",
        ),
        Mistake(
            lambda q, k, s: -_entropies(q, k, s).mean(),
            "the sign is wrong: entropy is -sum p ln p, which is never negative.",
        ),
        Mistake(lambda q, k, s: _entropies(q, k, 1.0).mean(), "you did not apply `scale` to the scores."),
        Mistake(
            lambda q, k, s: _entropies(q, k, 1 / s).mean(),
            "multiply the scores by `scale` (it is already 1/sqrt(d)); you divided by it.",
        ),
        Mistake(
            lambda q, k, s: _entropies(q, k, s).sum(),
            "you summed the entropies of the rows; return their mean (one number).",
        ),
        Mistake(
            lambda q, k, s: _entropies(q, k, s).mean() / q.shape[-2],
            "sum -p ln p over the keys of a row (do not average it), then average over the rows.",
        ),
        Mistake(
            lambda q, k, s: _entropies(q, k, s),
            "you returned one entropy per row; return their mean over every row (one number).",
        ),
    ]
    return check_function(func, "your attention_entropy", cases, normalise=_scalar, mistakes=mistakes)


_SHAPE_MISTAKES = {
    (8, 197, 197): "every head has its own score matrix: keep the head axis (batch, heads, tokens, tokens).",
    (8, 12, 197, 64): "that is Q per head (head_dim 768 / 12 = 64); Q K^T compares tokens with tokens.",
    (
        8,
        12,
        64,
        64,
    ): "Q K^T contracts the channels: it compares tokens with tokens, not channels with channels.",
    (8, 12, 196, 196): "ViT-B/16 has 196 patch tokens plus the prediction token: 197.",
    (8, 1, 197, 197): "ViT-B has 12 heads, each with its own score matrix.",
}


@never_raises
def scores_shape(answer: object) -> Verdict:
    """Exercise 04.2: shape of Q K^T in ViT-B/16 (batch 8, 196 patches + 1 token, D 768, 12 heads)."""
    what = "shape of Q K^T in ViT-B/16"
    if isinstance(answer, torch.Size | list):
        answer = tuple(answer)
    if isinstance(answer, tuple) and answer in _SHAPE_MISTAKES:
        return say(False, f"{what}: {answer} is not it: {_SHAPE_MISTAKES[answer]}")
    return shape_answer(
        answer,
        (8, 12, 197, 197),
        what,
        "Each head compares every token with every token: (batch, heads, tokens, tokens).",
    )


def _merge(o: torch.Tensor) -> torch.Tensor:
    b, h, n, d = o.shape
    return o.transpose(1, 2).reshape(b, n, h * d)  # (B, N, heads * head_dim)


@never_raises
def merge_heads_function(func: object) -> Verdict:
    """Exercise 04.3: ``func(o)`` glues (B, heads, N, head_dim) back into (B, N, heads * head_dim)."""
    gen = torch.Generator().manual_seed(6)
    cases = [
        ((o,), _merge(o))
        for o in (torch.randn(shape, generator=gen) for shape in ((2, 4, 5, 3), (1, 3, 7, 2)))
    ]
    mistakes = [
        Mistake(
            lambda o: o.reshape(o.shape[0], o.shape[2], -1),
            "heads merged in the wrong order: a reshape alone mixes tokens and heads; move the head axis next to "
            "the channels first (transpose(1, 2)), then reshape.",
        ),
        Mistake(
            lambda o: o.permute(0, 2, 3, 1).reshape(o.shape[0], o.shape[2], -1),
            "heads merged in the wrong order: the channels of the heads are interleaved; head h must fill the "
            "block of channels h * head_dim ... (h + 1) * head_dim - 1 (transpose(1, 2), then reshape).",
        ),
    ]
    return check_function(func, "your merge_heads", cases, mistakes=mistakes)


def _attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, dim: int = -1
) -> torch.Tensor:
    return torch.softmax(q @ k.transpose(-2, -1) * scale, dim=dim) @ v


def _tokens_first(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, dim: int = -1
) -> torch.Tensor:
    """Attention for the (B, N, heads, head_dim) layout: each head over the tokens; softmax over ``dim`` of
    the (B, heads, N, N) weights. Returns (B, N, heads, head_dim)."""
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))  # each (B, heads, N, head_dim)
    return _attention(qh, kh, vh, scale, dim=dim).transpose(1, 2)


@never_raises
def attention_function(func: object) -> Verdict:
    """Exercise 04.4: ``func(q, k, v)`` for q, k, v of shape (B, N, heads, head_dim), tokens before heads,
    returns attention of each head over the tokens, (B, N, heads, head_dim), as
    ``F.scaled_dot_product_attention`` gives it on the (B, heads, N, head_dim) layout."""
    gen = torch.Generator().manual_seed(2)
    cases = []
    for shape in ((2, 10, 4, 16), (1, 7, 1, 64), (3, 5, 2, 3)):
        q, k, v = (torch.randn(shape, generator=gen) for _ in range(3))
        expected = F.scaled_dot_product_attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2))
        cases.append(((q, k, v), expected.transpose(1, 2)))
    mistakes = [
        Mistake(
            lambda q, k, v: _attention(q, k, v, q.shape[-1] ** -0.5),
            "you attended over the heads, not the tokens: in this layout the last two axes are (heads, head_dim), "
            "so q @ k.transpose(-2, -1) compares heads with heads. Put the heads before the tokens (or use einsum "
            "with the token letters in the product) so that each head compares tokens with tokens.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, q.shape[-1] ** -0.5, dim=-2),
            "softmax over the wrong axis: each query's weights over the keys must sum to 1.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, 1.0),
            "the scores are not scaled: multiply them by 1/sqrt(head_dim).",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, 1 / q.shape[-1]),
            "wrong scale: 1/d; the scale is 1/sqrt(d), with d = head_dim = q.shape[-1].",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, (q.shape[2] * q.shape[-1]) ** -0.5),
            "wrong scale: you took the square root of the full width (heads x head_dim); each head uses its own "
            "head_dim = q.shape[-1].",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, q.shape[-1] ** 0.5),
            "wrong scale: you multiplied by sqrt(d); divide by it.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, q.shape[-1] ** -0.5).transpose(1, 2),
            "the numbers are right but the layout is not: you returned (B, heads, N, head_dim); move the heads "
            "back after the tokens, (B, N, heads, head_dim), the layout of the inputs.",
        ),
    ]
    return check_function(func, "your attention_tokens_first", cases, mistakes=mistakes)


@never_raises
def attention_parameter_count(answer: object) -> Verdict:
    """Exercise 04.5: parameters of T2T's first token-transformer attention, ``Attention(49, chan=64,
    num_heads=1, qkv_bias=False)``: qkv 49 -> 3 x 64 without bias, proj 64 -> 64 with bias."""
    dim, chan = 49, 64
    right = dim * 3 * chan + chan * chan + chan
    return int_answer(
        answer,
        right,
        "parameters of the token-transformer attention",
        "qkv maps tokens of length 49 to 3 x 64 numbers (no bias); proj maps 64 channels to 64 (with a bias).",
        wrong={
            right + 3 * chan: "this qkv has no bias (qkv_bias=False), so it adds no 3 x 64 numbers.",
            chan * 3 * chan
            + chan * chan
            + chan: "qkv reads tokens of length 49 (dim), not 64: its weight is 49 x (3 x 64).",
            dim * 3 * dim
            + chan * chan
            + chan: "q, k and v have chan = 64 channels each, not 49: qkv's weight is 49 x (3 x 64).",
            right - chan: "proj has a bias: 64 more numbers.",
            dim * 3 * chan: "proj, the 64 x 64 layer after the heads, is missing.",
            4 * chan * chan
            + 4 * chan: "that is 4D^2 + 4D for D = 64, the count for a layer that keeps the token "
            "length; here the input length (49) differs from chan (64), and qkv has no bias.",
            dim * 3 * chan + chan * dim + dim: "proj maps chan to chan (64 -> 64), not 64 -> 49.",
        },
    )
