# Sourced by scripts/test.sh and scripts/bench.sh: every node process from here on, and every one
# it spawns (NODE_OPTIONS is inherited), runs the TypeScript sources through tsx instead of the
# compiled dist/ (docs/adr/0021). The "twinport-source" condition picks src/*.ts in the workspace
# packages' exports and package.json's "#…" imports; tsx is named by its file URL because test
# processes run in temporary folders, where the bare name "tsx" resolves to nothing.
tsx_url="$(node --input-type=module -e 'console.log(import.meta.resolve("tsx"))')"
export NODE_OPTIONS="--conditions=twinport-source --import=${tsx_url}${NODE_OPTIONS:+ $NODE_OPTIONS}"
