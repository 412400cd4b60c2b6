# The controller image used by docker-compose.yml.
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
COPY libs/core/package.json libs/core/
COPY libs/client/package.json libs/client/
COPY migrations/package.json migrations/
COPY apps/controller/package.json apps/controller/
COPY apps/simulator/package.json apps/simulator/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app /app
EXPOSE 3000
CMD ["node", "apps/controller/dist/main.js"]
