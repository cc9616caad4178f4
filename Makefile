# Run `make` with no target to list the targets.
.DEFAULT_GOAL := help
SHELL := /usr/bin/env bash

GO ?= go
VENDORED := public/vendor/mustache.mjs
# The release the binary names in -version, its start log and
# wploadmore_build_info, set through -X as go:embed cannot reach the root
# from server/: the commit's own version tag when it has one, else the
# version file. make tag.* tags first and then writes the file, so the
# tagged commit's file still names the release before it.
VERSION := $(shell git describe --tags --exact-match --match '[0-9]*.[0-9]*.[0-9]*' 2>/dev/null || cat version)
LDFLAGS := -X main.version=$(VERSION)
# The revision -version names is Go's VCS stamp: auto stamps it in a git
# checkout even where GOFLAGS says -buildvcs=false, as on this CI machine.
BUILDFLAGS := -buildvcs=auto -ldflags "$(LDFLAGS)"

.PHONY: help
help: ## List the targets with what they do
	@awk 'BEGIN {FS = ":.*## "} /^[a-zA-Z_.-]+:.*## / {printf "  %-12s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

# npm ci writes node_modules/.package-lock.json: it stands for the installed
# packages, mustache.js for the binary, and axe-core, Lighthouse and
# puppeteer-core (which drives Debian's Chromium, never a browser of its
# own) for the browser tests.
NODE_MODULES := node_modules/.package-lock.json

$(NODE_MODULES): package.json package-lock.json
	npm ci --no-audit --no-fund

$(VENDORED): $(NODE_MODULES)
	cp node_modules/mustache/mustache.mjs $@

.PHONY: assets
assets: $(VENDORED) ## Install the front-end packages (npm ci): what the binary embeds, and axe-core and Lighthouse for the browser tests

BIN := bin/wploadmore

# Built, then run as itself rather than through go run, which exits 1 when
# Ctrl-C stops the program it ran, however cleanly the program stopped: the
# server exits 0 on SIGINT and SIGTERM once it has shut down, and so does
# make. Go's first build of the server and its modules takes minutes, and
# says nothing meanwhile, so the first run says so.
.PHONY: run
run: assets ## Run the server (embedded SQLite and in-memory sessions unless configured)
	@test -e $(BIN) || echo "Building the server: the first build takes a few minutes, later ones seconds."
	@$(GO) build $(BUILDFLAGS) -o $(BIN) ./server
	exec $(BIN)

.PHONY: build
build: assets ## Build the server binary into bin/
	$(GO) build $(BUILDFLAGS) -o $(BIN) ./server

.PHONY: docs
docs: ## Regenerate docs/configuration.md, the configuration reference, from the settings' tables
	$(GO) test ./server -run '^TestConfigurationReference$$' -count=1 -update

# The widget's words: the .pot from their table in server/listing/pagewords,
# each .po brought up to it, and the .mo the binary embeds compiled from
# each .po (gettext's msgmerge and msgfmt). Tests fail while any is stale.
LANGUAGES := templates/languages

.PHONY: pot
pot: ## Regenerate the widget's .pot, merge it into every .po and compile the .mo files (gettext)
	$(GO) run ./scripts/pot -o $(LANGUAGES)/wploadmore.pot
	for po in $(LANGUAGES)/*.po; do \
	  msgmerge --quiet --update --backup=none --no-fuzzy-matching --no-wrap "$$po" $(LANGUAGES)/wploadmore.pot && \
	  msgfmt --check-format -o "$${po%.po}.mo" "$$po" || exit 1; \
	done

.PHONY: services
services: ## Start the local MariaDB and Redis when they are down
	.ci/services

# Merge leftovers and editor backups: *.orig, *.rej, *~, vim's .*.swp and
# .*.swo, emacs's #*#. .gitignore keeps them out of `git add`; this catches
# a forced one.
LEFTOVERS := (^|/)([^/]*\.(orig|rej)|[^/]*~|\.[^/]*\.sw[po]|\#[^/]*\#)$$

.PHONY: leftovers
leftovers: ## Refuse committed merge leftovers and editor backups (*.orig, *.rej, *~, .*.swp, #*#)
	@found=$$(git ls-files -z | tr '\0' '\n' | grep -E '$(LEFTOVERS)' || true); \
	if [ -n "$$found" ]; then printf 'committed merge leftovers or editor backups; git rm them:\n%s\n' "$$found" >&2; exit 1; fi

# The shared flight and LRU run again under the race detector: a flight's
# result read before it is written passes every test without it.
.PHONY: test
test: leftovers assets services test-plugin ## Run every test: leftovers, vet, gofmt, unit, integration, fuzz seeds, browser, the WordPress plugin's
	@unformatted=$$(gofmt -l $$(git ls-files '*.go')); if [ -n "$$unformatted" ]; then echo "gofmt needed: $$unformatted"; exit 1; fi
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...
	$(GO) test -race -count=1 ./internal/flight/ ./internal/lru/

# The WordPress plugin's PHPUnit tests (Debian's phpunit), on Debian's
# WordPress and a database of their own on the local MariaDB, which they
# create and drop. A missing php or phpunit fails, as a missing package
# fails the Go tests in make test: a run never passes with tests left out.
.PHONY: test-plugin
test-plugin: services ## The WordPress plugin's PHPUnit tests, on Debian's WordPress and a throwaway database
	@command -v php >/dev/null 2>&1 || { echo "make test-plugin: needs Debian's php-cli package (php is missing): apt-get install php-cli" >&2; exit 1; }
	@command -v phpunit >/dev/null 2>&1 || { echo "make test-plugin: needs Debian's phpunit package (phpunit is missing): apt-get install phpunit" >&2; exit 1; }
	phpunit -c wordpress-plugin/phpunit.xml.dist

.PHONY: test-short
test-short: assets services ## The loop to work in: every test that takes under a second or so (go test -short), about a minute
	$(GO) test -short -count=1 ./...

# TEST_FILES lists every package's test files as "package file" lines, for
# fuzz to find each package's Fuzz functions without building its tests.
TEST_FILES := $(GO) list -f '{{$$p := .ImportPath}}{{$$d := .Dir}}{{range .TestGoFiles}}{{$$p}} {{$$d}}/{{.}}{{"\n"}}{{end}}{{range .XTestGoFiles}}{{$$p}} {{$$d}}/{{.}}{{"\n"}}{{end}}' ./...

.PHONY: fuzz
fuzz: ## Fuzz every Fuzz target of every package for FUZZTIME each (default 30s)
	@targets=$$($(TEST_FILES) | while read -r pkg file; do \
	  awk -v pkg="$$pkg" 'match($$0, /^func Fuzz[A-Za-z0-9_]*\(/) { print pkg, substr($$0, 6, RLENGTH - 6) }' "$$file"; \
	done); \
	[ -n "$$targets" ] || { echo "make fuzz: no Fuzz targets found" >&2; exit 1; }; \
	n=0; while read -r pkg t; do \
	  echo "fuzz $$pkg $$t"; \
	  $(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $${FUZZTIME:-30s} $$pkg || exit 1; \
	  n=$$((n + 1)); \
	done <<< "$$targets"; \
	echo "make fuzz: $$n targets fuzzed for $${FUZZTIME:-30s} each"

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
