#!/usr/bin/env python3
"""Durability: SIGKILL `draplane server` in the middle of a write load.

Writers create and update DeviceClasses over HTTPS as fast as they can; the
server is killed with SIGKILL while they run, then restarted on the same
data directory. Every write that got a 2xx answer must be there (creates
present, each object at least at its last acknowledged update), the store
must answer consistently (list == get of every object, revisions go on
increasing), and new writes must work. Repeated for several kill cycles.
Prints "N passed, N failed" and exits 1 on any failure.

  tests/e2e/durability_test.py --draplane build/release/src/cmd/draplane
"""

import argparse
import http.client
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time

import standalone_server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CLASSES = "/apis/resource.k8s.io/v1/deviceclasses"


class Server:
    def __init__(self, binary, data):
        self.binary, self.data = binary, data
        self.proc = None

    def start(self):
        started = standalone_server.start(
            [self.binary, "server", "--data-dir", self.data, "--listen", "127.0.0.1:0"],
            self.data)
        self.proc, self.port = started.proc, started.port
        self.ctx, self.token = started.ctx, started.token

    def conn(self):
        return http.client.HTTPSConnection("127.0.0.1", self.port, context=self.ctx,
                                           timeout=10)

    def request(self, conn, method, path, body=None):
        headers = {"Authorization": "Bearer " + self.token,
                   "Content-Type": "application/json"}
        conn.request(method, path, body=json.dumps(body) if body is not None else None,
                     headers=headers)
        r = conn.getresponse()
        return r.status, json.loads(r.read() or b"null")

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=20)


def device_class(name, gen):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": {"name": name, "labels": {"gen": str(gen)}},
            "spec": {"selectors": [{"cel": {"expression": "device.driver == \"x\""}}]}}


def writer(server, prefix, acked, stop):
    """Creates objects and updates them; records every acknowledged write."""
    i = 0
    conn = None
    while not stop.is_set():
        try:
            if conn is None:
                conn = server.conn()
            name = "%s-%d" % (prefix, i)
            code, body = server.request(conn, "POST", CLASSES, device_class(name, 0))
            if code == 201:
                acked[name] = (0, int(body["metadata"]["resourceVersion"]))
                obj = body
                for gen in (1, 2):
                    obj["metadata"]["labels"]["gen"] = str(gen)
                    code, obj = server.request(conn, "PUT", CLASSES + "/" + name, obj)
                    if code != 200:
                        break
                    acked[name] = (gen, int(obj["metadata"]["resourceVersion"]))
            i += 1
        except (OSError, http.client.HTTPException, ValueError):
            conn = None  # the server is gone: unacknowledged writes may be lost
            time.sleep(0.05)


def verify(server, acked):
    conn = server.conn()
    code, lst = server.request(conn, "GET", CLASSES)
    if code != 200:
        return ["list failed: %s" % code]
    problems = []
    found = {i["metadata"]["name"]: i for i in lst["items"]}
    list_rv = int(lst["metadata"]["resourceVersion"])
    for name, (gen, rv) in acked.items():
        obj = found.get(name)
        if obj is None:
            problems.append("acknowledged create of %s is lost" % name)
            continue
        if int(obj["metadata"]["labels"]["gen"]) < gen:
            problems.append("%s: acknowledged update gen=%d lost (have %s)"
                            % (name, gen, obj["metadata"]["labels"]["gen"]))
        if int(obj["metadata"]["resourceVersion"]) < rv:
            problems.append("%s: resourceVersion went back" % name)
        if list_rv < rv:
            problems.append("list revision %d < acknowledged %d" % (list_rv, rv))
    for name, obj in list(found.items())[:200]:
        code, got = server.request(conn, "GET", CLASSES + "/" + name)
        if code != 200 or got != obj:
            problems.append("get of %s disagrees with the list" % name)
    code, created = server.request(conn, "POST", CLASSES,
                                   device_class("after-restart-%d" % time.time_ns(), 0))
    if code != 201 or int(created["metadata"]["resourceVersion"]) <= list_rv:
        problems.append("a write after restart failed or reused a revision")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draplane", default=os.path.join(
        ROOT, "build", "release", "src", "cmd", "draplane"))
    ap.add_argument("--cycles", type=int, default=3)
    ap.add_argument("--writers", type=int, default=4)
    ap.add_argument("--load-seconds", type=float, default=1.5)
    args = ap.parse_args()
    data = tempfile.mkdtemp(prefix="draplane-durability-")
    server = Server(args.draplane, data)
    passed = failed = 0
    acked = {}
    try:
        for cycle in range(args.cycles):
            server.start()
            stop = threading.Event()
            threads = [threading.Thread(target=writer,
                                        args=(server, "c%dw%d" % (cycle, w), acked, stop))
                       for w in range(args.writers)]
            for t in threads:
                t.start()
            time.sleep(args.load_seconds)
            server.kill()  # in the middle of the load
            stop.set()
            for t in threads:
                t.join()
            server.start()
            problems = verify(server, acked)
            if problems:
                failed += 1
                print("FAIL cycle %d: %d problems, e.g. %s" % (cycle, len(problems),
                                                               problems[:5]))
            else:
                passed += 1
                print("PASS cycle %d: %d acknowledged objects all present" %
                      (cycle, len(acked)))
            server.kill()
        server.start()
        code = server.stop()
        if code == 0:
            passed += 1
            print("PASS clean shutdown on SIGTERM")
        else:
            failed += 1
            print("FAIL SIGTERM exit code %s" % code)
    finally:
        if server.proc and server.proc.poll() is None:
            server.proc.kill()
        shutil.rmtree(data, ignore_errors=True)
    print("durability: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
