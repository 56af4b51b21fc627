# syntax=docker/dockerfile:1
# Build: compile TypeScript to dist/ (migrations copied alongside).
FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build

# Production dependencies only.
FROM node:20-bookworm-slim AS deps
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev

# Runtime: plain node on the built dist/, as the unprivileged "node" user.
FROM node:20-bookworm-slim
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/data
WORKDIR /app
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /data && chown node:node /data
USER node
VOLUME ["/data"]
EXPOSE 8080
# Node's own fetch: the slim image has no curl. /readyz: database, migrations, Redis, not shutting down.
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/readyz').then(r=>process.exit(r.status===200?0:1),()=>process.exit(1))"]
# Exec form: node is PID 1 and gets SIGTERM itself, for the graceful shutdown.
# The heap limit npm start sets too: V8 then collects garbage before the heap grows far past
# what is alive (see docs/configuration.md, "Memory"); set NODE_OPTIONS to choose another.
ENV NODE_OPTIONS=--max-old-space-size=1024
ENTRYPOINT ["node", "dist/main.js"]
CMD ["serve"]
