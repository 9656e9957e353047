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
# # 05 · Multi-head attention
#
# **Time:** about 55 minutes
#
# **Before this:** [notebook 04](04_attention.ipynb), which builds attention with one head.
#
# One head compares the tokens on all their channels at once, and gives each query one row of weights: one
# weighted average of the values. A layer with several *heads* cuts the channels into groups, and each group
# attends on its own, with its own row of weights: one head can follow one kind of likeness, another head
# another. This notebook cuts notebook 04's layer into heads, checks the package's attention three ways, and
# runs it on the picture.
#
# By the end you can
# 1. cut Q, K and V into heads and glue them back head 0 first, and find the bug in a merge that passes a
#    shape check;
# 2. write multi-head attention as the sources do, $\text{Concat}(\text{head}_1, \dots, \text{head}_h)\,W^O$
#    (they count heads from 1), and name the slice of our parameters that each matrix is;
# 3. count a layer's parameters and multiply-adds, and say what more heads cost and what they do not;
# 4. check the package's attention against PyTorch's, and write attention for a tokens-first layout;
# 5. read the picture's attention maps head by head, and say why random heads give flat weights there.

# %%
import math

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from matplotlib.patches import Rectangle
from torch import nn

import vitcourse
from vitcourse import check, load_mountains, plots, tokens
from vitcourse.attention import Attention
from vitcourse.cost import count_macs

torch.manual_seed(0)
device = vitcourse.get_device()

# %% [markdown]
# ## 1. Several heads (35 min)
#
# We start again from notebook 04's walk-through: 13 items of 100 tokens of length $D$ = 64, and the same
# layers `qkv` and `proj`, drawn with the same seeds.

# %%
batch, n_tokens, dim = 13, 100, 64
x = torch.randn(batch, n_tokens, dim, generator=torch.Generator().manual_seed(42)).to(device)  # (B, N, D)
torch.manual_seed(0)
qkv = nn.Linear(dim, dim * 3)
nn.init.normal_(qkv.weight, std=dim**-0.5)  # drawn on the CPU, then moved: the same numbers on every device
nn.init.zeros_(qkv.bias)
qkv = qkv.to(device)
proj = nn.Linear(dim, dim).to(device)
print(f"x: {tuple(x.shape)}, qkv: {dim} -> {3 * dim}, proj: {dim} -> {dim}")

# %% [markdown]
# With $h$ heads, the $D$ channels of q, k and v are cut into $h$ groups of head_dim $= D / h$ channels; head
# $i$ (counted from 0) takes group $i$. Each head computes its own attention weights over the same tokens, with
# head_dim in the scale. Then the $h$ outputs are put side by side again, head 0's first, and `proj` mixes them.
#
# Why bother? One head gives a query one row of weights, so every channel of its output gets the same mix of
# the values. A small example shows what two heads add: 3 tokens of 4 channels. Query 0 asks on
# all 4 channels; token 1's key stands out on channels 0–1, token 2's on channels 2–3; token $t$'s values
# are all $t$.


# %%
def toy_attention(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, heads: int
) -> tuple[torch.Tensor, torch.Tensor]:
    """(N, D) q, k, v -> output (N, D) and weights (heads, N, N); each head uses its own D / heads channels."""
    n, d = q.shape
    qh, kh, vh = (t.reshape(n, heads, d // heads).transpose(0, 1) for t in (q, k, v))  # (heads, N, head_dim)
    weights = (qh @ kh.transpose(-2, -1) * (d // heads) ** -0.5).softmax(-1)  # (heads, N, N)
    return (weights @ vh).transpose(0, 1).reshape(n, d), weights  # heads glued back, head 0 first


q_toy = torch.tensor([[3.0, 3, 3, 3], [0, 0, 0, 0], [0, 0, 0, 0]])  # (3 tokens, 4 channels)
k_toy = torch.tensor([[0.0, 0, 0, 0], [3, 3, 0, 0], [0, 0, 3, 3]])
v_toy = torch.tensor([[0.0, 0, 0, 0], [1, 1, 1, 1], [2, 2, 2, 2]])
for h in (1, 2):
    toy_out, toy_w = toy_attention(q_toy, k_toy, v_toy, h)
    rows = "; ".join(f"head {i} " + " ".join(f"{p:.2f}" for p in toy_w[i, 0]) for i in range(h))
    print(f"{h} head(s): query 0's weights on tokens 0-2: {rows} -> output {toy_out[0].numpy().round(2)}")

# %% [markdown]
# With one head, query 0 matches tokens 1 and 2 equally: half of each, in every channel. With two heads, head 0
# (channels 0–1) takes token 1 and head 1 (channels 2–3) takes token 2, and the output keeps both, side by
# side. That only works if the merge puts each head's channels back in their place.
#
# Notebook 04's reshape already has a head axis: `reshape(batch, n_tokens, 3, heads, head_dim)` reads a
# token's $3D$ numbers as block (q, k or v), then head, then channel. Cutting into heads is that reshape with
# more than one head. Gluing the heads back is where a mistake can hide.

# %% [markdown]
# ### Exercise 1 (find the bug): a merge that mixes things up
#
# The heads' outputs, (B, heads, N, head_dim), must be glued back into (B, N, heads · head_dim), head 0's
# channels first. The cell below defines a merge that passes a shape check but is wrong. Read its code and work
# out on paper, without running it, what it does to a small input whose entries name themselves: 2 heads,
# 3 tokens, 2 channels, where head $g$, token $t$, channel $c$ (each counted from 0) holds $100g + 10t + c$.
# Write down output token 0's four numbers, then set `merge_bug` to the letter of the statement that says what
# goes wrong and why.
#
# - **a.** Each token holds its own numbers, but the heads' channels are interleaved, one from each head in
#   turn: the head axis comes last before the reshape, so it varies fastest.
# - **b.** Output token 0 holds head 0's channels of tokens 0 and 1: a reshape keeps the reading order, and
#   there all of head 0's tokens come before head 1's.
# - **c.** Each output token mixes numbers of different tokens: the permute moves the token axis.
# - **d.** Each token holds its own numbers, head 0's first, but each head's channels come in reverse order:
#   the permute reverses the last two axes.
# - **e.** Output token 0 holds token 0 of every head, but head 1 first: the permute reverses the heads.
#
# Then follow the bug to full size: 4 heads of 16 channels, glued by this merge into 64 channels. `proj`
# expects head 2's channel 5 at output channel 37. Which output channel holds it after this merge? Set
# `head2_channel5` to it.


# %%
def merge_heads_buggy(o: torch.Tensor) -> torch.Tensor:
    """Should glue (B, heads, N, head_dim) into (B, N, heads * head_dim), head 0's channels first."""
    b, h, n, d = o.shape
    return o.permute(0, 2, 3, 1).reshape(b, n, h * d)


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "merge_bug_choice-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
merge_bug = None  # one of "a", "b", "c", "d", "e"
head2_channel5 = None  # replace None with a channel number, counted from 0
### BEGIN SOLUTION
# Output token 0 reads 000 100 001 101: token 0 only, but head 0 and head 1 take turns. The permute puts the
# head axis last, so in reading order the head varies fastest, and the reshape keeps that order.
merge_bug = "a"
# After the permute a token's numbers are ordered (channel, head): output channel c * heads + h holds head h's
# channel c. Head 2's channel 5 lands at 5 * 4 + 2.
head2_channel5 = 5 * 4 + 2
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "merge_bug_choice-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.merge_bug_choice(merge_bug)
check.merge_bug_channel(head2_channel5)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "merge_bug_choice-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.merge_bug_choice, merge_bug)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "merge_bug_channel-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.merge_bug_channel, head2_channel5)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 1


# %% mystnb={"image": {"alt": "Two rows of 64 output channels coloured by the head they come from: the right merge gives four solid blocks, the buggy merge thin alternating stripes"}}
def merge_heads(o: torch.Tensor) -> torch.Tensor:
    """(B, heads, N, head_dim) -> (B, N, heads * head_dim), head 0's channels first."""
    b, h, n, d = o.shape
    return o.transpose(1, 2).reshape(b, n, h * d)  # (B, N, heads, head_dim) -> (B, N, heads * head_dim)


labels = torch.tensor([[[100 * h + 10 * t + c for c in range(2)] for t in range(3)] for h in range(2)])[
    None
]  # (1, 2 heads, 3 tokens, 2 channels): each entry names its head, token and channel
glued_buggy, glued_right = (
    merge_heads_buggy(labels),
    merge_heads(labels),
)  # each (1, 3, 4): the shape is right
print(f"input {tuple(labels.shape)} -> output {tuple(glued_buggy.shape)} with either merge")
for t in range(3):
    buggy_row = "  ".join(f"{value:03d}" for value in glued_buggy[0, t].tolist())
    right_row = "  ".join(f"{value:03d}" for value in glued_right[0, t].tolist())
    print(f"output token {t}: buggy merge {buggy_row}   right merge {right_row}")
for merge in (merge_heads_buggy, merge_heads):
    assert (merge(labels)[0] % 100 // 10 == torch.arange(3)[:, None]).all()  # token t holds only token t

head_labels = torch.arange(64).reshape(1, 4, 1, 16)  # (1, 4 heads, 1 token, 16): head * 16 + channel
for name, merge in (("buggy", merge_heads_buggy), ("right", merge_heads)):
    place = int((merge(head_labels)[0, 0] == 2 * 16 + 5).nonzero()[0])  # where head 2's channel 5 lands
    print(f"4 heads of 16, {name} merge: head 2's channel 5 lands at output channel {place}")

head_of = torch.stack(
    [merge(head_labels)[0, 0] // 16 for merge in (merge_heads, merge_heads_buggy)]
)  # (2, 64)
fig, ax = plt.subplots(figsize=(12, 1.8), layout="constrained")
ax.imshow(
    head_of, cmap=plt.get_cmap("tab10", 10), vmin=-0.5, vmax=9.5, aspect="auto", interpolation="nearest"
)
ax.axhline(0.5, color="white", lw=6)  # a gap between the two rows
ax.set_yticks([0, 1], ["right merge", "buggy merge"])
ax.set_xlabel("output channel of one token (0-63)")
ax.set_title("Which head each output channel comes from: 4 heads of 16 channels")
for g in range(4):
    ax.plot([], [], "s", color=plt.get_cmap("tab10")(g), label=f"head {g}")
ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), frameon=False)
plt.show()

# %% [markdown]
# A reshape only regroups numbers in their reading order (notebook 01), the last axis fastest. The buggy merge
# puts the head axis after the channels, so the heads take turns channel by channel. The right merge,
# `transpose(1, 2)`, puts the head axis before the channels, so each head's channels stay together.
#
# Both merges give the right shape, and both keep each token's own numbers (the assert above). Only a test that
# knows where each head's channels belong reveals the bug. The figure shows it for 4 heads of 16 channels, one
# colour per head: the right merge gives four solid blocks, head 0's first, as `proj` expects; the buggy merge
# gives thin stripes.
#
# When does the bug matter? Trained from scratch, it would do no harm: it is a fixed reordering of the channels,
# and training can find a `proj` with its columns reordered to match (section 2 checks that this works). It
# matters when parameters come from elsewhere: a checkpoint (a trained model's saved parameters), a library,
# or `nn.MultiheadAttention`.


# %% [markdown]
# ### Four heads on the walk-through

# %% [markdown]
# With 4 heads on the walk-through, head_dim = 64 / 4 = 16:

# %% mystnb={"image": {"alt": "Four bar charts, one per head, of query token 0's attention weights over the 100 keys, with the uniform weight 1/100 dashed; each head has its tall bars on different keys"}}
heads = 4
head_dim = dim // heads
with torch.no_grad():
    q4, k4, v4 = (
        qkv(x).reshape(batch, n_tokens, 3, heads, head_dim).permute(2, 0, 3, 1, 4)
    )  # each (B, 4, N, 16)
    w4 = (q4 @ k4.transpose(-2, -1) * head_dim**-0.5).softmax(-1)  # (B, 4, N, N)
    o4 = w4 @ v4  # (B, 4, N, 16)
    glued = o4.transpose(1, 2).reshape(batch, n_tokens, dim)  # the right merge: (B, N, 4, 16) -> (B, N, 64)
    out4 = proj(glued)  # (B, N, 64)
print(
    f"head_dim {head_dim}: Q per head {tuple(q4.shape)}, weights {tuple(w4.shape)}, "
    f"per-head output {tuple(o4.shape)}"
)
print(f"glued back: {tuple(glued.shape)}, projected: {tuple(out4.shape)}")

fig, axes = plt.subplots(heads, 1, figsize=(12, 6), sharex=True, sharey=True, layout="constrained")
for i, ax in enumerate(axes):
    ax.bar(range(n_tokens), w4[0, i, 0].cpu(), width=1.0, color=f"C{i}")  # query 0's row: 100 weights
    ax.axhline(1 / n_tokens, color="black", ls="--", lw=1)  # the uniform weight 1/100
    ax.set_ylabel(f"head {i}")
axes[0].set_title("Item 0, query token 0: its attention weight on each of the 100 keys, one panel per head")
axes[-1].set_xlabel("key token")
fig.supylabel("attention weight (dashed: uniform 1/100)")
plt.show()
for i in range(heads):
    top = w4[0, i, 0].topk(3)
    print(
        f"head {i}: query 0's three largest weights on keys {top.indices.tolist()}, "
        f"{top.values.max() * n_tokens:.1f} times uniform at most"
    )

# %% [markdown]
# Each panel is one head's row of weights for the same query, token 0 of item 0, over all 100 keys. The dashed
# line is the uniform weight 1/100. Look at where the tall bars are: they sit on different keys in each head
# (the printed keys). Each head computes its own weights from its own 16 channels, so one query gets four
# different mixes of the values. The tokens and the parameters are random, so the peaks mean nothing yet; what
# a trained head attends to is notebook 13's subject.

# %% [markdown]
# ### The sources' notation
#
# The Transformer paper (Vaswani et al., 2017, "Attention Is All You Need", Section 3.2.2) writes the layer
# as below; the lecture slides quote it from PyTorch's documentation of `nn.MultiheadAttention`:
#
# $$\text{MultiHead}(Q, K, V) = \text{Concat}(\text{head}_1, \dots, \text{head}_h)\,W^O, \qquad
# \text{head}_i = \text{Attention}(QW_i^Q, KW_i^K, VW_i^V).$$
#
# In *self-attention*, the only kind in this course, $Q$, $K$ and $V$ are all the same tokens $X$. Each head
# has its own $D \times \text{head\_dim}$ matrices $W_i^Q$, $W_i^K$, $W_i^V$; Concat glues the heads side by
# side, and $W^O$ is `proj.weight.T`. The sources number the heads from 1; we count from 0, as Python indexes,
# so our $W_2^Q$ is the sources' $W_3^Q$, the third head.
#
# Where are the $W_i$ in our code? `nn.Linear` computes $x W^\top + b$, and `qkv.weight` has $3D$ rows: the q
# block, then the k block, then the v block, each cut head by head. So $W_i^Q$ is rows
# $i \cdot \text{head\_dim}$ to $(i + 1) \cdot \text{head\_dim} - 1$ of the q block, transposed (the slice
# `i * head_dim : (i + 1) * head_dim`). The cell checks that for head 2, with head 2's rows of the qkv bias
# (zeros here) added; the formula leaves the biases out.

# %%
i, rows = 2, slice(2 * head_dim, 3 * head_dim)  # head i = 2: its rows inside each block of qkv.weight
w_q, w_k, w_v = qkv.weight.detach().chunk(3)  # each (D, D): the q, k and v blocks
b_q, b_k, b_v = qkv.bias.detach().chunk(3)  # each (D,)
with torch.no_grad():
    q_h = x @ w_q[rows].T + b_q[rows]  # (B, N, head_dim): X W_2^Q
    k_h = x @ w_k[rows].T + b_k[rows]
    v_h = x @ w_v[rows].T + b_v[rows]
    head_2 = ((q_h @ k_h.transpose(-2, -1)) * head_dim**-0.5).softmax(-1) @ v_h  # (B, N, head_dim)
    concat = torch.cat([o4[:, j] for j in range(heads)], dim=-1)  # (B, N, D): Concat(head_0, ..., head_3)
print(
    f"W_{i}^Q: rows {rows.start} to {rows.stop - 1} of qkv.weight's q block (slice {rows.start}:{rows.stop}), "
    f"transposed: {tuple(w_q[rows].T.shape)}"
)
print(
    f"head {i} from its own matrices = head {i} of the reshape: {torch.allclose(head_2, o4[:, i], atol=1e-5)}"
)
print(f"Concat(heads) = the merge: {torch.equal(concat, glued)}")
print(f"W^O is proj.weight.T, of shape {tuple(proj.weight.T.shape)} (a shape, not a check)")
assert torch.allclose(head_2, o4[:, 2], atol=1e-5) and torch.equal(concat, glued)

# %% [markdown]
# ### Parameters and multiply-adds
#
# Heads cost no extra parameters. There is one qkv layer, $3D^2 + 3D$ numbers with its bias, and one `proj`,
# $D^2 + D$, whatever $h$ is.

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
# We count work in *multiply-adds*: an $a \times b$ matrix times a $b \times c$ one takes $abc$ of them, so a
# linear layer from token length $L_\text{in}$ to length $L_\text{out}$, on $N$ tokens, takes
# $N L_\text{in} L_\text{out}$ ([what is counted](#Evidence:-what-a-multiply-add-counts)).

# %% [markdown]
# ### Exercise 2 (predict): what more heads cost
#
# The walk-through used 4 heads. Take 16 heads instead on the same layer: $D$ = 64, $N$ = 100 tokens, one
# item. Predict before you read on.
#
# - (a) What grows when the layer goes from 4 heads to 16? Set `what_grows` to one letter.
#   - **a.** the parameters of `qkv` and `proj`
#   - **b.** the multiply-adds of the scores $QK^\top$
#   - **c.** the number of attention weights
#   - **d.** both b and c
#   - **e.** none of them: only the reshape and the scale change
# - (b) Back your choice with two counts over all 16 heads: the multiply-adds of $QK^\top$
#   (`answer_scores_macs`) and the number of attention weights (`answer_weight_entries`). Work them out from
#   the shapes each head multiplies, not by running a layer.

# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "heads_scores_macs-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
what_grows = None  # one of "a", "b", "c", "d", "e"
answer_scores_macs = None  # replace None with a whole number
answer_weight_entries = None  # replace None with a whole number
### BEGIN SOLUTION
# The parameters do not depend on the heads, and QK^T costs N^2 D in all (below): only the weights grow, 4-fold.
what_grows = "c"
# (a) Each head multiplies an N x head_dim matrix by a head_dim x N one: N * N * head_dim = 100 * 100 * 4. The 16
# heads together: 16 * 100 * 100 * 4 = N^2 D, as with one head of width D.
answer_scores_macs = 16 * 100 * 100 * 4
# (b) Each head has its own N x N weights: 16 * 100 * 100, 16 times one head's.
answer_weight_entries = 16 * 100 * 100
### END SOLUTION

# %% nbgrader={"grade": false, "grade_id": "heads_scores_macs-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.heads_growth_choice(what_grows)
check.heads_scores_macs(answer_scores_macs)
check.heads_weight_entries(answer_weight_entries)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "heads_growth_choice-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.heads_growth_choice, what_grows)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "heads_scores_macs-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.heads_scores_macs, answer_scores_macs)
### END HIDDEN TESTS

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "heads_weight_entries-test", "locked": true, "points": 1, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.heads_weight_entries, answer_weight_entries)
### END HIDDEN TESTS

# %% [markdown]
# ### After Exercise 2

# %% [markdown]
# The scores' multiply-adds and the weights, counted from the shapes the layer really makes:

# %%
for h in (
    1,
    4,
    16,
):  # the scores' multiply-adds from the shapes of q and k; the weights as the layer returns them
    with torch.no_grad():
        _, heads_steps = Attention(dim, num_heads=h, qkv_bias=True).steps(torch.zeros(1, n_tokens, dim))
    _, n_heads, n_q, per_head = heads_steps.q.shape  # (1, heads, N, head_dim)
    print(
        f"{h:2d} head(s): QK^T {n_heads * n_q * n_q * per_head:,} multiply-adds; "
        f"weights {tuple(heads_steps.weights.shape)}, {heads_steps.weights.numel():,} entries"
    )

# %% [markdown]
# ### What one attention layer costs
#
# The *products* are the two matrix products that have no parameters: the scores $QK^\top$ and weights @ V.
# On $N$ tokens, qkv costs $3ND^2$ and `proj` $ND^2$. The scores cost each of the $h$ heads
# $N \cdot N \cdot (D/h)$, so $h \cdot N^2 (D/h) = N^2 D$ over all heads: cutting into heads adds no
# multiply-adds to the products. Weights @ V costs another $N^2D$. In total
# $3ND^2 + N^2D + N^2D + ND^2 = 4ND^2 + 2N^2D$. The scaling and the softmax are left out: they take a few
# operations per weight; but there are $hN^2$ weights, $h$ times as many as with one head.
#
# `vitcourse.cost.count_macs` runs a forward pass and counts `qkv` and `proj` from the shapes that reach them
# (`depth=1`: one line per layer of the model). The products are not layers, so it adds $2N^2D$ from the
# formula: only the qkv and proj lines below are independent checks.

# %%
layer = Attention(dim, num_heads=4, qkv_bias=True)
counted = count_macs(layer, torch.zeros(1, n_tokens, dim), depth=1)  # one item
# count_macs files the two products, which belong to no layer, under the name "(model)"
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
# Notebook 06 adds the MLP to make an encoder block, and notebook 07 counts a whole block's cost.

# %% [markdown]
# ## 2. The package's attention, checked three ways (15 min)
#
# `vitcourse.attention.Attention` has two paths. `steps(x)` returns the output and every intermediate: `q`,
# `k`, `v`, the scaled `scores`, the `weights`, the `heads` (weights @ V) and `merged`.
#
# The *fused* path, `forward`, makes one call, PyTorch's `F.scaled_dot_product_attention`, for the scores, the
# softmax and weights @ V. On a GPU its fastest routines, such as FlashAttention (Dao et al., 2022), never
# store the whole N × N matrix of weights.
#
# We copy our parameters in and compare: the step path with our hand-built heads, the fused path with the
# step path, and PyTorch's function with our weights @ V.

# %%
att = Attention(dim, num_heads=4, qkv_bias=True).to(device)
with torch.no_grad():
    att.qkv.load_state_dict(qkv.state_dict())
    att.proj.load_state_dict(proj.state_dict())
    step_out, steps = att.steps(x)
    fused_out = att(x)
    sdpa_heads = F.scaled_dot_product_attention(steps.q, steps.k, steps.v)  # (B, heads, N, head_dim)
for name, t in steps._asdict().items():
    print(f"steps.{name:8s} {tuple(t.shape)}")
checks = {
    "step path = our 4 heads by hand": torch.allclose(step_out, out4, atol=1e-5),
    "fused path = step path": torch.allclose(fused_out, step_out, atol=1e-5),
    "F.scaled_dot_product_attention = weights @ V": torch.allclose(sdpa_heads, steps.heads, atol=1e-5),
}
for name, ok in checks.items():
    print(f"{name:46s} {ok}")
assert all(checks.values())

# %% [markdown]
# Next, PyTorch's layer. `nn.MultiheadAttention` keeps the three matrices packed in one `in_proj_weight`, rows
# q, then k, then v: the same layout as our `qkv.weight`, so the copy goes row for row. $W^O$ is its
# `out_proj`. Two defaults differ from ours. With `batch_first=False`, the default, it expects
# (tokens, batch, D), so we pass `batch_first=True`. And it returns the weights averaged over the heads,
# unless `average_attn_weights=False`.

# %%
mha = nn.MultiheadAttention(dim, 4, bias=True, batch_first=True).to(device)
with torch.no_grad():
    mha.in_proj_weight.copy_(qkv.weight)
    mha.in_proj_bias.copy_(qkv.bias)
    mha.out_proj.load_state_dict(proj.state_dict())
    ref, ref_weights = mha(x, x, x, average_attn_weights=False)  # (B, N, D), (B, heads, N, N)
    _, mean_weights = mha(x, x, x)  # the default: (B, N, N), averaged over the heads
mha_checks = {
    "nn.MultiheadAttention output = ours": torch.allclose(ref, step_out, atol=1e-5),
    "nn.MultiheadAttention weights = ours": torch.allclose(ref_weights, steps.weights, atol=1e-5),
    "its default weights = the mean over our heads": torch.allclose(
        mean_weights, steps.weights.mean(1), atol=1e-5
    ),
}
for name, ok in mha_checks.items():
    print(f"{name:46s} {ok}")
assert all(mha_checks.values())

# %% [markdown]
# Last, Exercise 1's merge. With our `proj` it gives a different output from `nn.MultiheadAttention`. But it
# only moves channels: the buggy merge puts at channel $j$ the number that the right merge puts at channel
# `order[j]`. `proj` multiplies channel $j$ by its weight column $j$. So if we take `proj`'s columns in the
# same order, `proj.weight[:, order]`, each number meets the column it met before, and the output is right
# again. `F.linear(x, weight, bias)` is the product `x @ weight.T + bias` that `nn.Linear` computes.

# %%
order = merge_heads_buggy(torch.arange(dim).reshape(1, heads, 1, head_dim))[0, 0].to(device)  # (D,)
print(f"order[:6] = {order[:6].tolist()}: the right merge's channels that the buggy merge puts at 0 to 5")
with torch.no_grad():
    buggy_out = att.proj(merge_heads_buggy(steps.heads))  # Exercise 1's merge in place of the right one
    reordered_out = F.linear(merge_heads_buggy(steps.heads), att.proj.weight[:, order], att.proj.bias)
buggy_same = torch.allclose(ref, buggy_out, atol=1e-5)
reordered_same = torch.allclose(ref, reordered_out, atol=1e-5)
print(f"buggy merge, our proj: same output as nn.MultiheadAttention? {buggy_same}")
print(f"buggy merge, proj's columns taken in that order: same output? {reordered_same}")
assert reordered_same and not buggy_same

# %% [markdown]
# ### Exercise 3 (code): attention with the tokens first
#
# Everything above keeps the heads before the tokens. Some libraries keep the tokens first: FlashAttention's
# `flash_attn_func` takes q, k and v of shape (B, N, heads, head_dim).
#
# Write `attention_tokens_first(q, k, v)` for that layout. Each head attends over the tokens, with the scale
# $1/\sqrt{\text{head\_dim}}$, and the result keeps the inputs' layout. Do not call
# `F.scaled_dot_product_attention`: the check uses it as the reference.
#
# You may move the axes yourself, or use `torch.einsum`. It names each input's axes by letters and sums over
# every letter that the output leaves out: `torch.einsum("ij,j->i", A, x)` is the matrix-vector product
# `A @ x`.


# %% jupyter={"source_hidden": true} nbgrader={"grade": false, "grade_id": "attention_function-answer", "locked": false, "schema_version": 3, "solution": true, "task": false} tags=["solution"]
def attention_tokens_first(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    ### BEGIN SOLUTION
    # b batch, n query token, m key token, h head, d channel of a head
    scores = torch.einsum("bnhd,bmhd->bhnm", q, k) / math.sqrt(q.shape[-1])  # (B, heads, N, N)
    return torch.einsum("bhnm,bmhd->bnhd", scores.softmax(dim=-1), v)  # softmax over the keys m
    ### END SOLUTION


# %% nbgrader={"grade": false, "grade_id": "attention_function-check", "locked": true, "schema_version": 3, "solution": false, "task": false}
check.attention_function(attention_tokens_first)

# %% jupyter={"source_hidden": true} nbgrader={"grade": true, "grade_id": "attention_function-test", "locked": true, "points": 2, "schema_version": 3, "solution": false, "task": false}
# Grading cell for nbgrader: its hidden test runs the check above and fails if the answer is wrong.
### BEGIN HIDDEN TESTS
check.require(check.attention_function, attention_tokens_first)
### END HIDDEN TESTS

# %% [markdown]
# ## 3. Attention on the picture (5 min)
#
# Now the picture's 15 patch tokens, projected to 64 channels (notebook 01) and layer-normed, go through a
# 4-head attention with random parameters. Each heat map shows one head's 15 weights for the query patch 7, on
# the 3 × 5 patch grid.
#
# Random parameters know nothing of mountains, but the weights depend on the tokens' *content*. The picture's
# tokens are very alike, by their mean cosine similarity (notebook 03; printed below). Alike tokens give alike
# keys, so a query's scores differ little, and we expect flatter weights than on the walk-through's random
# tokens. (The Evidence tests this on random tokens made more and more alike.)

# %%
picture = load_mountains()
image = vitcourse.to_tensor(picture).to(device)
torch.manual_seed(0)
embed = tokens.PatchTokenizer(picture.shape, 20, 1, 64).to(device)
att_pic = Attention(64, num_heads=4, qkv_bias=True)
nn.init.normal_(att_pic.qkv.weight, std=64**-0.5)  # drawn on the CPU, then moved
att_pic = att_pic.to(device)
query = 7  # patch 7, the middle of the picture (row 1, column 2 of the 3 x 5 grid, counted from 0)
with torch.no_grad():
    picture_tokens = F.layer_norm(embed(image), (64,))  # (1, 15, 64)
    _, pic_steps = att_pic.steps(picture_tokens)
pic_weights = pic_steps.weights[0, :, query].cpu()  # (heads, 15)
vs_uniform = pic_steps.weights[0].cpu() * 15  # (heads, 15, 15): every weight over the uniform 1/15
print(
    f"every row of every head: weights from {vs_uniform.min():.2f} to {vs_uniform.max():.2f} times the "
    "uniform 1/15"
)
print(
    f"the walk-through's random tokens, for comparison: up to {w4.max() * n_tokens:.1f} times the uniform 1/100"
)
assert (pic_steps.weights > 0).all() and torch.allclose(
    pic_steps.weights.sum(-1), torch.ones(1, 4, 15).to(device)
)

unit_tokens = F.normalize(picture_tokens[0], dim=-1)  # (15, 64)
cosines = unit_tokens @ unit_tokens.T  # (15, 15)
picture_cosine = cosines[~torch.eye(15, dtype=torch.bool, device=cosines.device)].mean().item()
print(
    f"the picture's 15 tokens: mean cosine similarity {picture_cosine:.2f} over the pairs of different tokens"
)

# %% mystnb={"image": {"alt": "The picture with its 15 patches numbered 0 to 14 and patch 7 outlined, beside four 3 by 5 heat maps, one per random head, giving patch 7's attention weight on each patch, values written in"}}
grid = pic_weights.reshape(4, 3, 5)  # (heads, patch rows, patch columns)
fig, axd = plt.subplot_mosaic(
    [["pic", "h0", "h1"], ["pic", "h2", "h3"]],
    figsize=(14, 5),
    width_ratios=[1.6, 1, 1],
    layout="constrained",
)
plots.show_picture(picture, ax=axd["pic"], title="the picture (pixels), patches 0-14", colorbar=False)
plots.draw_patch_grid(axd["pic"], 60, 100, 20)
axd["pic"].add_patch(Rectangle((40, 20), 20, 20, fill=False, ec="cyan", lw=2.5))  # patch 7
head_axes = [axd[f"h{i}"] for i in range(4)]
for i, ax in enumerate(head_axes):
    plots.show_grid_values(
        grid[i], ax=ax, title=f"head {i}: weights of patch 7", vmax=float(grid.max()), colorbar=False
    )  # one colour range for the four heads
    ax.add_patch(Rectangle((1.5, 0.5), 1, 1, fill=False, ec="cyan", lw=2.5))  # patch 7: row 1, column 2
bar = fig.colorbar(head_axes[0].images[0], ax=head_axes, fraction=0.04, pad=0.02, label="attention weight")
bar.ax.axhline(1 / 15, color="cyan", lw=3)  # the uniform weight 1/15
fig.suptitle("Random 4-head attention of patch 7 (outlined) over the 15 patches; cyan line: uniform 1/15")
plt.show()
print(
    f"patch 7's weights, all four heads: from {pic_weights.min():.3f} to {pic_weights.max():.3f}; "
    f"uniform 1/15 = {1 / 15:.3f}"
)

# %% [markdown]
# Read each map against the cyan line on the colour bar, the uniform $1/15 \approx 0.07$. Patch 7's weights
# stay between 0.033 and 0.118 in all four heads (printed under the figure): less than twice uniform. Head 2 is
# the flattest: all its cells sit close to 0.07. No head comes near the weight 1 of a head fixed on one patch.
# Over every row of every head the weights stay between 0.45 and 2.32 times uniform, where the walk-through's
# random tokens reached 70 times uniform. That fits the reason above: alike tokens, alike keys, flat weights.
# For this one random layer, random tokens just as alike give about as flat weights ([random tokens beside the
# picture's tokens](#Evidence:-random-tokens-beside-the-picture-tokens)). [The
# explorer](#Evidence:-more-to-try:-the-attention-explorer) lets you change the scale, a temperature (a number
# that divides the scores) and the number of heads yourself.

# %% [markdown]
# ## Summary
#
# - $h$ heads cut the $D$ channels of q, k and v into groups of head_dim $= D/h$; each head attends on its own,
#   with head_dim in the scale. The outputs are glued back head 0 first, and `proj` ($W^O$) mixes them. A merge
#   in the wrong order passes a shape check; labelled entries catch it.
# - More heads cost no parameters and no multiply-adds in the products, but $h$ times as many weights. A layer
#   that keeps the token length costs $4ND^2 + 2N^2D$ multiply-adds.
# - The package's `Attention` gives the same numbers as the heads built by hand, as
#   `F.scaled_dot_product_attention` and as `nn.MultiheadAttention` with the same weights.
# - Random heads on the picture's alike tokens give flat weights. A map of random heads tells nothing of what a
#   model has learned; notebook 13 reads the heads of a trained model.
#
# **Next:** [06 The encoder block](06_encoder_block.ipynb) puts this attention into ViT's encoder block, with a
# layer norm and an MLP.

# %% [markdown]
# ## Evidence: what a multiply-add counts
#
# A multiply-add is one multiplication and the addition that accumulates it. A product of an $a \times b$ matrix
# with a $b \times c$ one takes $abc$ of them: each of the $ac$ entries of the result sums $b$ products. So a
# linear layer from length $L_\text{in}$ to length $L_\text{out}$, applied to $N$ tokens, an $N \times
# L_\text{in}$ matrix, takes $N L_\text{in} L_\text{out}$. Its bias adds only additions, which the count leaves
# out.

# %% [markdown]
# ## Evidence: a layer that changes the token length
#
# The formula $4ND^2 + 2N^2D$ is for a layer whose output tokens have the same length $D$ as its input. T2T's
# first *token transformer* (notebook 08) has an attention layer that changes the token length. Its soft split
# cuts the picture into windows of 7 × 7 pixels (kernel 7, stride 4, padding 2). The layer reads each window's
# 49 pixels and gives tokens of 64 channels, with one head and no bias in qkv:
# `Attention(49, chan=64, num_heads=1, qkv_bias=False)`, where `chan` sets the channels of q, k, v and the
# output ([the official code's version](04_attention.ipynb#Evidence:-the-walk-through-and-its-sources)).
#
# With $L$ the input length and $c$ the channels, qkv costs $3NLc$ and `proj` $Nc^2$, while the two products
# cost $2N^2c$. So the ratio is $2Nc / (3Lc + c^2)$: it grows as $N$ does. A picture twice as tall and twice
# as wide, 120 × 200 pixels, gives about 4 times the tokens, so about 4 times the ratio. The ratio passes 1 when
# $N > (3L + c)/2 = 105.5$, so from 106 tokens on. (The threshold $2D$ applies only to a layer that keeps the
# length.)
# Counted on the layer (`count_macs` counts qkv and `proj`, and adds the products from the formula):

# %%
first_split = tokens.count_tokens(60, 100, kernel=7, stride=4, padding=2)
print(
    f"T2T's first soft split of the 60 x 100 picture: {first_split.rows} x {first_split.cols} = "
    f"{first_split.total} tokens of length 49"
)

# %%
t2t_layer = Attention(49, chan=64, num_heads=1, qkv_bias=False)
t2t_ratio = {}
for height, width in ((60, 100), (120, 200)):
    split_n = tokens.count_tokens(height, width, kernel=7, stride=4, padding=2).total
    t2t_macs = count_macs(t2t_layer, torch.zeros(1, split_n, 49), depth=1)  # one item
    t2t_ratio[height] = t2t_macs["(model)"] / (t2t_macs["qkv"] + t2t_macs["proj"])
    print(
        f"{height} x {width}: {split_n:5,d} tokens; QK^T and weights @ V {t2t_macs['(model)']:13,d}, "
        f"qkv + proj {t2t_macs['qkv'] + t2t_macs['proj']:11,d}; products / layers {t2t_ratio[height]:.3f}"
    )
print(f"the ratio grows {t2t_ratio[120] / t2t_ratio[60]:.2f} times")
assert abs(t2t_ratio[120] / t2t_ratio[60] - 4) < 0.1
for split_n in (105, 106):
    t2t_macs = count_macs(t2t_layer, torch.zeros(1, split_n, 49), depth=1)
    split_ratio = t2t_macs["(model)"] / (t2t_macs["qkv"] + t2t_macs["proj"])
    print(f"{split_n} tokens: products / layers {split_ratio:.3f}")
    assert (split_ratio > 1) == (split_n == 106)

# %% [markdown]
# The picture's 375 tokens lie far past 106: for them the products already cost 3.555 times as much as qkv
# and `proj`. The same growth at a real model's sizes, ViT-B from 224 to 384 pixels, is worked out next.

# %% [markdown]
# ## Evidence: the cost of ViT-B at a larger image size
#
# The Evidence above showed how the products-to-layers ratio grows on T2T's first layer. Here is the
# same count at the sizes of a real model. ViT-B/16 is the ViT paper's Base model with patches of 16 × 16 pixels, and
# notebook 07 counts its cost. It cuts a 224 × 224 image into such patches, one token each, and puts the
# prediction token in front (notebook 03 introduced it; notebook 06 builds it in). ViT-B/16 has 12 heads and
# $D$ = 768. The paper's Table 5 reports such models trained on 224 × 224 images and then trained further at
# 384 × 384 (Dosovitskiy et al., 2021).
#
# Every head compares every token with every token, so $QK^\top$ grows with the square of the token count:
# from 197 to 577 tokens (here $N$ counts the prediction token too), that is $(577/197)^2 \approx 8.58$ times.

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

# %% [markdown]
# The multiply-adds of one layer follow: the linear layers grow with the tokens, the products with their square,
# so their ratio, $2N^2D / 4ND^2 = N / (2D)$, grows as the token count does, as on T2T's layer above.

# %%
d_base = 768  # ViT-B's token length
macs = {}
for side in (224, 384):
    n = tokens.count_tokens(side, side, 16, 16, 0).total + 1
    macs[side] = (4 * n * d_base**2, 2 * n * n * d_base)  # (qkv + proj, QK^T + weights @ V), one layer
print(
    "one layer, one image, from 224 x 224 to 384 x 384: "
    f"qkv + proj grow {macs[384][0] / macs[224][0]:.3f} times, "
    f"QK^T + weights @ V {macs[384][1] / macs[224][1]:.3f} times"
)
for side in (224, 384):
    print(f"{side} x {side}: products / linear layers = N / (2D) = {macs[side][1] / macs[side][0]:.2f}")
print(f"the products cost more than the linear layers only when N > 2D = {2 * d_base:,} tokens")
assert all(macs[side][1] < macs[side][0] for side in (224, 384))


# %% [markdown]
# ## Evidence: random tokens beside the picture tokens
#
# Section 3 expects alike tokens to give flatter weights than tokens unlike each other. Here is the test.
# The measure of flatness: take each of the layer's 4 heads × 15 rows, and divide its largest weight by the
# uniform 1/15 (a uniform row gives 1). The *median row* is the median of these 60 values (the lower of the two
# middle ones), a typical row. For
# random tokens it is averaged over 20 draws; the picture is one draw. How alike tokens are is measured by
# their mean cosine similarity over all pairs (notebook 03).
#
# The same random layer runs on 15 random tokens made more and more alike: one shared random direction per
# draw, plus noise for each token, layer-normed as the picture's tokens are. At mean cosine 0 they are
# independent standard normal tokens, layer-normed. The last row uses random tokens as alike as the picture's.


# %%
def mean_cosine(t: torch.Tensor) -> torch.Tensor:
    """(B, N, D) tokens -> (B,): each item's mean cosine similarity over its pairs of different tokens."""
    unit = F.normalize(t, dim=-1)  # (B, N, D)
    cos = unit @ unit.transpose(-2, -1)  # (B, N, N)
    return cos[:, ~torch.eye(t.shape[1], dtype=torch.bool, device=t.device)].mean(-1)


def median_over_uniform(t: torch.Tensor) -> tuple[float, float]:
    """(B, 15, 64) tokens -> the median row's largest weight over the uniform 1/15 (mean over the items), and
    the largest over every row and item."""
    with torch.no_grad():
        _, st = att_pic.steps(t.to(device))
    rows = (st.weights.amax(-1) * 15).flatten(1).cpu()  # (B, heads * 15)
    return rows.median(-1).values.mean().item(), rows.max().item()


draws, token_gen = 20, torch.Generator().manual_seed(1)
shared = torch.randn(draws, 1, 64, generator=token_gen)  # one shared direction per draw
noise = torch.randn(draws, 15, 64, generator=token_gen)


def alike_tokens(c: float) -> torch.Tensor:
    """20 draws of 15 layer-normed random tokens whose mean cosine similarity is about ``c`` (0 <= c < 1)."""
    return F.layer_norm(math.sqrt(c) * shared + math.sqrt(1 - c) * noise, (64,))  # (20, 15, 64)


picture_alike = mean_cosine(picture_tokens).item()
levels = [0.0, 0.5, 0.8, 0.95]
compared = {"the picture's 15 tokens": picture_tokens}
compared |= {f"random tokens, alikeness {c:.2f}": alike_tokens(c) for c in levels}
compared["random tokens as alike as the picture's"] = alike_tokens(min(max(picture_alike, 0.0), 0.99))
print(
    "each row's largest weight over the uniform 1/15: the median row (mean over the draws) and the largest row"
)
print(f"{'tokens':42s} {'mean cosine':>11s} {'median row':>11s} {'largest row':>11s}")
median_row = {}
for name, t in compared.items():
    median_row[name], largest = median_over_uniform(t)
    cosine = round(mean_cosine(t).mean().item(), 2) + 0.0  # + 0.0: no "-0.00"
    print(f"{name:42s} {cosine:11.2f} {median_row[name]:11.2f} {largest:11.2f}")
sweep = [median_row[f"random tokens, alikeness {c:.2f}"] for c in levels]
assert all(a > b for a, b in zip(sweep, sweep[1:], strict=False))  # more alike tokens, flatter weights
matched, on_picture = (
    median_row["random tokens as alike as the picture's"],
    median_row["the picture's 15 tokens"],
)
print(
    f"random tokens as alike as the picture's give a median row {matched:.2f}; the picture's tokens give "
    f"{on_picture:.2f}, {abs(on_picture / matched - 1):.0%} {'above' if on_picture > matched else 'below'} it"
)

# %% [markdown]
# On random tokens, the more alike they are, the closer to uniform the weights stay, at every level of the
# sweep. The last line compares the picture's tokens with random tokens just as alike: their median rows are
# almost equal. (Their largest rows, 2.32 and 3.69, do not compare: one is the largest of 60 rows, the other
# the largest of 20 draws × 60 rows.) So, for this one random layer, tokens as alike as
# the picture's give about as flat a typical row.
#
# **Identical patches, identical weights.** No position embedding is added in section 3, so two identical
# patches give identical keys, and every query weighs them alike. The cell checks that by copying one patch
# over another: the picture's two most alike patches, found by their mean pixel difference. It then prints
# patch 7's weights on those two patches in the original picture, and their gap beside the mean gap over all
# pairs of patches. A gap far below the mean (the last line) says that nearly identical patches get nearly
# equal weights too.

# %%
raw_patches = tokens.patchify(vitcourse.to_tensor(picture), 20)[0]  # (15, 400)
pixel_gaps = torch.cdist(raw_patches, raw_patches, p=1) / raw_patches.shape[1]  # (15, 15): mean |difference|
pixel_gaps.fill_diagonal_(float("inf"))  # a patch is not compared with itself
alike = sorted(divmod(int(pixel_gaps.argmin()), 15))  # the indices of the two most alike patches
pa, pb = alike  # their patch numbers, counted from 0 as the indices are
copied = raw_patches.clone()
copied[alike[1]] = raw_patches[alike[0]]  # patch pb made an exact copy of patch pa
with torch.no_grad():
    _, copy_steps = att_pic.steps(F.layer_norm(embed.proj(copied[None].to(device)), (64,)))
copy_weights = copy_steps.weights[0].cpu()  # (heads, 15, 15)
copy_gap = (copy_weights[..., alike[0]] - copy_weights[..., alike[1]]).abs().max().item()
print(
    f"patch {pb} replaced by a copy of patch {pa}: every query's weights on the two differ by at most {copy_gap:.1e}"
)
assert copy_gap < 1e-5  # identical patches, identical weights: true of any picture

gap = (raw_patches[alike[0]] - raw_patches[alike[1]]).abs()  # (400,), pixel by pixel
print(
    f"the picture's most alike patches: {pa} and {pb}; {(gap > 0).sum().item()} of {gap.numel()} pixels "
    f"differ, mean difference {gap.mean():.4f}"
)
for i in range(4):
    print(
        f"head {i}: weight of patch 7 on patch {pa} {pic_weights[i, alike[0]]:.3f}, on patch {pb} "
        f"{pic_weights[i, alike[1]]:.3f}; its weights range from {pic_weights[i].min():.3f} to "
        f"{pic_weights[i].max():.3f}"
    )
alike_gap = (pic_weights[:, alike[0]] - pic_weights[:, alike[1]]).abs().mean()  # mean over the heads
all_gaps = (pic_weights[:, :, None] - pic_weights[:, None, :]).abs()  # (heads, 15, 15): every pair of patches
typical_gap = all_gaps.sum((1, 2)).mean() / (15 * 14)  # mean over the heads and the pairs of two patches
print(
    f"gap between the weights on patches {pa} and {pb}: {alike_gap:.4f} (mean over the heads), "
    f"{alike_gap / typical_gap:.2f} times the mean gap over all pairs of patches ({typical_gap:.4f})"
)


# %% [markdown]
# ## Evidence: more to try: the attention explorer
#
# An optional play with attention on the picture. It is not section 3's layer: the explorer takes the
# picture's 15 raw patches, 400 pixels each, layer-normed without a patch projection, and runs its own seeded
# attention layer on them (400 channels in, 64 for q, k and v). It draws the weights of up to 8 heads, with the
# mean entropy of their rows (notebook 04): $\ln 15 \approx 2.71$ nats for uniform weights, 0 for one-hot
# rows. Entropy measures flatness on the whole row, where the Evidence above looked only at a row's largest
# weight. Its colour scale is a square root, so that small weights stay visible beside large ones. The weights
# are $\mathrm{softmax}(QK^\top \cdot \text{scale} / T)$: a *temperature* $T < 1$ sharpens them, $T > 1$
# flattens them.
#
# **Predict, then play.** It starts with 4 heads, the scale $1/\sqrt{\text{head\_dim}}$ and $T$ = 1. Write
# down your guesses, then try them.
# 1. Drop the scale: set it to none. With 16 channels per head, the scores become $\sqrt{16}$ = 4 times as
#    large. Does the mean entropy move towards one-hot (0) or stay near uniform (2.71)?
# 2. At $T$ = 0.1 and at $T$ = 10: how close to one-hot, and how close to uniform?
# 3. With 16 heads, each compares the tokens on 4 channels, with the scale 1/2. Close to the 4 heads' value, to
#    uniform, or to one-hot?

# %%
from vitcourse import widgets

widgets.attention_explorer(picture)

# %% [markdown]
# ### After playing

# %% [markdown]
# The explorer's text line for each setting:

# %%
for setting in [{}, {"scale": "none"}, {"temperature": 0.1}, {"temperature": 10.0}, {"heads": 16}]:
    print(setting, "->", widgets.attention_view(picture, **setting)[1])
assert widgets.attention_view(picture, temperature=0.0)[0] is None  # T must be > 0

# %% [markdown]
# Dropping the scale multiplies the scores by 4, as a temperature of 1/4 would: the mean entropy falls from 2.32
# to 0.91 nats, towards one-hot. $T$ = 0.1 multiplies them by 10 and goes further, to 0.41. $T$ = 10 divides
# them by 10, and the rows are almost uniform: 2.70 against 2.71. With 16 heads the entropy, 2.39, stays close
# to the 4 heads' 2.32. Each head's score sums over 4 channels instead of 16, so its spread would shrink; the
# scale $1/\sqrt{\text{head\_dim}}$, 1/2 instead of 1/4, makes up for it, and each head's scores keep about
# the same spread.
