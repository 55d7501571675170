# One image for every role; the command picks the service (twinport model-store | http-gateway | opcua-gateway).
# First version for issue 2; issue 7 hardens it (lint, HEALTHCHECK against a management port).
FROM node:20-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/shared/package.json libs/shared/package.json
COPY services/model-store/package.json services/model-store/package.json
COPY services/http-gateway/package.json services/http-gateway/package.json
COPY services/opcua-gateway/package.json services/opcua-gateway/package.json
RUN npm ci --omit=dev --ignore-scripts

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY --from=deps /app/node_modules node_modules
COPY package.json ./
COPY bin bin
COPY libs libs
COPY services services
COPY examples examples
RUN mkdir -p /data && chown node:node /data
USER node
WORKDIR /data
EXPOSE 8443 4840
ENTRYPOINT ["node", "/app/bin/twinport.js"]
