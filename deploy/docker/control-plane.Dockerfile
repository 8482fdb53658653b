# syntax=docker/dockerfile:1
# Outpost control plane: REST API, WebSocket feed, dashboard and the agents' gRPC endpoint.
# Built from the repository root:
#   docker build -f deploy/docker/control-plane.Dockerfile -t outpost-control-plane .

# The full image has python3, make and g++ for the native add-ons (argon2, raw-socket).
FROM node:20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
# Not `npm ci`: the lock file lacks @bufbuild/buf's binaries for other platforms (see .ci/run).
RUN npm install --no-audit --no-fund
COPY tsconfig.json ./
COPY shared ./shared
COPY agent ./agent
COPY control-plane ./control-plane
COPY scripts/build-web.mjs ./scripts/
RUN npm run build && node scripts/build-web.mjs --force
# Same distribution as the runtime stage, so the native add-ons built here run there.
RUN npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    DATA_DIR=/var/lib/outpost \
    PORT=8080 \
    GRPC_PORT=9090
WORKDIR /opt/outpost
# The control plane finds its version and dist/web from package.json's folder.
COPY --from=build /src/package.json ./
COPY --from=build /src/node_modules ./node_modules
COPY --from=build /src/dist ./dist
# The image's `node` user (uid 1000) owns only the data directory; the code stays read-only to it.
RUN mkdir -p /var/lib/outpost && chown node:node /var/lib/outpost
USER node
# Generated secrets and the embedded database live here when they are not configured
# (JWT_SECRET, AGENT_TOKEN, DATA_ENCRYPTION_KEYS, DATABASE_URL): keep it, or set them all.
VOLUME ["/var/lib/outpost"]
EXPOSE 8080 9090
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/api/v1/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM (docker stop) drains requests and agent streams before exiting.
STOPSIGNAL SIGTERM
CMD ["node", "dist/control-plane/src/main.js"]
