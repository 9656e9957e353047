"""The helpers behind 02's opening: the square under the summit, the patches that cut it, the windows that hold it."""

from __future__ import annotations

import numpy as np

from vitcourse import load_mountains, tokens
from vitcourse.data import pale_mountain, summit_square


def test_summit_square_lies_under_the_summit_and_inside_the_picture() -> None:
    picture = load_mountains()
    top, left, rows, cols = summit_square(picture, side=10)
    assert (rows, cols) == (10, 10)
    assert 0 <= top <= picture.shape[0] - 10 and 0 <= left <= picture.shape[1] - 10
    assert top == int(np.nonzero(pale_mountain(picture))[0].min())
    dark = np.zeros_like(picture)
    assert summit_square(dark, side=10) == (30, 45, 10, 10)  # no pale mountain: the middle


def test_windows_holding_and_patches_meeting_agree_with_brute_force() -> None:
    h, w, k, s, p = 60, 100, 20, 10, 5
    corners = tokens.window_corners(h, w, k, s, p)
    for square in [(0, 0, 10, 10), (17, 33, 10, 10), (50, 90, 10, 10), (5, 5, 11, 11)]:
        top, left, rows, cols = square
        brute = [
            n
            for n, (r, c) in enumerate(corners.tolist())
            if r <= top and top + rows - 1 < r + k and c <= left and left + cols - 1 < c + k
        ]
        assert tokens.windows_holding(square, h, w, k, s, p) == brute
        cells = {
            (r // 20) * (w // 20) + c // 20 for r in range(top, top + rows) for c in range(left, left + cols)
        }
        assert tokens.patches_meeting(square, w, 20) == sorted(cells)
    assert tokens.patches_meeting((15, 15, 10, 10), w, 20) == [0, 1, 5, 6]
    assert tokens.windows_holding((14, 14, 12, 12), h, w, k, s, p) == []  # 12 > k - s + 1: can be cut
