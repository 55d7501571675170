#!/usr/bin/env bash
# npm run bench [-- NAME]: runs bench/NAME.ts (or every benchmark). Benchmarks print rates and
# ratios measured within one run; they are never part of npm test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-servers.sh
# Benchmarks run the sources, like tests; bench/start-up.ts compares them with the compiled output.
node scripts/build.ts
source scripts/source-mode.sh
if [ $# -gt 0 ]; then names=("$@"); else mapfile -t names < <(ls bench/*.ts | xargs -n1 basename | sed 's/\.ts$//'); fi
for name in "${names[@]}"; do
  echo "== bench/$name"
  node "bench/$name.ts"
done
