"""Exercise checkers for notebook 04 attention."""

from __future__ import annotations

import functools
import math

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from ..attention import Attention, ClearestRow, clearest_row
from ..cost import count_macs
from ..data import load_mountains, to_tensor
from ..tokens import count_tokens
from ._core import Mistake, Verdict, check_function, choice_answer, float_answer, int_answer, never_raises

__all__ = [
    "entropy_prediction",
    "attention_entropy_function",
    "scores_growth",
    "merge_heads_function",
    "attention_cost_ratio",
    "attention_function",
    "attention_map_reading",
]

# Exercise 1's statements, as the notebook lists them: each gives a choice and a reason.
_ENTROPY_OPTIONS = ("a", "b", "c", "d", "e")
_ENTROPY_RIGHT = "b"
_ENTROPY_WRONG = {
    "a": "the entropy here is that of each row's weights, not of its scores: it measures how evenly the row's "
    "weight is shared among the keys. Ask what the softmax does with a row of scores spread widely.",
    "c": "adding the same number to every score leaves the softmax unchanged; multiplying every score by the same "
    "number does not: it stretches or shrinks the gaps between them.",
    "d": "the scale multiplies the scores, not q and k: here q and k already have variance about 1 (section 1 "
    "printed it); it is their dot products, sums of d_k products, that grow with d_k.",
    "e": "scores that differ more give one key a larger share, not more keys a share: exp() grows fastest for the "
    "largest score.",
}


@never_raises
def entropy_prediction(answer: object) -> Verdict:
    """Exercise 04.1 (prediction): the letter of the statement, among a to e, that has both the right choice
    (the scaled weights have the larger mean entropy) and the right reason (the scale shrinks the gaps between
    the scores, so the softmax is flatter)."""
    return choice_answer(
        answer,
        _ENTROPY_RIGHT,
        "your prediction",
        _ENTROPY_OPTIONS,
        "Each statement makes a choice and gives a reason; both must hold. Revisit section 2: what the softmax "
        "does with scores that are far apart and with scores that are close together.",
        pointer="Think of one row with two scores, s and 0, and let s grow: where does the weight go, and what "
        "does the scale do to s?",
        wrong=_ENTROPY_WRONG,
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
            "`scale` is already the factor on the scores; you divided by it.",
        ),
        Mistake(
            lambda q, k, s: _entropies(q, k, s).sum(),
            "you summed the entropies of the rows; return their mean (one number).",
        ),
        Mistake(
            lambda q, k, s: _entropies(q, k, s).mean() / q.shape[-2],
            "you averaged -p ln p over the keys of a row; the entropy of a row is their sum.",
        ),
        Mistake(
            lambda q, k, s: _entropies(q, k, s),
            "you returned one entropy per row; return their mean over every row (one number).",
        ),
    ]
    return check_function(
        func,
        "your attention_entropy",
        cases,
        normalise=_scalar,
        mistakes=mistakes,
        nudge="Revisit the entropy formula in the exercise and section 2, where the weights are made.",
        pointer="The weights are the softmax of the scaled scores over the keys; the entropy of one row sums "
        "-p ln p over its keys (torch.special.entr); the answer is the mean of those row entropies over every "
        "batch item, head and query.",
    )


def _token_count(side: int, patch: int = 16) -> int:
    """Tokens of a ViT on a ``side`` x ``side`` image: its patches plus the prediction token."""
    return count_tokens(side, side, patch, patch, 0).total + 1


@never_raises
def scores_growth(answer: object) -> Verdict:
    """Exercise 04.2: by what factor the number of entries of Q K^T in one ViT-B/16 layer (one image, 12 heads)
    grows from 224 x 224 to 384 x 384 (patches of 16 plus the prediction token: 197 -> 577 tokens)."""
    small, large = _token_count(224), _token_count(384)
    right = (large / small) ** 2
    patches_only = ((large - 1) / (small - 1)) ** 2
    linear = large / small
    return float_answer(
        answer,
        right,
        "growth of Q K^T from 224 to 384",
        "Revisit section 2 (what a row and a column of QK^T stand for) and how many tokens a ViT makes from an "
        "image.",
        wrong=(
            (patches_only, "the prediction token is a token too: it has a row and a column of QK^T."),
            (linear, "that is how the number of tokens grows; QK^T has a row and a column for every token."),
            (
                (large - 1) / (small - 1),
                "that is how the number of patches grows; QK^T has a row and a column for every token.",
            ),
            (384 / 224, "that is how the side grows; count the tokens at each size first."),
            (right * 12, "the heads are the same at both sizes: they scale both counts alike and cancel."),
            (1 / right, "upside down: the count at 384 over the count at 224."),
            (1 / patches_only, "upside down, and the prediction token is a token too."),
        ),
        rel=0.002,
        pointer="Count the tokens at each size (patches plus the prediction token), then ask how the size of "
        "one head's QK^T depends on that count. The head count is the same at both sizes.",
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
            "heads merged in the wrong order: a reshape alone reads the head axis as if it came after the tokens, "
            "so it mixes tokens and heads.",
        ),
        Mistake(
            lambda o: o.permute(0, 2, 3, 1).reshape(o.shape[0], o.shape[2], -1),
            "heads merged in the wrong order: the channels of the heads are interleaved; each head's channels must "
            "stay together, as one block.",
        ),
    ]
    return check_function(
        func,
        "your merge_heads",
        cases,
        mistakes=mistakes,
        nudge="Revisit 'The reshape and the permute, axis by axis' in section 1: merging is the split run "
        "backwards.",
        pointer="A reshape only regroups axes that are next to each other; bring the head axis next to the "
        "channel axis first, in the order (tokens, heads, channels).",
    )


def _first_stage() -> tuple[int, int, int]:
    """T2T's first token transformer on the course picture: (tokens, input length, channels)."""
    kernel, stride, padding = 7, 4, 2
    return count_tokens(60, 100, kernel, stride, padding).total, kernel * kernel, 64


def _cost_ratio(n: int, dim: int, chan: int) -> float:
    """Multiply-adds of QK^T and weights @ V over those of qkv and proj, counted on the layer itself."""
    layer = Attention(dim, chan=chan, num_heads=1, qkv_bias=False)
    macs = count_macs(layer, torch.zeros(1, n, dim), depth=1)  # {"qkv": ..., "(model)": ..., "proj": ...}
    return macs["(model)"] / (macs["qkv"] + macs["proj"])


@never_raises
def attention_cost_ratio(answer: object) -> Verdict:
    """Exercise 04.4: in T2T's first token transformer on the picture, ``Attention(49, chan=64, num_heads=1,
    qkv_bias=False)`` on the 375 tokens of the first soft split, how many times more multiply-adds go into the
    two matrix products than into the two linear layers."""
    n, dim, chan = _first_stage()
    right = _cost_ratio(n, dim, chan)
    products = 2 * n * n * chan
    qkv, proj = 3 * n * dim * chan, n * chan * chan
    return float_answer(
        answer,
        right,
        "products over layers in T2T's first attention",
        "Revisit 'Weights and multiply-adds': which sizes each of the four terms is made of.",
        wrong=(
            (
                n / (2 * chan),
                "that is the ratio for a layer that keeps the token length at 64; here qkv reads tokens of "
                "length 49, so it costs less.",
            ),
            (n / (2 * dim), "q, k and v have 64 channels here, not 49: the products compare 64 channels."),
            (products / 2 / (qkv + proj), "weights @ V costs as much as QK^T: count both products."),
            (products / qkv, "proj is a linear layer too: count it with qkv."),
            (products / (n * dim * chan + proj), "qkv makes three things, q, k and v, from each token."),
            (
                products / (products + qkv + proj),
                "that is the products' share of the whole layer; the question "
                "asks for products divided by layers.",
            ),
            ((qkv + proj) / products, "upside down: the products divided by the layers."),
        ),
        rel=0.005,
        pointer="Write each of the four terms with N, the input length and chan (the formula above has only D, "
        "because there the two are equal), then divide the two products by the two layers.",
    )


def _tokens_first(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, scale: float, dim: int = -1
) -> torch.Tensor:
    """Attention for the (B, N, heads, head_dim) layout: each head over the tokens; softmax over ``dim`` of
    the (B, heads, N, N) weights. Returns (B, N, heads, head_dim)."""
    qh, kh, vh = (t.transpose(1, 2) for t in (q, k, v))  # each (B, heads, N, head_dim)
    return torch.softmax(qh @ kh.transpose(-2, -1) * scale, dim=dim).matmul(vh).transpose(1, 2)


@never_raises
def attention_function(func: object) -> Verdict:
    """Exercise 04.5: ``func(q, k, v)`` for q, k, v of shape (B, N, heads, head_dim), tokens before heads,
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
            lambda q, k, v: torch.softmax(q @ k.transpose(-2, -1) * q.shape[-1] ** -0.5, dim=-1) @ v,
            "you attended over the heads, not the tokens: in this layout the last two axes are (heads, head_dim), "
            "so a product over the last two axes compares heads with heads.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, q.shape[-1] ** -0.5, dim=-2),
            "softmax over the wrong axis: each query's weights over the keys must sum to 1.",
        ),
        Mistake(lambda q, k, v: _tokens_first(q, k, v, 1.0), "the scores are not scaled."),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, 1 / q.shape[-1]),
            "wrong scale: you divided by head_dim itself; 'Why divide by sqrt(d_k)?' says what the scale is.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, (q.shape[2] * q.shape[-1]) ** -0.5),
            "wrong scale: you took the full width (heads x head_dim); each head uses its own head_dim.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, q.shape[-1] ** 0.5),
            "wrong scale: you multiplied by the square root of head_dim; the scale shrinks the scores.",
        ),
        Mistake(
            lambda q, k, v: _tokens_first(q, k, v, q.shape[-1] ** -0.5).transpose(1, 2),
            "the numbers are right but the layout is not: you returned (B, heads, N, head_dim); the result must "
            "have the inputs' layout, (B, N, heads, head_dim).",
        ),
    ]
    return check_function(
        func,
        "your attention_tokens_first",
        cases,
        mistakes=mistakes,
        nudge="Revisit section 2 and 'Several heads': each head compares tokens with tokens.",
        pointer="With einsum, name the axes (b, n, h, d) for the queries and (b, m, h, d) for the keys: the "
        "scores keep b, h, n, m and sum over d; the softmax runs over m; the output sums over m and comes back "
        "as (b, n, h, d).",
    )


@functools.lru_cache(maxsize=1)
def _shipped_vit() -> nn.Module:
    """The course's shipped ViT (``vit_where``) on the CPU, loaded once."""
    from ..train import load_shipped  # imported here: the training module is only needed by this checker

    return load_shipped("vit_where", "cpu").model


def _map_weights(picture: np.ndarray | torch.Tensor) -> torch.Tensor:
    """The shipped ViT's attention weights on ``picture`` (60 x 100), every block: (blocks, heads, 16, 16)."""
    vit = _shipped_vit()
    image = to_tensor(picture).reshape(1, 1, *np.shape(picture)[-2:])  # (1, 1, H, W)
    with torch.no_grad():
        return torch.stack([vit.attention_weights(image, block=b)[0] for b in range(len(vit.blocks))])


def _map_question(picture: np.ndarray | torch.Tensor) -> ClearestRow:
    """Exercise 04.6's question on ``picture``: the block, head and query patch whose row of the shipped ViT's
    attention map is easiest to read (see :func:`vitcourse.attention.clearest_row`); 0-based."""
    return clearest_row(_map_weights(picture), first=1)


@never_raises
def attention_map_reading(answer: object, picture: np.ndarray | torch.Tensor | None = None) -> Verdict:
    """Exercise 04.6: which patch (1-15) the query patch asked for attends to most, in the block and head asked
    for, read off the shipped ViT's attention maps on ``picture`` (default: the course picture)."""
    found = _map_question(load_mountains() if picture is None else picture)
    wrong: dict[int, str] = {}  # the first diagnosis of a number wins
    wrong.setdefault(
        found.column_reading,
        "you read the column of the query patch, not its row: a column shows how much every query attends to one "
        "key. Each query's weights over the keys run along its row.",
    )
    wrong.setdefault(
        found.key - 1,
        "the map's ticks are token numbers, and token p is patch p (token 0 is the prediction token): no need to "
        "subtract 1.",
    )
    wrong.setdefault(
        found.key + 1,
        "you counted the ticks from 1, but the first tick is token 0, the prediction token: read the number "
        "written at the tick.",
    )
    wrong.setdefault(
        found.query, "that is the query patch itself; the question asks which key it attends to most."
    )
    return int_answer(
        answer,
        found.key,
        "the patch read off the map",
        "Revisit section 2: which axis of a weight matrix holds the queries and which the keys.",
        wrong=wrong,
        pointer="Find the panel of the head asked for, then the row of the query token (token p is patch p) and "
        "the brightest cell along that row; the number at that column's tick is the patch.",
    )
