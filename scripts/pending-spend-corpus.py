#!/usr/bin/env python3
"""Print the Go map entries of internal/testvec/pending.go for the steps of
testdata/core_rpc/spend.json whose method descwallet does not serve yet.

Usage: scripts/pending-spend-corpus.py METHOD... (the methods still missing)
Each method becomes one feature, "rpc-<method>", listing its steps as
"<scenario id>/<step index>" in file order.
"""
import json
import os
import sys

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "..", "testdata", "core_rpc", "spend.json")) as f:
    scenarios = json.load(f)["scenarios"]
for method in sys.argv[1:]:
    ids = ["%s/%d" % (s["id"], i) for s in scenarios for i, st in enumerate(s["steps"]) if st["method"] == method]
    if not ids:
        sys.exit("no step calls " + method)
    print('\t"rpc-%s": {' % method)
    for i in ids:
        print("\t\t%s," % json.dumps(i))
    print("\t},")
