# Run `make` with no target to list the targets.
.DEFAULT_GOAL := help
SHELL := /usr/bin/env bash

GO ?= go
VENDORED := public/vendor/mustache.mjs
# The release the binary names in -version, its start log and
# wploadmore_build_info: the version file, set through -X as go:embed
# cannot reach it from server/.
LDFLAGS := -X main.version=$(shell cat version)
# The revision -version names is Go's VCS stamp: auto stamps it in a git
# checkout even where GOFLAGS says -buildvcs=false, as on this CI machine.
BUILDFLAGS := -buildvcs=auto -ldflags "$(LDFLAGS)"

.PHONY: help
help: ## List the targets with what they do
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_.-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# npm ci writes node_modules/.package-lock.json: it stands for the installed
# packages, mustache.js for the binary and axe-core for the browser tests.
NODE_MODULES := node_modules/.package-lock.json

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund

$(VENDORED): $(NODE_MODULES)
	cp node_modules/mustache/mustache.mjs $@

.PHONY: assets
assets: $(VENDORED) ## Install the front-end packages (npm ci): what the binary embeds, and axe-core for the browser tests

.PHONY: run
run: assets ## Run the server (embedded SQLite and in-memory sessions unless configured)
	$(GO) run $(BUILDFLAGS) ./server

.PHONY: build
build: assets ## Build the server binary into bin/
	$(GO) build $(BUILDFLAGS) -o bin/wploadmore ./server

.PHONY: docs
docs: ## Regenerate docs/configuration.md, the configuration reference, from the settings' tables
	$(GO) test ./server -run '^TestConfigurationReference$$' -count=1 -update

.PHONY: services
services: ## Start the local MariaDB and Redis when they are down
	.ci/services

.PHONY: test
test: assets services ## Run every test: vet, gofmt, unit, integration, fuzz seeds, browser
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...

.PHONY: test-short
test-short: assets services ## The loop to work in: every test that takes under a second or so (go test -short), about a minute
	$(GO) test -short -count=1 ./...

.PHONY: fuzz
fuzz: ## Fuzz each fuzz target for FUZZTIME (default 30s)
	@for pkg in ./wpdb ./session ./server ./scripts/tag ./scripts/bench; do \
	  for t in $$($(GO) test -list 'Fuzz.*' $$pkg | grep '^Fuzz'); do \
	    $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $${FUZZTIME:-30s} $$pkg || exit 1; \
	  done; \
	done

# TAGFLAGS passes flags to scripts/tag, e.g. TAGFLAGS="-n" or TAGFLAGS="-C dir".
TAGFLAGS ?=
.PHONY: tag.major tag.minor tag.patch
tag.major: ## Major tag incrementation
	$(GO) run ./scripts/tag $(TAGFLAGS) major
tag.minor: ## Minor tag incrementation
	$(GO) run ./scripts/tag $(TAGFLAGS) minor
tag.patch: ## Patch tag incrementation
	$(GO) run ./scripts/tag $(TAGFLAGS) patch

# SEEDFLAGS passes flags to scripts/seed; BENCHFLAGS to scripts/bench, e.g.
# BENCHFLAGS="-n 20000 -duration 3s".
SEEDFLAGS ?= -db mysql://root@127.0.0.1:3306/wploadmore_bench
BENCHFLAGS ?=
.PHONY: seed bench
seed: services ## Seed a WordPress site of 100 000 posts, its images, categories, tags and authors (SEEDFLAGS="-db … -n …")
	$(GO) run ./scripts/seed $(SEEDFLAGS)
bench: assets services ## Benchmark the server beside its limits (SQL+Redis, Redis alone); print the targets (BENCHFLAGS)
	@command -v wrk >/dev/null 2>&1 || { echo "installing wrk (apt-get)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; } \
		|| { echo "make bench: wrk is not installed and apt-get could not install it; install wrk (https://github.com/wg/wrk) and run make bench again" >&2; exit 1; }
	$(GO) run ./scripts/bench $(BENCHFLAGS)
