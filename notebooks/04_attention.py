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
# # 04 · Attention: one head, step by step
#
# **Time:** about 52 minutes
#
# **Before this:** [notebook 03](03_position_embeddings.ipynb), whose section 1 gives attention in one paragraph.
#
# Attention lets every token take a weighted average of vectors made from all the tokens, their *values*; a
# last linear layer then mixes the result. This notebook builds ViT's attention layer with one *head* (one
# such weighted average per token; section 2 says more), one step at a time; notebook 05 uses several heads.
#
# By the end you can
# 1. draw attention as a lookup: a query matched against keys, a softmax, a weighted sum of values, and say
#    what a query of larger norm does to the weights;
# 2. write single-head attention from Q, K and V yourself, and name the shape after every step of ViT's layer;
# 3. explain why the scores are divided by $\sqrt{d_k}$, with a number.

# %%
import math

import matplotlib.pyplot as plt
import torch
from matplotlib.ticker import MaxNLocator
from torch import nn

import vitcourse
from vitcourse import check, plots

torch.manual_seed(0)
device = vitcourse.get_device()


def numbers(t: torch.Tensor, digits: int = 2) -> str:
    """A 1-D tensor's entries, rounded, with no "-0.00" (a rounded zero prints without a sign)."""
    return "  ".join(f"{round(float(value), digits) + 0.0:.{digits}f}" for value in t)


# %% [markdown]
# ## 1. Attention as a lookup (26 min)
#
# A Python dictionary is a lookup. You give it a key, and it returns the value stored under that key.
#
# Attention is a soft lookup. A *query* is compared with every *key*, and each comparison gives a *score*. A
# softmax, as in notebook 03's paragraph on attention, turns the scores into *attention weights*, or *weights*
# for short: positive numbers that sum to 1. The result is the weighted sum of the *values*, one value per key: a
# key that matches well counts most. (The numbers a layer learns are its *parameters*. PyTorch stores a linear
# layer's parameter matrix as `.weight`: that is a parameter, not an attention weight.)
#
# The softmax of scores $s_j$ gives the weights $a_j = e^{s_j} / \sum_l e^{s_l}$.
#
# Let's try it with one query, four keys of size $d$ = 4 (4 entries each), and four values of size 3. Keys count
# from 0, key 0 to key 3, as Python indexes them. The score of key $j$ is the dot product $q \cdot k_j$ divided by
# $\sqrt{d}$; section 3, after Exercise 3, says why. We make the query point the way key 2 does, with 1.5 times its *norm* (its
# length as an arrow, $\lVert q \rVert$). The size of a dot product grows with the norms of both vectors, not
# only with how well they point the same way: a longer query makes a positive score larger and a negative one
# more negative.

# %% mystnb={"image": {"alt": "Attention as a lookup: one query of 4 numbers above 4 keys; bars give each key's weight with its score, the largest for key 2, whose key row and value row are outlined; the 4 values on the right with their weighted sum above them"}}
lookup_gen = torch.Generator().manual_seed(10)
lookup_keys = torch.randn(4, 4, generator=lookup_gen)  # (4 keys, d = 4), key j in row j
lookup_values = torch.randn(4, 3, generator=lookup_gen)  # (4 values, size 3): value j belongs to key j
lookup_query = 1.5 * lookup_keys[2]  # (4,): a query that points the way key 2 does
lookup_scores = lookup_keys @ lookup_query / math.sqrt(4)  # (4,): q . k_j / sqrt(d)
lookup_weights = lookup_scores.softmax(dim=0)  # (4,): positive, summing to 1
lookup_out = lookup_weights @ lookup_values  # (3,): the weighted sum of the values
print(f"scores : {numbers(lookup_scores)}")
print(f"weights: {numbers(lookup_weights)}  (sum {lookup_weights.sum():.2f})")
print(f"output : {numbers(lookup_out)}")
print(f"the largest weight goes to key {int(lookup_weights.argmax())}")
assert int(lookup_weights.argmax()) == 2 and abs(lookup_weights.sum() - 1) < 1e-6
plots.show_attention_lookup(lookup_query, lookup_keys, lookup_values)  # the same numbers, as a figure
plt.show()

# %% [markdown]
# The figure, drawn by `plots.show_attention_lookup`, shows the same numbers. Read it from left to right: the
# query above the keys, the weights that the comparisons give, and the values, with the output above them. The
# best match, key 2, is outlined, and so is its value. The one colour bar serves all four heat maps: query,
# keys, values and output.
#
# The output is not any one value: it is a blend, pulled towards the value of the best match. Another query
# would give other weights, so another blend.

# %% [markdown]
# ### Exercise 1 (predict): a longer query
#
# Multiply the query by a number $c > 1$: same direction, $c$ times the norm. The keys and the values stay as they
# are. How large must $c$ be for key 2, the best match, to get a weight of 0.99? Estimate it with pen and paper,
# keeping only key 2 and its closest rival from the scores printed above. What does $c$ do to each score? With
# two keys, what is key 2's weight as a function of $c$? Set `query_factor` to your estimate, within 3 %.
# Is the true $c$, with all four keys, larger or smaller? Decide, with a reason, before you open the worked
# solution.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "longer_query_weight-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
query_factor = None  # replace None with a number
### BEGIN SOLUTION
# A score is a dot product with the query, so c times the query gives c times every score, and c times every gap
# g_j between key 2's score and key j's. With key 2 and its closest rival alone (gap g = 1.40 - 0.42 = 0.98),
# key 2's weight is 1 / (1 + exp(-c g)): it grows with c but never reaches 1. It is 0.99 when exp(-c g) = 1/99,
# so c = ln 99 / g, about 4.7. The other keys add to the sum, so the true c is a bit larger.
rival_scores = torch.cat([lookup_scores[:2], lookup_scores[3:]])  # every key but key 2
query_factor = math.log(99) / float(lookup_scores[2] - rival_scores.max())
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "longer_query_weight-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.longer_query_weight(query_factor)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "longer_query_weight-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.longer_query_weight, query_factor)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1

# %% [markdown]
# Multiplying the query by $c$ multiplies every score, and so every gap between key 2's score and another's, by
# $c$. Key 2's weight climbs towards 1 but never reaches it. The cell prints it for a few values of $c$, and the
# $c$ at which it first reaches 0.99: a little above the two-key estimate, because the other two keys also take
# some weight.

# %%
for factor in (1, 2, 3, 4, 5, 6, 8):
    print(f"c = {factor}: key 2's weight {(factor * lookup_scores).softmax(dim=0)[2]:.3f}")
grid_c = torch.linspace(1, 20, 1901)  # c in steps of 0.01
reach = grid_c[[(c * lookup_scores).softmax(dim=0)[2] >= 0.99 for c in grid_c]][0]
print(f"key 2's weight first reaches 0.99 at c = {reach:.2f}")

# %% [markdown]
# ### All the queries at once
#
# Exercise 1 showed that the weights depend on the query's norm, not only on its direction. Now from one query
# to many: in a transformer, every token makes a query, a key and a value, and does this lookup over all the tokens at
# once. Stack the tokens as the rows of $X$, with $Q = XW_q$, $K = XW_k$ and $V = XW_v$:
#
# $$\text{Attention}(Q, K, V) = \text{softmax}\left(\frac{QK^\top}{\sqrt{d_k}}\right) V.$$
#
# The softmax runs over each row, that is over the keys. $d_k$ is the size of a query, its number of entries:
# the $d$ of the lookup above. We build ViT's standard layer; notebook 09 builds T2T's variant: see [how the two differ](#Evidence:-the-walk-through-and-its-sources).

# %% [markdown]
# ### Exercise 2 (code): the formula, written out
#
# Write `single_head_attention(q, k, v)`, which computes the formula above. q has shape
# (n_queries, $d_k$), one query per row; k is (n_keys, $d_k$) and v (n_keys, $d_v$). It returns one output per
# query: (n_queries, $d_v$). The numbers of queries and keys may differ, and so may $d_k$ and $d_v$.
#
# ViT's layer runs it on many items and heads at once, so your function must also work with any axes in front of
# the tokens: q of shape (batch, heads, n_queries, $d_k$) gives (batch, heads, n_queries, $d_v$), each item and
# head on its own. Before you write it, name the shape of the scores and of the weights in that case.
#
# Use matrix products and a softmax: the check refuses ready-made attention (PyTorch's
# `scaled_dot_product_attention` and `nn.MultiheadAttention`, the package's `Attention`). To try it first: the lookup above is the case of one
# query, so `single_head_attention(lookup_query[None], lookup_keys, lookup_values)` should give `lookup_out` as
# a row (`[None]` makes the query a matrix of one row).


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "single_head_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def single_head_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    # k.transpose(-2, -1) swaps the last two axes only; k.T would reverse every axis of a batched k
    scores = q @ k.transpose(-2, -1) / math.sqrt(q.shape[-1])  # (..., n_queries, n_keys): query i, key j
    weights = scores.softmax(dim=-1)  # (..., n_queries, n_keys): softmax over the keys, each row sums to 1
    return weights @ v  # (..., n_queries, d_v): row i mixes the values with the weights of query i
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "single_head_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.single_head_function(single_head_attention)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "single_head_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.single_head_function, single_head_attention)
### END HIDDEN TESTS

# %% [markdown]
# ## 2. Queries, keys and values (9 min)
#
# Our running example, the *walk-through*: a batch of 13 items, each 100 tokens of size $D$ = 64 (the batch,
# token count and channels of the article series' attention walk-through, whose tokens enter at size 49:
# [see its sources](#Evidence:-the-walk-through-and-its-sources)).
# Inside a transformer block, attention reads tokens that a *layer norm* has just normalised: each token to mean
# 0 and variance 1 over its entries (notebook 06). Standard normal tokens stand in for them: their means and variances
# scatter around 0 and 1 (printed).
#
# One linear layer, `qkv`, maps each token to $3 \times D$ numbers, which are split into q, k and v. In the
# formula's $xW$ form its matrix is $[W_q \,|\, W_k \,|\, W_v]$, side by side; PyTorch stores it transposed, so
# `qkv.weight` has shape $(3D, D)$, the three as blocks of rows.

# %% [markdown]
# A *channel* here is one entry of a token, query, key or value vector (not a colour channel of an image). A
# layer can run several *heads*: groups of head_dim channels, each with its own attention (notebook 05). Here
# there is one head, but we keep a *head axis* of size 1, so that the same code works for several.
#
# We draw the parameters of `qkv` with standard deviation $1/\sqrt{D}$, so that the entries of q and k have
# variance about 1 ([PyTorch's default gives less](#Evidence:-the-walk-through-and-its-sources)). That is the
# size the $\sqrt{d_k}$ is made for. The original ViT's `qkv` (and timm's) also has a bias; the article's code
# and the official T2T code leave it out by default. We set it to zero, so that q, k and v are exactly the
# formula's $XW_q$, $XW_k$ and $XW_v$.

# %% [markdown]
# **The reshape and the permute, axis by axis.** A token's $3 \times D$ numbers come as three blocks, [q | k | v], and
# inside each block the channels come head by head. So `reshape(batch, n_tokens, 3, heads, head_dim)` reads
# the last axis from the outside in: block, head, channel. Then `permute(2, 0, 3, 1, 4)` lists the old axes in
# their new order: q, k or v first, so that unpacking gives the three; then batch, head, token and channel.
# The heads go before the tokens, so that a product over the last two axes compares tokens within each head.
#
# A tiny case shows it: 1 item, 3 tokens, $D$ = 4, 2 heads of 2 channels. Entry $c$ of token $t$ of what `qkv`
# returns is set to $100t + c$, so every number printed says where it came from. Heads count from 0.

# %%
tiny = (100 * torch.arange(3)[:, None] + torch.arange(3 * 4)).float()[None]  # (1, 3 tokens, 3D = 12)
tiny_q, tiny_k, tiny_v = tiny.reshape(1, 3, 3, 2, 2).permute(2, 0, 3, 1, 4)  # each (1, heads 2, tokens 3, 2)
print(f"{tuple(tiny.shape)} -> reshape (1, 3, 3, 2, 2) -> permute -> q, k, v each {tuple(tiny_q.shape)}")
for name, t in (("q", tiny_q), ("k", tiny_k), ("v", tiny_v)):
    for h in range(2):
        print(f"{name}, head {h}, tokens 0 to 2: {t[0, h].int().tolist()}")
assert tiny_k[0, 1, 2].tolist() == [206.0, 207.0]  # k of head 1, token 2: entries 6 and 7 of token 2

# %% [markdown]
# Each token's q is entries 0 to 3 of its `qkv` output, k entries 4 to 7 and v entries 8 to 11; head 0 takes the
# first two of each block, head 1 the last two. So one number has three names: the 206 printed above, entry 6 of
# token 2's `qkv` output, is channel 2 of its k and channel 0 of head 1's k. Now the walk-through, at full size.

# %%
batch, n_tokens, dim = 13, 100, 64
x = torch.randn(batch, n_tokens, dim, generator=torch.Generator().manual_seed(42)).to(device)  # (B, N, D)
print(f"x: {tuple(x.shape)}  (batch, tokens, token size)")
token_means, token_vars = x.mean(-1), x.var(-1, unbiased=False)  # (B, N) each: over each token's D entries
print(
    f"per token: mean from {token_means.min():.2f} to {token_means.max():.2f}, "
    f"variance from {token_vars.min():.2f} to {token_vars.max():.2f} (a layer norm would give 0 and 1)"
)
assert token_means.abs().max() < 0.5 and 0.45 < token_vars.min() and token_vars.max() < 1.75

# %%
torch.manual_seed(0)  # the layer qkv, then q, k and v
qkv = nn.Linear(dim, dim * 3)
nn.init.normal_(
    qkv.weight, std=dim**-0.5
)  # W_q, W_k, W_v side by side; drawn on the CPU, then moved: the same numbers on every device
nn.init.zeros_(qkv.bias)  # zero, as the article's ViT code starts a bias: q = x W_q, as in the formula
qkv = qkv.to(device)
proj = nn.Linear(dim, dim).to(device)
heads = 1
head_dim = dim // heads

# %%
with torch.no_grad():
    mixed = qkv(x)  # (B, N, 3 * D)
    split = mixed.reshape(batch, n_tokens, 3, heads, head_dim)  # (B, N, 3, heads, head_dim)
    stacked = split.permute(2, 0, 3, 1, 4)  # (3, B, heads, N, head_dim)
    q, k, v = stacked  # each (B, heads, N, head_dim)
print(f"qkv(x): {tuple(mixed.shape)} -> reshape {tuple(split.shape)} -> permute {tuple(stacked.shape)}")
print(f"Q, K, V each {tuple(q.shape)}  (batch, heads, tokens, channels)")
print(f"variance of the entries of q: {q.var().item():.2f}, of k: {k.var().item():.2f}")

# %% [markdown]
# ## 3. Scores, softmax and the weighted sum (17 min)
#
# This is Exercise 2's formula on the walk-through, written out step by step, with its batch axis and head axis
# in front of the tokens; $d_k$ is head_dim, here 64. $QK^\top$ has one row
# per query token and one column per key token. The scores are multiplied by $d_k^{-1/2}$, and a softmax over
# each row turns them into weights that sum to 1 over the keys.
#
# Each token's output is then its row of weights times the values: a weighted average of the 100 value vectors.
# The heads are glued back side by side; with one head, that just drops the head axis. A last linear layer,
# `proj`, mixes the channels. ViT's layer has it whatever the number of heads; with several, it mixes what the
# heads found (notebook 05).

# %%
scale = head_dim**-0.5
with torch.no_grad():
    scores = q @ k.transpose(-2, -1)  # (B, heads, N, N)
    weights = (scores * scale).softmax(dim=-1)  # (B, heads, N, N): softmax over the keys
print(f"QK^T: {tuple(scores.shape)}, scale = {head_dim}^-0.5 = {scale}, weights: {tuple(weights.shape)}")

with torch.no_grad():  # each token's output: its row of weights times the values
    mixed_values = weights @ v  # (B, heads, N, head_dim)
    merged = mixed_values[:, 0]  # (B, N, head_dim) = (B, N, D): with one head, merging drops the head axis
    out = proj(merged)  # (B, N, D)
print(
    f"weights @ V: {tuple(mixed_values.shape)} -> heads merged {tuple(merged.shape)} -> proj {tuple(out.shape)}"
)

# %% [markdown]
# Here is the last product, weights @ V = output, for the first batch item, as heat maps. They show the first 20
# tokens, so that each cell can be seen; the products use all 100, so the rows of the weights panel do not sum
# to 1.
#
# Look first at the weights: each query row favours its own few keys, well above the average weight 1/100
# (the colour bar's top), and gives the rest less. Yet no weight is large: the median of the largest weight in a row, printed
# below, is far from 1. Then compare V and the output, drawn on one colour scale: the output is paler, and its
# rows look alike, so its columns tend to form faint stripes. Each output row averages the same 100 value rows with no weight
# large, and such an average varies less than what it averages
# ([how much less, with a control](#Evidence:-the-walk-through-and-its-sources)).

# %% mystnb={"image": {"alt": "Three heat maps for 20 tokens of the first item: the attention weights, query token by key token, with a few bright keys per row; V, token by channel; and the output weights times V, paler than V on the same colour scale"}}
show = 20
w0 = weights[0, 0, :show, :show].cpu()  # (20, 20): 20 queries, 20 of the 100 keys
v0, out0 = v[0, 0, :show].cpu(), mixed_values[0, 0, :show].cpu()  # (20, 64) each
shared = 3.0  # one colour range for V and the output
assert v0.abs().max() < 1.5 * shared and out0.abs().max() < shared
fig, axes = plt.subplots(1, 3, figsize=(16, 4.4), gridspec_kw={"width_ratios": [1.4, 2, 2]})
plots.show_matrix(
    w0,
    ax=axes[0],
    title="attention weights",
    xlabel="key token",
    ylabel="query token",
    cmap="magma",
    vmin=0,
    vmax=float(w0.max()),
    label="attention weight",
)
for ax, matrix, title, ylabel in (
    (axes[1], v0, "@   V", "key token"),
    (axes[2], out0, "=   output (weights @ V, all 100 keys)", "query token"),
):
    plots.show_matrix(
        matrix,
        ax=ax,
        title=title,
        xlabel="channel",
        ylabel=ylabel,
        cmap="RdBu_r",
        vmin=-shared,
        vmax=shared,
        label="entry (same scale, clipped at ±3)",
    )
for ax in axes:  # token and channel numbers are whole numbers
    ax.xaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
    ax.yaxis.set_major_locator(MaxNLocator(nbins=5, integer=True))
fig.suptitle("first item, first 20 tokens: attention weights @ V = output")
fig.tight_layout()
plt.show()
top = weights.max(dim=-1).values  # (B, heads, N): the largest weight of each row
print(
    f"largest weight in a row: median {top.median().item():.2f} "
    "(uniform rows would give 1/100 = 0.01, all the weight on one key 1)"
)

# %% [markdown]
# ### Exercise 3 (predict): what does the scale do?
#
# The *entropy* of a row of weights, $H = -\sum_j a_{ij} \ln a_{ij}$, measures how evenly the row shares its
# weight. It is $\ln 100$ for a uniform row over 100 keys. It is 0 for a *one-hot* row, which puts all its
# weight on one key.
#
# Decide before you compute anything. Take the walk-through's q and k. Compare the mean row entropy of the
# scaled weights
# $\text{softmax}(QK^\top / \sqrt{d_k})$ with that of the unscaled $\text{softmax}(QK^\top)$. Each statement
# below makes a choice and gives a reason. Set `prediction` to the letter of the one whose choice and reason
# are both right.
#
# - **a.** The unscaled weights have the larger mean entropy: the raw scores are spread over a wider range, and
#   numbers spread more widely have the larger entropy.
# - **b.** The scaled weights have the larger mean entropy: a softmax compares scores only through their
#   differences, the scale makes those differences 8 times smaller, and closer scores give more even weights.
# - **c.** Both have the same mean entropy: the softmax depends only on the differences between the scores, so
#   multiplying all of them by one number changes nothing.
# - **d.** The scaled weights have the larger mean entropy: the scale shrinks the entries of q and k to
#   variance 1, and with small queries and keys no key can stand out.
# - **e.** The unscaled weights have the larger mean entropy: unscaled scores differ more from key to key, so
#   more keys stand out and share the weight.
#
# Then back your choice with a number. Two keys of one row have unscaled scores $q \cdot k$ that differ by 12.
# After the walk-through's scale, $1/\sqrt{64}$, how many times the lower key's weight does the higher key get?
# Set `weight_ratio` to that number, to three significant figures or better.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "entropy_prediction-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
prediction = None  # one of "a", "b", "c", "d", "e"
weight_ratio = None  # replace None with a number
### BEGIN SOLUTION
# The scale multiplies every score by 1/8 here: the gaps within a row shrink, and exp() of close scores gives
# close weights, so the scaled rows are flatter and their entropy is higher. (c) fails because the softmax
# ignores a number *added* to every score, not one multiplied into them.
prediction = "b"
# Weight j is exp(s_j) / sum_l exp(s_l): the sum cancels in a ratio, so two weights differ by the factor
# exp(s_1 - s_2). The scale turns the gap of 12 into 12 / 8 = 1.5: a factor e^1.5 = 4.48 instead of e^12.
weight_ratio = math.exp(12 / math.sqrt(64))
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "entropy_prediction-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.entropy_prediction(prediction)
check.scaled_weight_ratio(weight_ratio)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "entropy_prediction-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.entropy_prediction, prediction)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "scaled_weight_ratio-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.scaled_weight_ratio, weight_ratio)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 3

# %% [markdown]
# The mean row entropy, in *nats*: the unit of entropy measured with the natural logarithm $\ln$.
# `torch.special.entr(p)` is $-p \ln p$, with the value 0 where a weight is 0. Then two keys of one row whose
# scores lie about 12 apart: the ratio of their weights, beside $e$ raised to the gap between their scores.

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


def three_figures(value: float) -> str:
    """A positive number to three significant figures, without an exponent: 4262.3 -> "4,260"."""
    return f"{float(f'{value:.3g}'):,g}"


row_scores = scores_cpu[0, 0, 0].double()  # (N,): the first query's unscaled scores
hi = row_scores.argmax()  # its best key, and the key whose score lies closest to 12 below it
lo = (row_scores - (row_scores[hi] - 12)).abs().argmin()
score_gap = (row_scores[hi] - row_scores[lo]).item()
for name, factor in (("unscaled", 1.0), ("scaled", scale)):
    row_weights = (row_scores * factor).softmax(-1)
    ratio = (row_weights[hi] / row_weights[lo]).item()
    print(
        f"{name:8s}: scores {score_gap * factor:.2f} apart, weight ratio {three_figures(ratio)}, "
        f"e^gap {three_figures(math.exp(score_gap * factor))}"
    )
    assert math.isclose(ratio, math.exp(score_gap * factor), rel_tol=1e-3)
print(f"a gap of 12: unscaled e^12 = {math.exp(12):,.0f}, scaled e^(12 / 8) = {math.exp(1.5):.3f}")

# %% [markdown]
# The scaled weights are the flatter ones: dividing by $\sqrt{d_k}$ shrinks the gaps between a row's scores.
# A weight ratio is $e$ raised to the gap, so a gap of 12 that gave a factor of about 160,000 now gives one of
# $e^{1.5}$, about 4.5.

# %% [markdown]
# ### Why divide by √d_k
#
# Take q and k whose entries are independent, with mean 0 and variance 1. Their dot product
# $q \cdot k = \sum_{c=0}^{d_k - 1} q_c k_c$ is a sum of $d_k$ products $q_c k_c$, each with mean 0 and variance 1.
# The products are independent, so their variances add: $q \cdot k$ has variance $d_k$. Dividing by $\sqrt{d_k}$
# brings it back to 1, whatever the head size.
#
# Unscaled, the scores spread with standard deviation $\sqrt{d_k}$, 16 for $d_k$ = 256, and gaps that large push
# the softmax towards a one-hot row. Vaswani et al. (2017, "Attention Is All You Need") suspect that this is why
# the scale helps: for large $d_k$ the dot products grow large, and the softmax lands where it has "extremely
# small gradients". (A *gradient* says how much a result would change per small change of a number it is
# computed from; training, notebook 10, follows it. A near one-hot softmax barely changes when its scores change, so
# little flows back.) Dividing by $\sqrt{d_k}$ is the same as starting $W_q$ $\sqrt{d_k}$ times smaller.
#
# Below: the variance on random pairs, then on our walk-through, then 1,000 random queries over 100 keys with
# $d_k$ = 256, one of them drawn. What this does to learning, through the gradients, is in
# [the Evidence](#Evidence:-what-the-scale-does-to-the-gradients).

# %% mystnb={"image": {"alt": "Two bar charts of one query's weights over 100 keys with d_k 256: unscaled, one red bar takes most of the weight; scaled, on its own smaller y axis, the blue bars are spread over many keys"}}
gen = torch.Generator().manual_seed(0)
pairs = 10_000
print(f"{pairs:,} random pairs (q, k) with unit-variance entries")
print(" d_k   var(q.k)   var(q.k)/d_k   var(q.k/sqrt(d_k))")
for d_k in (4, 16, 64, 256, 1024):
    qs, ks = torch.randn(pairs, d_k, generator=gen), torch.randn(pairs, d_k, generator=gen)
    dots = (qs * ks).sum(-1)
    print(f"{d_k:4d} {dots.var():10.1f} {dots.var() / d_k:14.2f} {(dots / math.sqrt(d_k)).var():20.2f}")
    assert abs(dots.var() / d_k - 1) < 0.1
with torch.no_grad():
    walk_scores = (q @ k.transpose(-2, -1)).cpu()  # (B, 1, N, N): the walk-through's unscaled scores
print(
    f"walk-through: var(QK^T) = {walk_scores.var().item():.1f}, "
    f"var(QK^T / 8) = {(walk_scores * scale).var().item():.2f}"
)
d_k = 256
qrows, keys = torch.randn(1000, d_k, generator=gen), torch.randn(100, d_k, generator=gen)
raw = qrows @ keys.T  # (1000, 100): the scores of 1,000 queries over 100 keys
unscaled, scaled_w = raw.softmax(-1), (raw / math.sqrt(d_k)).softmax(-1)
print(
    f"d_k = {d_k}, 1,000 queries: median largest weight without scaling {unscaled.max(-1).values.median():.3f}, "
    f"with scaling {scaled_w.max(-1).values.median():.3f}"
)
assert unscaled.max(-1).values.median() > 0.5 > scaled_w.max(-1).values.median()
top_key = int(unscaled[0].argmax())  # query 0's best key, drawn below
print(
    f"query 0: its largest weight goes to key {top_key}, {unscaled[0, top_key]:.2f} unscaled "
    f"and {scaled_w[0, top_key]:.2f} scaled"
)
assert int(scaled_w[0].argmax()) == top_key  # the scale changes how much, not which key is best
fig, (ax_u, ax_s) = plt.subplots(1, 2, figsize=(12, 3))
ax_u.bar(range(100), unscaled[0], color="tab:red")
ax_u.set_title(f"query 0, softmax(q.k), d_k = {d_k}")
ax_s.bar(range(100), scaled_w[0], color="tab:blue")
ax_s.set_title("the same query, softmax(q.k / sqrt(d_k)): note the y axis")
for ax in (ax_u, ax_s):
    ax.axhline(0.01, color="grey", linestyle="--", linewidth=1, label="uniform weight 1/100")
    ax.set_xlabel("key token")
    ax.set_ylabel("attention weight")
    ax.legend(loc="upper left")
fig.tight_layout()
plt.show()

# %% [markdown]
# Our walk-through agrees: its scores have variance close to $d_k$ = 64, and its scaled scores close to 1. With
# $d_k$ = 256 and no scale, one key takes most of a row's weight in the typical row (the median printed); with the
# scale, it is under a tenth.
#
# In the figure, compare the two y axes first. Unscaled (red), one key takes almost all of query 0's weight
# (printed) and all but one of the other 99 bars are too small to see: a near one-hot row. Scaled (blue), the same key is still
# the largest, but its bar is small and the weight is spread over many keys, many of them near the dashed line
# of a uniform row. The scale changes how sharply a row
# picks, not which key it prefers.

# %% [markdown]
# ## Summary
#
# - Attention is a soft lookup: a query is scored against every key, a softmax makes the weights, and the
#   output is the weighted sum of the values. A score is a dot product, so a query of larger norm in the same
#   direction gives sharper weights.
# - For all the queries at once, $\text{softmax}(QK^\top / \sqrt{d_k})\,V$: one row of weights per query, the
#   softmax over the keys, and the scale set by the size of the queries and keys, not of the values.
# - Q, K and V come from one linear layer, `qkv`; a reshape and a permute give each its own tensor,
#   (batch, heads, tokens, channels). The attention weights form a tokens × tokens matrix per item, each row
#   summing to 1;
#   `proj` mixes the output's channels.
# - For unit-variance q and k of size $d_k$, the dot product $q \cdot k$ has variance $d_k$. The scale
#   $d_k^{-1/2}$ brings it back to 1, so that rows start away from one-hot: a gap $g$ between two scores becomes
#   a weight ratio $e^{g / \sqrt{d_k}}$. Training may still grow $W_q$ and $W_k$; the scale sets the start.
#
# **Next:** [05 Multi-head attention](05_multi_head_attention.ipynb) cuts this layer into several heads, counts
# its cost, checks the package's attention against PyTorch's and runs it on the picture.

# %% [markdown]
# ## Evidence: the walk-through and its sources
#
# **The article's walk-through.** The walk-through of "Attention for Vision Transformers, Explained" (Skylar Jean
# Callis, in the series "Vision Transformers Explained") uses the same batch, token count and channels as ours,
# but its tokens have size 49: the 7 × 7 pixels of a window of T2T's first soft split. Its
# layer reads them into 64 channels and adds $v$ to its output, a skip connection: that is T2T's variant, which
# notebook 09 builds. Ours start at size 64 and stay at 64, the standard layer.
#
# The official T2T-ViT code (Yuan et al.), with `tokens_type='transformer'` (its `T2T_ViT` class defaults to
# `'performer'`), builds T2T's first token transformer as
# `Token_transformer(dim=in_chans * 7 * 7, in_dim=token_dim, num_heads=1, mlp_ratio=1.0)` with `token_dim` 64
# and its qkv bias off by default. Notebook 09 adds T2T's skip through $v$ and compares the two codes' scale
# factors; neither changes the layer's multiply-adds, which notebook 05 counts.

# %% [markdown]
# **The parameters' spread in section 2.** A freshly built `nn.Linear` draws its parameters uniformly from
# $[-1/\sqrt{D}, 1/\sqrt{D}]$, with $D$ its input size. That has standard deviation $1/\sqrt{3D}$, so its q
# would have variance about 1/3 instead of 1. The article's ViT code draws its linear layers' parameters from
# timm's truncated normal (a normal distribution cut off at two bounds) with standard deviation 0.02, whatever
# $D$.
#
# **How much less the outputs vary (section 3).** Each output row is a *convex combination* of the value rows:
# its weights are positive and sum to 1. For independent values of variance 1, its variance is
# $\sum_j a_{ij}^2$, the sum of the squared weights $a_{ij}$ of query $i$ over the keys $j$. The outputs spread several times less than the
# values, but somewhat more than $\sum_j a_{ij}^2$ predicts. The prediction assumes values independent of the
# weights, while here both come from the same tokens (which link between them matters, the diagonal's
# self-scores or the shared tokens, this control does not tell). The control applies the same weights to the values of
# another batch item, independent of these weights. Its spread is 1.02 times the prediction (0.17 against
# 0.16, rounded), where the outputs' is 0.21.

# %%
with torch.no_grad():
    q_default = nn.Linear(dim, dim * 3).to(device)(x)[..., :dim]  # q of a freshly built layer, (B, N, D)
print(
    f"variance of q with nn.Linear's own parameters: {q_default.var().item():.2f}, with ours: {q.var().item():.2f}"
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
print(
    f"control, weights @ (values of another item): {control.std().item():.2f} "
    f"({(control.std() / predicted_std).item():.2f} times the prediction)"
)
assert mixed_values.std() > 1.1 * predicted_std and abs(control.std() / predicted_std - 1) < 0.05


# %% [markdown]
# ## Evidence: what the scale does to the gradients
#
# A model learns by nudging its parameters along *gradients*: rates of change passed backwards through every
# step of the computation. The softmax's derivative is $\partial a_j / \partial s_l = a_j(\delta_{jl} - a_l)$,
# with $\delta_{jl}$ = 1 when $j = l$, else 0. Every derivative by $s_l$ carries the factor $a_l$: a key whose
# weight is near 0 gets almost no gradient on its score, however much reaches the weights. In a near one-hot
# row that is almost every key.
#
# The cell measures it on section 3's 1,000 queries over 100 keys with $d_k$ = 256. For gradients we need a
# *loss*, the number that training lowers (notebook 10); a stand-in will do: the weights times one random number
# per key, summed. `retain_grad()` keeps the gradient at the scores, which autograd would otherwise drop.

# %%
per_key = torch.randn(100, generator=gen)  # (100,): one random number per key, for the stand-in loss
grad_s, grad_q, quiet = [], [], []  # without, then with the scale
for factor in (1.0, d_k**-0.5):
    q_in = qrows.clone().requires_grad_()  # (1000, d_k): queries that autograd follows
    s = (q_in @ keys.T) * factor  # (1000, 100): the scores, the softmax's input
    s.retain_grad()  # keep d loss / d s, which autograd would otherwise drop
    (s.softmax(-1) @ per_key).sum().backward()  # the stand-in loss
    g = s.grad.abs()  # (1000, 100): |d loss / d s_j| for each query and key
    grad_s.append(s.grad.norm(dim=-1).median().item())  # medians over the 1,000 queries
    grad_q.append(q_in.grad.norm(dim=-1).median().item())
    quiet.append((g < 0.01 * g.max(-1, keepdim=True).values).float().mean().item())
print(
    f"gradient at the scores, median norm: without scaling {grad_s[0]:.3f}, with {grad_s[1]:.3f} "
    f"({grad_s[1] / grad_s[0]:.0f} times larger)"
)
print(
    f"gradient reaching q, median norm: without scaling {grad_q[0]:.3f}, with {grad_q[1]:.3f} "
    f"({grad_q[1] / grad_q[0]:.2f} times as large)"
)
print(
    f"keys whose score gets under 1/100 of its row's largest gradient: without scaling {quiet[0]:.0%}, "
    f"with {quiet[1]:.0%}"
)
assert grad_s[1] > 4 * grad_s[0] and grad_q[1] < 0.8 * grad_q[0]
assert quiet[0] > 0.9 and quiet[1] < 0.3

# %% [markdown]
# Without the scale, 96 % of the keys' scores get under 1/100 of their row's largest gradient; with it, only 18 %
# do. At the scores, the softmax's input, the gradient is 8 times smaller without the scale: the small gradients
# Vaswani et al. describe. But the scale also multiplies the path back to q by $1/\sqrt{d_k}$ = 1/16, so the
# gradient reaching q is not larger with the scale: here it is about half as large. In this one draw, with a
# stand-in loss, what the scale buys is not a larger gradient at q; it is a gradient that reaches the scores of
# most keys, not of one. Whether that changes what training finds is not measured here.
