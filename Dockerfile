# syntax=docker/dockerfile:1
# Build: the front-end packages first (the binary embeds them), then a
# static Go binary (the SQLite driver is pure Go: no cgo).
#
# Base images are pinned: Go to go.mod's release, the others to a minor
# version, so a rebuild takes their security fixes but no new minor.
# deploy/docker_test.go keeps every FROM pinned.
FROM node:20.20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
# The image needs mustache.js alone, not the test tools (axe-core, Lighthouse).
RUN npm ci --omit=dev --no-audit --no-fund

FROM golang:1.26.8-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=assets /src/node_modules/mustache/mustache.mjs public/vendor/mustache.mjs
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=$(cat version)" -o /out/wploadmore ./server
# The runtime image has no shell to make /data with, so it is made here,
# empty, and copied below with its owner.
RUN mkdir /out/data

# Run: a distroless image with no shell, as a non-root user. It has no
# version tags: static-debian12 names its Debian release, and :nonroot
# follows that release's fixes.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/wploadmore /wploadmore
# /data, where the embedded demo database is created when no site is
# configured, belongs to nonroot (65532), whom the server runs as: owned by
# root, the first start failed with "permission denied". A named volume
# mounted there starts as a copy of it, owner included.
COPY --from=build --chown=65532:65532 /out/data /data
ENV LOADMORE_ADDR=:8080 LOADMORE_DATA_DIR=/data
VOLUME /data
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/wploadmore"]
