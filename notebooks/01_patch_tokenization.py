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
# # 01 · Patch tokenization
#
# **Time:** about 60 minutes
#
# Before this: [notebook 00](00_start_here.ipynb), which shows the picture and the course's one counting rule.
#
# A transformer works on a *sequence of tokens*: each token is one vector. In a language model, a token stands
# for a word or a piece of one. A Vision Transformer, *ViT*, cuts an image into square patches, flattens each
# patch into a vector, and projects every vector to the model width $D$, the length every token keeps inside the
# transformer. Why patches and not pixels? A transformer compares every token with every other one (notebook
# 04), so its work grows with the square of the number of tokens: one token per pixel would be far too many.
#
# By the end you can
# 1. say how many patches an image makes, how long each token is, and what changes when the image grows,
# 2. cut the picture into tokens in the order of `nn.Unfold`, PyTorch's layer that cuts an image into windows,
# 3. say where any pixel of any channel lands in a token,
# 4. cut a whole batch into tokens with a reshape, a permute and a final reshape,
# 5. project the tokens to width $D$, and say why that is a convolution that moves $P$ pixels at a time.
#
# Patches are counted from 0, row by row, as Python indexes them: patch 0 is top left, and patch $i$ becomes
# token $i$.

# %%
import matplotlib.pyplot as plt
import torch
from IPython.display import display
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, tokens, widgets
from vitcourse.data import dithered_rows, pale_mountain

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
B, C, H, W = image.shape
print(f"image batch: B={B}, C={C}, H={H}, W={W}")

# %% [markdown]
# ## 1. How many patches? (12 min)
#
# Cut an image of $H \times W$ pixels into square patches of $P \times P$ pixels. If $P$ divides both sides,
# there are $H/P$ rows of patches and $W/P$ patches in each row. That makes
#
# $$N = \frac{H}{P} \cdot \frac{W}{P} = \frac{H\,W}{P^2}$$
#
# patches. Each patch holds $P^2$ pixels in each of its $C$ channels, so it flattens into a token of length
# $P^2 C$. The image becomes a matrix of $N$ rows and $P^2 C$ columns. The ViT paper calls it $x_p$
# (Dosovitskiy et al. 2021, Section 3.1).
#
# PyTorch stores a batch of images as `(B, C, H, W)`: images, channels, rows, columns. The paper writes the
# channels last. Our picture has $H = 60$, $W = 100$ and $C = 1$, and we take $P = 20$.

# %%
P = 20
rows, cols = H // P, W // P
N = H * W // P**2
print(f"P = {P}: H % P = {H % P}, W % P = {W % P} (0 means P divides the side)")
print(f"{rows} rows x {cols} columns = N = {N} patches, each a token of length P^2 * C = {P * P * C}")
# count_tokens(height, width, kernel, stride, padding) counts sliding windows (notebook 02 derives it).
# A patch grid is windows of P x P pixels moved P pixels at a time, with no padding (no zeros added around).
assert rows * cols == N == tokens.count_tokens(H, W, P, P, 0).total

# %% mystnb={"image": {"alt": "The picture cut into 15 patches of 20 by 20 pixels, 3 rows by 5 columns, numbered 0 to 14 row by row"}}
fig, ax = plt.subplots(figsize=(7, 4))
plots.show_picture(picture, ax=ax, title=f"The picture cut into {N} patches of {P} x {P}, numbered from 0")
plots.draw_patch_grid(ax, H, W, P)
plt.show()

# %% [markdown]
# As in notebook 00, the axes count pixels from 0 and the ticks sit on the edges between pixels.
#
# Patches do not overlap: every pixel belongs to exactly one patch. So a shape that crosses a border between two
# patches is cut in two, and a shape over a corner where four patches meet is cut in four. The next cell shows it
# on the pale mountain, the pixels of 0.7 or brighter without the moon (`vitcourse.data.pale_mountain`).


# %%
def patch_of(row: int, col: int) -> int:
    """The number (from 0, row by row) of the P x P patch that holds pixel (row, col)."""
    return (row // P) * cols + col // P


mountain = pale_mountain(picture)  # (H, W): 0.7 or brighter, the moon left out
m_rows, m_cols = mountain.nonzero()
if m_rows.size:
    top = m_rows.min()
    peak_cols = m_cols[m_rows == top]
    peak_patches = sorted({patch_of(int(top), int(c_)) for c_ in peak_cols})
    all_patches = sorted({patch_of(int(r_), int(c_)) for r_, c_ in zip(m_rows, m_cols, strict=True)})
    peak = f"row {top}, columns {peak_cols.min()}-{peak_cols.max()}"
    print(f"the pale mountain's peak: {peak}, in patches {peak_patches}")
    print(f"its pixels lie in patches {all_patches}")
    for edge_row in range(P, H, P):  # every inner corner of the grid
        for edge_col in range(P, W, P):
            if mountain[edge_row - 1 : edge_row + 1, edge_col - 1 : edge_col + 1].all():  # all four pixels
                four = [patch_of(edge_row + dr, edge_col + dc) for dr in (-1, 0) for dc in (-1, 0)]
                print(f"it covers the corner at row {edge_row}, column {edge_col}, cut into patches {four}")
else:
    print("no pixel of 0.7 or brighter outside the moon in this picture")

# %% [markdown]
# Two learned parts of a ViT have shapes that depend on how the image is cut. The *projection* $E$ maps every
# token, a vector of length $P^2 C$, to a vector of length $D$ (section 6). The *position table* (the ViT
# paper's $\mathbf{E}_\text{pos}$) holds one learned vector of length $D$ for each token position; it tells the
# model where a token came from (notebook 03). The ViT paper's table has one row more, for an extra prediction
# token that notebook 03 introduces; here we count the patches' tokens only.

# %% [markdown]
# ### Exercise 1 (predict)
#
# A ViT has learned its weights on 60 × 100 pictures, one channel, with $P = 20$. We
# now want to use it on pictures of twice the resolution, 120 × 200, with $P = 20$ kept.
#
# - (a) Which of the two learned parts can it keep with the shape it has? Set `answer_reusable` to `"E"`,
#   `"position table"`, `"both"` or `"neither"`.
# - (b) By what factor does the number of tokens grow? Set `answer_count_factor`.
# - (c) A colleague would rather cut the 120 × 200 pictures into patches of $P = 40$, so that the number of
#   tokens stays as it was. How long is each token then? Set `answer_token_length`.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "reusable_part-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_reusable = None  # replace None with your answer to (a)
answer_count_factor = None  # (b)
answer_token_length = None  # (c)
### BEGIN SOLUTION
# (a) E's shape depends only on a token's length, P^2 C, which is kept; the table has one row per token
answer_reusable = "E"
# (b) the same patches: twice as many patch rows, and twice as many patches per row
answer_count_factor = 2 * 2
# (c) a token holds every pixel of its patch: P^2 C = 40 * 40 * 1; E, made for length 400, no longer fits
answer_token_length = 40 * 40 * 1
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "reusable_part-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.reusable_part(answer_reusable)
check.count_growth(answer_count_factor)
check.grown_token_length(answer_token_length)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "reusable_part-test", "locked": true, "points": 3, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden tests run the checks above and fail if an answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.reusable_part, answer_reusable)
check.require(check.count_growth, answer_count_factor)
check.require(check.grown_token_length, answer_token_length)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# The cell counts the tokens of the larger picture and prints the shapes of $E$ and of the position table for a
# model width of $D = 64$. It also tries the other choice: patches grown to 40 × 40.

# %%
D_example = 64  # a small model width, for short shapes only (ViT-B/16 uses 768, section 6)
print(
    f"{H} x {W}, P = {P}: {N} tokens of length {P**2 * C}; E {P**2 * C} x {D_example}, table {N} x {D_example}"
)
for size, way in ((20, "P kept"), (40, "N kept")):
    grown = tokens.count_tokens(2 * H, 2 * W, size, size, 0)
    print(
        f"{2 * H} x {2 * W}, P = {size} ({way}): {grown.rows} x {grown.cols} = {grown.total} tokens of length "
        f"{size**2 * C}; E {size**2 * C} x {D_example}, table {grown.total} x {D_example}"
    )
print(
    f"with P kept, the number of tokens grows by a factor of {tokens.count_tokens(2 * H, 2 * W, P, P, 0).total // N}"
)

# %% [markdown]
# With the same patches, the larger picture makes more tokens, not longer ones. So $E$ fits as it is, and the
# position table needs more rows. The ViT paper does this when it moves to larger images: it keeps the patch size
# and resizes the table (Section 3.2; notebook 12 shows how), then trains the model a little more at the new
# size. Growing the patches instead keeps the count and makes each token longer: then $E$ would no longer fit.


# %% [markdown]
# ## 2. One patch, one token (16 min)
#
# We follow one patch into a token: the example of the series' ViT article (Callis, *Vision Transformers,
# Explained*), `mountains[40:60, 20:40]`. The article counts from 1 and calls it patch 12; counted from 0 it is
# patch 11. The article picks it for its several shades (four in its picture). The cell finds its place in the
# grid and counts its shades in our redrawing.

# %%
number = 11
patch_row, patch_col = divmod(number, cols)  # counted from 0
patch = image[0, 0, patch_row * P : (patch_row + 1) * P, patch_col * P : (patch_col + 1) * P]  # (P, P)
token = patch.reshape(-1)  # (P*P,): row after row of the patch
print(f"patch {number}: patch row {patch_row}, patch column {patch_col}")
print(
    f"pixels: rows {patch_row * P}-{(patch_row + 1) * P - 1}, columns {patch_col * P}-{(patch_col + 1) * P - 1} (both ends included)"
)
print(f"patch shape {tuple(patch.shape)}")
print(f"its token: shape {tuple(token.shape)}; shades in it: {len(token.unique())}")


# %% mystnb={"image": {"alt": "Patch 11 as a 20 by 20 square of pixels above its token, a strip of 400 values in which each row of the patch follows the previous one"}}
# Each of the token's entries gets exactly 2 screen pixels across, so that no entry is drawn wider than another.
# Black marks where each row of the patch ends: a colour no brightness has.
plots.show_patch_and_token(patch, token, name=f"patch {number}", px=2, line_color="black")
plt.show()

# %% [markdown]
# The token is the patch read like a book, one row of $P$ pixels after another. The black
# lines in the strip mark where one row of the patch ends and the next begins.
#
# PyTorch's tools for cutting patches (section 3) also take a patch size of `(height, width)`. A colleague
# extends `patch_of` to patches of `patch_h` rows by `patch_w` columns, and tests it against `patch_of`.


# %%
def patch_of_rect(row: int, col: int, patch_h: int, patch_w: int) -> int:
    """The number (from 0, row by row) of the patch_h x patch_w patch that holds pixel (row, col)."""
    per_row = W // patch_h
    return (row // patch_h) * per_row + col // patch_w


agrees = all(patch_of_rect(r_, c_, P, P) == patch_of(r_, c_) for r_ in range(H) for c_ in range(W))
print(f"patch_of_rect agrees with patch_of on all {H * W} pixels for {P} x {P} patches: {agrees}")

# %% [markdown]
# ### Exercise 2 (find the bug)
#
# `patch_of_rect` passes the test above, yet it has a bug.
#
# - (a) Find a case where it fails: set `answer_failing_case` to `(row, col, patch_h, patch_w)`, a pixel and a
#   patch shape for which `patch_of_rect` gives the wrong patch number.
# - (b) Explain with a number. For patches of 10 rows × 20 columns, for how many of the picture's 6000 pixels
#   does `patch_of_rect` give the right patch number? Work it out from the code, then set `answer_pixels_right`.
# - (c) Fix the bug: write `fixed_patch_of_rect(row, col, patch_h, patch_w)`, the number (from 0, row by row) of
#   the patch of `patch_h` rows × `patch_w` columns of the 60 × 100 picture that holds pixel `(row, col)`. Use
#   integer arithmetic, as `patch_of_rect` does. The check compares it with the patches that PyTorch cuts
#   (section 3), for several patch shapes and pixels.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "patch_number-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def fixed_patch_of_rect(row: int, col: int, patch_h: int, patch_w: int) -> int:
    ### BEGIN SOLUTION
    per_row = W // patch_w  # a row of patches holds one patch per patch width across the picture
    return (row // patch_h) * per_row + col // patch_w
    ### END SOLUTION


answer_failing_case = None  # replace None with (row, col, patch_h, patch_w)
answer_pixels_right = None  # (b)
### BEGIN SOLUTION
answer_failing_case = (45, 30, 10, 20)  # unequal sides, below the top row of patches
# (b) only in the top row of patches (row // patch_h == 0, rows 0-9) is the wrong count of patches per row
# multiplied by 0: 10 rows of 100 pixels
answer_pixels_right = 10 * 100
### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "patch_number-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.failing_case(answer_failing_case)
check.pixels_right(answer_pixels_right)
check.patch_number(fixed_patch_of_rect)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "failing_case-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden tests run the checks above and fail if an answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.failing_case, answer_failing_case)
check.require(check.pixels_right, answer_pixels_right)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "patch_number-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.patch_number, fixed_patch_of_rect)
### END HIDDEN TESTS


# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# The cell compares the two functions on patches of 10 rows × 20 columns: at pixel (45, 30), then on every pixel.

# %%
right = (45 // 10) * (W // 20) + 30 // 20  # patch row 4, W // patch_w = 5 patches a row, patch column 1
print(f"patch_of_rect: {patch_of_rect(45, 30, 10, 20)}; right: {right}")
print(f"patches in a row of patches: W // patch_h = {W // 10}, W // patch_w = {W // 20}")
n_rect = (H // 10) * (W // 20)  # patches of 10 x 20 in the picture
print(f"the grid: {H // 10} x {W // 20} = {n_rect} patches, numbered 0 to {n_rect - 1}")
ok = [
    (r_, c_)
    for r_ in range(H)
    for c_ in range(W)
    if patch_of_rect(r_, c_, 10, 20) == (r_ // 10) * (W // 20) + c_ // 20
]
ok_rows = sorted({r_ for r_, _ in ok})
print(f"pixels where patch_of_rect is right: {len(ok)}, all in rows {ok_rows[0]}-{ok_rows[-1]}")

# %% [markdown]
# So `patch_of_rect` gives 41, yet the grid has only 30 patches. The test before the exercise missed the bug
# because its patches were square: there `patch_h` equals `patch_w`, so using one where the other belongs
# changes nothing. Only patches with unequal sides can show it, and only below the top row of patches: there
# `row // patch_h` is 0, so the wrong count of patches per row is multiplied by 0.

# %% [markdown]
# ## 3. All fifteen tokens (8 min)
#
# Cut every patch the same way, in the order of their numbers, and stack the tokens: the *token matrix*, one row
# per token. We build it with a loop, then compare it with `nn.Unfold`, which slides a window over the image:
# `kernel_size` is the window's side in pixels (here $P$), `stride` how far it moves each time (also $P$, so the
# windows are the patches). It returns one column per window; we transpose to get one row per token.

# %%
by_hand = torch.stack(
    [
        image[0, :, i * P : (i + 1) * P, j * P : (j + 1) * P].reshape(-1)  # (C*P*P,)
        for i in range(rows)
        for j in range(cols)
    ]
).unsqueeze(0)  # (B, N, C*P*P)
print(f"tokens by hand:  {tuple(by_hand.shape)}")

unfolded = nn.Unfold(kernel_size=P, stride=P)(image)  # (B, C*P*P, N): one column per patch
print(f"nn.Unfold:       {tuple(unfolded.shape)} -> transposed {tuple(unfolded.transpose(1, 2).shape)}")
assert torch.equal(by_hand, unfolded.transpose(1, 2))
assert torch.equal(by_hand[0, number], token)
assert torch.equal(tokens.patchify(image, P), by_hand)  # the package's version, which later notebooks use
print("the loop, nn.Unfold and vitcourse.tokens.patchify give the same tokens (asserted)")

# %% [markdown]
# Three shapes of the picture are easy to follow into the tokens: the moon's brightest pixels (1.0; its
# slightly darker craters left out), the dithered band of notebook 00 where the mountain does not cover it, and
# the pale mountain (0.7 or brighter, without the moon). For each, the cell lists the tokens that hold its pixels:
# "token t: n at a-b" means n entries of token t, the first at position a, the last at b (both ends included).

# %%
mountain_mask = vitcourse.to_tensor(pale_mountain(picture).astype(float))  # (1, 1, H, W): 1 on the mountain
band_rows = torch.zeros_like(image)  # (1, 1, H, W): 1 on the rows of the dithered band
band_rows[..., dithered_rows(picture), :] = 1
shapes = {  # name -> (N, C*P*P): which entries of each token belong to the shape
    "moon": by_hand[0] == by_hand.max(),
    "dithered band": tokens.patchify(band_rows * (1 - mountain_mask), P)[0]
    > 0,  # where no mountain covers it
    "pale mountain": tokens.patchify(mountain_mask, P)[0] > 0,
}
found = {
    name: tokens.entries_per_token(mask) for name, mask in shapes.items()
}  # token -> (count, first, last)
for name, per_token in found.items():
    print(f"{name}:")
    print("  " + "; ".join(f"token {t}: {n} at {a}-{b}" for t, (n, a, b) in per_token.items()))

# %% mystnb={"image": {"alt": "The token matrix: 15 rows, one per token, of 400 values each, with green boxes around the moon in token 2, the dithered band in tokens 7 to 9 and the mountain's peak in tokens 0 and 1"}}
length = by_hand.shape[-1]


def box(name: str, first: int, last: int, label: str) -> tuple[int, int, int, int, str]:
    """A box around the entries of ``name`` in tokens ``first`` to ``last``: (tokens, positions, label)."""
    spans = [found[name][t] for t in range(first, last + 1) if t in found[name]]
    return first, last, min(a for _, a, _ in spans), max(b for _, _, b in spans), label


# Each entry gets exactly 2 screen pixels across and each token 16 down: with fewer pixels than entries,
# neighbouring entries that alternate (the dithered band) would merge into stripes that are not in the data.
fig = plots.show_token_matrix_exact(
    by_hand[0],
    title=f"The token matrix: {N} tokens x {length} values",
    xlabel=f"position in the token ({P} positions = one row of the patch)",
    ylabel="token (= patch number)",
    px=2,
    row_px=16,
    xstep=P,
)
for next_row_start in range(cols, N, cols):  # orange lines between the rows of patches
    fig.axes[0].axhline(next_row_start - 0.5, color="tab:orange", lw=1.5)
if all(found.values()):  # green boxes: a colour no brightness has
    marks = [
        box("moon", 2, 2, "moon"),
        box("dithered band", 7, 9, "band"),
        box("pale mountain", 0, 1, "peak"),
    ]
    plots.mark_token_spans(fig.axes[0], marks)
plt.show()

# %% [markdown]
# Read the figure one row at a time: each row is one patch, read row by row, a new pixel row of the patch every
# 20 positions. Orange lines separate the rows of patches. Look at the three green boxes:
#
# - **moon**, token 2: one white dash per pixel row of the moon. Its top rows span almost the whole patch, so
#   their dashes nearly join, broken by the craters' slightly darker pixels. The moon also crosses two patch
#   borders: token 1's one moon pixel is the white tick at position 19, and token 3's sits at position 0.
# - **band**, tokens 7-9, positions 0-119: fine stripes, the band's pixel rows at the top of the second row of
#   patches. In tokens 5 and 6 the pale mountain covers much of the band, so pale runs replace many stripes.
# - **peak**, tokens 0 and 1, positions 280-399: the pale mountain's peak, in the last pixel rows of patches 0
#   and 1: the shape that section 1 found cut in two by a patch border. The rest of the mountain lies in tokens
#   5-7, 10 and 11.

# %% [markdown]
# ## 4. Tokens with several channels (6 min)
#
# A colour image has three channels: red, green and blue. Each token then holds *all* channels of its patch.
# `nn.Unfold` keeps the channels apart. It stores the $P^2$ values of channel 0 row by row, then those of
# channel 1, and so on. We call this the order $(C, P, P)$. Other code may put the channels innermost instead,
# the order $(P, P, C)$, as Phil Wang's `vit-pytorch`, a widely read PyTorch ViT, does
# ([its pattern](#Evidence:-other-code-bases)).
#
# Where does a pixel land? Call the pixel's channel $c$, and its row and column inside the patch $i$ and $j$. Each
# channel fills $P^2$ positions before the next begins, and each row of the patch fills $P$:
#
# | order | pixel $(c, i, j)$ lands at position | position $q$ holds |
# |---|---|---|
# | $(C, P, P)$, `nn.Unfold` | $q = c P^2 + i P + j$ | $c = q \,//\, P^2$; then $(i, j)$ = `divmod(q % P**2, P)` |
# | $(P, P, C)$, vit-pytorch | $q = (i P + j) C + c$ | $c = q \bmod C$; then $(i, j)$ = `divmod(q // C, P)` |
#
# Before you run the next cell, predict with the table: for ViT-B/16, the ViT paper's base model (colour images,
# $C = 3$, $P = 16$), which channel, row and column does position 500 hold in each order?
#
# The cell checks it on a colour image of 32 × 32 pixels whose every value *encodes its own place*: channel ×
# 10000 + row × 100 + column. It cuts the top-left patch in each order and decodes a few positions.

# %%
q = 500
by_formula = {  # (c, i, j) from the table's last column, with C = 3 and P = 16
    "(C, P, P)": (q // 16**2, *divmod(q % 16**2, 16)),
    "(P, P, C)": (q % 3, *divmod(q // 3, 16)),
}
# three (3, 32, 32) tensors: each entry's own channel, row and column
ch_, row_, col_ = torch.meshgrid(torch.arange(3), torch.arange(32), torch.arange(32), indexing="ij")
codes = (ch_ * 10000 + row_ * 100 + col_).float().unsqueeze(0)  # (1, 3, 32, 32)
orders = {
    "(C, P, P)": nn.Unfold(kernel_size=16, stride=16)(codes)[0, :, 0].long(),  # (3*16*16,): nn.Unfold
    # permute(1, 2, 0) reorders the axes (C, P, P) -> (P, P, C); section 5 explains it
    "(P, P, C)": codes[0, :, :16, :16].permute(1, 2, 0).flatten().long(),  # (16*16*3,): vit-pytorch's order
}
print(f"token length {orders['(C, P, P)'].numel()}")
for order, first_token in orders.items():
    decoded = []
    for position in (0, 1, 16, 256, q):
        v = int(first_token[position])  # channel * 10000 + row * 100 + column
        decoded.append(f"{position}: ({v // 10000}, {v // 100 % 100}, {v % 100})")
    print(f"{order}, position: (channel, row, column)  " + "; ".join(decoded))
    v = int(first_token[q])
    assert (v // 10000, v // 100 % 100, v % 100) == by_formula[order]
print(f"position {q} by the formulas: {by_formula}, as decoded (asserted)")

# %% [markdown]
# The same position holds different pixels in the two orders. So weights learned in one order are wrong in the
# other: weights loaded from elsewhere must be used in the order they were learned in.

# %% [markdown]
# ## 5. All patches at once: reshape and permute (14 min)
#
# The loop in section 3 cuts one patch at a time. A reshape and a permute can cut all of them at once. A reshape
# keeps the values in their reading order (the last axis fastest) and only regroups them: it splits an axis of 6
# into (2, 3) as (outer, inner), so index $i$ becomes $(i \,//\, 3, i \bmod 3)$. A permute reorders the axes.
# The final reshape reads the values in that new order, copying them. Here is the idea on a 4 × 6 grid of the
# numbers 0 to 23, each its place in reading order, cut into patches of 2 × 2. Watch where patch 0, the values 0,
# 1, 6, 7, ends up.

# %%
grid = torch.arange(24).reshape(4, 6)  # (rows, columns)
print(f"grid {tuple(grid.shape)}:\n{grid}")
split_sides = grid.reshape(2, 2, 3, 2)  # (patch row, row in patch, patch column, column in patch)
print(f"reshape: {tuple(split_sides.shape)} = (patch row, row in patch, patch column, column in patch)")
print(f"  [0, 0] = patch row 0, row 0 of each of its three patches, one patch per line:\n{split_sides[0, 0]}")
patch_axes_first = split_sides.permute(0, 2, 1, 3)  # (patch row, patch column, row in patch, column in patch)
print(
    f"permute(0, 2, 1, 3): {tuple(patch_axes_first.shape)} = (patch row, patch column, row in patch, column in patch)"
)
print(f"  [0, 0] = patch 0 whole:\n{patch_axes_first[0, 0]}")
print(
    f"after the permute, are the values still stored in reading order (contiguous)? {patch_axes_first.is_contiguous()}"
)
grid_patches = patch_axes_first.reshape(6, 4)  # (patch, its 2 * 2 values row by row)
print(f"flatten each patch: {tuple(grid_patches.shape)}, one row per patch:\n{grid_patches}")
print(
    f"without the permute, the same final reshape gives rows such as {split_sides.reshape(6, 4)[0].tolist()}"
)
unfold_grid = nn.functional.unfold(grid[None, None].float(), kernel_size=2, stride=2)  # (1, 4, 6)
assert torch.equal(unfold_grid[0].T.long(), grid_patches)
print("nn.Unfold with 2 x 2 windows gives the same patches (asserted)")

# %% [markdown]
# Before the permute, `[0, 0]` holds one row of pixels across three patches; after it, `[0, 0]` holds patch 0
# whole. Without the permute, the final reshape glues runs of the grid's own rows together, such as 0, 1, 2, 3:
# not a patch.

# %% [markdown]
# ### Exercise 3 (code)
#
# Write `my_patchify(images, P)`: it turns a whole batch `(B, C, H, W)` into tokens `(B, N, C·P·P)` in the same
# order as `nn.Unfold`, each token holding its patch in the order $(C, P, P)$. The first reshape splits $H$ into
# (patch row, row in patch) and $W$ into (patch column, column in patch): six axes. The permute must then put the
# batch, the patch axes and the channel axis where the tokens need them. Use reshape and permute (the check
# refuses `nn.Unfold` and the package's own `patchify`), with a shape comment beside each step. The check
# compares your function with `nn.Unfold` on four shapes.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "patchify_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def my_patchify(images: torch.Tensor, P: int) -> torch.Tensor:
    ### BEGIN SOLUTION
    b, c, h, w = images.shape
    x = images.reshape(b, c, h // P, P, w // P, P)  # (B, C, rows, P, cols, P)
    x = x.permute(0, 2, 4, 1, 3, 5)  # (B, rows, cols, C, P, P)
    return x.reshape(b, (h // P) * (w // P), c * P * P)  # (B, N, C*P*P)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "patchify_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.patchify_function(my_patchify)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "patchify_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.patchify_function, my_patchify)
### END HIDDEN TESTS

# %% [markdown]
# ## 6. Projecting the tokens (4 min)
#
# A learned linear map $E$, a matrix of $P^2 C$ rows and $D$ columns, projects every token to the model width
# $D$. ViT-B/16 uses $D = 768$ (ViT paper,
# Table 1). The ViT paper (Eq. 1) writes $x_p E$, with no bias; the package's `nn.Linear` adds one, a learned
# vector $b$ of length $D$, so here the projected tokens are $z = x_p E + b$.
#
# `vitcourse.tokens.PatchTokenizer` does both steps, split then project; here they are one at a time.
# `nn.Linear` stores its weight $W_{\text{lin}}$ as `(out, in)`, that is $(D, P^2 C)$, and computes
# $x W_{\text{lin}}^\top + b$, so $E$ is the transposed weight.

# %%
D = 768
tokenizer = tokens.PatchTokenizer((H, W), patch_size=P, in_chans=C, embed_dim=D).to(device)
print(tokenizer)
img = image.to(device)
split = tokenizer.split(img)  # (B, N, C*P*P)
E = tokenizer.proj.weight.T  # (C*P*P, D): nn.Linear's weight is (D, C*P*P), (out, in)
projected = split @ E + tokenizer.proj.bias  # (B, N, D): z = x_p E + b
print(f"step 1, split:   {tuple(img.shape)} -> {tuple(split.shape)}")
print(f"step 2, project: {tuple(split.shape)} @ E {tuple(E.shape)} -> {tuple(projected.shape)}")
assert torch.allclose(tokenizer(img), projected, atol=1e-5)
n_params = sum(p.numel() for p in tokenizer.parameters())
print(f"learned weights: {P * P * C} x {D} + {D} = {P * P * C * D + D:,}; the module holds {n_params:,}")
assert n_params == P * P * C * D + D

# %% [markdown]
# The same map is a convolution. A convolution `nn.Conv2d` slides a window over the image, like `nn.Unfold`, and
# at each place takes $D$ weighted sums of the window's pixels, one per *filter* of $C \times P \times P$
# weights. With `kernel_size = stride = P` (a *strided* convolution: it moves $P$ pixels at a time) the window
# visits each patch exactly once. If filter $d$ holds column $d$ of $E$ reshaped to $(C, P, P)$, the token's
# order, its sum plus a bias is the token's $d$-th output. So the convolution gives the same tokens. The lecture
# slides build the patch embedding this way; [the check](#Evidence:-the-patch-embedding-as-a-convolution)
# compares the two on the picture and runs the slides' ViT-B/16 example.

# %% [markdown]
# ## Summary
#
# - A ViT cuts an $H \times W$ image into $N = HW/P^2$ patches, each a token of length $P^2 C$. On the picture,
#   $P = 20$ gives 15 tokens of length 400, projected to `(1, 15, 768)`.
# - Patches do not overlap, so a shape that crosses a patch border is cut apart.
# - A larger image with the same patches gives more tokens, not longer ones.
# - `nn.Unfold` writes a token in the order $(C, P, P)$; a reshape, a permute and a reshape do it for a batch.
# - The projection is a convolution with `kernel_size = stride = P` whose filters are $E$'s columns reshaped to
#   $(C, P, P)$.
#
# **Next:** [02 Soft split](02_soft_split.ipynb) lets the windows overlap, the first idea of Tokens-to-Token.

# %% [markdown]
# ## Evidence: other code bases
#
# - Phil Wang's `vit-pytorch` cuts patches with einops, a library that rearranges tensor axes by name. Its
#   pattern `'b c (h p1) (w p2) -> b (h w) (p1 p2 c)'` writes each token in the order $(P, P, C)$: `p1` (the row
#   in the patch), then `p2` (the column), then `c`, the last and so the fastest.
# - The lecture slides' patch embedding uses `bias=False`, as the ViT paper's $x_p E$ does; the package's
#   `nn.Linear` keeps its bias, which adds $D$ learned numbers and changes nothing else here.

# %% [markdown]
# ## Evidence: the patch embedding as a convolution
#
# Section 6 says that Unfold + Linear is a strided convolution. The cell copies the linear weight, reshaped to
# `(D, C, P, P)`, into a `Conv2d` and compares the tokens. Then it transposes each filter: with the weights in
# another order than the token's, the pairing of weights and pixels is wrong and the tokens differ. The
# convolution's output is a *feature map*, one $D$-vector per patch on the patch grid; flattening the grid and
# moving $D$ last gives the tokens. On a GPU the cell turns off TF32, a faster but less precise number format that
# convolutions may use, so that both sides compute in full float32. It prints the largest differences, whose last
# digits vary from machine to machine; the cell after it asserts their bounds.

# %%
# NBVAL_IGNORE_OUTPUT
# (rounding differs from machine to machine; the next cell asserts what holds on any)
conv = nn.Conv2d(C, D, kernel_size=P, stride=P).to(device)
full_float32 = torch.backends.cudnn.flags(enabled=torch.backends.cudnn.enabled, allow_tf32=False)
with torch.no_grad(), full_float32:
    conv.weight.copy_(tokenizer.proj.weight.reshape(D, C, P, P))  # (D, C*P*P) -> (D, C, P, P)
    conv.bias.copy_(tokenizer.proj.bias)
    feature_map = conv(img)  # (B, D, rows, cols): one D-vector per patch position
    from_conv = feature_map.flatten(2).transpose(1, 2)  # (B, N, D)
    gap = (from_conv - tokenizer(img)).abs().max().item()
    conv.weight.copy_(conv.weight.transpose(2, 3).clone())  # each filter transposed: the wrong pairing
    wrong_gap = (conv(img).flatten(2).transpose(1, 2) - tokenizer(img)).abs().max().item()
print(f"largest difference from Unfold + Linear: {gap:.1e}; with each filter transposed: {wrong_gap:.2f}")

# %%
print(f"conv output {tuple(feature_map.shape)} -> flatten -> {tuple(from_conv.shape)}")
print(f"largest difference from Unfold + Linear below 1e-5: {gap < 1e-5}")
print(f"with each filter transposed, largest difference above 0.1: {wrong_gap > 0.1}")
assert gap < 1e-5 and wrong_gap > 0.1

# %% [markdown]
# The lecture slides work this through for ViT-B/16 in their Part 3. A 224 × 224 colour image and 16 × 16 patches
# give a feature map of 768 × 14 × 14. It flattens into 196 tokens of width 768. The slides print the input as
# "224 x 244 x 3", a slip: the code beside it sets 224 × 224 ([notebook 15, §5.1](15_errata.ipynb)). The cell
# computes it. Here 768 is both $D$ and, by coincidence, the token length 3 · 16².

# %%
rgb = torch.randn(1, 3, 224, 224, generator=torch.Generator().manual_seed(0)).to(device)  # drawn on the CPU
b16_conv = nn.Conv2d(3, 768, kernel_size=16, stride=16).to(device)
with torch.no_grad():
    fmap = b16_conv(rgb)  # (1, 768, 14, 14)
b16_tokens = fmap.flatten(2).transpose(1, 2)  # (1, 196, 768)
print(
    f"{tuple(rgb.shape[1:])} -> Conv2d -> {list(fmap.shape[1:])} -> flatten -> {list(b16_tokens.shape[1:])}"
)
print(
    f"count_tokens: {tokens.count_tokens(224, 224, 16, 16, 0)}; raw token length 3 * 16 * 16 = {3 * 16 * 16}"
)

# %% [markdown]
# ## Evidence: play with the patch size
#
# Only patch sizes that divide both 60 and 100 are allowed; the cell lists them. Pick one in the drop-down and
# watch the grid, the token count and the token matrix change (this needs a live Python session). Small patches make
# many short tokens; large patches make few long ones. Where the panel is too narrow, each drawn cell averages a
# few entries (the title says how many), so fine detail such as the band's stripes in section 3's token matrix
# blurs here: that figure draws every entry.
# [Its text line for every size](#Evidence:-the-explorer-for-every-patch-size) is printed below.

# %% mystnb={"image": {"alt": "A drop-down of patch sizes with the picture, its patch grid and the token matrix for the chosen size"}}
sizes = widgets.valid_patch_sizes(H, W)
print(f"patch sizes that divide {H} and {W}: {sizes}")
display(widgets.patch_explorer(picture))

# %% [markdown]
# ## Evidence: the explorer for every patch size
#
# The drop-down above prints one line per choice. The cell prints that line for every allowed size, checks
# its count against `count_tokens`, and shows what the explorer says for a size that does not divide the picture.

# %%
for size in sizes:
    fig, summary = widgets.patch_view(picture, size)
    plt.close(fig)
    count = tokens.count_tokens(H, W, size, size, 0)
    assert summary.startswith(f"P = {size}: {count.rows} x {count.cols} = {count.total} tokens")
    print(summary)
print(widgets.patch_view(picture, 7)[1])
# doubling both the picture's sides and the patch side keeps the grid: P = 10 here makes as many tokens as
# P = 20 on the 120 x 200 picture of Exercise 1
assert tokens.count_tokens(H, W, 10, 10, 0) == tokens.count_tokens(2 * H, 2 * W, 20, 20, 0)
