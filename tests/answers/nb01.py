"""Right answers for the checkers of notebook 01; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch

from vitcourse import check


def patchify(images: torch.Tensor, p: int) -> torch.Tensor:
    b, c, h, w = images.shape
    x = images.reshape(b, c, h // p, p, w // p, p).permute(0, 2, 4, 1, 3, 5)
    return x.reshape(b, (h // p) * (w // p), c * p * p)


VALUE_CHECKS = {
    check.patch_count: 60,
    check.token_length: 768,
    check.patch_number: 12,
}
FUNCTION_CHECKS = {
    check.patchify_function: patchify,
}
MISTAKES = [
    (check.patch_count, 61, "too large"),
    (
        check.patchify_function,
        lambda x, p: torch.zeros(1, 400, 15),
        "shape (1, 400, 15), expected (1, 15, 400)",
    ),
    (check.patchify_function, lambda x, p: patchify(x, p) + (x.shape[1] == 3), "differs at index"),
    (check.patchify_function, lambda x, p: patchify(x, p).numpy(), "numpy array"),
    (check.patchify_function, lambda x, p: patchify(x, p).to("meta"), "meta device"),
]
