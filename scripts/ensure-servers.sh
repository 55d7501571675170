#!/usr/bin/env bash
# Makes sure redis-server and nats-server (Debian packages) are installed: the test suites and the
# distributed mode start real servers. As root it installs them; otherwise it says what to install.
set -euo pipefail
missing=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }
have redis-server || missing+=(redis-server)
have nats-server || missing+=(nats-server)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing ${missing[*]} (Debian packages) for the tests..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq "${missing[@]}" >/dev/null
  # Debian may start a system redis on install; the tests start their own servers on free ports.
  (service redis-server stop || true) >/dev/null 2>&1
  exit 0
fi
echo "The tests need ${missing[*]}. Install them, e.g.: sudo apt-get install -y ${missing[*]}" >&2
exit 1
