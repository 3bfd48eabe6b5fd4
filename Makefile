# The two commands a new machine needs:
#   make demo   starts a local Chroma, ingests examples/docs and explores it
#   make test   runs the whole test suite against real Chroma and Redis servers
# Everything they need is installed by `make deps`, which both run first.

GO      ?= go
CHROMA  := internal/testenv/chroma
CHROMA13 := internal/testenv/chroma13
MCPCLIENT := internal/testenv/mcpclient
WRITERS := internal/testenv/writers
BIN     := bin/chromafs

.PHONY: all demo test test-batteries test-chroma13 deps deps-go deps-chroma deps-chroma13 deps-mcpclient deps-writers deps-redis deps-tools build lint bench bench-search-quality clean stop-demo

all: build

deps: deps-go deps-chroma deps-chroma13 deps-mcpclient deps-writers deps-redis deps-tools

deps-go:
	$(GO) mod download

# The pinned Chroma server (npm package chromadb with the bindings that run
# on glibc 2.36).
deps-chroma: $(CHROMA)/node_modules/.bin/chroma
$(CHROMA)/node_modules/.bin/chroma: $(CHROMA)/package.json $(CHROMA)/package-lock.json
	cd $(CHROMA) && npm ci --no-audit --no-fund
	touch $@

# The newest Chroma on npm (chromadb 3.5.0 with bindings 1.3.4), for the
# second pass of `make test` (CHROMAFS_CHROMA_VERSION=1.3). Its bindings
# need glibc 2.38, so testenv runs node under the dynamic loader of Debian
# 13's libc6, which scripts/trixie-libc.sh downloads (with a sources list
# of its own, never the system's) and extracts into $(CHROMA13)/glibc.
# The bindings are a plain optional dependency and no package has an
# install script that the server needs: --ignore-scripts.
deps-chroma13: $(CHROMA13)/node_modules/.package-lock.json $(CHROMA13)/glibc/.version
$(CHROMA13)/node_modules/.package-lock.json: $(CHROMA13)/package.json $(CHROMA13)/package-lock.json
	cd $(CHROMA13) && npm ci --ignore-scripts --no-audit --no-fund
	touch $@
$(CHROMA13)/glibc/.version: scripts/trixie-libc.sh
	scripts/trixie-libc.sh $(CHROMA13)/glibc

# The pinned official MCP TypeScript SDK, for the independent client
# (check.mjs) that the MCP tests run against `chromafs mcp` and serve --mcp.
deps-mcpclient: $(MCPCLIENT)/node_modules/.package-lock.json
$(MCPCLIENT)/node_modules/.package-lock.json: $(MCPCLIENT)/package.json $(MCPCLIENT)/package-lock.json
	cd $(MCPCLIENT) && npm ci --no-audit --no-fund
	touch $@

# The real writers of other tools' layouts (LangChain.js, LlamaIndex.TS
# and their Chroma stores), run by write.mjs for testenv.WriteWith.
# --ignore-scripts: a transitive sharp downloads a binary at install,
# which fails offline, and nothing here needs it; --omit=optional: the
# chromadb client's optional server bindings (400 MB) and onnxruntime-node
# are not used either.
deps-writers: $(WRITERS)/node_modules/.package-lock.json
$(WRITERS)/node_modules/.package-lock.json: $(WRITERS)/package.json $(WRITERS)/package-lock.json
	cd $(WRITERS) && npm ci --ignore-scripts --omit=optional --no-audit --no-fund
	touch $@

# Debian's redis-server, for the cache tests.
deps-redis:
	@command -v redis-server >/dev/null 2>&1 || { \
		echo "installing redis-server"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && apt-get install -y -qq redis-server; \
		else sudo apt-get update -qq && sudo apt-get install -y -qq redis-server; fi; }

# From Debian: GNU grep, GNU tree and GNU awk (oracles of the grep, tree and awk tests), ripgrep (a baseline
# of the grep benchmarks), and the real clients of the adapter tests:
# litmus, cadaver, rclone and davfs2 (WebDAV), curl and wget (HTTP).
deps-tools:
	@command -v rg >/dev/null 2>&1 && command -v jq >/dev/null 2>&1 && command -v gawk >/dev/null 2>&1 && command -v tree >/dev/null 2>&1 && command -v grep >/dev/null 2>&1 && command -v litmus >/dev/null 2>&1 && command -v cadaver >/dev/null 2>&1 && command -v rclone >/dev/null 2>&1 && command -v curl >/dev/null 2>&1 && command -v wget >/dev/null 2>&1 && command -v mount.davfs >/dev/null 2>&1 || { \
		echo "installing grep, tree, ripgrep, jq, gawk and the WebDAV/HTTP test clients"; \
		if [ "$$(id -u)" = 0 ]; then apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq grep tree ripgrep jq gawk litmus cadaver rclone curl wget davfs2; \
		else sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq grep tree ripgrep jq gawk litmus cadaver rclone curl wget davfs2; fi; }

# chromafs is built static (CGO_ENABLED=0: the pure-Go resolver, no dynamic
# loader or libc start-up in every process). chromafs-embed runs ingest
# --embedding default (chroma-go's ONNX function, loaded with purego).
build:
	CGO_ENABLED=0 $(GO) build -o $(BIN) ./cmd/chromafs
	$(GO) build -o bin/chromafs-embed ./cmd/chromafs-embed

# The demo's Chroma keeps its data, log and pid file in DEMO_STATE
# (scripts/demo.sh reads CHROMAFS_DEMO_STATE too).
DEMO_STATE := $(or $(CHROMAFS_DEMO_STATE),.chroma-demo)

demo: deps-go deps-chroma build
	./scripts/demo.sh

# stop-demo stops the Chroma that serves the demo's data directory, found
# by its command line even when the pid file or the directory is gone, and
# says what it did.
stop-demo:
	./scripts/demo.sh stop

# The packages whose tests take longest are named first: go test schedules
# builds and test runs in the order of its arguments, so they start first
# and the short packages fill the gaps around them instead of leaving one
# long package running alone at the end; ./... then adds every other
# package once. -p 3 lets a third test binary run while others wait on
# timeouts, frozen servers or Chroma.
SLOW_PKGS := . ./cmd/chromafs ./regex ./adapters/webdavfs ./gnu ./grepx ./mcpserver ./chromastore ./tree

# A binary built with -race sleeps a second when it exits (GORACE's
# atexit_sleep_ms, 1000 by default), to let goroutines still running
# report races: 36 test binaries, a second each, in the slots of -p 3.
# 100 ms still gives them a moment; a GORACE of your own comes after it
# and wins.
# The GNU differential batteries (tests that call testenv.Battery: the
# regex package's comparisons with GNU grep, grep -P and the long pattern
# lists among them, gnu's long pattern lists, the shell's bash battery)
# skip under -race and run in a second pass without it, at a fraction of
# their cost under -race (BENCHMARKS.md, "Test time"). BATTERY_RUN selects
# them in BATTERY_PKGS; internal/testenv's TestBatteriesInMakefile
# checks that it selects every battery and nothing else. The matchers'
# concurrent use stays under -race in regex's TestMatchersConcurrent.
# Batteries that cost little more under -race stay in the -race pass:
# awk's gawk battery (TestGawk) and the shell's awk lines, gnu's other
# comparisons with GNU tools.
BATTERY_PKGS := ./regex ./gnu ./shell
BATTERY_RUN := ^(TestGNU.*|TestMultiEqualsCombined|TestGrepManyPatternsVsGNU|TestGrepHugeListVsGNU|TestBashDifferential)$$

# The third pass runs the tests that claim Chroma's behaviour most
# directly against Chroma 1.3 (CHROMAFS_CHROMA_VERSION=1.3; see
# internal/testenv and chromastore's "Chroma versions"), without -race:
# every chromastore test (the store conformance suite storetest among
# them); in the root, fstest, the coarse filter's agreement with Chroma's
# regex and $contains, Cloud limits and an adopted collection; in
# cmd/chromafs, ingest, ls/cat/find/grep end to end, an independent
# writer's collection and adopt; in adopt, re-adoption of collections
# that the real npm writers (chromadb's JS client 3.x) wrote.
# CHROMA13_RUN selects them in CHROMA13_PKGS; internal/testenv's
# TestChroma13InMakefile checks that every name it lists is a test there.
CHROMA13_PKGS := . ./cmd/chromafs ./adopt
CHROMA13_RUN := ^(TestFS|TestCandidates|TestCandidatesRegexAgreement|TestCandidatesStraddle|TestCloudLimits|TestAdopted|TestEndToEnd|TestGrepEndToEnd|TestForeignCollection|TestIndependentWriter|TestIngestShardedTree|TestCloudLimitsIngest|TestIngestReembed|TestAdopt|TestWritersReadopt|TestCoarseAdopted)$$

# The second and third passes run at once: the batteries are CPU work,
# the Chroma 1.3 pass waits on Chroma, npm writers and process starts
# for much of its time. Either failing fails the target.
test: deps
	GORACE="atexit_sleep_ms=100 $(GORACE)" $(GO) test -race -count=1 -p 3 $(SLOW_PKGS) ./...
	$(GO) test -count=1 -run '$(BATTERY_RUN)' $(BATTERY_PKGS) & batteries=$$!; \
	$(MAKE) --no-print-directory test-chroma13; chroma13=$$?; \
	wait $$batteries; batteries=$$?; \
	test $$batteries -eq 0 -a $$chroma13 -eq 0

# The Chroma 1.3 pass alone (the third pass of make test).
test-chroma13: deps-go deps-chroma13 deps-writers
	CHROMAFS_CHROMA_VERSION=1.3 $(GO) test -count=1 ./chromastore
	CHROMAFS_CHROMA_VERSION=1.3 $(GO) test -count=1 -run '$(CHROMA13_RUN)' $(CHROMA13_PKGS)

# The batteries alone, without -race (the second pass of make test).
test-batteries: deps
	$(GO) test -count=1 -run '$(BATTERY_RUN)' $(BATTERY_PKGS)

# staticcheck is pinned (a new release may add checks that fail the build);
# .ci/run runs the same version.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

lint:
	gofmt -l . | (! grep .)
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

bench: deps
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...

# bench-search-quality asks the question set of search/testdata/quality of
# the lexical, vector and hybrid rankings (Chroma, n-gram embedding) and of
# SQLite FTS5's bm25 (python3) and prints recall@5 and MRR@10 of each, over
# the odd-numbered questions (on which search's parameters were chosen), the
# even-numbered ones and all.
bench-search-quality: deps-chroma
	CI=true $(GO) test -count=1 -run TestSearchQuality -v ./search -args -search.quality

# clean stops the demo's Chroma first: deleting its data directory under a
# running Chroma would leave it serving a database it can no longer write.
clean: stop-demo
	rm -rf bin $(DEMO_STATE)
