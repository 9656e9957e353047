"""Right answers for the checkers of notebook 04; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check

VALUE_CHECKS = {
    check.scores_shape: (13, 4, 100, 100),
    check.qkv_weight_count: 9408,
}
FUNCTION_CHECKS = {
    check.attention_function: lambda q, k, v: (
        torch.softmax(q @ k.transpose(-2, -1) / q.shape[-1] ** 0.5, -1) @ v
    ),
}
MISTAKES: list = []
