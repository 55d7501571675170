#!/usr/bin/env bash
# npm test: installs/locates Redis and NATS, checks dependency rules, formatting and types, builds dist/ (the
# compiled-entry tests run it), then runs every test file (unit, contract and black-box suites)
# with node:test from the TypeScript sources through tsx. Each suite starts its own real
# redis-server / nats-server on free loopback ports and stops them.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/ensure-servers.sh
echo "== dependency rules"
node --import tsx scripts/lint-deps.ts
echo "== format and import order (biome check; npx biome check --write . fixes both)"
npx biome check .
echo "== build"
node scripts/build.ts
echo "== typecheck"
npx tsc -p tsconfig.json
npx tsc -p console/tsconfig.json
source scripts/source-mode.sh
scope="${1:-all}"
case "$scope" in
  unit) roots=(libs services bin) ;;
  all) roots=(libs services bin tests scripts) ;;
  *) roots=("$@") ;;
esac
# List the files ourselves: one sorted list, the same on every Node, and a clear error when there are none.
mapfile -t files < <(find "${roots[@]}" -name '*.test.ts' -not -path '*/node_modules/*' | sort)
if [ ${#files[@]} -eq 0 ]; then echo "no test files found" >&2; exit 1; fi
echo "== ${#files[@]} test files"
# One file at a time: the machine has 2 cores and the black-box suites start several processes.
exec node --test --test-concurrency=1 "${files[@]}"
