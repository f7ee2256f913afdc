"""Drive descwalletd with python-bitcoinlib's RawProxy, as a Core client.

Usage: rawproxy.py url <service_url>
       rawproxy.py conf <conf_file>

The first form authenticates with the user and password in the URL; the
second reads rpcport from the configuration file and the cookie from the
regtest folder next to it, as RawProxy does for bitcoind. Each check prints
one JSON line; the Go test compares them.

The first form also imports a descriptor of a large range through a proxy
whose timeout (python-bitcoinlib's default is 30 s) passes before the
import ends: the caller gives up and closes the connection, and, as with
Core, the import still completes.
"""

import json
import socket
import sys
import time

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
    if mode == "url":
        out["import_after_timeout"] = import_after_timeout(proxy, arg)
    print(json.dumps(out, sort_keys=True))


# A BIP 32 test vector's master public key (testnet form).
TPUB = ("tpubD6NzVbkrYhZ4YVMVzC7wZeRfz3bhqcHvV8M3UiULCfzFtLtp5nwvi6LnBQegrkx"
        "YGPkSzXUEvcPEHcKdda8W1YShVBkhFBGkLxjSQ1Nx3cJ")


def import_after_timeout(proxy, url):
    """Returns the range listdescriptors shows once the import a timed-out
    call started has ended, or what went wrong."""
    proxy.createwallet("pyimport", True, True)
    desc = proxy.getdescriptorinfo("wpkh(%s/0/*)" % TPUB)["descriptor"]
    wallet_url = url + "/wallet/pyimport"
    hasty = bitcoin.rpc.RawProxy(service_url=wallet_url, timeout=0.3)
    try:
        # A machine fast enough to import within the timeout leaves
        # nothing to check but the range.
        hasty.importdescriptors([{"desc": desc, "timestamp": "now",
                                  "range": [0, 40000]}])
    except (socket.timeout, TimeoutError):
        pass
    finally:
        hasty.close()
    wallet = bitcoin.rpc.RawProxy(service_url=wallet_url)
    deadline = time.time() + 120
    while time.time() < deadline:
        got = wallet.listdescriptors()["descriptors"]
        if got:
            return got[0].get("range")
        time.sleep(0.2)
    return "no descriptor after 120 s"


if __name__ == "__main__":
    main()
