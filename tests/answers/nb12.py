"""Right answers for the checkers of notebook 12; tests/test_check.py runs the generic tests on them.

VALUE_CHECKS: checker -> a right answer. FUNCTION_CHECKS: checker -> a right function.
MISTAKES: (checker, a typical wrong answer, a phrase its hint must contain): each diagnosed mistake is tested.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F

from vitcourse import check


def resize_2d(
    table: torch.Tensor, old_grid: tuple[int, int], new_grid: tuple[int, int], mode: str = "bicubic"
) -> torch.Tensor:
    """The notebook's worked solution (mode="bilinear": a known mistake)."""
    (h, w), (h2, w2), d = old_grid, new_grid, table.shape[-1]
    image = table[:, 1:].reshape(1, h, w, d).permute(0, 3, 1, 2)  # (1, D, h, w)
    image = F.interpolate(image, size=(h2, w2), mode=mode, align_corners=False)  # (1, D, h2, w2)
    patches = image.permute(0, 2, 3, 1).reshape(1, h2 * w2, d)  # (1, h2 * w2, D)
    return torch.cat([table[:, :1], patches], dim=1)


def no_slot_0(table: torch.Tensor, old_grid: tuple[int, int], new_grid: tuple[int, int]) -> torch.Tensor:
    return resize_2d(table, old_grid, new_grid)[:, 1:]


def plain_reshape(table: torch.Tensor, old_grid: tuple[int, int], new_grid: tuple[int, int]) -> torch.Tensor:
    d = table.shape[-1]
    image = F.interpolate(table[:, 1:].reshape(1, d, *old_grid), size=new_grid, mode="bicubic")
    return torch.cat([table[:, :1], image.reshape(1, d, -1).transpose(1, 2)], dim=1)


VALUE_CHECKS: dict = {
    check.locality_favoured_pairs: "column",  # column pairs lie closer together on the 6 x 10 grid
    check.column_pair_distance: 7 / 3,  # pairs of a column of 6: 35 / 15 patches apart on average
    check.resize_control_accuracy: 1 / 60,  # chance on the old grid's 60 labels
    check.resize_control_design: "ii",  # the carried slots shuffled: only where each vector sits changes
    check.control_axis_prediction: "i",  # the row: the control still sees the pixels, which plausibly change more down than across
}
FUNCTION_CHECKS: dict = {check.resize_2d_function: resize_2d}
MISTAKES: list = [
    (check.column_pair_distance, 11 / 3, "one row"),
    (check.column_pair_distance, 3.0, "counted once"),
    (check.column_pair_distance, 70 / 36, "itself"),
    (check.resize_control_accuracy, 1 / 240, "labels are still those of the old grid"),
    (check.resize_control_accuracy, 1 / 6, "row alone"),
    (check.resize_control_accuracy, 1 / 10, "column alone"),
    (check.resize_2d_function, no_slot_0, "slot 0"),
    (check.resize_2d_function, plain_reshape, "mixes the entries"),
    (check.resize_2d_function, lambda t, o, n: resize_2d(t, o, n, "bilinear"), "bilinear"),
]
