"""Drive descwalletd with python-bitcoinlib's RawProxy, as a Core client.

Usage: rawproxy.py url <service_url>
       rawproxy.py conf <conf_file>

The first form authenticates with the user and password in the URL; the
second reads rpcport from the configuration file and the cookie from the
regtest folder next to it, as RawProxy does for bitcoind. Each check prints
one JSON line; the Go test compares them.
"""

import json
import sys

import bitcoin
import bitcoin.rpc


def main():
    bitcoin.SelectParams("regtest")
    mode, arg = sys.argv[1], sys.argv[2]
    if mode == "url":
        proxy = bitcoin.rpc.RawProxy(service_url=arg)
    else:
        proxy = bitcoin.rpc.RawProxy(btc_conf_file=arg)

    out = {}
    out["echo"] = proxy.echo("a", 1, [True, None], {"k": "v"})
    out["echojson"] = proxy.echojson({"x": [1, 2]})
    out["uptime_is_int"] = isinstance(proxy.uptime(), int)
    try:
        proxy.nosuchmethod()
        out["unknown"] = "no error"
    except bitcoin.rpc.JSONRPCError as e:
        out["unknown"] = e.error
    try:
        proxy.echo(*range(11))
        out["too_many"] = "no error"
    except bitcoin.rpc.JSONRPCError as e:
        out["too_many"] = e.error["code"]
    batch = proxy._batch([
        {"version": "1.1", "method": "echo", "params": ["b1"], "id": 1},
        {"version": "1.1", "method": "nosuchmethod", "params": [], "id": 2},
    ])
    out["batch"] = batch
    print(json.dumps(out, sort_keys=True))


if __name__ == "__main__":
    main()
