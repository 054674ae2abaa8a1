#!/usr/bin/env python3
"""The store's life cycle through `draplane server` and `draplane store`.

  - upgrade: a data directory written by the previous release (the
    committed fixture tests/fixtures/data-dir-format-0, made by draplane
    before its files carried format versions) opens, every object keeps its
    uid and resourceVersion, and the store and credentials are upgraded in
    place; a data directory of a newer format is refused with a clear error
    and left as it is;
  - backup and restore: `draplane store backup` while writers run, then
    `draplane store restore` into a new data directory: every object and
    resourceVersion equal to the source's at the backup's revision;
  - the quota: past --store-quota-bytes writes get 500 "database space
    exceeded", reads and deletes go on, and the alarm clears itself at the
    next compaction (--compaction-interval), after which writes work again.
Prints "N passed, N failed" and exits 1 on any failure.

  tests/e2e/store_lifecycle_test.py --draplane build/release/src/cmd/draplane
"""

import argparse
import json
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time

import standalone_server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FIXTURE = os.path.join(ROOT, "tests", "fixtures", "data-dir-format-0")
CLASSES = "/apis/resource.k8s.io/v1/deviceclasses"
STORE_FORMAT = 1


class Server:
    def __init__(self, binary, data, *extra):
        started = standalone_server.start(
            [binary, "server", "--data-dir", data, "--listen", "127.0.0.1:0",
             *extra], data)
        self.proc, self.port = started.proc, started.port
        self.ctx, self.token = started.ctx, started.token
        self.data = data

    def request(self, method, path, body=None):
        return standalone_server.request(self.port, self.ctx, self.token, method, path,
                                         body)

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        return self.proc.wait(timeout=30)


def device_class(name, annotation=""):
    meta = {"name": name}
    if annotation:
        meta["annotations"] = {"e2e.draplane.dev/pad": annotation}
    return {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
            "metadata": meta,
            "spec": {"selectors": [{"cel": {"expression": "device.driver == \"x\""}}]}}


def store_format(path):
    db = sqlite3.connect(path)
    try:
        row = db.execute(
            "SELECT value FROM meta WHERE name = 'format_version'").fetchone()
        return row[0] if row else None
    finally:
        db.close()


class Results:
    def __init__(self):
        self.passed = self.failed = 0

    def check(self, ok, what):
        if ok:
            self.passed += 1
            print("PASS " + what)
        else:
            self.failed += 1
            print("FAIL " + what)
        return ok


def test_upgrade(args, tmp, results):
    data = os.path.join(tmp, "upgrade")
    shutil.copytree(FIXTURE, data)
    os.chmod(data, 0o700)
    with open(os.path.join(FIXTURE, "objects.json")) as f:
        expected = json.load(f)
    results.check(store_format(os.path.join(data, "state.db")) is None,
                  "the fixture is a store of format 0 (no format_version)")
    server = Server(args.draplane, data, "--scheduler=false")
    try:
        mismatched = []
        for path, want in expected.items():
            code, got = server.request("GET", path)
            if code != 200 or got["metadata"]["uid"] != want["uid"] or \
                    got["metadata"]["resourceVersion"] != want["resourceVersion"]:
                mismatched.append((path, code))
        results.check(not mismatched,
                      "upgrade: %d objects of the previous release's data directory "
                      "keep their uid and resourceVersion %s" %
                      (len(expected), mismatched[:3] if mismatched else ""))
        code, created = server.request("POST", CLASSES, device_class("after-upgrade"))
        results.check(code == 201, "upgrade: writes work after the upgrade (%s)" % code)
    finally:
        results.check(server.stop() == 0, "upgrade: clean shutdown")
    results.check(store_format(os.path.join(data, "state.db")) == STORE_FORMAT,
                  "upgrade: the store file now records format %d" % STORE_FORMAT)
    with open(os.path.join(data, "pki", "format")) as f:
        results.check(f.read() == "draplane-pki 1\n",
                      "upgrade: the credentials folder now records its format")

    # A newer store format: refused, the file untouched.
    db = sqlite3.connect(os.path.join(data, "state.db"))
    db.execute("UPDATE meta SET value = 99 WHERE name = 'format_version'")
    db.commit()
    db.close()
    proc = subprocess.run([args.draplane, "server", "--data-dir", data, "--listen",
                           "127.0.0.1:0"], capture_output=True, text=True, timeout=60)
    results.check(proc.returncode != 0 and
                  "format 99, newer than this draplane reads (format 1)" in proc.stderr,
                  "a store of a newer format is refused: %r" % proc.stderr.strip()[:200])
    results.check(store_format(os.path.join(data, "state.db")) == 99,
                  "the newer store is left as it was")
    db = sqlite3.connect(os.path.join(data, "state.db"))
    db.execute("UPDATE meta SET value = 1 WHERE name = 'format_version'")
    db.commit()
    db.close()
    with open(os.path.join(data, "pki", "format"), "w") as f:
        f.write("draplane-pki 7\n")
    proc = subprocess.run([args.draplane, "server", "--data-dir", data, "--listen",
                           "127.0.0.1:0"], capture_output=True, text=True, timeout=60)
    results.check(proc.returncode != 0 and "credentials of format 7" in proc.stderr,
                  "credentials of a newer format are refused: %r" %
                  proc.stderr.strip()[:200])


def every_object(server, rv=None):
    """Every object of every kind the server lists: {path: (uid, rv)}."""
    code, groups = server.request("GET", "/apis")
    versions = ["/api/v1"] + ["/apis/" + g["preferredVersion"]["groupVersion"]
                              for g in groups["groups"]]
    out = {}
    for version in versions:
        code, resources = server.request("GET", version)
        for r in resources["resources"]:
            if "/" in r["name"] or "list" not in r["verbs"]:
                continue
            path = version + "/" + r["name"]
            query = "?resourceVersion=%s&resourceVersionMatch=Exact" % rv if rv else ""
            code, lst = server.request("GET", path + query)
            if code != 200:
                out[path] = ("list failed", code)
                continue
            for item in lst["items"]:
                m = item["metadata"]
                key = "%s/%s/%s" % (path, m.get("namespace", ""), m["name"])
                out[key] = (m["uid"], m["resourceVersion"], json.dumps(item, sort_keys=True))
    return out


def test_backup_restore(args, tmp, results):
    src = os.path.join(tmp, "source")
    server = Server(args.draplane, src, "--scheduler=false")
    stop = threading.Event()
    written = [0]

    def writer():
        i = 0
        while not stop.is_set():
            code, _ = server.request("POST", CLASSES, device_class("w-%d" % i, "x" * 2000))
            if code == 201:
                written[0] += 1
            i += 1

    threads = [threading.Thread(target=writer) for _ in range(2)]
    for t in threads:
        t.start()
    try:
        time.sleep(1)
        backup = os.path.join(tmp, "backup.db")
        proc = subprocess.run([args.draplane, "store", "backup", backup, "--kubeconfig",
                               os.path.join(src, "kubeconfig")],
                              capture_output=True, text=True, timeout=120)
        time.sleep(0.5)
        stop.set()
        for t in threads:
            t.join()
        if not results.check(proc.returncode == 0,
                             "backup while %d writes went on: %s%s" %
                             (written[0], proc.stdout.strip(), proc.stderr.strip())):
            return
        revision = proc.stdout.split("at revision ")[1].split()[0]
        results.check(oct(os.stat(backup).st_mode & 0o777) == "0o600",
                      "the backup file is readable by its owner only")
        proc = subprocess.run([args.draplane, "store", "backup", backup, "--kubeconfig",
                               os.path.join(src, "kubeconfig")],
                              capture_output=True, text=True, timeout=60)
        results.check(proc.returncode != 0 and "exists" in proc.stderr,
                      "backup refuses to overwrite a file")
        source_objects = every_object(server, revision)
    finally:
        stop.set()
        server.stop()

    dst = os.path.join(tmp, "restored")
    proc = subprocess.run([args.draplane, "store", "restore", backup, "--data-dir", dst],
                          capture_output=True, text=True, timeout=120)
    if not results.check(proc.returncode == 0, "restore: %s%s" %
                         (proc.stdout.strip(), proc.stderr.strip())):
        return
    proc = subprocess.run([args.draplane, "store", "restore", backup, "--data-dir", dst],
                          capture_output=True, text=True, timeout=60)
    results.check(proc.returncode != 0 and "exists" in proc.stderr,
                  "restore refuses a data directory that has a store")
    # The credentials come along to keep the cluster's identities.
    shutil.copytree(os.path.join(src, "pki"), os.path.join(dst, "pki"))
    restored = Server(args.draplane, dst, "--scheduler=false", "--controllers=false")
    try:
        restored_objects = every_object(restored, revision)
    finally:
        restored.stop()
    differ = [k for k in set(source_objects) | set(restored_objects)
              if source_objects.get(k) != restored_objects.get(k)]
    classes = sum(1 for k in source_objects if "/deviceclasses/" in k)
    results.check(not differ and classes > 10,
                  "restore: %d objects (%d DeviceClasses written under load) equal to the "
                  "source's at revision %s, resourceVersions included %s" %
                  (len(source_objects), classes, revision, differ[:3] if differ else ""))


def test_quota(args, tmp, results):
    data = os.path.join(tmp, "quota")
    server = Server(args.draplane, data, "--scheduler=false", "--controllers=false",
                    "--store-quota-bytes", str(12 << 20), "--compaction-interval", "3s")
    try:
        code, _ = server.request("POST", CLASSES, device_class("keep"))
        results.check(code == 201, "quota: a class created")
        pad = "p" * (200 * 1024)
        code, obj = server.request("POST", CLASSES, device_class("big", pad))
        refused = None
        for i in range(2000):
            obj["metadata"]["annotations"]["e2e.draplane.dev/pad"] = pad[:-1] + str(i % 10)
            code, body = server.request("PUT", CLASSES + "/big", obj)
            if code != 200:
                refused = (code, body)
                break
            obj = body
        if not results.check(refused is not None and refused[0] == 500 and
                             "database space exceeded" in refused[1].get("message", ""),
                             "quota: past the quota a write gets 500 \"database space "
                             "exceeded\" (%s)" % (str(refused)[:200],)):
            return
        code, _ = server.request("GET", CLASSES + "/big")
        results.check(code == 200, "quota: reads go on under the alarm")
        code, _ = server.request("DELETE", CLASSES + "/keep")
        results.check(code == 200, "quota: deletes are accepted under the alarm (%s)" % code)
        deadline = time.time() + 30
        while time.time() < deadline:
            code, body = server.request("POST", CLASSES, device_class("after-alarm"))
            if code == 201:
                break
            time.sleep(0.5)
        results.check(code == 201, "quota: the alarm cleared itself at a compaction and "
                                   "writes work again (%s)" % code)
    finally:
        server.stop()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draplane", default=os.path.join(
        ROOT, "build", "release", "src", "cmd", "draplane"))
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="draplane-store-lifecycle-")
    results = Results()
    try:
        test_upgrade(args, tmp, results)
        test_backup_restore(args, tmp, results)
        test_quota(args, tmp, results)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("store life cycle: %d passed, %d failed" % (results.passed, results.failed))
    return 1 if results.failed else 0


if __name__ == "__main__":
    sys.exit(main())
