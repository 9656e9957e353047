"""Right answers for the checkers of notebook 03; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check


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


def buggy_table(n: int, d: int) -> torch.Tensor:
    """The notebook's buggy_table: the per-pair frequencies spread with repeat(2), not repeat_interleave(2)."""
    i = torch.arange(n, dtype=torch.float64)[:, None]
    omega = 10000 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angle = i * omega.repeat(2)[:d]
    j = torch.arange(d)
    return torch.where(j % 2 == 0, torch.sin(angle), torch.cos(angle)).float()


def fixed_table(n: int, d: int) -> torch.Tensor:
    """The notebook's worked solution: repeat_interleave(2)."""
    i = torch.arange(n, dtype=torch.float64)[:, None]
    omega = 10000 ** (-torch.arange(0, d, 2, dtype=torch.float64) / d)
    angle = i * omega.repeat_interleave(2)[:d]
    j = torch.arange(d)
    return torch.where(j % 2 == 0, torch.sin(angle), torch.cos(angle)).float()


def loop_table(n: int, d: int) -> torch.Tensor:
    """The table one entry at a time, as table_by_hand builds it: right values, but no fix of the tensor code."""
    import math

    pe = torch.zeros(n, d)
    for i in range(n):
        for j in range(d):
            angle = i / 10000 ** (2 * (j // 2) / d)
            pe[i, j] = math.sin(angle) if j % 2 == 0 else math.cos(angle)
    return pe


def rewritten_table(n: int, d: int) -> torch.Tensor:
    """A copy of the package's tensor code: right values, but a rewrite, not a fix of the colleague's code."""
    position = torch.arange(n, dtype=torch.float64)[:, None]
    pair = torch.div(torch.arange(d), 2, rounding_mode="floor").to(torch.float64)
    angle = position / 10000.0 ** (2.0 * pair / d)
    even = (torch.arange(d) % 2 == 0)[None, :]
    return torch.where(even, torch.sin(angle), torch.cos(angle)).to(torch.float32)


VALUE_CHECKS: dict = {
    check.far_slots_similarity: 0.4,  # the 168 slow pairs add nearly 1 each, the fast ones cancel: 0.377
    check.slow_pairs_count: 168,  # the pairs above the wavelength panel's upper dashed line, from pair 216 on
}
FUNCTION_CHECKS: dict = {
    check.permuted_weights_function: lambda a, p: a[p][:, p],
    check.sinusoidal_function: fixed_table,
}
MISTAKES: list = [
    (check.far_slots_similarity, 0.0, "every pair's term cancels"),
    (check.far_slots_similarity, 1.0, "stays near 1"),
    (check.far_slots_similarity, -1.0, "opposite ways"),
    (check.far_slots_similarity, 168, "between -1 and 1"),
    (check.far_slots_similarity, 168 / 768, "token length d"),
    (check.far_slots_similarity, 245 / 384, "wavelength exceeds 175"),
    (check.slow_pairs_count, 0.44, "not a count"),
    (check.slow_pairs_count, 216, "above it"),
    (check.slow_pairs_count, 245, "wavelength exceeds 175"),
    (check.permuted_weights_function, lambda a, p: a[p], "some entries right"),
    (check.permuted_weights_function, lambda a, p: a[:, p], "some entries right"),
    (
        check.permuted_weights_function,
        lambda a, p: a[torch.argsort(p)][:, torch.argsort(p)],
        "wrong way round",
    ),
    (check.permuted_weights_function, lambda a, p: a[p][:, p].T, "transposed"),
    (check.permuted_weights_function, lambda a, p: a, "do change"),
    (check.sinusoidal_function, buggy_table, "the bug is still in it"),
    (check.sinusoidal_function, loop_table, "no Python loop"),
    (check.sinusoidal_function, rewritten_table, "keeping its names"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, power="j")), "a frequency of its own"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d), even_sin=False), "swapped"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, power="2j")), "you doubled j"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d)).T, "transposed"),
    (check.sinusoidal_function, swapped_roles, "swapped roles"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, start=1)), "start at 1"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, base=1000.0)), "powers of 1000"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, base=1e5)), "powers of 100000"),
]
