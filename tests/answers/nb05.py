"""Right answers for the checkers of notebook 05; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check

VALUE_CHECKS = {
    check.vit_token_count: 197,
    check.block_parameter_count: 7_087_872,
}
FUNCTION_CHECKS = {
    check.prepend_function: lambda t, c: torch.cat([c.expand(t.shape[0], -1, -1), t], dim=1),
}
MISTAKES: list = []
