#!/usr/bin/env python3
"""Soak with faults: the standalone control plane under continuous churn.

`draplane server` (no simulated nodes of its own) and four GPU nodes from
examples/standalone/inventory.yaml, each its own `draplane node --backend
fake --simulate-kubelet` process. For the run's length, pods with claims are
created and deleted continuously: pods with a whole H100 from a
ResourceClaimTemplate, pods with a dynamically created H100 MIG 1g.10gb
partition, pods with an A100 MIG 3g.40gb partition (node3's static MIG),
and pairs of pods sharing one ResourceClaim. Meanwhile:
  - the server is restarted (SIGTERM, then started again on its data
    directory and port),
  - a node agent is killed with SIGKILL while pods are being prepared and
    started again at once,
  - a node is lost (SIGKILL, down past the 50 s grace period, its pods
    evicted) and comes back.
At the end the churn stops, every soak pod is deleted, and once settled:
  - no ResourceClaim is left allocated and no generated claim is left
    (0 leaked devices or claims),
  - every node's CDI folder is empty and its checkpoint holds no claim,
  - every pod's last state (read just before its deletion) is explained:
    it ran, or it was pending with a scheduling condition saying why, or it
    was bound at most START_SECONDS before its deletion, or its node or the
    server was down (or settling, SETTLE_SECONDS, after the fault) while it
    was bound;
  - RSS: the server's and the nodes' resident memory are sampled; for a
    process that lived more than 2 hours, growth after its first hour must
    stay under 5 %. A run of 2 hours or more restarts the server only in its
    first (duration - 2 h), so that the server's last life is measured.
Prints a JSON summary and "N passed, N failed"; exits 1 on any failure.

  scripts/soak HOURS          (this script with --hours; CI: 5 minutes)
"""

import argparse
import http.client
import json
import os
import random
import shutil
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import time

import standalone_server

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
INVENTORY = os.path.join(ROOT, "examples", "standalone", "inventory.yaml")
CLASSES_FILE = os.path.join(ROOT, "examples", "standalone", "guide-corrected",
                            "02-deviceclasses.yaml")
NODES = ["node1", "node2", "node3", "node4"]
NS = "soak"
RESOURCE = "/apis/resource.k8s.io/v1"
# After a fault ends, how long a node (re-registering, its prepares
# retried) may take before its pods run.
SETTLE_SECONDS = 10
# How long a pod bound to a healthy node may take to run.
START_SECONDS = 5
# A process life this long has its RSS growth after its first hour checked.
LONG_LIFE_SECONDS = 7200


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def rss_kib(pid):
    try:
        with open("/proc/%d/status" % pid) as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


class Proc:
    """A process with an RSS history for its current life."""

    def __init__(self, name, argv, log):
        self.name, self.argv, self.log = name, argv, log
        self.proc = None
        self.started = 0.0
        self.samples = []  # (seconds since start, KiB)
        self.lives = []    # finished lives: (seconds, samples)

    def start(self):
        self.proc = subprocess.Popen(self.argv, stdout=self.log, stderr=self.log)
        self.started = time.time()
        self.samples = []

    def sample(self):
        if self.proc and self.proc.poll() is None:
            kib = rss_kib(self.proc.pid)
            if kib:
                self.samples.append((time.time() - self.started, kib))

    def end_life(self):
        self.lives.append((time.time() - self.started, self.samples))

    def kill(self, sig=signal.SIGKILL):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(sig)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.end_life()


class Cluster:
    def __init__(self, draplane, work):
        self.draplane, self.work = draplane, work
        self.data = os.path.join(work, "data")
        self.port = free_port()
        self.log = open(os.path.join(work, "soak.log"), "a")
        self.server = Proc("server", [draplane, "server", "--data-dir", self.data,
                                      "--listen", "127.0.0.1:%d" % self.port,
                                      "--scheduler-policy", "upstream"], self.log)
        self.nodes = {}
        # (node, or None for every node; since; until): while a fault held
        # the node (or the server) down, and the settling time after it.
        self.faults = []

    def fault_window(self, node, since):
        self.faults.append((node, since, time.time() + SETTLE_SECONDS))

    def was_down(self, node, since, until):
        return any((n is None or n == node) and a <= until and since <= b
                   for n, a, b in self.faults)

    # ---- processes
    def start_server(self):
        self.server.start()
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                self.ctx = ssl.create_default_context(
                    cafile=os.path.join(self.data, "pki", "ca.crt"))
                with open(os.path.join(self.data, "pki", "admin.token")) as f:
                    self.token = f.read().strip()
                code, _ = self.request("GET", "/readyz")
                if code == 200:
                    return
            except (OSError, ValueError, http.client.HTTPException):
                pass
            time.sleep(0.2)
        raise RuntimeError("draplane server did not start")

    def node_root(self, node):
        return os.path.join(self.work, "nodes", node)

    def start_node(self, node):
        p = self.nodes.get(node)
        if p is None:
            p = Proc(node, [self.draplane, "node", "--backend", "fake", "--inventory",
                            INVENTORY, "--node-name", node, "--simulate-kubelet",
                            "--simulate-root", self.node_root(node),
                            "--heartbeat-seconds", "2",
                            "--kubeconfig", os.path.join(self.data, "kubeconfig")],
                     self.log)
            self.nodes[node] = p
        p.start()

    # ---- API
    def request(self, method, path, body=None):
        return standalone_server.request(self.port, self.ctx, self.token, method, path,
                                         body)

    def try_request(self, *args, **kwargs):
        try:
            return self.request(*args, **kwargs)
        except (OSError, http.client.HTTPException):
            return None, None


def claim_template(name, class_name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaimTemplate",
            "metadata": {"name": name, "namespace": NS},
            "spec": {"spec": {"devices": {"requests": [
                {"name": "gpu", "exactly": {"deviceClassName": class_name}}]}}}}


def pod(name, claim_source, labels):
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": NS, "labels": labels},
            "spec": {"terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "c", "image": "soak",
                                     "resources": {"claims": [{"name": "gpu"}]}}],
                     "resourceClaims": [dict({"name": "gpu"}, **claim_source)]}}


def setup(c):
    import yaml
    c.request("POST", "/api/v1/namespaces",
              {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})
    with open(CLASSES_FILE) as f:
        for doc in yaml.safe_load_all(f):
            if doc:
                c.request("POST", RESOURCE + "/deviceclasses", doc)
    c.request("POST", RESOURCE + "/deviceclasses", {
        "apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass",
        "metadata": {"name": "soak-h100-mig-1g"},
        "spec": {"selectors": [{"cel": {"expression":
            "device.driver == 'gpu.nvidia.com' && "
            "device.attributes['gpu.nvidia.com'].type == 'mig' && "
            "device.attributes['gpu.nvidia.com'].profile == '1g.10gb' && "
            "device.attributes['gpu.nvidia.com'].productName == 'NVIDIA H100 80GB HBM3'"}}]}})
    for name, cls in (("whole-h100", "gpu.nvidia.com-h100-corrected"),
                      ("mig-h100", "soak-h100-mig-1g"),
                      ("mig-a100", "gpu.nvidia.com-a100-mig-3g40gb")):
        c.request("POST", RESOURCE + "/namespaces/%s/resourceclaimtemplates" % NS,
                  claim_template(name, cls))


class Workload:
    """Creates and deletes pods; remembers each pod's last seen state."""

    def __init__(self, c, rng):
        self.c, self.rng = c, rng
        self.n = 0
        self.live = {}      # pod name -> delete-after time
        self.shared = {}    # claim name -> pods using it
        self.last = {}      # pod name -> (phase, scheduled condition, node)
        self.created = 0
        self.deleted = 0

    def create_one(self):
        self.n += 1
        kind = self.rng.choice(["whole-h100", "mig-h100", "mig-a100", "shared"])
        lifetime = self.rng.uniform(2, 12)
        if kind == "shared":
            claim = "shared-%d" % self.n
            code, _ = self.c.try_request(
                "POST", RESOURCE + "/namespaces/%s/resourceclaims" % NS,
                {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                 "metadata": {"name": claim, "namespace": NS},
                 "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                     "deviceClassName": "gpu.nvidia.com-a100-corrected"}}]}}})
            if code != 201:
                return
            names = ["%s-a" % claim, "%s-b" % claim]
            self.shared[claim] = names
            for name in names:
                self._create(name, {"resourceClaimName": claim}, lifetime)
        else:
            self._create("%s-%d" % (kind, self.n),
                         {"resourceClaimTemplateName": kind}, lifetime)

    def _create(self, name, source, lifetime):
        code, _ = self.c.try_request("POST", "/api/v1/namespaces/%s/pods" % NS,
                                     pod(name, source, {"soak": "1"}))
        if code == 201:
            self.live[name] = time.time() + lifetime
            self.created += 1

    def observe(self):
        code, lst = self.c.try_request("GET", "/api/v1/namespaces/%s/pods" % NS)
        if code != 200:
            return
        for p in lst["items"]:
            self._record(p)

    def _record(self, p):
        conds = {x["type"]: x for x in p.get("status", {}).get("conditions", [])}
        sched = conds.get("PodScheduled", {})
        rec = self.last.setdefault(p["metadata"]["name"], {})
        phase = p.get("status", {}).get("phase")
        node = p["spec"].get("nodeName", "")
        if node and "bound_at" not in rec:
            rec["bound_at"] = time.time()
        rec.update(phase=phase, ran=rec.get("ran", False) or phase == "Running",
                   scheduled=sched.get("status"), why=sched.get("message", ""),
                   node=node)

    def delete_due(self, now, everything=False):
        for name, due in list(self.live.items()):
            if everything or due <= now:
                # The state a pod is deleted in is read just before: the last
                # list may predate a server restart.
                code, p = self.c.try_request(
                    "GET", "/api/v1/namespaces/%s/pods/%s" % (NS, name))
                if code == 200:
                    self._record(p)
                code, _ = self.c.try_request(
                    "DELETE", "/api/v1/namespaces/%s/pods/%s" % (NS, name))
                if code in (200, 404):
                    del self.live[name]
                    self.deleted += 1
                    self.last.setdefault(name, {})["deleted_at"] = now
        for claim, names in list(self.shared.items()):
            if not any(n in self.live for n in names):
                code, _ = self.c.try_request(
                    "DELETE", RESOURCE + "/namespaces/%s/resourceclaims/%s" % (NS, claim))
                if code in (200, 404):
                    del self.shared[claim]


def fault_plan(duration):
    """(seconds into the run, fault) pairs, each kind at least once.

    The faults rotate every eighth of the run. A run of two hours or more
    restarts the server only in its first (duration - 2 h), twice, so that
    the server's last life spans two hours and its RSS growth after its
    first hour is measured; the node faults go on for the whole run.
    """
    long_run = duration >= LONG_LIFE_SECONDS
    kinds = (["kill-node-agent", "lose-node"] if long_run else
             ["restart-server", "kill-node-agent", "lose-node"])
    plan = []
    period = max(duration / 4, 60)
    t = period * 0.5
    i = 0
    while t < duration - 30:
        plan.append((t, kinds[i % len(kinds)]))
        i += 1
        t += period / 2
    if long_run:
        window = max(duration - LONG_LIFE_SECONDS, 60)
        plan += [(window / 3, "restart-server"), (window * 2 / 3, "restart-server")]
        plan.sort()
    return plan


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draplane", default=os.path.join(
        ROOT, "build", "release", "src", "cmd", "draplane"))
    ap.add_argument("--hours", type=float, default=5 / 60)
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--keep", action="store_true", help="keep the work folder")
    args = ap.parse_args()
    rng = random.Random(args.seed)
    work = tempfile.mkdtemp(prefix="draplane-soak-")
    c = Cluster(args.draplane, work)
    results = {"passed": 0, "failed": 0}
    summary = {"seconds": args.hours * 3600, "seed": args.seed, "faults": []}

    def check(ok, what):
        results["passed" if ok else "failed"] += 1
        print(("PASS " if ok else "FAIL ") + what, flush=True)

    try:
        c.start_server()
        setup(c)
        for node in NODES:
            c.start_node(node)
        time.sleep(5)
        w = Workload(c, rng)
        duration = args.hours * 3600
        start = time.time()
        plan = [(start + t, kind) for t, kind in fault_plan(duration)]
        lost = None  # (node, back_at)
        last_sample = 0
        while time.time() - start < duration:
            now = time.time()
            if len(w.live) < 24:
                w.create_one()
            w.delete_due(now)
            w.observe()
            if plan and plan[0][0] <= now:
                _, kind = plan.pop(0)
                if kind == "restart-server":
                    c.server.kill(signal.SIGTERM)
                    c.start_server()
                    c.fault_window(None, now)
                elif kind == "kill-node-agent":
                    # While prepares are under way: right after new pods.
                    for _ in range(3):
                        w.create_one()
                    node = rng.choice(["node2", "node3"])
                    time.sleep(rng.uniform(0.05, 0.5))
                    killed = time.time()
                    c.nodes[node].kill()
                    c.start_node(node)
                    c.fault_window(node, killed)
                elif kind == "lose-node" and lost is None:
                    node = rng.choice(NODES)
                    c.nodes[node].kill()
                    lost = (node, now + 65, now)
                summary["faults"].append({"at": round(now - start, 1), "fault": kind})
            if lost and lost[1] <= now:
                c.start_node(lost[0])
                c.fault_window(lost[0], lost[2])
                lost = None
            if now - last_sample >= 10:
                last_sample = now
                c.server.sample()
                for p in c.nodes.values():
                    p.sample()
            time.sleep(0.3)
        if lost:
            c.start_node(lost[0])
            c.fault_window(lost[0], lost[2])
        # Settle: delete everything, wait for the claims to go.
        w.delete_due(time.time(), everything=True)
        settled = False
        deadline = time.time() + 180
        while time.time() < deadline:
            w.delete_due(time.time(), everything=True)
            code, claims = c.try_request("GET", RESOURCE + "/namespaces/%s/resourceclaims" % NS)
            code2, pods = c.try_request("GET", "/api/v1/namespaces/%s/pods" % NS)
            if code == 200 and code2 == 200 and not claims["items"] and not pods["items"]:
                settled = True
                break
            time.sleep(1)
        summary.update(pods_created=w.created, pods_deleted=w.deleted)
        check(settled, "settled: every soak pod and claim gone after the churn stopped")
        code, allclaims = c.request("GET", RESOURCE + "/resourceclaims")
        allocated = [x["metadata"]["name"] for x in allclaims["items"]
                     if x.get("status", {}).get("allocation")]
        check(not allocated, "no claim left allocated (0 leaked devices): %s" % allocated[:5])
        time.sleep(5)  # the nodes' unprepares of the last pods
        leftovers = []
        for node in NODES:
            cdi = os.path.join(c.node_root(node), node, "cdi")
            files = os.listdir(cdi) if os.path.isdir(cdi) else []
            leftovers += ["%s: cdi %s" % (node, f) for f in files]
            cp = os.path.join(c.node_root(node), node, "plugins", "gpu.nvidia.com",
                              "checkpoint.json")
            if os.path.exists(cp):
                with open(cp) as f:
                    claims = json.load(f)["data"]["claims"]
                leftovers += ["%s: checkpoint %s" % (node, u) for u in claims]
        check(not leftovers, "no CDI spec or checkpoint entry left on any node: %s" %
              leftovers[:5])
        # A pod that never ran is explained when the scheduler said why it
        # was pending, when it was bound shortly before its deletion, or
        # when its node (or the server) was down or settling after a fault
        # while it was bound.
        ran, pending, young, down, unexplained = 0, 0, 0, 0, []
        for n, s in w.last.items():
            bound_at, deleted_at = s.get("bound_at"), s.get("deleted_at", time.time())
            if s.get("ran"):
                ran += 1
            elif s.get("scheduled") == "False" and not s.get("node"):
                pending += 1
            elif s.get("node") and deleted_at - bound_at <= START_SECONDS:
                young += 1
            elif s.get("node") and c.was_down(s["node"], bound_at, deleted_at):
                down += 1
            else:
                unexplained.append((n, {k: v for k, v in s.items() if k != "why"}))
        summary.update(pods_ran=ran, pods_pending_with_reason=pending,
                       pods_bound_shortly_before_deletion=young,
                       pods_bound_to_a_node_down=down, pods_unexplained=len(unexplained))
        check(not unexplained, "every pod's last state explained (ran %d, pending with a "
              "reason %d, bound under %d s before deletion %d, bound while its node or "
              "the server was down %d): %s" %
              (ran, pending, START_SECONDS, young, down, unexplained[:5]))
        c.server.sample()
        for p in c.nodes.values():
            p.sample()
        growth = {}
        for p in [c.server] + list(c.nodes.values()):
            lives = p.lives + [(time.time() - p.started, p.samples)]
            for seconds, samples in lives:
                after_hour = [k for s, k in samples if s >= 3600]
                if seconds >= LONG_LIFE_SECONDS and len(after_hour) >= 2:
                    growth[p.name] = (after_hour[-1] - after_hour[0]) / after_hour[0]
            summary.setdefault("rss_kib_last", {})[p.name] = (
                p.samples[-1][1] if p.samples else None)
        summary["rss_growth_after_first_hour"] = growth
        if duration >= LONG_LIFE_SECONDS:
            check("server" in growth, "the server's last life lasted 2 hours and its "
                  "RSS after its first hour was sampled")
        if growth:
            check(all(g < 0.05 for g in growth.values()),
                  "RSS growth after the first hour under 5 %%: %s" % growth)
        else:
            print("SKIP RSS growth: no process lived 2 hours in this run")
    finally:
        for p in list(c.nodes.values()):
            p.kill(signal.SIGTERM)
        c.server.kill(signal.SIGTERM)
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("work folder:", work)
    print(json.dumps(summary, indent=1))
    print("soak: %d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
