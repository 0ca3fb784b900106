#!/bin/bash
# The MTL-TLP comparison of the README (issue 6): five models for a target platform
# on held-out ResNet-50 operators.
# usage: scripts/mtl-table.sh LOG SEED OUTDIR [TARGET] [SOURCE]
#   LOG: a log from 'tlptune collect --platforms ...' (e.g. data/collect-3-platforms.jsonl, gunzipped)
set -u
LOG=$1; SEED=$2; OUT=$3; TARGET=${4:-x86-64-linux-sse41@2}; SOURCE=${5:-host@2}
T=${TLPTUNE:-build/bin/tlptune}
NET=examples/networks
mkdir -p "$OUT"
# The table was measured with the paper's settings (train's default recipe came later).
COMMON="--logs $LOG --test-network $NET/resnet50.json --seed $SEED --recipe paper"
run() { local name=$1; shift; echo "=== $name"; "$T" "$@" > "$OUT/$name.txt" 2>&1 || { cat "$OUT/$name.txt"; exit 1; }; grep resnet50 "$OUT/$name.txt"; }
run tlp100 train $COMMON --platform "$TARGET" --out "$OUT/tlp100.tlpm"
run tlp7 train $COMMON --platform "$TARGET" --target-fraction 0.07 --out "$OUT/tlp7.tlpm"
run src train $COMMON --platform "$SOURCE" --out "$OUT/src.tlpm"
run asis eval --model "$OUT/src.tlpm" --logs "$LOG" --platform "$TARGET" --network $NET/resnet50.json
run finetune train $COMMON --platform "$TARGET" --target-fraction 0.07 --init-from "$OUT/src.tlpm" --out "$OUT/finetune.tlpm"
run mtl7 train $COMMON --mtl --platform "$TARGET" --target-fraction 0.07 --out "$OUT/mtl7.tlpm"
