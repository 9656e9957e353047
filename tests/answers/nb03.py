"""Right answers for the checkers of notebook 03; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import math

import torch

from vitcourse import check, position


def sin_cos(angle: torch.Tensor, even_sin: bool = True) -> torch.Tensor:
    even = torch.arange(angle.shape[-1]) % 2 == 0
    return torch.where(even if even_sin else ~even, torch.sin(angle), torch.cos(angle))


def angles(n: int, d: int, base: float = 10000.0, power: str = "pair", start: int = 0) -> torch.Tensor:
    i = torch.arange(start, start + n, dtype=torch.float64)[:, None]
    j = torch.arange(d)
    exponent = {"pair": 2 * (j // 2), "j": j, "2j": 2 * j}[power]
    return i / base ** (exponent / d)


def swapped_roles(n: int, d: int) -> torch.Tensor:
    i = torch.arange(n, dtype=torch.float64)[:, None]
    j = torch.arange(d, dtype=torch.float64)[None, :]
    angle = j / 10000 ** (2 * (i // 2) / d)
    return torch.where(i % 2 == 0, torch.sin(angle), torch.cos(angle))


VALUE_CHECKS = {
    check.sinusoidal_entry: math.cos(3 / 10000 ** (4 / 400)),
    check.learned_embedding_size: 577 * 1024,
}
FUNCTION_CHECKS = {
    check.permuted_weights_function: lambda a, p: a[p][:, p],
    check.sinusoidal_function: position.sinusoidal_table,
}
MISTAKES = [
    (check.learned_embedding_size, 576 * 1024, "prediction token's slot"),
    (check.learned_embedding_size, 577, "whole vector"),
    (check.learned_embedding_size, 577 * 1024 * 24, "not one per block"),
    (check.learned_embedding_size, 197 * 1024, "24 x 24 patches"),
    (check.learned_embedding_size, 577 * 768, "ViT-B's token length"),
    (check.sinusoidal_entry, math.sin(3 / 10000 ** (4 / 400)), "cosine"),
    (check.sinusoidal_entry, math.cos(3 / 10000 ** (5 / 400)), "2 * (j // 2)"),
    (check.permuted_weights_function, lambda a, p: a[p], "not the columns"),
    (check.permuted_weights_function, lambda a, p: a[:, p], "not the rows"),
    (check.permuted_weights_function, lambda a, p: a[torch.argsort(p)][:, torch.argsort(p)], "inverse"),
    (check.permuted_weights_function, lambda a, p: a[p][:, p].T, "transposed"),
    (check.permuted_weights_function, lambda a, p: a, "do change"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d), even_sin=False), "swapped"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, power="j")), "(you used j)"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, power="2j")), "not 2 * j / d"),
    (check.sinusoidal_function, lambda n, d: position.sinusoidal_table(n, d).T, "transposed"),
    (check.sinusoidal_function, swapped_roles, "i and j are swapped"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, start=1)), "positions start at 0"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, base=1000.0)), "not 1000"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, base=1e5)), "not 100000"),
]
