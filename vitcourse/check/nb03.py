"""Exercise checkers for notebook 03 position embeddings."""

from __future__ import annotations

import math

import numpy as np
import torch

from .. import position, tokens
from ._core import Mistake, Verdict, check_function, describe, int_answer, never_raises, say

__all__ = [
    "permuted_weights_function",
    "sinusoidal_entry",
    "sinusoidal_function",
    "learned_embedding_size",
]


def _attention_weights(x: torch.Tensor, w_q: torch.Tensor, w_k: torch.Tensor) -> torch.Tensor:
    """Single-head attention weights softmax(x W_q (x W_k)^T / sqrt(d)) of tokens x (N, D); returns (N, N)."""
    q, k = x @ w_q, x @ w_k  # (N, d) each
    return torch.softmax(q @ k.T / math.sqrt(q.shape[-1]), dim=-1)


def _permutation_cases() -> list[tuple[tuple, torch.Tensor]]:
    """(weights, perm) -> the weights attention really computes on the permuted tokens."""
    gen = torch.Generator().manual_seed(5)
    cases = []
    for n, perm in (
        (6, [1, 2, 3, 4, 5, 0]),
        (15, torch.randperm(15, generator=gen).tolist()),
        (4, [2, 1, 0, 3]),
    ):
        x = torch.randn(n, 12, generator=gen)  # (N, 12)
        w_q, w_k = torch.randn(12, 8, generator=gen), torch.randn(12, 8, generator=gen)
        order = torch.tensor(perm)
        cases.append(((_attention_weights(x, w_q, w_k), order), _attention_weights(x[order], w_q, w_k)))
    return cases


@never_raises
def permuted_weights_function(func: object) -> Verdict:
    """Exercise 03.1: ``func(weights, perm)`` predicts the attention weights of the permuted tokens."""
    mistakes = [
        Mistake(
            lambda a, p: a[p],
            "you moved the rows (queries) but not the columns: every key moved with its token too.",
        ),
        Mistake(
            lambda a, p: a[:, p],
            "you moved the columns (keys) but not the rows: every query moved with its token too.",
        ),
        Mistake(
            lambda a, p: a[torch.argsort(p)][:, torch.argsort(p)],
            "you used the inverse permutation: new token r is old token perm[r], so new entry [r, c] is old "
            "entry [perm[r], perm[c]].",
        ),
        Mistake(
            lambda a, p: a[p][:, p].T,
            "your matrix is transposed: rows are queries and columns are keys, and the weights are not symmetric.",
        ),
        Mistake(
            lambda a, p: a.clone(),
            "the weights do change: each token keeps its own query and key, so its row and column move with it.",
        ),
    ]
    return check_function(func, "your predicted weights", _permutation_cases(), mistakes=mistakes)


@never_raises
def sinusoidal_entry(answer: object) -> Verdict:
    """Exercise 03.2: PE[3, 5] of the sinusoidal table with d = 400."""
    expected = position.sinusoidal_table(4, 400)[3, 5].item()
    what = "PE[3, 5] for d = 400"
    if isinstance(answer, torch.Tensor | np.ndarray) and np.size(answer) == 1:
        answer = float(answer.item())
    if answer is None or isinstance(answer, bool) or not isinstance(answer, int | float | np.floating):
        return say(False, f"{what}: expected a number, got {describe(answer)}.")
    if not math.isfinite(answer):
        return say(False, f"{what}: got {answer}; expected a finite number in [-1, 1].")
    if abs(answer - expected) < 1e-5:
        return say(True, f"{what}: {expected:.6f} is right.")
    angle = 3 / 10000 ** (2 * (5 // 2) / 400)
    if abs(answer - math.sin(angle)) < 1e-5:
        return say(False, f"{what}: j = 5 is odd, so it takes the cosine, not the sine.")
    if abs(answer - math.cos(3 / 10000 ** (5 / 400))) < 1e-5:
        return say(False, f"{what}: the exponent uses 2 * (j // 2) = 4, not j = 5.")
    return say(False, f"{what}: {answer:.6g} is not it. Angle = 3 / 10000 ** (2 * (5 // 2) / 400), then cos.")


def _table(n: int, d: int, base: float = 10000.0, exponent: str = "pair", start: int = 0) -> torch.Tensor:
    """Sinusoidal-table variants for diagnosing: ``exponent`` "pair" (right), "j" or "2j"."""
    i = torch.arange(start, start + n, dtype=torch.float64)[:, None]  # (n, 1)
    j = torch.arange(d)  # (d,)
    power = {"pair": 2 * (j // 2), "j": j, "2j": 2 * j}[exponent].to(torch.float64)
    return i / base ** (power / d)  # (n, d) angles


def _sin_cos(angle: torch.Tensor, swapped: bool = False) -> torch.Tensor:
    even = torch.arange(angle.shape[-1]) % 2 == 0  # (d,)
    if swapped:
        even = ~even
    return torch.where(even, torch.sin(angle), torch.cos(angle))


def _roles_swapped(n: int, d: int) -> torch.Tensor:
    """The table with the roles of i and j exchanged in the formula, at the right shape (n, d)."""
    i = torch.arange(n, dtype=torch.float64)[:, None]  # (n, 1)
    j = torch.arange(d, dtype=torch.float64)[None, :]  # (1, d)
    angle = j / 10000 ** (2 * torch.div(i, 2, rounding_mode="floor") / d)  # (n, d)
    return torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle))


@never_raises
def sinusoidal_function(func: object) -> Verdict:
    """Exercise 03.3: ``func(n, d)`` must return the (n, d) sinusoidal table."""
    cases = [
        ((n, d), position.sinusoidal_table(n, d)) for n, d in ((15, 400), (176, 768), (4, 9), (1, 2), (7, 3))
    ]
    mistakes = [
        Mistake(
            lambda n, d: _sin_cos(_table(n, d), swapped=True),
            "sine and cosine are swapped: even entries j take the sine, odd ones the cosine.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, exponent="j")),
            "wrong exponent: use 2 * (j // 2) / d, so that entries 2m and 2m + 1 share one frequency (you used j).",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, exponent="2j")),
            "wrong exponent: use 2 * (j // 2) / d, not 2 * j / d (entries 2m and 2m + 1 share one frequency).",
        ),
        Mistake(
            lambda n, d: position.sinusoidal_table(n, d).T,
            "i and j are swapped: rows are the n token slots i, columns the d entries j (your table is transposed).",
        ),
        Mistake(
            _roles_swapped,
            "i and j are swapped: the angle is i / 10000 ** (2 * (j // 2) / d) with i the token slot (row) and j "
            "the entry (column); the parity of j picks sine or cosine.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, start=1)),
            "positions start at 0: row 0 is sin(0), cos(0), ... = 0, 1, 0, 1, ... (torch.arange(n)).",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, base=1000.0)),
            "wrong base: the wavelengths grow with powers of 10000, not 1000.",
        ),
        Mistake(
            lambda n, d: _sin_cos(_table(n, d, base=100000.0)),
            "wrong base: the wavelengths grow with powers of 10000, not 100000.",
        ),
    ]
    return check_function(func, "your sinusoidal table", cases, mistakes=mistakes)


@never_raises
def learned_embedding_size(answer: object) -> Verdict:
    """Exercise 03.4: trainable numbers in ViT-L/16's learned position embedding at 384 x 384 (D = 1024)."""
    grid = tokens.count_tokens(384, 384, 16, 16, 0)  # 24 x 24 patches
    rows, d = grid.total + 1, 1024  # one row per patch and one for the prediction token
    vit_b_grid = tokens.count_tokens(224, 224, 16, 16, 0).total  # 196: the pre-training grid
    return int_answer(
        answer,
        rows * d,
        "trainable numbers in ViT-L/16's position embedding at 384 x 384",
        "One row of D = 1024 numbers per slot: the 24 x 24 patches and the prediction token.",
        wrong={
            grid.total * d: "the prediction token's slot has a row too: 576 + 1 rows.",
            grid.total + 1: "each slot holds a whole vector of D = 1024 numbers, not one number.",
            grid.total: "each of the 577 slots (576 patches + the prediction token) holds D = 1024 numbers.",
            24
            * rows
            * d: "there is one position embedding, added once before the first block, not one per block.",
            (vit_b_grid + 1)
            * d: "that is the 224 x 224 grid (14 x 14); at 384 x 384 the grid is 24 x 24 patches.",
            rows * 768: "768 is ViT-B's token length; ViT-L's tokens have D = 1024 entries.",
        },
    )
