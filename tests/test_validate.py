"""The shared argument checks: divisor lists built in O(sqrt n), capped listings, image sizes and images."""

import time

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from vitcourse import _validate
from vitcourse._validate import check_image, common_divisors, divisors, image_size, listing


@settings(max_examples=200, deadline=None)
@given(n=st.integers(1, 5000))
def test_divisors_equal_the_plain_loop(n: int) -> None:
    assert divisors(n) == [d for d in range(1, n + 1) if n % d == 0]


def test_divisors_of_a_large_number_are_fast_and_cached() -> None:
    n = 2**20 * 3**10  # about 6e10: a plain loop up to n would take hours
    start = time.perf_counter()
    found = divisors(n)
    assert time.perf_counter() - start < 1.0
    assert len(found) == 21 * 11 and found[0] == 1 and found[-1] == n
    hits = _validate._divisors.cache_info().hits
    assert divisors(n) == found and _validate._divisors.cache_info().hits == hits + 1
    found.append(0)  # the caller's copy: the cache is not touched
    assert divisors(n)[-1] == n


def test_common_divisors_of_the_picture() -> None:
    assert common_divisors(60, 100) == [1, 2, 4, 5, 10, 20]
    with pytest.raises(ValueError, match="width must be an int >= 1"):
        common_divisors(60, 0)
    with pytest.raises(TypeError, match="n must be an int"):
        divisors(2.0)


def test_listing_caps_long_lists() -> None:
    assert listing([1, 2, 4, 5, 10, 20]) == "[1, 2, 4, 5, 10, 20]"
    long = divisors(720720)  # 240 divisors
    text = listing(long)
    assert text.startswith("[1, 2, 3,") and text.endswith("360360, 720720] (240 values)") and len(text) < 100


def test_int_checks_name_the_parameter() -> None:
    assert _validate.positive_int("depth", 3) == 3 and _validate.non_negative_int("padding", 0) == 0
    with pytest.raises(ValueError, match="depth must be an int >= 1, got 0"):
        _validate.positive_int("depth", 0)
    with pytest.raises(TypeError, match="padding must be an int >= 0, got bool True"):
        _validate.non_negative_int("padding", True)


def test_image_size_and_check_image() -> None:
    assert image_size(224) == (224, 224) and image_size([60, 100]) == (60, 100)
    with pytest.raises(TypeError, match="img_size must be an int or a pair"):
        image_size((60, 100, 3))
    with pytest.raises(ValueError, match=r"img_size\[1\] \(width\) must be an int >= 1"):
        image_size((60, 0))
    images = torch.zeros(2, 1, 60, 100)
    assert check_image(images, 1, (60, 100)) is images
    with pytest.raises(ValueError, match=r"3 channels .* in_chans=1; pass images of shape \(B, 1, 60, 100\)"):
        check_image(torch.zeros(2, 3, 60, 100), 1, (60, 100))
    with pytest.raises(
        ValueError, match=r"images are 64 x 64 but the model was built for img_size=\(60, 100\)"
    ):
        check_image(torch.zeros(2, 1, 64, 64), 1, (60, 100))


@pytest.mark.parametrize(
    "n",
    [
        2**62,
        2**63 - 25,
        (2**31 - 1) * (2**31 - 19),
        4611686014132420609,
        999983**2,
        10**12,
    ],  # powers, primes, semiprimes
)
def test_divisors_of_any_torch_size_come_at_once(n: int) -> None:
    start = time.process_time()
    found = divisors(n)
    assert (
        time.process_time() - start < 2.0
    )  # trial division up to sqrt(n) would take hours for most of these
    assert all(n % d == 0 for d in found) and found == sorted(set(found)) and found[0] == 1 and found[-1] == n
    small = [d for d in range(1, 10**5) if n % d == 0]  # every divisor below 1e5, and its partner, is listed
    assert set(small) | {n // d for d in small} <= set(found)


def test_sizes_above_torchs_largest_are_refused() -> None:
    assert _validate.positive_int("dim", 2**63 - 1) == 2**63 - 1
    with pytest.raises(ValueError, match=r"dim must be an int <= 2\*\*63 - 1"):
        _validate.positive_int("dim", 2**63)


def test_real_number_switch_and_choice_checks() -> None:
    assert (
        _validate.finite_float("lr", 1) == 1.0 and _validate.finite_float("eps", 1e-6, 0, above=True) == 1e-6
    )
    with pytest.raises(ValueError, match="eps must be a finite number > 0, got nan"):
        _validate.finite_float("eps", float("nan"), 0, above=True)
    with pytest.raises(TypeError, match="mlp_ratio must be a finite number > 0, got str '2'"):
        _validate.finite_float("mlp_ratio", "2", 0, above=True)
    assert _validate.flag("qkv_bias", False) is False
    with pytest.raises(TypeError, match="qkv_bias must be True or False, got str 'False' .*counts as true"):
        _validate.flag("qkv_bias", "False")
    with pytest.raises(ValueError, match=r"task must be one of \('scramble', 'moon'\), got 'sun'"):
        _validate.choice("task", "sun", ("scramble", "moon"))


def test_check_image_casts_floats_and_refuses_other_dtypes_and_devices() -> None:
    weight = torch.zeros(2, dtype=torch.float32)
    out = check_image(torch.zeros(1, 1, 4, 4, dtype=torch.float64), 1, (4, 4), like=weight)
    assert out.dtype == torch.float32
    with pytest.raises(
        TypeError, match=r"images has dtype torch.uint8.*images.float\(\) / 255 for 8-bit pictures"
    ):
        check_image(torch.zeros(1, 1, 4, 4, dtype=torch.uint8), 1, (4, 4))
    with pytest.raises(ValueError, match="images is on device meta but the module's parameters are on cpu"):
        check_image(torch.zeros(1, 1, 4, 4, device="meta"), 1, (4, 4), like=weight)


@pytest.mark.filterwarnings("ignore::UserWarning")  # torch: quantized tensors are deprecated
def test_dense_tensor_refuses_other_layouts_and_meta_unless_shapes_only() -> None:
    x = torch.zeros(2, 3)
    assert _validate.dense_tensor("x", x) is x
    with pytest.raises(TypeError, match=r"x is a sparse_coo tensor, .*convert it with x\.to_dense\(\)"):
        _validate.dense_tensor("x", x.to_sparse())
    with pytest.raises(TypeError, match=r"checkpoint entry 'w' is a sparse_coo tensor.*tensor\.to_dense\(\)"):
        _validate.dense_tensor("checkpoint entry 'w'", x.to_sparse())
    with pytest.raises(TypeError, match=r"x is a quantized tensor \(torch.qint8\).*x\.dequantize\(\)"):
        _validate.dense_tensor("x", torch.quantize_per_tensor(x, 0.1, 0, torch.qint8))
    meta = torch.zeros(2, 3, device="meta")
    with pytest.raises(ValueError, match=r"x is a meta tensor \(a shape of \(2, 3\) with no numbers in it\)"):
        _validate.dense_tensor("x", meta)
    assert _validate.dense_tensor("x", meta, shapes_only=True) is meta
    with pytest.raises(ValueError, match="images is a meta tensor"):  # no module to compare devices with
        check_image(torch.zeros(1, 1, 4, 4, device="meta"), 1, (4, 4))
    on_meta = torch.zeros(2, device="meta")  # a module built on the meta device takes meta images
    assert check_image(torch.zeros(1, 1, 4, 4, device="meta"), 1, (4, 4), like=on_meta).is_meta


def test_allocatable_refuses_more_than_the_limit_naming_the_settings() -> None:
    limit = _validate.LARGEST_ALLOCATION
    assert limit == 2**40 and _validate.allocatable("a table", limit, dim=1) == limit
    with pytest.raises(
        ValueError, match=r"num_tokens=1099511627777, dim=1: a table would hold 1,099,511,627,777"
    ):
        _validate.allocatable("a table", limit + 1, num_tokens=limit + 1, dim=1)
    with pytest.raises(
        ValueError, match=r"would hold about 2\*\*66\.0 elements"
    ):  # huge counts as powers of two
        _validate.allocatable("a table", 2**66, dim=2**62)


def test_writable_file_and_folder(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "a.file").write_text("")
    assert _validate.writable_file("path", tmp_path / "new.pt") == tmp_path / "new.pt"
    assert _validate.writable_file("path", str(tmp_path / "a.file")) == tmp_path / "a.file"  # overwritten
    with pytest.raises(
        ValueError, match=r"--save '.*' is a folder; pass the path of a file to write, e\.g\."
    ):
        _validate.writable_file("--save", tmp_path)
    with pytest.raises(FileNotFoundError, match=r"path '.*': the folder '.*missing' does not exist"):
        _validate.writable_file("path", tmp_path / "missing" / "x.pt")
    with pytest.raises(ValueError, match=r"a\.file' is a file, not a folder"):
        _validate.writable_file("path", tmp_path / "a.file" / "deeper" / "x.pt")
    with pytest.raises(TypeError, match="path must be a file path"):
        _validate.writable_file("path", b"x.pt")
    assert _validate.writable_folder("out", tmp_path / "new" / "deeper") == tmp_path / "new" / "deeper"
    with pytest.raises(ValueError, match=r"out '.*a\.file' is a file; pass a folder"):
        _validate.writable_folder("out", tmp_path / "a.file")
    with pytest.raises(ValueError, match="out must be a folder path, got an empty path"):
        _validate.writable_folder("out", " ")
    monkeypatch.setattr(
        _validate.os, "access", lambda path, mode: False
    )  # a read-only place (root writes anywhere)
    with pytest.raises(ValueError, match="may not write in"):
        _validate.writable_file("path", tmp_path / "new.pt")
    with pytest.raises(ValueError, match="may not overwrite"):
        _validate.writable_file("path", tmp_path / "a.file")
    with pytest.raises(ValueError, match="may not write in"):
        _validate.writable_folder("out", tmp_path / "new")
