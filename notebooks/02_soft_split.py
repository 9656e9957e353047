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
# ViT's patches never overlap, so whatever crosses a patch edge is cut apart. In the course's own picture an
# edge of ViT's 20 × 20 patches runs right through the summit of the pale mountain: the cell after the imports
# takes the small square under the summit and finds it cut into four patches, while two windows of the soft
# split below (11 and 12) hold it whole. The Tokens-to-Token (T2T) model starts with such a **soft split**: windows that
# overlap their neighbours, on a picture padded with zeros so the windows at the border fit.
#
# **Why this comes now.** The course first builds both ways of turning a picture into tokens, ViT's patches
# (01) and T2T's soft split (here), and only then follows what happens to the tokens: position embeddings
# (03), attention (04), the whole ViT (05). The soft split is where T2T-ViT (a ViT whose patch cutting is
# replaced by a T2T module) starts: its T2T module first soft-splits the image with windows of $k = 7$ pixels
# (the *kernel*, in `nn.Unfold`'s words), stride 4 (how far a window moves; see the warning below), padding 2;
# then twice more it passes the tokens through a small transformer, lays them back onto an image and
# soft-splits that with $k = 3$, stride 2, padding 1 (Yuan et al. 2021, *Tokens-to-Token ViT: Training Vision
# Transformers from Scratch on ImageNet*, ICCV, Fig. 4 and Section 3.3, "T2T-ViT Architecture"; the authors'
# official code, the T2T-ViT repository on GitHub, names them `soft_split0` to `soft_split2` in its
# `T2T_module`). Notebook 06 builds the whole module; here we take one split apart, and Exercise 5 runs the
# three splits backwards.
#
# **A warning about symbols.** In this notebook, as in `nn.Unfold`, $s$ is the *stride*: how far a window moves.
# The T2T paper uses $s$ for the *overlap* of neighbouring windows, the pixels two neighbouring windows share:
# its settings "$P = [7, 3, 3]$, $S = [3, 1, 1]$" (Section 3.3) are kernels 7, 3, 3 with overlaps 3, 1, 1
# (Exercise 1 turns them into strides). The paper gives no padding values; the paddings 2, 1, 1 come from the
# official code.
#
# **Learning goals.** After this notebook you can
# 1. derive and use the formula for the number of tokens a sliding window makes,
# 2. apply a stride-and-padding rule that reproduces T2T's settings, and translate the paper's overlap into a
#    stride,
# 3. say how many tokens hold each pixel, and where the padding lands inside a token,
# 4. build a soft split yourself from padding and strided windows,
# 5. rebuild a picture from tokens in two ways: back in place, and T2T's way, one pixel per token.
#
# The exercises sit where they belong in the story; when one asks you to *predict*, do it before you run the
# cells after it. As in notebook 01: write your answer in a new cell just above the check cell; the check prints
# ✓ or a hint (more specific from the second wrong try on); the collapsed cell under the question holds the
# worked solution, to open after trying.

# %%
import inspect
import math

import imageio.v3 as iio
import matplotlib.pyplot as plt
import numpy as np
import torch
import torch.nn.functional as F
from IPython.display import Image, display
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, tokens, widgets

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
_, C, H, W = image.shape
print(f"picture: H={H}, W={W}, C={C}")

# %%
# The summit of the pale mountain in the course's own rendition (drawn by vitcourse.data.draw_mountains).
scene = inspect.signature(vitcourse.data.draw_mountains).parameters
summit_row, summit_col = int(scene["peak_row"].default), int(scene["peak_col"].default)
ours = vitcourse.data.draw_mountains()  # (60, 100)
lit, shaded = vitcourse.data.LEVELS[6], vitcourse.data.LEVELS[5]  # the mountain's lit and shaded faces
assert np.flatnonzero((ours == shaded).any(axis=1))[0] == summit_row  # no shaded face above the summit's row
assert ours[summit_row, summit_col - 1] == lit and ours[summit_row, summit_col] == shaded
print(f"summit: row {summit_row}, columns {summit_col - 1} (the lit face) and {summit_col} (the shaded face)")
peak = (summit_row, summit_col - 5, 10, 10)  # (top, left, height, width): the 10 x 10 square under the summit
rows_in, cols_in = range(peak[0], peak[0] + peak[2]), range(peak[1], peak[1] + peak[3])
print(f"the square under it: rows {rows_in[0]} to {rows_in[-1]}, columns {cols_in[0]} to {cols_in[-1]}")
P = 20  # ViT's patch size on the picture (notebook 01), patches numbered from 1, row by row
cut = sorted({(r // P) * (W // P) + c // P + 1 for r in rows_in for c in cols_in})
print(f"ViT's {P} x {P} patches cut it into {len(cut)} pieces, patches {cut}")
kernel, stride, padding = 20, 10, 5  # the soft split of this notebook (next section)
holds = [  # the windows whose rows and columns both contain the square's
    n
    for n, (top, left) in enumerate(tokens.window_corners(H, W, kernel, stride, padding).tolist())
    if top <= rows_in[0] and rows_in[-1] < top + kernel and left <= cols_in[0] and cols_in[-1] < left + kernel
]
print(f"soft-split windows (kernel {kernel}, stride {stride}, padding {padding}) holding it whole: {holds}")
assert len(cut) == 4 and holds == [11, 12]  # as the introduction says

# %% [markdown]
# ## Counting the tokens
#
# Along one side of length $w$, pad with $p$ zeros at each end: the padded side has $w + 2p$ pixels. A window of
# $k$ pixels starts at $0, s, 2s, \dots$ (in padded coordinates) and must end inside, so its start is at most
# $w + 2p - k$. The number of starts is
#
# $$n = \left\lfloor \frac{w + 2p - (k - 1) - 1}{s} + 1 \right\rfloor = \left\lfloor \frac{w + 2p - k}{s}
# \right\rfloor + 1,$$
#
# which is the formula in the `nn.Unfold` documentation (with dilation 1, see the aside below). The tokens form
# an $n_{rows} \times n_{cols}$ grid, counted on each side separately.
#
# For the stride and padding we use the rule of the "Vision Transformers Explained" article series:
# $s = \lceil k/2 \rceil$, $p = \lceil k/4 \rceil$ (Skylar Jean Callis, *Tokens-to-Token Vision Transformers,
# Explained*). The article presents it as T2T-ViT's, but neither the T2T paper nor its code states it; it is a
# rule that reproduces the official code's two settings, which the cell checks: $k = 7 \to (4, 2)$ and
# $k = 3 \to (2, 1)$ (`vitcourse.tokens.t2t_stride_padding`, named for T2T because it reproduces those
# settings). With $k = 20$ on the
# picture, the cell lists the window starts in the picture's own coordinates (the padding begins at $-p$) and
# counts them, then asks `nn.Unfold` and `vitcourse.count_tokens`.

# %%
k = 20
s, p = math.ceil(k / 2), math.ceil(k / 4)
assert (s, p) == tokens.t2t_stride_padding(k)
official = {7: (4, 2), 3: (2, 1)}  # (stride, padding) of the soft splits in T2T-ViT's models/t2t_vit.py
for kk, sp in official.items():
    print(f"k = {kk}: the rule gives (s, p) = {tokens.t2t_stride_padding(kk)}, the official code uses {sp}")
assert all(tokens.t2t_stride_padding(kk) == sp for kk, sp in official.items())
print(f"kernel {k}: stride {s}, padding {p}; neighbouring windows overlap by k - s = {k - s} pixels")
starts_down = list(range(-p, H + p - k + 1, s))  # top rows of the windows
starts_across = list(range(-p, W + p - k + 1, s))  # left columns of the windows
print(f"window starts down:   {starts_down} -> {len(starts_down)}")
print(f"window starts across: {starts_across} -> {len(starts_across)}")
unfolded = nn.Unfold(kernel_size=k, stride=s, padding=p)(image)  # (B, C*k*k, N)
print(f"nn.Unfold output {tuple(unfolded.shape)}: {unfolded.shape[-1]} tokens of length {unfolded.shape[1]}")
print(f"vitcourse.count_tokens: {tokens.count_tokens(H, W, k, s, p)}")
assert len(starts_down) * len(starts_across) == unfolded.shape[-1] == tokens.count_tokens(H, W, k, s, p).total

# %% [markdown]
# **Exercise 1 (coding).** The T2T paper does not give a stride: it gives the *overlap* of neighbouring
# windows (see the warning at the top). Write `my_count_tokens(h, w, k, overlap, p)` that returns the pair
# `(rows, cols)` for a split described the paper's way, with integer arithmetic only. T2T-ViT's first split is
# `my_count_tokens(60, 100, 7, 3, 2)` in this form. The check compares it with `nn.Unfold` on eight settings,
# square and not, with and without padding and overlap, and names the usual slips.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "count_tokens_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_count_tokens(h: int, w: int, k: int, overlap: int, p: int) -> tuple[int, int]:
    ### BEGIN SOLUTION
    stride = k - overlap  # neighbouring windows share `overlap` pixels
    rows = (h + 2 * p - k) // stride + 1
    cols = (w + 2 * p - k) // stride + 1
    return rows, cols
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "count_tokens_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.count_tokens_function(my_count_tokens)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "count_tokens_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.count_tokens_function, my_count_tokens)
### END HIDDEN TESTS

# %% [markdown]
# So the paper's stride is $k - s$, with its $s$ the overlap: its $S = [3, 1, 1]$ with kernels 7, 3, 3 are the
# strides 4, 2, 2 of the official code. The paper writes the same count, per side, as
# $\lfloor (h + 2p - k)/(k - s) \rfloor + 1$ (its Eq. 3, Section 3.1, multiplies the two sides' counts).

# %% [markdown]
# *An aside on dilation.* `nn.Unfold` can also spread a window's pixels apart (dilation $d$: every $d$-th pixel).
# The window then spans $d(k-1) + 1$ pixels and the formula becomes
# $\lfloor (w + 2p - d(k-1) - 1)/s + 1 \rfloor$. T2T does not use dilation; the cell below compares the formula
# with `nn.Unfold` for three dilations.

# %%
for d in (1, 2, 3):
    formula = [math.floor((side + 2 * p - d * (k - 1) - 1) / s + 1) for side in (H, W)]
    out = nn.Unfold(kernel_size=k, stride=s, padding=p, dilation=d)(image).shape[-1]
    print(f"dilation {d}: formula {formula[0]} x {formula[1]} = {formula[0] * formula[1]}, nn.Unfold {out}")
    assert formula[0] * formula[1] == out

# %% [markdown]
# ## The padded picture and its windows
#
# Padding adds $p$ rows of zeros above and below and $p$ columns left and right. The figure keeps the picture's
# own pixel coordinates, so the padding shows up at negative coordinates and beyond the picture's last row and
# column; the dashed white line is the picture's border. Drawing all 60 windows at once would only show a grid
# (with $k = 2s$ their edges fall on every 10th pixel), so the figure shows one window and its neighbours on the
# token grid, in the colours every soft-split figure of this notebook uses: the window in focus (here the first,
# window 0) shaded orange, its neighbours (the next window along its row, 1, and the first of the next row, 10)
# outlined cyan. The strip window 0 shares with each neighbour is hatched: $k - s = 10$ columns with window 1,
# 10 rows with window 10 (each box is drawn at its exact extent). The animation further down shows all 60.

# %%
padded = F.pad(image, (p, p, p, p))  # (1, 1, H + 2p, W + 2p)
print(f"padded picture: {tuple(padded.shape[-2:])}, rows {-p} to {H + p - 1}, columns {-p} to {W + p - 1}")
corners = tokens.window_corners(H, W, k, s, p)  # (N, 2) top-left (row, col) of every window
grid = tokens.count_tokens(H, W, k, s, p)
fig, ax = plt.subplots(figsize=(7.5, 4.2))
plots.show_window_and_neighbours(
    picture,
    k,
    s,
    p,
    index=0,
    ax=ax,
    title=f"window 0 of {len(corners)} and its neighbours ({k} x {k}, stride {s}, padding {p})",
)
plt.show()
shown = [0, 1, grid.cols]
print(f"window corners (row, col): {[tuple(int(v) for v in corners[i]) for i in shown]} (windows {shown})")
print(f"columns window 0 shares with window 1: {corners[1][1]} to {corners[0][1] + k - 1} ({k - s} columns)")

# %% [markdown]
# ## How many tokens hold each pixel?
#
# In ViT every pixel belongs to exactly one token. With overlapping windows a pixel can belong to several.
#
# **Exercise 2 (predict).** Before you run the next cell: with $k = 20$, $s = 10$, $p = 5$ on the 60 × 100
# picture, how many of its pixels lie in exactly two windows? (The window starts are printed in 'Counting the
# tokens'; count per side first.) The figure above shows three of the windows; the cell after the exercise
# counts, for every pixel, the windows that cover it, by adding 1 inside each window.

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

# %%
cover = torch.zeros(H, W, dtype=torch.long)  # (H, W)
for top, left in corners:
    cover[max(top, 0) : top + k, max(left, 0) : left + k] += 1  # the window, clipped to the picture
values, counts = cover.unique(return_counts=True)
for v, n in zip(values.tolist(), counts.tolist(), strict=True):
    print(f"covered by {v} window(s): {n:5d} pixels ({100 * n / (H * W):.1f} %)")
print(f"every pixel covered: {bool((cover > 0).all())}; most common count: {int(values[counts.argmax()])}")

# %%
fig, ax = plt.subplots(figsize=(7.5, 4))
plots.show_counts(
    cover, ax=ax, title=f"windows covering each pixel (k = {k}, s = {s}, p = {p})", label="windows"
)
plt.show()

# %% [markdown]
# The numbers say: with $k = 20$, $s = 10$, $p = 5$ three quarters of the pixels (the inner block) lie in four
# windows, a band along each edge lies in two (the pixels Exercise 2 counted), and the four corner squares in
# one. Along one side $k = 2s$, so away from the ends every pixel lies in exactly two windows, while near the ends
# only one window reaches it; the count per pixel is the product of the two sides' counts (1 or 2 each), so no
# pixel lies in exactly three, and the colour bar lists only the counts that occur.
# So most pixels here lie in four tokens, but not all, and the count depends on $k$, $s$ and $p$.
#
# Overlap does not mean that nothing is cut any more. Along one side, a shape of length $L$ that starts at pixel
# $a$ fits in the window that starts at $t$ exactly when $a + L - k \le t \le a$: an interval of $k - L + 1$
# positions. Windows start every $s$ pixels, so every placement of the shape is caught by some window when
# $k - L + 1 \ge s$, that is $L \le k - s + 1$; a longer shape can be placed so that no window starts in its
# interval. A square is whole in a window when both of its sides are, so the largest square that lies whole in
# some window wherever it sits should be $(k - s + 1) \times (k - s + 1)$. The cell below checks it by brute
# force: for every size $L$ up to $k$ (a larger square fits in no window) it tries every placement of an
# $L \times L$ square on the picture, for this split and for T2T's two settings. Notebook 06 goes further: it
# measures how often larger blocks stay whole, and compares with ViT's patches on a token grid of the same size.


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
# ### All the windows, one after another
#
# The animation shows the windows in the order the tokens come out: row by row, left to right, two frames per
# second, looping. Each frame is the padded picture (four screen pixels per picture pixel) with the picture's
# border dashed; window $i$, which becomes token $i$, is tinted orange, and its neighbours on the token grid
# (left, right, above, below) are outlined in cyan, as in the figure of window 0. The cyan lines inside the
# orange square are where each neighbour begins or ends: with $k = 2s$ the right neighbour begins, and the left
# one ends, at the window's middle column, and likewise for the rows, so the lines cross in the middle and each
# neighbour shares half of the window. The caption names the window and its rows and columns in the picture's
# coordinates (negative, or beyond row 59 and column 99, in the padding); the first frame is window 0 in the
# top-left corner, the last is window 59 in the bottom-right. Below the loop, one frame stands still to study:
# the first window that holds the square under the summit whole (found in the cell after the imports), drawn
# like the figure of window 0, with the square dotted.

# %%
gif = plots.soft_split_animation(picture, k, s, p, scale=4, frames_per_second=2)  # built in memory, no file
display(Image(data=gif, format="gif"))

# %%
# the animation's settings, read back from the GIF
meta = iio.immeta(gif, extension=".gif")
n_frames = iio.improps(gif, extension=".gif", index=None).shape[0]
print(f"{n_frames} frames (one per token), {meta['duration']} ms each, loop={meta['loop']} (0 = forever)")
assert n_frames == len(corners) and meta["duration"] == 500 and meta["loop"] == 0
last_top, last_left = corners[-1]  # the span the last frame's caption names
print(f"last window: rows {last_top} to {last_top + k - 1}, columns {last_left} to {last_left + k - 1}")

# %%
still = holds[0]  # the first window that holds the square under the summit whole
top, left = corners[still]
fig, ax = plt.subplots(figsize=(7.5, 4.2))
plots.show_window_and_neighbours(
    picture,
    k,
    s,
    p,
    index=still,
    ax=ax,
    title=f"frame {still} held still: window {still}, rows {top} to {top + k - 1}, columns {left} to {left + k - 1}",
    mark=peak if np.array_equal(picture, ours) else None,  # the summit of the course's own rendition
    mark_label="the 10 x 10 square under the summit",
)
plt.show()

# %% [markdown]
# ## The first token: where the padding shows
#
# The first window starts in the padding, above and left of the picture; every entry of the token that falls in
# the padding is a zero that carries no picture. The cell finds the window's corner and counts those entries.

# %%
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
pic = image[0, 0]  # (H, W)
between = (pic[:, 2:] == pic[:, :-2]) & (pic[:, 1:-1] != pic[:, :-2])  # (H, W - 2): unlike both neighbours
checker_rows = (between.float().mean(dim=1) > 0.5).nonzero().flatten().tolist()
print(f"picture rows whose pixels alternate along most of the row (a one-pixel checkerboard): {checker_rows}")

# The 400 positions are drawn in two halves of 200, at a whole number of screen pixels per position and per token,
# so the picture's one-pixel pattern is not resampled into stripes that are not in the data.
fig = plt.figure(figsize=(10.5, 5.2))
fig_w, fig_h = fig.get_size_inches() * fig.dpi  # the figure in screen pixels


def box(x: float, y: float, w: float, h: float) -> tuple[float, float, float, float]:
    """A box given in screen pixels (from the bottom-left corner) as fractions of the figure."""
    return x / fig_w, y / fig_h, w / fig_w, h / fig_h


half, per_entry = toks.shape[2] // 2, 3  # 200 positions a panel; 3 x 3 screen pixels per matrix entry
mat_w, mat_h = half * per_entry, toks.shape[1] * per_entry  # 600 x 180 screen pixels
ax1 = fig.add_axes(box(55, 100, 210, 300))
halves = [fig.add_axes(box(360, 300, mat_w, mat_h)), fig.add_axes(box(360, 60, mat_w, mat_h))]
cax = fig.add_axes(box(360 + mat_w + 15, 60, 15, 420))
plots.show_picture(
    first,
    ax=ax1,
    title=f"first window (token 0)\npadding: rows and columns 0-{-top - 1}\nsame colour scale as right",
    colorbar=False,
)
ax1.set_xticks(range(0, k + 1, 5))
ax1.set_yticks(range(0, k + 1, 5))
ax1.set_xlabel("column in the window")
ax1.set_ylabel("row in the window")
for n, ax in enumerate(halves):
    lo = n * half
    plots.show_matrix(
        toks[0, :, lo : lo + half],
        ax=ax,
        title=f"token matrix {toks.shape[1]} x {toks.shape[2]}: positions {lo} to {lo + half - 1}",
        xlabel="position in the token" if n else "",
        ylabel="token index",
        vmin=0,
        vmax=1,
        colorbar=False,
    )
    ax.images[0].set_extent((lo - 0.5, lo + half - 0.5, toks.shape[1] - 0.5, -0.5))
    ax.set_xlim(lo - 0.5, lo + half - 0.5)
    ax.set_xticks(range(lo, lo + half + 1, 20))
fig.colorbar(halves[0].images[0], cax=cax, label="brightness")
plt.show()
extent = halves[0].get_window_extent()  # whole screen pixels per entry
assert (round(extent.width), round(extent.height)) == (mat_w, mat_h)

# %% [markdown]
# The token matrix has a pattern: some rows start or end with a dark run, and some have short dark runs at a
# regular spacing. The fine vertical hatching in some rows is not a drawing artefact: it is the picture's own
# one-pixel checkerboard (the rows printed above alternate between two greys pixel by pixel), so every window
# row that crosses it alternates too. Many of the dark runs are the padding zeros, but dark pixels of the picture look the same, so the
# cell below tells them apart by splitting an all-ones image. The windows of the top row of the grid (tokens 0
# to 9) begin with $p = 5$ padding rows of the window, $5 \cdot 20 = 100$ entries; those of the bottom row
# (tokens 50 to 59) end with 100. The windows of the left column (tokens 0, 10, ..., 50) begin every window
# row with 5 padding columns: 5 zeros in every 20 entries; those of the right column (tokens 9, 19, ..., 59)
# end every window row with 5. The cell counts the padding entries of each token on the all-ones image, where
# only the padding gives zeros, and prints them on the token grid.

# %%
from_padding = tokens.soft_split(torch.ones_like(image), k, s, p)[0] == 0  # (N, k*k): True in the padding
per_token = from_padding.sum(dim=1).reshape(grid.rows, grid.cols)  # (rows, cols)
print(f"padding entries per token, on the {grid.rows} x {grid.cols} token grid:\n{per_token}")
print(f"token 0 starts with {int(from_padding[0, :100].sum())} of 100 padding entries")
print(f"token 59 ends with {int(from_padding[59, -100:].sum())} of 100 padding entries")
print(
    f"token 20, entries 0-19 of its window rows: padding at {from_padding[20, :20].nonzero().flatten().tolist()}"
)

# %% [markdown]
# **Exercise 3 (coding, transfer).** `nn.Unfold` hides the sliding. Build a soft split yourself:
# `my_soft_split(images, k, s, p)` takes (B, C, H, W) and returns (B, N, C·k·k) in `nn.Unfold`'s order
# (windows row by row; inside a token, channel by channel, each window row by row). Use `F.pad` for the padding
# and `Tensor.unfold(dim, size, step)` (or strided slicing) for the windows, *not* `nn.Unfold`. `Tensor.unfold`
# cuts one axis into windows and puts the window axis last, as this tiny example shows:

# %%
print(torch.arange(10).unfold(0, 4, 3))  # windows of 4 along axis 0, starting every 3

# %% [markdown]
# The check compares your function with `nn.Unfold` on five shapes (one to three channels, square and not,
# with and without padding) and names the usual slips.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "soft_split_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_soft_split(images: torch.Tensor, k: int, s: int, p: int) -> torch.Tensor:
    ### BEGIN SOLUTION
    x = F.pad(images, (p, p, p, p))  # (B, C, H + 2p, W + 2p)
    x = x.unfold(2, k, s).unfold(3, k, s)  # (B, C, rows, cols, k, k)
    b, c, rows, cols = x.shape[:4]
    x = x.permute(0, 2, 3, 1, 4, 5)  # (B, rows, cols, C, k, k)
    return x.reshape(b, rows * cols, c * k * k)  # (B, N, C*k*k)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "soft_split_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.soft_split_function(my_soft_split)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "soft_split_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.soft_split_function, my_soft_split)
### END HIDDEN TESTS

# %% [markdown]
# ## Rebuilding a picture from tokens
#
# **Back in place.** Every window knows where it came from, so the tokens can be put back. `F.fold` does the
# putting back and *adds* the copies where windows overlap. Writing $c(i, j)$ for the number of windows that
# cover pixel $(i, j)$ (the heat map above) and $t_n(i, j)$ for window $n$'s copy of that pixel,
#
# $$\operatorname{fold}(t)(i, j) = \sum_{n} t_n(i, j) = c(i, j)\, x(i, j), \qquad
# \operatorname{unsplit}(t)(i, j) = \frac{\operatorname{fold}(t)(i, j)}{c(i, j)} = x(i, j),$$
#
# where the sum runs over the windows $n$ that contain pixel $(i, j)$: so `vitcourse.tokens.unsplit` divides by
# the coverage. For this picture every pixel is covered ($c \ge 1$, the
# coverage section printed it), so the picture comes back.
#
# That is a fact about this picture, not about every size. When the windows leave no gaps between them
# ($s \le k$) and the padding is narrower than a window ($p < k$), only the far end of a side can be missed:
# along a side of length $w$ the last window stops $r = (w + 2p - k) \bmod s$ pixels before the end of the padded
# side; the last $p$ of those are padding, so when $r > p$ the last $r - p$ rows (or columns) of the picture lie
# in no window, and `unsplit` returns 0 there. (With $s > k$ the gaps between windows are missed as well, and
# with $p \ge k$ the first window can lie wholly in the padding.) The
# second cell below checks squares with the picture's two sides (60 and 100) and two sizes where the rule's
# settings leave pixels out.

# %%
summed = F.fold(toks.transpose(1, 2), output_size=(H, W), kernel_size=k, stride=s, padding=p)  # (1, C, H, W)
print(f"fold: {tuple(toks.shape)} -> {tuple(summed.shape)}")
assert torch.allclose(summed[0, 0], image[0, 0] * cover, atol=1e-6)
back = tokens.unsplit(toks, H, W, k, s, p)  # (1, C, H, W)
gap = (back - image).abs().max().item()
print(
    f"fold = picture x coverage count (asserted); unsplit differs from the picture by at most 1e-6: {gap < 1e-6}"
)
assert gap < 1e-6

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
# **T2T's way: one pixel per token.** Between its stages T2T does something else. The tokens sit on an
# $n_{rows} \times n_{cols}$ grid; T2T lays each token on its grid cell as one *pixel* whose channels are the
# token's entries: token $i$ goes to row $\lfloor i / n_{cols} \rfloor$, column $i \bmod n_{cols}$. (Looking ahead
# to notebook 06: in the model, T2T first passes the tokens through a transformer, so the channels are learned
# features; here we rebuild the raw tokens to see the layout.)
#
# **Exercise 4 (coding).** Write `my_rebuild(toks, h, w)` that lays tokens of shape (B, h·w, C) onto a
# (B, C, h, w) image, token $i$ at row $i$ // $w$, column $i$ % $w$, for *any* $h \times w$ (the official T2T code
# takes a square root here and only works for square grids). Before you write it, think about the one-liner
# `toks.reshape(B, C, h, w)` on its own: which entries of which tokens would it put in channel 0? The check
# compares your function with `vitcourse.tokens.rebuild_image` on four shapes and names the usual slips.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "rebuild_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_rebuild(toks: torch.Tensor, h: int, w: int) -> torch.Tensor:
    ### BEGIN SOLUTION
    b, n, c = toks.shape
    return toks.transpose(1, 2).reshape(b, c, h, w)  # (B, C, h, w)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "rebuild_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.rebuild_function(my_rebuild)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "rebuild_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.rebuild_function, my_rebuild)
### END HIDDEN TESTS

# %% [markdown]
# So the $(N, C)$ token matrix becomes a $(C, n_{rows}, n_{cols})$ image: the token axis has to move behind the
# channel axis before it is split into rows and columns. A plain reshape reads the (N, C) matrix row by row, so
# it would fill channel 0 with the first $h \cdot w$ entries of the first tokens.
#
# The package's version on the picture's tokens: a 400-channel image on the token grid. Channel $j$ holds pixel
# $j$ of every window, so each channel samples the padded picture every $s$ pixels, shifted by that pixel's
# place in the window: a small, shifted copy of the picture. The cell draws three channels, the first, the last
# and channel 210 = pixel (10, 10) (a 20 × 20 window has no centre pixel; (10, 10) is the one just below and right
# of its middle), and checks all three against strided indexing of the padded picture. The three panels share
# the colour range 0 to 1 and one colour bar; the ticks mark token rows and columns. Some cells sample the
# padding and hold a zero: pixel (0, 0) of the windows in the top token row and in the left token column lies in
# the padding, and so does pixel (19, 19) of those in the bottom row and the right column; the cell prints, for
# each channel, the token rows and columns that do, and checks that they are 0. The dark cells elsewhere are
# the picture's own dark ground.

# %%
rebuilt = tokens.rebuild_image(toks, grid.rows, grid.cols)  # (1, C*k*k, rows, cols)
print(f"rebuild_image: {tuple(toks.shape)} -> {tuple(rebuilt.shape)}")
channels = [0, (k // 2) * k + k // 2, k * k - 1]  # pixels (0, 0), (10, 10), (19, 19) of each window
fig, axes = plt.subplots(1, 3, figsize=(12, 2.8))
for ax, ch in zip(axes, channels, strict=True):
    plots.show_picture(
        rebuilt[0, ch],
        ax=ax,
        title=f"channel {ch}:\npixel ({ch // k}, {ch % k}) of each window",
        colorbar=False,
    )
    ax.set_xticks([c + 0.5 for c in range(grid.cols)], range(grid.cols))  # at the cell centres
    ax.set_yticks([r + 0.5 for r in range(grid.rows)], range(grid.rows))
    ax.set_xlabel("token column")
    ax.set_ylabel("token row")
fig.colorbar(axes[0].images[0], ax=list(axes), fraction=0.02, pad=0.02, label="brightness")  # one for all
plt.show()
for ch in channels:
    i, j = divmod(ch, k)  # the channel's place in the window
    assert torch.equal(rebuilt[0, ch], padded[0, 0, i::s, j::s][: grid.rows, : grid.cols])
    pad_rows = [r for r, first_row in enumerate(starts_down) if not 0 <= first_row + i < H]
    pad_cols = [c for c, first_col in enumerate(starts_across) if not 0 <= first_col + j < W]
    print(f"channel {ch}: token rows {pad_rows} and token columns {pad_cols} sample the padding")
    assert (rebuilt[0, ch, pad_rows] == 0).all() and (rebuilt[0, ch][:, pad_cols] == 0).all()

# %% [markdown]
# ### Three splits in a row
#
# T2T-ViT's module does this three times: it soft-splits the image with $(k, s, p) = (7, 4, 2)$, lays the tokens
# onto their grid as one pixel each, soft-splits that image with $(3, 2, 1)$, lays the tokens down again, and
# soft-splits once more with $(3, 2, 1)$. (Notebook 06 adds a small transformer before each laying-down; it
# changes the tokens' channels, not the grid.) The cell runs the three splits with the package on the picture:
# each split's tokens are laid onto their grid with `rebuild_image`, and that image is split again. The channels
# grow because every token of a split becomes a pixel with $k^2$ times the channels of the image it came from; in
# notebook 06 a transformer between the splits maps every token to 64 channels, so the tokens stay short. Then
# it follows the side of the paper's 224 × 224 input through the same three splits.

# %%
x = image  # (1, 1, H, W)
for kk, ss, pp in ((7, 4, 2), (3, 2, 1), (3, 2, 1)):
    split_tokens = tokens.soft_split(x, kk, ss, pp)  # (1, rows * cols, C * kk * kk)
    step = tokens.count_tokens(x.shape[-2], x.shape[-1], kk, ss, pp)
    print(
        f"{tuple(x.shape[-2:])} -> soft split ({kk}, {ss}, {pp}) -> {step.rows} x {step.cols} = {step.total} "
        f"tokens of length {split_tokens.shape[-1]}"
    )
    x = tokens.rebuild_image(split_tokens, step.rows, step.cols)  # (1, C * kk * kk, rows, cols)
sides = [224]  # the paper's input side
for kk, ss, pp in ((7, 4, 2), (3, 2, 1), (3, 2, 1)):
    sides.append(tokens.count_tokens(sides[-1], sides[-1], kk, ss, pp).rows)
print("the paper's input side, split after split: " + " -> ".join(str(n) for n in sides))

# %% [markdown]
# **Exercise 5 (transfer).** The paper's 224 × 224 input ends as a 14 × 14 grid of tokens (the paper says so
# too, Section 3.3). It is not the only square side that does, since every split rounds down. Which is the
# *smallest* square side, and which the *largest*, that T2T-ViT's three splits turn into a 14 × 14 grid? Answer
# with the pair `(smallest, largest)`. Think it through before you reach for a loop: run the splits backwards,
# one at a time, starting from the last.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "t2t_input_sides-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_sides = None  # replace None with (smallest, largest)
### BEGIN SOLUTION
# A split turns a side n into floor((n + 2p - k) / s) + 1 tokens, so the sides that give m tokens run from
# (m - 1) * s + k - 2p to that plus s - 1: the floor forgives up to s - 1 extra pixels.
# Backwards from the last split: grids of side 27 to 28 give 14; grids of side 53 to 56 give 27 to 28;
# image sides 211 to 226 give 53 to 56.
low, high = 14, 14
for kk, ss, pp in reversed(((7, 4, 2), (3, 2, 1), (3, 2, 1))):
    low, high = (low - 1) * ss + kk - 2 * pp, (high - 1) * ss + kk - 2 * pp + ss - 1
answer_sides = (low, high)
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "t2t_input_sides-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.t2t_input_sides(answer_sides)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "t2t_input_sides-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.t2t_input_sides, answer_sides)
### END HIDDEN TESTS

# %% [markdown]
# ## Play: kernel, stride, padding
#
# Move the sliders (they need a running Jupyter kernel, the Python process behind the notebook; not to be
# confused with the window size $k$) to see three of the windows on the padded picture, in the colours of the
# figures above (orange: the first window, token 0's; cyan: its neighbours on the token grid, the next one along
# its row and the first of the next row), the token grid's size from
# `count_tokens` in the title and the text line (checked against `nn.Unfold` at every setting), and the token
# matrix. Where the matrix has more rows or columns than its panel has room for at two screen pixels each, each
# cell is the mean of a few neighbouring entries (the title says how many), so that the picture's one-pixel
# checkerboard is not drawn as stripes that are not in the data. The picture's own border is dashed; outside it
# is zero padding. A stride larger than the kernel leaves
# pixels between windows that no token sees (the text line says so). A setting where no window fits shows a
# sentence saying why.

# %%
display(widgets.soft_split_explorer(picture))

# %%
for setting in [(20, 10, 5), (7, 4, 2), (3, 2, 1), (20, 20, 0), (1, 1, 0), (80, 10, 5)]:
    fig, summary = widgets.soft_split_view(picture, *setting)
    if fig is not None:
        plt.close(fig)
    print(summary)
assert widgets.soft_split_view(picture, 80, 10, 5)[0] is None

# %% [markdown]
# ## Summary
#
# - A sliding window makes $\lfloor (w + 2p - (k-1) - 1)/s + 1 \rfloor$ tokens along each side.
# - The rule $s = \lceil k/2 \rceil$, $p = \lceil k/4 \rceil$ (from the article series; it reproduces T2T's
#   official settings) gives the picture 6 × 10 = 60 overlapping tokens of length 400 on a 70 × 110 padded
#   picture; most pixels lie in four tokens, the edges in fewer.
# - The T2T paper gives the overlap, not the stride: stride = $k$ − overlap.
# - Overlap keeps only neighbourhoods up to $(k - s + 1) \times (k - s + 1)$ whole wherever they lie.
# - Unsplit recovers the whole picture only when every pixel is covered; for $s \le k$ and $p < k$ that holds
#   when $(w + 2p - k) \bmod s \le p$ on both sides (height and width).
# - A soft split is padding plus strided windows, flattened in $(C, k, k)$ order: `nn.Unfold` in one call.
# - Tokens can go back in place (fold, then divide by the coverage), or, T2T's way, onto their token grid as
#   many-channel pixels; each split then works on the grid the one before it made.
#
# **Next:** [03 Position embeddings](03_position_embeddings.ipynb): attention does not know where a token came
# from. How do we tell it?
