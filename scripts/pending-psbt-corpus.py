#!/usr/bin/env python3
"""Print the Go map entries of internal/testvec/pending.go for the cases of
testdata/core_rpc/psbt.json whose method descwallet does not serve yet.

Usage: scripts/pending-psbt-corpus.py METHOD... (the methods still missing)
Each method becomes one feature, "rpc-<method>", listing its case ids in
file order.
"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "testdata", "core_rpc", "psbt.json")) as f:
    cases = json.load(f)["cases"]
for method in sys.argv[1:]:
    ids = [c["id"] for c in cases if c["method"] == method]
    if not ids:
        sys.exit("no case calls " + method)
    print('\t"rpc-%s": {' % method)
    for i in ids:
        print("\t\t%s," % json.dumps(i))
    print("\t},")
