"""Benchmarks: how fast and how lean the course's models and notebooks are, measured in one run.

    python -m vitcourse.bench                 # full run (a few minutes on a 2-core CPU)
    python -m vitcourse.bench --short         # a smoke run in seconds: small sizes, no notebooks
    python -m vitcourse.bench --json          # one JSON object instead of the table
    python -m vitcourse.bench --no-course     # the models and the GEMM only (e.g. on a GPU machine)

What is measured (each model variant in a fresh subprocess, so memory and caches do not leak between them):

* **training step** of ``--model`` (default ``t2t_vit_t_14``, T2T-ViT_t-14) at ``--img-size`` (224) and
  ``--batch`` (8): forward + backward, fused attention (``F.scaled_dot_product_attention``) against the
  step-by-step path that stores the N x N attention matrix. Images per second (median of ``--repeats`` steps
  after one warm-up step) and the peak memory the step adds on top of the idle model (CPU: the process's peak
  resident memory, reset before the step through ``/proc/self/clear_refs`` on Linux; CUDA:
  ``torch.cuda.max_memory_allocated``).
* **GEMM throughput** of this machine, measured in the same run: one ``--gemm-size`` cube matrix product
  (default 2048 on the CPU, 8192 on CUDA) in the step's dtype (fp32, or bf16 with ``--dtype bf16``), median of
  timed repeats after a warm-up. The training step's FLOP rate (multiply-adds counted by
  :func:`vitcourse.cost.count_macs`, x 2 per multiply-add, x 3 for forward + backward) is reported as a
  fraction of it: how close the step comes to the best this machine does on the operation that dominates it.
* **forward** of ViT-B/16 at 224: images per second, fused and step-by-step.
* **the course** (unless ``--no-course``): seconds per notebook under strict nbval, building the soft-split
  animation, and every explorer's redraw (update + PNG) as each control steps through values new to it, then
  through the same values again (a setting seen before comes back from the drawing's saved states).
* **CUDA only**: also the model-FLOP utilisation against the card's data-sheet bf16 peak (with
  ``--dtype bf16``, the training step under bf16 autocast).

Targets (2-core CPU, fp32): fused >= 1.5x the step-by-step throughput and <= 0.5x its added peak memory;
animation <= 3 s; widget redraw <= 100 ms. The benchmark reports; it asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

import torch

from .device import get_device

__all__ = ["main", "PEAK_BF16_TFLOPS"]

#: Dense bf16 peak of some cards, TFLOP/s (vendor data sheets), for model-FLOP utilisation.
PEAK_BF16_TFLOPS = {"H100": 989.0, "H200": 989.0, "A100": 312.0, "L40S": 362.0, "L4": 121.0, "A10": 125.0}

ROOT = Path(__file__).resolve().parent.parent


def _rss_kib(field: str) -> int | None:
    try:
        for line in Path("/proc/self/status").read_text().splitlines():
            if line.startswith(field + ":"):
                return int(line.split()[1])
    except OSError:
        return None
    return None


def _reset_peak() -> bool:
    try:
        Path("/proc/self/clear_refs").write_text("5")
        return True
    except OSError:
        return False


def _gemm(args: argparse.Namespace) -> dict:
    """Runs in a subprocess: FLOP/s of one (n x n) @ (n x n) matrix product in the step's dtype."""
    device = get_device(args.device)
    n = args.gemm_size
    dtype = torch.bfloat16 if args.dtype == "bf16" else torch.float32
    generator = torch.Generator().manual_seed(0)  # drawn on the CPU, then moved
    a = torch.randn(n, n, generator=generator).to(device, dtype)
    b = torch.randn(n, n, generator=generator).to(device, dtype)
    out = torch.empty(n, n, device=device, dtype=dtype)

    def product() -> float:
        if device == "cuda":
            torch.cuda.synchronize()
        start = time.perf_counter()
        torch.mm(a, b, out=out)
        if device == "cuda":
            torch.cuda.synchronize()
        return time.perf_counter() - start

    product()  # warm-up: thread pool, kernel selection
    times = [product()]
    budget = time.perf_counter() + 1.0  # at least 5 timed products and about a second of them
    while len(times) < 5 or time.perf_counter() < budget:
        times.append(product())
        if len(times) >= 200:
            break
    seconds = statistics.median(times)
    return {
        "size": n,
        "dtype": args.dtype,
        "repeats": len(times),
        "s": seconds,
        "gflops": 2 * n**3 / seconds / 1e9,
    }


def _worker(args: argparse.Namespace) -> dict:
    """Runs in a subprocess: one model, one path, one kind of step (or the GEMM)."""
    if args.kind == "gemm":
        return _gemm(args)
    from .attention import set_fused
    from .cost import count_macs
    from .models import create_model

    device = get_device(args.device)
    torch.manual_seed(0)
    overrides = {"img_size": args.img_size}
    if args.depth:
        overrides["depth"] = args.depth
    model = create_model(args.model, **overrides).to(device)
    set_fused(model, args.path == "fused")
    images = torch.randn(args.batch, model.in_chans, args.img_size, args.img_size, device=device)
    train_step = args.kind == "train"
    autocast = (
        torch.autocast("cuda", dtype=torch.bfloat16)
        if args.dtype == "bf16"
        else torch.autocast(device, enabled=False)
    )

    def step() -> None:
        with autocast:
            if train_step:
                model(images).float().sum().backward()
            else:
                with torch.no_grad():
                    model(images)
        if device == "cuda":
            torch.cuda.synchronize()

    model.train(train_step)
    if device == "cuda":
        torch.cuda.synchronize()
        idle = torch.cuda.memory_allocated()
        torch.cuda.reset_peak_memory_stats()
        step()
        added = torch.cuda.max_memory_allocated() - idle
    else:
        idle_kib = _rss_kib("VmRSS")
        exact = _reset_peak()
        step()
        peak_kib = _rss_kib("VmHWM") if exact else resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        added = None if idle_kib is None or peak_kib is None else (peak_kib - idle_kib) * 1024
    times = []
    for _ in range(args.repeats):
        model.zero_grad(set_to_none=True)
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    seconds = statistics.median(times)
    result = {"images_per_s": args.batch / seconds, "step_s": seconds, "added_peak_bytes": added}
    flops_per_image = sum(count_macs(model, images[:1]).values()) * 2 * (3 if train_step else 1)
    result["gflop_per_image"] = flops_per_image / 1e9
    result["gflops"] = flops_per_image * args.batch / seconds / 1e9
    if device == "cuda":
        flops = flops_per_image * args.batch
        name = torch.cuda.get_device_name(0)
        peak = next((v for k, v in PEAK_BF16_TFLOPS.items() if k in name), None)
        result["device_name"] = name
        result["tflops"] = flops / seconds / 1e12
        result["mfu"] = None if peak is None else result["tflops"] / peak
    return result


def _run_worker(**settings: object) -> dict:
    cmd = [sys.executable, "-m", "vitcourse.bench", "--worker"]
    for key, value in settings.items():
        if value is not None:
            cmd += [f"--{key.replace('_', '-')}", str(value)]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"benchmark worker failed: {' '.join(cmd)}\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def _course(short: bool) -> dict:
    import matplotlib

    matplotlib.use("Agg")
    from . import load_mountains, plots, train, widgets
    from .tokens import T2T_STAGES

    picture = load_mountains()
    start = time.perf_counter()
    plots.soft_split_animation(picture, 20, 10, 5)
    animation = time.perf_counter() - start
    model = train.build_model(train.TrainConfig())  # untrained: a redraw costs the same either way
    t2t = {"height": 224, "width": 224}
    for i, (k, s, p) in enumerate(T2T_STAGES, start=1):
        t2t |= {f"kernel{i}": k, f"stride{i}": s, f"padding{i}": p}
    vit = {"heads": 4, "scale": widgets.SCALES[0], "temperature": 1.0}
    pos = {"num_tokens": 176, "dim": 768, "base": 1e4, "pair": 60, "position": 10}
    # a drawing, its starting settings, and for every control the values it is stepped through, one at a time,
    # each new to the drawing (so nothing comes from its saved states); then the same values once more
    cases = {
        "patch size": (widgets.PatchDrawing(picture), {"patch": 20}, {"patch": [10, 5, 4, 2, 1]}),
        "soft split": (widgets.SoftSplitDrawing(picture), {"kernel": 20, "stride": 10, "padding": 5},
                       {"kernel": range(21, 25), "stride": range(11, 15), "padding": range(6, 10)}),
        "position": (widgets.PositionDrawing(), pos, {"num_tokens": range(177, 181), "dim": range(770, 778, 2),
                                                      "base": [1e5, 1e3, 1e2], "pair": range(61, 65),
                                                      "position": range(11, 15)}),
        "attention": (widgets.AttentionDrawing(picture), vit, {"heads": [8, 16, 2, 1], "scale": ["none"],
                                                               "temperature": [1.12, 1.26, 1.41, 1.58]}),
        "T2T stages": (widgets.T2TStagesDrawing(), t2t, {key: range(value + 1, value + 4) for key, value in t2t.items()}),
        "model attention": (widgets.ModelAttentionDrawing(model, picture), {"block": 0, "head": 0},
                            {"block": [1], "head": [1, 2, 3]}),
    }  # fmt: skip
    explorers, slowest, revisits = {}, {}, {}
    for name, (drawing, base, walks) in cases.items():
        drawing.update(**base)
        drawing.png()  # the first picture draws everything once
        new, seen = [], []
        for times in (new, seen):
            for key, values in walks.items():
                for value in values:
                    start = time.perf_counter()
                    drawing.update(**(base | {key: value}))
                    drawing.png()
                    times.append(time.perf_counter() - start)
        explorers[name], slowest[name] = statistics.median(new), max(new)
        revisits[name] = statistics.median(seen)
    out = {"animation_s": animation, "widget_redraw_median_s": explorers["soft split"],
           "explorer_redraw_median_s": explorers, "explorer_redraw_max_s": slowest,
           "explorer_revisit_median_s": revisits, "notebooks_s": {}}  # fmt: skip
    if not short:
        for nb in sorted((ROOT / "notebooks").glob("[0-9][0-9]_*.ipynb")):
            start = time.perf_counter()
            subprocess.run(
                [sys.executable, "-m", "pytest", "--nbval", "--nbval-current-env", "--nbval-sanitize-with",
                 str(ROOT / "notebooks" / "sanitize.cfg"), "-p", "no:cacheprovider", "-q", str(nb)],
                capture_output=True, check=False, cwd=ROOT,
            )  # fmt: skip
            out["notebooks_s"][nb.name] = time.perf_counter() - start
    return out


def _mib(n: int | None) -> str:
    return "n/a" if n is None else f"{n / 2**20:.0f} MiB"


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m vitcourse.bench", description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--model", default="t2t_vit_t_14", help="preset for the training step (default: %(default)s)"
    )
    p.add_argument("--batch", type=int, default=8, help="batch size (default: %(default)s)")
    p.add_argument("--img-size", type=int, default=224, help="image side (default: %(default)s)")
    p.add_argument("--device", choices=("auto", "cpu", "cuda"), default="auto")
    p.add_argument("--dtype", choices=("fp32", "bf16"), default="fp32", help="bf16 uses CUDA autocast")
    p.add_argument(
        "--repeats", type=int, default=3, help="timed steps after one warm-up (default: %(default)s)"
    )
    p.add_argument(
        "--gemm-size",
        type=int,
        default=0,
        help="side n of the n x n x n matrix product the step is compared with (default: 2048 on the CPU, "
        "8192 on CUDA)",
    )
    p.add_argument("--short", action="store_true", help="tiny sizes and no notebooks: a smoke run")
    p.add_argument("--no-course", action="store_true", help="skip the course part (notebooks, widget)")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    # used by the subprocesses the benchmark starts
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--path", choices=("fused", "step"), default="fused", help=argparse.SUPPRESS)
    p.add_argument("--kind", choices=("train", "forward", "gemm"), default="train", help=argparse.SUPPRESS)
    p.add_argument("--depth", type=int, default=0, help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        print(json.dumps(_worker(args)))
        return 0
    try:
        device = get_device(args.device)
    except ValueError as err:
        p.error(str(err))
    if args.dtype == "bf16" and device != "cuda":
        p.error("--dtype bf16 is measured with CUDA autocast; use it with a CUDA device")
    if args.gemm_size < 0:
        p.error(f"--gemm-size must be a positive matrix side (0 picks the default), got {args.gemm_size}")
    if args.short:
        args.model, args.img_size, args.batch, args.repeats = "t2t_vit_t_7", 64, 2, 1
        args.gemm_size = args.gemm_size or 256
    args.gemm_size = args.gemm_size or (8192 if device == "cuda" else 2048)
    common = {"device": device, "repeats": args.repeats, "dtype": args.dtype, "img_size": args.img_size}
    report: dict = {
        "machine": {
            "platform": platform.platform(), "python": platform.python_version(), "torch": torch.__version__,
            "cpus": os.cpu_count(), "device": device,
            "device_name": torch.cuda.get_device_name(0) if device == "cuda" else platform.processor() or "cpu",
        },
        "settings": {"model": args.model, "batch": args.batch, "img_size": args.img_size, "dtype": args.dtype,
                     "gemm_size": args.gemm_size},
    }  # fmt: skip
    gemm = _run_worker(kind="gemm", gemm_size=args.gemm_size, device=device, dtype=args.dtype)
    report["gemm"] = gemm
    train = {
        path: _run_worker(model=args.model, batch=args.batch, path=path, kind="train", **common)
        for path in ("fused", "step")
    }
    for result in train.values():
        result["gemm_fraction"] = result["gflops"] / gemm["gflops"]
    report["train_step"] = train
    report["train_step"]["fused_speedup"] = train["fused"]["images_per_s"] / train["step"]["images_per_s"]
    if train["fused"]["added_peak_bytes"] and train["step"]["added_peak_bytes"]:
        report["train_step"]["fused_memory_ratio"] = (
            train["fused"]["added_peak_bytes"] / train["step"]["added_peak_bytes"]
        )
    vit_depth = 1 if args.short else None
    report["vit_b16_forward"] = {
        path: _run_worker(model="vit_base_patch16_224", batch=args.batch, path=path, kind="forward", depth=vit_depth, **common)
        for path in ("fused", "step")
    }  # fmt: skip
    report["course"] = None if args.no_course else _course(args.short)
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print_report(report, short=args.short)
    return 0


def print_report(report: dict, short: bool = False) -> None:
    """Print a report of :func:`main` (``--json`` prints the same report as JSON) as the human-readable table."""
    m, s = report["machine"], report["settings"]
    gemm, train, device = report["gemm"], report["train_step"], m["device"]
    print(
        f"machine: {m['device']} ({m['device_name']}), {m['cpus']} CPUs, torch {m['torch']}, Python {m['python']}"
    )
    print(
        f"\ntraining step: {s['model']}, {s['img_size']} x {s['img_size']}, batch {s['batch']}, {s['dtype']}"
    )
    print(f"{'path':14s} {'images/s':>9s} {'s/step':>8s} {'added peak memory':>18s}")
    for path in ("fused", "step"):
        r = train[path]
        print(f"{path:14s} {r['images_per_s']:9.2f} {r['step_s']:8.3f} {_mib(r['added_peak_bytes']):>18s}")
    print(f"fused / step-by-step: {report['train_step']['fused_speedup']:.2f}x throughput", end="")
    ratio = report["train_step"].get("fused_memory_ratio")
    print(f", {ratio:.2f}x added peak memory" if ratio else "")
    print(
        f"{s['dtype']} GEMM {gemm['size']}^3 (median of {gemm['repeats']}): {gemm['gflops']:.1f} GFLOP/s; "
        f"the step does {train['fused']['gflop_per_image']:.1f} GFLOP per image, so"
    )
    for path in ("fused", "step"):
        r = train[path]
        print(
            f"  {path:12s} {r['images_per_s']:.2f} images/s x {r['gflop_per_image']:.1f} GFLOP = "
            f"{r['gflops']:.1f} GFLOP/s = {r['gemm_fraction']:.1%} of the GEMM"
        )
    if device == "cuda":
        r = train["fused"]
        mfu = "n/a" if r["mfu"] is None else f"{r['mfu']:.1%}"
        print(f"{r['device_name']}: {r['tflops']:.1f} TFLOP/s, model-FLOP utilisation {mfu}")
    print(
        f"\nViT-B/16 forward, {s['img_size']} x {s['img_size']}, batch {s['batch']}"
        + (" (1 block: --short)" if short else "")
    )
    for path in ("fused", "step"):
        print(f"{path:14s} {report['vit_b16_forward'][path]['images_per_s']:9.2f} images/s")
    c = report["course"]
    if c is None:
        return
    print(
        f"\ncourse: soft-split animation {c['animation_s']:.2f} s, widget redraw median {c['widget_redraw_median_s'] * 1000:.0f} ms"
    )
    for name, secs in c["explorer_redraw_median_s"].items():
        print(
            f"  explorer redraw, {name:16s} new settings: median {secs * 1000:4.0f} ms, max "
            f"{c['explorer_redraw_max_s'][name] * 1000:4.0f} ms; seen before: median "
            f"{c['explorer_revisit_median_s'][name] * 1000:4.0f} ms (Python side: update + PNG, every control)"
        )
    for name, secs in c["notebooks_s"].items():
        print(f"  {name:36s} {secs:6.1f} s under nbval")


if __name__ == "__main__":
    sys.exit(main())
