"""Argument checks shared by the modules: each raises a ValueError or TypeError that names the parameter.

Every module that checks an argument uses these (public within the package, so no module imports another
module's private helper). One helper per kind of parameter:

* whole numbers: :func:`positive_int`, :func:`non_negative_int` (``bool`` is not an int here, and sizes above
  :data:`LARGEST_INT`, torch's largest size, are refused);
* real numbers: :func:`finite_float` (NaN and infinities refused, with an optional lower bound);
* switches: :func:`flag` (only ``True``/``False``: the string ``"False"`` is truthy in Python);
* named choices: :func:`choice`;
* objects: :func:`instance_of` (a model where a model is expected, an Axes where an Axes is expected, ...),
  :func:`cpu_generator` (a random-number generator on the CPU, where the package draws);
* tensors and images: :func:`dense_tensor`, :func:`tensor_of_rank`, :func:`non_empty`, :func:`real_tensor`, :func:`image_size`,
  :func:`check_image`, :func:`check_tokens`;
* sizes of what is about to be allocated: :func:`allocatable` (at most :data:`LARGEST_ALLOCATION` elements);
* paths: :func:`writable_file`, :func:`writable_folder`.

Tensors (one rule for the whole package): a tensor must be dense (``torch.strided``) and hold numbers. Sparse
(``sparse_coo``, ``sparse_csr``, ...), mkldnn, nested and quantized tensors are refused with a TypeError that
says how to convert them (``x.to_dense()``, ``x.dequantize()``); a meta tensor (a shape with no numbers) is
refused with a ValueError, except by the functions that only move entries around (:mod:`vitcourse.tokens`)
and by a module whose own parameters are on the meta device, so a model built there can still be run to find
its shapes.

Dtypes (one rule for the whole package): images and tokens must hold real floating-point numbers. Integer,
bool and complex tensors are refused with a TypeError that says how to convert them (``x.float() / 255`` for
8-bit pictures); a model or block given floating numbers of another dtype (numpy's float64, float16, ...)
casts them to the dtype of its own parameters.

The divisor lists that error messages offer as valid choices are found by factorising ``n`` (trial division by
small primes, then Pollard's rho), so even a size near 2**63 gets its message at once; they are cached, and
:func:`listing` caps how many values a message shows.
"""

from __future__ import annotations

import functools
import math
import numbers
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import torch

__all__ = [
    "LARGEST_INT",
    "positive_int",
    "non_negative_int",
    "finite_float",
    "flag",
    "choice",
    "instance_of",
    "cpu_generator",
    "LARGEST_ALLOCATION",
    "allocatable",
    "dense_tensor",
    "tensor_of_rank",
    "non_empty",
    "real_tensor",
    "image_size",
    "check_image",
    "check_tokens",
    "divisors",
    "common_divisors",
    "listing",
    "writable_file",
    "writable_folder",
]

#: The largest whole number a size, count or index may be: torch stores sizes as signed 64-bit integers.
LARGEST_INT = 2**63 - 1

#: The most elements one layer, model or intermediate tensor built from the arguments may have: 2**40, which
#: is 4 TiB of float32, more memory than any one machine holds (the largest GPUs hold about 2**37 bytes).
#: Sizes above it are refused before anything is allocated, instead of failing inside torch.
LARGEST_ALLOCATION = 2**40


def _shown(value: object) -> str:
    """``value`` for a message: its type and a repr cut to 80 characters (a huge object stays one line)."""
    if isinstance(value, dict | list | tuple | torch.Tensor | np.ndarray) or hasattr(value, "state_dict"):
        return type(value).__name__  # a container's contents would drown the message
    text = repr(value)
    return f"{type(value).__name__} {text if len(text) <= 80 else text[:77] + '...'}"


def _int_at_least(name: str, value: object, minimum: int) -> int:
    if isinstance(value, np.integer) and not isinstance(value, np.bool_):
        value = int(value)
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError(f"{name} must be an int >= {minimum}, got {_shown(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be an int >= {minimum}, got {value}")
    if value > LARGEST_INT:
        raise ValueError(f"{name} must be an int <= 2**63 - 1 (torch's largest size), got {value}")
    return value


def positive_int(name: str, value: object) -> int:
    """Return ``value`` if it is an int >= 1, else raise a TypeError/ValueError naming ``name``."""
    return _int_at_least(name, value, 1)


def non_negative_int(name: str, value: object) -> int:
    """Return ``value`` if it is an int >= 0, else raise a TypeError/ValueError naming ``name``."""
    return _int_at_least(name, value, 0)


def finite_float(name: str, value: object, minimum: float | None = None, *, above: bool = False) -> float:
    """``value`` as a float if it is a finite real number (not a bool, not a string), else raise naming ``name``.

    ``minimum``, if given, is a lower bound: ``value >= minimum``, or ``value > minimum`` with ``above=True``.
    """
    bound = "" if minimum is None else f" {'>' if above else '>='} {minimum:g}"
    wanted = f"{name} must be a finite number{bound}"
    if isinstance(value, bool | np.bool_) or not isinstance(value, numbers.Real):
        raise TypeError(f"{wanted}, got {_shown(value)}")
    number = float(value)
    if not math.isfinite(number):
        raise ValueError(f"{wanted}, got {number}")
    if minimum is not None and (number <= minimum if above else number < minimum):
        raise ValueError(f"{wanted}, got {number:g}")
    return number


def flag(name: str, value: object) -> bool:
    """``value`` if it is ``True`` or ``False`` (a numpy bool too), else a TypeError naming ``name``.

    Strings are refused on purpose: ``bool("False")`` is True, so a switch given ``"False"`` would silently
    mean the opposite of what was written.
    """
    if isinstance(value, bool | np.bool_):
        return bool(value)
    extra = (
        " (write True or False without quotes: the string 'False' counts as true)"
        if isinstance(value, str)
        else ""
    )
    raise TypeError(f"{name} must be True or False, got {_shown(value)}{extra}")


def choice(name: str, value: object, options: Sequence[str]) -> str:
    """``value`` if it is one of the strings ``options``, else a TypeError (not a string) or ValueError."""
    if not isinstance(value, str):
        raise TypeError(f"{name} must be one of {tuple(options)}, got {_shown(value)}")
    if value not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, got {value!r}")
    return value


def instance_of(name: str, value: object, kind: type | tuple[type, ...], what: str, hint: str = "") -> object:
    """``value`` if it is an instance of ``kind``, else a TypeError naming ``name``, ``what`` was expected and ``hint``.

    A dict given where a model is expected gets the hint that a ``state_dict()`` is not the model.
    """
    if isinstance(value, kind):
        return value
    if not hint and isinstance(value, dict) and "Module" in what:
        hint = "; pass the model itself, not its state_dict()"
    raise TypeError(f"{name} must be {what}, got {_shown(value)}{hint}")


def cpu_generator(name: str, value: object, *, optional: bool = False) -> torch.Generator | None:
    """``value`` if it is a ``torch.Generator`` on the CPU (or None when ``optional``), else a TypeError or
    ValueError naming ``name``. The package draws its random numbers on the CPU (the same draws on every machine)
    and moves them afterwards, so a generator on another device (``torch.Generator(device="meta")``, a CUDA one)
    cannot serve."""
    if value is None and optional:
        return None
    what = "a torch.Generator on the CPU" + (" or None" if optional else "")
    generator = instance_of(
        name, value, torch.Generator, what, hint="; e.g. torch.Generator().manual_seed(0)"
    )
    device = generator.device  # type: ignore[attr-defined]
    if device.type != "cpu":
        raise ValueError(
            f"{name} is a generator on device {device}, but the draws here are made on the CPU: pass "
            f"torch.Generator().manual_seed(seed)"
        )
    return generator  # type: ignore[return-value]


def _count(n: int) -> str:
    """A number of elements for a message: exact up to 10**15, else as a power of two."""
    return f"{n:,}" if n < 10**15 else f"about 2**{math.log2(n):.1f}"


def allocatable(what: str, elements: int, **settings: object) -> int:
    """``elements`` if it is at most :data:`LARGEST_ALLOCATION`, else a ValueError naming ``settings``.

    Called before a layer, model or intermediate tensor of ``elements`` entries is allocated; ``what`` says what
    would be allocated ("PatchTokenizer's parameters") and ``settings`` are the arguments that ask for that size,
    named in the message with their values.
    """
    if elements <= LARGEST_ALLOCATION:
        return elements
    given = ", ".join(f"{name}={value!r:.40}" for name, value in settings.items())
    raise ValueError(
        f"{given}: {what} would hold {_count(elements)} elements, more than the 2**40 ({LARGEST_ALLOCATION:,}) "
        f"any layer, model or intermediate tensor may hold (4 TiB of float32, more than any machine has); use "
        f"smaller values"
    )


def _advice(name: str, method: str) -> str:
    """How to call ``method`` on the argument ``name`` (``x.to_dense()``), or on a tensor when it has no name."""
    return f"{name}.{method}" if name.isidentifier() else f"tensor.{method}"


def dense_tensor(name: str, x: torch.Tensor, *, shapes_only: bool = False) -> torch.Tensor:
    """Return the tensor ``x`` if it is dense (``torch.strided``) and holds numbers; else raise naming ``name``.

    Sparse, mkldnn, nested and quantized tensors get a TypeError that says how to convert them; the course's
    operations (unfold, reshape, LayerNorm, numpy conversion) are defined for dense tensors only. A meta
    tensor (a shape with no numbers) gets a ValueError, unless ``shapes_only``: the caller only moves entries
    around, so a meta tensor in gives a meta tensor of the right shape out.
    """
    if x.layout != torch.strided:
        kind = str(x.layout).removeprefix("torch.").strip("_")
        raise TypeError(
            f"{name} is a {kind} tensor, but a dense (strided) tensor is needed: convert it with "
            f"{_advice(name, 'to_dense()')}"
        )
    if x.is_nested:
        raise TypeError(
            f"{name} is a nested tensor, but a regular tensor is needed: stack tensors of one shape, or pad "
            f"it with torch.nested.to_padded_tensor({name if name.isidentifier() else 'tensor'}, 0.0)"
        )
    if x.is_quantized:
        raise TypeError(
            f"{name} is a quantized tensor ({x.dtype}), but real floating-point numbers are needed: convert it "
            f"with {_advice(name, 'dequantize()')}"
        )
    if x.is_meta and not shapes_only:
        raise ValueError(
            f"{name} is a meta tensor (a shape of {tuple(x.shape)} with no numbers in it); pass a tensor on the CPU "
            f"or a GPU that holds the numbers"
        )
    return x


def tensor_of_rank(
    name: str, x: object, rank: int, layout: str, *, shapes_only: bool = False
) -> torch.Tensor:
    """Return ``x`` if it is a dense tensor with ``rank`` dimensions, none of them empty (:func:`non_empty`);
    ``layout`` (e.g. "(B, C, H, W)") goes in the message. A meta tensor is refused unless ``shapes_only`` (see
    :func:`dense_tensor`)."""
    if not isinstance(x, torch.Tensor):
        extra = "; convert it with torch.from_numpy(...).float()" if isinstance(x, np.ndarray) else ""
        raise TypeError(f"{name} must be a torch.Tensor of shape {layout}, got {type(x).__name__}{extra}")
    dense_tensor(name, x, shapes_only=shapes_only)
    if x.ndim != rank:
        raise ValueError(f"{name} must have {rank} dimensions {layout}, got shape {tuple(x.shape)}")
    return non_empty(name, x, layout)


def non_empty(name: str, x: torch.Tensor | np.ndarray, layout: str) -> torch.Tensor | np.ndarray:
    """``x`` if none of its dimensions is empty, else a ValueError naming ``name`` and the empty dimension.

    One rule for the package: a batch of 0 images, a picture of 0 rows, tokens of length 0 are refused here,
    instead of failing inside torch's unfold or giving an empty result."""
    if 0 in x.shape:
        empty = ", ".join(f"dimension {i}" for i, n in enumerate(x.shape) if n == 0)
        raise ValueError(
            f"{name} has shape {tuple(x.shape)}, empty in {empty}: every dimension of {layout} needs at least "
            f"one entry"
        )
    return x


def real_tensor(name: str, x: torch.Tensor, *, shapes_only: bool = False) -> torch.Tensor:
    """Return ``x`` if it is a dense tensor of real floating-point numbers, else a TypeError that says how to
    convert it. A meta tensor is refused unless ``shapes_only`` (see :func:`dense_tensor`)."""
    dense_tensor(name, x, shapes_only=shapes_only)
    if x.is_floating_point():
        return x
    if x.dtype == torch.bool:
        advice = f"convert it with {name}.float()"
    elif x.is_complex():
        advice = f"pass its real part ({name}.real) or its magnitude ({name}.abs())"
    else:
        advice = (
            f"convert it with {name}.float() / 255 for 8-bit pictures, or {name}.float() for other integers"
        )
    raise TypeError(f"{name} has dtype {x.dtype}, but real floating-point numbers are needed: {advice}")


def _match_parameters(name: str, x: torch.Tensor, like: torch.Tensor | None) -> torch.Tensor:
    """``x`` cast to the dtype of ``like`` (a parameter of the module about to use it), after checking devices.

    A meta tensor is accepted only by a module whose parameters are on the meta device too (shapes only)."""
    if like is None:
        return dense_tensor(name, x)
    if x.is_meta and not like.is_meta:
        raise ValueError(
            f"{name} is on device meta but the module's parameters are on {like.device}: a meta tensor has a "
            f"shape ({tuple(x.shape)}) but no numbers; pass a tensor on {like.device} that holds the numbers"
        )
    if x.device != like.device:
        raise ValueError(
            f"{name} is on device {x.device} but the module's parameters are on {like.device}; "
            f"move one to the other, e.g. {name}.to({str(like.device)!r})"
        )
    return x if x.dtype == like.dtype else x.to(like.dtype)


def image_size(img_size: object) -> tuple[int, int]:
    """An image size as ``(height, width)``: one int means a square; raises naming ``img_size`` otherwise."""
    if isinstance(img_size, int) and not isinstance(img_size, bool):
        img_size = (img_size, img_size)
    if not (isinstance(img_size, tuple | list) and len(img_size) == 2):
        raise TypeError(f"img_size must be an int or a pair (H, W), got {img_size!r}")
    return positive_int("img_size[0] (height)", img_size[0]), positive_int("img_size[1] (width)", img_size[1])


def check_image(
    images: object, in_chans: int, img_size: tuple[int, int], like: torch.Tensor | None = None
) -> torch.Tensor:
    """Return ``images`` if it is a (B, in_chans, H, W) tensor of real floats with (H, W) == ``img_size``, else raise.

    The message says what the model was built for and the shape to pass. With ``like`` (one of the model's
    parameters) the images must be on its device and are returned cast to its dtype.
    """
    tensor_of_rank("images", images, 4, "(B, C, H, W)", shapes_only=True)  # meta: see _match_parameters
    real_tensor("images", images, shapes_only=True)
    expected = f"pass images of shape (B, {in_chans}, {img_size[0]}, {img_size[1]})"
    if images.shape[1] != in_chans:
        raise ValueError(
            f"images has {images.shape[1]} channels but the model was built for in_chans={in_chans}; {expected}"
        )
    if tuple(images.shape[2:]) != tuple(img_size):
        raise ValueError(
            f"images are {images.shape[2]} x {images.shape[3]} but the model was built for "
            f"img_size={tuple(img_size)}; {expected}"
        )
    return _match_parameters("images", images, like)


def check_tokens(
    name: str, x: object, length: int, setting: str = "dim", like: torch.Tensor | None = None
) -> torch.Tensor:
    """Return ``x`` if it is a (B, N, ``length``) tensor of real floats, cast to the dtype of ``like``; else raise.

    ``setting`` names the module's argument that fixed ``length`` (``dim``, ``in_features``), for the message.
    """
    tensor_of_rank(name, x, 3, "(B, N, D)", shapes_only=True)  # meta: see _match_parameters
    real_tensor(name, x, shapes_only=True)
    if x.shape[-1] != length:
        raise ValueError(
            f"{name} has tokens of length {x.shape[-1]} but this module was built for {setting}={length}; "
            f"pass a tensor of shape (B, N, {length}), got {tuple(x.shape)}"
        )
    return _match_parameters(name, x, like)


_SMALL_PRIMES = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37)


def _is_prime(n: int) -> bool:
    """Miller-Rabin with the first 12 primes as bases: exact for every n < 3.3e24 (so for every torch size)."""
    if n < 2:
        return False
    for p in _SMALL_PRIMES:
        if n % p == 0:
            return n == p
    d, r = n - 1, 0
    while d % 2 == 0:
        d, r = d // 2, r + 1
    for a in _SMALL_PRIMES:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(r - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def _factor(n: int) -> int:
    """A non-trivial factor of the odd composite ``n``: Pollard's rho with Brent's cycle finding, the gcd taken
    once per 128 steps on the product of the differences."""
    for c in range(1, n):
        y, r, q, g, x, ys = 2, 1, 1, 1, 2, 2
        while g == 1:
            x = y
            for _ in range(r):
                y = (y * y + c) % n
            k = 0
            while k < r and g == 1:
                ys = y
                for _ in range(min(128, r - k)):
                    y = (y * y + c) % n
                    q = q * abs(x - y) % n
                g = math.gcd(q, n)
                k += 128
            r *= 2
        if g == n:  # the batch overshot: step again one at a time from the batch's start
            g = 1
            while g == 1:
                ys = (ys * ys + c) % n
                g = math.gcd(abs(x - ys), n)
        if g != n:
            return g
    raise AssertionError(f"no factor found for {n}")  # unreachable for a composite n


def _prime_factors(n: int) -> dict[int, int]:
    """``{prime: exponent}`` of ``n`` >= 1: trial division below 1000, then Pollard's rho for what is left."""
    found: dict[int, int] = {}
    for p in range(2, 1000):
        while n % p == 0:
            found[p] = found.get(p, 0) + 1
            n //= p
    pending = [n] if n > 1 else []
    while pending:
        m = pending.pop()
        if _is_prime(m):
            found[m] = found.get(m, 0) + 1
        else:
            f = _factor(m)
            pending += [f, m // f]
    return found


@functools.lru_cache(maxsize=256)
def _divisors(n: int) -> tuple[int, ...]:
    result = [1]
    for prime, exponent in _prime_factors(n).items():
        result = [d * prime**e for d in result for e in range(exponent + 1)]
    return tuple(sorted(result))


def divisors(n: int) -> list[int]:
    """All d >= 1 that divide ``n`` (an int >= 1), ascending.

    Found from the prime factors of ``n`` (trial division below 1000, then Pollard's rho, which takes about
    n**(1/4) steps where trial division would take n**(1/2)), so a size near 2**63 answers at once; the result
    is cached, so a list asked for again (an error message, a drop-down) is not rebuilt.
    """
    return list(_divisors(positive_int("n", n)))


def common_divisors(height: int, width: int) -> list[int]:
    """The sizes that divide both ``height`` and ``width`` (the divisors of their gcd), ascending."""
    return divisors(math.gcd(positive_int("height", height), positive_int("width", width)))


def listing(values: Sequence[int], limit: int = 12) -> str:
    """``values`` written for a message: the whole list when short, else its ends and how many there are."""
    if len(values) <= limit:
        return str(list(values))
    head, tail = list(values[: limit - 2]), list(values[-2:])
    return f"{str(head)[:-1]}, ..., {str(tail)[1:]} ({len(values)} values)"


def _path(name: str, path: object, what: str) -> Path:
    if not isinstance(path, str | os.PathLike) or isinstance(path, bytes):
        raise TypeError(f"{name} must be {what} (a str or pathlib.Path), got {_shown(path)}")
    if str(path).strip() == "":
        raise ValueError(f"{name} must be {what}, got an empty path")
    return Path(path)


def writable_file(name: str, path: object, example: str = "checkpoint.pt") -> Path:
    """``path`` as a Path if a file can be written there, else an error naming ``name`` (checked before any work).

    Refused: a path that is not a str or Path (TypeError); an empty path, an existing folder, a path whose
    folder is a file, or a file or folder the process may not write to (ValueError); a folder that does not
    exist (FileNotFoundError: it is not created silently). ``example`` is the file name a message suggests.
    """
    target = _path(name, path, "a file path")
    if target.is_dir():
        raise ValueError(
            f"{name} {str(path)!r} is a folder; pass the path of a file to write, e.g. {str(target / example)!r}"
        )
    folder = existing = target.parent
    while not existing.exists():  # the nearest part of the path that exists
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(
            f"{name} {str(path)!r}: {str(existing)!r} is a file, not a folder; pass a path in a folder"
        )
    if existing != folder:
        raise FileNotFoundError(
            f"{name} {str(path)!r}: the folder {str(folder)!r} does not exist; create it first or pass a path in "
            f"an existing folder"
        )
    if target.exists() and not os.access(target, os.W_OK):
        raise ValueError(f"{name} {str(path)!r} is a file this process may not overwrite; pass another path")
    if not target.exists() and not os.access(folder, os.W_OK | os.X_OK):
        raise ValueError(
            f"{name} {str(path)!r}: this process may not write in {str(folder)!r}; pass another path"
        )
    return target


def writable_folder(name: str, path: object) -> Path:
    """``path`` as a Path if it is a folder that can be written in, or can be created (with its parents); else
    an error naming ``name``: not a str or Path (TypeError), an empty path, an existing file, or a place this
    process may not write to (ValueError)."""
    target = _path(name, path, "a folder path")
    if target.exists() and not target.is_dir():
        raise ValueError(f"{name} {str(path)!r} is a file; pass a folder (it is created if missing)")
    existing = target
    while not existing.exists():  # the nearest folder that exists: the missing ones will be made inside it
        existing = existing.parent
    if not existing.is_dir():
        raise ValueError(
            f"{name} {str(path)!r}: {str(existing)!r} is a file, so the folder cannot be made there"
        )
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ValueError(
            f"{name} {str(path)!r}: this process may not write in {str(existing)!r}; pass another folder"
        )
    return target
