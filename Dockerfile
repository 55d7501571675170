# One image for every role (docs/adr/0005): the command picks the service.
#   docker run twinport model-store -c /etc/twinport/config.json -m /app/examples/model.json
#   docker run twinport http-gateway -c /etc/twinport/config.json
#   docker run twinport opcua-gateway -c /etc/twinport/config.json
#   docker run twinport -c /app/examples/config.json          (embedded: everything in one process)
# The image runs compiled JavaScript only (docs/adr/0021): TypeScript is compiled in the build
# stage, and neither the sources, the compiler, tsx nor any test support reaches the runtime.

# Stage 1: build. Every dependency (the compiler is a dev dependency); the workspace manifests come
# first so this layer is rebuilt only when dependencies change, not on every source edit.
# --ignore-scripts: nothing the build needs has an install script that matters here (the `node`
# package's would download a second Node.js; this stage runs the image's own), and it keeps the
# build from running third-party code.
FROM node:24-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/shared/package.json libs/shared/package.json
COPY services/model-store/package.json services/model-store/package.json
COPY services/http-gateway/package.json services/http-gateway/package.json
COPY services/opcua-gateway/package.json services/opcua-gateway/package.json
COPY console/package.json console/package.json
RUN npm ci --ignore-scripts --no-audit --no-fund
# .dockerignore keeps tests and test-support folders out of the context, and the build excludes them.
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build.ts scripts/build.ts
COPY libs libs
COPY services services
COPY bin bin
# The web console's sources: Vite (a dev dependency) builds them into console/dist (docs/adr/0033).
COPY console console
# Type declarations and tsc's build info serve the compiler only: they stay in this stage.
RUN node scripts/build.ts \
    && find dist libs/*/dist services/*/dist \( -name '*.d.ts' -o -name '*.d.cts' -o -name '.tsbuildinfo' \) -delete

# Stage 2: production dependencies only, from the same manifests and lock file.
FROM node:24-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/shared/package.json libs/shared/package.json
COPY services/model-store/package.json services/model-store/package.json
COPY services/http-gateway/package.json services/http-gateway/package.json
COPY services/opcua-gateway/package.json services/opcua-gateway/package.json
COPY console/package.json console/package.json
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# Stage 3: the runtime. Same base, so the node_modules copied over match its libc and Node.
FROM node:24-slim AS runtime
WORKDIR /app
# node-opcua falls back to $XDG_CONFIG_HOME for PKI folders the config does not name: keep that
# inside the writable state folder, not in a home directory that a read-only root cannot write.
ENV NODE_ENV=production XDG_CONFIG_HOME=/data/.config
# node_modules/@twinport/* are links to the workspace folders below, which hold their manifest
# (the exports point at dist/) and their compiled output with its runtime assets (nodeset XML).
COPY --from=deps /app/node_modules node_modules
COPY package.json ./
COPY bin/twinport.js bin/heap-settings.js bin/
COPY --from=build /app/dist dist
COPY libs/shared/package.json libs/shared/package.json
COPY --from=build /app/libs/shared/dist libs/shared/dist
COPY services/model-store/package.json services/model-store/package.json
COPY --from=build /app/services/model-store/dist services/model-store/dist
COPY services/http-gateway/package.json services/http-gateway/package.json
COPY --from=build /app/services/http-gateway/dist services/http-gateway/dist
COPY services/opcua-gateway/package.json services/opcua-gateway/package.json
COPY --from=build /app/services/opcua-gateway/dist services/opcua-gateway/dist
# The web console's static files, which the http-gateway serves at /console/ (found relative to its code).
COPY --from=build /app/console/dist console/dist
COPY examples examples
# /data is the working directory and holds what a process generates and keeps (HTTPS certificate,
# OPC UA PKI). The subfolders exist in the image so named volumes mounted on them start out owned
# by the runtime user (Docker copies the ownership of an image folder into an empty volume).
RUN mkdir -p /data/state /data/PKI /data/USERS_PKI /data/.config /etc/twinport \
    && chown -R 1000:1000 /data
# Numeric, not "node": Kubernetes' runAsNonRoot can only verify a numeric user.
USER 1000:1000
WORKDIR /data
# 8443: HTTPS (compose and Kubernetes map 443 to it); 4840: OPC UA; 9464: plain-HTTP management
# port (GET /health, /ready, /metrics) of every role (docs/adr/0005).
EXPOSE 8443 4840 9464
# The check must cost next to nothing on a loaded host: starting a Node process for it took up to
# 3 s there and failed checks while /health answered in 70 ms (issue 17). bash (in node:24-slim,
# which has no curl) opens the management port with /dev/tcp, sends one request and reads the
# status line. Generous timeout, start period and retries: a slow answer is not a dead process.
# TWINPORT_CORE_MANAGEMENTPORT follows a moved port.
HEALTHCHECK --interval=15s --timeout=10s --start-period=60s --retries=5 \
  CMD ["bash", "-c", "exec 3<>/dev/tcp/127.0.0.1/${TWINPORT_CORE_MANAGEMENTPORT:-9464} && printf 'GET /health HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n' >&3 && IFS= read -r -t 5 status <&3 && [[ $status == *' 200 '* ]]"]
ENTRYPOINT ["node", "/app/bin/twinport.js"]
CMD ["--help"]
