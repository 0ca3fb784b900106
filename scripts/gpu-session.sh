#!/bin/sh
# The GPU measurements of the README (issue 7), for a GPU machine lent for a few
# minutes with nothing of tlptune installed: everything is built here, the GPU
# machine only runs bundles (bin/tlptune-runner + kernels + run.sh) and PyTorch's
# cuBLAS/cuDNN for the peer rows.
#
#   scripts/gpu-session.sh prepare           here (~30 min of builds): bundles D and H -> .device/carry/call1.tar.xz
#   scripts/gpu-session.sh device1           on the GPU machine, repo root, carry ['.device/carry']; results in $OUT
#   scripts/gpu-session.sh between R1        here: import call 1 (R1 = its results folder), train the GPU
#                                            model on D, bundle its picks for the headline ops (T) -> .device/carry/call2.tar.xz
#   scripts/gpu-session.sh device2           on the GPU machine again, same carry; results in $OUT
#   scripts/gpu-session.sh report R1 R2      here: the table -> docs/results/gpu/report.md
#
# D: random schedules of the full suite's operators except the two headline ones
#    (the GPU model's training data). H: random schedules of the headline
#    operators (matmul 4096^3 and ResNet-50's 3x3 convolution at 56x56), the
#    random search curve. T: the GPU model's best-ranked of a large sample of the
#    headline operators' schedules, the TLP curve; the model never saw them.
# Environment: TLPTUNE (default build/bin/tlptune), DATA_PER_OP (32),
# RANDOM_PER_OP (128), TLP_PER_OP (48), TLP_POOL (3000), TLP_JOB_TIMEOUT (20).
# A rehearsal on this CPU (same steps, no GPU): TARGET=host PEERS=0, small counts.
set -eu
T=${TLPTUNE:-build/bin/tlptune}
DEV=.device/work     # the bundles, logs and model, here only
CARRY=.device/carry  # what travels to the GPU machine (64 MiB at most)
HEADLINE="--op matmul:M=4096,N=4096,K=4096 --op conv2d:N=1,C=64,H=56,W=56,K=64,R=3,S=3,stride=1,pad=1"
DATA_OPS="--op matmul:M=128,N=768,K=768 --op dense_bias_relu:M=128,N=3072,K=768 --op matmul:M=128,N=768,K=3072
 --op batch_matmul:B=12,M=128,N=128,K=64 --op batch_matmul:B=12,M=128,N=64,K=128 --op softmax:M=1536,N=128
 --op layernorm:M=128,N=768 --op conv2d_bias_relu:N=1,C=3,H=224,W=224,K=64,R=7,S=7,stride=2,pad=3
 --op conv2d:N=1,C=64,H=56,W=56,K=256,R=1,S=1,stride=1,pad=0
 --op conv2d_bias_relu:N=1,C=128,H=56,W=56,K=128,R=3,S=3,stride=2,pad=1
 --op conv2d_bias_relu:N=1,C=1024,H=14,W=14,K=256,R=1,S=1,stride=1,pad=0
 --op conv2d_bias_relu:N=1,C=256,H=14,W=14,K=256,R=3,S=3,stride=1,pad=1
 --op depthwise_conv2d:N=1,C=32,H=112,W=112,R=3,S=3,stride=1,pad=1
 --op depthwise_conv2d:N=1,C=144,H=56,W=56,R=3,S=3,stride=2,pad=1
 --op depthwise_conv2d:N=1,C=576,H=14,W=14,R=3,S=3,stride=1,pad=1 --op matmul:M=1024,N=1024,K=1024"
COMMON="--target ${TARGET:-cuda} --min-seconds 0.05 --no-progress"

# Runs one carried bundle on the GPU machine into $OUT/NAME (at most 8 files come back: 3 per bundle).
run_bundle() {
  mkdir -p /tmp/tlp "$OUT/$1"
  [ -d "/tmp/tlp/$1" ] || tar -C /tmp/tlp -xJf "$CARRY/$2" 2>/dev/null ||
    python3 -c 'import sys, tarfile; tarfile.open(sys.argv[1]).extractall(sys.argv[2])' "$CARRY/$2" /tmp/tlp
  TLP_JOB_TIMEOUT=${TLP_JOB_TIMEOUT:-20} sh "/tmp/tlp/$1/run.sh" "$OUT/$1"
}

case "${1:-}" in
  prepare)
    [ -e "$DEV/D" ] && { echo "$DEV/D exists: remove $DEV to start over" >&2; exit 1; }
    mkdir -p "$DEV" "$CARRY"
    "$T" bundle $COMMON $DATA_OPS --per-op "${DATA_PER_OP:-32}" --seed 11 --max-reference 65536 --out "$DEV/D"
    "$T" bundle $COMMON $HEADLINE --per-op "${RANDOM_PER_OP:-128}" --seed 12 --max-reference 262144 --out "$DEV/H"
    tar -C "$DEV" -cJf "$CARRY/call1.tar.xz" D H
    ls -l "$CARRY/call1.tar.xz"
    echo "next, with the device tool: command 'sh scripts/gpu-session.sh device1', carry ['.device/carry'], timeout_s 540" ;;
  device1)
    nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv || true
    run_bundle H call1.tar.xz
    [ "${PEERS:-1}" = 0 ] || PYTHONUNBUFFERED=1 python3 scripts/gpu-peers.py measure > "$OUT/peers.jsonl" ||
      echo "gpu-session: the peers failed (above); the tuned kernels are measured anyway" >&2
    run_bundle D call1.tar.xz ;;
  between)
    R1=${2:?the results folder of device1}
    "$T" bundle-import "$DEV/D" "$R1/D" --log "$DEV/gpu-train.jsonl"
    "$T" bundle-import "$DEV/H" "$R1/H" --log "$DEV/gpu-headline.jsonl"
    # The paper's settings: the default recipe was measured on CPUs only.
    "$T" train --logs "$DEV/gpu-train.jsonl" --recipe paper --seq-len 40 --seed 1 --out "$DEV/gpu-tlp.tlpm"
    "$T" bundle $COMMON $HEADLINE --per-op "${TLP_PER_OP:-48}" --pool "${TLP_POOL:-3000}" --model "$DEV/gpu-tlp.tlpm" \
      --seed 13 --max-reference 262144 --out "$DEV/T"
    tar -C "$DEV" -cJf "$CARRY/call2.tar.xz" T
    echo "next, with the device tool: command 'sh scripts/gpu-session.sh device2', carry ['.device/carry'], timeout_s 300" ;;
  device2)
    run_bundle T call2.tar.xz ;;
  report)
    R1=${2:?the results folder of device1}; R2=${3:?the results folder of device2}
    mkdir -p docs/results/gpu
    {
      echo "# tlptune on $(sed 's/.*"name":"\([^"]*\)".*/\1/' "$R1/H/probe.json"), $(date -u +%Y-%m-%d)"
      echo
      echo "Random: the first N of random schedules in sampled order. tlp: the GPU model's best-ranked of"
      echo "${TLP_POOL:-3000} samples, best first (model trained on the other operators' random schedules only)."
      "$T" bundle-import "$DEV/H" "$R1/H" "$DEV/T" "$R2/T" --log "$DEV/gpu-headline.jsonl" \
        --json docs/results/gpu/curves.json | grep '^|'
      echo
      [ ! -s "$R1/peers.jsonl" ] || python3 scripts/gpu-peers.py table "$R1/peers.jsonl" docs/results/gpu/curves.json
    } > docs/results/gpu/report.md
    [ ! -s "$R1/H/probe.json" ] || cp "$DEV/gpu-tlp.tlpm" models/tlp-gpu.tlpm  # a GPU model, trained on GPU data
    cat docs/results/gpu/report.md ;;
  *)
    sed -n '2,22p' "$0"; exit 2 ;;
esac
