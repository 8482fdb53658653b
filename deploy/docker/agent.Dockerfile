# syntax=docker/dockerfile:1
# Outpost agent: dials the control plane's gRPC port and runs the checks of its location.
# Slim: only the agent's code (agent/, shared/) and the npm packages it imports.
# Built from the repository root:
#   docker build -f deploy/docker/agent.Dockerfile -t outpost-agent .

# The full image has python3, make and g++ for the native add-ons (raw-socket for ICMP).
FROM node:20-bookworm AS build
WORKDIR /src
COPY package.json package-lock.json .npmrc ./
# Everything, for the compiler and the type packages; the image gets its own install below.
# Not `npm ci`: the lock file lacks @bufbuild/buf's binaries for other platforms (see .ci/run).
RUN npm install --no-audit --no-fund
COPY tsconfig.json ./
COPY shared ./shared
COPY agent ./agent
COPY deploy/docker/tsconfig.agent.json deploy/docker/agent-package.mjs ./deploy/docker/
RUN npx tsc -p deploy/docker/tsconfig.agent.json
# The agent's package.json lists what its compiled code imports; with the repository's lock
# file, npm installs exactly the locked versions of those and nothing else.
WORKDIR /agent
RUN node /src/deploy/docker/agent-package.mjs > package.json \
 && cp /src/package-lock.json /src/.npmrc ./ \
 && npm install --omit=dev --no-audit --no-fund \
 && cp -r /src/dist ./dist

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    OUTPOST_DATA_DIR=/var/lib/outpost-agent \
    OUTPOST_STATUS_ADDR=0.0.0.0:9465
WORKDIR /opt/outpost-agent
COPY --from=build /agent/package.json ./
COPY --from=build /agent/node_modules ./node_modules
COPY --from=build /agent/dist ./dist
RUN mkdir -p /var/lib/outpost-agent && chown node:node /var/lib/outpost-agent
# Non-root. ICMP checks need a raw socket: run as root with only CAP_NET_RAW for them (as
# deploy/compose.yaml and deploy/kubernetes do); without it they fail saying so.
USER node
# Results wait here until the control plane has stored them: keep it across restarts.
VOLUME ["/var/lib/outpost-agent"]
# /healthz and Prometheus /metrics.
EXPOSE 9465
HEALTHCHECK --interval=10s --timeout=3s --start-period=10s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.OUTPOST_STATUS_ADDR||':9465').split(':').pop()+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# SIGTERM delivers what it can, then closes the stream.
STOPSIGNAL SIGTERM
ENTRYPOINT ["node", "dist/agent/src/cli.js"]
CMD ["run"]
