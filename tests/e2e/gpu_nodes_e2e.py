#!/usr/bin/env python3
"""End-to-end: simulated GPU nodes, the guide's workloads, a node failure.

Starts `draplane server --nodes` with three of the four nodes of
examples/standalone/inventory.yaml in-process and the fourth (node3, the
A100 MIG node) as its own `draplane node --backend fake --simulate-kubelet`
process, applies the guide's manifests as printed and as corrected
(examples/standalone/guide-corrected) with the real kubectl, and checks:
slices as NVIDIA's driver publishes them, the corrected workloads Running
on the expected devices with their CDI specs written, the originals
pending with their explanations; then kills node3 (SIGKILL) and checks the
node lifecycle (Unknown, unreachable taint, eviction, claims released) and
the recovery when node3 comes back (Ready, taints gone, replacement pods
Running on it, exactly their CDI specs on disk).

  tests/e2e/gpu_nodes_e2e.py --draplane build/release/src/cmd/draplane \
      [--kubectl build/kubectl] [--seed ../shared/seed/manifests]

Prints one line per check and a closing "N passed, N failed" line.
"""

import argparse
import json
import os
import signal
import subprocess
import sys
import time
import traceback

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kubectl_e2e  # noqa: E402
from kubectl_e2e import Failure, Skip, expect, expect_in  # noqa: E402

ROOT = kubectl_e2e.ROOT
INVENTORY = os.path.join(ROOT, "examples", "standalone", "inventory.yaml")
CORRECTED = os.path.join(ROOT, "examples", "standalone", "guide-corrected")
EXTERNAL = "node3"


def wait_for(what, predicate, timeout=60, interval=0.25):
    deadline = time.time() + timeout
    last = None
    while time.time() < deadline:
        try:
            last = predicate()
            if last:
                return last
        except Failure as e:
            last = e
        time.sleep(interval)
    raise Failure("timed out after %ds waiting for %s (last: %s)" %
                  (timeout, what, last))


class NodesEnv(kubectl_e2e.Env):
    """The server with in-process nodes, plus one node as a process."""

    def start(self):
        # The in-process nodes: the inventory without the external one.
        with open(INVENTORY) as f:
            text = f.read()
        lines, skip = [], False
        for line in text.splitlines():
            if line.startswith("- name: "):
                skip = line.strip() == "- name: " + EXTERNAL
            if not skip:
                lines.append(line)
        self.inventory = os.path.join(self.dir, "inventory.yaml")
        with open(self.inventory, "w") as f:
            f.write("\n".join(lines) + "\n")
        self.extra_args = ["--nodes", self.inventory,
                           "--node-monitor-grace-period", "4",
                           "--default-unreachable-toleration-seconds", "2"]
        super().start()
        self.node = None
        self.node_log = open(os.path.join(self.dir, "node3.log"), "a")

    def server_args(self):
        return self.extra_args

    def start_node(self):
        self.node = subprocess.Popen(
            [self.draplane, "node", "--backend", "fake", "--inventory",
             INVENTORY, "--node-name", EXTERNAL, "--simulate-kubelet",
             "--simulate-root", os.path.join(self.dir, EXTERNAL),
             "--heartbeat-seconds", "1", "--kubeconfig", self.kubeconfig],
            stdout=self.node_log, stderr=self.node_log)

    def kill_node(self):
        self.node.send_signal(signal.SIGKILL)
        self.node.wait()

    def stop(self):
        if self.node and self.node.poll() is None:
            self.node.send_signal(signal.SIGTERM)
            self.node.wait(timeout=20)
        return super().stop()

    def cdi_dir(self, node):
        if node == EXTERNAL:
            return os.path.join(self.dir, EXTERNAL, EXTERNAL, "cdi")
        return os.path.join(self.dir, "data", "nodes", node, "cdi")


def pods(e, selector=None):
    args = ["get", "pods", "-n", "ml-workloads"]
    if selector:
        args += ["-l", selector]
    return e.kjson(*args)["items"]


def node_ready(e, name):
    node = e.kjson("get", "node", name)
    for c in node["status"].get("conditions", []):
        if c["type"] == "Ready":
            return c["status"]
    return None


def taints(e, name):
    node = e.kjson("get", "node", name)
    return {t["key"] for t in node["spec"].get("taints", [])}


def cdi_files(e, node):
    d = e.cdi_dir(node)
    return sorted(f for f in os.listdir(d) if f.endswith(".json")) \
        if os.path.isdir(d) else []


# ---------------------------------------------------------------- checks

def check_nodes_and_slices(e):
    e.start_node()
    for n in ("node1", "node2", "node3", "node4"):
        wait_for("node %s Ready" % n, lambda n=n: node_ready(e, n) == "True")
    devices = {}

    def count():
        devices.clear()
        for s in e.kjson("get", "resourceslices")["items"]:
            devices[s["spec"]["nodeName"]] = devices.get(
                s["spec"]["nodeName"], 0) + len(s["spec"].get("devices", []))
        return devices.get("node3") == 75
    wait_for("node3's slices", count)
    # 4 whole A100s; 8 H100s and 8 H200s with 26 devices each (the whole
    # GPU and 25 MIG placements); 3 A100s in MIG mode with 25 each.
    expect(devices == {"node1": 4, "node2": 208, "node3": 75, "node4": 208},
           devices)
    slices = e.kjson("get", "resourceslices")["items"]
    h100 = [s for s in slices if s["spec"]["nodeName"] == "node2"]
    counters = [s for s in h100 if s["spec"].get("sharedCounters")]
    expect(len(counters) == 1 and len(counters[0]["spec"]["sharedCounters"]) == 8,
           "one slice with the 8 H100 counter sets")
    names = {d["name"] for s in h100 for d in s["spec"].get("devices", [])}
    expect_in("gpu-7-mig-1g10gb-me-20-6", names, "H100 MIG device names")
    h200 = {d["attributes"]["profile"]["string"]
            for s in slices if s["spec"]["nodeName"] == "node4"
            for d in s["spec"].get("devices", []) if "profile" in d["attributes"]}
    expect(h200 == {"1g.18gb", "1g.18gb+me", "1g.35gb", "2g.35gb", "3g.71gb",
                    "4g.71gb", "7g.141gb"}, h200)


def check_seed_and_corrected_workloads(e):
    e.k("create", "namespace", "ml-workloads")
    for f in ("02-deviceclasses.yaml", "03-resourceclaim-and-pod.yaml",
              "04-mig-inference-deployment.yaml", "05-inline-request-pod.yaml"):
        try:
            e.k("apply", "-f", e.seed_file(f))
        except Skip:
            pass
    e.k("apply", "-f", CORRECTED)
    e.k("wait", "--for=condition=Ready", "--timeout=60s", "-n", "ml-workloads",
        "pod/distributed-training-corrected", "pod/quick-gpu-job-corrected")
    e.k("rollout", "status", "-n", "ml-workloads", "--timeout=60s",
        "deployment/llm-inference-service-corrected")
    claim = e.kjson("get", "resourceclaim", "-n", "ml-workloads",
                    "training-gpu-claim-corrected")
    results = claim["status"]["allocation"]["devices"]["results"]
    expect(sorted(r["device"] for r in results) ==
           ["gpu-0", "gpu-1", "gpu-2", "gpu-3"] and
           all(r["pool"] == "node1" for r in results), results)
    mig = pods(e, "app=llm-inference-corrected")
    expect(len(mig) == 6 and all(p["spec"]["nodeName"] == EXTERNAL
                                 for p in mig), "six replicas on node3")
    placements = set()
    for c in e.kjson("get", "resourceclaims", "-n", "ml-workloads")["items"]:
        if c["metadata"]["name"].startswith("llm-inference-service-corrected"):
            for r in c["status"]["allocation"]["devices"]["results"]:
                placements.add(r["device"])
    expect(len(placements) == 6 and
           all("-mig-3g40gb-9-" in d for d in placements), placements)


def check_cdi_specs_match_pods(e):
    files = cdi_files(e, EXTERNAL)
    expect(len(files) == 6, "node3 CDI specs: %s" % files)
    for p in pods(e, "app=llm-inference-corrected"):
        ids = json.loads(p["metadata"]["annotations"]["dra.draplane.io/cdi-devices"])
        (device_id,) = ids["inference-server"]
        expect(device_id.startswith("k8s.gpu.nvidia.com/claim="), device_id)
        name = device_id.split("=", 1)[1]
        uid = name[:36]
        path = os.path.join(e.cdi_dir(EXTERNAL),
                            "k8s.gpu.nvidia.com-claim_%s.json" % uid)
        with open(path) as f:
            spec = json.load(f)
        expect(spec["kind"] == "k8s.gpu.nvidia.com/claim", spec["kind"])
        expect([d["name"] for d in spec["devices"]] == [name], spec["devices"])
        expect(spec["cdiVersion"] in ("0.5.0", "0.6.0"), spec["cdiVersion"])
    expect(len(cdi_files(e, "node1")) == 1, "node1's training claim spec")


def check_originals_explained(e):
    e.seed_file("03-resourceclaim-and-pod.yaml")

    def event(reason, name):
        for ev in e.kjson("get", "events", "-n", "ml-workloads")["items"]:
            if ev["reason"] == reason and ev["involvedObject"]["name"] == name:
                return ev["message"]
        return None
    msg = wait_for("FailedScheduling of distributed-training",
                   lambda: event("FailedScheduling", "distributed-training"))
    expect_in("nvlinkInterconnect", msg)
    msg = wait_for("FailedPrepareDynamicResources of quick-gpu-job",
                   lambda: event("FailedPrepareDynamicResources", "quick-gpu-job"))
    expect_in('unsupported apiVersion "gpu.nvidia.com/v1alpha1"', msg)
    # The guide's plugin error metric counts those failed prepares.
    node = e.kjson("get", "pod", "quick-gpu-job", "-n",
                   "ml-workloads")["spec"]["nodeName"]
    metrics = e.k("get", "--raw", "/metrics").stdout
    line = [l for l in metrics.splitlines() if l.startswith(
        'dra_plugin_errors_total{driver="gpu.nvidia.com",node="%s"}' % node)]
    expect(line and float(line[0].split()[-1]) >= 1,
           "dra_plugin_errors_total for %s: %s" % (node, line))
    ev = wait_for("NoMatchingDevices", lambda: [
        x for x in e.kjson("get", "events", "-A")["items"]
        if x["reason"] == "NoMatchingDevices"])
    expect_in("gpu.nvidia.com-a100-mig-3g20gb",
              " ".join(x["involvedObject"]["name"] for x in ev))


def check_node_failure_and_recovery(e):
    before = {p["metadata"]["name"] for p in pods(e, "app=llm-inference-corrected")}
    e.kill_node()
    wait_for("node3 Unknown", lambda: node_ready(e, EXTERNAL) == "Unknown",
             timeout=30)
    wait_for("unreachable taint",
             lambda: "node.kubernetes.io/unreachable" in taints(e, EXTERNAL))
    # Evicted after the 2 s toleration; the Deployment replaces them, and
    # the replacements wait: no other node has A100s in MIG mode.
    wait_for("evictions", lambda: not before & {
        p["metadata"]["name"] for p in pods(e, "app=llm-inference-corrected")},
        timeout=30)
    wait_for("claims of evicted pods released", lambda: not [
        c for c in e.kjson("get", "resourceclaims", "-n", "ml-workloads")["items"]
        if c["metadata"]["name"].startswith("llm-inference-service-corrected") and
        c.get("status", {}).get("allocation")])
    replacements = pods(e, "app=llm-inference-corrected")
    expect(len(replacements) == 6 and not any(
        p["status"].get("phase") == "Running" for p in replacements),
        "replacements pending")
    # Recovery.
    e.start_node()
    wait_for("node3 Ready", lambda: node_ready(e, EXTERNAL) == "True", timeout=30)
    wait_for("taints removed", lambda: not taints(e, EXTERNAL) & {
        "node.kubernetes.io/unreachable", "node.kubernetes.io/not-ready"},
        timeout=30)
    e.k("rollout", "status", "-n", "ml-workloads", "--timeout=90s",
        "deployment/llm-inference-service-corrected", timeout=120)
    running = pods(e, "app=llm-inference-corrected")
    expect(all(p["spec"]["nodeName"] == EXTERNAL for p in running), "on node3")
    # Exactly the replacements' specs: the restarted node (a new boot of
    # its simulated GPUs) dropped the evicted pods' ones.
    wait_for("six CDI specs on node3", lambda: len(cdi_files(e, EXTERNAL)) == 6)


CHECKS = [
    check_nodes_and_slices,
    check_seed_and_corrected_workloads,
    check_cdi_specs_match_pods,
    check_originals_explained,
    check_node_failure_and_recovery,
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--draplane", required=True)
    ap.add_argument("--kubectl")
    ap.add_argument("--seed", default=os.path.join(
        os.environ.get("DRAPLANE_SHARED_DIR", os.path.join(ROOT, "..", "shared")),
        "seed", "manifests"))
    args = ap.parse_args()
    kubectl = kubectl_e2e.find_kubectl(args.kubectl)
    e = NodesEnv(os.path.abspath(args.draplane), kubectl, args.seed)
    return run_in_order(e, CHECKS, ("server.log", "node3.log"))


def run_in_order(e, checks, logs):
    """Starts `e`, runs `checks` until the first failure (later checks
    build on earlier ones), stops `e`, prints the logs' tails on failure
    and a "N passed, N failed, N skipped" line. Returns the exit status."""
    passed = failed = skipped = 0
    try:
        e.start()
        for check in checks:
            try:
                check(e)
                print("PASS", check.__name__)
                passed += 1
            except Skip as s:
                print("SKIP", check.__name__, "-", s)
                skipped += 1
            except Exception as ex:  # noqa: BLE001
                print("FAIL", check.__name__, "-", ex)
                traceback.print_exc()
                failed += 1
                break
    finally:
        rc = e.stop()
        if rc not in (0, None):
            print("FAIL server exit status %s" % rc)
            failed += 1
    if failed:
        for log in logs:
            path = os.path.join(e.dir, log)
            if os.path.exists(path):
                print("---- %s (tail)" % log)
                print("".join(open(path).readlines()[-40:]))
    print("%d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
