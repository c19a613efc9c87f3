# syntax=docker/dockerfile:1
# One image for every role; the role is the command (see `voiceagent --help`).
# Node 24: an LTS line supported until April 2028 (CI and development also run Node 20; engines in package.json)
FROM node:24-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/domain/package.json packages/domain/
COPY packages/runner/package.json packages/runner/
COPY packages/http/package.json packages/http/
COPY packages/server/package.json packages/server/
COPY packages/devtools/package.json packages/devtools/
COPY packages/client/package.json packages/client/
COPY packages/web/package.json packages/web/
# the dashboard's prepare, which finds no Vite here (dev dependencies omitted) and builds nothing
COPY packages/web/scripts packages/web/scripts/
RUN npm ci --omit=dev --no-audit --no-fund

# What the image runs, built with the dev dependencies, of which only the output goes into the image:
# the web dashboard's bundle (packages/web/dist, built by `npm ci`: Vite, Preact) and the server's
# packages compiled to JavaScript (packages/*/dist, `npm run build`: esbuild).
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
COPY scripts ./scripts
RUN npm ci --no-audit --no-fund && test -f packages/web/dist/index.html && npm run build

FROM node:24-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY packages ./packages
COPY --from=build /app/packages/web/dist ./packages/web/dist
COPY --from=build /app/packages/domain/dist ./packages/domain/dist
COPY --from=build /app/packages/runner/dist ./packages/runner/dist
COPY --from=build /app/packages/http/dist ./packages/http/dist
COPY --from=build /app/packages/server/dist ./packages/server/dist
COPY sql ./sql
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000 3001 3002 3003
# --max-semi-space-size=32: V8's young generation for processes that hold live calls (runner, start);
# why, with the figures: packages/server/src/NodeFlags.ts. The packages' exports resolve to dist/ under
# the condition voiceagent-compiled: plain node, no TypeScript loader
ENTRYPOINT ["node", "--max-semi-space-size=32", "--conditions=voiceagent-compiled", "packages/server/dist/main.js"]
CMD ["start"]
