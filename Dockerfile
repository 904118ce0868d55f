# reelflow image: the worker, the callback receiver, the emulator and the CLI.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json ./
COPY src ./src
COPY test ./test
COPY bench ./bench
RUN npx tsc -p tsconfig.json && node dist/src/workers/build-bundle.js

FROM node:20-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
COPY --from=build /app/dist ./dist
COPY src/emulator/media ./src/emulator/media
COPY examples ./examples
USER node
CMD ["node", "dist/src/workers/main.js"]
