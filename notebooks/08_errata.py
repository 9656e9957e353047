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
# # 08 · Appendix: errata of the sources
#
# This course grew from two pieces of teaching material that you may be reading beside it:
#
# - **the article series "Vision Transformers Explained"** by Skylar Jean Callis, four articles published in
#   *Towards Data Science* in February 2024: "Vision Transformers, Explained", "Attention for Vision
#   Transformers, Explained", "Position Embeddings for Vision Transformers, Explained" and "Tokens-to-Token Vision
#   Transformers, Explained". Each one walks through its model in PyTorch, and three of them use a 60 × 100 crop
#   of Luis Zuno's pixel-art *Mountain at Dusk*, which the course redraws as its own picture.
# - **the lecture slides "ViT (Vision Transformer)"**, which set the equations of the ViT paper beside short
#   PyTorch snippets (`nn.Conv2d` patching, the class token, `nn.LayerNorm`, `nn.MultiheadAttention`).
#
# Both are good guides, and both contain slips that a careful reader trips over: a printed output that does not
# match its code, a typo in a size, a line that cannot run. When the course and a source disagree, you should not
# have to wonder which one misread. This appendix lists each slip with
#
# - **where** it is (the article and its section, or the slide),
# - **what it says**, in our words,
# - **what is right**, and
# - a code cell that shows it, with `vitcourse` or plain PyTorch.
#
# Where the sources, the papers and the official code disagree, the course follows the papers, *An Image is
# Worth 16x16 Words: Transformers for Image Recognition at Scale* (Dosovitskiy et al., ICLR 2021; ViT; the
# articles cite its 2020 arXiv preprint) and *Tokens-to-Token ViT: Training Vision Transformers from Scratch on
# ImageNet* (Yuan et al., ICCV 2021; T2T-ViT), and their official code (`google-research/vision_transformer`,
# `yitu-opensource/T2T-ViT`). A few items below are marked *a difference, not a slip*: the source's code runs,
# but it departs from the official code, and the difference matters when you compare numbers. The course's own
# deliberate departures from the article series are explained where they come up (notebooks 03, 05 and 06).
#
# The cells that demonstrate an error catch it and print its type, so this notebook runs from top to bottom.
# Everything is seeded; the outputs are shapes, counts, yes/no answers and rounded numbers, the same on a CPU and
# a GPU. There are no exercises here.

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


# %% [markdown]
# ## 1. "Vision Transformers, Explained"
#
# The first article builds a ViT: patch tokenization, token processing (prediction token and position
# embedding), encoder blocks and prediction processing, then the complete model.
#
# ### 1.1 The patch module's default image size
#
# **Where.** Section *Image Tokenization*, the class `Patch_Tokenization`.
#
# **What it says.** The default image size is a tuple of four numbers, (1, 1, 60, 100), although the docstring
# describes three (channels, height, width) and the constructor unpacks it into three names. The default patch
# size is 50.
#
# **What is right.** Three numbers, (C, H, W) = (1, 60, 100), and a patch size that divides both sides, such as
# the article's own P = 20. With the defaults the module cannot be built: four numbers do not unpack into three
# names. Even with (1, 60, 100), a patch size of 50 divides the width but not the height, and the module's own
# check refuses it. The article's walk-through passes the sizes explicitly, so it never meets the defaults.

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
# **Where.** The same class, its `forward`.
#
# **What it says.** After `nn.Unfold` it swaps dimensions 1 and 0 (the token length and the batch), then
# applies the linear projection.
#
# **What is right.** `nn.Unfold` returns (B, P²C, N): batch, token length, number of tokens. The projection
# needs the token length last, (B, N, P²C), so dimensions 1 and 2 must be swapped. The article's own
# walk-through, a few cells later, does exactly that with `transpose(2, 1)`. With `transpose(1, 0)` the last
# axis holds the N = 15 tokens, where the linear layer expects 400 numbers, and the forward pass fails.

# %%
unfolded = nn.Unfold(kernel_size=20, stride=20)(image)  # (B, P*P*C, N) = (1, 400, 15)
project = nn.Linear(400, 768).to(device)
print(f"after nn.Unfold: {tuple(unfolded.shape)}")
for dims in ((1, 0), (2, 1)):
    swapped = unfolded.transpose(*dims)
    try:
        result = f"projected to {tuple(project(swapped).shape)}"
    except RuntimeError as err:
        result = (
            f"{type(err).__name__}: the layer needs 400 numbers on the last axis, it gets {swapped.shape[-1]}"
        )
    print(f"transpose{dims}: {tuple(swapped.shape)} -> {result}")
print(f"vitcourse's PatchTokenizer: {tuple(tokenizer(image).shape)}")

# %% [markdown]
# ### 1.3 The token count stored as a float
#
# **Where.** The same class, its constructor.
#
# **What it says.** It stores the number of tokens as (H / P) · (W / P), with Python's `/`.
#
# **What is right.** `/` always returns a float: the count is stored as 15.0, not 15. A float cannot size a
# tensor, and the count is what would size the position table (one row per token, plus one for the prediction
# token; the article's backbone never reads it, see 1.5). Use `//` once the divisibility is checked, or unfold's
# own formula for the count.

# %%
as_written = (60 / 20) * (100 / 20)
print(f"(60 / 20) * (100 / 20) = {as_written!r}, a {type(as_written).__name__}")
try:
    torch.zeros(1, as_written + 1, 768)  # a position table with one row per token, plus one
except TypeError as err:
    print(f"a table of {as_written + 1!r} rows: {type(err).__name__}")
print(
    f"(60 // 20) * (100 // 20) = {(60 // 20) * (100 // 20)!r}; vitcourse's count: {tokenizer.num_patches!r}"
)

# %% [markdown]
# ### 1.4 "number of tokens: 1001"
#
# **Where.** Section *Prediction Processing*, its first two cells: a batch of one, 176 tokens of length 768, goes
# through a layer norm, and the shape is printed before and after.
#
# **What it says.** After the layer norm the printed output reads "number of tokens: 1001".
#
# **What is right.** 176. A layer norm normalises each token over its own 768 numbers; it never changes how many
# tokens there are. The printed line does not match the code above it, most likely an output left over from a
# run with other sizes. (Every stored output in this course is checked by re-running the notebooks, so such a
# mismatch fails the tests.)

# %%
x = torch.randn(1, 176, 768, generator=torch.Generator().manual_seed(0)).to(device)  # (1, 176, 768)
normed = nn.LayerNorm(768).to(device)(x)
print(f"before the layer norm: {tuple(x.shape)}, after: {tuple(normed.shape)}")

# %% [markdown]
# ### 1.5 The backbone reads attributes it never sets
#
# **Where.** Section *Complete Code*, the class `ViT_Backbone`. The Tokens-to-Token article repeats the class
# unchanged.
#
# **What it says.** The constructor builds the prediction token from `self.token_len` and the position table from
# `self.num_tokens`, but never assigns either: it takes `token_len` as an argument without storing it, and it has
# no argument for the number of tokens at all.
#
# **What is right.** An attribute of a module exists only once it has been assigned, so building the backbone
# stops with an AttributeError at the first of them. The backbone needs the token length (an argument it can
# store) and the number of tokens, which only the tokenizer knows. In `vitcourse` the body reads the count from
# its tokenizer: for the picture with P = 20, 15 patches, so a table of 15 + 1 rows.


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
# **Where.** Section *Encoding Block*, the class `Encoding`, built on the series' single `Attention` module
# (shown in full in the attention article).
#
# **What it says.** That attention module always adds its values $\mathbf{v}$ (heads merged) to its output. It is
# the skip connection of T2T's token transformer, which needs it because there the token length changes. The
# encoder block then adds its input as well, so each block computes $\mathbf{z} + \mathbf{v} +
# \text{attention}$.
#
# **What is right.** ViT's equation (2) is $\mathbf{z}'_\ell = \text{MSA}(\text{LN}(\mathbf{z}_{\ell-1})) +
# \mathbf{z}_{\ell-1}$: one residual, and no $\mathbf{v}$. The article series says that it merged the official
# T2T code's two attention modules into one. In the official code only the token transformer's attention adds
# $\mathbf{v}$; the encoder block's attention (`transformer_block.py`) does not. In `vitcourse` the skip is an
# explicit switch, `Attention(v_skip=...)`: off in `EncoderBlock`, on in `TokenTransformer`. The cell shows that
# the extra term is exactly $\mathbf{v}$, and that at initialisation it is not small.

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
print(f"size of v against attention's own output (norms): {(v_merged.norm() / out_plain.norm()).item():.1f}")
print(f"vitcourse's EncoderBlock adds v: {EncoderBlock(64, num_heads=4).attn.v_skip}")

# %% [markdown]
# ### 1.7 The prediction token: zero in the text, random in the code (a difference, not a slip)
#
# **Where.** Section *Token Processing* and the class `ViT_Backbone`.
#
# **What it says.** The text says that the prediction token starts blank, that is zero, and the walk-through
# builds it from zeros. The backbone's code creates it as zeros and then overwrites it with draws from a
# truncated normal distribution (std 0.02).
#
# **What is right.** Both starts are in use, and the token is a learned parameter either way. ViT's official code
# starts the class token at zero. The articles' backbone, the official T2T-ViT code and `vitcourse` all draw it
# with std 0.02, and all three call a "truncated" normal, but only `vitcourse` really cuts it, at ±2 std (±0.04).
# The other two call `trunc_normal_(std=.02)` with its default bounds, which are absolute values, −2 and 2: that
# is 100 std away, so in effect they draw a plain normal (notebook 03 explains the cut). Read the text as
# describing the walk-through, and the code as what the model does. The cell draws 100,000 values each way.

# %%
torch.manual_seed(0)
for label, bounds in (("default bounds -2, 2", {}), ("vitcourse's -0.04, 0.04", {"a": -0.04, "b": 0.04})):
    draws = nn.init.trunc_normal_(torch.empty(100_000), std=0.02, **bounds)
    print(
        f"trunc_normal_(std=0.02), {label:23s}: {(draws.abs() > 0.04).float().mean().item():.1%} beyond 0.04"
    )
cls_token = vit.cls_token.detach()  # (1, 1, 64)
print(
    f"vitcourse's prediction token: shape {tuple(cls_token.shape)}, all zero: {bool((cls_token == 0).all())}"
)

# %% [markdown]
# ### 1.8 "Split connection"
#
# **Where.** Section *Encoding Block*, the walk-through: "we implement our first split connection", later "the
# second split connection", and the printed lines "After split connection". The Tokens-to-Token article's
# token-transformer walk-through uses the same name.
#
# **What it says.** It calls the additions `y = y + x` and `z = z + y` split connections.
#
# **What is right.** *Skip* connections, also called residual connections: the block's input skips the layer
# and is added to the layer's output, $\mathbf{z}'_\ell = \text{MSA}(\text{LN}(\mathbf{z}_{\ell-1})) +
# \mathbf{z}_{\ell-1}$. Nothing is split. The attention article, and the comments in the series' attention
# module, say "skip connection". The cell shows what the skip does: with the last layer of the attention branch
# and of the MLP branch set to zero, an encoder block hands its input on unchanged.

# %%
torch.manual_seed(0)
block = EncoderBlock(64, num_heads=4).to(device)
with torch.no_grad():
    for layer in (block.attn.proj, block.mlp.fc2):  # the last layer of each branch
        layer.weight.zero_()
        layer.bias.zero_()
    print(f"both branches silenced: the block returns its input exactly: {torch.equal(block(z), z)}")

# %% [markdown]
# ### 1.9 `Encoding_hidden_channel_mul`
#
# **Where.** Section *Complete Code*, the paragraph under the class `ViT_Model`.
#
# **What it says.** It names the setting of the encoder blocks' MLP width `Encoding_hidden_channel_mul`.
#
# **What is right.** `Encoding_hidden_chan_mul`, as the signature above it spells it (`vitcourse` calls it
# `mlp_ratio`, as timm does). Passed by the name in the text, Python refuses it. The cell checks that against a
# function with the model's parameter names.


# %%
def article_vit_model(
    img_size: tuple[int, int, int] = (1, 400, 100),
    patch_size: int = 50,
    token_len: int = 768,
    preds: int = 1,
    num_heads: int = 1,
    Encoding_hidden_chan_mul: float = 4.0,  # the article's spelling
    depth: int = 12,
) -> None:
    """Stands in for the article's ViT_Model constructor (its first seven parameters)."""


try:
    article_vit_model(Encoding_hidden_channel_mul=4.0)
except TypeError as err:
    print(f"TypeError: {err}")

# %% [markdown]
# ### 1.10 "Code from this paper is not publicly available"
#
# **Where.** Section *Model Walk-Through*, and the list of code at the end of the article.
#
# **What it says.** The ViT paper's code is not public; its GitHub repository holds pretrained models and
# fine-tuning code but "does not contain model definitions". So the article builds its ViT from the T2T-ViT code.
#
# **What is right.** The ViT paper's repository, `google-research/vision_transformer`, has defined the model
# since 2020, in JAX/Flax: `vit_jax/models.py`, now `vit_jax/models_vit.py` (classes `VisionTransformer`,
# `Encoder`, `Encoder1DBlock`, `AddPositionEmbs`). That code is where the facts this course takes from the
# official ViT come from: the class token starts at zero, the position table is learned, starting from
# N(0, 0.02²), and an encoder block is $\mathbf{x} = \mathbf{z} + \text{MSA}(\text{LN}(\mathbf{z}))$, then
# $\mathbf{x} + \text{MLP}(\text{LN}(\mathbf{x}))$, with no $\mathbf{v}$ term. The cell transcribes that block into plain
# PyTorch (`nn.MultiheadAttention` for Flax's attention, dropout left out, the norms and the MLP taken from the
# block) and runs it with the weights of `vitcourse`'s `EncoderBlock`.


# %%
def official_encoder_block(x: torch.Tensor, blk: EncoderBlock, mha: nn.MultiheadAttention) -> torch.Tensor:
    """ViT's Encoder1DBlock (vit_jax/models_vit.py) in PyTorch: (B, N, D) -> (B, N, D)."""
    h = blk.norm1(x)
    x = x + mha(h, h, h, need_weights=False)[0]  # attention branch, then the skip
    return x + blk.mlp(blk.norm2(x))  # MLP branch, then the skip


torch.manual_seed(0)
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
# ## 2. "Attention for Vision Transformers, Explained"
#
# The attention article walks through one attention module, first with one head, then with four, on a batch of
# 13 items of 100 tokens of length 49, projected to 64 channels.
#
# ### 2.1 The multi-head section uses the single-head module
#
# **Where.** Section *Multi-Headed Attention*, its last cell (projection and skip connection).
#
# **What it says.** The section builds its own four-head module, `MSA`, but when it merges the heads of
# $\mathbf{v}$ for the skip connection it takes the channel count from `A`, the single-head module of the previous
# section.
#
# **What is right.** `MSA.chan`, the module's own width. The line runs only because both modules happen to have
# 64 channels. Run the section on its own and `A` does not exist; give the single-head module another width and
# the reshape fails.

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
# ### 2.2 The shape comment after the heads are merged
#
# **Where.** The `Attention` class at the top of the article, its `forward`, the line that merges the heads.
#
# **What it says.** The comment under it gives the shape as (batch, heads, num_tokens, chan).
#
# **What is right.** (batch, num_tokens, chan): the transpose and reshape on that line have just removed the heads
# axis. Before the merge the shape is (batch, heads, num_tokens, chan / heads).

# %%
print(f"before the merge, weights @ v: {tuple(steps.heads.shape)}")
print(f"after the merge:               {tuple(steps.merged.shape)}")

# %% [markdown]
# ### 2.3 "torch.nn.MultiheadedAttention"
#
# **Where.** The article's conclusion.
#
# **What it says.** PyTorch has layers `torch.nn.MultiheadedAttention()` that compute attention as the article
# defined it.
#
# **What is right.** The class is `torch.nn.MultiheadAttention`, without "ed". It computes standard multi-head
# attention, whose output has the width of its input (`embed_dim`), with no skip through $\mathbf{v}$; the
# article's module adds $\mathbf{v}$ and can change the token length. Notebook 04 checks `vitcourse`'s attention
# against it.

# %%
print(f"torch.nn has MultiheadedAttention: {hasattr(nn, 'MultiheadedAttention')}")
print(f"torch.nn has MultiheadAttention:   {hasattr(nn, 'MultiheadAttention')}")
mha = nn.MultiheadAttention(embed_dim=64, num_heads=4, batch_first=True).to(device)
print(f"nn.MultiheadAttention on {tuple(z.shape)}: {tuple(mha(z, z, z)[0].shape)}")

# %% [markdown]
# ### 2.4 The projection's "chan²" weights
#
# **Where.** The article's conclusion, which counts the weights of the two linear layers.
#
# **What it says.** The qkv projection holds input_token_len · chan · 3 weights, and the final projection
# chan².
#
# **What is right.** chan² counts the projection's weight matrix only. The article's `proj` is an `nn.Linear`
# with its bias on (the default), so it also learns chan biases: chan² + chan learnable numbers. The qkv count is
# complete, because the article's qkv layer has no bias by default. For the walk-through's sizes (49 → 64):

# %%
qkv_layer = nn.Linear(49, 64 * 3, bias=False)  # the article's default: qkv_bias=False
proj_layer = nn.Linear(64, 64)  # bias on, as in the article
print(f"qkv:  {sum(p.numel() for p in qkv_layer.parameters()):,} parameters = 49 * 64 * 3 = {49 * 64 * 3:,}")
print(
    f"proj: {sum(p.numel() for p in proj_layer.parameters()):,} parameters = 64^2 + 64 = {64**2 + 64:,}, "
    f"not 64^2 = {64**2:,}"
)

# %% [markdown]
# ## 3. "Position Embeddings for Vision Transformers, Explained"
#
# The position-embedding article shows why attention cannot see token order, then builds the sinusoidal table
# and adds it to the picture's 15 patch tokens.
#
# ### 3.1 The colour range of the 15 × 400 table
#
# **Where.** Section *Applying Position Embedding to Tokens*, the plot of the table for the picture's 15 tokens of
# length 400. (The article's earlier plots of the 176 × 768 table use the range [−1, 1].)
#
# **What it says.** It draws the table with the colour range set to [0, 1], and reads the figure as: purple
# areas will make the tokens darker, orange areas lighter.
#
# **What is right.** A sine or a cosine lies in [−1, 1], and so does every entry of the table; the range must be
# [−1, 1]. With [0, 1] the colour map's darkest purple, meant for −1, goes to 0: every negative entry gets the
# same colour as a zero, and entries near 0, which change a token hardly at all, look as if they darkened it
# most. The cell counts how much of the purple in the article's figure is really negative; the figure draws the
# table both ways, in the article's colour map.

# %%
table = sinusoidal_table(15, 400)  # (15, 400): the picture's 15 tokens of length 400
purple = (table < 0.5).float().mean().item()  # the purple half of the colour map, with the range [0, 1]
negative = (table < 0).float().mean().item()  # the entries that really make a token darker
print(f"table values from {table.min().item():.2f} to {table.max().item():.2f}")
print(f"drawn in the purple half with the range [0, 1]: {purple:.0%} of the entries; below 0: {negative:.0%}")

fig, axes = plt.subplots(
    2, 2, figsize=(12, 6.5), layout="constrained", width_ratios=(3, 1), dpi=150, squeeze=False
)
for row, (low, who) in enumerate(((0, "[0, 1], the article's"), (-1, "[-1, 1], the values' own"))):
    for ax, columns, part in (
        (axes[row, 0], range(160), "where the rows differ"),
        (axes[row, 1], range(300, 320), "zoom"),
    ):
        plots.show_table_columns(
            table,
            columns,
            ax=ax,
            title=f"colour range {who}: {part}",
            ylabel="token i",
            vmin=low,
            vmax=1,
            label="table value",
            cmap="PuOr_r",
        )
fig.suptitle(
    "Sinusoidal table for 15 tokens of length 400, drawn with two colour ranges (one cell per entry)"
)
plt.show()

# %% [markdown]
# The left panels show the first 160 of the 400 columns, where the rows still differ; the right ones columns
# 300-319, where every row is nearly the same (the rest of the table looks like them). In the top panels the
# negative entries (bottom left) merge into one dark block, and the sine columns of the zoom, whose values are
# close to 0, look as dark as they do; in the bottom panels those columns are pale, as their effect on a token is
# small. The vertical stripes are real: even columns hold sines, odd columns cosines, and for most columns the
# sine is near 0 and the cosine near 1.
#
# ### 3.2 `astype(int)`, then `/ 255`
#
# **Where.** The same section, the cell that turns the picture's patches into 15 tokens.
#
# **What it says.** It cuts the tokens from an image called `gray_mountains`, casts them to integers and divides
# them by 255. The next cell adds the table to these tokens (as `mountainsPE`), then rescales
# `position_mountains`.
#
# **What is right.** Neither `gray_mountains` nor `position_mountains` is defined in the article; the picture it
# loads, `mountains`, holds values between 0 and 1, as the article says. On such values the cast rounds towards
# zero: every pixel below 1 becomes 0, a pixel of exactly 1 becomes 1, and after dividing by 255 all that is left
# is 1/255 where a pixel was exactly 1, far too little to see beside the table's ±1. (The cast and the division
# would suit an image stored as grey levels from 0 to 255, which the article does not show.) A picture already in
# [0, 1] needs neither step. The cell does both on the course's own redrawing of the picture and measures how
# much of it survives in "tokens + table", by its correlation with the picture's tokens. The grey levels and the
# shares it prints are the redrawing's; the article's crop has other values, but on it too every pixel below 1
# becomes 0.

# %%
patch_tokens = tokens.patchify(vitcourse.to_tensor(picture), 20)[0].double()  # (15, 400), values in [0, 1]
cast = patch_tokens.long() / 255  # what astype(int) / 255 does to them
levels = sorted(round(v * 255) for v in cast.unique().tolist())
print(
    f"the course's picture: {patch_tokens.unique().numel()} grey levels from {patch_tokens.min():.2f} "
    f"to {patch_tokens.max():.2f}"
)
print(f"after the cast and / 255: the values {', '.join(f'{k}/255' for k in levels)}")
print(f"share of the course's picture that became 0: {(cast == 0).double().mean().item():.0%}")
pe = table.double()
for name, toks in (("tokens in [0, 1]", patch_tokens), ("tokens after the cast", cast)):
    corr = torch.corrcoef(torch.stack([(toks + pe).flatten(), patch_tokens.flatten()]))[0, 1].item()
    print(f"{name:22s}: correlation of tokens + table with the picture's tokens {corr:.2f}")

# %% [markdown]
# ### 3.3 "Invariant" where equivariant is meant
#
# **Where.** Section *Attention Invariance Up to Permutation*, its first paragraphs.
#
# **What it says.** "The component of the transformer that would be invariant to token order is the attention
# module", and the demo that follows is introduced as showing "the invariance of attention to token order".
#
# **What is right.** An attention layer is permutation-*equivariant*: permute its input tokens, and its output
# rows come out permuted in the same way. The article's demo shows exactly this, and so does its own summary
# after the demo (the output has "the same token rows changed"); the heading's "invariance up to permutation"
# means it too. The article's opening sentence, that without a position embedding transformers are invariant to
# the order of the tokens, is right about predictions: a prediction read from the prediction token (or from the
# mean of the tokens) is *invariant*, it does not change at all. The cell shows both: an attention layer on the
# picture's tokens, and a whole ViT without position embedding on the picture and on a copy with its patches
# scrambled.

# %%
torch.manual_seed(0)
attn = Attention(768, num_heads=4).to(device)
picture_tokens = tokenizer(image).detach()  # (1, 15, 768)
order = torch.randperm(15, generator=torch.Generator().manual_seed(0)).to(device)
with torch.no_grad():
    out, out_permuted = attn(picture_tokens), attn(picture_tokens[:, order])
print(
    f"attention: output rows permuted like the input (equivariant): {torch.allclose(out_permuted, out[:, order], atol=1e-5)}"
)
print(
    f"attention: output unchanged by the permutation (invariant):   {torch.allclose(out_permuted, out, atol=1e-5)}"
)

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
# ### 3.4 The permutation demo leaves out the softmax and the scale
#
# **Where.** Section *Attention Invariance Up to Permutation*, the demo with 4 tokens of length 9.
#
# **What it says.** After giving the attention formula, with its scale $1/\sqrt{d_k}$ and its softmax, it draws
# $Q$, $K$ and $V$ as three separate random integer matrices (values 1 to 19), swaps tokens 0 and 2 in each, and
# computes $Q K^\top$ and then multiplies by $V$. There is no scale and no softmax.
#
# **What is right.** The conclusion holds for the full formula too, because the scale is one number, and the
# softmax acts on each row separately and treats a row's entries alike: permute the entries of a row and its
# softmax comes out permuted in the same way. That matters because the swap moves both rows and columns of
# $QK^\top$, so each row's entries are permuted too; $V$'s row swap then puts them back in step. But the demo
# shows it for two matrix products, not for attention. The cell runs the same construction with the scale and
# the softmax put back.

# %%
g = torch.Generator().manual_seed(0)
q, k, v = (torch.randint(1, 20, (4, 9), generator=g).double() for _ in range(3))  # (4, 9) each
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

# %% [markdown]
# ### 3.5 "A · V = A"
#
# **Where.** The same demo, its second step.
#
# **What it says.** The first product is written $Q \cdot K^\top = A$, the second $A \cdot V = A$, and the code
# follows suit (`A = A @ V`).
#
# **What is right.** Two different matrices share one name. The first $A$ holds one score for each pair of
# tokens, $N \times N$; the second holds one output row per token, $N \times d$, as long as the tokens. An
# equation that reads $A \cdot V = A$ says that multiplying by $V$ leaves $A$ as it was, which it does not:
# the two sides do not even have the same shape. Give the result its own name, such as $Z = A \cdot V$. With the
# demo's sizes:

# %%
scores = q @ k.T  # the first A: one score per pair of tokens
print(f"A = Q K^T: {tuple(scores.shape)}; A V: {tuple((scores @ v).shape)}")

# %% [markdown]
# ## 4. "Tokens-to-Token Vision Transformers, Explained"
#
# The T2T article builds the soft split, the token transformer and the Tokens-to-Token module, walks a batch of
# 13 one-channel 400 × 100 images through it, and ends with the complete T2T-ViT.
#
# ### 4.1 The complete model passes settings its T2T module does not accept
#
# **Where.** Section *Complete Code*, the class `T2T_ViT`.
#
# **What it says.** It builds the article's `Tokens2Token` module with the arguments `softsplit_kernels`,
# `num_heads`, `hidden_chan_mul`, `qkv_bias`, `qk_scale`, `act_layer` and `norm_layer`, and documents
# `softsplit_kernels` as the kernel of each soft split.
#
# **What is right.** The `Tokens2Token` class of the same article accepts only `img_size`, `token_chan` and
# `token_len`, and fixes its kernels (7, 3, 3), its heads (1) and its MLP ratio (1.0) inside. Python refuses
# keyword arguments that a function does not have, so building the model fails at once. The cell checks the
# names against a function with the same three parameters. In `vitcourse` the soft splits are a setting that
# reaches the module: `T2TViT(stages=...)`, one (kernel, stride, padding) per stage.


# %%
def article_tokens2token(
    img_size: tuple[int, int, int] = (1, 1000, 300), token_chan: int = 64, token_len: int = 768
) -> None:
    """Stands in for the article's Tokens2Token constructor: it takes these three settings and no others."""


passed = ["img_size", "softsplit_kernels", "num_heads", "token_chan", "token_len", "hidden_chan_mul"]
passed += ["qkv_bias", "qk_scale", "act_layer", "norm_layer"]  # what T2T_ViT hands it, by name
accepted = set(inspect.signature(article_tokens2token).parameters)
print(f"passed but not accepted: {', '.join(sorted(set(passed) - accepted))}")
try:
    article_tokens2token(img_size=(1, 1700, 500), softsplit_kernels=(31, 3, 3))
except TypeError as err:
    print(f"TypeError: {err}")

t2t_vit = T2TViT(
    (height, width), stages=((7, 4, 2), (3, 2, 1), (3, 2, 1)), embed_dim=64, depth=1, num_heads=4
)
print("vitcourse, token grid after each soft split:", [tuple(g[:2]) for g in t2t_vit.tokens_to_token.grids])

# %% [markdown]
# ### 4.2 A misspelt module in the weight initialisation
#
# **Where.** The same class, its method `_init_weights`.
#
# **What it says.** It draws the linear layers' weights with `timmm.trunc_normal_`, with three m's.
#
# **What is right.** `timm`: the Vision Transformers article spells the same call `timm.layers.trunc_normal_`.
# The model initialises its weights at the end of its constructor, after building its T2T module and its
# backbone, so once 4.1 and 1.5 are fixed this is the next error. PyTorch has the same function as
# `nn.init.trunc_normal_`, which `vitcourse` uses. Its cut-off points `a` and `b` are absolute values, −2 and 2 by
# default, not multiples of the std: with std 0.02 the defaults lie 100 std out and in effect cut nothing, so
# about one weight in twenty lies beyond 2 std (notebook 03 shows what that means). The cell draws the 64 × 576
# weights of a linear layer both ways.

# %%
try:
    timmm.trunc_normal_  # noqa: F821  (the misspelt name, as written)
except NameError as err:
    print(f"NameError: {err}")
torch.manual_seed(0)
for label, bounds in (("default bounds -2, 2", {}), ("vitcourse's -0.04, 0.04", {"a": -0.04, "b": 0.04})):
    weight = nn.init.trunc_normal_(torch.empty(64, 576), std=0.02, **bounds)
    beyond = (weight.abs() > 0.04).float().mean().item()
    print(f"nn.init.trunc_normal_, {label:23s}: {weight.numel():,} weights, {beyond:.1%} beyond 0.04 (2 std)")

# %% [markdown]
# ### 4.3 The undefined batch size `B`
#
# **Where.** The walk-through of section *All Together*, the first reconstruction.
#
# **What it says.** It reshapes the tokens with `reshape(B, T2T.token_chan, H, W)`, but `B` is never assigned in
# the walk-through: the batch size there is called `batch` (13), and the second reconstruction does use
# `batch`. (The section *Image Reconstruction* before it writes `B` in a general example and says that `B`
# stands for the batch size; that is fine.)
#
# **What is right.** Read the batch size from the tensor itself, `x.shape[0]`, as the module's `forward` does.
# The cell rebuilds the walk-through's first stage: 13 items of 2500 tokens of length 64 on a 100 × 25 grid.

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
# ### 4.4 `count_tokens` returns the width first (a trap, not a slip)
#
# **Where.** Section *Soft Split*, the function `count_tokens(w, h, k, s, p)`.
#
# **What it says.** It returns (tokens along the width, tokens along the height, total). The article's own code
# always unpacks the result in that order, `W, H, _ = count_tokens(...)`, so it is right.
#
# **What is right.** Nothing is wrong, but it is easy to swap: images, tensors and the article's printed shapes
# all put the height first. A swapped grid raises no error, because the reshape only checks the number of
# elements; the rebuilt image is quietly scrambled. `vitcourse.count_tokens` takes the height first and returns a
# named result, `TokenCount(rows, cols, total)`. The figure rebuilds the picture's first soft split (one value per
# window: its centre pixel) both ways.

# %%
grid = tokens.count_tokens(height, width, 7, 4, 2)  # the picture's first T2T soft split
print(grid)
windows = tokens.soft_split(vitcourse.to_tensor(picture), 7, 4, 2)  # (1, 375, 49)
centres = windows[:, :, 24:25]  # (1, 375, 1): each window's centre pixel
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
        xlabel="token column",
        ylabel="token row",
        vmin=0,
        vmax=1,
        aspect="equal",
        label="pixel value",
    )
fig.suptitle("The picture's first soft split (7, 4, 2) rebuilt, one value per window: its centre pixel")
plt.show()

# %% [markdown]
# The left panel is the picture at a quarter of its size; the right one holds the same 375 values in the wrong
# rows.
#
# ### 4.5 The token transformer's scale (a difference, not a slip)
#
# **Where.** Section *Token Transformer*, the class `TokenTransformer` and its `Attention` (the attention
# article's module).
#
# **What it says.** When no scale is given, the scores $QK^\top$ are multiplied by $(\text{chan} /
# \text{heads})^{-1/2}$, the width of one head after the projection: $64^{-1/2} = 1/8$ with one head, at both
# stages.
#
# **What is right.** The official T2T-ViT code (`token_transformer.py`) uses the input token length instead,
# $(\text{dim} / \text{heads})^{-1/2}$: $49^{-1/2} = 1/7$ at the first stage and $576^{-1/2} = 1/24$ at the
# second. Both run; the official one is needed to reproduce the official models. `vitcourse` follows the official
# code by default and offers the other with `official_scale=False`.

# %%
for official in (True, False):
    t2t = TokensToToken((height, width), official_scale=official)
    inverse = [round(getattr(t2t, f"attention{i}").attn.scale ** -1, 4) for i in (1, 2)]
    who = "official code (vitcourse's default)" if official else "article series"
    print(f"{who:37s}: scale 1/{inverse[0]:g} at stage 1, 1/{inverse[1]:g} at stage 2")

# %% [markdown]
# ### 4.6 "They should be of length 3 * 3 * 64 = 576"
#
# **Where.** Section *All Together*, the walk-through's final soft split.
#
# **What it says.** The code prints `'They should be of length 3*3*64=', 3*3*64`, and the output shown under it
# reads "They should be of length 3 * 3 * 64 = 576".
#
# **What is right.** Run as written, the line prints "They should be of length 3*3*64= 576": the text inside
# the quotes comes out as it is, without spaces. The output shown is what the second soft split's line, which
# prints `k`, `'*'`, `k` and the others as separate arguments, writes. The number, 576, is right; the printed
# line does not match its code, as in 1.4. The cell runs both lines and compares them with the output shown.

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
# ### 4.7 The token transformer's walk-through prints `x` where `y` is meant
#
# **Where.** Section *Token Transformer*, the walk-through's second half (norm, neural net, skip connection).
#
# **What it says.** It computes `y = TT.norm2(x)`, then `y = TT.neuralnet(y)`, then `y = y + x`, and after each
# step prints the shape of `x`.
#
# **What is right.** Print `y`: it is the value that changes, and after the last step it is the module's output.
# The three printed shapes are right only because the norm and the MLP keep the shape of `x`; the lines report
# the state before the MLP, whatever the MLP does. The cell follows the walk-through's steps with `vitcourse`'s
# token transformer (the walk-through's 13 items of 100 tokens of length 49, 64 channels, 4 heads, MLP ratio
# 1.5) and checks which of the two is the module's output.

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
# ### 4.8 A backbone "identical to" ViT's
#
# **Where.** Section *ViT Backbone*.
#
# **What it says.** The backbone the tokens go through after the T2T module is identical to the backbone of the
# ViT model of the ViT paper.
#
# **What is right.** The article's `ViT_Backbone` departs from ViT's in three ways. (1) Its position table is the
# fixed sinusoidal one, stored with `requires_grad=False`; ViT learns its table (a parameter, from
# N(0, 0.02²) in the official code). The fixed table is T2T-ViT's choice, so the backbone is T2T-ViT's rather than
# ViT's. (2) It has one attention head by default; ViT-Base has 12, ViT-Large and ViT-Huge 16. (3) Its encoder
# blocks add $\mathbf{v}$ (1.6), which no official backbone does. In `vitcourse` the choice of table is the
# setting `pos_embed`: `"learned"` for ViT, `"sinusoidal"` for T2T-ViT.

# %%
for kind in ("learned", "sinusoidal"):
    model = VisionTransformer(
        (height, width), patch_size=20, embed_dim=64, depth=1, num_heads=4, pos_embed=kind
    )
    table_now = model.pos_embed.detach()[0]  # (N + 1, D)
    fixed = torch.equal(table_now, sinusoidal_table(model.num_patches + 1, 64))
    print(
        f"pos_embed={kind!r:12s}: table {tuple(table_now.shape)}, trains: {model.pos_embed.requires_grad}, "
        f"the sinusoidal table: {fixed}"
    )
vit_base_heads = VisionTransformer(depth=1).blocks[0].attn.num_heads  # vitcourse's defaults are ViT-Base's
print(f"heads in ViT-Base's encoder blocks (vitcourse's defaults): {vit_base_heads}")

# %% [markdown]
# ### 4.9 "Only works if = 1"
#
# **Where.** Section *Complete Code*, the docstring of `T2T_ViT`, its parameter `num_heads`.
#
# **What it says.** The number of attention heads "only works if =1".
#
# **What is right.** That holds for the official T2T-ViT code's token attention, which reshapes q, k and v with
# the whole output width per head and adds `v.squeeze(1)`: both need one head. The series' attention module
# splits the width into heads (`head_dim = chan // num_heads`), so it works with any number of heads that divides
# `chan`, and the article's own token-transformer walk-through runs it with 4. In `T2T_ViT` the T2T module fixes
# its own heads at 1 (4.1), so the setting matters only in the backbone, where any number that divides the token
# length works. The cell runs the official reshape and the series' one on the walk-through's sizes with 4 heads.

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
# ## 5. The lecture slides "ViT (Vision Transformer)"
#
# ### 5.1 "224 x 244 x 3"
#
# **Where.** The slide *ViT – Selected Implementation Details – Equation 1*, under the `nn.Conv2d` code that
# cuts the image into 16 × 16 patches.
#
# **What it says.** The shape of a "224 x 244 x 3" input image after the convolution is [768, 14, 14].
#
# **What is right.** 224 × 224 × 3, as the code above it sets (h = w = 224). A 244-pixel-wide image would give 15
# columns of patches, since 244 // 16 = 15 (with 4 columns of pixels left over): [768, 14, 15]. (PyTorch wants the
# channels first, (B, 3, H, W).)

# %%
conv = nn.Conv2d(3, 768, kernel_size=16, stride=16, bias=False).to(device)
for h, w in ((224, 224), (224, 244)):
    print(f"{h} x {w} x 3 image -> {list(conv(torch.zeros(1, 3, h, w, device=device)).shape[1:])}")

# %% [markdown]
# ### 5.2 $\mathbf{E}_{pos} \in \mathbb{R}^{P^2 \times D}$
#
# **Where.** The slide *ViT – Selected Implementation Details – Equation 2* (the `nn.LayerNorm` and
# `nn.MultiheadAttention` code), which repeats equation (1) beside the code.
#
# **What it says.** The position embedding $\mathbf{E}_{pos}$ lies in $\mathbb{R}^{P^2 \times D}$.
#
# **What is right.** $\mathbb{R}^{(N+1) \times D}$, as on every other slide and in the paper: one row for each of
# the N patches and one for the class token. For ViT-B/16 at 224 × 224 that is 196 + 1 = 197 rows (the slides'
# own `torch.ones(1, 197, 768)`), while $P^2 = 256$.

# %%
vit_b16 = VisionTransformer(224, patch_size=16, in_chans=3, depth=1)  # ViT-B/16's sizes, one block is enough
print(f"N = {vit_b16.num_patches}, P^2 = {16**2}, position embedding {tuple(vit_b16.pos_embed.shape)}")

# %% [markdown]
# ### 5.3 $Z = V \cdot P$
#
# **Where.** The slide on self-attention that quotes four steps from the survey *A Survey on Vision Transformer*
# (Han et al., arXiv:2012.12556). The slide marks the passage as taken from the survey: the slip is in the
# survey's own text, which the slide quotes.
#
# **What it says.** Step 4 computes the output as $Z = V \cdot P$, values times probabilities, and the text under
# it says that each value vector is multiplied by the sum of the probabilities.
#
# **What is right.** $Z = P \cdot V$. $P$ is $N \times N$, one row of weights per query; $V$ is $N \times d_v$,
# one row per token. $P \cdot V$ gives each query the weighted average of the value rows, $N \times d_v$: each
# value vector multiplied by its own probability, and the results summed. $V \cdot P$ is not even defined unless
# $d_v = N$, and even then it computes something else. The unified formula on the same slide,
# $\text{softmax}(QK^\top/\sqrt{d_k}) \cdot V$, has the right order.

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
# **Where.** The slide *ViT – Selected Implementation Details – Equation 1* with the class token and the
# position embedding.
#
# **What it says.** The class token is `nn.Parameter(torch.ones(batch_size, 1, 768))`.
#
# **What is right.** One learned vector of shape (1, 1, 768), expanded to the batch in each forward pass. ViT's
# official code creates a (1, 1, D) token and tiles it over the batch; timm and `vitcourse` expand theirs. With
# the slides' shape the model holds `batch_size` different tokens, each trained only by the images in its slot,
# and it cannot run on a batch of any other size. Notebook 05 shows this in full (section *The lecture slides'
# prediction token*).

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
print(f"parameters: slides' token {slides_token.numel():,}, one token {one_token.numel():,}")

# %% [markdown]
# ### 5.5 `MyPermute`, `block_out_permute` and tables that start from ones
#
# **Where.** The slides *ViT – Selected Implementation Details – Equation 1*: the patch embedding
# `block_permute` and the lines that add the class token and the position embedding.
#
# **What it says.** `block_permute` ends with a layer `MyPermute((0, 2, 1))`; the class token is concatenated to
# `block_out_permute`; and the class token and the position embedding are created with `torch.ones`.
#
# **What is right.** Neither `MyPermute` nor `block_out_permute` is defined on the slides, and PyTorch has no
# such layer: `MyPermute` stands for a small module of your own that calls `x.permute(0, 2, 1)` (or use
# `.transpose(1, 2)` after the `nn.Sequential`), and `block_out_permute` for the output of `block_permute` on a
# batch of images, (B, 196, 768). Starting both parameters from ones runs, but it is a poor start for the
# position embedding (*a difference, not a slip*): all 197 rows are the same vector, so at the start the table
# adds the same thing to every token and tells no position from another; only training can pull the rows
# apart. ViT's official code draws each entry from N(0, 0.02²), and starts the class token at zero.

# %%
print(f"torch.nn has MyPermute: {hasattr(nn, 'MyPermute')}, Permute: {hasattr(nn, 'Permute')}")


class Permute(nn.Module):
    """What the slides' MyPermute stands for: permute the axes of the input."""

    def __init__(self, dims: tuple[int, ...]) -> None:
        super().__init__()
        self.dims = dims

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x.permute(*self.dims)


block_permute = nn.Sequential(
    nn.Conv2d(3, 768, kernel_size=16, stride=16, bias=False), nn.Flatten(start_dim=2), Permute((0, 2, 1))
).to(device)
with torch.no_grad():
    block_out_permute = block_permute(torch.zeros(2, 3, 224, 224, device=device))  # 2 images
print(f"block_out_permute: {tuple(block_out_permute.shape)}")
from_ones = torch.ones(1, 197, 768)
from_normal = torch.randn(1, 197, 768, generator=torch.Generator().manual_seed(0)) * 0.02
for name, start in (("torch.ones", from_ones), ("N(0, 0.02^2)", from_normal)):
    print(f"position table from {name:12s}: distinct rows {start[0].unique(dim=0).shape[0]} of 197")

# %% [markdown]
# ## If you meet another slip
#
# Check it the way this appendix does: find the smallest cell that shows what the source says and what happens
# instead, print shapes and counts rather than trusting a printed output, and compare with the paper's equations
# and the official code. The course's own notebooks are held to the same rule: every output you read was produced
# by the code above it, and the tests re-run every notebook to make sure it still is.
