"""vitcourse: the small library that the course's notebooks build, one module per concept.

* :mod:`vitcourse.data` - the Mountain-at-Dusk picture
* :mod:`vitcourse.tokens` - patches, soft split, counting tokens, rebuilding images
* :mod:`vitcourse.position` - sinusoidal and learned position embeddings
* :mod:`vitcourse.attention` - multi-head attention, step by step or fused
* :mod:`vitcourse.blocks` - MLP, encoder block, token transformer
* :mod:`vitcourse.models` - ViT, Tokens-to-Token, T2T-ViT and their presets
* :mod:`vitcourse.plots` - every figure the course draws
"""

from .data import load_mountains, to_tensor
from .device import get_device
from .models import T2TViT, TokensToToken, VisionTransformer, count_parameters, create_model
from .tokens import count_tokens

__version__ = "0.1.0"

__all__ = [
    "load_mountains",
    "to_tensor",
    "count_tokens",
    "VisionTransformer",
    "TokensToToken",
    "T2TViT",
    "create_model",
    "count_parameters",
    "get_device",
    "__version__",
]
