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
# # 15 · Appendix: errata of the sources
#
# **Time:** about 45 minutes
#
# **Before this:** notebooks 01–14, which build and train what these entries correct.
#
# This appendix corrects five pieces of teaching material, listed below. Each is a useful guide with slips.
#
# By the end you can
#
# - name each slip in these five and say what is right instead;
# - tell a slip from a deliberate difference between a source and the official code;
# - read how each entry is checked, with a cell of a few lines, so you can check the next slip the same way.
#
# There are no exercises here. Read an entry when a source and the course disagree, or read them all. The
# Evidence sections quote each source's own lines and hold the longer checks: optional, about 50 more minutes.

# %% [markdown]
# ## Reading this appendix (6 min)
#
# The five sources:
#
# - **The article series "Vision Transformers Explained"** by Skylar Jean Callis, four articles in *Towards Data
#   Science*, February 2024: on ViT, attention, position embeddings and Tokens-to-Token. Each builds its model in
#   PyTorch, mostly on a 60 × 100 crop of Luis Zuno's pixel-art *Mountain at Dusk*, which the course redraws.
# - **The lecture slides "ViT (Vision Transformer)"**: the ViT paper's equations beside short PyTorch snippets.
# - **Three short write-ups of the ViT paper**: the *MyViT* equations, notes on the ViT preprint, and Chi Yeong
#   Heo's lab report on timm's ViT-B/16 (timm: a PyTorch library of image models).
#
# Where they disagree with the ViT and T2T-ViT papers and their official code, the course follows the papers.
# The articles and the course say *prediction token*; the paper, the slides and the lab report say *class token*.
#
# How to use it:
#
# - Each entry gives what the source says, what is right, and a short cell that shows it. The entry's Evidence
#   quotes the source's own line.
# - Entries are numbered in each source's order. Each is one of four kinds. *Breaks the code*: it fails, or
#   would with other sizes. *Wrong idea*: it runs but teaches something false. *Cosmetic*: a name, a printed
#   line or a notation. *Not a slip*: a *trap* (right, but easy to misuse) or a *difference* from the official
#   code. Entry headings name the kind when it is not a wrong idea or a broken line.
# - Most cosmetic entries get one row in a small table at the end of their section, which is why the numbers
#   skip (1.3, then 1.5). Their cells are in [Evidence: the cosmetic entries](#Evidence:-the-cosmetic-entries).
# - Read first the entries that stop a model from being built or run (1.1, 1.2, 1.5, 4.1) and those that teach
#   a wrong idea (1.6, 3.3, 5.3). [Evidence: the entries ranked](#Evidence:-the-entries-ranked) sorts all 41.

# %%
import contextlib
import inspect
import io
import textwrap

import matplotlib.pyplot as plt
import torch
import torch.nn.functional as F
from torch import nn

import vitcourse
from vitcourse import load_mountains, plots, tokens
from vitcourse.attention import Attention
from vitcourse.blocks import EncoderBlock, TokenTransformer
from vitcourse.models import T2TViT, TokensToToken, VisionTransformer
from vitcourse.position import sinusoidal_table
from vitcourse.scenes import scramble_patches

torch.manual_seed(0)
device = vitcourse.get_device()
picture = load_mountains()
height, width = picture.shape
image = vitcourse.to_tensor(picture).to(device)  # (1, 1, 60, 100)


def wrap(text: str) -> None:
    """Print a long message folded at 100 characters."""
    print(textwrap.fill(text, width=100, subsequent_indent="    "))


def fixed(value: float, digits: int = 2) -> str:
    """A number rounded to `digits` decimals, never printed as -0.00."""
    return f"{round(value, digits) + 0.0:.{digits}f}"


# %% [markdown]
# ## 1. "Vision Transformers, Explained" (8 min)
#
# The first article builds a ViT step by step, from patch tokens to a prediction.

# %% [markdown]
# ### 1.1 The patch module's default image size
#
# The class `Patch_Tokenization` sets its default image size to four numbers, `(1, 1, 60, 100)`. Its
# constructor unpacks them into three names, so the defaults cannot even build the module. Its default patch
# size, 50, does not divide the height of 60 either. The right default is `(C, H, W) = (1, 60, 100)`, with a
# patch size that divides both sides, such as 20. `vitcourse` checks the sizes and lists the patch sizes that
# fit. [Evidence 1.1](#Evidence-1.1:-default-image-size)

# %%
default_size = (1, 1, 60, 100)  # the article's default image size
try:
    channels, rows, cols = default_size
except ValueError as err:
    print(f"unpacking {default_size} into (C, H, W): {type(err).__name__}")
print(f"patch size 50 divides H = 60: {60 % 50 == 0}, W = 100: {100 % 50 == 0}")
try:
    tokens.PatchTokenizer((60, 100), patch_size=50, in_chans=1, embed_dim=768)
except ValueError as err:
    wrap(f"vitcourse with patch size 50: ValueError: {err}")
tokenizer = tokens.PatchTokenizer((height, width), patch_size=20, in_chans=1, embed_dim=768).to(device)
print(f"vitcourse with (H, W) = ({height}, {width}) and P = 20: {tokenizer.grid}")

# %% [markdown]
# ### 1.2 The patch module's transpose
#
# **Source:** `x = self.split(x).transpose(1,0)` in the patch module's `forward`.
#
# After `nn.Unfold`, the module's `forward` swaps dimensions 1 and 0. But `nn.Unfold` returns
# `(B, P²C, N)`: batch, token length, number of tokens. The linear layer needs the token length last, so
# dimensions 1 and 2 must swap. The article's own walk-through does that, with `transpose(2, 1)`. With
# `transpose(1, 0)` the forward pass fails. [Evidence 1.2](#Evidence-1.2:-the-transpose)

# %%
unfolded = nn.Unfold(kernel_size=20, stride=20)(image)  # (B, P*P*C, N) = (1, 400, 15)
project = nn.Linear(400, 768).to(device)
print(f"after nn.Unfold: {tuple(unfolded.shape)}")
for dims in ((1, 0), (2, 1)):
    swapped = unfolded.transpose(*dims)
    try:
        result = f"projected to {tuple(project(swapped).shape)}"
    except RuntimeError as err:
        result = f"{type(err).__name__}: {err}"
    print(f"transpose{dims}: {tuple(swapped.shape)} -> {result}")
patcher = tokens.PatchTokenizer((height, width), patch_size=20, in_chans=1, embed_dim=768).to(device)
print(f"vitcourse's PatchTokenizer: {tuple(patcher(image).shape)}")

# %% [markdown]
# ### 1.3 The token count stored as a float
#
# The same constructor counts the tokens as `(H / self.patch_size) * (W / self.patch_size)`. Python's `/` always returns a float, so the
# count is 15.0, not 15. A float cannot size a tensor, such as a position table with one row per token. Use `//`
# once the sizes are known to divide. [Evidence 1.3](#Evidence-1.3:-the-float-count)

# %%
as_written = (60 / 20) * (100 / 20)
print(f"(60 / 20) * (100 / 20) = {as_written!r}, a {type(as_written).__name__}")
try:
    torch.zeros(1, as_written + 1, 768)  # a position table with one row per token, plus one
except TypeError as err:
    print(f"a table of {as_written + 1!r} rows: {type(err).__name__}")
print(
    f"(60 // 20) * (100 // 20) = {(60 // 20) * (100 // 20)!r}; "
    f"vitcourse's count: {tokens.PatchTokenizer((60, 100), patch_size=20, in_chans=1, embed_dim=768).num_patches!r}"
)

# %% [markdown]
# ### 1.5 The backbone reads attributes it never sets
#
# **Source:** `nn.Parameter(torch.zeros(1, 1, self.token_len))` in `ViT_Backbone`, which never sets `token_len`.
#
# The class `ViT_Backbone`, the whole model apart from the patch module (prediction token, position table, encoder blocks, final norm and head), builds its prediction token from `self.token_len` and its position table from
# `self.num_tokens`. It assigns neither, so building it stops with an `AttributeError`. It also has no argument
# for the number of tokens, which only the tokenizer knows. In `vitcourse` the model reads that count from its
# tokenizer. [Evidence 1.5](#Evidence-1.5:-unset-attributes)


# %%
class ReadsBeforeSetting(nn.Module):
    """The pattern of the slip in two lines: an attribute read in __init__ that nothing has assigned."""

    def __init__(self, token_len: int) -> None:
        super().__init__()
        self.cls_token = nn.Parameter(torch.zeros(1, 1, self.token_len))  # token_len was never stored


try:
    ReadsBeforeSetting(768)
except AttributeError as err:
    print(f"AttributeError: {err}")

vit = VisionTransformer((height, width), patch_size=20, embed_dim=64, depth=1, num_heads=4)
print(f"vitcourse: {vit.num_patches} patches from the tokenizer, position table {tuple(vit.pos_embed.shape)}")

# %% [markdown]
# ### 1.6 The encoder block also adds v
#
# **Source:** the block's `x = x + self.attn(self.norm1(x))`, whose `self.attn` ends with `x = v + x`.
#
# The single `Attention` class the series uses everywhere always adds its values $\mathbf{v}$ to its output. This skip belongs to T2T's token transformer, where the token length changes. The article's encoder
# block then adds its input as well. So the attention half of each block computes
# $\mathbf{z} + \mathbf{v} + \text{attention}$, with $\mathbf{v}$ computed from $\text{LN}(\mathbf{z})$. ViT's
# equation 2 has one residual and no $\mathbf{v}$. In `vitcourse` the skip through $\mathbf{v}$ is a switch:
# off in `EncoderBlock`, on in `TokenTransformer`. The cell runs the attention module alone on random tokens and
# checks that the extra term is exactly their $\mathbf{v}$.
# [Evidence 1.6](#Evidence-1.6:-the-extra-v)

# %%
torch.manual_seed(0)
z = torch.randn(2, 16, 64)  # (B, N, D): 2 images, 16 tokens of length 64
plain = Attention(64, 64, num_heads=4, v_skip=False)
with_v = Attention(64, 64, num_heads=4, v_skip=True)
with_v.load_state_dict(plain.state_dict())  # the same weights; only the skip differs
plain, with_v, z = plain.to(device), with_v.to(device), z.to(device)
with torch.no_grad():
    out_plain, steps = plain.steps(z)
    out_with_v = with_v.steps(z)[0]
v_merged = steps.v.transpose(1, 2).reshape(2, 16, 64)  # (B, N, D), heads side by side
print(f"the extra term is v: {torch.allclose(out_with_v - out_plain, v_merged, atol=1e-5)}")
print(f"vitcourse's EncoderBlock adds v: {EncoderBlock(64, num_heads=4).attn.v_skip}")

# %% [markdown]
# ### 1.7 The prediction token's start: a difference, not a slip
#
# The text says the prediction token starts blank, that is at zero. The walk-through builds it from zeros. The
# backbone's code then overwrites those zeros with random draws of standard deviation 0.02. Both starts are in
# use. ViT's official code starts at zero; T2T-ViT's official code draws at random. The token learns either
# way. `vitcourse` draws it from a normal of standard deviation 0.02 and cuts the draws at two standard
# deviations, ±0.04. The cell checks the cut on the token, then draws many values by the same rule: the cut
# narrows their spread a little. [Evidence 1.7](#Evidence-1.7:-the-start)

# %%
torch.manual_seed(0)
vit_17 = VisionTransformer((height, width), patch_size=20, embed_dim=64, depth=1, num_heads=4)
cls_token = vit_17.cls_token.detach()  # (1, 1, 64)
print(
    f"vitcourse's prediction token: shape {tuple(cls_token.shape)}, all zero: {bool((cls_token == 0).all())}"
)
print(f"every entry within the cut, -0.04 to 0.04: {bool((cls_token.abs() <= 0.04).all())}")
torch.manual_seed(0)
many = nn.init.trunc_normal_(torch.empty(100_000), std=0.02, a=-0.04, b=0.04)  # the same rule, 100,000 draws
print(
    f"100,000 draws by the same rule: standard deviation {many.std().item():.3f}, largest |value| {many.abs().max().item():.3f}"
)

# %% [markdown]
# ### 1.10 "Code from this paper is not publicly available"
#
# The article says that the ViT paper's code is not public. It adds that the paper's repository "does not
# contain model definitions". So it builds its ViT from the T2T-ViT code. In fact `google-research/vision_transformer`
# has defined the model since 2020, in JAX and Flax: Google's Python libraries for numerical computing and
# neural networks.
# [Evidence 1.10](#Evidence-1.10:-the-official-ViT-code) transcribes that code's encoder block into PyTorch.

# %% [markdown]
# **Cosmetic slips**, each a name, a printed line or a notation; the entries and their cells are in
# [Evidence: the cosmetic entries](#Evidence:-the-cosmetic-entries).
#
# | entry | wrong → right |
# |---|---|
# | 1.4 | printed "1001" tokens → 176 |
# | 1.8 | "split connection" → skip connection |
# | 1.9 | `Encoding_hidden_channel_mul` → `Encoding_hidden_chan_mul` (in the prose) |

# %% [markdown]
# ## 2. "Attention for Vision Transformers, Explained" (3 min)
#
# The attention article walks through one module, first with one head, then with four. Its batch holds 13 items
# of 100 tokens of length 49, projected to 64 channels.

# %% [markdown]
# ### 2.1 The multi-head section uses the single-head module
#
# **Source:** `v = v.transpose(1, 2).reshape(B, N, A.chan)` in section *Multi-Headed Attention*.
#
# That section builds a four-head module, `MSA`, but reads the width from `A`, the single-head module of the
# section before. It should read `MSA.chan`. The line
# runs only because both modules have 64 channels. Give `A` another width and the reshape fails.
# [Evidence 2.1](#Evidence-2.1:-the-other-module)

# %%
torch.manual_seed(0)
x = torch.randn(13, 100, 49)  # the walk-through's sizes: (batch, tokens, token length)
msa = Attention(49, 64, num_heads=4)  # the four-head module of the section
single = Attention(49, 32, num_heads=1)  # a single-head module of another width
_, steps = msa.steps(x)
v_tokens_first = steps.v.transpose(1, 2)  # (13, 100, 4, 16)
print(f"v per head: {tuple(steps.v.shape)}")
print(f"merged with MSA's own chan = {msa.chan}: {tuple(v_tokens_first.reshape(13, 100, msa.chan).shape)}")
try:
    v_tokens_first.reshape(13, 100, single.chan)
except RuntimeError as err:
    print(f"merged with the other module's chan = {single.chan}: {type(err).__name__}")

# %% [markdown]
# ### 2.4 The projection's "chan²" weights
#
# The conclusion counts chan² weights in the final projection. That counts its weight matrix only. The
# projection is an `nn.Linear` with its bias on, so it learns chan² + chan numbers. The count for the qkv layer
# is complete, because that layer has no bias by default. [Evidence 2.4](#Evidence-2.4:-the-weight-count)

# %%
qkv_layer = nn.Linear(49, 64 * 3, bias=False)  # the article's default: qkv_bias=False
proj_layer = nn.Linear(64, 64)  # bias on, as in the article
print(f"qkv:  {sum(p.numel() for p in qkv_layer.parameters()):,} parameters = 49 * 64 * 3 = {49 * 64 * 3:,}")
print(
    f"proj: {sum(p.numel() for p in proj_layer.parameters()):,} parameters = 64^2 + 64 = {64**2 + 64:,}, "
    f"not 64^2 = {64**2:,}"
)

# %% [markdown]
# **Cosmetic slips**, each a name, a printed line or a notation; the entries and their cells are in
# [Evidence: the cosmetic entries](#Evidence:-the-cosmetic-entries).
#
# | entry | wrong → right |
# |---|---|
# | 2.2 | comment `(batch, heads, num_tokens, chan)` → without heads |
# | 2.3 | `MultiheadedAttention` → `MultiheadAttention` (in the prose) |

# %% [markdown]
# ## 3. "Position Embeddings for Vision Transformers, Explained" (7 min)
#
# This article shows why attention cannot see the order of tokens. Then it builds the sinusoidal table and adds
# it to the picture's 15 patch tokens.

# %% [markdown]
# ### 3.1 The colour range of the 15 × 400 table
#
# The article draws the table for the picture's tokens with the colour range [0, 1]. It then reads purple as
# "darker" and orange as "lighter". But every entry of the table lies in [−1, 1]. With the range [0, 1], every
# negative entry gets the colour of a zero. Entries near 0, which hardly change a token, look as dark as any.
# The right range is [−1, 1], which the article's earlier plots use. The figure draws the table both ways, in
# the article's colour map. [Evidence 3.1](#Evidence-3.1:-the-colour-range)

# %% mystnb={"image": {"alt": "The sinusoidal table for 15 tokens of length 400 drawn with two colour ranges: with 0 to 1, the negative entries and the entries near 0 share the darkest purple; with -1 to 1, only the negative entries are purple and the entries near 0 are pale"}}
table = sinusoidal_table(15, 400)  # (15, 400): the picture's 15 tokens of length 400
purple = (table < 0.5).float().mean().item()  # the purple half of the colour map, with the range [0, 1]
negative = (table < 0).float().mean().item()  # the entries that really make a token darker
print(f"table values from {fixed(table.min().item())} to {fixed(table.max().item())}")
print(f"drawn in the purple half with the range [0, 1]: {purple:.0%} of the entries; below 0: {negative:.0%}")

fig, axes = plt.subplots(
    2, 2, figsize=(12, 6.5), layout="constrained", width_ratios=(3, 1), dpi=150, squeeze=False
)
for row, (low, who) in enumerate(((0, "[0, 1] (the article's)"), (-1, "[-1, 1] (the values' own)"))):
    for ax, columns, title in (
        (axes[row, 0], range(160), f"colour range {who}: columns 0-159, where the tokens differ most"),
        (axes[row, 1], range(300, 320), "zoom: columns 300-319"),
    ):
        plots.show_table_columns(
            table,
            columns,
            ax=ax,
            title=title,
            ylabel="token i",
            vmin=low,
            vmax=1,
            label="table value",
            cmap="PuOr_r",
        )
fig.suptitle(
    "Sinusoidal table for 15 tokens of length 400, drawn with two colour ranges (one square per entry)"
)
plt.show()

# %% [markdown]
# **Reading the figure.** The colour bars differ: white is 0.5 in the upper panels, 0 in the lower ones. Left:
# columns 0 to 159, where the tokens differ most. Right: columns 300 to 319, nearly the same for every token. Only
# entries below 0 darken a token, and the cell counts how few. In the upper panels they merge into one dark block at
# the bottom left, and the zoom's sine columns, near 0, are the darkest purple; in the lower panels, those columns
# are almost white. Counted from 0, even columns hold sines, odd ones cosines.

# %% [markdown]
# ### 3.2 `astype(int)`, then `/ 255`
#
# The article casts the picture's tokens to integers and divides them by 255. It reads the pixels from
# `gray_mountains`, a name it never defines. If that is the picture it loads, `mountains`, with values in [0, 1],
# the cast turns every pixel below 1 into 0. After the division almost nothing of the picture is left. A picture
# already in [0, 1] needs neither step.
# [Evidence 3.2](#Evidence-3.2:-the-cast)

# %%
patch_tokens = tokens.patchify(vitcourse.to_tensor(picture), 20)[0].double()  # (15, 400), values in [0, 1]
cast = patch_tokens.long() / 255  # what astype(int) / 255 does to them
kept = sorted(round(v * 255) for v in cast.unique().tolist())
print(f"after the cast and / 255, the tokens hold only: {', '.join(f'{k}/255' for k in kept)}")
below_one = patch_tokens < 1
print(f"every pixel below 1 became 0: {bool((cast[below_one] == 0).all())}")

# %% [markdown]
# ### 3.3 "Invariant" where equivariant is meant
#
# The article calls attention invariant to the order of tokens: "The component of the transformer that would be
# invariant to token order is the attention module". An attention layer is in fact *equivariant*:
# permute its input tokens, and its output rows come out permuted in the same way. The article's own demo shows
# exactly that. What is invariant is a prediction read from the prediction token, when the model has no
# position table: it does not change at all. [Evidence 3.3](#Evidence-3.3:-equivariant-and-invariant) shows
# both, for a whole ViT as well.

# %%
torch.manual_seed(0)
attn = Attention(768, num_heads=4).to(device)
patcher_33 = tokens.PatchTokenizer((height, width), patch_size=20, in_chans=1, embed_dim=768).to(device)
picture_tokens = patcher_33(image).detach()  # (1, 15, 768)
order = torch.randperm(15, generator=torch.Generator().manual_seed(0)).to(device)
with torch.no_grad():
    out, out_permuted = attn(picture_tokens), attn(picture_tokens[:, order])
print(
    f"attention: output rows permuted like the input (equivariant): {torch.allclose(out_permuted, out[:, order], atol=1e-5)}"
)
print(
    f"attention: output unchanged by the permutation (invariant):   {torch.allclose(out_permuted, out, atol=1e-5)}"
)

# %% [markdown]
# ### 3.4 The permutation demo leaves out the softmax and the scale: cosmetic
#
# The demo draws Q, K and V as random integer matrices and swaps tokens 0 and 2 in each. Then it computes
# $QK^\top$ and multiplies by $V$. It leaves out the scale and the softmax of the formula it has just given. The
# conclusion holds for the full formula too, but the demo does not show it. The cell puts the scale and the
# softmax back. It draws small random values rather than integers: with entries in the hundreds every softmax row
# would be one-hot, a hard choice rather than a weighting. It prints the largest weight to show the rows stay soft. [Evidence 3.4](#Evidence-3.4:-why-the-softmax-keeps-it)

# %%
g = torch.Generator().manual_seed(0)
q, k, v = (torch.randn(4, 9, generator=g).double() for _ in range(3))  # (4, 9) each, small values
swap = torch.tensor([2, 1, 0, 3])  # tokens 0 and 2 trade places


def full_attention(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> torch.Tensor:
    """softmax(Q K^T / sqrt(d_k)) V for one head: (N, d) each -> (N, d)."""
    return torch.softmax(q @ k.T / k.shape[-1] ** 0.5, dim=-1) @ v


for name, attend in (
    ("article's demo, (Q K^T) V", lambda q, k, v: q @ k.T @ v),
    ("with scale and softmax", full_attention),
):
    rows_swapped = torch.allclose(attend(q[swap], k[swap], v[swap]), attend(q, k, v)[swap])
    print(f"{name:26s}: swapping tokens 0 and 2 swaps output rows 0 and 2: {rows_swapped}")
weights = torch.softmax(q @ k.T / k.shape[-1] ** 0.5, dim=-1)  # (4, 4), one row per query
print(f"largest softmax weight in any row: {fixed(weights.max().item())} (1.00 would be one-hot)")

# %% [markdown]
# ### 3.6 "Congruent with the results in [1]"
#
# The article says that the ViT paper's finding, a position embedding helps and its kind matters little, "is
# congruent with the results in [1] that a position embedding is beneficial". [1] is *Attention Is All You Need*.
# That paper compared a sinusoidal and a learned table, "nearly identical results" as the article itself says,
# and trained no model without one. It supports only the second half of the claim. There is no cell;
# [Evidence 3.6](#Evidence-3.6:-what-the-Transformer-paper-compared) quotes both papers.

# %% [markdown]
# **Cosmetic slips**, each a name, a printed line or a notation; the entries and their cells are in
# [Evidence: the cosmetic entries](#Evidence:-the-cosmetic-entries).
#
# | entry | wrong → right |
# |---|---|
# | 3.5 | $A \cdot V = A$ → $Z = A \cdot V$ |

# %% [markdown]
# ## 4. "Tokens-to-Token Vision Transformers, Explained" (9 min)
#
# The T2T article builds the soft split, the token transformer and the Tokens-to-Token module. It walks a batch of
# 13 one-channel 400 × 100 images through the module. It ends with the complete T2T-ViT.

# %% [markdown]
# ### 4.1 The complete model passes settings its T2T module does not accept
#
# **Source:** `Tokens2Token(img_size = ..., softsplit_kernels = ..., num_heads = ..., ...)` in `T2T_ViT`.
#
# The class `T2T_ViT` builds the article's `Tokens2Token` module with settings that the module does not
# accept (its Evidence lists seven). One of them is `softsplit_kernels`. `Tokens2Token` takes only `img_size`, `token_chan` and
# `token_len`. It fixes its kernels, its heads and its MLP ratio inside. So building the model fails at once. In
# `vitcourse` the soft splits are a setting that reaches the module: `T2TViT(stages=...)`.
# [Evidence 4.1](#Evidence-4.1:-the-refused-settings)


# %%
def article_tokens2token(
    img_size: tuple[int, int, int] = (1, 1000, 300), token_chan: int = 64, token_len: int = 768
) -> None:
    """Stands in for the article's Tokens2Token constructor: it takes these three settings and no others."""


try:
    article_tokens2token(img_size=(1, 1700, 500), softsplit_kernels=(31, 3, 3))
except TypeError as err:
    print(f"TypeError: {err}")

# %% [markdown]
# ### 4.2 A misspelt module in the weight initialisation
#
# The method `_init_weights` calls `timmm.trunc_normal_(m.weight, std=.02)`, with three m's. Dropping one m is
# not enough: timm's `__init__.py` does not import the function. The right call is `timm.layers.trunc_normal_`,
# as the same article's backbone and the ViT article spell it. Once 4.1 and 1.5 are fixed, this is the next
# error. `vitcourse` uses `nn.init.trunc_normal_`. Without timm, the cell shows only the misspelt name's NameError.
# [Evidence 4.2](#Evidence-4.2:-the-misspelt-module)

# %%
try:
    timmm.trunc_normal_  # noqa: F821  (the misspelt name, as written)
except NameError as err:
    print(f"NameError: {err}")

# %% [markdown]
# ### 4.3 The undefined batch size `B`
#
# **Source:** `x = x.transpose(1,2).reshape(B, T2T.token_chan, H, W)` in section *All Together*.
#
# The walk-through never assigns `B`. Its batch size is called `batch`, and the second reconstruction uses that name. Read the batch size from the tensor itself,
# `x.shape[0]`, as the module's `forward` does. The cell rebuilds the walk-through's first stage this way.
# [Evidence 4.3](#Evidence-4.3:-the-name-B)

# %%
# the walk-through after its first token transformer: 13 items, 2500 tokens of length 64
stage1 = torch.randn(13, 2500, 64, generator=torch.Generator().manual_seed(0))
grid = tokens.count_tokens(400, 100, 7, 4, 2)  # the walk-through's 400 x 100 images, first soft split
batch_size = stage1.shape[0]  # read from the tensor, not from a name defined elsewhere
rebuilt = stage1.transpose(1, 2).reshape(batch_size, 64, grid.rows, grid.cols)  # (B, C, H, W)
print(f"grid {grid}; rebuilt {tuple(rebuilt.shape)}")
print(
    f"the same as vitcourse's rebuild_image: {torch.equal(rebuilt, tokens.rebuild_image(stage1, grid.rows, grid.cols))}"
)

# %% [markdown]
# ### 4.4 The article's `count_tokens` returns the width first: a trap, not a slip
#
# The function `count_tokens(w, h, k, s, p)` returns the tokens along the width first. The article always
# unpacks it that way, so its code is right. But images and tensors put the height first, so the order is easy
# to swap. A swapped grid raises no error: the rebuilt image is quietly scrambled. `vitcourse.count_tokens`
# takes the height first and returns named fields. The figure rebuilds the picture's first soft split both
# ways, with one value per window. [Evidence 4.4](#Evidence-4.4:-the-order-of-the-results)

# %% mystnb={"image": {"alt": "The picture's first soft split rebuilt with one value per window: with 15 rows by 25 columns it shows the picture at a quarter of its height and width; with the rows and columns swapped, 25 by 15, the same values are scrambled"}}
grid = tokens.count_tokens(height, width, 7, 4, 2)  # the picture's first T2T soft split
print(grid)
windows = tokens.soft_split(vitcourse.to_tensor(picture), 7, 4, 2)  # (1, 375, 49)
centres = windows[:, :, 24:25]  # (1, 375, 1): value 24 of 49, counted from 0: the centre of the 7 x 7 window
correct = tokens.rebuild_image(centres, grid.rows, grid.cols)  # (1, 1, 15, 25)
swapped = tokens.rebuild_image(centres, grid.cols, grid.rows)  # (1, 1, 25, 15): no error
print(f"rows and columns swapped: no error, shape {tuple(swapped.shape)}")

fig, axes = plt.subplots(1, 2, figsize=(10, 3.8), layout="constrained", width_ratios=(25, 15))
for ax, img, what in (
    (axes[0], correct, f"correct: {grid.rows} rows x {grid.cols} columns"),
    (axes[1], swapped, f"swapped: {grid.cols} rows x {grid.rows} columns"),
):
    plots.show_matrix(
        img[0, 0],
        ax=ax,
        title=what,
        xlabel="column of windows",
        ylabel="row of windows",
        vmin=0,
        vmax=1,
        aspect="equal",
        label="pixel value",
    )
fig.suptitle("The picture's first soft split (7, 4, 2) rebuilt, one value per window: its centre pixel")
plt.show()

# %% [markdown]
# The left panel is the picture at a quarter of its height and width, in flat bands because the pixel art has
# few grey levels. The right panel holds the same 375 values
# in the wrong places: each row of 25 windows is cut into rows of 15.

# %% [markdown]
# ### 4.5 The token transformer's scale: a difference, not a slip
#
# With no scale given, the article's attention multiplies the scores by $(\text{chan} / \text{heads})^{-1/2}$.
# In the T2T module that is $1/8$ at both stages. The official T2T-ViT code uses the input token length instead,
# $(\text{dim} / \text{heads})^{-1/2}$. For a one-channel picture that is $1/7$ at the first stage and $1/24$ at
# the second. Both run. Only the official one computes what the official models compute. `vitcourse` follows the official
# code by default and offers the other with `official_scale=False`. [Evidence 4.5](#Evidence-4.5:-the-two-scales)

# %%
for official in (True, False):
    t2t = TokensToToken((height, width), official_scale=official)
    inverse = [round(getattr(t2t, f"attention{i}").attn.scale ** -1, 4) for i in (1, 2)]
    who = "official code (vitcourse's default)" if official else "article series"
    # attention1, attention2: the T2T module's two token transformers, named after its stages, counted from 1
    print(f"{who:37s}: scale 1/{inverse[0]:g} at stage 1, 1/{inverse[1]:g} at stage 2")

# %% [markdown]
# ### 4.8 A backbone "identical to" ViT's
#
# The article calls its backbone identical to the ViT paper's. It differs in three ways that matter here. Its position table is
# fixed and sinusoidal, which is T2T-ViT's choice; ViT learns its table. It has one attention head by default,
# where ViT-Base, the paper's base size, has 12. And its encoder blocks add $\mathbf{v}$, as 1.6 shows. In
# `vitcourse` the table is the setting `pos_embed`: `"learned"` for ViT, `"sinusoidal"` for T2T-ViT.
# [Evidence 4.8](#Evidence-4.8:-three-differences)

# %%
for kind in ("learned", "sinusoidal"):
    model = VisionTransformer(
        (height, width), patch_size=20, embed_dim=64, depth=1, num_heads=4, pos_embed=kind
    )
    table_now = model.pos_embed.detach()[0]  # (N + 1, D)
    is_sinusoidal = torch.equal(table_now, sinusoidal_table(model.num_patches + 1, 64))
    print(
        f"pos_embed={kind!r:12s}: table {tuple(table_now.shape)}, trains: {model.pos_embed.requires_grad}, "
        f"the sinusoidal table: {is_sinusoidal}"
    )
vit_base_heads = VisionTransformer(depth=1).blocks[0].attn.num_heads  # vitcourse's defaults are ViT-Base's
print(f"heads in ViT-Base's encoder blocks (vitcourse's defaults): {vit_base_heads}")

# %% [markdown]
# ### 4.9 "Only works if = 1"
#
# The docstring of `T2T_ViT` says that the number of heads "only works if =1". That holds for the official
# T2T-ViT code's token attention. The series' attention module splits the width into heads, so any number that
# divides the width works. The article's own token-transformer walk-through runs it with 4 heads. The cell
# splits a qkv output into 4 heads both ways. [Evidence 4.9](#Evidence-4.9:-the-heads)

# %%
qkv_out = torch.randn(13, 100, 3 * 64)  # the qkv projection's output: 13 items, 100 tokens, 3 x 64 channels
heads = 4
for who, per_head in (
    ("official code (in_dim per head)", 64),
    ("article series (chan // heads)", 64 // heads),
):
    try:
        result = tuple(qkv_out.reshape(13, 100, 3, heads, per_head).shape)
    except RuntimeError as err:
        result = type(err).__name__
    print(f"{who + ',':33s} {heads} heads: {result}")

# %% [markdown]
# **Cosmetic slips**, each a name, a printed line or a notation; the entries and their cells are in
# [Evidence: the cosmetic entries](#Evidence:-the-cosmetic-entries).
#
# | entry | wrong → right |
# |---|---|
# | 4.6 | printed line with spaces → without |
# | 4.7 | prints `x` → `y` |

# %% [markdown]
# ## 5. The lecture slides "ViT (Vision Transformer)" (8 min)
#
# The slides set the ViT paper's equations beside PyTorch snippets for ViT-B/16: ViT-Base with 16 × 16 patches,
# on 224 × 224 colour images.

# %% [markdown]
# ### 5.2 $\mathbf{E}_{pos} \in \mathbb{R}^{P^2 \times D}$
#
# One slide gives the position embedding the shape $P^2 \times D$. The right shape is $(N+1) \times D$, as on
# every other slide and in the paper. There is one row for each of the N patches and one for the class token. For
# ViT-B/16 that is 197 rows, while $P^2 = 256$. [Evidence 5.2](#Evidence-5.2:-the-shape-of-the-table)

# %%
# ViT-B/16's sizes for ImageNet's 1000 classes; one block is enough here
vit_b16 = VisionTransformer(224, patch_size=16, in_chans=3, depth=1, num_classes=1000)
print(f"N = {vit_b16.num_patches}, P^2 = {16**2}, position embedding {tuple(vit_b16.pos_embed.shape)}")

# %% [markdown]
# ### 5.3 $Z = V \cdot P$
#
# A slide quotes four steps of self-attention from the survey *A Survey on Vision Transformer*. Step 4 computes
# $Z = V \cdot P$, values times probabilities. The order is wrong: $Z = P \cdot V$. $P$ holds one row of weights
# per query, and $P \cdot V$ gives each query a weighted average of the value rows. The unified formula on the
# same slide has the right order. [Evidence 5.3](#Evidence-5.3:-the-order-of-the-product)

# %%
torch.manual_seed(0)
q, k, v = torch.randn(3, 5, 3).unbind(0)  # N = 5 tokens, d = 3 each
p = torch.softmax(q @ k.T / 3**0.5, dim=-1)  # (N, N): one row of weights per query
print(f"P: {tuple(p.shape)}, V: {tuple(v.shape)}, P @ V: {tuple((p @ v).shape)}")
try:
    v @ p
except RuntimeError as err:
    print(f"V @ P: {type(err).__name__} (3 columns against 5 rows)")
print(
    f"P @ V equals PyTorch's attention: {torch.allclose(p @ v, F.scaled_dot_product_attention(q, k, v), atol=1e-6)}"
)

# %% [markdown]
# ### 5.4 The class token `torch.ones(batch_size, 1, 768)`
#
# The slides make the class token a parameter of shape `(batch_size, 1, 768)`. A parameter must not depend on the
# batch. The right token is one learned vector of shape `(1, 1, 768)`, expanded to each batch. ViT's official
# code, timm and `vitcourse` all do this. With the slides' shape, the model cannot run a batch of any other
# size. [Evidence 5.4](#Evidence-5.4:-one-token-per-model)

# %%
patch_embeddings = torch.zeros(13, 196, 768)  # a batch of 13 images, 196 patch tokens each
slides_token = nn.Parameter(torch.ones(32, 1, 768))  # the slides' shape, built for batches of 32
try:
    torch.cat([slides_token, patch_embeddings], dim=1)
except RuntimeError as err:
    print(f"slides' token (32 of them) with a batch of 13: {type(err).__name__}")
one_token = nn.Parameter(torch.zeros(1, 1, 768))
z0 = torch.cat([one_token.expand(13, -1, -1), patch_embeddings], dim=1)  # (13, 197, 768)
print(f"one (1, 1, 768) token, expanded: {tuple(z0.shape)}")

# %% [markdown]
# ### 5.5 `MyPermute`, `block_out_permute` and tables that start from ones
#
# The slides use a layer `MyPermute` and a tensor `block_out_permute` that they never define. `torch.nn` has
# neither (torchvision has a `torchvision.ops.Permute`). They stand for a small module that calls `x.permute(0, 2, 1)` and for the patch embedding's output,
# `(B, 196, 768)`. The slides also start the class token and the position table from ones: a difference, not a
# slip, since it runs. But all 197 rows of the table start equal, so at first it tells no position from another.
# [Evidence 5.5](#Evidence-5.5:-the-undefined-names-and-the-ones)


# %%
class Permute(nn.Module):
    """What the slides' MyPermute stands for: permute the axes of the input."""

    def __init__(self, dims: tuple[int, ...]) -> None:
        super().__init__()
        self.dims = dims

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.permute(*self.dims)


print(f"torch.nn has MyPermute: {hasattr(nn, 'MyPermute')}, Permute: {hasattr(nn, 'Permute')}")
block_permute = nn.Sequential(
    nn.Conv2d(3, 768, kernel_size=16, stride=16, bias=False), nn.Flatten(start_dim=2), Permute((0, 2, 1))
).to(device)
with torch.no_grad():
    block_out_permute = block_permute(torch.zeros(2, 3, 224, 224, device=device))  # 2 images
print(f"block_out_permute: {tuple(block_out_permute.shape)}")

# %% [markdown]
# ### 5.6 Equation 4 as $\mathbf{z} = \text{LN}(\mathbf{z}^0)$
#
# One slide writes equation 4 as $\mathbf{z} = \text{LN}(\mathbf{z}^0)$. The paper, the lab report and the other
# slides write $\mathbf{y} = \text{LN}(\mathbf{z}_L^0)$: the layer norm of token 0 in the last block's output.
# Without the $L$, the slide does not say which block's output is read, and it reuses the sequence's name
# $\mathbf{z}$. The cell shows why the block matters: before any block, token 0 is the same for every image.
# [Evidence 5.6](#Evidence-5.6:-equation-4)

# %%
torch.manual_seed(0)
small = (
    VisionTransformer((height, width), patch_size=20, embed_dim=64, depth=2, num_heads=4).to(device).eval()
)
two_images = torch.cat([image, image.flip(-1)])  # (2, 1, 60, 100): the picture and its mirror image
with torch.no_grad():
    z = small.embed(two_images)  # z_0: (2, 16, 64)
    before_blocks = small.norm(z[:, 0])  # LN of token 0 before any block: (2, 64)
    for blk in small.blocks:  # block 0 gives z_1, block 1 gives z_2 = z_L (the paper counts blocks from 1)
        z = blk(z)
    y = small.norm(z[:, 0])  # y = LN(z_L^0): (2, 64)
    same_as_model = torch.allclose(y, small.forward_features(two_images)[:, 0], atol=1e-6)
print(f"y = LN(z_L^0) is what the model's head reads: {same_as_model}")
print(f"token 0 before any block, normalised: the same for both images: {torch.allclose(*before_blocks)}")
print(f"y: the same for both images: {torch.allclose(*y, atol=1e-5)}")

# %% [markdown]
# ### 5.7 "Self attention was proposed in 1706.03762"
#
# A slide says that self-attention "was proposed in" arXiv 1706.03762, *Attention Is All You Need*. That paper
# itself says that attention was older: the best translation models of the time already used it, and so did
# earlier work with self-attention. What it proposed is the *Transformer*, a model built on attention alone,
# without recurrence or convolution, with the scaled dot-product and multi-head attention of notebooks 04 and 05.
# No cell can show a date;
# [Evidence 5.7](#Evidence-5.7:-what-1706.03762-proposed) gives the lines.

# %% [markdown]
# ### 5.8 $d_q = d_k = d_v = d_{model} = 512$
#
# The slide that quotes the survey gives queries, keys and values the length $d_q = d_k = d_v = d_{model} = 512$,
# where $d_{model}$ is the token length, the course's $D$. That fits a single head. But the base Transformer of
# *Attention Is All You Need* is 512 wide with 8 heads, so each head's queries, keys and values have length
# $d_{model}/h = 64$, and the scores are divided by its square root. The lab report applies the same rule to
# ViT-B/16: 768 wide, 12 heads. The cell computes both; PyTorch's own `nn.MultiheadAttention` is the independent
# check, and the last lines show which scale the course's module uses. [Evidence 5.8](#Evidence-5.8:-the-width-of-a-head)

# %%
torch.manual_seed(0)
for name, d_model, h in (("base Transformer", 512, 8), ("ViT-B/16", 768, 12)):
    heads_attn = Attention(d_model, num_heads=h)
    torch_heads = nn.MultiheadAttention(d_model, h).head_dim
    print(
        f"{name:16s}: d_model = {d_model}, h = {h}: d_k = d_v = {heads_attn.head_dim} per head "
        f"(nn.MultiheadAttention: {torch_heads}), scale 1/sqrt({heads_attn.head_dim})"
    )
with torch.no_grad():
    _, steps_b16 = heads_attn.steps(torch.randn(1, 197, 768))  # ViT-B/16: 197 tokens of length 768
print(f"ViT-B/16's queries: {tuple(steps_b16.q.shape)} = (batch, heads, tokens, d_k)")
for d in (64, 768):
    weights = torch.softmax(steps_b16.q @ steps_b16.k.transpose(-2, -1) / d**0.5, dim=-1)
    print(
        f"weights with scale 1/sqrt({d}) equal the module's: {torch.allclose(weights, steps_b16.weights, atol=1e-6)}"
    )

# %% [markdown]
# ### 5.9 `torchvision.ops.MLP` beside "two layers with a GELU": a trap, not a slip
#
# Two slides quote the signature of `torchvision.ops.MLP` (torchvision: PyTorch's library for images), whose `activation_layer` defaults to `nn.ReLU`. One
# adds the ViT paper's sentence: "The MLP contains two layers with a GELU non-linearity". The slides build no MLP,
# but one built from that signature with its defaults puts a ReLU between its layers; ViT's needs
# `activation_layer=nn.GELU`. With the same weights, the
# two differ at every hidden value but 0, by $|x|\,\Phi(-|x|)$, as much at $x$ as at $-x$ ($\Phi$: the standard
# normal's cumulative distribution; the cell checks it). The course does not install torchvision; the cell stacks its
# layers, two dropouts at rate 0 included (dropout zeroes random values during training).
# [Evidence 5.9](#Evidence-5.9:-the-MLP's-activation)


# %%
def torchvision_style_mlp(activation: type[nn.Module]) -> nn.Sequential:
    """The layers torchvision.ops.MLP(768, [3072, 768]) stacks, with the activation given (default nn.ReLU)."""
    return nn.Sequential(
        nn.Linear(768, 3072), activation(), nn.Dropout(0.0), nn.Linear(3072, 768), nn.Dropout(0.0)
    )


torch.manual_seed(0)
relu_mlp, gelu_mlp = torchvision_style_mlp(nn.ReLU), torchvision_style_mlp(nn.GELU)
gelu_mlp.load_state_dict(relu_mlp.state_dict())  # the same weights; only the activation differs
tokens_in = torch.randn(1, 197, 768)  # ViT-B/16's 197 tokens
with torch.no_grad():
    hidden = relu_mlp[0](tokens_in)  # (1, 197, 3072), before the activation
    same_output = torch.allclose(relu_mlp(tokens_in), gelu_mlp(tokens_in), atol=1e-5)
print(
    f"hidden values below 0, which ReLU sets to 0 and GELU to a small negative: {(hidden < 0).float().mean().item():.0%}"
)
gap = (F.relu(hidden) - F.gelu(hidden)).abs()  # (1, 197, 3072): where the two activations differ
print(
    f"mean |ReLU - GELU| on the negative values {gap[hidden < 0].mean():.4f}, on the positive values "
    f"{gap[hidden > 0].mean():.4f}"
)
phi = 0.5 * (1 + torch.erf(-hidden.abs() / 2**0.5))  # the standard normal's cumulative distribution at -|x|
print(
    f"|ReLU - GELU| = |x| * Phi(-|x|) at every hidden value: {torch.allclose(gap, hidden.abs() * phi, atol=1e-5)}"
)
print(f"the same output with the same weights: {same_output}")
print(f"vitcourse's MLP in an encoder block: {EncoderBlock(768, num_heads=12).mlp.act}")

# %% [markdown]
# **Cosmetic slips**, each a name, a printed line or a notation; the entries and their cells are in
# [Evidence: the cosmetic entries](#Evidence:-the-cosmetic-entries).
#
# | entry | wrong → right |
# |---|---|
# | 5.1 | "224 x 244 x 3" → 224 × 224 × 3 |

# %% [markdown]
# ## 6. The MyViT equations, the preprint notes and the lab report (4 min)
#
# Each copies the ViT paper's four equations (notebook 06). The slips of the first two are in the letters for
# block, token and patch; the lab report's is in a name, "MLP head".

# %% [markdown]
# ### 6.1 MyViT's missing subscripts: cosmetic
#
# The MyViT equations write $\mathbf{x}{p}$, $\mathbf{z}{0}$ and $\mathrm{SA}{1}$ for $\mathbf{x}_p$, $\mathbf{z}_0$
# and $\mathrm{SA}_1$: without the underscore, the subscript prints beside its letter. The output,
# $\mathrm{LN}(\mathbf{z}^{0}{L})$, prints the block $L$ in the wrong place, after the token's $0$. The text has lost its `\\` line breaks too; a Markdown
# renderer can strip both, so the slip may not be the author's. With the subscripts back, the equations are right.
# Not slips: MyViT's $N$ counts the tokens, $N' + 1$, where the paper's counts patches; its heads
# $\mathrm{SA}_1 \dots \mathrm{SA}_h$ are the course's heads 0 to $h - 1$. The cell checks the shapes on 5.6's
# small ViT.
# [Evidence 6.1](#Evidence-6.1:-the-MyViT-equations)

# %%
torch.manual_seed(0)
small = (  # the small ViT of 5.6
    VisionTransformer((height, width), patch_size=20, embed_dim=64, depth=2, num_heads=4).to(device).eval()
)
n_patches = height * width // 20**2  # MyViT's N' = H W / P^2
with torch.no_grad():
    z_0 = small.embed(image)  # (1, N, D)
    attn0 = small.blocks[0].attn  # block 0's attention
    q_heads = attn0.steps(small.blocks[0].norm1(z_0))[1].q  # (1, h, N, d)
    y_picture = small.forward_features(image)[0, 0]  # y = LN(z_L^0)
print(f"N' = {n_patches} patches, N = N' + 1 = {n_patches + 1} tokens; z_0: {tuple(z_0.shape[1:])} = (N, D)")
print(
    f"h = {attn0.num_heads} heads, numbered 0 to {attn0.num_heads - 1}; q per head: {tuple(q_heads.shape[2:])} = (N, D / h)"
)
print(f"y: {tuple(y_picture.shape)} = (D,)")

# %% [markdown]
# ### 6.2 The preprint notes: a second equation (2), and $z_0$ with two meanings: cosmetic
#
# The notes number the output equation, $\mathbf{y} = LN(z_0^{(L)})$, (2) again; the paper's is (4). And their
# subscript changes meaning: in equation (1) $z_0$ is the whole input sequence, in $z_0^{(L)}$ the 0 is token 0.
# The paper writes $\mathbf{z}_L^0$: block below, token above. The patches are garbled too: $\mathbf{x}_1^{pE}$
# for the paper's $\mathbf{x}_p^1\mathbf{E}$, its patch 1, the course's patch 0. The cell prints both things
# called $z_0$. [Evidence 6.2](#Evidence-6.2:-the-preprint-notes)

# %%
torch.manual_seed(0)
small = (  # the small ViT of 5.6
    VisionTransformer((height, width), patch_size=20, embed_dim=64, depth=2, num_heads=4).to(device).eval()
)
with torch.no_grad():
    z_0 = small.embed(image)  # (1, N, D)
    z_last = small.blocks(z_0)  # z_L: the output of the last block, small.blocks[1]
print(f"z_0 of equation (1), the input sequence: {tuple(z_0.shape[1:])} = (N, D)")
print(f"the 0 of z_0^(L), token 0 of the last block's output: {tuple(z_last[0, 0].shape)} = (D,)")

# %% [markdown]
# ### 6.3 The lab report's "MLP head"
#
# The lab report calls its last step "Classification using the MLP head", then describes the head of timm's
# ViT-B/16 as "a linear transformation" from 768 to 1000 numbers. One linear layer is not a multi-layer
# perceptron. The paper's "MLP Head" has a hidden layer during pre-training only, as the report's own section 2
# says. The name matters when you count parameters or load weights. The cell counts the course's ViT-B/16 head,
# a stand-in for timm's. [Evidence 6.3](#Evidence-6.3:-the-head)

# %%
vit_b16 = VisionTransformer(224, patch_size=16, in_chans=3, depth=1, num_classes=1000)  # as in 5.2
head_layers = [m for m in vit_b16.head.modules() if isinstance(m, nn.Linear)]
print(
    f"ViT-B/16's head: {len(head_layers)} linear layer, {head_layers[0].in_features} -> "
    f"{head_layers[0].out_features}, {sum(p.numel() for p in vit_b16.head.parameters()):,} parameters"
)

# %% [markdown]
# ## Summary
#
# What to remember, whatever the source:
#
# - The extra skip through $\mathbf{v}$ belongs only in T2T's token transformer, never in a ViT block (1.6).
# - Attention is equivariant: permute the tokens and its output rows permute the same way. A prediction read from
#   the prediction token, without positions, is invariant (3.3).
# - $Z = PV$: one row of weights per query, mixing the rows of $V$ (5.3).
# - A parameter never has a batch axis: one prediction token, expanded to each batch (5.4).
# - Each head works on $d_k = d_{model}/h$ numbers, not $d_{model}$ (5.8).
# - $\mathbf{E}_{pos}$ has one row per token, $N + 1$ with the prediction token (5.2).
# - A colour range must cover the data, or the figure hides it (3.1).
#
# [Evidence: the entries ranked](#Evidence:-the-entries-ranked) lists every entry by kind. To check another slip, find the smallest cell that shows what the source says and what happens instead. Print
# shapes and counts rather than trust a printed output, and compare with the paper and the official code.

# %% [markdown]
# ## Evidence: the entries ranked
#
# The papers the entries compare with. The ViT paper is *An Image is Worth 16x16 Words* by Dosovitskiy et al.,
# ICLR 2021 (the articles cite its 2020 arXiv preprint); its official code is `google-research/vision_transformer`.
# The T2T-ViT paper is *Tokens-to-Token ViT: Training Vision Transformers from Scratch on ImageNet* by Yuan et al.,
# ICCV 2021; its official code is `yitu-opensource/T2T-ViT`. ImageNet here means ImageNet-1k, the ILSVRC-2012
# subset of about 1.3 million labelled photos in 1,000 classes (notebook 00 sets it beside ImageNet-21k).
#
# The entries, by kind, the most harmful kind first. *Breaks the code*: it fails as written, or would with other sizes or once another
# line reads it. *Wrong idea*: it runs, but teaches something false. *Cosmetic*: a name, a printed line, a
# notation, or a demo that stops short of what it claims. *Not a slip*: a trap or a difference from the official
# code.
#
# | entry | wrong → right | kind |
# |---|---|---|
# | 1.2 | `transpose(1,0)` → `transpose(2,1)` | breaks the code |
# | 1.1 | default size `(1, 1, 60, 100)`, patch 50 → `(1, 60, 100)`, patch 20 | breaks the code |
# | 1.5 | reads `self.token_len`, `self.num_tokens`, never set → set them | breaks the code |
# | 4.1 | `T2T_ViT` passes settings `Tokens2Token` refuses → pass only its three | breaks the code |
# | 4.2 | `timmm.trunc_normal_` → `timm.layers.trunc_normal_` | breaks the code |
# | 4.3 | undefined `B` → `x.shape[0]` | breaks the code |
# | 3.2 | `astype(int)`, `/ 255` on pixels in [0, 1] → neither | breaks the code |
# | 5.4 | class token `(batch_size, 1, 768)` → `(1, 1, 768)`, expanded | breaks the code |
# | 5.5 | undefined `MyPermute`, `block_out_permute` → define them | breaks the code |
# | 2.1 | `A.chan` → `MSA.chan` (runs by luck) | breaks the code |
# | 1.3 | count `(H / P) * (W / P)` = 15.0 → `//`, 15 | breaks the code |
# | 1.6 | block adds $\mathbf{v}$ → one residual, no $\mathbf{v}$ | wrong idea |
# | 3.3 | attention "invariant" → equivariant | wrong idea |
# | 5.3 | $Z = V \cdot P$ → $Z = P \cdot V$ | wrong idea |
# | 4.8 | backbone "identical" to ViT's → three differences | wrong idea |
# | 1.10 | ViT's code "not publicly available" → it is | wrong idea |
# | 3.1 | colour range [0, 1] → [−1, 1] | wrong idea |
# | 5.6 | $\mathbf{z} = \text{LN}(\mathbf{z}^0)$ → $\mathbf{y} = \text{LN}(\mathbf{z}_L^0)$ | wrong idea |
# | 5.7 | self-attention "proposed in" 1706.03762 → the Transformer was | wrong idea |
# | 5.8 | $d_k = d_{model} = 512$ → $d_{model}/h$ per head | wrong idea |
# | 6.3 | "MLP head" → one linear layer | wrong idea |
# | 3.6 | "congruent with [1]" → [1] supports only half | wrong idea |
# | 4.9 | heads "only works if =1" → any divisor of `chan` | wrong idea |
# | 5.2 | $\mathbf{E}_{pos}$: $P^2 \times D$ → $(N+1) \times D$ | wrong idea |
# | 2.4 | chan² weights → chan² + chan | wrong idea |
# | 3.4 | demo without scale and softmax → with them (a demo that stops short) | cosmetic |
# | 1.8 | "split connection" → skip connection | cosmetic |
# | 1.9 | `Encoding_hidden_channel_mul` → `Encoding_hidden_chan_mul` (in the prose) | cosmetic |
# | 2.3 | `MultiheadedAttention` → `MultiheadAttention` (in the prose) | cosmetic |
# | 1.4 | printed "1001" tokens → 176 | cosmetic |
# | 4.6 | printed line with spaces → without | cosmetic |
# | 4.7 | prints `x` → `y` | cosmetic |
# | 2.2 | comment `(batch, heads, num_tokens, chan)` → without heads | cosmetic |
# | 3.5 | $A \cdot V = A$ → $Z = A \cdot V$ | cosmetic |
# | 5.1 | "224 x 244 x 3" → 224 × 224 × 3 | cosmetic |
# | 6.1 | `\mathbf{z}{0}` → $\mathbf{z}_0$, and the other subscripts | cosmetic |
# | 6.2 | a second (2); $z_0$ with two meanings → (4), $\mathbf{z}_L^0$ | cosmetic |
# | 4.4 | `count_tokens` returns width first → read fields by name | not a slip: a trap |
# | 5.9 | `torchvision.ops.MLP` defaults to ReLU → `activation_layer=nn.GELU` | not a slip: a trap |
# | 1.7 | prediction token starts at zero or random: both in use | not a slip: a difference |
# | 4.5 | scale $(\text{chan}/\text{heads})^{-1/2}$ → official $(\text{dim}/\text{heads})^{-1/2}$ | not a slip: a difference |

# %% [markdown]
# ## Evidence: the cosmetic entries
#
# The entries that change no idea, each with the cell that shows it. Their quotations follow in the
# Evidence sections of their sources. Three cosmetic entries, 3.4, 6.1 and 6.2, stay in the core with their cells:
# each corrects a demo or an equation that a reader of the source meets early.

# %% [markdown]
# ### 1.4 "number of tokens: 1001"
#
# In section *Prediction Processing*, 176 tokens of length 768 go through a layer norm. The printed output then
# reads "number of tokens: 1001". The right number is 176. A layer norm works on each token alone and never
# changes how many there are. The printed line does not match its code.
# [Evidence 1.4](#Evidence-1.4:-the-printed-1001)

# %%
x = torch.randn(1, 176, 768, generator=torch.Generator().manual_seed(0)).to(device)  # (1, 176, 768)
normed = nn.LayerNorm(768).to(device)(x)
print(f"before the layer norm: {tuple(x.shape)}, after: {tuple(normed.shape)}")

# %% [markdown]
# ### 1.8 "Split connection"
#
# The walk-through calls the additions `y = y + x` and `z = z + y` "split connections". The right name is *skip*
# connection, also called a residual connection. The block's input skips the layer and is added to the layer's
# output. Nothing is split. The cell shows what the skip does: with the last layer of both branches set to zero,
# a block hands its input on unchanged. [Evidence 1.8](#Evidence-1.8:-the-name)

# %%
torch.manual_seed(0)
block = EncoderBlock(64, num_heads=4).to(device)
with torch.no_grad():
    for layer in (block.attn.proj, block.mlp.fc2):  # the last layer of each branch
        layer.weight.zero_()
        layer.bias.zero_()
    block_in = torch.randn(2, 16, 64, device=device)  # (B, N, D)
    print(
        f"both branches silenced: the block returns its input exactly: {torch.equal(block(block_in), block_in)}"
    )

# %% [markdown]
# ### 1.9 `Encoding_hidden_channel_mul`
#
# The paragraph under `ViT_Model` names a setting `Encoding_hidden_channel_mul`. The signature above it spells it
# `Encoding_hidden_chan_mul`, and Python refuses the other name. The slip is in the prose, not in code a reader
# runs. The setting is the MLP ratio: the MLP's hidden width as a multiple of the token length. Its default, 4,
# is ViT's. `vitcourse` calls it `mlp_ratio`, as timm does.
# [Evidence 1.9](#Evidence-1.9:-the-misspelt-setting)


# %%
def article_vit_model(
    img_size: tuple[int, int, int] = (1, 400, 100),
    patch_size: int = 50,
    token_len: int = 768,
    preds: int = 1,
    num_heads: int = 1,
    Encoding_hidden_chan_mul: float = 4.0,  # the article's spelling; its default ratio, ViT's
    depth: int = 12,
) -> None:
    """Stands in for the article's ViT_Model constructor (its first seven parameters)."""


try:
    article_vit_model(Encoding_hidden_channel_mul=4.0)
except TypeError as err:
    print(f"TypeError: {err}")

# %% [markdown]
# ### 2.2 The shape comment after the heads merge
#
# In the class `Attention`, a comment gives the shape after the heads merge as
# `(batch, heads, num_tokens, chan)`. But the line above it has just removed the heads axis. The shape is
# `(batch, num_tokens, chan)`. [Evidence 2.2](#Evidence-2.2:-the-shape-comment)

# %%
torch.manual_seed(0)
_, merge_steps = Attention(49, 64, num_heads=4).steps(torch.randn(13, 100, 49))  # the walk-through's sizes
print(f"before the merge, weights @ v: {tuple(merge_steps.heads.shape)}")
print(f"after the merge:               {tuple(merge_steps.merged.shape)}")

# %% [markdown]
# ### 2.3 "torch.nn.MultiheadedAttention"
#
# The conclusion points to PyTorch's `torch.nn.MultiheadedAttention`. The class is `torch.nn.MultiheadAttention`,
# without "ed"; the slip is in a sentence, not in code a reader runs. It also differs from the article's module:
# it adds no $\mathbf{v}$. [Evidence 2.3](#Evidence-2.3:-the-PyTorch-class)

# %%
print(f"torch.nn has MultiheadedAttention: {hasattr(nn, 'MultiheadedAttention')}")
print(f"torch.nn has MultiheadAttention:   {hasattr(nn, 'MultiheadAttention')}")

# %% [markdown]
# ### 3.5 "A · V = A"
#
# The demo writes its two products as $QK^\top = A$, then $A \cdot V = A$. Two different matrices share one name.
# The first is $N \times N$, one score per pair of tokens. The second is $N \times d$, one output row per token.
# Read as an equation, $A \cdot V = A$ is false: its two sides do not even have the same shape. Give the result
# its own name, such as $Z = A \cdot V$. [Evidence 3.5](#Evidence-3.5:-two-matrices-named-A)

# %%
g = torch.Generator().manual_seed(0)
q, k, v = (torch.randint(1, 20, (4, 9), generator=g).double() for _ in range(3))  # the demo's (4, 9) each
scores = q @ k.T  # the first A: one score per pair of tokens
print(f"A = Q K^T: {tuple(scores.shape)}; A V: {tuple((scores @ v).shape)}")

# %% [markdown]
# ### 4.6 "They should be of length 3 * 3 * 64 = 576"
#
# In the walk-through's final soft split, the code prints `'They should be of length 3*3*64=', 3*3*64`. The
# output shown under it reads "They should be of length 3 * 3 * 64 = 576", with spaces. Run as written, the line
# prints no spaces inside its quotes. The number, 576, is right. But the printed line does not match its code,
# as in 1.4. [Evidence 4.6](#Evidence-4.6:-the-printed-line)

# %%
print("They should be of length 3*3*64=", 3 * 3 * 64)  # the final soft split's line, as written

# %% [markdown]
# ### 4.7 The walk-through prints `x` where `y` is meant
#
# The token transformer's walk-through computes `y = TT.norm2(x)`, then `y = TT.neuralnet(y)`, then `y = y + x`.
# After each step it prints the shape of `x`. It should print `y`: the value that changes and, at the end, the
# module's output. The shapes come out right only because the norm and the MLP keep the shape.
# [Evidence 4.7](#Evidence-4.7:-x-and-y)

# %%
torch.manual_seed(0)
tt = TokenTransformer(49, 64, num_heads=4, mlp_ratio=1.5).to(device).eval()
x_in = torch.randn(13, 100, 49, device=device)  # (batch, tokens, token length)
with torch.no_grad():
    x = tt.attn(tt.norm1(x_in))  # (13, 100, 64)
    y = tt.mlp(tt.norm2(x))
    y = y + x  # the skip connection
    module_out = tt(x_in)
print(f"y: {tuple(y.shape)}, the module's output: {torch.allclose(y, module_out, atol=1e-5)}")
print(f"x: {tuple(x.shape)}, the module's output: {torch.allclose(x, module_out, atol=1e-5)}")

# %% [markdown]
# ### 5.1 "224 x 244 x 3"
#
# A slide cuts an image into 16 × 16 patches with `nn.Conv2d`. Under the code, it gives the output for a "224 x
# 244 x 3" image as `[768, 14, 14]`. The image is 224 × 224 × 3, as the code above it sets. A 244-pixel-wide image
# would give 15 columns of patches. [Evidence 5.1](#Evidence-5.1:-the-image-size)

# %%
conv = nn.Conv2d(3, 768, kernel_size=16, stride=16, bias=False).to(device)
for h, w in ((224, 224), (224, 244)):
    print(f"{h} x {w} x 3 image -> {list(conv(torch.zeros(1, 3, h, w, device=device)).shape[1:])}")

# %% [markdown]
# ## Evidence: the Vision Transformers article
#
# Each entry below quotes the source's own lines, then gives the longer comparison and checks. Everything is
# seeded, and the outputs are shapes, counts, yes/no answers and rounded numbers. Each cell builds what it
# uses, so an entry can be read on its own.
#
# The article of this section is "Vision Transformers, Explained", the first of the series.

# %% [markdown]
# ### Evidence 1.1: default image size
#
# **The source.** Section *Image Tokenization*, class `Patch_Tokenization`. Its signature reads
# `img_size: tuple[int, int, int]=(1, 1, 60, 100)` and `patch_size: int=50`. Its docstring describes `img_size`
# as the "size of input (channels, height, width)": three numbers. The constructor runs `C, H, W = self.img_size`,
# then asserts that the patch size divides H and W.
#
# **The comparison.** Four numbers do not unpack into three names, so the defaults stop at that line. With
# `(1, 60, 100)`, a patch size of 50 divides the width but not the height, and the module's own assertion would
# refuse it. The article's walk-through passes `img_size=(x.shape[1], x.shape[2], x.shape[3])` and
# `patch_size = P`, with P = 20, so it never meets the defaults. The complete `ViT_Model` has consistent
# defaults: `(1, 400, 100)` with a patch size of 50.

# %% [markdown]
# ### Evidence 1.2: the transpose
#
# **The source.** The same class, its `forward`: `x = self.split(x).transpose(1,0)`, then `x = self.project(x)`.
# A few cells later the walk-through writes `x = patch_tokens.split(x).transpose(2,1)` and prints 15 tokens of
# length 400.
#
# **The comparison.** `nn.Unfold` returns `(B, P²C, N)`. Swapping dimensions 1 and 0 swaps the token length with
# the batch and gives `(P²C, B, N)`. The last axis then holds the N = 15 tokens, where the linear layer expects
# 400 numbers. The cell in 1.2 shows both swaps.

# %% [markdown]
# ### Evidence 1.3: the float count
#
# **The source.** The same constructor:
# `self.num_tokens = (H / self.patch_size) * (W / self.patch_size)`.
#
# **The comparison.** With Python's `/` the count is stored as 15.0. The count is what would size the position
# table, with one row per token plus one for the prediction token. The article's backbone never reads it, as
# entry 1.5 shows, so the float does no harm yet; it breaks the first line that sizes a tensor with it, as the
# cell in 1.3 shows. The article's own walk-through, a few cells earlier, counts
# the same patches with `N = int((H*W)/(P**2))`, an integer, and so does the position-embedding article. Use
# `//` once the divisibility is checked, or unfold's own formula.

# %% [markdown]
# ### Evidence 1.4: the printed 1001
#
# **The source.** Section *Prediction Processing*, its first two cells. The input is
# `x = torch.rand(batch, num_tokens, token_len)` with `num_tokens = 176`, `token_len = 768` and `batch = 1`. The
# next cell runs `norm = nn.LayerNorm(token_len)` and `x = norm(x)`. The output shown under it reads "number of
# tokens: 1001", then "token size: 768".
#
# **The comparison.** A layer norm normalises each token over its own 768 numbers, so the shape stays
# `(1, 176, 768)`. Perhaps the line is left from a run with other sizes; the article does not say. Every stored
# output in this course is compared with a fresh run of its notebook by the course's tests (nbval), so such a
# mismatch fails them.

# %% [markdown]
# ### Evidence 1.5: unset attributes
#
# **The source.** Section *Complete Code*, class `ViT_Backbone`. Its constructor stores `self.num_heads`,
# `self.Encoding_hidden_chan_mul` and `self.depth`. Then it reads two attributes it never assigned:
# `self.cls_token = nn.Parameter(torch.zeros(1, 1, self.token_len))` and
# `get_sinusoid_encoding(num_tokens=self.num_tokens+1, token_len=self.token_len)`. It takes `token_len` as an
# argument without storing it. It has no argument for the number of tokens. The Tokens-to-Token article repeats
# the class unchanged.
#
# **The comparison.** An attribute of a module exists only once it has been assigned. So building the backbone
# stops with an `AttributeError` at `self.token_len`, the first of the two. The backbone needs the token length,
# which it could store, and the number of tokens, which only the tokenizer knows. In `vitcourse` the body reads
# the count from its tokenizer. For the picture with P = 20 that is 15 patches, so a table of 15 + 1 rows, as
# the cell in 1.5 prints.

# %% [markdown]
# ### Evidence 1.6: the extra v
#
# **The source.** Section *Encoding Block*, class `Encoding`: `x = x + self.attn(self.norm1(x))`. Its
# `self.attn` is the series' `Attention` module, shown in full in the attention article. That module's
# `forward` ends with `v = v.transpose(1, 2).reshape(B, N, self.chan)` and `x = v + x`. Its comment reads:
# "Because the original x has different size with current x, use v to do skip connection". The attention article
# says its changes to the official code include "consolidating the two attention modules into one".
#
# **The comparison.** ViT's equation 2 is
# $\mathbf{z}'_\ell = \text{MSA}(\text{LN}(\mathbf{z}_{\ell-1})) + \mathbf{z}_{\ell-1}$: one residual, and no
# $\mathbf{v}$. The skip through $\mathbf{v}$ is what T2T's token transformer needs, because there the token
# length changes. In the official T2T-ViT code only the token transformer's attention adds $\mathbf{v}$. The
# encoder block's attention, in `transformer_block.py`, does not. The attention half of the article's block
# therefore computes $\mathbf{z} + \mathbf{v} + \text{attention}$, where $\mathbf{v}$ comes from
# $\text{LN}(\mathbf{z})$; its MLP half is the usual one. The cell below measures how large the extra term is at
# initialisation, against attention's own output. It rebuilds entry 1.6's 2 images of 16 random tokens.

# %%
torch.manual_seed(0)
z = torch.randn(2, 16, 64)  # entry 1.6's input: 2 images, 16 tokens of length 64
plain = Attention(64, 64, num_heads=4, v_skip=False)  # entry 1.6's attention without the extra v
with torch.no_grad():
    out_plain, steps = plain.steps(z)
v_merged = steps.v.transpose(1, 2).reshape(2, 16, 64)  # the extra term, heads side by side
ratio = (v_merged.norm() / out_plain.norm()).item()
print(f"size of v against attention's own output (norms): {fixed(ratio, 1)}")

# %% [markdown]
# The extra term is not small. With these freshly initialised weights and these inputs, it outweighs the
# attention output it is added to.

# %% [markdown]
# ### Evidence 1.7: the start
#
# **The source.** Section *Token Processing*: the prediction token "starts off blank — equivalently zero". The
# walk-through builds it with `torch.zeros(1, 1, token_len).expand(batch, -1, -1)`. Class `ViT_Backbone` creates
# it with `torch.zeros(1, 1, self.token_len)`, then calls `timm.layers.trunc_normal_(self.cls_token, std=.02)`.
#
# **The comparison.** Both starts are in use, and the token is a learned parameter either way. ViT's official
# code starts the class token at zero. The articles' backbone, the official T2T-ViT code and `vitcourse` all draw
# it with standard deviation 0.02. All three call a "truncated" normal, but only `vitcourse` really cuts it, at
# ±2 standard deviations, that is ±0.04. The other two call `trunc_normal_(std=.02)` with its default bounds.
# Those bounds are absolute values, −2 and 2: 100 standard deviations away. In effect they draw a plain normal;
# notebook 03 explains the cut. Read the text as describing the walk-through, and the code as what the model
# does. The cell draws 100,000 values each way.

# %%
torch.manual_seed(0)
for label, bounds in (("default bounds -2, 2", {}), ("vitcourse's -0.04, 0.04", {"a": -0.04, "b": 0.04})):
    draws = nn.init.trunc_normal_(torch.empty(100_000), std=0.02, **bounds)
    print(
        f"trunc_normal_(std=0.02), {label:23s}: {(draws.abs() > 0.04).float().mean().item():.1%} beyond 0.04"
    )

# %% [markdown]
# ### Evidence 1.8: the name
#
# **The source.** Section *Encoding Block*, the walk-through: "After the Attention module, we implement our first
# split connection", later "We finish with the second split connection". The printed lines read "After split
# connection". The Tokens-to-Token article's token-transformer walk-through uses the same name: "The last step is
# the split connection".
#
# **The comparison.** These are *skip* connections, also called residual connections:
# $\mathbf{z}'_\ell = \text{MSA}(\text{LN}(\mathbf{z}_{\ell-1})) + \mathbf{z}_{\ell-1}$. The attention article
# says "skip connection", and the series' attention module marks the line `## Skip Connection Layer`.

# %% [markdown]
# ### Evidence 1.9: the misspelt setting
#
# **The source.** Section *Complete Code*. The signature of `ViT_Model` has
# `Encoding_hidden_chan_mul: float=4.`. The paragraph under the class says: "The num_heads,
# Encoding_hidden_channel_mul, qkv_bias, qk_scale, and act_layer parameters define the Encoding Bock modules."
#
# **The comparison.** Passed by the name in the text, Python refuses the setting, as the cell in 1.9 shows. The
# default multiplier, 4, gives ViT-Base's MLP width: 4 × 768 = 3072. The encoder blocks of the transformers this
# course trains use an MLP ratio of 2, so their MLPs are, for their token length, half as wide as ViT's.

# %% [markdown]
# ### Evidence 1.10: the official ViT code
#
# **The source.** Section *Model Walk-Through*: "However, code from this paper is not publicly available." The
# list of code at the end of the article says of the ViT paper's repository: "Contains pretrained models and
# code for fine-tuning; does not contain model definitions". To *pre-train* a model is to train it first on a
# large data set; to *fine-tune* it is then to train it a little more on the task one cares about.
#
# **The comparison.** The ViT paper's repository, `google-research/vision_transformer`, has defined the model
# since 2020, in JAX and Flax. The model was first defined in `vit_jax/models.py`; today it is defined in
# `vit_jax/models_vit.py`, with the classes `VisionTransformer`, `Encoder`, `Encoder1DBlock` and `AddPositionEmbs`. The course takes its facts
# about the official ViT from that code. The class token starts at zero. The position table is learned, starting
# from N(0, 0.02²). An encoder block computes $\mathbf{x} = \mathbf{z} + \text{MSA}(\text{LN}(\mathbf{z}))$,
# then $\mathbf{x} + \text{MLP}(\text{LN}(\mathbf{x}))$, with no $\mathbf{v}$ term.
#
# The cell transcribes that block into plain PyTorch. `nn.MultiheadAttention` stands for Flax's attention;
# dropout is left out; the norms and the MLP are taken from the block. It runs with the weights of `vitcourse`'s
# `EncoderBlock`.


# %%
def official_encoder_block(x: torch.Tensor, blk: EncoderBlock, mha: nn.MultiheadAttention) -> torch.Tensor:
    """ViT's Encoder1DBlock (vit_jax/models_vit.py) in PyTorch: (B, N, D) -> (B, N, D)."""
    h = blk.norm1(x)
    x = x + mha(h, h, h, need_weights=False)[0]  # attention branch, then the skip
    return x + blk.mlp(blk.norm2(x))  # MLP branch, then the skip


torch.manual_seed(0)
z = torch.randn(2, 16, 64, device=device)  # 2 images, 16 tokens of length 64
block = EncoderBlock(64, num_heads=4).to(device).eval()
mha = nn.MultiheadAttention(64, 4, batch_first=True).to(device).eval()
with torch.no_grad():
    mha.in_proj_weight.copy_(block.attn.qkv.weight)  # rows: q, then k, then v, in both layouts
    mha.in_proj_bias.copy_(block.attn.qkv.bias)
    mha.out_proj.weight.copy_(block.attn.proj.weight)
    mha.out_proj.bias.copy_(block.attn.proj.bias)
    same = torch.allclose(official_encoder_block(z, block, mha), block(z), atol=1e-5)
print(f"the official block, transcribed, equals vitcourse's EncoderBlock: {same}")

# %% [markdown]
# ## Evidence: the attention article
#
# The article is "Attention for Vision Transformers, Explained".

# %% [markdown]
# ### Evidence 2.1: the other module
#
# **The source.** Section *Multi-Headed Attention*, its last cell, which projects and adds the skip. It builds
# `MSA = Attention(dim=token_len, chan=channels, num_heads=num_heads, ...)`, then merges the heads of $\mathbf{v}$
# with `v = v.transpose(1, 2).reshape(B, N, A.chan)`. `A` is the single-head module of section *Single-Headed
# Attention*.
#
# **The comparison.** The line should read `MSA.chan`, the module's own width. Both modules have 64 channels, so
# it runs. Run the section on its own and `A` does not exist. Give the single-head module another width and the
# reshape fails, as the cell in 2.1 shows with 32 channels.

# %% [markdown]
# ### Evidence 2.2: the shape comment
#
# **The source.** The class `Attention` at the top of the article, its `forward`:
# `x = (attn @ v).transpose(1, 2).reshape(B, N, self.chan)`, and under it the comment
# `#### Dimensions: (batch, heads, num_tokens, chan)`.
#
# **The comparison.** Before the merge the shape is `(batch, heads, num_tokens, chan / heads)`. The transpose and
# reshape on that line remove the heads axis and give `(batch, num_tokens, chan)`. The cell in 2.2 prints both.

# %% [markdown]
# ### Evidence 2.3: the PyTorch class
#
# **The source.** The conclusion: "PyTorch also has torch.nn.MultiheadedAttention() layers, which compute
# attention as defined above." Its reference links to the page of `torch.nn.MultiheadAttention`.
#
# **The comparison.** `torch.nn.MultiheadAttention` computes standard multi-head attention. Its output has the
# width of its input, `embed_dim`, and it adds no $\mathbf{v}$. The article's module adds $\mathbf{v}$ and can
# change the token length. Notebook 05 checks `vitcourse`'s attention against PyTorch's class. The cell runs it
# on 2 images of 16 random tokens of length 64: the output keeps the input's shape.

# %%
torch.manual_seed(0)
z = torch.randn(2, 16, 64, device=device)  # 2 images, 16 tokens of length 64
mha = nn.MultiheadAttention(embed_dim=64, num_heads=4, batch_first=True).to(device)
print(f"nn.MultiheadAttention on {tuple(z.shape)}: {tuple(mha(z, z, z)[0].shape)}")

# %% [markdown]
# ### Evidence 2.4: the weight count
#
# **The source.** The conclusion: the weights of the QKV projection number input_token_len · chan · 3, and
# those of the final projection chan². The module defines `self.qkv = nn.Linear(dim, chan * 3, bias=qkv_bias)`,
# with `qkv_bias` False by default, and `self.proj = nn.Linear(chan, chan)`.
#
# **The comparison.** `nn.Linear` has its bias on by default, so the projection learns chan² + chan numbers. For
# the walk-through's sizes, 49 → 64, the cell in 2.4 counts 9,408 and 4,160.

# %% [markdown]
# ## Evidence: the position-embedding article
#
# The article is "Position Embeddings for Vision Transformers, Explained".

# %% [markdown]
# ### Evidence 3.1: the colour range
#
# **The source.** Section *Applying Position Embedding to Tokens*. The table for the picture's tokens is built with
# `get_sinusoid_encoding(num_tokens=15, token_len=400)` and drawn with `plt.imshow(PE, aspect=5, cmap='PuOr_r')`
# and `plt.clim([0, 1])`. The text then says: "Purple areas in the position embedding will make the tokens
# darker, while orange areas will make them lighter." The article's earlier plots of the 176 × 768 table use
# `plt.clim([-1, 1])`.
#
# **The comparison.** A sine or a cosine lies in [−1, 1], and so does every entry of the table. With [0, 1], the
# colour map's darkest purple, meant for −1, goes to 0. Every negative entry gets the colour of a zero. The
# figure in 3.1 says what to look at.

# %% [markdown]
# ### Evidence 3.2: the cast
#
# **The source.** The same section, the cell that turns the picture's patches into 15 tokens:
# `patch = gray_mountains[top_y[i]:bottom_y[i], left_x[i]:right_x[i]]`, then `tokens = tokens.astype(int)` and
# `tokens = tokens/255`. The next cells compute `mountainsPE = tokens + PE` and rescale `position_mountains`.
# Neither `gray_mountains` nor `position_mountains` is defined in the article. The picture it loads,
# `mountains`, holds values between zero and one, as the article says.
#
# **The comparison.** On values in [0, 1] the cast rounds towards zero. After the division, all that is left is
# 1/255 where a pixel was exactly 1: far too little to see beside the table's ±1. The cast and the division
# would suit an image stored as grey levels from 0 to 255, which the article does not show. The cell does both
# steps on the picture in use. It measures how much of the picture survives in "tokens + table", by its
# correlation with the picture's tokens: Pearson's correlation, `torch.corrcoef`, is 1 when two lists of numbers
# rise and fall together in proportion, 0 when one says nothing linear about the other. The numbers it prints
# belong to the picture in use.

# %%
patch_tokens = tokens.patchify(vitcourse.to_tensor(picture), 20)[0].double()  # (15, 400), values in [0, 1]
cast = patch_tokens.long() / 255  # astype(int), then / 255
table = sinusoidal_table(15, 400)  # the table of 3.1
print(
    f"the picture in use: {patch_tokens.unique().numel()} grey levels from {fixed(patch_tokens.min().item())} "
    f"to {fixed(patch_tokens.max().item())}"
)
print(f"share of the picture that became 0: {(cast == 0).double().mean().item():.0%}")
pe = table.double()
for name, toks in (("tokens in [0, 1]", patch_tokens), ("tokens after the cast", cast)):
    corr = torch.corrcoef(torch.stack([(toks + pe).flatten(), patch_tokens.flatten()]))[0, 1].item()
    print(f"{name:22s}: correlation of tokens + table with the picture's tokens {fixed(corr)}")

# %% [markdown]
# The higher the correlation, the more of the picture shows through the table; near 0, none of it does.

# %% [markdown]
# ### Evidence 3.3: equivariant and invariant
#
# **The source.** Section *Attention Invariance Up to Permutation*: "The component of the transformer that would be
# invariant to token order is the attention module". The demo is introduced as meant "to demonstrate the
# invariance of attention to token order". The article's summary after the demo says that the output has "the
# same token rows changed". Its first section, *Why Use Position Embeddings?*, says that without a position
# embedding, transformers are invariant to the order of the tokens.
#
# **The comparison.** The demo and the summary describe equivariance, and the heading's "invariance up to
# permutation" means it too. The first section is right about predictions. A prediction read from the
# prediction token, or from the mean of the tokens, does not change at all when the patches are permuted. The
# cell runs a whole ViT without position table on the picture and on a copy with its patches scrambled.

# %%
torch.manual_seed(0)
blind = VisionTransformer(
    (height, width), patch_size=20, embed_dim=64, depth=2, num_heads=4, pos_embed="none"
)
blind = blind.to(device).eval()
scrambled = scramble_patches(vitcourse.to_tensor(picture), 20, torch.Generator().manual_seed(0)).to(device)
with torch.no_grad():
    same = torch.allclose(blind(image), blind(scrambled), atol=1e-5)
print(f"ViT without position embedding: the same prediction for the scrambled picture (invariant): {same}")

# %% [markdown]
# ### Evidence 3.4: why the softmax keeps it
#
# **The source.** The same section. The article first gives the attention formula, with its scale $1/\sqrt{d_k}$
# and its softmax. Then it uses "4 tokens of projected length 9", drawn with `np.random.randint(1, mx, shape)` and
# `mx = 20`, so values 1 to 19. It swaps rows 0 and 2 with `swapQ[[0, 2]] = swapQ[[2, 0]]`, and the same for K and
# V. It computes `A = Q @ K.transpose()`, then `A = A @ V`.
#
# **Why the conclusion still holds.** The scale is one number. The softmax acts on each row on its own and treats
# a row's entries alike: permute the entries of a row, and its softmax comes out permuted the same way. That
# matters because the swap moves both rows and columns of $QK^\top$, so each row's entries are permuted too. The
# row swap of $V$ then puts them back in step. The demo shows this for two matrix products, not for attention;
# the cell in 3.4 shows it with the scale and the softmax.

# %% [markdown]
# ### Evidence 3.5: two matrices named A
#
# **The source.** The same demo: "The first matrix multiplication in the attention formula is Q·Kᵀ=A", then "The
# next matrix multiplication is A·V=A". The code follows suit, with `A = A @ V`.
#
# **The comparison.** The first $A$ is $N \times N$; the second is $N \times d$, as long as the tokens. An
# equation that reads $A \cdot V = A$ says that multiplying by $V$ leaves $A$ as it was. The cell in 3.5 prints
# the two shapes, `(4, 4)` and `(4, 9)`.

# %% [markdown]
# ### Evidence 3.6: what the Transformer paper compared
#
# **The source.** Section *Position Embeddings in Literature*. On *Attention Is All You Need*: "they use a fixed
# sinusoidal positional embedding. They note that they experimented with a learned positional embedding, but
# observed 'nearly identical results.'" On the ViT paper, after its ablation of no, 1-D, 2-D and relative
# embeddings: "This is congruent with the results in [1] that a position embedding is beneficial, though the
# exact embedding chosen is of little consequence." The article's reference [1] is Vaswani et al. (2017),
# arXiv 1706.03762.
#
# **The comparison.** *Attention Is All You Need* gives its sinusoidal encoding in section 3.5 and adds that
# learned positional embeddings "produced nearly identical results (see Table 3 row (E))". Every variant in that
# table has a position encoding of one kind or the other; none leaves it out. So the paper supports "the exact
# embedding chosen is of little consequence". On whether an embedding helps it gives an argument, not a result:
# a model with no recurrence and no convolution needs some information about the order of the tokens. The
# comparison with no embedding at all is the ViT paper's Appendix D.4, which
# [notebook 11](11_training_choices.ipynb#Evidence:-position-embeddings-in-the-ViT-paper) quotes.

# %% [markdown]
# ## Evidence: the Tokens-to-Token article
#
# The article is "Tokens-to-Token Vision Transformers, Explained".

# %% [markdown]
# ### Evidence 4.1: the refused settings
#
# **The source.** Section *Complete Code*, class `T2T_ViT`. It builds `Tokens2Token(img_size = ...,
# softsplit_kernels = ..., num_heads = ..., token_chan = ..., token_len = ..., hidden_chan_mul = ..., qkv_bias =
# qkv_bias, qk_scale = qk_scale, act_layer = act_layer, norm_layer = norm_layer)`. Its docstring documents
# `softsplit_kernels` as the "size of the square kernel for each of the soft split layers". The `Tokens2Token`
# class of section *All Together* takes `img_size`, `token_chan` and `token_len` only. Inside, it fixes its soft
# splits at kernels 7, 3 and 3, its token transformers at 1 head and `hidden_chan_mul=1.0`.
#
# **The comparison.** Python refuses keyword arguments that a function does not have. The cell checks the names
# against a function with the same three parameters, and shows `vitcourse`'s setting for the soft splits.


# %%
def article_tokens2token(
    img_size: tuple[int, int, int] = (1, 1000, 300), token_chan: int = 64, token_len: int = 768
) -> None:
    """Stands in for the article's Tokens2Token constructor, as in 4.1: these three settings and no others."""


passed = ["img_size", "softsplit_kernels", "num_heads", "token_chan", "token_len", "hidden_chan_mul"]
passed += ["qkv_bias", "qk_scale", "act_layer", "norm_layer"]  # what T2T_ViT hands it, by name
accepted = set(inspect.signature(article_tokens2token).parameters)
print(f"passed but not accepted: {', '.join(sorted(set(passed) - accepted))}")
t2t_vit = T2TViT(
    (height, width), stages=((7, 4, 2), (3, 2, 1), (3, 2, 1)), embed_dim=64, depth=1, num_heads=4
)
print("vitcourse, token grid after each soft split:", [tuple(g[:2]) for g in t2t_vit.tokens_to_token.grids])

# %% [markdown]
# ### Evidence 4.2: the misspelt module
#
# **The source.** Class `T2T_ViT`, method `_init_weights`: `timmm.trunc_normal_(m.weight, std=.02)`. The same
# article's `ViT_Backbone` calls `timm.layers.trunc_normal_(self.cls_token, std=.02)`. The Vision Transformers
# article's `ViT_Model`, in its own `_init_weights`, writes `timm.layers.trunc_normal_(m.weight, std=.02)`.
#
# **The comparison.** The model initialises its weights at the end of its constructor, with
# `self.apply(self._init_weights)`. That comes after it builds its T2T module, which fails as in 4.1, and its
# backbone, which fails as in 1.5. PyTorch has the same function as `nn.init.trunc_normal_`. Its cut-off points
# `a` and `b` are absolute values, −2 and 2 by default, not multiples of the standard deviation. With std 0.02
# the defaults lie 100 standard deviations out and in effect cut nothing. So about one weight in twenty lies
# beyond 2 standard deviations; notebook 03 shows what that means. The cell draws the 64 × 576 weights of a
# linear layer both ways.

# %%
torch.manual_seed(0)
for label, bounds in (("default bounds -2, 2", {}), ("vitcourse's -0.04, 0.04", {"a": -0.04, "b": 0.04})):
    weight = nn.init.trunc_normal_(torch.empty(64, 576), std=0.02, **bounds)
    beyond = (weight.abs() > 0.04).float().mean().item()
    print(f"nn.init.trunc_normal_, {label:23s}: {weight.numel():,} weights, {beyond:.1%} beyond 0.04 (2 std)")

# %% [markdown]
# ### Evidence 4.3: the name B
#
# **The source.** Section *All Together*, the walk-through's first reconstruction:
# `x = x.transpose(1,2).reshape(B, T2T.token_chan, H, W)`. The walk-through defines `batch = 13` and never
# assigns `B`. Its second reconstruction writes `reshape(batch, T2T.token_chan, H, W)`. Section *Image
# Reconstruction* before it writes `B` in a general example and says that B is the batch size; that is fine.
#
# **The comparison.** The module's own `forward` reads `B, C, H, W = x.shape` first. The cell in 4.3 does the
# same, and matches `vitcourse`'s `rebuild_image` on the walk-through's 13 items of 2500 tokens of length 64,
# a 100 × 25 grid.

# %% [markdown]
# ### Evidence 4.4: the order of the results
#
# **The source.** Section *Soft Split*: `def count_tokens(w, h, k, s, p)`, whose docstring lists under Returns
# `new_w`, `new_h` and `total`. The article's code unpacks it as `W, H, _ = count_tokens(w=W, h=H, ...)` and as
# `patches_w, patches_h, total_patches = count_tokens(...)`, always width first.
#
# **The comparison.** Nothing is wrong, but images, tensors and the article's printed shapes all put the height
# first. A swapped grid raises no error, because a reshape checks only the number of elements. The figure in 4.4
# takes each window's centre pixel as its one value. `vitcourse.count_tokens` returns
# `TokenCount(rows, cols, total)`, so each field is read by its name.

# %% [markdown]
# ### Evidence 4.5: the two scales
#
# **The source.** Section *Token Transformer*, class `TokenTransformer`, built on the attention article's module.
# That module sets `self.head_dim = self.chan // self.num_heads` and `self.scale = qk_scale or self.head_dim **
# -0.5`. In the T2T module, `chan` is 64 and the heads number 1 at both stages, so the scale is $64^{-1/2} = 1/8$.
#
# **The comparison.** The official T2T-ViT code, in `token_transformer.py`, takes the head width from the input
# token length, `dim`, before the projection. That gives $49^{-1/2} = 1/7$ at the first stage and
# $576^{-1/2} = 1/24$ at the second. The official one is needed to reproduce the official models.

# %% [markdown]
# ### Evidence 4.6: the printed line
#
# **The source.** Section *All Together*. The final soft split prints
# `print('They should be of length 3*3*64=', 3*3*64)`. The output shown under it reads "They should be of length
# 3 * 3 * 64 = 576". The second soft split's line prints its parts as separate arguments:
# `print('They should be of length', k, '*', k, '*', T2T.token_chan, '=', k*k*T2T.token_chan)`.
#
# **The comparison.** The text inside quotes comes out as it is, without spaces. The output shown is what the
# second soft split's line writes. The cell runs both lines and compares them with the output shown.

# %%
shown = "They should be of length 3 * 3 * 64 = 576"  # the output the article shows
k_side, token_chan = 3, 64
final_line = io.StringIO()
with contextlib.redirect_stdout(final_line):
    print("They should be of length 3*3*64=", 3 * 3 * 64)  # the final soft split's line
second_line = io.StringIO()
with contextlib.redirect_stdout(second_line):  # the second soft split's line
    print("They should be of length", k_side, "*", k_side, "*", token_chan, "=", k_side * k_side * token_chan)
for form, buffer in (("final split's line ", final_line), ("second split's line", second_line)):
    printed = buffer.getvalue().rstrip("\n")
    print(f"{form} prints {printed!r}; the output shown: {printed == shown}")

# %% [markdown]
# ### Evidence 4.7: x and y
#
# **The source.** Section *Token Transformer*, the walk-through's second half. It runs `y = TT.norm2(x)`, then
# `y = TT.neuralnet(y)`, then `y = y + x`. After each line it prints `x.shape[0]`, `x.shape[1]` and `x.shape[2]`.
#
# **The comparison.** The lines report the state before the MLP, whatever the MLP does. The cell in 4.7 follows
# the walk-through's steps with `vitcourse`'s token transformer. It uses the walk-through's sizes: 13 items of 100
# tokens of length 49, 64 channels, 4 heads and an MLP ratio of 1.5. Only `y` is the module's output.

# %% [markdown]
# ### Evidence 4.8: three differences
#
# **The source.** Section *ViT Backbone*: the backbone "is identical to the backbone of the ViT model described
# in [2]", the ViT paper. The class it reproduces is `ViT_Backbone`, with `num_heads: int=1` and
# `self.pos_embed = nn.Parameter(data=get_sinusoid_encoding(...), requires_grad=False)`.
#
# **The comparison.** First, its position table is the fixed sinusoidal one. ViT learns its table: a parameter,
# drawn from N(0, 0.02²) in the official code. The fixed table is T2T-ViT's choice, so the backbone is T2T-ViT's
# rather than ViT's. Second, it has one attention head by default; ViT-Base has 12, ViT-Large and ViT-Huge 16.
# Third, its encoder blocks add $\mathbf{v}$, as in 1.6, which no official backbone does. The cell in 4.8 builds
# both kinds of table and reads the heads of `vitcourse`'s defaults, which are ViT-Base's.

# %% [markdown]
# ### Evidence 4.9: the heads
#
# **The source.** Section *Complete Code*, the docstring of `T2T_ViT`: "num_heads(int): number of attention heads
# in MSA (only works if =1)".
#
# **The comparison.** The official T2T-ViT code's token attention reshapes q, k and v with the whole output width
# per head, and adds `v.squeeze(1)`. Both need one head. The series' attention module splits the width with
# `head_dim = chan // num_heads`. So it works with any number of heads that divides `chan`. The article's own
# token-transformer walk-through runs it with `heads = 4`. In `T2T_ViT` the T2T module fixes its own heads at 1,
# as 4.1 shows. So the setting matters only in the backbone, where any number that divides the token length
# works. The cell in 4.9 runs the official reshape and the series' one on the walk-through's sizes with 4 heads.

# %% [markdown]
# ## Evidence: the lecture slides
#
# The slides are "ViT (Vision Transformer)". Entries 5.3 and 5.6 to 5.9 come from their part 2, *A Bit More
# Detail*; the others come from part 3, *Selected Implementation Details*.

# %% [markdown]
# ### Evidence 5.1: the image size
#
# **The source.** The slide *ViT – Selected Implementation Details – Equation 1*. Its code sets `h = 224`,
# `w = 224`, `c = 3` and `ps = 16`, and builds `nn.Conv2d(in_channels = 3, out_channels = 768, kernel_size =
# (ps, ps), stride = ps, ...)`. Under it: "shape of input 224 x 244 x 3 image after nn.Conv2d: ([768, 14, 14])".
#
# **The comparison.** A 244-pixel-wide image gives 244 // 16 = 15 columns of patches, with 4 columns of pixels
# left over: `[768, 14, 15]`, as the cell in 5.1 prints. The slide writes the size as height × width ×
# channels; the tensor that PyTorch's `nn.Conv2d` takes puts the channels first, `(B, 3, 224, 224)`.

# %% [markdown]
# ### Evidence 5.2: the shape of the table
#
# **The source.** The slide *ViT – Selected Implementation Details – Equation 2*, with the `nn.LayerNorm` and
# `nn.MultiheadAttention` code, repeats equation 1 beside it. There it writes
# $\mathbf{E}_{pos} \in \mathbb{R}^{P^2 \times D}$. Every other slide that shows equation 1 writes
# $\mathbb{R}^{(N+1) \times D}$, as the paper does.
#
# **The comparison.** The slides' own code makes the table `torch.ones(1, 197, 768)`: 196 patches plus one class
# token. The cell in 5.2 prints N = 196 and $P^2 = 256$.

# %% [markdown]
# ### Evidence 5.3: the order of the product
#
# **The source.** The slide on self-attention says: "Following text was taken from
# https://arxiv.org/pdf/2012.12556", the survey *A Survey on Vision Transformer* by Han et al. Its step 4 reads
# "Obtain the weighted value matrix with Z = V · P". The text under it says that "each value vector is multiplied
# by the sum of the probabilities". The unified formula on the same slide is
# $\text{softmax}(Q K^\top / \sqrt{d_k}) \cdot V$.
#
# **The comparison.** $P$ is $N \times N$, one row of weights per query. $V$ is $N \times d_v$, one row per
# token. $P \cdot V$ gives each query the weighted average of the value rows, $N \times d_v$. Each value vector is
# multiplied by its own probability, and the results are summed. $V \cdot P$ is not even defined unless
# $d_v = N$, and then it computes something else. The cell in 5.3 checks $P \cdot V$ against PyTorch's
# `scaled_dot_product_attention`.

# %% [markdown]
# ### Evidence 5.4: one token per model
#
# **The source.** The slide *ViT – Selected Implementation Details – Equation 1* with the class token:
# `class_token = nn.Parameter(torch.ones(batch_size, 1, 768))`, then
# `z_0_with_class = torch.cat((class_token, block_out_permute), dim=1)`.
#
# **The comparison.** ViT's official code creates a `(1, 1, D)` token and tiles it over the batch. timm and
# `vitcourse` expand theirs. With the slides' shape the model holds `batch_size` different tokens. Each is
# trained only by the images in its slot of the batch. Notebook 06 shows this in full, where it builds the
# prediction token. The cell counts the parameters of both tokens.

# %%
slides_token = nn.Parameter(torch.ones(32, 1, 768))  # the slides' shape, built for batches of 32
one_token = nn.Parameter(torch.zeros(1, 1, 768))  # one token, expanded to each batch
print(f"parameters: slides' token {slides_token.numel():,}, one token {one_token.numel():,}")

# %% [markdown]
# ### Evidence 5.5: the undefined names and the ones
#
# **The source.** The slides *ViT – Selected Implementation Details – Equation 1*. The patch embedding
# `block_permute` is an `nn.Sequential` that ends with `MyPermute((0, 2, 1))`. The class token is concatenated
# to `block_out_permute`. Both the class token and `position_embeddings = nn.Parameter(torch.ones(1, 197, 768))`
# start from ones.
#
# **The comparison.** Neither `MyPermute` nor `block_out_permute` is defined on the slides. One can also call
# `.transpose(1, 2)` after the `nn.Sequential` instead of a permute layer. Starting from ones runs, but it is a
# poor start for the position table. All 197 rows are the same vector, so at the start the table adds the same
# thing to every token. Only training can pull the rows apart. ViT's official code draws each entry from
# N(0, 0.02²), and starts the class token at zero. The cell counts the distinct rows of each start.

# %%
from_ones = torch.ones(1, 197, 768)
from_normal = torch.randn(1, 197, 768, generator=torch.Generator().manual_seed(0)) * 0.02
for name, start in (("torch.ones", from_ones), ("N(0, 0.02^2)", from_normal)):
    print(f"position table from {name:12s}: distinct rows {start[0].unique(dim=0).shape[0]} of 197")

# %% [markdown]
# ### Evidence 5.6: equation 4
#
# **The source.** Part 2 shows the paper's four equations on several slides. On one, the one that goes on with the
# paper's sentence "We use standard learnable 1D position embeddings ...", the last line reads
# $\mathbf{z} = \text{LN}(\mathbf{z}^0) \quad (4)$. The slides before and after it read
# $\mathbf{y} = \text{LN}(\mathbf{z}_L^0) \quad (4)$, as the paper and the lab report do.
#
# **The comparison.** In the paper, the subscript of $\mathbf{z}$ counts blocks and the superscript picks a
# token: $\mathbf{z}_L^0$ is token 0 of the output of the last of the $L$ blocks. The paper counts those blocks
# from 1; the course counts them from 0, so $\mathbf{z}_L$ comes out of `model.blocks[L - 1]`. The prediction
# token enters as $\mathbf{z}_0^0 = \mathbf{x}_\text{class}$, the same learned vector for every image, plus row 0
# of the position table, also the same for every image. Only the blocks let it gather the patches. The cell in
# 5.6 shows that the normalised token 0 before the blocks is the same for the picture and its mirror image, and
# that $\mathbf{y}$ is not.

# %% [markdown]
# ### Evidence 5.7: what 1706.03762 proposed
#
# **The source.** The part 2 slide on self-attention begins "Self attention was proposed in
# https://arxiv.org/pdf/1706.03762". The article series dates transformers from that paper: "Since their
# introduction in 2017 with Attention is All You Need". The attention article examines "dot-product (equivalently
# multiplicative) attention as defined in Attention is All You Need". The lab report: "The ViT employs the
# transformer encoder architecture proposed in [2]. This encoder utilizes an attention mechanism called 'Scaled
# Dot-Product Attention'".
#
# **The comparison.** The series' and the lab report's lines are right: the Transformer, its encoder and its
# scaled dot-product attention come from that paper. Only the slide's "self attention was proposed" is not.
# *Attention Is All You Need* says itself what came before. (A *transduction* model turns one sequence into
# another, such as a sentence into its translation.) Its abstract: "The dominant
# sequence transduction models are based on complex recurrent or convolutional neural networks that include an
# encoder and a decoder. The best performing models also connect the encoder and decoder through an attention
# mechanism." Its background section: "Self-attention, sometimes called intra-attention is an attention mechanism
# relating different positions of a single sequence in order to compute a representation of the sequence.
# Self-attention has been used successfully in a variety of tasks", with references. What it claims as new is the
# architecture: "the Transformer is the first transduction model relying entirely on self-attention to compute
# representations of its input and output without using sequence-aligned RNNs or convolution". Its scaled
# dot-product attention divides the scores by $\sqrt{d_k}$, which notebook 04 explains, and it runs several such
# heads in parallel, which notebook 05 builds.

# %% [markdown]
# ### Evidence 5.8: the width of a head
#
# **The source.** The part 2 slide headed "Following text was taken from https://arxiv.org/pdf/2012.12556", the
# survey *A Survey on Vision Transformer*, section 2.1 *Self-Attention*: "the input vector is first transformed
# into three different vectors: the query vector q, the key vector k and the value vector v with dimension
# $d_q = d_k = d_v = d_{model} = 512$". The lab report, section 3.3.2, following *Attention Is All You Need*:
# "the dimensions are set as $d_k = d_v = d_{model}/h = 64$" for ViT-B/16's $h$ = 12 heads.
#
# **The comparison.** The quoted section describes a single self-attention, where q, k and v can have the
# length $d_{model}$. But 512 is the width of the base Transformer, which *Attention Is All You Need* runs with 8
# heads, and there each head's q, k and v have length 512 / 8 = 64. ViT-B/16, whose 768 the slides' own code
# uses, has 12 heads: again 64 per head, as the lab report writes. The cell in 5.8 builds attention at
# both sizes and shows that the weights use $1/\sqrt{64}$, not $1/\sqrt{768}$.

# %% [markdown]
# ### Evidence 5.9: the MLP's activation
#
# **The source.** Two part 2 slides titled *MLP* show the paper's four equations beside the signature
# `torchvision.ops.MLP(in_channels: int, hidden_channels: List[int], norm_layer = None, activation_layer =
# <class 'torch.nn.modules.activation.ReLU'>, inplace = None, bias: bool = True, dropout: float = 0.0)`. Under the
# first one: "The MLP contains two layers with a GELU non-linearity."
#
# **The comparison.** `torchvision.ops.MLP` builds, for each width in `hidden_channels` but the last, a linear layer, the norm if given, the
# activation and a dropout, then a last linear layer and a dropout. With `hidden_channels=[3072, 768]` that is
# ViT-B's two layers, with a ReLU between them unless told otherwise. torchvision's own ViT builds its MLP block as
# `MLP(in_dim, [mlp_dim, in_dim], activation_layer=nn.GELU, ...)`. The ViT paper, timm, the official code and
# `vitcourse` use GELU; [notebook 06](06_encoder_block.ipynb#Evidence:-GELU-against-ReLU) compares the two
# functions. The cell below measures how far the two MLPs of 5.9 are apart on the same tokens, against the size of
# the output itself.

# %%
torch.manual_seed(0)
relu_mlp = nn.Sequential(
    nn.Linear(768, 3072), nn.ReLU(), nn.Linear(3072, 768)
)  # 5.9's MLPs (dropout 0 left out)
gelu_mlp = nn.Sequential(nn.Linear(768, 3072), nn.GELU(), nn.Linear(3072, 768))
gelu_mlp.load_state_dict(relu_mlp.state_dict())  # the same weights; only the activation differs
tokens_in = torch.randn(1, 197, 768)  # ViT-B/16's 197 tokens
with torch.no_grad():
    relu_out, gelu_out = relu_mlp(tokens_in), gelu_mlp(tokens_in)
gap = ((relu_out - gelu_out).norm() / gelu_out.norm()).item()
print(
    f"difference between the ReLU and the GELU outputs, relative to the GELU output (norms): {fixed(gap, 1)}"
)

# %% [markdown]
# ## Evidence: the MyViT equations, the preprint notes and the lab report

# %% [markdown]
# ### Evidence 6.1: the MyViT equations
#
# **The source.** The MyViT equations ("MyViT is simplified version of rwightman/pytorch-image-models"). The
# definitions: $N' = H \cdot W / P^2$, "the number of patches", and $N = N' + 1$, "the Transformer's sequence
# length". The input reads `\mathbf{x}{p} \in \mathbb{R}^{N' \times (P^2 \cdot C)}`; the embedding
# `\mathbf{z}{0} = [\mathbf{x}{class}\ ;\ \mathbf{x}{p}\mathbf{E}]+\mathbf{E}{pos}`; the blocks
# `\mathbf{z'}{l} = \mathrm{MSA}(~\mathrm{LN}(\mathbf{z}{l-1}))+\mathbf{z}{l-1}`; the output
# `\mathbf{y} = \mathrm{LN}(\mathbf{z}^{0}{L})`, with $\mathbf{y} \in \mathbb{R}^{D}$. The attention part: $d = D/h$,
# $\mathbf{U}_{qkv} \in \mathbb{R}^{D \times (3 \cdot d)}$, q, k and v in $\mathbb{R}^{N \times d}$, and
# `\mathrm{MSA}(\mathbf{z}) = [\mathrm{SA}{1}(\mathbf{z}) ; \mathrm{SA}{2}(\mathbf{z}) ; \cdots ; \mathrm{SA}{h}(\mathbf{z})] \mathbf{U}_{msa}`.
# A few subscripts keep their underscore, such as $\mathbf{z}_{l}$ and $\mathbf{U}_{msa}$.
#
# **The comparison.** In LaTeX, `\mathbf{z}{0}` is a bold z followed by a 0 at full size: the subscript is lost,
# and $\mathbf{z}^{0}{L}$ reads as token 0 of $\mathbf{z}$, then an $L$. The same copy ends its lines with `\`,
# not LaTeX's line break `\\`. Both are what a Markdown renderer can do to a README's LaTeX: it takes a pair of
# underscores for emphasis and drops them, and reads `\\` as an escaped `\`. So the slip is in the text as
# published or copied, and may come from its rendering, not from its author. The paper's forms are $\mathbf{x}_p$,
# $\mathbf{E}_{pos}$, $\mathbf{z}_0$, $\mathbf{z}'_\ell$, $\mathrm{SA}_1$ and $\mathbf{z}_L^0$. The shapes are
# right: one head's $\mathbf{U}_{qkv}$ is $D \times 3d$, the paper's $D \times 3D_h$ with $D_h = D/h$, and the
# $h$ heads side by side make the $D \times 3D$ weight of a qkv layer. The cell in 6.1 prints them for the picture.

# %% [markdown]
# ### Evidence 6.2: the preprint notes
#
# **The source.** The notes on the ViT preprint. The embedding:
# $z_0 = [\mathbf{x}_{\text{class}}, \mathbf{x}_1^{pE}, \mathbf{x}_2^{pE}, \dots, \mathbf{x}_N^{pE}] + E_{\text{pos}}$,
# followed by "where x_i^E are the patch embeddings", then the label (1). The blocks:
# $z'^{(\ell)} = \text{MSA}(\text{LN}(z^{(\ell-1)})) + z^{(\ell-1)}$, labelled (2), and
# $z^{(\ell)} = \text{MLP}(\text{LN}(z'^{(\ell)})) + z'^{(\ell)}$, labelled (3). The output:
# $\mathbf{y} = LN(z_0^{(L)})$, labelled (2) again.
#
# **The comparison.** The paper's equations are numbered (1) to (4), and its output equation is
# $\mathbf{y} = \text{LN}(\mathbf{z}_L^0)$. In the notes' own notation, equation (1)'s $z_0$ would be $z^{(0)}$,
# the sequence before the first block. The patch embeddings are written two ways, $\mathbf{x}_1^{pE}$ and
# $x_i^E$; the paper writes $\mathbf{x}_p^1 \mathbf{E}$, patch 1 flattened, times $\mathbf{E}$. The paper counts
# patches from 1; the course counts them from 0, so its patch 0 is the paper's $\mathbf{x}_p^1$ and, once the
# prediction token comes first, token 1. The notes' other sentences are right: the head has "one hidden layer at
# pre-training time" and is "a single linear layer at fine-tuning time", and "The MLP contains two layers with a
# GELU non-linearity."

# %% [markdown]
# ### Evidence 6.3: the head
#
# **The source.** The lab report, section 3 (the list of steps): "Classification using the MLP head ... The first
# output token from the transformer encoder is passed through a multi-layer perceptron (MLP) head". Section 3.4:
# "In the 'vit_base_patch16_224' model, the MLP head applies a linear transformation that maps the input dimension
# of 768 to the output dimension of 1000". Section 2: "an MLP with one hidden layer during pre-training, replaced by
# a single linear layer in fine-tuning, is applied to $\mathbf{z}_L^0$".
#
# **The comparison.** A multi-layer perceptron has at least one hidden layer between its input and its output.
# The head the report describes has none: 768 × 1000 weights and 1000 biases, as the cell in 6.3 counts.
# [Notebook 07](07_vision_transformer.ipynb#Evidence:-the-paper's-two-heads) builds both of
# the paper's heads. The report's section 2 has it right; only the name "MLP head", taken from the paper's
# Figure 1, stayed.
