#!/usr/bin/env bash
# Makes sure redis-server, nats-server, mosquitto and chromium (Debian packages) are installed: the
# test suites and the distributed mode start real servers (mosquitto: the MQTT asset-connection
# tests; chromium: the browser tests).
# As root it installs them; otherwise it says what to install.
set -euo pipefail
missing=()
have() { command -v "$1" >/dev/null 2>&1 || [ -x "/usr/sbin/$1" ] || [ -x "/usr/bin/$1" ]; }
# The deployment checks (tests/deployment.test.ts) validate docker-compose.yml with Debian's
# docker-compose, render k8s/ with kubectl's bundled kustomize (Debian's kubernetes-client when no
# kubectl is installed) and check the compose proxy's configuration with haproxy -c. Without
# recommends: docker-compose would otherwise pull in a Docker engine the checks do not need.
deploy_missing=()
have docker-compose || deploy_missing+=(docker-compose)
have kubectl || deploy_missing+=(kubernetes-client)
have haproxy || deploy_missing+=(haproxy)
if [ ${#deploy_missing[@]} -gt 0 ] && [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing ${deploy_missing[*]} (Debian packages) for the deployment checks..." >&2
  DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive DEBCONF_NOWARNINGS=yes apt-get install -y -qq --no-install-recommends "${deploy_missing[@]}" >/dev/null
  # Debian may start a system haproxy on install; the checks only run `haproxy -c`.
  (service haproxy stop || true) >/dev/null 2>&1
fi
have redis-server || missing+=(redis-server)
# redis-cli joins the Redis Cluster of the cluster tests (redis-cluster.ts); Debian's redis-server depends on it.
have redis-cli || missing+=(redis-tools)
have nats-server || missing+=(nats-server)
# mosquitto_passwd comes with the mosquitto package (password files for the credential tests).
{ have mosquitto && have mosquitto_passwd; } || missing+=(mosquitto)
# Headless Chromium for the browser tests of the console and Swagger UI (playwright-core drives it).
have chromium || missing+=(chromium)
[ ${#missing[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "Installing ${missing[*]} (Debian packages) for the tests..." >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq "${missing[@]}" >/dev/null
  # Debian may start a system redis or mosquitto (port 1883) on install; the tests start their own
  # servers on free ports and never use those.
  (service redis-server stop || true) >/dev/null 2>&1
  (service mosquitto stop || true) >/dev/null 2>&1
  exit 0
fi
echo "The tests need ${missing[*]}. Install them, e.g.: sudo apt-get install -y ${missing[*]}" >&2
exit 1
