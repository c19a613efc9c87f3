# syntax=docker/dockerfile:1
# One image for every role; the role is the command (see `voiceagent --help`).
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages/domain/package.json packages/domain/
COPY packages/runner/package.json packages/runner/
COPY packages/http/package.json packages/http/
COPY packages/server/package.json packages/server/
COPY packages/client/package.json packages/client/
COPY packages/web/package.json packages/web/
# the dashboard's prepare, which finds no Vite here (dev dependencies omitted) and builds nothing
COPY packages/web/scripts packages/web/scripts/
RUN npm ci --omit=dev --no-audit --no-fund

# The web dashboard's bundle (packages/web/dist): built by `npm ci` with the dev dependencies (Vite,
# Preact), of which only dist/ goes into the image.
FROM node:20-bookworm-slim AS web
WORKDIR /app
COPY package.json package-lock.json ./
COPY packages ./packages
RUN npm ci --no-audit --no-fund && test -f packages/web/dist/index.html

FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY package.json package-lock.json ./
COPY packages ./packages
COPY --from=web /app/packages/web/dist ./packages/web/dist
COPY sql ./sql
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 3000 3001 3002 3003
# --max-semi-space-size=32: V8's young generation for processes that hold live calls (runner, start);
# why, with the figures: packages/server/src/NodeFlags.ts
ENTRYPOINT ["node", "--max-semi-space-size=32", "--import", "tsx", "packages/server/src/main.ts"]
CMD ["start"]
