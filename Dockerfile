# reelflow image: the worker, the callback receiver, the emulator and the CLI.
# Node 20: the major CI tests (.ci/run runs `npm test` on the machine's Node 20). Move
# this line and CI's Node together, never the image alone.
# It ships the product build only (tsconfig.build.json: src/ → dist/), as the npm package
# does: no tests, no tools. See docs/architecture.md ("What ships").
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` builds from sources that are not copied yet; the build is below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/run.mjs ./scripts/
COPY src ./src
RUN node scripts/run.mjs build && node dist/workers/build-bundle.js --tracing --codec

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY examples ./examples
COPY deploy/docker/with-generated-secret.sh /usr/local/bin/with-generated-secret
# The archive and the worker's state (its generated callback secret) are volumes in
# docker-compose.yml. A new named volume copies these directories' owner, so the
# unprivileged user can write there.
RUN mkdir -p /archive /var/lib/reelflow && chown node:node /archive /var/lib/reelflow
USER node
CMD ["node", "dist/workers/main.js"]
