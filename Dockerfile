# reelflow image: the worker, the callback receiver, the emulator and the CLI.
# Node 24 (LTS): the major CI tests (.ci/run runs `npm test` and `npm run test:cluster` on
# the Node 24 that scripts/ensure-node.mjs pins). Move both FROM lines and that pin together,
# never the image alone (test/deploy/compose.test.ts checks).
# It ships the product build only (tsconfig.build.json: src/ → dist/), as the npm package
# does: no tests, no tools. See docs/architecture.md ("What ships").
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# --ignore-scripts: `prepare` builds from sources that are not copied yet; the build is below.
RUN npm ci --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/run.mjs ./scripts/
COPY src ./src
RUN node scripts/run.mjs build && node dist/workers/build-bundle.js --tracing --codec

FROM node:24-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY examples ./examples
COPY deploy/docker/with-generated-secret.sh /usr/local/bin/with-generated-secret
# The archive, the worker's state (its generated callback secret) and its archive token are
# volumes in docker-compose.yml. A new named volume copies these directories' owner, so the
# unprivileged user can write there.
RUN mkdir -p /archive /var/lib/reelflow /var/lib/reelflow-archive \
  && chown node:node /archive /var/lib/reelflow /var/lib/reelflow-archive
USER node
CMD ["node", "dist/workers/main.js"]
