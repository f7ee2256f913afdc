#!/usr/bin/env bash
# Runs a regtest playground: the pinned btcd on loopback and descwalletd
# following it. Ctrl-C stops both. Started by `make run` (which builds the
# binaries first).
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BTCD="${BTCD:-$ROOT/.cache/tools/btcd-v0.26.2}"
RUN="$ROOT/.cache/run"
BTCD_RPC="127.0.0.1:${BTCD_RPC_PORT:-18334}"
BTCD_P2P="127.0.0.1:${BTCD_P2P_PORT:-18444}"
NODE_PORT="${NODE_PORT:-18446}"
BTCD_USER=btcd
BTCD_PASS=btcd
NODE_USER=user
NODE_PASS=pass

# A fixed regtest key the chain mines to, so that its coins can be imported.
MINER_ADDR=bcrt1qwrqgj90aptm6fwvexjqanpxxtruh5ne37f26e8
MINER_DESC='wpkh(02e2c33d94db1e766ebfe0f1915466c305e457e76ec0e4538e21d2a23adc776b85)#gp86qffm'
MINER_PRIV_DESC='wpkh(cP1nmmpqr78VzTVBBZbB7st3tiCng19ZZBiHRWWVc6mojnjeqrCf)#vgjmw3g9'

for bin in "$BTCD" "$ROOT/bin/descwalletd" "$ROOT/bin/descwallet-cli"; do
	if [ ! -x "$bin" ]; then
		echo "missing $bin: run 'make run' (it builds btcd and the binaries)" >&2
		exit 1
	fi
done
# A playground: btcd discards its regtest chain at every start, so the
# wallets of the previous run (which followed that chain) go with it.
rm -rf "$RUN/btcd" "$RUN/descwallet"
mkdir -p "$RUN/btcd" "$RUN/descwallet"

pids=()
stop() {
	trap - INT TERM EXIT
	echo
	echo "stopping..."
	for pid in "${pids[@]}"; do
		kill -INT "$pid" 2>/dev/null || true
	done
	for pid in "${pids[@]}"; do
		wait "$pid" 2>/dev/null || true
	done
	echo "stopped"
}
trap stop INT TERM EXIT

btcd_call() {
	curl -s --user "$BTCD_USER:$BTCD_PASS" -H 'content-type: text/plain' \
		--data-binary "{\"jsonrpc\":\"1.0\",\"id\":1,\"method\":\"$1\",\"params\":${2:-[]}}" \
		"http://$BTCD_RPC/"
}

# btcd discards its regtest chain at every start.
"$BTCD" --regtest --notls --rpclisten="$BTCD_RPC" --listen="$BTCD_P2P" \
	--rpcuser="$BTCD_USER" --rpcpass="$BTCD_PASS" --miningaddr="$MINER_ADDR" \
	--datadir="$RUN/btcd/data" --logdir="$RUN/btcd/logs" --configfile=/dev/null \
	>"$RUN/btcd/btcd.out" 2>&1 &
pids+=($!)
for _ in $(seq 1 60); do
	if btcd_call getblockcount | grep -q '"result"'; then
		break
	fi
	sleep 1
done
if ! btcd_call getblockcount | grep -q '"result"'; then
	echo "btcd did not start; see $RUN/btcd/btcd.out" >&2
	exit 1
fi
btcd_call generate '[101]' >/dev/null
echo "btcd on $BTCD_RPC (regtest, 101 blocks mined to $MINER_ADDR)"

"$ROOT/bin/descwalletd" -regtest -datadir="$RUN/descwallet" -rpcport="$NODE_PORT" \
	-rpcuser="$NODE_USER" -rpcpassword="$NODE_PASS" -chainbackend=btcd \
	-chainrpcconnect="$BTCD_RPC" -chainrpcuser="$BTCD_USER" -chainrpcpassword="$BTCD_PASS" \
	-fallbackfee=0.0001 &
pids+=($!)
sleep 1

CLI="$ROOT/bin/descwallet-cli -regtest -rpcport=$NODE_PORT -rpcuser=$NODE_USER -rpcpassword=$NODE_PASS"
cat <<EOT

descwalletd on 127.0.0.1:$NODE_PORT (user $NODE_USER, password $NODE_PASS), log in
$RUN/descwallet/regtest/debug.log

Try:
  $CLI createwallet demo true true
  $CLI -rpcwallet=demo importdescriptors '[{"desc":"$MINER_DESC","timestamp":0}]'
  $CLI -rpcwallet=demo listunspent
  $CLI -rpcwallet=demo getbalances
  $CLI -rpcwallet=demo getaddressinfo $MINER_ADDR
  $CLI getblockchaininfo

Mine more blocks (btcd has no generatetoaddress; coinbases pay $MINER_ADDR):
  curl -s --user $BTCD_USER:$BTCD_PASS --data-binary '{"jsonrpc":"1.0","id":1,"method":"generate","params":[10]}' http://$BTCD_RPC/

A wallet with the mining key beside its own descriptors (its change goes
there), and a payment from it to a fresh address of another wallet (a fresh
regtest chain has no fee estimates, hence the
playground's -fallbackfee=0.0001):
  $CLI createwallet keys
  $CLI -rpcwallet=keys importdescriptors '[{"desc":"$MINER_PRIV_DESC","timestamp":0}]'
  $CLI createwallet payee
  $CLI -rpcwallet=keys sendtoaddress \$($CLI -rpcwallet=payee getnewaddress) 1.5
  $CLI -rpcwallet=payee getbalances

Ctrl-C stops both.
EOT
wait -n "${pids[@]}" || true
