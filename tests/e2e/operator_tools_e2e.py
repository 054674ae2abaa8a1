#!/usr/bin/env python3
"""End-to-end: the operator tools against `draplane server` with simulated
GPU nodes (examples/standalone/inventory.yaml), through a kubeconfig as an
operator runs them.

- migrate: the guide's extended-resource pod, migrated and applied with the
  real kubectl, runs on a GPU through the generated claim; migrating the
  output again changes nothing.
- inventory: the legacy pod of the guide still using nvidia.com/gpu, the
  published devices by model, class and claim counts (-o json).
- explain: the guide's distributed-training pod pending, with the
  allocator's reasons per node (the NVLink attribute nobody publishes).
- doctor: finds the seeded problems (the guide's DeviceClass that matches
  nothing, the plugin errors of its v1alpha1 config, a pending
  claim no pod uses), exits 3, and gives a fix for each.

  tests/e2e/operator_tools_e2e.py --draplane build/release/src/cmd/draplane \
      [--kubectl build/kubectl] [--seed ../shared/seed/manifests]
"""

import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_nodes_e2e  # noqa: E402
import kubectl_e2e  # noqa: E402
from kubectl_e2e import Failure, expect, expect_in  # noqa: E402

ROOT = kubectl_e2e.ROOT
INVENTORY = os.path.join(ROOT, "examples", "standalone", "inventory.yaml")
CORRECTED = os.path.join(ROOT, "examples", "standalone", "guide-corrected")
wait_for = gpu_nodes_e2e.wait_for


class ToolsEnv(kubectl_e2e.Env):
    def server_args(self):
        return ["--nodes", INVENTORY]

    def draplane_cmd(self, *args, input=None, expect_rc=0):
        p = subprocess.run([self.draplane] + list(args) +
                           (["--kubeconfig", self.kubeconfig]
                            if args[0] in ("inventory", "explain", "doctor")
                            else []),
                           input=input, capture_output=True, text=True,
                           timeout=60)
        if expect_rc is not None and p.returncode != expect_rc:
            raise Failure("draplane %s: exit %d (want %d)\n%s%s" % (
                " ".join(args), p.returncode, expect_rc, p.stdout, p.stderr))
        return p


def check_setup(e):
    for n in ("node1", "node2", "node3", "node4"):
        wait_for("node %s Ready" % n,
                 lambda n=n: gpu_nodes_e2e.node_ready(e, n) == "True")
    e.k("create", "namespace", "ml-workloads")
    for f in ("02-deviceclasses.yaml", "03-resourceclaim-and-pod.yaml",
              "05-inline-request-pod.yaml", "01-legacy-extended-resource-pod.yaml"):
        e.k("apply", "-f", e.seed_file(f))
    e.k("apply", "-f", os.path.join(CORRECTED, "02-deviceclasses.yaml"))


def check_migrate_seed_pod(e):
    legacy = e.seed_file("01-legacy-extended-resource-pod.yaml")
    p = e.draplane_cmd("migrate", "-f", legacy)
    out = p.stdout
    expect_in("kind: ResourceClaimTemplate", out, "template emitted")
    expect_in("resourceClaimTemplateName: nvidia-gpu-2", out, "pod claim")
    expect("nvidia.com/gpu: 2" not in out, "extended resource removed")
    again = e.draplane_cmd("migrate", "-f", "-", input=out)
    expect(again.stdout == out, "migrating the output changes nothing")
    # The migrated pod, renamed beside the legacy one, runs on 2 GPUs of
    # the class the guide's nodes publish.
    migrated = out.replace("name: gpu-training-legacy",
                           "name: gpu-training-migrated")
    e.k("apply", "-n", "ml-workloads", "-f", "-", input=migrated)
    wait_for("the migrated pod Running", lambda: e.kjson(
        "get", "pod", "-n", "ml-workloads", "gpu-training-migrated")
        ["status"].get("phase") == "Running")
    claims = e.kjson("get", "resourceclaims", "-n", "ml-workloads")["items"]
    mine = [c for c in claims if c["metadata"]["name"].startswith(
        "gpu-training-migrated-gpu-")]
    expect(len(mine) == 1, "one claim generated for the migrated pod")
    results = mine[0]["status"]["allocation"]["devices"]["results"]
    expect(len(results) == 2, "two GPUs allocated: %s" % results)


def check_inventory(e):
    text = e.draplane_cmd("inventory").stdout
    expect_in("gpu-training-legacy", text, "legacy pod listed")
    expect_in("NVIDIA H200", text, "H200 model listed")
    inv = json.loads(e.draplane_cmd("inventory", "-o", "json").stdout)
    pods = {p["name"]: p for p in inv["extendedResourcePods"]}
    expect("gpu-training-legacy" in pods, "legacy pod in JSON")
    expect(pods["gpu-training-legacy"]["resources"] == "nvidia.com/gpu=2",
           pods["gpu-training-legacy"])
    models = {(d["model"]): d for d in inv["devices"]}
    expect(models["NVIDIA A100 80GB PCIe"]["devices"] == 4, models.keys())
    expect(models["NVIDIA H100 80GB HBM3"]["devices"] == 8, "8 H100")
    classes = {c["name"]: c for c in inv["deviceClasses"]}
    expect(classes["gpu.nvidia.com-a100-mig-3g20gb"]["selected"] == 0,
           "the guide's 3g.20gb class selects nothing")
    expect(classes["gpu.nvidia.com-h100"]["selected"] > 0, "h100 class")
    ml = [c for c in inv["claims"] if c["namespace"] == "ml-workloads"]
    expect(ml and ml[0]["pending"] >= 1, "the training claim pending: %s" % ml)


def check_explain(e):
    out = e.draplane_cmd("explain", "pod", "distributed-training", "-n",
                         "ml-workloads").stdout
    expect_in("pod ml-workloads/distributed-training: Pending", out, "state")
    expect_in("nvlinkInterconnect", out, "the constraint nobody can meet")
    expect_in("0/4 nodes fit", out, "every node explained")
    one = json.loads(e.draplane_cmd(
        "explain", "claim", "training-gpu-claim", "-n", "ml-workloads",
        "--node", "node1", "-o", "json").stdout)
    expect(len(one["nodes"]) == 1 and one["nodes"][0]["node"] == "node1",
           one["nodes"])
    req = one["nodes"][0]["claims"][0]["requests"][0]
    expect(req["offered"] == 4, req)
    missing = e.draplane_cmd("explain", "pod", "nope", "-n", "ml-workloads",
                             expect_rc=1)
    expect_in('pods "nope" not found', missing.stderr, "NotFound")


def check_doctor(e):
    # A claim no pod uses stays pending. (Leaks are seeded in the
    # operator_tools_test cluster: here draplane's controller releases
    # them before doctor could look.)
    e.k("apply", "-n", "ml-workloads", "-f", "-", input=json.dumps({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "unused", "namespace": "ml-workloads"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
            "deviceClassName": "gpu.nvidia.com-h100-corrected"}}]}}}))
    wait_for("the quick job's failures",
             lambda: "FailedPrepareDynamicResources" in e.k(
                 "get", "events", "-n", "ml-workloads").stdout, timeout=60)
    p = e.draplane_cmd("doctor", "--pending-threshold", "0s", "-o", "json",
                       expect_rc=3)
    checks = {c["id"]: c for c in json.loads(p.stdout)["checks"]}
    expect(checks["dra-api"]["status"] == "ok", checks["dra-api"])
    objects = {c: [f["object"] for f in checks[c]["findings"]] for c in checks}
    expect("deviceclass gpu.nvidia.com-a100-mig-3g20gb" in
           objects["device-classes"], objects["device-classes"])
    for claim in ("training-gpu-claim", "unused"):
        expect("resourceclaim ml-workloads/" + claim in
               objects["pending-claims"], objects["pending-claims"])
    unused = [f for f in checks["pending-claims"]["findings"]
              if f["object"].endswith("/unused")][0]
    expect_in("no pod uses it", unused["message"], "why unused is pending")
    expect(any(o.startswith("node ") for o in objects["plugin-errors"]),
           objects["plugin-errors"])
    for c in checks.values():
        for f in c["findings"]:
            expect(f["fix"], "finding without a fix: %s" % f)
    text = e.draplane_cmd("doctor", expect_rc=3).stdout
    expect_in("[ok] dra-api", text, "table output")
    expect_in("fix: ", text, "fixes shown")


CHECKS = [
    check_setup,
    check_migrate_seed_pod,
    check_inventory,
    check_explain,
    check_doctor,
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--draplane", required=True)
    ap.add_argument("--kubectl")
    ap.add_argument("--seed", default=os.path.join(
        os.environ.get("DRAPLANE_SHARED_DIR", os.path.join(ROOT, "..", "shared")),
        "seed", "manifests"))
    args = ap.parse_args()
    if not os.path.isdir(args.seed):
        print("%s operator tools e2e: the guide's manifests are not at %s "
              "(set DRAPLANE_SHARED_DIR)"
              % ("FAIL" if os.environ.get("CI") == "true" else "SKIP", args.seed))
        return 1 if os.environ.get("CI") == "true" else 0
    kubectl = kubectl_e2e.find_kubectl(args.kubectl)
    e = ToolsEnv(os.path.abspath(args.draplane), kubectl, args.seed)
    return gpu_nodes_e2e.run_in_order(e, CHECKS, ("server.log",))


if __name__ == "__main__":
    sys.exit(main())
