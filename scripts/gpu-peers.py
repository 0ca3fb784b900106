#!/usr/bin/env python3
"""Peer rows of the GPU table (issue 7): cuBLAS and cuDNN through PyTorch.

  python3 scripts/gpu-peers.py measure               on the GPU machine: JSON lines on stdout
  python3 scripts/gpu-peers.py table PEERS CURVES    here: a markdown table of tuned vs peers

A peer-comparison script, so Python: the GPU machine has PyTorch and nothing of
tlptune. float32 throughout, TF32 off (tlptune's kernels are plain fp32 FMA);
a TF32 row is given for information only. Timing: CUDA events around each run,
10 warm-ups, the median of 50.
"""
import json
import sys

# The headline operators of scripts/gpu-session.sh, as tlptune names them.
MATMUL = "matmul:M=4096,N=4096,K=4096"
CONV = "conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1,dilation=1,layout=NCHW"


def median_seconds(torch, fn, warmup=10, runs=50):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(runs):
        start = torch.cuda.Event(enable_timing=True)
        end = torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        times.append(start.elapsed_time(end) / 1e3)
    times.sort()
    return times[len(times) // 2]


def measure():
    import torch

    dev = torch.device("cuda")
    name = torch.cuda.get_device_name(0)
    torch.backends.cudnn.benchmark = True
    rows = []

    def emit(peer, workload, flops, seconds, what):
        row = {"peer": peer, "workload": workload, "seconds": seconds, "gflops": flops / seconds / 1e9,
               "what": f"{what}; torch {torch.__version__}, {name}"}
        print(json.dumps(row), flush=True)
        rows.append(row)

    m = n = k = 4096
    a = torch.rand(m, k, device=dev) * 2 - 1
    b = torch.rand(k, n, device=dev) * 2 - 1
    for tf32 in (False, True):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        s = median_seconds(torch, lambda: torch.mm(a, b))
        emit("cublas-tf32" if tf32 else "cublas", MATMUL, 2.0 * m * n * k, s,
             "cuBLAS matmul, TF32 " + ("on (not comparable: lower precision)" if tf32 else "off"))
    torch.backends.cuda.matmul.allow_tf32 = False

    x = torch.rand(1, 64, 56, 56, device=dev) * 2 - 1
    w = torch.rand(64, 64, 3, 3, device=dev) * 2 - 1
    conv_flops = 2.0 * 1 * 64 * 56 * 56 * 64 * 3 * 3
    for tf32 in (False, True):
        torch.backends.cudnn.allow_tf32 = tf32
        s = median_seconds(torch, lambda: torch.nn.functional.conv2d(x, w, padding=1))
        emit("cudnn-tf32" if tf32 else "cudnn", CONV, conv_flops, s,
             "cuDNN conv2d NCHW, benchmark mode, TF32 " + ("on (not comparable)" if tf32 else "off"))


def table(peers_path, curves_path):
    peers = [json.loads(line) for line in open(peers_path) if line.strip()]
    curves = json.load(open(curves_path))["curves"]
    print("| operator | tlptune best GFLOP/s (random / tlp) | peer | peer GFLOP/s | tuned / peer | what ran |")
    print("|---|---|---|---|---|---|")
    for p in peers:
        best = {c["pick"]: c["best_gflops"] for c in curves if c["workload"] == p["workload"]}
        top = max(best.values()) if best else 0.0
        tuned = " / ".join(f"{best.get(k, 0.0):.1f}" for k in ("random", "model"))
        print(f"| {p['workload']} | {tuned} | {p['peer']} | {p['gflops']:.1f} | {top / p['gflops']:.2f}x | {p['what']} |")


if __name__ == "__main__":
    if len(sys.argv) == 2 and sys.argv[1] == "measure":
        measure()
    elif len(sys.argv) == 4 and sys.argv[1] == "table":
        table(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
