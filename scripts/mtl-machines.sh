#!/bin/bash
# MTL-TLP across two real machines (issue 38): five models for a TARGET machine,
# scored on its records of a held-out network. Every model sees the same logs;
# --platform picks whose records it trains on.
# usage: scripts/mtl-machines.sh SEED OUTDIR SOURCE TARGET LOG...
#   SOURCE, TARGET: a part of exactly one platform name in the logs (e.g. zen5, emeraldrapids)
#   env ALIASES: --platform-alias values, one per line (logs that predate machine names)
#   env TRAIN_ARGS: more train options (e.g. "--epochs 30 --threads 1"); env NET: the held-out network
set -u
SEED=$1; OUT=$2; SOURCE=$3; TARGET=$4; shift 4
LOGS=("$@")
T=${TLPTUNE:-build/bin/tlptune}
NET=${NET:-examples/networks/resnet50.json}
ALIAS_ARGS=()
while IFS= read -r a; do [ -n "$a" ] && ALIAS_ARGS+=(--platform-alias "$a"); done <<< "${ALIASES:-}"
mkdir -p "$OUT"
# shellcheck disable=SC2206
EXTRA=(${TRAIN_ARGS:-})
COMMON=(--logs "${LOGS[@]}" "${ALIAS_ARGS[@]}" --test-network "$NET" --seed "$SEED" "${EXTRA[@]}")
run() {
  local name=$1; shift
  echo "=== $name"
  "$T" "$@" > "$OUT/$name.txt" 2>&1 || { tail -5 "$OUT/$name.txt"; exit 1; }
  grep -E "^test|top-1" "$OUT/$name.txt" | tail -3
}
run tlp100 train "${COMMON[@]}" --platform "$TARGET" --out "$OUT/tlp100.tlpm"
run tlp7 train "${COMMON[@]}" --platform "$TARGET" --target-fraction 0.07 --out "$OUT/tlp7.tlpm"
run src train "${COMMON[@]}" --platform "$SOURCE" --out "$OUT/src.tlpm"
run asis eval --model "$OUT/src.tlpm" --logs "${LOGS[@]}" "${ALIAS_ARGS[@]}" --platform "$TARGET" --network "$NET"
run finetune train "${COMMON[@]}" --platform "$TARGET" --target-fraction 0.07 --init-from "$OUT/src.tlpm" \
  --out "$OUT/finetune.tlpm"
run mtl7 train "${COMMON[@]}" --mtl --platform "$TARGET" --target-fraction 0.07 --out "$OUT/mtl7.tlpm"
