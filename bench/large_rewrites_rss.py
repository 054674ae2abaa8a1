#!/usr/bin/env python3
"""Resident memory of `draplane server` under rewrites of one large object.

Starts `draplane server` on a new data directory with a short compaction
interval, creates one DeviceClass carrying an annotation of --kib KiB and
rewrites it --rewrites times over HTTPS (each PUT changes the annotation),
then prints JSON with the server's RSS (MiB, from /proc) before the
rewrites, right after them (the store still holds the history it has not
compacted, as etcd does) and after --settle seconds (a compaction later).
What stays after compaction is the memory the server's caches keep for
the object's versions; it should not grow with the number of rewrites.

Usage: bench/large_rewrites_rss.py [--draplane build/release/src/cmd/draplane]
                                   [--rewrites 400] [--kib 250] [--settle 12]
"""

import argparse
import json
import os
import shutil
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
import standalone_server  # noqa: E402


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) // 1024
    raise RuntimeError("no VmRSS for pid %d" % pid)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draplane", default=os.path.join(
        ROOT, "build", "release", "src", "cmd", "draplane"))
    ap.add_argument("--rewrites", type=int, default=400)
    ap.add_argument("--kib", type=int, default=250)
    ap.add_argument("--settle", type=float, default=12)
    args = ap.parse_args()
    data = tempfile.mkdtemp(prefix="draplane-rss-")
    server = standalone_server.start(
        [args.draplane, "server", "--data-dir", data, "--listen", "127.0.0.1:0",
         "--compaction-interval", "5s"], data)
    try:
        def request(method, path, body=None):
            return standalone_server.request(server.port, server.ctx, server.token,
                                             method, path, body)
        time.sleep(2)
        before = rss_mib(server.proc.pid)
        pad = "x" * (args.kib * 1024)
        path = "/apis/resource.k8s.io/v1/deviceclasses"
        code, obj = request("POST", path, {
            "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": "large", "annotations": {"pad": pad}}, "spec": {}})
        if code != 201:
            raise RuntimeError("create: %s %s" % (code, obj))
        for i in range(args.rewrites):
            obj["metadata"]["annotations"]["pad"] = pad + str(i)
            code, obj = request("PUT", path + "/large", obj)
            if code != 200:
                raise RuntimeError("rewrite %d: %s %s" % (i, code, obj))
        after = rss_mib(server.proc.pid)
        time.sleep(args.settle)
        settled = rss_mib(server.proc.pid)
    finally:
        server.proc.kill()
        server.proc.wait()
        shutil.rmtree(data, ignore_errors=True)
    print(json.dumps({"rewrites": args.rewrites, "object_kib": args.kib,
                      "rss_mib_before": before, "rss_mib_after_rewrites": after,
                      "rss_mib_after_compaction": settled}))


if __name__ == "__main__":
    main()
