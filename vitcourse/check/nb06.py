"""Exercise checkers for notebook 06 tokens-to-token.

Each right answer is computed by package code (``vitcourse.attention.Attention``,
``vitcourse.blocks.TokenTransformer``, ``vitcourse.tokens``, ``vitcourse.models.T2T_STAGES``);
each ``wrong`` entry or ``Mistake`` is a typical wrong answer, recognised and
named. Any other wrong answer gets a nudge (which idea), then a pointer (which section to reread), never the
value or the method.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence

import torch

from ..attention import Attention
from ..blocks import TokenTransformer
from ..models import T2T_STAGES
from ..tokens import count_tokens
from ._core import Mistake, Verdict, check_function, choice_answer, int_answer, never_raises, reread, say

__all__ = [
    "x_skip_choice",
    "v_skip_function",
    "rgb_changed_layers_choice",
    "t2t_window_side",
    "sqrt_rebuild_picture",
    "sqrt_rebuild_60x62",
    "sqrt_rebuild_36x64",
]

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


def _given_token_attention(
    x: torch.Tensor, w_qkv: torch.Tensor, w_proj: torch.Tensor, b_proj: torch.Tensor, scale: float
) -> torch.Tensor:
    """Exercise 06.1's function as given, with its bug."""
    q, k, v = (x @ w_qkv.T).chunk(3, dim=-1)  # each (B, N, chan)
    weights = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)  # (B, N, N)
    return (v + weights @ v) @ w_proj.T + b_proj  # (B, N, chan)


def _is_given(func: object) -> bool:
    """Is ``func`` the given function itself, or a copy of its code under another name? (Its numbers equal
    those of "v added before the projection" written another way, so the code tells the two apart.)"""
    code = getattr(func, "__code__", None)
    given = _given_token_attention.__code__
    return getattr(func, "__name__", "") == "buggy_token_attention" or (
        code is not None and code.co_code == given.co_code and code.co_names == given.co_names
    )


_GIVEN_UNCHANGED = "that is the given function, unchanged: the bug is still in it."

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
        "out raises a size error (section 2 says what T2T adds instead).",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, scale, axis=-2),
        "softmax over the wrong axis: each query's weights over the keys must sum to 1, and yours do not.",
    ),
    Mistake(
        lambda x, w_qkv, w_proj, b_proj, scale: _with_skip(x, w_qkv, w_proj, b_proj, 1.0),
        "the scores are not scaled: the argument `scale` goes unused.",
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
    "chan = {chan}, and tensors of different lengths cannot be added (section 2 says what T2T adds instead)."
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
    if callable(func) and _is_given(func):
        return say(False, f"{what}: {_GIVEN_UNCHANGED} {reread('The token transformer')}")
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
        nudge="The token transformer's attention: what its skip connection adds back, and at which point.",
        pointer=reread("The token transformer"),
    )


# --- Exercise 06.1 (predict): what adding the input x instead of v does on T2T's sizes ------------------------

X_SKIP_OPTIONS = ("raises", "runs, other numbers", "runs, same numbers")


def x_skip_outcome() -> str:
    """What adding the input x to the attention's projected output does in T2T's first token transformer (one
    channel, a batch of 2 and 10 tokens): "raises" where the lengths differ, else whether the numbers change."""
    dim, chan = T2T_STAGES[0][0] ** 2, TOKEN_DIM
    gen = torch.Generator().manual_seed(3)
    x = torch.randn(2, 10, dim, generator=gen)
    w_qkv = torch.randn(3 * chan, dim, generator=gen) * dim**-0.5
    w_proj, b_proj = torch.randn(chan, chan, generator=gen) * chan**-0.5, torch.zeros(chan)
    mixed, _ = _pieces(x, w_qkv, dim**-0.5)
    try:
        with_x = x + mixed @ w_proj.T + b_proj
    except RuntimeError:
        return "raises"
    same = torch.allclose(with_x, _package_attention(x, w_qkv, w_proj, b_proj, dim**-0.5))
    return "runs, same numbers" if same else "runs, other numbers"


@never_raises
def x_skip_choice(answer: object) -> Verdict:
    """Exercise 06.1 (predict): what the colleague's first try, adding the input x instead of v, does on T2T's
    sizes: one of ``X_SKIP_OPTIONS``."""
    return choice_answer(
        answer,
        x_skip_outcome(),
        "what adding x does in T2T's first token transformer",
        X_SKIP_OPTIONS,
        nudge="Compare the length of the tokens that enter the token transformer with the length of its "
        "attention's output.",
        pointer=reread("The token transformer"),
        wrong={
            "runs, other numbers": "you expected the sum to run; a sum of two tensors needs matching lengths, "
            "so compare the two lengths that section 2 gives.",
            "runs, same numbers": "x and v are different tensors, so adding one or the other could not give the "
            "same numbers even where it runs; and first check whether it runs at all.",
        },
    )


# --- Exercise 06.2: which layers of the first token transformer grow from one channel to RGB ---------------

RGB_LAYER_OPTIONS = ("qkv", "norm1 and qkv", "norm1, qkv and proj", "every layer")


def _layers_that_grow() -> str:
    """The option naming exactly the layers of T2T's first token transformer whose parameter count differs
    between a one-channel and an RGB input, counted on the package's ``TokenTransformer``."""
    kernel = T2T_STAGES[0][0]
    blocks = [TokenTransformer(c * kernel * kernel, TOKEN_DIM, num_heads=1, mlp_ratio=1.0) for c in (1, 3)]
    counts = [
        {n: sum(p.numel() for p in m.parameters(recurse=False)) for n, m in b.named_modules()} for b in blocks
    ]
    grew = sorted({n.split(".")[-1] for n, c in counts[0].items() if c and c != counts[1][n]})
    names = {
        ("qkv",): "qkv",
        ("norm1", "qkv"): "norm1 and qkv",
        ("norm1", "proj", "qkv"): "norm1, qkv and proj",
    }
    return names.get(tuple(grew), "every layer")


@never_raises
def rgb_changed_layers_choice(answer: object) -> Verdict:
    """Exercise 06.2: which layers of T2T's first token transformer hold more parameters on RGB windows than
    on one-channel windows: one of ``RGB_LAYER_OPTIONS``."""
    return choice_answer(
        answer,
        _layers_that_grow(),
        "the layers whose count changes from one channel to RGB",
        RGB_LAYER_OPTIONS,
        nudge="Only a layer whose size depends on the length of the token coming into the block can change.",
        pointer=reread("The token transformer"),
        wrong={
            "qkv": "you counted only the layers with a weight matrix; look at what every layer's size depends on.",
            "norm1, qkv and proj": "you assumed proj reads the incoming token; check which length proj reads.",
            "every layer": "you assumed every layer follows the input's channels; check the length each layer "
            "reads and writes.",
        },
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
        _window_side_one_stride(T2T_STAGES, "first"): "you took the first stride as the distance between "
        "neighbouring cells of the last rebuilt grid, in pixels; those cells lie further apart than that.",
        _window_side_one_stride(T2T_STAGES, "previous"): "you took the last stride alone as the distance "
        "between neighbouring cells of the last rebuilt grid, in pixels; those cells lie further apart than "
        "that.",
        whole_kernels: "you counted one step too many in each window: count the steps between its cells "
        "again.",
        strides: "that is how far apart neighbouring final tokens start (the product of the strides), not how "
        "wide a square one token's windows cover.",
    }
    return int_answer(
        answer,
        _window_side(T2T_STAGES),
        "pixels across one final token's windows",
        nudge="Each stage's window is made of cells of the grid before it, and neighbouring cells overlap: "
        "they start closer together than they are wide.",
        wrong=wrong,
        pointer=reread("The T2T module, stage by stage"),
    )


# --- Exercise 06.4: the official rebuild, which takes the grid's side as the square root of N ------------------

SQRT_OPTIONS = ("works", "raises", "scrambles")
SQRT_INPUTS = {"picture": (60, 100), "60x62": (60, 62), "36x64": (36, 64)}  # (height, width), one channel


def sqrt_rebuild_outcome(height: int, width: int) -> str:
    """What the official rebuild, ``reshape(B, C, int(sqrt(N)), int(sqrt(N)))``, does after T2T's first soft
    split of a ``height`` x ``width`` image: "raises" (N is not a square number, so the reshape fails), "scrambles"
    (N is a square but the grid is not: the tokens land in the wrong places) or "works" (the grid is square)."""
    grid = count_tokens(height, width, *T2T_STAGES[0])
    side = math.isqrt(grid.total)
    if side * side != grid.total:
        return "raises"
    return "works" if grid.rows == grid.cols else "scrambles"


_SQRT_NUDGE = (
    "Two things decide it: the grid of tokens the first soft split makes from this input, and what a reshape "
    "needs in order to run."
)
_SQRT_POINTER = reread("The same module on the picture")
_SQRT_WHY = {  # (input, wrong option) -> the mistake it reveals
    ("picture", "works"): "the picture's first grid is not square, so a square reshape cannot put its tokens "
    "back on their own rows and columns.",
    (
        "picture",
        "scrambles",
    ): "you expected the reshape to run. A reshape runs only when the shape it asks for "
    "holds exactly as many entries as the tensor has.",
    ("60x62", "raises"): "you assumed the reshape fails here; count the windows along each side first.",
    ("60x62", "scrambles"): "tokens land in the wrong places only when the grid's rows and columns differ; a "
    "non-square image does not always make such a grid.",
    ("36x64", "raises"): "you assumed the reshape fails here; count the windows along each side, then the "
    "tokens in all, first.",
    ("36x64", "works"): "a square reshape of a grid whose rows and columns differ puts tokens beside tokens "
    "that were not their neighbours.",
}


def _sqrt_check(answer: object, which: str) -> Verdict:
    height, width = SQRT_INPUTS[which]
    return choice_answer(
        answer,
        sqrt_rebuild_outcome(height, width),
        f"the official rebuild after stage 1 on a {height} x {width} input",
        SQRT_OPTIONS,
        nudge=_SQRT_NUDGE,
        pointer=_SQRT_POINTER,
        wrong={option: why for (name, option), why in _SQRT_WHY.items() if name == which},
    )


@never_raises
def sqrt_rebuild_picture(answer: object) -> Verdict:
    """Exercise 06.4 (a): "works", "raises" or "scrambles": the official square-root rebuild on the 60 x 100 picture."""
    return _sqrt_check(answer, "picture")


@never_raises
def sqrt_rebuild_60x62(answer: object) -> Verdict:
    """Exercise 06.4 (b): "works", "raises" or "scrambles": the official square-root rebuild on a 60 x 62 input."""
    return _sqrt_check(answer, "60x62")


@never_raises
def sqrt_rebuild_36x64(answer: object) -> Verdict:
    """Exercise 06.4 (c): "works", "raises" or "scrambles": the official square-root rebuild on a 36 x 64 input."""
    return _sqrt_check(answer, "36x64")
