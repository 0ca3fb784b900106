#!/usr/bin/env python3
"""TVM MetaSchedule as a peer of tlptune: tune one operator with MetaSchedule on
this machine and report GFLOP/s, measured the way tlptune's runner does it
(warm-up, then the median of timed runs, output checked against NumPy).

Python is used here only because MetaSchedule is a Python package; tlptune
itself is C++. Set up once (PyPI's apache-tvm wheel carries MetaSchedule):

    python3 -m venv ~/tvmenv
    ~/tvmenv/bin/pip install apache-tvm==0.27.0.post1 apache-tvm-ffi==0.1.14.post1 xgboost psutil cloudpickle scipy

(Pin the FFI: with apache-tvm-ffi 0.1.15.post2, the newest on 2026-11-30, MetaSchedule's
TuneContext segfaults in tvm::ffi::ToJSONGraph as soon as the target names its cores; the
0.25/0.26 wheels do not load against the newest FFI at all.)

Then, for example:

    ~/tvmenv/bin/python examples/peers/metaschedule_peer.py \\
        --op matmul:M=1024,N=1024,K=1024 --trials 300 --work-dir ms-matmul --json ms-matmul.json

Operators: matmul (C[m,n] = sum_k A[m,k] B[k,n]) and conv2d (NCHW, weights KCRS,
N/C/H/W/K/R/S/stride/pad as in `tlptune ops`), the same algorithms tlptune tunes.
"""
import argparse
import json
import os
import statistics
import sys
import time

import numpy as np


def parse_op(text):
    if ":" not in text:
        sys.exit(f"error: operator '{text}' has no ':'; write KIND:P=V,... e.g. matmul:M=1024,N=1024,K=1024")
    kind, params = text.split(":", 1)
    values = {}
    for item in params.split(","):
        if "=" not in item:
            sys.exit(f"error: '{item}' in '{text}' is not P=V")
        key, value = item.split("=", 1)
        values[key] = value
    return kind, values


def matmul(te, p):
    m, n, k = int(p["M"]), int(p["N"]), int(p["K"])
    a = te.placeholder((m, k), name="A")
    b = te.placeholder((k, n), name="B")
    r = te.reduce_axis((0, k), name="k")
    c = te.compute((m, n), lambda i, j: te.sum(a[i, r] * b[r, j], axis=r), name="C")

    def reference(x, y):
        return x @ y

    return [a, b, c], 2.0 * m * n * k, reference


def conv2d(te, p):
    from tvm import topi

    n, c, h, w = (int(p.get(x, d)) for x, d in (("N", 1), ("C", 64), ("H", 56), ("W", 56)))
    k, r, s = int(p.get("K", 64)), int(p.get("R", 3)), int(p.get("S", 3))
    stride, pad = int(p.get("stride", 1)), int(p.get("pad", 1))
    if p.get("layout", "NCHW") != "NCHW" or int(p.get("dilation", 1)) != 1:
        sys.exit("error: this script covers NCHW convolutions without dilation")
    data = te.placeholder((n, c, h, w), name="data")
    weight = te.placeholder((k, c, r, s), name="weight")
    out = topi.nn.conv2d_nchw(data, weight, stride, pad, 1)
    oh, ow = out.shape[2], out.shape[3]
    flops = 2.0 * n * k * int(oh) * int(ow) * c * r * s

    def reference(x, wt):
        xp = np.pad(x, ((0, 0), (0, 0), (pad, pad), (pad, pad)))
        res = np.zeros((n, k, int(oh), int(ow)), dtype=np.float64)
        for dy in range(r):
            for dx in range(s):
                patch = xp[:, :, dy:dy + stride * int(oh):stride, dx:dx + stride * int(ow):stride]
                res += np.einsum("nchw,kc->nkhw", patch, wt[:, :, dy, dx])
        return res

    return [data, weight, out], flops, reference


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--op", required=True, help="KIND:P=V,... (matmul or conv2d)")
    ap.add_argument("--trials", type=int, default=300, help="MetaSchedule's max_trials_global")
    ap.add_argument("--work-dir", required=True, help="MetaSchedule's database and logs")
    ap.add_argument("--threads", type=int, default=os.cpu_count(), help="cores the kernel may use")
    ap.add_argument("--min-seconds", type=float, default=0.5, help="timed seconds, at least")
    ap.add_argument("--json", help="also write the result as JSON here")
    args = ap.parse_args()

    try:
        import tvm
        from tvm import te
        from tvm.s_tir import meta_schedule as ms
        from tvm.target import codegen
    except ImportError as e:
        sys.exit(f"error: cannot import TVM's MetaSchedule ({e}); see the set-up lines at the top of this script")

    kind, params = parse_op(args.op)
    builders = {"matmul": matmul, "conv2d": conv2d}
    if kind not in builders:
        sys.exit(f"error: operator kind '{kind}' is not covered; this script knows {', '.join(builders)}")
    tensors, flops, reference = builders[kind](te, params)
    func = te.create_prim_func(tensors)
    cpu = codegen.llvm_get_system_cpu()
    target = tvm.target.Target({"kind": "llvm", "mcpu": cpu, "num-cores": args.threads})

    t0 = time.time()
    database = ms.tune_tir(mod=func, target=target, work_dir=args.work_dir, max_trials_global=args.trials,
                           num_trials_per_iter=32, num_tuning_cores=args.threads, seed=1,
                           database="memory")
    tune_seconds = time.time() - t0
    sch = ms.tir_integration.compile_tir(database, func, target)
    if sch is None:
        sys.exit("error: MetaSchedule found no valid schedule")
    lib = tvm.compile(sch.mod, target=target)

    dev = tvm.cpu()
    rng = np.random.default_rng(1)
    inputs = [rng.uniform(-1, 1, [int(d) for d in t.shape]).astype("float32") for t in tensors[:-1]]
    out_shape = [int(d) for d in tensors[-1].shape]
    args_dev = [tvm.runtime.tensor(x, dev) for x in inputs] + [tvm.runtime.tensor(np.zeros(out_shape, "float32"), dev)]
    lib(*args_dev)
    got = args_dev[-1].numpy()
    want = reference(*[x.astype(np.float64) for x in inputs])
    scale = float(np.mean(np.abs(want))) or 1.0
    max_err = float(np.max(np.abs(got - want)))
    ok = max_err <= 1e-3 * scale * 10
    # Warm-up, then timed runs until both 3 runs and --min-seconds are reached; the median counts.
    lib(*args_dev)
    costs = []
    start = time.perf_counter()
    while len(costs) < 3 or time.perf_counter() - start < args.min_seconds:
        t = time.perf_counter()
        lib(*args_dev)
        costs.append(time.perf_counter() - t)
        if len(costs) >= 200:
            break
    median = statistics.median(costs)
    result = {
        "peer": "metaschedule",
        "op": args.op,
        "what_ran": f"TVM {tvm.__version__} MetaSchedule, {args.trials} trials, target '{target}'",
        "gflops": flops / median / 1e9 if ok else 0.0,
        "median_seconds": median,
        "runs": len(costs),
        "tune_seconds": tune_seconds,
        "checked": True,
        "max_abs_error": max_err,
        "ok": ok,
    }
    print(json.dumps(result, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=1)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
