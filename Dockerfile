# One image for every role (docs/adr/0005): the command picks the service.
#   docker run twinport model-store -c /etc/twinport/config.json -m /app/examples/model.json
#   docker run twinport http-gateway -c /etc/twinport/config.json
#   docker run twinport opcua-gateway -c /etc/twinport/config.json
#   docker run twinport -c /app/examples/config.json          (embedded: everything in one process)
# The sources are TypeScript run by tsx (a runtime dependency): there is no build step to stage.

# Stage 1: production dependencies only. The workspace manifests come first so this layer is
# rebuilt only when dependencies change, not on every source edit.
FROM node:20-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/shared/package.json libs/shared/package.json
COPY services/model-store/package.json services/model-store/package.json
COPY services/http-gateway/package.json services/http-gateway/package.json
COPY services/opcua-gateway/package.json services/opcua-gateway/package.json
# --ignore-scripts: nothing we use needs an install script (esbuild, under tsx, ships its binary as
# an optional dependency package); it also keeps the build from running third-party code.
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# Stage 2: the runtime. Same base, so the node_modules copied over match its libc and Node.
FROM node:20-slim AS runtime
WORKDIR /app
# node-opcua falls back to $XDG_CONFIG_HOME for PKI folders the config does not name: keep that
# inside the writable state folder, not in a home directory that a read-only root cannot write.
ENV NODE_ENV=production XDG_CONFIG_HOME=/data/.config
COPY --from=deps /app/node_modules node_modules
COPY package.json ./
COPY bin bin
COPY libs libs
COPY services services
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
# node:20-slim has no curl: ask Node itself. TWINPORT_CORE_MANAGEMENTPORT follows a moved port.
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.TWINPORT_CORE_MANAGEMENTPORT||9464)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
ENTRYPOINT ["node", "/app/bin/twinport.js"]
CMD ["--help"]
