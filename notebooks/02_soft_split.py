# ---
# jupyter:
#   jupytext:
#     cell_metadata_filter: all,-execution
#     notebook_metadata_filter: kernelspec,-jupytext.text_representation.jupytext_version
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#   kernelspec:
#     display_name: Python 3 (ipykernel)
#     language: python
#     name: python3
# ---

# %% [markdown]
# # 02 · Soft split: overlapping patches
#
# **Time:** about 60 minutes
#
# Before this: [notebook 01](01_patch_tokenization.ipynb), which cuts the picture into patches.
#
# ViT's patches never overlap, so whatever crosses a patch border is cut apart. The Tokens-to-Token model,
# *T2T*, starts instead with a **soft split**: windows that overlap their neighbours, on a picture padded with
# zeros so that windows sit centred nearer its edges. T2T-ViT soft-splits three times, with a small transformer between
# the splits: first the image, then twice the previous split's tokens, laid out as an image (Yuan et al. 2021,
# Fig. 4 and Section 3.3). Here we take one split apart; notebook 08 chains three, and notebook 09 builds the
# whole module.
#
# By the end you can
# 1. count the tokens a sliding window makes, from its kernel, stride and padding,
# 2. read the T2T paper's split settings as `nn.Unfold`'s kernel, stride and padding,
# 3. say how many windows hold each pixel, and where the padding lands inside a token,
# 4. take a soft split apart into padding and strided windows, and follow one pixel into every token that holds it,
# 5. put the tokens back in place with `F.fold`, and say when every pixel comes back.
#
# Windows are counted from 0, row by row, like ViT's patches, and window $i$ becomes token $i$.

# %%
import math

import imageio.v3 as iio
import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from IPython.display import Image, display
from matplotlib.patches import Rectangle
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, tokens, widgets
from vitcourse.data import summit_square

picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
_, C, H, W = image.shape
print(f"picture: H={H}, W={W}, C={C}")

# %% [markdown]
# ## 1. Counting the tokens (17 min)
#
# A soft split cuts the picture into square *windows* that overlap, and each window becomes one token. It has
# three settings. The *kernel* $k$ is the side of a window, in pixels. The *stride* $s$ is how far a window moves
# from one token to the next. The *padding* $p$ is the number of rows and columns of zeros added on each side.
# This notebook's soft split uses $k = 20$, $s = 10$, $p = 5$: windows as large as notebook 01's patches
# ($P = 20$), each starting half a window after the previous one. Two neighbouring windows share $k - s$ rows or
# columns, their *overlap*.
#
# First, what overlap changes: the cell counts the pieces into which ViT's 20 × 20 patches cut the 10 × 10 square
# under the summit of the pale mountain (`vitcourse.data.summit_square`), and the windows that hold it whole.

# %%
peak = summit_square(picture, side=10)  # (top, left, height, width): the square under the summit
top, left, side, _ = peak
print(f"the square under the summit: rows {top} to {top + side - 1}, columns {left} to {left + side - 1}")
# ViT's 20 x 20 patches (numbered from 0, row by row) that hold part of it
cut = sorted(
    {(r // 20) * (W // 20) + c // 20 for r in range(top, top + side) for c in range(left, left + side)}
)
pieces = f"cut it into {len(cut)} pieces" if len(cut) > 1 else "leave it whole"
print(f"ViT's 20 x 20 patches {pieces}: patches {cut}")
starts = tokens.window_corners(
    H, W, 20, 10, 5
)  # (N, 2) top-left (row, col) of windows 0, 1, ...: k 20, s 10, p 5
holds = [
    n
    for n, (r0, c0) in enumerate(starts.tolist())
    if r0 <= top and top + side <= r0 + 20 and c0 <= left and left + side <= c0 + 20
]
print(f"windows of this notebook's soft split that hold it whole: {holds}")
assert holds  # true wherever the square lies: section 3 shows why

# %% [markdown]
# ViT's patches cut the square into 4 pieces; two windows hold it whole. Now the count. Along a side of $w$ pixels, the padded side has $w + 2p$. Windows start at $0, s, 2s, \dots$ and must end
# inside, so the number of windows is
#
# $$n = \left\lfloor \frac{w + 2p - k}{s} \right\rfloor + 1.$$
#
# This is `nn.Unfold`'s formula for windows without gaps between their pixels
# ([windows with dilation](#Evidence:-windows-with-dilation)). The tokens form a grid of
# $n_{rows} \times n_{cols}$.
#
# The article series says T2T-ViT sets $s = \lceil k/2 \rceil$ and $p = \lceil k/4 \rceil$ (Callis, *Tokens-to-Token
# Vision Transformers, Explained*). Neither the T2T paper nor the official code (the authors' T2T-ViT repository,
# `models/t2t_vit.py`) states this rule, but it gives the code's settings: the cell checks it against all three
# splits, typed in from that file. Then it lists the window starts for $k = 20$ in the picture's own
# coordinates, where the padding begins at $-p$. When $s$ divides $w$, this padding gives $w/s$ windows a side.

# %%
k = 20
s, p = math.ceil(k / 2), math.ceil(k / 4)
assert (s, p) == tokens.t2t_stride_padding(k)
# (kernel, stride, padding) of the three soft splits in T2T-ViT's models/t2t_vit.py
official = [(7, 4, 2), (3, 2, 1), (3, 2, 1)]
for i, (kk, ss, pp) in enumerate(official, 1):
    print(
        f"split {i}, k = {kk}: the rule gives (s, p) = {tokens.t2t_stride_padding(kk)}, the code uses {(ss, pp)}"
    )
assert all(tokens.t2t_stride_padding(kk) == (ss, pp) for kk, ss, pp in official)
print(f"kernel {k}: stride {s}, padding {p}")
starts_down = list(range(-p, H + p - k + 1, s))  # top rows of the windows
starts_across = list(range(-p, W + p - k + 1, s))  # left columns of the windows
print(f"window starts down:   {starts_down} -> {len(starts_down)}")
print(f"window starts across: {starts_across} -> {len(starts_across)}")
unfolded = nn.Unfold(kernel_size=k, stride=s, padding=p)(image)  # (B, C*k*k, N)
print(f"nn.Unfold output {tuple(unfolded.shape)}: {unfolded.shape[-1]} tokens of length {unfolded.shape[1]}")
print(f"vitcourse.count_tokens: {tokens.count_tokens(H, W, k, s, p)}")
assert len(starts_down) * len(starts_across) == unfolded.shape[-1] == tokens.count_tokens(H, W, k, s, p).total

# %% [markdown]
# **The paper's settings.** The T2T paper gives its three splits as "$P = [7, 3, 3]$, $S = [3, 1, 1]$"
# (Section 3.3). Its $P$ is the kernel $k$, not the course's patch side $P$. It gives no padding; the paddings
# 2, 1, 1 come from the official code.
#
# A colleague writes a token count that takes the paper's terms. The cell tests it on the picture's split, where
# it agrees with `nn.Unfold`.


# %%
def paper_count(h: int, w: int, k: int, paper_s: int, p: int) -> tuple[int, int]:
    """Tokens (rows, cols) of a soft split in the T2T paper's terms: kernel k, the paper's S, padding p."""
    rows = (h + 2 * p - k) // paper_s + 1
    cols = (w + 2 * p - k) // paper_s + 1
    return rows, cols


paper_s = 10  # the picture's split in the paper's terms
by_unfold = tokens.count_tokens(H, W, k, s, p)
print(f"paper_count{(H, W, k, paper_s, p)} = {paper_count(H, W, k, paper_s, p)}")
print(f"nn.Unfold's count: {(by_unfold.rows, by_unfold.cols)}")

# %% [markdown]
# ### Exercise 1 (find the bug)
#
# `paper_count` passes the test above, yet it is wrong. T2T-ViT's first split of a 224 × 224 image is kernel 7,
# the paper's $S = 3$, padding 2, and the official model makes 56 × 56 tokens from it; `paper_count` does not.
#
# - (a) Find what the paper's $S$ measures and write
#   `fixed_count(h, w, k, paper_s, p)`: the same arguments, the `(rows, cols)` that `nn.Unfold` makes. The check
#   tries seven splits and refuses `nn.Unfold` and the package's counters.
# - (b) A split is given in the paper's terms as kernel 5 and $S = 1$, with padding 1. How many tokens per side
#   does `nn.Unfold` make from a 56 × 56 input with this split? Set `answer_unfold`.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "paper_count_fixed-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def fixed_count(h: int, w: int, k: int, paper_s: int, p: int) -> tuple[int, int]:
    """Tokens (rows, cols) of a soft split in the T2T paper's terms: kernel k, the paper's S, padding p."""
    ### BEGIN SOLUTION
    # The paper's S is the overlap: the pixels two neighbouring windows share. Its S = [3, 1, 1] beside the
    # official strides 4, 2, 2 for kernels 7, 3, 3: stride = k - S. paper_count moved the windows by S.
    stride = k - paper_s
    return (h + 2 * p - k) // stride + 1, (w + 2 * p - k) // stride + 1
    ### END SOLUTION


answer_unfold = None  # (b): tokens per side from nn.Unfold
### BEGIN SOLUTION
# (b) the stride is 5 - 1 = 4, on 56 + 2 * 1 - 5 pixels
answer_unfold = (56 + 2 * 1 - 5) // (5 - 1) + 1
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "paper_count_fixed-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.paper_count_fixed(fixed_count)
check.unfold_count_side(answer_unfold)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "paper_count_fixed-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.paper_count_fixed, fixed_count)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "unfold_count_side-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.unfold_count_side, answer_unfold)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# The T2T paper's $S$ is the overlap, $k - s$: its $S = [3, 1, 1]$ with kernels 7, 3, 3 are the official strides
# 4, 2, 2. The picture's split hid the bug: its kernel is twice the stride, so the overlap equals the stride. The
# cell runs both counts on the 224 × 224 split and on part (b)'s.

# %%
buggy = paper_count(224, 224, 7, 3, 2)
fixed = tokens.count_tokens(224, 224, 7, 7 - 3, 2)  # stride = kernel - overlap
assert nn.Unfold(kernel_size=7, stride=4, padding=2)(torch.zeros(1, 1, 224, 224)).shape[-1] == fixed.total
print(f"paper_count{(224, 224, 7, 3, 2)} = {buggy}: {buggy[0] * buggy[1]:,} tokens")
print(f"nn.Unfold, stride 7 - 3 = 4: {(fixed.rows, fixed.cols)}: {fixed.total:,} tokens")
print(f"the picture's split: stride s = {s}, overlap k - s = {k - s}; paper_count's step = S = {paper_s}")
assert paper_s == k - s == s  # the one case where moving by the overlap is moving by the stride
print(
    f"kernel 5, S = 1, padding 1 on 56 x 56: stride 5 - 1 = 4, {tokens.count_tokens(56, 56, 5, 4, 1).rows} per side"
)

# %% [markdown]
# ## 2. The padded picture and its windows (3 min)
#
# The figure keeps the picture's own coordinates, so the padding lies at negative coordinates and beyond the
# last row and column, outside the dashed white border.
#
# It shows two windows: window 0, shaded orange, and window 1, next along its row, outlined in cyan.
# They share $k - s$ columns: the part of the orange square that lies inside the cyan outline. Window 10, first in
# the next row (not drawn), shares rows with window 0 the same way.


# %% mystnb={"image": {"alt": "The padded picture in its own pixel coordinates, with window 0 shaded orange in the top-left corner and window 1 outlined in cyan, overlapping it by 10 columns; the picture's border is dashed"}}
def show_windows(filled: int, outlined: list[int], title: str, square: tuple | None = None) -> None:
    """The zero-padded picture in its own coordinates with its border dashed white; window ``filled`` shaded
    orange, the windows ``outlined`` outlined cyan, and an optional (top, left, height, width) square dotted."""
    _, ax = plt.subplots(figsize=(7.5, 4.2))
    plots.show_picture(F.pad(image, (p, p, p, p))[0, 0], ax=ax, title=title, extent_offset=-p)
    ax.add_patch(Rectangle((0, 0), W, H, fill=False, ec="white", ls="--", lw=1.2))  # the picture's border
    row, col = corners[filled]
    ax.add_patch(Rectangle((col, row), k, k, fc=plots.WINDOW_COLOUR, alpha=0.5, ec=plots.WINDOW_COLOUR, lw=2))
    for n in outlined:
        row, col = corners[n]
        ax.add_patch(Rectangle((col, row), k, k, fill=False, ec=plots.NEIGHBOUR_COLOUR, lw=2))
    if square is not None:
        row, col, rows_, cols_ = square
        ax.add_patch(Rectangle((col, row), cols_, rows_, fill=False, ec="white", ls=":", lw=2.6))
    ax.set_xlim(-p, W + p)  # the padded picture, and no margin around it
    ax.set_ylim(H + p, -p)
    plt.show()


# F.pad's (p, p, p, p) is (left, right) for the last axis, then (top, bottom): (1, 1, H + 2p, W + 2p)
padded = F.pad(image, (p, p, p, p))  # the same padding show_windows draws
print(f"padded picture: {tuple(padded.shape[-2:])}, rows {-p} to {H + p - 1}, columns {-p} to {W + p - 1}")
corners = tokens.window_corners(H, W, k, s, p)  # (N, 2) top-left (row, col) of every window
grid = tokens.count_tokens(H, W, k, s, p)
show_windows(
    0, [1], f"window 0 (orange) and window 1 (cyan) of {len(corners)}: {k} x {k}, stride {s}, padding {p}"
)
shown = [0, 1, grid.cols]
print(f"window corners (row, col): {[tuple(int(v) for v in corners[i]) for i in shown]} (windows {shown})")
print(f"columns window 0 shares with window 1: {corners[1][1]} to {corners[0][1] + k - 1} ({k - s} columns)")

# %% [markdown]
# ## 3. How many windows hold each pixel? (14 min)
#
# In ViT every pixel belongs to exactly one token when $H$ and $W$ are multiples of $P$, as 60 and 100 are of 20.
# With overlapping windows, a pixel can belong to several.

# %% [markdown]
# ### Exercise 2 (predict)
#
# Take $k = 20$, $s = 10$, $p = 5$ on the 60 × 100 picture. How many of its pixels lie
# in exactly two windows? Set `answer_two`. The window starts are printed in section 1. Predict before you run
# the cells after the exercise.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "pixels_in_two_windows-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_two = None  # replace None with your answer
### BEGIN SOLUTION
# Along one side, a row is reached by 1 window near the ends and by 2 elsewhere (windows start every s = k/2).
# Rows: starts -5, 5, ..., 45, so rows 0-4 and 55-59 lie in 1 window, the other 50 rows in 2.
# Columns: likewise 10 columns in 1 window, 90 in 2. A pixel's count is (its row's) x (its column's), so it is
# 2 for a row in 1 and a column in 2, or a row in 2 and a column in 1.
answer_two = 10 * 90 + 50 * 10
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "pixels_in_two_windows-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.pixels_in_two_windows(answer_two)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "pixels_in_two_windows-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.pixels_in_two_windows, answer_two)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# The cell counts, for every pixel, the windows that cover it, and draws the counts as a heat map; its colour bar
# marks only the counts that occur.

# %%
cover = torch.zeros(H, W, dtype=torch.long)  # (H, W)
for top, left in corners:
    cover[max(top, 0) : top + k, max(left, 0) : left + k] += 1  # the window, clipped to the picture
values, counts = cover.unique(return_counts=True)
for v, n in zip(values.tolist(), counts.tolist(), strict=True):
    print(f"covered by {v} window(s): {n:5d} pixels ({100 * n / (H * W):.1f} %)")
print(f"every pixel covered: {bool((cover > 0).all())}; most common count: {int(values[counts.argmax()])}")
# the picture rows that only one window reaches
one_window = [r for r in range(H) if sum(t <= r < t + k for t in starts_down) == 1]
print(f"picture rows that only one window reaches: {one_window}")

# %% mystnb={"image": {"alt": "A heat map of how many windows cover each pixel: four in the inner block, two in a band along each edge, one in the four corner squares"}}
fig, ax = plt.subplots(figsize=(7.5, 4))
plots.show_counts(
    cover, ax=ax, title=f"windows covering each pixel (k = {k}, s = {s}, p = {p})", label="windows"
)
plt.show()

# %% [markdown]
# Three quarters of the pixels lie in four windows, a band along each edge in two, the corner squares in one.
# Along one side $k = 2s$, so every row (or column) lies in two windows, except the $s - p$ at each end, which
# one reaches: rows of the picture, not padding. Every window pairs one span of rows with one span of columns,
# so a pixel's count is its row's count times its column's, and no pixel lies in exactly three.

# %% [markdown]
# ### Which shapes stay whole in some window

# %% [markdown]
# Overlap does not stop every cut. Along one side, a window of side $k$ can hold a shape of length $L$ at
# $k - L + 1$ offsets, and windows start every $s$ pixels. So some window catches the shape wherever it sits
# exactly when $k - L + 1 \ge s$, that is $L \le k - s + 1$, as long as the windows reach both edges of the
# image, which on the picture they do (section 7 gives the condition).
#
# So the largest square that stays whole wherever it lies is $(k - s + 1) \times (k - s + 1)$:
# [a brute-force check](#Evidence:-the-largest-square-kept-whole) tries every place of every size, for this split
# and T2T's two settings. Notebook 08 compares this with ViT's patches.


# %% [markdown]
# ## 4. All the windows, one after another (3 min)
#
# The animation shows the windows in the order the tokens come out, row by row, two frames per second, looping
# ([read back from the GIF](#Evidence:-the-frames-of-the-animation)). Each window is tinted orange, its
# neighbours on the token grid are outlined in cyan (four inside the grid, three or two at its edges); their
# outlines cut it into 10 × 10 quarters. The
# caption gives its rows and columns. Below the loop,
# one window stands still: the first that holds the square under the summit (dotted) whole.

# %% mystnb={"image": {"alt": "An animation of the 60 windows one after another, row by row, each tinted orange on the padded picture with its neighbours outlined in cyan"}}
gif = plots.soft_split_animation(picture, k, s, p, scale=4, frames_per_second=2)  # built in memory, no file
display(Image(data=gif, format="gif"))

# %% mystnb={"image": {"alt": "The first window that holds the 10 by 10 square under the summit whole, shaded orange on the padded picture, with the square dotted"}}
still = holds[0]  # the first window that holds the square under the summit whole
top, left = corners[still]
title = (
    f"window {still}, rows {top} to {top + k - 1}, columns {left} to {left + k - 1}, and the square (dotted)"
)
show_windows(still, [], title, square=peak)  # peak: the square under the summit, found at the top

# %% [markdown]
# ## 5. The first token: where the padding shows (4 min)
#
# The first window starts in the padding, above and left of the picture. Its entries in the padding are zeros
# that carry no picture. The cell counts those entries, then draws the first window
# beside the whole token matrix, one row per token. Inside any window, rows and columns count from 0 at the
# window's top-left corner.

# %% mystnb={"image": {"alt": "Left, the first window as a 20 by 20 square whose top five rows and left five columns are padding zeros; right, the token matrix of 60 tokens by 400 values in two halves"}}
toks = tokens.soft_split(image, k, s, p)  # (1, N, C*k*k)
first = toks[0, 0].reshape(k, k)  # the first window as a k x k square
top, left = corners[0]
inside = torch.zeros(k, k, dtype=torch.bool)
inside[-top:, -left:] = True  # pixels of the first window that lie in the picture
print(f"tokens: {tuple(toks.shape)}; the first window starts at ({top}, {left})")
print(
    f"padding rows and columns of the first window: 0-{-top - 1}; {int((~inside).sum())} of {k * k} entries"
)
assert torch.all(first[~inside] == 0)
assert torch.equal(first[inside].reshape(k + top, k + left), image[0, 0, : k + top, : k + left])
differs = picture[:, 1:] != picture[:, :-1]  # (H, W - 1): each pixel against its right-hand neighbour
band = (differs.mean(axis=1) > 0.5).nonzero()[0].tolist()  # rows of the dithered band, as in notebook 01
print(f"picture rows in which most pixels differ from their right-hand neighbour (the dithered band): {band}")
band_tokens = [n for n, (r0, _) in enumerate(corners.tolist()) if any(r0 <= b < r0 + k for b in band)]
print(f"tokens whose windows hold some of these rows: {band_tokens[0]} to {band_tokens[-1]}")
assert band_tokens[0] % grid.cols == 0 and len(band_tokens) % grid.cols == 0  # whole rows of the token grid
for n in band_tokens[:: grid.cols]:  # the first token of each such row
    r0 = int(corners[n][0])
    in_window = [b - r0 for b in band if r0 <= b < r0 + k]  # the band's rows, counted inside the window
    print(
        f"tokens {n} to {n + grid.cols - 1}: band in window rows {in_window[0]} to {in_window[-1]}, "
        f"positions {k * in_window[0]} to {k * in_window[-1] + k - 1}"
    )

# Every matrix entry gets exactly 3 x 3 screen pixels, so that the picture's one-pixel pattern is not resampled
# into stripes that are not in the data. The 400 positions are drawn in two halves of 200.
fig = plots.show_first_window_and_matrix(toks[0], first, pad=-top, px=3)
extent = fig.axes[1].get_window_extent()  # the first half of the matrix, in screen pixels
assert (round(extent.width), round(extent.height)) == (3 * toks.shape[2] // 2, 3 * toks.shape[1])
plt.show()

# %% [markdown]
# The dithered band shows in the matrix as fine vertical hatching, at the positions printed above. One token row
# down, the window starts $s$ rows lower, so the same picture rows sit $s \cdot k$ positions further left.
#
# Many rows also start or end with a dark run, or have short dark runs at a regular spacing: padding, or dark
# pixels of the picture, which look the same. To tell them apart, the cell splits an
# image of ones, where only the padding gives zeros, and prints each token's padding entries on the token grid.
# The top row of windows begins with $p = 5$ padding rows, 100 entries; the left column begins each row with
# 5 padding columns.

# %%
from_padding = tokens.soft_split(torch.ones_like(image), k, s, p)[0] == 0  # (N, k*k): True in the padding
per_token = from_padding.sum(dim=1).reshape(grid.rows, grid.cols)  # (rows, cols)
print(f"padding entries per token, on the {grid.rows} x {grid.cols} token grid:\n{per_token}")
print(f"token 0 starts with {int(from_padding[0, :100].sum())} of 100 padding entries")
print(f"token 59 ends with {int(from_padding[59, -100:].sum())} of 100 padding entries")
print(
    f"token 20, the first row of its window (entries 0-19): padding at "
    f"{from_padding[20, :20].nonzero().flatten().tolist()}"
)

# %% [markdown]
# ## 6. A soft split by hand (14 min)
#
# `Tensor.unfold(dim, size, step)` shows the sliding on one axis at a time: axis `dim` then
# counts the windows along it, and a new last axis of length `size` holds the pixels inside one window. A soft
# split is then three steps. Pad. Cut both spatial axes into windows. Put the two window-count axes before the
# channel axis and flatten. This is `nn.Unfold`'s order: windows row by row, and inside a token, channel by
# channel, each window row by row. The first cell traces the steps on a tiny 6 × 6 image of the numbers 0 to 35,
# with $k = 4$, $s = 2$, $p = 1$; the second checks the soft split against `nn.Unfold` on the picture.

# %%
tiny = torch.arange(36.0).reshape(1, 1, 6, 6)  # (B, C, 6, 6): each value is its place in reading order
step0 = F.pad(tiny, (1, 1, 1, 1))  # (1, 1, 8, 8): one ring of zeros
step1 = step0.unfold(2, 4, 2)  # (1, 1, 3, 8, 4): window row, padded column, row inside the window
step2 = step1.unfold(
    3, 4, 2
)  # (1, 1, 3, 3, 4, 4): window row, window column, row and column inside the window
for name, t in (("pad", step0), ("unfold rows", step1), ("unfold columns", step2)):
    print(f"{name:15s} {tuple(t.shape)}")
print(f"window (row 0, column 1), token 1, as a 4 x 4 square:\n{step2[0, 0, 0, 1].long()}")
tiny_tokens = step2.permute(0, 2, 3, 1, 4, 5).reshape(1, 9, 16)  # (B, N, C*k*k)
print(f"token 1: {tiny_tokens[0, 1].long().tolist()}")
assert torch.equal(tiny_tokens, F.unfold(tiny, 4, stride=2, padding=1).transpose(1, 2))


# %%
def by_hand(images: torch.Tensor, k: int, s: int, p: int) -> torch.Tensor:
    """A soft split from F.pad and Tensor.unfold: (B, C, H, W) -> (B, N, C*k*k) in nn.Unfold's order."""
    x = F.pad(images, (p, p, p, p))  # (B, C, H + 2p, W + 2p)
    x = x.unfold(2, k, s).unfold(3, k, s)  # (B, C, window rows, window cols, k, k)
    b, c, rows, cols = x.shape[:4]
    x = x.permute(0, 2, 3, 1, 4, 5)  # (B, window rows, window cols, C, k, k)
    return x.reshape(b, rows * cols, c * k * k)  # (B, N, C*k*k)


print(f"by hand: {tuple(by_hand(image, k, s, p).shape)}; equal to nn.Unfold: ", end="")
print(torch.equal(by_hand(image, k, s, p), unfolded.transpose(1, 2)))
assert torch.equal(by_hand(image, k, s, p), unfolded.transpose(1, 2))

# %% [markdown]
# ### Exercise 3 (predict)
#
# Take pixel (30, 47) of the picture: row 30, column 47, counted from 0. Split it with
# $k = 20$, $s = 10$, $p = 5$.
#
# - (a) Which tokens hold the pixel? Set `answer_tokens` to a set of tokens, counted from 0.
# - (b) Of these, take the token with the smallest number. At which position of that token does the pixel lie,
#   counted from 0? Set `answer_position` to one number from 0 to 399, the position as on the x axis of the
#   token matrix in section 5.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "pixel_in_tokens-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_tokens = None  # replace None with your answer to (a): a set of tokens
answer_position = None  # (b)
### BEGIN SOLUTION
# (a) Rows: the windows start at -5, 5, 15, 25, 35, 45; row 30 lies in those at 15 and 25, token rows 2 and 3.
# Columns: starts -5, 5, ..., 85; column 47 lies in those at 35 and 45, token columns 4 and 5.
# Token = 10 * token row + token column.
answer_tokens = {24, 25, 34, 35}
# (b) the smallest, token 24: its window starts at row 15, column 35, so the pixel is at its row 15, column 12
answer_position = 15 * 20 + 12
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "pixel_in_tokens-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.pixel_in_tokens(answer_tokens)
check.pixel_position_entry(answer_position)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "pixel_in_tokens-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.pixel_in_tokens, answer_tokens)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "pixel_position_entry-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.pixel_position_entry, answer_position)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# The cell splits an image that is 1 at pixel (30, 47) and 0 elsewhere. The 1 shows up once in every token that
# holds the pixel, at the pixel's place in that window, which differs with the window's corner.

# %%
marked = torch.zeros_like(image)
marked[0, 0, 30, 47] = 1.0
hits = (by_hand(marked, k, s, p)[0] == 1).nonzero().tolist()  # [token, position] pairs
for n, pos in hits:
    print(
        f"token {n}: window corner {tuple(int(v) for v in corners[n])}, position {pos} = row {pos // k}, "
        f"column {pos % k} of the window"
    )
assert len(hits) == len(tokens.windows_holding((30, 47, 1, 1), H, W, k, s, p))  # one per window over it

# %% [markdown]
# ## 7. Back in place (3 min)
#
# A token holds pixel values and no note of where they came from. Its index says where: token $n$ sits in row
# $\lfloor n / n_{cols} \rfloor$, column $n \bmod n_{cols}$ of the token grid, and with $k$, $s$, $p$ that fixes
# its window. So `F.fold`, given the same settings, puts each token back, and *adds* the copies where windows
# overlap. Write $x(i, j)$ for pixel $(i, j)$ of the picture, $t$ for its tokens, and $c(i, j)$ for
# the number of windows that cover it, the heat map of section 3. Then
#
# $$\operatorname{fold}(t)(i, j) = c(i, j)\, x(i, j), \qquad
# \operatorname{unsplit}(t)(i, j) = \frac{\operatorname{fold}(t)(i, j)}{c(i, j)} = x(i, j).$$
#
# So `vitcourse.tokens.unsplit` divides by the coverage, and the picture comes back. That needs every pixel
# covered, which holds for this picture, not for every size: with $s \le k$ and $p < k$, the last window along a
# side of $w$ stops $r = (w + 2p - k) \bmod s$ pixels before the end of the padded side, so when $r > p$ the last
# $r - p$ rows or columns lie in no window, and `unsplit` returns 0 there
# ([four square sizes](#Evidence:-when-every-pixel-is-covered)).


# %%
summed = F.fold(toks.transpose(1, 2), output_size=(H, W), kernel_size=k, stride=s, padding=p)  # (1, C, H, W)
print(f"fold: {tuple(toks.shape)} -> {tuple(summed.shape)}")
ones = torch.ones_like(image)  # unfold, then fold, a picture of ones: each pixel's coverage count
coverage = F.fold(F.unfold(ones, k, stride=s, padding=p), (H, W), k, stride=s, padding=p)  # (1, 1, H, W)
assert torch.allclose(summed, image * coverage, atol=1e-6)
back = tokens.unsplit(toks, H, W, k, s, p)  # (1, C, H, W)
gap = (back - image).abs().max().item()
print(
    f"fold = picture x coverage count (asserted); unsplit differs from the picture by at most 1e-6: {gap < 1e-6}"
)
assert gap < 1e-6

# %% [markdown]
# ## 8. Play: kernel, stride, padding (2 min)
#
# Move the sliders (they need a live Python session) to see three windows on the padded picture, the token grid's
# size and the token matrix. A large matrix is drawn with neighbouring entries averaged, as its title says. A
# stride larger than the kernel leaves pixels between windows that no token sees; the text line flags that
# ([for seven settings](#Evidence:-the-explorer-for-seven-settings)), but not pixels lost at the end of a side
# (section 7).

# %% mystnb={"image": {"alt": "Sliders for kernel, stride and padding with three windows on the padded picture and the token matrix"}}
display(widgets.soft_split_explorer(picture))

# %% [markdown]
# ## Summary
#
# - A sliding window makes $\lfloor (w + 2p - k)/s \rfloor + 1$ tokens along each side. With $k = 20$,
#   $s = 10$, $p = 5$ the picture makes 6 × 10 = 60 overlapping tokens of length 400.
# - The T2T paper gives the overlap, not the stride: the stride is $k$ minus the overlap.
# - With $k = 2s$, as here, most pixels lie in four windows, the edges in fewer. A square stays whole wherever it
#   lies only up to $(k - s + 1) \times (k - s + 1)$.
# - A soft split is padding plus strided windows, flattened in the order $(C, k, k)$.
# - Fold, then divide by the coverage, puts the tokens back in place, provided every pixel is covered: for
#   $s \le k$ and $p < k$, when $(w + 2p - k) \bmod s \le p$ on both sides.
#
# **Next:** [03 Position embeddings](03_position_embeddings.ipynb). Attention does not know where a token came
# from. How do we tell it? The soft split returns in [notebook 08](08_t2t_soft_split.ipynb).

# %% [markdown]
# ## Evidence: the largest square kept whole
#
# Section 3 says that a square stays whole in some window wherever it lies only up to
# $(k - s + 1) \times (k - s + 1)$. The cell checks it by brute force. For every size $L$ up to $k$, it tries every
# place of an $L \times L$ square on the picture. It does so for this split and for T2T's two settings.


# %%
def largest_whole_square(h: int, w: int, kk: int, ss: int, pp: int) -> tuple[int, dict[int, tuple[int, int]]]:
    """Brute force over every size L up to the kernel (a larger square fits in no window) and every placement
    of an L x L square on an h x w picture: the largest L whose every placement lies whole in some window of
    the split (kk, ss, pp), and for each L the number of placements no window holds, of how many."""
    wc = torch.as_tensor(tokens.window_corners(h, w, kk, ss, pp))  # (N, 2) top-left (row, col)
    tops, lefts = wc[:, :1], wc[:, 1:]  # (N, 1) each
    missed = {}
    for size in range(1, min(h, w, kk) + 1):
        r, c = torch.arange(h - size + 1), torch.arange(w - size + 1)  # every top row and left column
        rows_fit = (tops <= r) & (r + size <= tops + kk)  # (N, placements down): window n holds those rows
        cols_fit = (lefts <= c) & (c + size <= lefts + kk)  # (N, placements across)
        caught = (rows_fit[:, :, None] & cols_fit[:, None, :]).any(dim=0)  # (down, across)
        missed[size] = (int((~caught).sum()), caught.numel())
    return max(size for size, (n, _) in missed.items() if n == 0), missed


for kk, ss, pp in ((k, s, p), (7, 4, 2), (3, 2, 1)):
    largest, missed = largest_whole_square(H, W, kk, ss, pp)
    n_missed, n_placed = missed[largest + 1]
    print(
        f"(k, s, p) = ({kk}, {ss}, {pp}): the largest square whole wherever it lies is {largest} x {largest} "
        f"(k - s + 1 = {kk - ss + 1}); a {largest + 1} x {largest + 1} square is cut at {n_missed} of its "
        f"{n_placed} places"
    )
    assert largest == kk - ss + 1 and all(n > 0 for size, (n, _) in missed.items() if size > largest)

# %% [markdown]
# ## Evidence: when every pixel is covered
#
# Section 7 says that for $s \le k$ and $p < k$, the last $r - p$ rows or columns of a side lie in no window when
# $r = (w + 2p - k) \bmod s$ is larger than $p$. The cell folds the split of an all-ones square back for four
# sides, with the rule's stride and padding, and counts the pixels no window covers.

# %%
for side, kk in ((60, 20), (100, 20), (62, 7), (58, 20)):
    ss, pp = tokens.t2t_stride_padding(kk)
    ones = torch.ones(1, 1, side, side)  # a square picture of this side
    cover_sq = F.fold(F.unfold(ones, kk, stride=ss, padding=pp), (side, side), kk, stride=ss, padding=pp)
    r = (side + 2 * pp - kk) % ss
    missed = int((cover_sq == 0).sum())
    print(
        f"side {side:3d}, (k, s, p) = ({kk}, {ss}, {pp}): r = {r}, r > p: {r > pp}; uncovered pixels: {missed}"
    )
    assert (missed > 0) == (r > pp)

# %% [markdown]
# ## Evidence: windows with dilation
#
# `nn.Unfold` can also spread a window's pixels apart, taking every $d$-th pixel. This is *dilation*. The window
# then spans $d(k-1) + 1$ pixels, and that length replaces $k$ in the formula of section 1. T2T does not use
# dilation. The cell checks the formula against `nn.Unfold` for three dilations on the picture.

# %%
for d in (1, 2, 3):
    formula = [math.floor((side + 2 * p - d * (k - 1) - 1) / s + 1) for side in (H, W)]
    out = nn.Unfold(kernel_size=k, stride=s, padding=p, dilation=d)(image).shape[-1]
    print(f"dilation {d}: formula {formula[0]} x {formula[1]} = {formula[0] * formula[1]}, nn.Unfold {out}")
    assert formula[0] * formula[1] == out

# %% [markdown]
# ## Evidence: the frames of the animation
#
# Section 4 says the animation shows one frame per token, two frames per second, and loops. The cell reads these
# settings back from the GIF's bytes, and the span of the last window.

# %%
meta = iio.immeta(gif, extension=".gif")
n_frames = iio.improps(gif, extension=".gif", index=None).shape[0]
print(f"{n_frames} frames (one per token), {meta['duration']} ms each, loop={meta['loop']} (0 = forever)")
assert n_frames == len(corners) and meta["duration"] == 500 and meta["loop"] == 0
last_top, last_left = corners[-1]  # the span the last frame's caption names
print(f"last window: rows {last_top} to {last_top + k - 1}, columns {last_left} to {last_left + k - 1}")


# %% [markdown]
# ## Evidence: the explorer for seven settings
#
# The sliders of section 8 print one text line per setting. The cell prints it for this notebook's split, T2T's
# two official settings, ViT's patches, single pixels, a stride larger than the kernel, and a kernel larger than
# the picture, which the explorer refuses.

# %%
for setting in [(20, 10, 5), (7, 4, 2), (3, 2, 1), (20, 20, 0), (1, 1, 0), (10, 15, 0), (80, 10, 5)]:
    fig, summary = widgets.soft_split_view(picture, *setting)
    if fig is not None:
        plt.close(fig)
    print(summary)
assert widgets.soft_split_view(picture, 80, 10, 5)[0] is None
