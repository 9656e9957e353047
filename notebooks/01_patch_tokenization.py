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
# **Time:** about 55 minutes
#
# Before this: [notebook 00](00_start_here.ipynb), which shows the picture and the course's one counting rule.
#
# A transformer works on a *sequence of tokens*. A token is one vector, one item of the sequence. In a language
# model, a token stands for a word or a piece of a word. A Vision Transformer, *ViT*, makes its tokens from an
# image in a simple way. It cuts the image into square patches. It flattens each patch into a vector.
# Then it projects every vector to the model width $D$, the length every token keeps inside the transformer.
#
# By the end you can
# 1. say how many patches an image makes, how long each token is, and what changes when the image grows,
# 2. cut the picture into patches and flatten them in the same order as `nn.Unfold`, PyTorch's layer for cutting
#    patches,
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
from vitcourse.data import pale_mountain

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
image = vitcourse.to_tensor(picture)  # (1, 1, H, W)
B, C, H, W = image.shape
print(f"image batch: B={B}, C={C}, H={H}, W={W}")

# %% [markdown]
# ## 1. How many patches? (15 min)
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
# The axes count pixels from 0. Their ticks sit on the edges between pixels, so the last tick, 60 or 100, marks
# the far edge of the last pixel, row 59 or column 99.
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
# token, a vector of length $P^2 C$, to a vector of length $D$ (section 6). The *position table* (the notation
# sheet's $\mathbf{E}_\text{pos}$) holds one learned vector of length $D$ for each token position; it tells the
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
# - (b) By what factor does the number of tokens grow? Set `answer_count_factor`. Your answer to (a) should
#   follow from the same reasoning.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "reusable_part-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_reusable = None  # replace None with your answer to (a)
answer_count_factor = None  # (b)
### BEGIN SOLUTION
# (a) E's shape depends only on a token's length, P^2 C, which is kept; the table has one row per token
answer_reusable = "E"
# (b) the same patches: twice as many patch rows, and twice as many patches per row
answer_count_factor = 2 * 2
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "reusable_part-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.reusable_part(answer_reusable)
check.count_growth(answer_count_factor)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "reusable_part-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.reusable_part, answer_reusable)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "count_growth-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.count_growth, answer_count_factor)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# The cell counts the tokens of the larger picture and prints the shapes of $E$ and of the position table for a
# model width of $D = 64$. It also tries the other choice: patches grown to 40 × 40.

# %%
D_example = 64  # a model width, for the shapes only
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
# and resizes the table (Section 3.2); notebook 12 shows how. Growing the patches instead keeps the count and
# makes each token longer: then $E$ would no longer fit.


# %% [markdown]
# ## 2. One patch, one token (13 min)
#
# We follow one patch into a token: the example of the series' ViT article (Callis, *Vision Transformers,
# Explained*), cut out there as `mountains[40:60, 20:40]`. The article counts from 1 and calls it patch 12;
# counted from 0 it is patch 11. On the article's picture it holds four shades; the cell finds its place in the
# grid and counts its shades in our rendition of the picture.

# %%
number = 11
r, c = divmod(number, cols)  # patch row and column, counted from 0
patch = image[0, 0, r * P : (r + 1) * P, c * P : (c + 1) * P]  # (P, P)
token = patch.reshape(-1)  # (P*P,): row after row of the patch
print(f"patch {number}: patch row {r}, patch column {c}")
print(f"pixels: rows {r * P}-{(r + 1) * P - 1}, columns {c * P}-{(c + 1) * P - 1} (both ends included)")
print(f"patch shape {tuple(patch.shape)}")
print(f"its token: shape {tuple(token.shape)}; shades in it: {len(token.unique())} (the article's has 4)")


# %% mystnb={"image": {"alt": "Patch 11 as a 20 by 20 square of pixels above its token, a strip of 400 values in which each row of the patch follows the previous one"}}
# Each of the token's entries gets exactly 2 screen pixels across, so that no entry is drawn wider than another.
fig = plots.show_patch_and_token(patch, token, name=f"patch {number}", px=2)
strip = fig.axes[1]  # the token
for line in strip.lines:  # the lines between the patch's rows, in black: a colour no brightness has
    line.set_color("black")
strip.set_xlabel("position in the token (black lines: where each row of the patch ends)")
plt.show()

# %% [markdown]
# On the course's picture the count differs from the article's 4: the course draws its own pixel-art rendition of
# the scene (notebook 00). The token is the patch read like a book, one row of $P$ pixels after another. The black
# lines in the strip mark where one row of the patch ends and the next begins.
#
# Patches need not be square: PyTorch's tools for cutting patches (section 3) also take a patch size of
# `(height, width)`. A colleague extends `patch_of` to patches of `patch_h` rows by `patch_w` columns. The cell
# tests it against `patch_of` on square patches.


# %%
def patch_of_rect(row: int, col: int, patch_h: int, patch_w: int) -> int:
    """The number (from 0, row by row) of the patch_h x patch_w patch that holds pixel (row, col)."""
    per_row = W // patch_h  # patches in one row of patches
    return (row // patch_h) * per_row + col // patch_w


agrees = all(patch_of_rect(r_, c_, P, P) == patch_of(r_, c_) for r_ in range(H) for c_ in range(W))
print(f"patch_of_rect agrees with patch_of on all {H * W} pixels for {P} x {P} patches: {agrees}")

# %% [markdown]
# ### Exercise 2 (find the bug)
#
# `patch_of_rect` passes the test above, yet it has a bug. Find a case where it fails, find the bug, then write
# `fixed_patch_of_rect(row, col, patch_h, patch_w)`: the number (from 0, row by row) of the patch of `patch_h` rows × `patch_w` columns of the 60 × 100 picture that holds pixel `(row, col)`.
# Write it with integer arithmetic, as `patch_of_rect` is. The check compares it with the patches `nn.Unfold` cuts
# (section 3), for several patch shapes and pixels.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "patch_number-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def fixed_patch_of_rect(row: int, col: int, patch_h: int, patch_w: int) -> int:
    ### BEGIN SOLUTION
    per_row = W // patch_w  # a row of patches holds one patch per patch width across the picture
    return (row // patch_h) * per_row + col // patch_w
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "patch_number-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.patch_number(fixed_patch_of_rect)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "patch_number-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.patch_number, fixed_patch_of_rect)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# The cell shows where the two functions part: patches of 10 rows × 20 columns, pixel (45, 30).

# %%
right = (45 // 10) * (W // 20) + 30 // 20  # patch row 4, W // patch_w = 5 patches a row, patch column 1
print(f"patch_of_rect: {patch_of_rect(45, 30, 10, 20)}; right: {right}")
print(f"patches in a row of patches: W // patch_h = {W // 10}, W // patch_w = {W // 20}")
n_rect = (H // 10) * (W // 20)  # patches of 10 x 20 in the picture
print(f"the grid: {H // 10} x {W // 20} = {n_rect} patches, numbered 0 to {n_rect - 1}")

# %% [markdown]
# So `patch_of_rect` gives 41, yet the grid has only 30 patches. The test before the exercise missed the bug
# because its patches were square: there `patch_h` equals `patch_w`, so using one where the other belongs
# changes nothing. Only patches with unequal sides can show it.

# %% [markdown]
# ## 3. All fifteen tokens (4 min)
#
# Cut every patch the same way, in the order of their numbers, and stack the tokens. The result is the *token
# matrix*, one row per token. We build it with a plain loop, then compare it with PyTorch's `nn.Unfold`.
# `nn.Unfold` slides a window over the image: `kernel_size` is the window's side in pixels (here $P$), `stride`
# how many pixels it moves each time (here also $P$, so the windows are the patches). It returns one column per
# window, so we transpose to get one row per token.

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
assert torch.equal(tokens.patchify(image, P), by_hand)  # the package's version, used from here on
print("the loop, nn.Unfold and vitcourse.tokens.patchify give the same tokens (asserted)")

# %% mystnb={"image": {"alt": "The token matrix: 15 rows, one per token, of 400 values each; the moon and the dithered band show as patterns along the rows"}}
length = by_hand.shape[-1]
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
# lines between the rows of patches, in orange, a colour no brightness has
for next_row_start in range(cols, N, cols):
    fig.axes[0].axhline(next_row_start - 0.5, color="tab:orange", lw=1.5)
plt.show()

# %% [markdown]
# Read the figure one row at a time: each row is one patch read row by row, and the orange lines part the picture's
# rows of patches. So a shape appears once per pixel row of its patch, every 20 positions. On the course's
# picture, token 2's white dashes are the moon, one per pixel row; its top rows span the patch, so their dashes
# join into one run. The fine stripes of tokens 5-9 in positions 0-119 are the rows of notebook 00's dithered
# band. The cell finds both by number.

# %%
bright = (by_hand[0] == by_hand.max()).sum(dim=1)  # (N,) brightest entries in each token
holding = bright.nonzero().flatten().tolist()
print("tokens holding the brightest value, and how many such entries:")
print("  " + ", ".join(f"token {t}: {int(bright[t])}" for t in holding))
differs = picture[:, 1:] != picture[:, :-1]  # (H, W - 1): each pixel against its right-hand neighbour
band = (differs.mean(axis=1) > 0.5).nonzero()[0]  # rows of the dithered band
if band.size == 0:
    print("no row of this picture has most pixels differing from their neighbour")
for patch_row in sorted(set((band // P).tolist())):
    inside = band[band // P == patch_row] - patch_row * P  # the band's rows, counted inside the patch
    first, last = inside.min() * P, (inside.max() + 1) * P - 1
    print(
        f"band rows {band[band // P == patch_row].min()}-{band[band // P == patch_row].max()}: tokens "
        f"{patch_row * cols}-{(patch_row + 1) * cols - 1}, positions {first}-{last} in each"
    )

# %% [markdown]
# The moon lies in patch 2, but it spills one pixel into patch 1 and one into patch 3, so tokens 1 and 3 hold one
# brightest entry each: a shape cut by a patch border lands in several tokens.

# %% [markdown]
# ## 4. Tokens with several channels (5 min)
#
# A colour image has three channels: red, green and blue. Each token then holds *all* channels of its patch.
# `nn.Unfold` keeps the channels apart. It stores the $P^2$ values of channel 0 row by row, then those of
# channel 1, and so on. We call this the order $(C, P, P)$. Other code may use another order. Phil Wang's
# `vit-pytorch`, a widely read PyTorch ViT, cuts patches with einops, a library that rearranges tensor axes by
# name: its pattern `'b c (h p1) (w p2) -> b (h w) (p1 p2 c)'` puts the channels innermost, $(P, P, C)$.
#
# Where does a pixel land? In the order $(C, P, P)$, pixel (row $r$, column $j$) of channel $c$ of a patch lands
# at position $q = c P^2 + r P + j$ of its token: each channel fills $P^2$ positions before the next begins, and
# each row of the patch fills $P$. In the order $(P, P, C)$ it lands at $q = (r P + j) C + c$. Read backwards, for
# ViT-B/16, the ViT paper's base model (colour images, $P = 16$): in the order $(C, P, P)$, position $q$ holds
# channel $q \,//\, 256$, and the rest, $q \bmod 256$, splits into a row and a column with `divmod(·, 16)`. In the order $(P, P, C)$, each pixel keeps its three channels together:
# position $q$ holds channel $q \bmod 3$ of pixel $q \,//\, 3$, which splits into a row and a column the same way.
#
# The cell works this out for position 500, then checks it. It makes a colour image of 32 × 32 pixels whose every
# value *encodes its own place*: channel × 10000 + row × 100 + column. It cuts the top-left patch into a token in
# each order and decodes a few positions.

# %%
q = 500
channel_, within = divmod(q, 16 * 16)
by_formula = {"(C, P, P)": (channel_, *divmod(within, 16))}
pixel_, channel_ = divmod(q, 3)
by_formula["(P, P, C)"] = (channel_, *divmod(pixel_, 16))
ch_, row_, col_ = torch.meshgrid(torch.arange(3), torch.arange(32), torch.arange(32), indexing="ij")
codes = (ch_ * 10000 + row_ * 100 + col_).float().unsqueeze(0)  # (1, 3, 32, 32)
orders = {
    "(C, P, P)": nn.Unfold(kernel_size=16, stride=16)(codes)[0, :, 0].long(),  # (3*16*16,): nn.Unfold
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
# The same position holds different pixels in the two orders. So weights learned for one order are wrong for the
# other: reused weights need their own order. Learned from the start, either order can express the same
# projections, with $E$'s rows reordered.

# %% [markdown]
# ## 5. All patches at once: reshape and permute (12 min)
#
# The loop in section 3 cuts one patch at a time. A reshape and a permute can cut all of them at once. A reshape
# keeps the values in their reading order, row by row (the last axis fastest), and only regroups them: it splits
# an axis of 6 into (2, 3) as (outer, inner), so index $i$ becomes $(i \,//\, 3, i \bmod 3)$. A permute
# reorders the axes. The final reshape reads the values in that new order, so it must copy them into it;
# `.view`, which never copies, would refuse. Here is the idea on a 4 × 6 grid of the numbers 0 to 23, cut into patches of
# 2 × 2. Each number is its place in reading order. Watch where patch 0, the values 0, 1, 6, 7, ends up.

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
print(f"after the permute, still in memory order (contiguous): {patch_axes_first.is_contiguous()}")
grid_patches = patch_axes_first.reshape(6, 4)  # (patch, its 2 * 2 values row by row)
print(f"flatten each patch: {tuple(grid_patches.shape)}, one row per patch:\n{grid_patches}")
print(
    f"without the permute, the same final reshape gives rows such as {split_sides.reshape(6, 4)[0].tolist()}"
)
unfold_grid = nn.functional.unfold(grid[None, None].float(), kernel_size=2, stride=2)  # (1, 4, 6)
assert torch.equal(unfold_grid[0].T.long(), grid_patches)
print("nn.Unfold with 2 x 2 windows gives the same patches (asserted)")

# %% [markdown]
# Before the permute, index `[0, 0]` holds one row of pixels across three patches; after it, index `[0, 0]` holds
# patch 0 whole. Without the permute, the final reshape would glue runs of the grid's own rows together, such as
# 0, 1, 2, 3, which is not a patch. The permute brings the two patch axes to the front, so each patch's own
# pixels end up together.

# %% [markdown]
# ### Exercise 3 (code)
#
# Write `my_patchify(images, P)`. It turns a whole batch of shape `(B, C, H, W)` into tokens
# of shape `(B, N, C·P·P)`, in the same order as `nn.Unfold`. Use reshape and permute; the check refuses
# `nn.Unfold` and the package's own `patchify`. Now a batch axis and a channel axis come along, and each token must hold its patch in the order
# $(C, P, P)$. Write a shape comment beside each step. The check compares your function with `nn.Unfold` on four
# shapes.


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
# A token of $P^2 C$ raw pixels is not yet what a transformer uses. A learned linear map $E$, a matrix of
# $P^2 C$ rows and $D$ columns, projects every token to the model width $D$. ViT-B/16 uses $D = 768$ (ViT paper,
# Table 1). The ViT paper (Eq. 1) and the lecture slides' code (`bias=False`) use no bias, $x_p E$; the
# package's `nn.Linear` adds one, a learned vector $b$ of length $D$, so here the projected tokens are
# $z = x_p E + b$.
#
# `vitcourse.tokens.PatchTokenizer` does both steps: split, then project. Here they are one at a time.
# `nn.Linear` stores its weight $W_{\text{lin}}$ as `(out, in)`, that is $(D, P^2 C)$, and computes
# $x W_{\text{lin}}^\top + b$. So $E$ is the transposed weight.

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
# at each place takes $D$ weighted sums of the window's pixels, one per *filter*: a filter is one set of $C \times
# P \times P$ weights. With `kernel_size = stride = P` (a *strided* convolution: it moves $P$ pixels at a time)
# it looks at each patch exactly once. Filter $d$ is then column $d$ of $E$ reshaped to $(C, P, P)$, the token's
# order, and its sum is the token's $d$-th output, $x_p E$ at column $d$, plus a bias. So the convolution gives the
# same tokens. The lecture slides build the patch embedding this way, and
# [the check](#Evidence:-the-patch-embedding-as-a-convolution) compares the two on the picture (the slides'
# ViT-B/16 example there prints shapes only).

# %% [markdown]
# ## 7. Play: choose the patch size (2 min)
#
# Only patch sizes that divide both 60 and 100 are allowed; the cell lists them. Pick one in the drop-down and
# watch the grid, the token count and the token matrix change (this needs a live Python session). Small patches make
# many short tokens; large patches make few long ones. Where the panel is too narrow, each drawn cell averages a
# few entries (the title says how many).
# [Its text line for every size](#Evidence:-the-explorer-for-every-patch-size) is printed at the end.

# %%
sizes = widgets.valid_patch_sizes(H, W)
print(f"patch sizes that divide {H} and {W}: {sizes}")

# %% mystnb={"image": {"alt": "A drop-down of patch sizes with the picture, its patch grid and the token matrix for the chosen size"}}
display(widgets.patch_explorer(picture))

# %% [markdown]
# ## Summary
#
# - A ViT cuts an $H \times W$ image into $N = HW/P^2$ patches. Each patch flattens into a token of length
#   $P^2 C$.
# - On the picture, $P = 20$ gives 15 tokens of length 400. Projected to width 768, they form a tensor of shape
#   `(1, 15, 768)`.
# - A larger image with the same patches gives more tokens, not longer ones: $E$ still fits, the position table
#   does not.
# - `nn.Unfold` stores a token channel by channel, each channel row by row: the order $(C, P, P)$.
# - A reshape, a permute and a final reshape cut a whole batch into patches.
# - `nn.Unfold` + `nn.Linear` and `nn.Conv2d(kernel_size=P, stride=P)` compute the same tokens when the
#   convolution holds the linear layer's weights reshaped to $(D, C, P, P)$, and its bias.
# - Patches do not overlap, so a shape that crosses a patch border is cut apart.
#
# **Next:** [02 Soft split](02_soft_split.ipynb) lets the windows overlap, the first idea of Tokens-to-Token.

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
# ## Evidence: the explorer for every patch size
#
# The drop-down of section 7 prints one line per choice. The cell prints that line for every allowed size, checks
# its count against `count_tokens`, and shows what the explorer says for a size that does not divide the picture.

# %%
for size in sizes:
    fig, summary = widgets.patch_view(picture, size)
    plt.close(fig)
    count = tokens.count_tokens(H, W, size, size, 0)
    assert summary.startswith(f"P = {size}: {count.rows} x {count.cols} = {count.total} tokens")
    print(summary)
print(widgets.patch_view(picture, 7)[1])
assert tokens.count_tokens(H, W, 10, 10, 0) == tokens.count_tokens(2 * H, 2 * W, 20, 20, 0)
