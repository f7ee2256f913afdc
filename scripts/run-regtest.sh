#!/usr/bin/env bash
# Starts descwalletd on regtest with a data dir under .cache/run and the log
# on the console, and shows how to call it. Stop it with Ctrl-C (or the stop
# call). Run through `make run`, which builds bin/ first.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=local

BIN=${BIN:-bin}
if [ ! -x "$BIN/descwalletd" ]; then
	go build -o "$BIN/" ./cmd/descwalletd ./cmd/descwallet-cli
fi

DATADIR=${DATADIR:-$PWD/.cache/run}
PORT=${RPCPORT:-18446}
mkdir -p "$DATADIR"

cat <<MSG
descwalletd on regtest
  data dir  $DATADIR (cookie: $DATADIR/regtest/.cookie)
  RPC       http://127.0.0.1:$PORT/

Call it from another terminal:
  $BIN/descwallet-cli -regtest -datadir=$DATADIR help
  $BIN/descwallet-cli -regtest -datadir=$DATADIR echo hello
  curl --user "\$(cat $DATADIR/regtest/.cookie)" \\
       --data-binary '{"jsonrpc":"2.0","id":1,"method":"uptime","params":[]}' \\
       http://127.0.0.1:$PORT/

MSG
exec "$BIN/descwalletd" -regtest -datadir="$DATADIR" -rpcport="$PORT" -printtoconsole "$@"
