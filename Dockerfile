# syntax=docker/dockerfile:1
# Build: the front-end packages first (the binary embeds them), then a
# static Go binary (the SQLite driver is pure Go: no cgo).
FROM node:20-bookworm-slim AS assets
WORKDIR /src
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
COPY --from=assets /src/node_modules/mustache/mustache.mjs public/vendor/mustache.mjs
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w -X main.version=$(cat version)" -o /out/wploadmore ./server

# Run: a distroless image with no shell, as a non-root user.
FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/wploadmore /wploadmore
ENV LOADMORE_ADDR=:8080 LOADMORE_DATA_DIR=/data
VOLUME /data
EXPOSE 8080
USER nonroot:nonroot
ENTRYPOINT ["/wploadmore"]
