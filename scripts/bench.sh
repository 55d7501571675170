#!/usr/bin/env bash
# npm run bench [-- NAME]: runs bench/NAME.ts (or every benchmark). Benchmarks print rates and
# ratios measured within one run; they are never part of npm test.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-servers.sh
node scripts/build.ts
# The Twinport processes a benchmark starts run the compiled output, as production does: the bench
# script itself (and what it runs in its own process, e.g. bench/engine-write.ts) runs the sources
# through tsx, but only through its own command line, which its children do not inherit
# (docs/adr/0021, amended). Measured: an embedded PATCH cost 86 µs of CPU run through tsx against
# 64 µs compiled (docs/adr/0046). BENCH_SOURCES=1 runs the servers from the sources too.
tsx_url="$(node --input-type=module -e 'console.log(import.meta.resolve("tsx"))')"
if [ "${BENCH_SOURCES:-}" = "1" ]; then source scripts/source-mode.sh; fi
if [ $# -gt 0 ]; then names=("$@"); else mapfile -t names < <(ls bench/*.ts | xargs -n1 basename | sed 's/\.ts$//'); fi
for name in "${names[@]}"; do
  echo "== bench/$name"
  node --conditions=twinport-source --import="$tsx_url" "bench/$name.ts"
done
