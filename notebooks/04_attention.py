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
# # 04 · Attention, step by step
#
# Attention lets every token look at every other token and take a weighted average of what it finds. The
# weights come from comparing a *query* of each token with a *key* of every token; what is averaged are the
# *values*. For tokens stacked as the rows of $X$, with $Q = XW_q$, $K = XW_k$, $V = XW_v$:
#
# $$\text{Attention}(Q, K, V) = \text{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V,$$
#
# with the softmax taken over each row (over the keys), and $d_k$ the length of a query.
#
# This notebook builds the standard layer that ViT uses in every block: tokens of length $D$ in, tokens of
# length $D$ out. (T2T's token transformers use a variant that changes the token length and adds $v$ to its
# output, a skip connection like the residual of notebook 05; notebook 06 builds it on top of this one.) The attention article of the article series (Callis, "Attention
# for Vision Transformers, Explained", 2024, in the series "Vision Transformers Explained" that notebook 00
# introduces) walks through that T2T layer; we start with the standard one because every ViT block uses it and
# the T2T variant is easiest to follow as a change to it.
#
# **Learning goals.** After this notebook you can
# 1. compute single-head attention by hand and name the shape after every step,
# 2. explain why the scores are divided by $\sqrt{d_k}$, and measure what the scale does to the weights,
# 3. cut Q, K, V into heads, glue them back in the right order, count the layer's weights and multiply-adds,
#    and predict how its cost grows with the number of tokens,
# 4. check the package's attention against `F.scaled_dot_product_attention` and `nn.MultiheadAttention`,
# 5. read an attention map: which token a query looks at, row by row, in each head.

# %%
import math

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, probes, scenes, tokens, train
from vitcourse.attention import Attention, clearest_row
from vitcourse.cost import count_macs

torch.manual_seed(0)
device = vitcourse.get_device()

# %% [markdown]
# ## The walk-through sizes
#
# A batch of 13 items, each 100 tokens of length $D$ = 64. Inside a transformer block attention reads tokens
# that a *layer norm* has just normalised: each token is shifted and scaled so that its own $D$ entries have
# mean 0 and variance 1 exactly (before the layer norm's learned scale and shift, which start at 1 and 0;
# notebook 05 covers layer norm fully). So we draw the tokens from a standard normal distribution, which has
# about the same statistics: mean 0 and variance 1 on average, each token's own mean near 0 and its variance
# between about 0.5 and 1.7 (printed below).
#
# The attention article's walk-through uses the same batch, token count and channels, but its tokens have
# length 49 (7 × 7, the pixels of a window of T2T's first soft split), which its layer reads into 64 channels:
# that is T2T's variant. Ours start at length 64 and stay at 64, the standard layer; Exercise 4 and notebook 06
# come back to length 49.

# %%
batch, n_tokens, dim = 13, 100, 64
x = torch.randn(batch, n_tokens, dim, generator=torch.Generator().manual_seed(42)).to(device)  # (B, N, D)
print(f"x: {tuple(x.shape)}  (batch, tokens, token length)")
token_means, token_vars = x.mean(-1), x.var(-1, unbiased=False)  # (B, N) each: over each token's D entries
print(
    f"per token: mean from {token_means.min():.2f} to {token_means.max():.2f}, "
    f"variance from {token_vars.min():.2f} to {token_vars.max():.2f} (a layer norm gives exactly 0 and 1)"
)
assert token_means.abs().max() < 0.5 and 0.45 < token_vars.min() and token_vars.max() < 1.75
article = {"batch": 13, "tokens": 100, "token length": 7 * 7, "channels": 64}  # the article's walk-through
print(
    "the article's walk-through: "
    + ", ".join(f"{name} {size}" for name, size in article.items())
    + f" -> Q, K, V each {(article['batch'], 1, article['tokens'], article['channels'])}"
)

# %% [markdown]
# ### 1. Queries, keys and values
#
# One linear layer maps each token to $3D$ numbers, which are split into q, k and v (the three matrices
# $W_q, W_k, W_v$ side by side, as timm, the PyTorch Image Models library of notebook 01, stores them).
#
# A layer can run several *heads*: it cuts the $D$ channels of q, k and v into groups of head_dim channels, and
# each group (one head) computes its own attention; "Several heads" below builds them. Here there is one head,
# so head_dim = $D$, but we keep a *head axis* of size 1 so that the same code works for several heads later.
#
# We draw the weights with standard deviation $1/\sqrt{D}$: each entry of q is then a sum of $D$ products, each
# with variance $1/D$, so q and k have variance about 1, the setting assumed in "Why divide by $\sqrt{d_k}$"
# below. A freshly built `nn.Linear` draws its weights uniformly from $[-1/\sqrt{D}, 1/\sqrt{D}]$ ($D$ its
# input length), which has standard deviation $1/\sqrt{3D}$, so its q would have variance about 1/3 (printed
# below for comparison).
#
# **The reshape and the permute, axis by axis.** The $3D$ numbers of a token are laid out as three blocks,
# [q | k | v] ($W_q, W_k, W_v$ side by side), and inside each block the $D$ = heads · head_dim channels come
# head by head. So `reshape(batch, n_tokens, 3, heads, head_dim)` reads the last axis from the outside in:
# the 3 comes first because it is the outermost block, then the heads, then the channels of one head.
# `permute(2, 0, 3, 1, 4)` lists the old axes in their new order: 2 (q, k or v) first, so that unpacking
# gives q, k and v; then 0 (batch), 3 (head), 1 (token) and 4 (channel of the head). The heads go before the
# tokens so that a matrix product over the last two axes compares tokens with tokens inside each head.

# %%
torch.manual_seed(0)
qkv = nn.Linear(dim, dim * 3)
nn.init.normal_(qkv.weight, std=dim**-0.5)  # drawn on the CPU, then moved: the same numbers on every device
nn.init.zeros_(qkv.bias)
qkv = qkv.to(device)
proj = nn.Linear(dim, dim).to(device)
heads = 1
head_dim = dim // heads
with torch.no_grad():
    mixed = qkv(x)  # (B, N, 3 * D)
    split = mixed.reshape(batch, n_tokens, 3, heads, head_dim)  # (B, N, 3, heads, head_dim)
    stacked = split.permute(2, 0, 3, 1, 4)  # (3, B, heads, N, head_dim)
    q, k, v = stacked  # each (B, heads, N, head_dim)
    q_default = nn.Linear(dim, dim * 3).to(device)(x)[..., :dim]  # q of a freshly built layer, (B, N, D)
print(f"qkv(x): {tuple(mixed.shape)} -> reshape {tuple(split.shape)} -> permute {tuple(stacked.shape)}")
print(f"Q, K, V each {tuple(q.shape)}  (batch, heads, tokens, channels)")
print(f"variance of the entries of q: {q.var().item():.2f}, of k: {k.var().item():.2f}")
print(f"variance of q with nn.Linear's own weights: {q_default.var().item():.2f}")

# %% [markdown]
# ### 2. Scores, scale and softmax
#
# Each query is compared with every key by a dot product: $QK^\top$ has one row per query token and one
# column per key token. The scores are multiplied by $d_k^{-1/2}$ and a softmax over each row (the last axis)
# turns them into weights: positive, summing to 1 over the keys.

# %%
scale = head_dim**-0.5
with torch.no_grad():
    scores = q @ k.transpose(-2, -1)  # (B, heads, N, N)
    weights = (scores * scale).softmax(dim=-1)  # (B, heads, N, N): softmax over the keys
print(f"QK^T: {tuple(scores.shape)}, scale = {head_dim}^-0.5 = {scale}, weights: {tuple(weights.shape)}")

# %% [markdown]
# ### 3. Averaging the values and projecting
#
# Each token's output is its row of weights times the values: a weighted average of the 100 value vectors.
# The heads are glued back side by side (here there is only one, so merging just drops the head axis) and a
# last linear layer, `proj`, mixes the channels. In a transformer block the input $x$ is then added back (a
# residual connection, notebook 05).

# %%
with torch.no_grad():
    mixed_values = weights @ v  # (B, heads, N, head_dim)
    merged = mixed_values[:, 0]  # (B, N, head_dim) = (B, N, D): with one head, merging drops the head axis
    out = proj(merged)  # (B, N, D)
print(
    f"weights @ V: {tuple(mixed_values.shape)} -> heads merged {tuple(merged.shape)} -> proj {tuple(out.shape)}"
)

# %% [markdown]
# The matrix products for the first batch item, as heatmaps (the first 20 tokens, so each cell can be seen;
# the products use all 100). The weights panel shows 20 of the 100 keys of each row, so its rows do not sum
# to 1. What to look for in the weights: every row (query) has its own pattern; the rows are far from uniform,
# with some keys getting several times the average weight 1/100 and many almost none; and so the output rows
# differ from each other, each a different mix of the values. (Printed below: the median row's largest weight,
# beside the two extremes: a uniform row, every key weighted 1/100, and a *one-hot* row, all the weight on one
# key.)
#
# Each output row is a *convex combination* of the value rows (weights positive, summing to 1): in every
# channel it lies between the smallest and the largest value. For independent values of variance 1 its
# variance is $\sum_j a_{ij}^2$, the sum of the squared weights of its row, which is small when the weight is
# spread over many keys. Printed below the figure: the outputs spread several times less than the values, but
# somewhat more than $\sum_j a_{ij}^2$ predicts. The prediction assumes values independent of the weights,
# while here both come from the same tokens; the control, the same weights applied to the values of another
# batch item (independent of these weights), lands on the prediction. So the last panel uses a narrower colour
# range, ±1 instead of ±3.

# %%
show = 20
item = {name: t[0, 0, :show].cpu() for name, t in [("Q", q), ("K", k), ("V", v), ("out", mixed_values)]}
w0 = weights[0, 0, :show, :show].cpu()
fig, axes = plt.subplots(1, 5, figsize=(17, 3.6), gridspec_kw={"width_ratios": [2.2, 2.2, 1.4, 2.2, 2.2]})
panels = [  # (matrix, title, xlabel, ylabel, colormap, colour range, colour bar's label)
    (item["Q"], "Q (20 tokens x 64)", "channel", "query token", "RdBu_r", 3, "entry of q"),
    (item["K"].T, "K^T (64 x 20 tokens)", "key token", "channel", "RdBu_r", 3, "entry of k"),
    (w0, "weights (20 of 100 keys)", "key token", "query token", "magma", None, "attention weight"),
    (item["V"], "V (20 tokens x 64)", "channel", "key token", "RdBu_r", 3, "entry of v"),
    (item["out"], "weights @ V (range ±1)", "channel", "query token", "RdBu_r", 1, "entry of the output"),
]
for ax, (matrix, title, xlabel, ylabel, cmap, limit, label) in zip(axes, panels, strict=True):
    vmin, vmax = (-limit, limit) if limit else (None, None)
    plots.show_matrix(
        matrix, ax=ax, title=title, xlabel=xlabel, ylabel=ylabel, cmap=cmap, vmin=vmin, vmax=vmax, label=label
    )
for ax in axes:  # token and channel numbers are whole numbers
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
fig.tight_layout()
plt.show()
top = weights.max(dim=-1).values  # (B, heads, N): the largest weight of each row
print(
    f"largest weight in a row: median {top.median().item():.2f} "
    "(uniform rows would give 1/100 = 0.01, one-hot rows 1)"
)
sum_sq = (weights**2).sum(dim=-1)  # (B, heads, N): sum of the squared weights of each row
predicted_std = (v.std() * sum_sq.mean().sqrt()).item()  # for values independent of the weights
with torch.no_grad():
    control = weights @ v.roll(1, dims=0)  # each item's weights applied to the values of another item
print(
    f"standard deviation of V {v.std().item():.2f}, of weights @ V {mixed_values.std().item():.2f} "
    f"({(v.std() / mixed_values.std()).item():.1f} times less)"
)
print(
    f"predicted for values independent of the weights: std of V x sqrt(mean sum of squared weights) "
    f"{predicted_std:.2f} ({v.std().item() / predicted_std:.1f} times less)"
)
print(f"control, weights @ (values of another item): {control.std().item():.2f}")
assert mixed_values.std() > 1.1 * predicted_std and abs(control.std() / predicted_std - 1) < 0.05

# %% [markdown]
# ## Exercise 1 (predict, then compute): what does the scale do?
#
# **Predict first.** Take the walk-through's q and k. Compare the weights $\text{softmax}(QK^\top / \sqrt{d_k})$
# with the unscaled $\text{softmax}(QK^\top)$. The *entropy* of a row of weights,
# $H = -\sum_j a_{ij} \ln a_{ij}$, measures how evenly the row shares its weight: it is $\ln 100$ for a uniform
# row over 100 keys and 0 for a one-hot row. Each statement below makes a choice and gives a reason; set
# `prediction` to the letter of the one whose choice and reason are both right.
#
# - **a.** The unscaled weights have the larger mean entropy: the raw scores are spread over a wider range, and
#   numbers spread more widely have the larger entropy.
# - **b.** The scaled weights have the larger mean entropy: dividing by $\sqrt{d_k}$ shrinks the gaps between the
#   scores of a row, and the softmax of scores that lie closer together is flatter.
# - **c.** Both have the same mean entropy: the softmax depends only on the differences between the scores, so
#   multiplying all of them by one number changes nothing.
# - **d.** The scaled weights have the larger mean entropy: the scale shrinks the entries of q and k to
#   variance 1, and with small queries and keys no key can stand out.
# - **e.** The unscaled weights have the larger mean entropy: unscaled scores differ more from key to key, so
#   more keys stand out and share the weight.
#
# **Then compute.** Write `attention_entropy(q, k, scale)`: the mean over all rows (every batch item, head and
# query) of the entropy of the rows of $\text{softmax}(q k^\top \cdot \text{scale})$, as one number, in *nats*:
# the unit of entropy measured with the natural logarithm $\ln$, as in the formula above (with $\log_2$ it would
# be in bits). (Tip: where a weight underflows to 0, `p * p.log()` gives `nan`; `torch.special.entr(p)` is
# $-p \ln p$ with the value 0 there.)


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "entropy_prediction-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def attention_entropy(q: torch.Tensor, k: torch.Tensor, scale: float) -> torch.Tensor:
    ### BEGIN SOLUTION
    p = torch.softmax(q @ k.transpose(-2, -1) * scale, dim=-1)  # (..., N, N), each row over the keys
    return torch.special.entr(p).sum(dim=-1).mean()  # entropy of each row, averaged over the rows
    ### END SOLUTION


prediction = None  # one of "a", "b", "c", "d", "e"
### BEGIN SOLUTION
prediction = "b"  # scaled: closer scores, flatter softmax
### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "entropy_prediction-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.entropy_prediction(prediction)
check.attention_entropy_function(attention_entropy)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "entropy_prediction-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.entropy_prediction, prediction)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention_entropy_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.attention_entropy_function, attention_entropy)
### END HIDDEN TESTS

# %% [markdown]
# The answer, computed directly here (so that nothing below depends on your function):

# %%
with torch.no_grad():
    scores_cpu = (q @ k.transpose(-2, -1)).cpu()  # (B, 1, N, N)
entropy_scaled = torch.special.entr((scores_cpu * scale).softmax(-1)).sum(-1).mean()
entropy_unscaled = torch.special.entr(scores_cpu.softmax(-1)).sum(-1).mean()
print(
    f"mean row entropy: scaled {entropy_scaled:.2f} nats, unscaled {entropy_unscaled:.2f} nats, "
    f"uniform ln 100 = {math.log(100):.2f}"
)
assert entropy_scaled > entropy_unscaled

# %% [markdown]
# ## Why divide by $\sqrt{d_k}$?
#
# If the entries of $q$ and $k$ are independent with mean 0 and variance 1, then $q \cdot k = \sum_{c=1}^{d_k}
# q_c k_c$ is a sum of $d_k$ products, each with mean 0 and variance $E[q_c^2]\,E[k_c^2] = 1$, so its variance is
# $d_k$ and its standard deviation $\sqrt{d_k}$. Scores that far apart push the softmax towards a one-hot row: one
# key takes almost all the weight, and training can barely move the row any more. Training changes each weight
# of the model by its *gradient*, how much the *loss* (the one number that measures how wrong the model's
# outputs are, and that training makes smaller) changes when that weight changes a little, and every such
# gradient passes through the softmax's derivative: how weight $a_j$ changes when score $s_l$ changes,
# $\partial a_j / \partial s_l = a_j(\delta_{jl} - a_l)$, where $\delta_{jl}$ is 1 when $j = l$ and 0
# otherwise. That is close to 0 for every $j$ and $l$ when every $a$ is close to 0 or 1, so almost no gradient
# gets through. Dividing by $\sqrt{d_k}$ brings the variance back to 1 whatever the head size. Measured on
# random pairs:

# %%
gen = torch.Generator().manual_seed(0)
pairs = 10_000
print(f"{pairs:,} random pairs (q, k) with unit-variance entries")
print(" d_k   var(q.k)   var(q.k)/d_k   var(q.k/sqrt(d_k))")
for d_k in (4, 16, 64, 256, 1024):
    qs, ks = torch.randn(pairs, d_k, generator=gen), torch.randn(pairs, d_k, generator=gen)
    dots = (qs * ks).sum(-1)
    print(f"{d_k:4d} {dots.var():10.1f} {dots.var() / d_k:14.2f} {(dots / math.sqrt(d_k)).var():20.2f}")
    assert abs(dots.var() / d_k - 1) < 0.1

# %% [markdown]
# The same on our walk-through: the scores have variance close to $d_k$ = 64, the scaled scores close to 1.
# And one query over 100 keys, with $d_k$ = 256: without the scale, one or two keys take most of the weight.

# %%
print(
    f"walk-through: var(QK^T) = {scores_cpu.var().item():.1f}, "
    f"var(QK^T / 8) = {(scores_cpu * scale).var().item():.2f}"
)
d_k = 256
qrow, keys = torch.randn(1, d_k, generator=gen), torch.randn(100, d_k, generator=gen)
raw = (qrow @ keys.T)[0]  # (100,) scores of one query over 100 keys
unscaled, scaled_w = raw.softmax(-1), (raw / math.sqrt(d_k)).softmax(-1)
print(f"d_k = {d_k}: largest weight without scaling {unscaled.max():.3f}, with scaling {scaled_w.max():.3f}")
fig, ax = plt.subplots(figsize=(9, 3))
ax.bar(range(100), unscaled, color="tab:red", label="softmax(q.k): saturated")
ax.bar(range(100), scaled_w, color="tab:blue", alpha=0.7, label="softmax(q.k / sqrt(d_k))")
ax.set_xlabel("key token")
ax.set_ylabel("attention weight")
ax.set_title(f"One query over 100 keys, d_k = {d_k}")
ax.legend()
plt.show()

# %% [markdown]
# ## Several heads
#
# With $h$ heads, the $D$ channels of q, k and v are cut into $h$ groups of $\text{head\_dim} = D / h$. Each head
# computes its own weights over the same tokens, with its own $d_k = \text{head\_dim}$ in the scale. Afterwards
# the $h$ outputs are put side by side again: head $i$ fills channels $i \cdot \text{head\_dim}$ to
# $(i + 1) \cdot \text{head\_dim} - 1$, and `proj` mixes them.
#
# **Exercise 2 (predict how the scores grow).** ViT-B/16, the ViT paper's name for its Base model (B) with
# patches of 16 × 16 pixels (notebook 05 builds the ViT), cuts a 224 × 224 image into such patches, one token
# each, and puts one more token in front of them: the *prediction
# token*, a learned token whose output the model's last layer reads to make its prediction (notebook 03 met it).
# The article series calls it the prediction token; the ViT paper and the lecture slides call it the *class
# token*, after the [CLS] token of the language model BERT, and code names it `cls_token` (timm, and notebook 05,
# which builds it). ViT-B/16 has 12 heads in every attention layer. The ViT paper first trains (*pre-trains*)
# its models on a large data set, then *fine-tunes* them, training them a little more on the task they are
# finally used for, on 384 × 384 images with the same patch size (Dosovitskiy et al., "An Image is Worth 16x16
# Words", 2021, Table 5).
# By what factor does the number of entries of $QK^\top$ in one attention layer, for one image, grow from
# 224 × 224 to 384 × 384? Set `answer_growth` to the factor, to three significant figures or better.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "scores_growth-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_growth = None  # replace None with a number
### BEGIN SOLUTION
tokens_224 = (224 // 16) ** 2 + 1  # 196 patches + the prediction token
tokens_384 = (384 // 16) ** 2 + 1  # 576 patches + the prediction token
answer_growth = (tokens_384 / tokens_224) ** 2  # each head's QK^T is tokens x tokens; 12 heads at both sizes
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "scores_growth-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.scores_growth(answer_growth)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "scores_growth-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.scores_growth, answer_growth)
### END HIDDEN TESTS

# %% [markdown]
# The answer, counted: every head compares every token with every token, so $QK^\top$ grows with the square of
# the token count, and the prediction token is one of those tokens. The work of computing $QK^\top$ and
# weights @ V grows the same way, while that of the linear layers grows only with the token count, about as the
# pixels do. The cell also prints both, per layer and image, with ViT-B's token length $D$ = 768: the qkv and
# `proj` layers take $3ND^2$ and $ND^2$ multiply-adds, the two matrix products $N^2D$ each ("Weights and
# multiply-adds" below counts them on a layer).

# %%
entries = {}
for side in (224, 384):
    n = tokens.count_tokens(side, side, 16, 16, 0).total + 1  # patches + the prediction token
    entries[side] = 12 * n * n  # (heads, N, N) for one image
    print(
        f"{side} x {side}: {n} tokens; QK^T of one layer and one image: 12 x {n} x {n} = {entries[side]:,} entries"
    )
print(
    f"growth: {entries[384] / entries[224]:.3f} times; pixels: {(384 / 224) ** 2:.3f} times; "
    f"without the prediction token: {((384 // 16) ** 2 / (224 // 16) ** 2) ** 2:.3f} times"
)
d_base = 768  # ViT-B's token length
macs = {}
for side in (224, 384):
    n = tokens.count_tokens(side, side, 16, 16, 0).total + 1
    macs[side] = (4 * n * d_base**2, 2 * n * n * d_base)  # (qkv + proj, QK^T + weights @ V), one layer
    print(
        f"{side} x {side}, one layer, one image: qkv + proj {macs[side][0]:,} multiply-adds, "
        f"QK^T + weights @ V {macs[side][1]:,}"
    )
print(
    f"growth: qkv + proj {macs[384][0] / macs[224][0]:.3f} times, "
    f"QK^T + weights @ V {macs[384][1] / macs[224][1]:.3f} times"
)

# %% [markdown]
# **Exercise 3 (coding, before the next cell shows it).** Write `merge_heads(o)`, which glues per-head outputs
# of shape (B, heads, N, head_dim) back into (B, N, heads · head_dim), head 0's channels first (the qkv split
# above is the reverse operation). The check names the two usual ways of getting the order wrong.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "merge_heads_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def merge_heads(o: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    b, h, n, d = o.shape
    return o.transpose(1, 2).reshape(b, n, h * d)  # (B, N, heads, head_dim) -> (B, N, heads * head_dim)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "merge_heads_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.merge_heads_function(merge_heads)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "merge_heads_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.merge_heads_function, merge_heads)
### END HIDDEN TESTS

# %% [markdown]
# With 4 heads on the walk-through, head_dim = 64 / 4 = 16:

# %%
heads = 4
head_dim = dim // heads
with torch.no_grad():
    q4, k4, v4 = (
        qkv(x).reshape(batch, n_tokens, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
    )  # each (B, 4, N, 16)
    w4 = (q4 @ k4.transpose(-2, -1) * head_dim**-0.5).softmax(-1)  # (B, 4, N, N)
    o4 = w4 @ v4  # (B, 4, N, 16)
    glued = o4.transpose(1, 2).reshape(batch, n_tokens, dim)  # (B, N, 4, 16) -> (B, N, 64)
    out4 = proj(glued)  # (B, N, 64)
print(
    f"head_dim {head_dim}: Q per head {tuple(q4.shape)}, weights {tuple(w4.shape)}, "
    f"per-head output {tuple(o4.shape)}"
)
print(f"glued back: {tuple(glued.shape)}, projected: {tuple(out4.shape)}")

fig, axes = plt.subplots(1, heads, figsize=(15, 3.5), layout="constrained")
for h, ax in enumerate(axes):
    plots.show_matrix(
        w4[0, h, :show, :show].cpu(),
        ax=ax,
        title=f"head {h}: weights (20 of 100 keys)",
        xlabel="key token",
        ylabel="query token",
        cmap="magma",
        vmin=0,
        vmax=float(w4[0, :, :show, :show].max()),  # one colour range for the four heads
        colorbar=False,
        aspect="equal",
    )
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
fig.colorbar(axes[0].images[0], ax=axes, fraction=0.02, pad=0.02, label="attention weight")
plt.show()

# %% [markdown]
# Each head has its own pattern over the same tokens: different groups of channels compare different things.
# (As above, each panel shows 20 of the 100 keys, so its rows do not sum to 1.)
#
# ### Weights and multiply-adds
#
# Heads cost no extra weights: one qkv layer ($D \to 3D$, $3D^2 + 3D$ numbers with its bias) and one `proj`
# ($D^2 + D$), whatever $h$ is; only the reshape changes.

# %%
for h in (1, 4):
    layer = Attention(dim, num_heads=h, qkv_bias=True)
    n_qkv = sum(p.numel() for p in layer.qkv.parameters())
    n_proj = sum(p.numel() for p in layer.proj.parameters())
    print(
        f"{h} head(s): qkv {n_qkv} = 3D^2 + 3D = {3 * dim**2 + 3 * dim}, proj {n_proj} = D^2 + D = {dim**2 + dim}"
    )
    assert n_qkv == 3 * dim**2 + 3 * dim and n_proj == dim**2 + dim

# %% [markdown]
# The work a layer does is counted in *multiply-adds*: one multiplication and the addition that accumulates it.
# A product of an $a \times b$ matrix with a $b \times c$ one takes $a \cdot b \cdot c$ of them; a linear layer
# from length $L_\text{in}$ to $L_\text{out}$ applied to $N$ tokens is such a product, $N \cdot L_\text{in} \cdot
# L_\text{out}$ (its bias adds only $N \cdot L_\text{out}$ additions, which the count leaves out).
#
# The multiply-adds of one attention layer on N tokens, per item: the qkv layer $3ND^2$, the scores $QK^\top$
# $N^2 D$ (over all heads: $h \cdot N^2 \cdot \text{head\_dim}$), the weights times V another $N^2 D$, and
# `proj` $ND^2$. In total $4ND^2 + 2N^2D$: the layers grow with $D^2$, the two matrix products with $N^2$; the
# products cost more than the layers once $N > 2D$. Notebook 05 adds the MLP and derives the cost of a whole
# encoder block. Counted during a real forward pass
# (`vitcourse.cost.count_macs`, which hooks every linear layer and both matrix products):

# %%
layer = Attention(dim, num_heads=4, qkv_bias=True)
counted = count_macs(layer, torch.zeros(1, n_tokens, dim), depth=1)  # one item
formula = {"qkv": 3 * n_tokens * dim**2, "(model)": 2 * n_tokens**2 * dim, "proj": n_tokens * dim**2}
for name, value in counted.items():
    label = "QK^T and weights @ V" if name == "(model)" else name
    print(f"{label:22s} counted {value:9,d}   formula {formula[name]:9,d}")
print(
    f"{'total':22s} counted {sum(counted.values()):9,d}   "
    f"4ND^2 + 2N^2D = {4 * n_tokens * dim**2 + 2 * n_tokens**2 * dim:9,d}"
)
assert counted == formula

# %% [markdown]
# **Exercise 4 (predict the cost of a layer that changes the token length).** The formula above is for a layer
# whose tokens keep their length $D$. T2T's first token transformer (notebook 06) does not: it reads the tokens
# of T2T's first soft split (kernel 7, stride 4, padding 2; notebook 02), each the 7 × 7 = 49 pixels of a window
# of our one-channel picture, and gives tokens of 64 channels, with one head and no bias in qkv. The official
# T2T-ViT code (Yuan et al.) builds it as `Token_transformer(dim=in_chans * 7 * 7, in_dim=token_dim,
# num_heads=1, mlp_ratio=1.0)` with `token_dim` 64, its qkv bias off by default. Our attention layer of the
# same sizes is `Attention(49, chan=64, num_heads=1, qkv_bias=False)`; notebook 06 adds T2T's skip through v
# and compares the two codes' scale factors, and neither changes the multiply-adds counted here. The cell below
# counts the
# tokens of that soft split on our picture. How many times more multiply-adds go into the layer's two matrix
# products ($QK^\top$ and weights @ V) than into its two linear layers (qkv and proj)? Set `answer_ratio` to
# that number, to three significant figures or better.

# %%
first_split = tokens.count_tokens(60, 100, kernel=7, stride=4, padding=2)
print(
    f"T2T's first soft split of the 60 x 100 picture: {first_split.rows} x {first_split.cols} = "
    f"{first_split.total} tokens of length 49"
)

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "attention_cost_ratio-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_ratio = None  # replace None with a number
### BEGIN SOLUTION
n_first, length_in, chan_out = first_split.total, 49, 64
products = 2 * n_first * n_first * chan_out  # QK^T and weights @ V: N x N x chan each
layers = 3 * n_first * length_in * chan_out + n_first * chan_out * chan_out  # qkv 49 -> 3 x 64, proj 64 -> 64
answer_ratio = products / layers
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "attention_cost_ratio-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.attention_cost_ratio(answer_ratio)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention_cost_ratio-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.attention_cost_ratio, answer_ratio)
### END HIDDEN TESTS

# %% [markdown]
# The answer, counted on the layer itself: with $L$ the input length and $c$ the channels, qkv costs
# $3NLc$ and `proj` $Nc^2$, while the two products cost $2N^2c$, so the ratio is $2Nc / (3Lc + c^2)$. Even on
# our small picture the products dominate, and the ratio grows with $N$; T2T's first stage is the one with the
# most tokens (notebook 06 counts the cost of each stage).

# %%
t2t_layer = Attention(49, chan=64, num_heads=1, qkv_bias=False)
t2t_macs = count_macs(t2t_layer, torch.zeros(1, first_split.total, 49), depth=1)  # one item
for name, value in t2t_macs.items():
    label = "QK^T and weights @ V" if name == "(model)" else name
    print(f"{label:22s} {value:11,d}")
t2t_ratio = t2t_macs["(model)"] / (t2t_macs["qkv"] + t2t_macs["proj"])
print(f"products / layers: {t2t_ratio:.3f}")

# %% [markdown]
# ## The package's attention, checked three ways
#
# `vitcourse.attention.Attention` has two paths. The step-by-step path, `steps(x)`, returns the output and an
# `AttentionSteps` record of every intermediate: `q`, `k`, `v` (B, heads, N, head_dim), as above; `scores`
# (B, heads, N, N), $QK^\top$ *already multiplied by the scale* (above, `scores` was the unscaled $QK^\top$);
# `weights` (B, heads, N, N), their softmax over the keys; `heads` (B, heads, N, head_dim), weights @ V (above,
# `mixed_values` and `o4`); and `merged` (B, N, chan), the heads glued back before `proj`.
#
# The *fused* path, `forward`, makes one call for the scores, the softmax and weights @ V together:
# `F.scaled_dot_product_attention`, PyTorch's attention function. It picks a *kernel*, a routine written for
# the hardware and the inputs: its memory-efficient and flash kernels go through the keys a block at a time and
# never store the whole N × N matrix of weights; its plain fallback builds it. Copy our weights in and compare
# with what we built by hand, the fused path with the step path, and both with `nn.MultiheadAttention`.

# %%
att = Attention(dim, num_heads=4, qkv_bias=True).to(device)
mha = nn.MultiheadAttention(dim, 4, bias=True, batch_first=True).to(device)
with torch.no_grad():
    att.qkv.load_state_dict(qkv.state_dict())
    att.proj.load_state_dict(proj.state_dict())
    mha.in_proj_weight.copy_(qkv.weight)
    mha.in_proj_bias.copy_(qkv.bias)
    mha.out_proj.load_state_dict(proj.state_dict())
    step_out, steps = att.steps(x)
    fused_out = att(x)
    sdpa_heads = F.scaled_dot_product_attention(steps.q, steps.k, steps.v)  # (B, heads, N, head_dim)
    ref, ref_weights = mha(x, x, x, average_attn_weights=False)
checks = {
    "step path = our 4 heads by hand": torch.allclose(step_out, out4, atol=1e-5),
    "fused path = step path": torch.allclose(fused_out, step_out, atol=1e-5),
    "F.scaled_dot_product_attention = weights @ V": torch.allclose(sdpa_heads, steps.heads, atol=1e-5),
    "nn.MultiheadAttention output = ours": torch.allclose(ref, step_out, atol=1e-5),
    "nn.MultiheadAttention weights = ours": torch.allclose(ref_weights, steps.weights, atol=1e-5),
}
for name, t in steps._asdict().items():
    print(f"steps.{name:8s} {tuple(t.shape)}")
for name, ok in checks.items():
    print(f"{name:46s} {ok}")
assert all(checks.values())

# %% [markdown]
# **Exercise 5 (coding, another layout).** Everything above keeps the heads before the tokens,
# (B, heads, N, head_dim). Some libraries keep the tokens first: FlashAttention's `flash_attn_func`, for
# example, takes q, k, v of shape (B, N, heads, head_dim). Write `attention_tokens_first(q, k, v)` for that
# layout: each head attends over the tokens, with the scale $1/\sqrt{\text{head\_dim}}$, and the result has
# the inputs' layout, (B, N, heads, head_dim). Write it from the formula with `torch.einsum` (or by moving the
# axes yourself), without `F.scaled_dot_product_attention`: the check uses that as the reference, on three sets
# of inputs, and names the usual mistakes (attending over the heads instead of the tokens, the softmax's axis,
# a missing or wrong scale, the result in the other layout).


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "attention_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def attention_tokens_first(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    scores = torch.einsum("bnhd,bmhd->bhnm", q, k) / math.sqrt(q.shape[-1])  # (B, heads, N, N)
    return torch.einsum("bhnm,bmhd->bnhd", scores.softmax(dim=-1), v)  # (B, N, heads, head_dim)
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "attention_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.attention_function(attention_tokens_first)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.attention_function, attention_tokens_first)
### END HIDDEN TESTS

# %% [markdown]
# ## Attention on the picture
#
# Now the picture's 15 patch tokens, projected to 64 channels (notebook 01) and layer-normed (each token
# brought to mean 0 and variance 1 over its 64 entries), go through a 4-head attention with random weights,
# its qkv weights drawn as in the walk-through with standard deviation 1/8 (the variances of q and k are
# printed below). For one query, patch 8 (outlined), each heat map shows that head's 15 weights on the 3 × 5
# patch grid, values written in; the picture on the left shows which patch is which.
#
# What to look for: with random weights the heads have learned nothing about the picture, so their patterns
# are not about mountains. But they do depend on the *content* of the tokens: two patches with nearly the same
# pixels get nearly the same key, and so nearly the same weight in every head (two identical patches would get
# identical weights). The cell finds the picture's two most alike patches (the smallest mean difference between
# their pixels), prints the weights patch 8 gives them, and compares their gap with the gap between the weights
# of two patches taken at random.
#
# It also prints how far the weights stray from the uniform 1/15, and why they stray so little. The statistic is
# each row's largest weight divided by 1/15, for the median row (and the largest over all rows). Beside the
# picture's tokens it runs the same layer on two kinds of 15 random tokens, layer-normed the same way, 20 draws
# of each: independent standard normal ones, and ones made about as alike as the picture's (one shared random
# direction per draw, plus a little noise for each token). How alike tokens are is measured by their mean
# cosine similarity over all pairs (notebook 03). The picture's 15 tokens are mostly alike: alike tokens give
# alike keys, so one query's scores differ little from key to key and its weights stay close to uniform. The
# last section of this notebook draws maps of a trained model.

# %%
picture = load_mountains()
image = vitcourse.to_tensor(picture).to(device)
torch.manual_seed(0)
embed = tokens.PatchTokenizer(picture.shape, 20, 1, 64).to(device)
att_pic = Attention(64, num_heads=4, qkv_bias=True)
nn.init.normal_(att_pic.qkv.weight, std=64**-0.5)  # drawn on the CPU, then moved
att_pic = att_pic.to(device)
query = 7  # patch 8, the middle of the picture
with torch.no_grad():
    picture_tokens = F.layer_norm(embed(image), (64,))  # (1, 15, 64)
    _, pic_steps = att_pic.steps(picture_tokens)
pic_weights = pic_steps.weights[0, :, query].cpu()  # (heads, 15)
print(f"variance of the entries of q: {pic_steps.q.var().item():.2f}, of k: {pic_steps.k.var().item():.2f}")
vs_uniform = pic_steps.weights[0].cpu() * 15  # (heads, 15, 15): every weight over the uniform 1/15
print(
    f"every row of every head: weights from {vs_uniform.min():.2f} to {vs_uniform.max():.2f} times the "
    "uniform 1/15"
)
assert 0.4 < vs_uniform.min() and vs_uniform.max() < 2.5  # within about a factor 2 of uniform


def mean_cosine(t: torch.Tensor) -> torch.Tensor:
    """(B, N, D) tokens -> (B,): each item's mean cosine similarity over its pairs of different tokens."""
    unit = F.normalize(t, dim=-1)  # (B, N, D)
    cos = unit @ unit.transpose(-2, -1)  # (B, N, N)
    return cos[:, ~torch.eye(t.shape[1], dtype=torch.bool, device=t.device)].mean(-1)


def largest_over_uniform(t: torch.Tensor) -> torch.Tensor:
    """(B, 15, 64) tokens -> (B, heads * 15): each row's largest weight in this layer, over the uniform 1/15."""
    with torch.no_grad():
        _, st = att_pic.steps(t)
    return (st.weights.amax(-1) * 15).flatten(1).cpu()


draws, token_gen = 20, torch.Generator().manual_seed(1)
alike = mean_cosine(picture_tokens).item()  # how alike the picture's 15 tokens are
shared = torch.randn(draws, 1, 64, generator=token_gen)  # one shared direction per draw
noise = torch.randn(draws, 15, 64, generator=token_gen)
compared = {
    "the picture's 15 tokens": picture_tokens,
    f"15 random tokens (randn), {draws} draws": F.layer_norm(
        torch.randn(draws, 15, 64, generator=token_gen), (64,)
    ),
    f"15 random tokens as alike as the picture's, {draws} draws": F.layer_norm(
        math.sqrt(alike) * shared + math.sqrt(1 - alike) * noise, (64,)
    ),
}  # each (B, 15, 64), layer-normed
print(f"{'':54s} {'mean':>7s}   largest weight / (1/15)")
print(f"{'tokens':54s} {'cosine':>7s}   {'median row':>10s} {'largest':>8s}")
median_row = {}
for name, t in compared.items():
    rows = largest_over_uniform(t.to(device))  # (B, 60): 4 heads x 15 rows per item
    median_row[name] = rows.median(-1).values.mean().item()  # the median row, averaged over the draws
    cosine = round(mean_cosine(t).mean().item(), 2) + 0.0  # + 0.0: no "-0.00"
    print(f"{name:54s} {cosine:7.2f}   {median_row[name]:10.2f} {rows.max():8.2f}")
picture_median, random_median, alike_median = median_row.values()
assert alike > 0.8 and picture_median < 0.6 * random_median and abs(alike_median / picture_median - 1) < 0.2
raw_patches = tokens.patchify(vitcourse.to_tensor(picture), 20)[0]  # (15, 400)
pixel_gaps = torch.cdist(raw_patches, raw_patches, p=1) / raw_patches.shape[1]  # (15, 15): mean |difference|
pixel_gaps.fill_diagonal_(float("inf"))  # a patch is not compared with itself
alike = sorted(divmod(int(pixel_gaps.argmin()), 15))  # 0-based indices of the two most alike patches
gap = (raw_patches[alike[0]] - raw_patches[alike[1]]).abs()  # (400,), pixel by pixel
pa, pb = alike[0] + 1, alike[1] + 1  # their patch numbers
print(
    f"most alike: patches {pa} and {pb}; {(gap > 0).sum().item()} of {gap.numel()} pixels differ, "
    f"largest difference {gap.max():.2f}, mean difference {gap.mean():.4f}"
)
for h in range(4):
    print(
        f"head {h}: weight of patch 8 on patch {pa} {pic_weights[h, alike[0]]:.3f}, on patch {pb} "
        f"{pic_weights[h, alike[1]]:.3f}; its weights range from {pic_weights[h].min():.3f} to "
        f"{pic_weights[h].max():.3f}"
    )
alike_gap = (pic_weights[:, alike[0]] - pic_weights[:, alike[1]]).abs().mean()  # mean over the heads
all_gaps = (pic_weights[:, :, None] - pic_weights[:, None, :]).abs()  # (heads, 15, 15): every pair of patches
typical_gap = all_gaps.sum((1, 2)).mean() / (15 * 14)  # mean over the heads and the pairs of two patches
print(
    f"gap between the weights on patches {pa} and {pb}: {alike_gap:.4f} (mean over the heads); "
    f"between two patches taken at random: {typical_gap:.4f}"
)
assert alike_gap < 0.5 * typical_gap
grid = pic_weights.reshape(4, 3, 5)  # (heads, patch rows, patch columns)
top_weight = float(grid.max())
fig, axes = plt.subplots(1, 5, figsize=(17, 2.9), gridspec_kw={"width_ratios": [1.25, 1, 1, 1, 1]})
plots.show_picture(picture, ax=axes[0], title="the picture, patches 1-15", colorbar=False)
plots.draw_patch_grid(axes[0], 60, 100, 20)
axes[0].add_patch(Rectangle((40, 20), 20, 20, fill=False, ec="cyan", lw=2.5))  # patch 8
for h in range(4):
    ax = axes[h + 1]
    plots.show_matrix(
        grid[h],
        ax=ax,
        title=f"head {h}: weights of patch 8",
        xlabel="patch column",
        ylabel="patch row",
        cmap="magma",
        vmin=0,
        vmax=top_weight,
        colorbar=False,
        aspect="equal",
    )
    ax.set_xticks(range(5), [str(c + 1) for c in range(5)])
    ax.set_yticks(range(3), [str(r + 1) for r in range(3)])
    for r in range(3):
        for c in range(5):
            value = grid[h, r, c].item()
            colour = "white" if value < 0.6 * top_weight else "black"
            ax.text(c, r, f"{value:.2f}", ha="center", va="center", fontsize=9, color=colour)
    ax.add_patch(Rectangle((1.5, 0.5), 1, 1, fill=False, ec="cyan", lw=2.5))  # patch 8: row 2, column 3
fig.colorbar(axes[1].images[0], ax=axes[1:], fraction=0.02, pad=0.02, label="attention weight")
fig.suptitle("Random 4-head attention of patch 8 (outlined) over the 15 patches")
plt.show()

# %% [markdown]
# ### Play: scale, temperature and heads
#
# The explorer below (in a running kernel) runs one seeded attention layer over the picture's 15 raw patches,
# each a token of length 400, layer-normed. Unlike the walk-through's layer, whose input length equalled its
# channel count, this one (like the T2T layer of Exercise 4) has an input length that differs from its channel
# count: its qkv maps each 400-long token straight to 3 × 64 channels. It draws the weights of up to 8 heads
# with the mean entropy of their rows: $\ln 15 \approx 2.71$ nats for uniform weights, 0 for one-hot ones.
# The weights are $\mathrm{softmax}(QK^\top \cdot \text{scale} / T)$: a temperature $T < 1$ sharpens them,
# $T > 1$ flattens them. The layer's qkv weights are drawn with standard deviation $1/\sqrt{400}$, as in
# section 1, so the entries of $Q$ and $K$ have variance close to 1.
#
# **Predict, then play.** The explorer starts with 4 heads, the scale $1/\sqrt{\text{head\_dim}}$ and $T$ = 1;
# its text line prints the mean entropy there. (1) Drop the scale (set it to none): Exercise 1 settled which
# way the entropy moves; to roughly what value does it move here? (2) Guess the mean entropy at $T$ = 0.1 and
# at $T$ = 10: how close to one-hot, and how close to uniform, do they bring the weights? (3) With 16 heads, each head compares the tokens
# on only 4 channels, with the scale 1/2: what mean entropy do you expect, close to the 4 heads' value, close
# to uniform, or close to one-hot? Write down your guesses, try them in the explorer, then run the cell after
# it, which prints the answers.

# %%
from vitcourse import widgets

widgets.attention_explorer(picture)

# %% [markdown]
# The answers, printed for each setting:

# %%
for setting in [{}, {"scale": "none"}, {"temperature": 0.1}, {"temperature": 10.0}, {"heads": 16}]:
    print(setting, "->", widgets.attention_view(picture, **setting)[1])
assert widgets.attention_view(picture, temperature=0.0)[0] is None  # T must be > 0

# %% [markdown]
# ## Attention in a trained model
#
# Random heads say nothing about the picture. The course ships a small ViT trained by its own code (notebook 03
# looks at its position embedding; `make models` re-trains it; its sizes are printed below): tokens of length
# $D$ = 64 from patches of 20, and 2 *encoder blocks*. Each block runs a layer norm, then this 4-head attention,
# added back to the block's input by a residual connection; then another layer norm, then a small two-layer
# network (the MLP), added back the same way (a *pre-norm* block; notebook 05 builds it). It was trained on
# random scenes in which the moon
# sits in one of the 15 patches, anywhere in the frame, to name the moon's patch row and column. Its last layer
# (the model's *head*, not an attention head) reads only the prediction token (token 0, met in Exercise 2), so
# what matters is where the *prediction token's* query looks: row 0 of each head's weights, over the 15 patch
# tokens (its weight on itself, token 0, is left out of the maps and printed in the titles).
#
# The maps below are for one *held-out* scene, one the model never saw in training (from the 256 on which the
# shipped model's accuracy was measured), the moon in the patch outlined in red: one row of maps per block,
# one map per head, values written in.

# %%
shipped = train.load_shipped("vit_where", device)
vit = shipped.model
held_out = scenes.make_batch("where", train.SHIPPED_EVAL["size"], seed=train.SHIPPED_EVAL["seed"])
moon_patch = held_out.targets[:, 0] * 5 + held_out.targets[:, 1]  # (256,): 0-based patch of each moon
example = int(torch.nonzero(moon_patch == 11)[0])  # the first held-out scene with the moon in patch 12
depth, heads = len(vit.blocks), vit.blocks[0].attn.num_heads
cfg = shipped.config
print(
    f"shipped ViT: tokens of length {cfg.embed_dim} from patches of {cfg.patch_size}, {depth} encoder blocks, "
    f"{heads} heads"
)
with torch.no_grad():
    cls_weights = torch.stack(
        [
            vit.attention_weights(held_out.images[example : example + 1].to(device), block=b)[0, :, 0].cpu()
            for b in range(depth)
        ]
    )  # (blocks, heads, 16): the prediction token's weights over itself and the 15 patches
    predicted = train.where_predictions(vit(held_out.images[example : example + 1].to(device)).cpu())[0]
row, col = held_out.targets[example].tolist()  # 0-based
print(
    f"held-out scene {example}: moon in patch {int(moon_patch[example]) + 1} (patch row {row + 1}, column "
    f"{col + 1}); predicted patch row {int(predicted[0]) + 1}, column {int(predicted[1]) + 1}"
)
print(f"attention weights per block: {tuple(cls_weights.shape[1:])} (heads, prediction token + 15 patches)")
fig = plt.figure(figsize=(3.6 * (heads + 2), 2.7 * depth))
grid_spec = fig.add_gridspec(depth, heads + 1, width_ratios=[2] + [1] * heads)
scene_ax = fig.add_subplot(grid_spec[:, 0])  # the scene once, beside both rows of maps
plots.show_picture(held_out.images[example, 0], ax=scene_ax, title="held-out scene", colorbar=False)
plots.draw_patch_grid(scene_ax, 60, 100, 20, where="corner")
scene_ax.add_patch(Rectangle((col * 20, row * 20), 20, 20, fill=False, ec="red", lw=3))
map_axes = [[fig.add_subplot(grid_spec[b, h + 1]) for h in range(heads)] for b in range(depth)]
for b in range(depth):
    for h in range(heads):
        ax = map_axes[b][h]
        title = f"block {b + 1}, head {h}: itself {cls_weights[b, h, 0]:.2f}"
        plots.show_grid_values(
            cls_weights[b, h, 1:].reshape(3, 5), ax=ax, title=title, vmin=0, vmax=1, colorbar=False
        )
        ax.add_patch(Rectangle((col - 0.5, row - 0.5), 1, 1, fill=False, ec="red", lw=3))
fig.colorbar(
    map_axes[0][0].images[0], ax=sum(map_axes, []), fraction=0.02, pad=0.02, label="attention weight"
)
fig.suptitle("Trained ViT: the prediction token's attention over the 15 patches, per block and head")
plt.show()

# %% [markdown]
# One scene is an anecdote. Over all 256 held-out scenes, two numbers per head: the **entropy** of the prediction
# token's 16 weights, $-\sum_j w_j \log w_j$ (`vitcourse.probes.attention_entropy`; $\log 16 \approx 2.77$
# when it attends to all 16 tokens alike, 0 when it attends to one), and the mean weight it puts on the patch
# that holds the moon (1/16 ≈ 0.06 for uniform weights). The control is the same model before training:
# `train.build_model` rebuilds it from the same seed, with the weights its training started from. Whatever the
# trained model does and this one does not, training put there.

# %%
untrained = train.build_model(shipped.config).to(device).eval()  # the starting weights of the shipped run


def cls_table(model: nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean entropy of the prediction token's weights, and mean weight on the moon's patch: (blocks, heads)."""
    with torch.no_grad():
        rows = [
            model.attention_weights(held_out.images.to(device), block=b)[:, :, 0].cpu() for b in range(depth)
        ]  # each (256, heads, 16): row 0 of each head's weights
    entropy = torch.stack([probes.attention_entropy(w).mean(0) for w in rows])
    moon = torch.stack([w[torch.arange(len(w)), :, 1 + moon_patch].mean(0) for w in rows])
    return entropy, moon


def print_cls_table(trained: tuple[torch.Tensor, ...], start: tuple[torch.Tensor, ...], tokens: int) -> None:
    """The (entropy, weight on moon) tables of a trained model and its start, side by side, per block and head."""
    print(
        f"uniform over {tokens} tokens: entropy {math.log(tokens):.2f}, weight on any one token {1 / tokens:.3f}"
    )
    print("               trained                  before training (control)")
    print("block  head  entropy  weight on moon   entropy  weight on moon")
    blocks, n_heads = trained[0].shape
    for b in range(blocks):
        for h in range(n_heads):
            print(
                f"{b + 1:5d} {h:5d} {trained[0][b, h]:8.2f} {trained[1][b, h]:15.3f} "
                f"{start[0][b, h]:9.2f} {start[1][b, h]:15.3f}"
            )


cls_entropy, on_moon = cls_table(vit)
start_entropy, start_on_moon = cls_table(untrained)
print_cls_table((cls_entropy, on_moon), (start_entropy, start_on_moon), 16)

# %%
# measured on the shipped model and its control: what the next paragraph says about the table
uniform_entropy = math.log(16)
assert (start_entropy > 0.99 * uniform_entropy).all()  # before training: every head all but uniform
assert ((start_on_moon - 1 / 16).abs() < 0.005).all()  # ... and the moon's patch gets the uniform share
assert on_moon[0, 0] > 0.75 and cls_entropy[0, 0] < 0.25 * uniform_entropy  # block 1, head 0: on the moon
assert all(0.25 < on_moon[0, h] < 0.45 for h in (1, 3))  # block 1, heads 1 and 3: about a third
assert cls_entropy[0, 2] > 0.75 * uniform_entropy and on_moon[0, 2] < 1 / 16  # block 1, head 2: spread out
assert on_moon[1].max() < 1 / 3  # block 2: no head puts a third of its weight there

# %% [markdown]
# Read the table against its control. Before training every head spreads the prediction token's weight
# almost evenly: entropies at the uniform value and the uniform share on the moon's patch. After training, in
# the first block, head 0 locks onto the moon, putting most of the prediction token's weight on the moon's
# patch, with an entropy far below that of uniform weights; heads 1 and 3 put about a third there; head 2 stays
# spread out and puts less there than uniform weights would. In the second block no head puts even a third of
# its weight on the moon's patch. The four heads of a block all started out attending almost uniformly and
# were trained together on the same task, yet they ended up attending in different ways. The table shows where
# the heads look, not what the model uses: whether it needs head 0 to find the moon would take another
# experiment (switching the head off, for example).

# %% [markdown]
# ### On 60 patches, and switching heads off
#
# The course ships a second ViT (notebook 03 looks at its position embedding, notebook 05 at its filters and
# attention distances): `vit_within`, 10-pixel patches on a 6 × 10 grid, 4 blocks of 4 heads, trained to name
# the patch that holds a small moon drawn wholly inside it. The same table for it, the prediction token's
# entropy and weight on the moon's patch per block and head, beside its untrained start (uniform weights over
# its 61 tokens: entropy $\log 61 \approx 4.11$, share 1/61 ≈ 0.016).
#
# Then the experiment the paragraph above asked for. A head is **switched off for the prediction token** by
# replacing the prediction token's part of that head's output, before `proj`, with something that carries no
# news about the scene (a forward pre-hook on `proj`; the patches still get the head's output, and the rest of
# the model is unchanged), and the model's held-out accuracy is measured again. Two replacements: zeros, and
# the mean of that output over the 256 held-out scenes (so that the model still gets an input of the usual size,
# only the same one for every scene). If what the prediction token reads in block 1 matters, switching those
# heads off should cost accuracy. The control is switching off the prediction token's four heads in each other
# block instead: as many heads, in blocks where they put little weight on the moon.

# %%
within = train.load_shipped("vit_within", "cpu")  # on the CPU, where its stored metrics were measured
within_cfg = within.config
within_cols = 100 // within_cfg.patch_size
within_scenes = scenes.make_batch(
    "within", train.SHIPPED_EVAL["size"], seed=train.SHIPPED_EVAL["seed"], block=within_cfg.patch_size
)
within_moon = within_scenes.targets[:, 0] * within_cols + within_scenes.targets[:, 1]  # (256,): 0-based patch
within_depth, within_heads = len(within.model.blocks), within.model.blocks[0].attn.num_heads
within_untrained = train.build_model(within_cfg).eval()
print(
    f"vit_within: patches of {within_cfg.patch_size} on a {60 // within_cfg.patch_size} x {within_cols} grid, "
    f"D {within_cfg.embed_dim}, {within_depth} blocks of {within_heads} heads, task {within_cfg.task!r}"
)


def prediction_token_table(model: nn.Module) -> tuple[torch.Tensor, torch.Tensor]:
    """(blocks, heads) twice: mean entropy of the prediction token's weights, mean weight on the moon's patch."""
    with torch.no_grad():
        rows = [
            model.attention_weights(within_scenes.images, block=b)[:, :, 0].cpu() for b in range(within_depth)
        ]  # each (256, heads, 61)
    entropy = torch.stack([probes.attention_entropy(w).mean(0) for w in rows])
    moon = torch.stack([w[torch.arange(len(w)), :, 1 + within_moon].mean(0) for w in rows])
    return entropy, moon


within_entropy, within_on_moon = prediction_token_table(within.model)
within_start_entropy, within_start_on_moon = prediction_token_table(within_untrained)
print_cls_table((within_entropy, within_on_moon), (within_start_entropy, within_start_on_moon), 61)


# %%
def accuracy_without(model: nn.Module, off: dict[int, list[int]], fill: str = "zero") -> float:
    """Held-out accuracy (row and column both right) with the heads ``off[block]`` switched off for the
    prediction token (token 0): their output replaced by zeros (``fill="zero"``) or by its mean over the
    held-out scenes (``fill="mean"``)."""
    head_dim = model.blocks[0].attn.head_dim
    means = {}
    if fill == "mean":  # each block's prediction-token input to proj, averaged over the held-out scenes
        kept = {}
        hooks = [
            model.blocks[b].attn.proj.register_forward_pre_hook(
                lambda module, args, b=b: kept.__setitem__(b, args[0][:, 0].mean(0))
            )
            for b in off
        ]
        with torch.no_grad():
            model(within_scenes.images)
        for hook in hooks:
            hook.remove()
        means = kept

    def silence(block: int, heads: list[int]):
        def hook(module: nn.Module, args: tuple[torch.Tensor, ...]) -> tuple[torch.Tensor]:
            merged = args[0].clone()  # (B, N, chan): the heads side by side, head 0 first
            for h in heads:
                part = slice(h * head_dim, (h + 1) * head_dim)
                merged[:, 0, part] = 0 if fill == "zero" else means[block][part]  # token 0 only
            return (merged,)

        return hook

    handles = [model.blocks[b].attn.proj.register_forward_pre_hook(silence(b, hs)) for b, hs in off.items()]
    try:
        return train.evaluate(model, "within", block=within_cfg.patch_size, **train.SHIPPED_EVAL)["accuracy"]
    finally:
        for handle in handles:
            handle.remove()


all_heads = list(range(within_heads))
ablations = {
    "nothing switched off": ({}, "zero"),
    **{f"block 1, head {h} off": ({0: [h]}, "zero") for h in all_heads},
    "block 1, all heads off": ({0: all_heads}, "zero"),
    "block 1, all heads set to their mean": ({0: all_heads}, "mean"),
    **{f"block {b + 1}, all heads off (control)": ({b: all_heads}, "zero") for b in range(1, within_depth)},
}
ablation_accuracy = {
    name: accuracy_without(within.model, off, fill) for name, (off, fill) in ablations.items()
}
print(
    f"held-out accuracy (row and column both right) on {train.SHIPPED_EVAL['size']} scenes; chance {1 / 60:.3f}"
)
for name, value in ablation_accuracy.items():
    print(f"{name:38s} {value:.3f}")

# %%
# measured on the shipped model and its controls: what the next paragraph says
assert (within_start_entropy > 0.99 * math.log(61)).all() and (within_start_on_moon < 0.03).all()
assert (within_on_moon[0] > 0.9).all() and (within_on_moon[1:] < 0.5).all()
full = ablation_accuracy["nothing switched off"]
assert round(full * 256) == round(within.metrics["accuracy"] * 256)
assert all(ablation_accuracy[f"block 1, head {h} off"] > 0.5 for h in all_heads)
assert ablation_accuracy["block 1, all heads off"] < 1 / 60  # at or below chance
assert ablation_accuracy["block 1, all heads set to their mean"] < 1 / 60
assert all(
    ablation_accuracy[f"block {b + 1}, all heads off (control)"] > full - 0.15 for b in range(1, within_depth)
)

# %% [markdown]
# Read the table against its control. Before training every head of the prediction token spreads its weight
# about evenly. After training, in the first block, every head puts nearly all of it on the moon's patch; in the
# later blocks none puts even half there. Switching off one of the first block's heads for the prediction token
# costs some accuracy, more for some heads than for others (printed), but the model still names most patches:
# the other heads read the moon too. Switching off all four leaves the model at or below chance, whether their
# output is replaced by zeros or by its mean over the scenes (so the loss is not just an input the model never
# saw), while switching off all four heads of any later block costs far less (printed). So here the experiment
# shows use, not only where the heads look: the model needs what its prediction token reads in the first block
# to name the moon's patch. (In the switched block the patches' outputs are unchanged; later patches that read
# the prediction token change with it.) This is one trained run's way: notebook 05 (*Three seeds*) shows that
# in two other seeds of the same settings the prediction token attends to the moon in block 2 instead; the
# switch-off was not run on them.

# %% [markdown]
# ### Exercise 6 (read an attention map)
#
# The figure below shows the same shipped model's attention maps on *our picture* (not one of the scenes it was
# trained on, but the model takes any 60 × 100 picture): the whole (16 × 16) weight matrix of heads of one
# block, every query and every key, without the numbers. Token 0 is the prediction token and token $p$ is patch
# $p$ (numbered on the picture on the left). The cell picks the block, head and query patch whose row is the
# easiest to read on this picture and prints the question; it draws the head asked about large and the block's
# other heads small, on the right. Thin lines on the maps set token 0 apart from the three rows of patches
# (1–5, 6–10, 11–15). Read the answer off the map and set `answer_patch` to the patch's number (1 to 15).

# %%
with torch.no_grad():
    picture_maps = torch.stack(
        [vit.attention_weights(image, block=b)[0].cpu() for b in range(depth)]
    )  # (blocks, heads, 16, 16): row = query token, column = key token
asked = clearest_row(picture_maps, first=1)  # the clearest row of a patch query, off the diagonal
ask_block, ask_head = asked.index  # 0-based
print(
    f"Question: in block {ask_block + 1}, head {ask_head}, which patch does patch {asked.query} "
    "attend to most?"
)
n_keys = picture_maps.shape[-1]  # 16 tokens: 0 (prediction token), then patches 1-15
others = [h for h in range(heads) if h != ask_head]  # the block's other heads, drawn small
fig = plt.figure(figsize=(14, 6.4), layout="constrained")
grid_spec = fig.add_gridspec(len(others), 3, width_ratios=[1.6, 2.3, 0.8])
picture_ax = fig.add_subplot(grid_spec[:, 0])
plots.show_picture(picture, ax=picture_ax, title="the picture: token p is patch p", colorbar=False)
plots.draw_patch_grid(picture_ax, 60, 100, 20)
map_top = float(picture_maps[ask_block].max())  # one colour range for every head of the block
map_axes = [fig.add_subplot(grid_spec[:, 1])] + [fig.add_subplot(grid_spec[i, 2]) for i in range(len(others))]
for ax, h in zip(map_axes, [ask_head] + others, strict=True):
    large = h == ask_head
    plots.show_matrix(
        picture_maps[ask_block, h],
        ax=ax,
        title=f"block {ask_block + 1}, head {h}" if large else f"head {h}",
        xlabel="key token" if large else "",
        ylabel="query token" if large else "",
        cmap="magma",
        vmin=0,
        vmax=map_top,
        colorbar=False,
        aspect="equal",
    )
    ticks = range(n_keys) if large else range(0, n_keys, 5)
    ax.set_xticks(ticks, [str(t) for t in ticks], fontsize=10 if large else 7)
    ax.set_yticks(ticks, [str(t) for t in ticks], fontsize=10 if large else 7)
    for edge in (0.5, 5.5, 10.5):  # token 0 | patches 1-5 | 6-10 | 11-15
        ax.axhline(edge, color="white", lw=0.6, alpha=0.6)
        ax.axvline(edge, color="white", lw=0.6, alpha=0.6)
fig.colorbar(map_axes[0].images[0], ax=map_axes, fraction=0.03, pad=0.02, label="attention weight")
fig.suptitle(
    f"Shipped ViT, block {ask_block + 1}: attention weights on the picture (token 0: the prediction token)"
)
plt.show()

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "attention_map_reading-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
answer_patch = None  # replace None with a patch number, 1 to 15
### BEGIN SOLUTION
# the head's map, the query's row (row = query token, column = key token), and the key with the largest weight
answer_patch = int(picture_maps[ask_block, ask_head, asked.query].argmax())  # key token p is patch p
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "attention_map_reading-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.attention_map_reading(answer_patch, picture)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention_map_reading-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.attention_map_reading, answer_patch, picture)
### END HIDDEN TESTS

# %% [markdown]
# The numbers behind the map: the query's row (its weights over the 16 keys, summing to 1), and, on the right,
# its weights over the 15 patches laid back on the patch grid. Reading patch 13's *column* instead (patch 13 as a
# key) gives something else: how much each query attends to it.

# %%
asked_row = picture_maps[ask_block, ask_head, asked.query]  # (16,): one query's weights over the keys
print(
    f"block {ask_block + 1}, head {ask_head}, row of patch {asked.query} "
    f"(weights over the keys; sum {asked_row.sum():.2f}):"
)
print("  " + "  ".join(f"{t}: {asked_row[t]:.2f}" for t in range(8)))
print("  " + "  ".join(f"{t}: {asked_row[t]:.2f}" for t in range(8, 16)))
print(
    f"largest: key {asked.key} (patch {asked.key}), {asked.ratio:.1f} times the second largest weight; "
    f"read as a column, patch {asked.query} is weighed most by query token {asked.column_reading}"
)
fig, axes = plt.subplots(1, 2, figsize=(11, 3.2), gridspec_kw={"width_ratios": [1.25, 1]})
plots.show_picture(picture, ax=axes[0], title=f"query patch {asked.query} (outlined)", colorbar=False)
plots.draw_patch_grid(axes[0], 60, 100, 20)
q_row, q_col = divmod(asked.query - 1, 5)  # 0-based place of the query patch on the 3 x 5 grid
axes[0].add_patch(Rectangle((q_col * 20, q_row * 20), 20, 20, fill=False, ec="cyan", lw=2.5))
plots.show_grid_values(
    asked_row[1:].reshape(3, 5),
    ax=axes[1],
    title=f"block {ask_block + 1}, head {ask_head}: patch {asked.query}'s weights\n"
    f"(and {asked_row[0]:.2f} on the prediction token)",
    label="attention weight",
)
axes[1].add_patch(Rectangle((q_col - 0.5, q_row - 0.5), 1, 1, fill=False, ec="cyan", lw=2.5))
plt.show()

# %% [markdown]
# ## Summary
#
# - Q, K, V come from one linear layer; $QK^\top$ compares every query with every key; the softmax of the scaled
#   scores, over the keys, weights an average of the values; `proj` mixes the channels.
# - The scale $d_k^{-1/2}$ keeps the score variance near 1 and the softmax away from saturation: scaled weights
#   have the higher entropy.
# - Heads cut the channels into groups that attend separately, each scaled by its own head_dim; they are glued
#   back, head 0 first, before `proj`. They add no weights. One layer costs $4ND^2 + 2N^2D$ multiply-adds; the
#   two matrix products grow with the square of the token count, the prediction (class) token included.
# - An attention map has one row per query and one column per key: a row shows where one token looks (its
#   weights sum to 1), a column how much every token looks at one key. Random heads give rows with no meaning
#   for the picture: on independent random tokens the rows are uneven; the picture's 15 tokens are mostly alike,
#   so their rows stay within about a factor 2 of uniform (both printed above). The shipped model's heads attend
#   almost uniformly before training; after it they differ, some locking onto the moon's patch, others staying
#   spread out. In the 60-patch model every first-block head of the prediction token looks at the moon's patch,
#   and switching them off for the prediction token leaves it below chance (the last block's, the control,
#   cost little): where a head looks becomes evidence of use only with such an experiment.
#
# **Next:** [05 Vision Transformer](05_vision_transformer.ipynb) stacks attention and an MLP into encoder
# blocks and builds the whole ViT; [06 Tokens-to-Token](06_tokens_to_token.ipynb) adapts this layer to change the token
# length.
