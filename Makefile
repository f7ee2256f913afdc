# descwallet build and test entry points. See README.md.
export GOTOOLCHAIN := local

GO        ?= go
BIN       := bin
BTCD_VER  := v0.26.2
# The integration harness builds btcd into the same folder (internal/testenv).
TOOLS     := $(CURDIR)/.cache/tools
BTCD      := $(TOOLS)/btcd-$(BTCD_VER)
# The npm client the real-client test drives (internal/clienttest).
BITCOIN_CORE_VER := 5.0.0
NPM_BITCOIN_CORE := $(CURDIR)/.cache/npm-bitcoin-core

.PHONY: all build run test test-short soak bench bench-scale fuzz vet fmt btcd python-bitcoinlib npm-bitcoin-core clean

all: build

build:
	$(GO) build -o $(BIN)/ ./cmd/...

# The pinned btcd, built from the version go.mod records as a tool.
btcd: $(BTCD)
$(BTCD):
	mkdir -p $(TOOLS)
	$(GO) build -o $(BTCD) github.com/btcsuite/btcd

run: build btcd
	./scripts/run-regtest.sh

test: vet
	$(GO) test -count=1 -timeout 30m ./...

test-short:
	$(GO) test -short -count=1 ./...

# The model-based accounting test, longer than CI's fixed 300 steps on
# SQLite, 100 on PostgreSQL and 60 on two nodes sharing a PostgreSQL
# wallet: ACCT_STEPS steps (default 3000) on all three at once, from seed
# ACCT_SEED (default random; a failure prints the seed and step to rerun). Then the two-node shared
# wallet test with MULTINODE_ADDRESSES getnewaddress calls (default
# 10 000; CI makes 500), and the event log's kill -9 test with
# EVENT_PAYMENTS payments (default 10000; CI runs 1000).
soak: btcd
	ACCT_STEPS=$${ACCT_STEPS:-3000} ACCT_SEED=$${ACCT_SEED:-random} \
		$(GO) test -count=1 -timeout 0 -v -run '^TestAccountingModel(Postgres|Shared)?$$' ./internal/acctest/
	MULTINODE_ADDRESSES=$${MULTINODE_ADDRESSES:-10000} \
		$(GO) test -count=1 -timeout 0 -v -run '^TestMultiNodeSharedWallet$$' ./internal/rpc/methods/
	EVENT_PAYMENTS=$${EVENT_PAYMENTS:-10000} \
		$(GO) test -count=1 -timeout 0 -v -run '^TestEventLogKill$$' ./internal/node/

# Benchmarks and load tools: figures to report, never a CI gate.
bench: build btcd
	$(GO) test -run '^$$' -bench . -benchmem -timeout 60m ./...
	$(BIN)/descwallet-bench rpc
	$(BIN)/descwallet-bench addrinfo

# Large-wallet figures (issue 16), never part of make test: getaddressinfo
# on PostgreSQL against SQLite, then one wallet of SCALE_SCRIPTS scripts
# (default 10 000 000) on SCALE_STORE (sqlite): import time and peak RSS,
# getaddressinfo on random addresses, rescan of SCALE_BLOCKS blocks (5 000)
# against the raw fetch. The chain is built once into .cache/bench.
bench-scale: build btcd
	$(BIN)/descwallet-bench addrinfo -store both
	$(BIN)/descwallet-bench bigwallet -scripts $${SCALE_SCRIPTS:-10000000} \
		-blocks $${SCALE_BLOCKS:-5000} -store $${SCALE_STORE:-sqlite}

vet:
	$(GO) vet ./...

fmt:
	gofmt -l -w .

# Debian's python-bitcoinlib for the real-client test (needs root).
python-bitcoinlib:
	/usr/bin/python3 -c 'import bitcoin' 2>/dev/null || \
		(apt-get update -qq && apt-get install -y -qq python3-bitcoinlib)

# The npm bitcoin-core client for the real-client test, pinned to the
# version internal/clienttest/npm_test.go expects.
npm-bitcoin-core:
	npm install --prefix $(NPM_BITCOIN_CORE) bitcoin-core@$(BITCOIN_CORE_VER) \
		--save-exact --no-audit --no-fund

clean:
	rm -rf $(BIN) .cache
