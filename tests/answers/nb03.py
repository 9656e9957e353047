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


VALUE_CHECKS: dict = {
    check.far_slots_similarity: "c",  # the slow pairs barely turn and add nearly 1 each; the fast ones cancel
    check.far_slots_value: 0.4,  # 168 of the 384 pairs turn by less than a radian: a little under 168 / 384 = 0.44
}
FUNCTION_CHECKS: dict = {
    check.permuted_weights_function: lambda a, p: a[p][:, p],
    check.sinusoidal_function: fixed_table,
}
MISTAKES: list = [
    (check.far_slots_value, 0.0, "two random vectors"),
    (check.far_slots_value, 1.0, "nearly one"),
    (check.far_slots_value, -0.5, "do not point opposite ways"),
    (check.far_slots_value, 0.9, "nearly one vector"),
    (check.far_slots_value, 0.64, "wavelength exceeds 175"),
    (check.permuted_weights_function, lambda a, p: a[p], "some entries right"),
    (check.permuted_weights_function, lambda a, p: a[:, p], "some entries right"),
    (check.permuted_weights_function, lambda a, p: a[torch.argsort(p)][:, torch.argsort(p)], "inverse"),
    (check.permuted_weights_function, lambda a, p: a[p][:, p].T, "transposed"),
    (check.permuted_weights_function, lambda a, p: a, "do change"),
    (check.sinusoidal_function, buggy_table, "the bug is still in it"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, power="j")), "a frequency of its own"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d), even_sin=False), "swapped"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, power="2j")), "you doubled j"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d)).T, "transposed"),
    (check.sinusoidal_function, swapped_roles, "swapped roles"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, start=1)), "start at 1"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, base=1000.0)), "powers of 1000"),
    (check.sinusoidal_function, lambda n, d: sin_cos(angles(n, d, base=1e5)), "powers of 100000"),
]
