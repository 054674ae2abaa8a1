#!/usr/bin/env python3
"""The Helm chart installed on the real kube-apiserver v1.37.2
(--authorization-mode=Node,RBAC), its components run with nothing but their
own ServiceAccounts:

  - `helm install draplane deploy/helm/draplane -n draplane-system
    --create-namespace` (helm v4.3.2, scripts/build-helm);
  - `kubectl auth can-i --as=system:serviceaccount:draplane-system:<sa>`
    says yes to what each component needs and no to a list of things it
    must not do;
  - the kubelet plugin's token bound to its Pod on node1 may write node1's
    ResourceSlice, and the ValidatingAdmissionPolicy refuses its write of
    node2's;
  - node1's kubelet plugin runs as a process with the DaemonSet's args
    (with kubeletPlugin.extraArgs selecting the fake GPU backend) and env,
    in cluster with its Pod-bound token, and publishes node1's GPUs;
  - the scheduler and the controller run as processes with exactly the
    args the chart renders, in-cluster (their ServiceAccount token, CA and
    namespace at /var/run/secrets/kubernetes.io/serviceaccount in a mount
    namespace, KUBERNETES_SERVICE_HOST/PORT): both become ready on their
    secure ports, take their Leases in draplane-system, the scheduler binds
    a pod and allocates a claim from the plugin's slices, and nothing they
    write is refused; a scheduler whose Lease is
    taken exits 1 and, restarted once the Lease is free, binds again;
  - `helm uninstall` removes every object of the chart (the Leases the
    components made and the ResourceSlice stay, as docs/deploy.md says).

Not here yet: preparing claims under a real kubelet, `helm upgrade` with
prepared claims.

  tests/e2e/chart_install_e2e.py --draplane build/release/src/cmd/draplane \
      --helm build/helm --kubectl build/kubectl [--bin build]
"""

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_mode_e2e  # noqa: E402
from kubectl_e2e import Failure  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHART = os.path.join(ROOT, "deploy", "helm", "draplane")
NS = "draplane-system"
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
results = {"passed": 0, "failed": 0}


def check(ok, what):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + what, flush=True)
    return ok


def wait_for(predicate, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.5)
    return False


class Cluster:
    def __init__(self, args, work):
        self.args, self.work = args, work
        self.server = k8s_mode_e2e.RealApiServer(
            args.bin, work, extra_args=["--allow-privileged=true"],
            authorization_mode="Node,RBAC")
        self.procs = {}

    def k(self, *args, check=True, token=None, input=None):
        kubeconfig = self.token_kubeconfig(token) if token else self.server.kubeconfig
        p = subprocess.run([self.args.kubectl, "--kubeconfig", kubeconfig] + list(args),
                           capture_output=True, text=True, input=input, timeout=60)
        if check and p.returncode != 0:
            raise Failure("kubectl %s: %s%s" % (" ".join(args), p.stdout, p.stderr))
        return p

    def token_kubeconfig(self, token):
        path = os.path.join(self.work, "token-%d.kubeconfig" % (hash(token) & 0xffff))
        with open(path, "w") as f:
            json.dump({"apiVersion": "v1", "kind": "Config", "current-context": "t",
                       "clusters": [{"name": "c", "cluster": {
                           "server": self.server.url,
                           "certificate-authority": self.server.pki_path("ca.crt")}}],
                       "contexts": [{"name": "t", "context": {"cluster": "c",
                                                              "user": "t"}}],
                       "users": [{"name": "t", "user": {"token": token}}]}, f)
        return path

    def helm(self, *args):
        return subprocess.run([self.args.helm, "--kubeconfig", self.server.kubeconfig] +
                              list(args), capture_output=True, text=True, timeout=180)

    def run_in_cluster(self, name, sa, argv, token=None, env_extra=None):
        """`draplane argv` with the in-cluster configuration of `sa` (or
        `token`), with tmpfs on /var/run and /var/lib (the kubelet's and
        CDI's directories of a node plugin)."""
        if token is None:
            token = self.k("create", "token", sa, "-n", NS, "--duration",
                           "1h").stdout.strip()
        files = os.path.join(self.work, "sa-" + name)
        os.makedirs(files, exist_ok=True)
        with open(self.server.pki_path("ca.crt")) as f:
            ca = f.read()
        for fname, text in (("token", token), ("ca.crt", ca), ("namespace", NS)):
            with open(os.path.join(files, fname), "w") as f:
                f.write(text)
        host, port = self.server.url[len("https://"):].rsplit(":", 1)
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG",)}
        env.update(HOME=files, KUBERNETES_SERVICE_HOST=host, KUBERNETES_SERVICE_PORT=port)
        env.update(env_extra or {})
        script = ("mount -t tmpfs tmpfs /var/run && mount -t tmpfs tmpfs /var/lib && "
                  "mkdir -p %s /var/lib/kubelet && "
                  "cp \"$1\"/token \"$1\"/ca.crt \"$1\"/namespace %s/ && "
                  "shift && exec \"$@\"" % (SA_DIR, SA_DIR))
        log = open(os.path.join(self.work, name + ".log"), "a")
        self.procs[name] = subprocess.Popen(
            ["unshare", "-Urm", "sh", "-c", script, "sh", files, self.args.draplane] + argv,
            env=env, stdout=log, stderr=log)
        return self.procs[name]

    def log(self, name):
        with open(os.path.join(self.work, name + ".log")) as f:
            return f.read()

    def stop(self):
        for p in self.procs.values():
            if p.poll() is None:
                p.send_signal(signal.SIGTERM)
                try:
                    p.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    p.kill()
        self.server.stop()


def rendered_args(manifest, name, kind="Deployment"):
    for doc in yaml.safe_load_all(manifest):
        if doc and doc["kind"] == kind and doc["metadata"]["name"] == name:
            return doc["spec"]["template"]["spec"]["containers"][0]["args"]
    raise Failure("no %s %s in the release" % (kind, name))


def can_i(c, sa, verb, resource, ns=None):
    resource, _, sub = resource.partition("/")
    if sub and resource != "leases":
        resource += " --subresource=" + sub
    elif sub:
        resource += "/" + sub  # a name
    args = ["auth", "can-i", verb] + resource.split() + [
            "--as", "system:serviceaccount:%s:%s" % (NS, sa)]
    args += ["-n", ns] if ns else ["--all-namespaces"]
    return c.k(*args, check=False).stdout.strip() == "yes"


# (ServiceAccount, verb, resource, namespace or None for all)
MUST = [
    ("draplane-scheduler", "create", "pods/binding", "default"),
    ("draplane-scheduler", "update", "resourceclaims/status", None),
    ("draplane-scheduler", "update", "resourceclaims/binding", None),
    ("draplane-scheduler", "watch", "resourceslices", None),
    ("draplane-scheduler", "update", "leases/draplane-scheduler", NS),
    ("draplane-scheduler", "create", "tokenreviews", None),
    ("draplane-controller", "list", "deviceclasses", None),
    ("draplane-controller", "create", "subjectaccessreviews", None),
    ("draplane-kubelet-plugin", "create", "resourceslices", None),
    ("draplane-kubelet-plugin", "get", "resourceclaims", "default"),
]
MUST_NOT = [
    ("draplane-scheduler", "list", "secrets", None),
    ("draplane-scheduler", "create", "pods", "default"),
    ("draplane-scheduler", "delete", "nodes", None),
    ("draplane-scheduler", "update", "resourceslices", None),
    ("draplane-scheduler", "create", "deviceclasses", None),
    ("draplane-scheduler", "update", "leases/kube-scheduler", "kube-system"),
    ("draplane-scheduler", "update", "leases/draplane-controller", NS),
    ("draplane-scheduler", "create", "clusterrolebindings", None),
    ("draplane-controller", "update", "resourceclaims", None),
    ("draplane-controller", "update", "resourceclaims/binding", None),
    ("draplane-controller", "delete", "pods", None),
    ("draplane-controller", "update", "nodes", None),
    ("draplane-controller", "create", "pods/binding", "default"),
    ("draplane-controller", "get", "secrets", "kube-system"),
    ("draplane-kubelet-plugin", "list", "secrets", None),
    ("draplane-kubelet-plugin", "update", "pods", None),
    ("draplane-kubelet-plugin", "patch", "nodes", None),
    ("draplane-kubelet-plugin", "update", "resourceclaims/status", None),
    ("draplane-kubelet-plugin", "update", "resourceclaims/binding", None),
    ("draplane-kubelet-plugin", "create", "pods/binding", "default"),
    ("draplane-kubelet-plugin", "update", "leases", NS),
]


def node(name):
    return {"apiVersion": "v1", "kind": "Node", "metadata": {"name": name}}


def slice_for(name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": "%s-gpu.nvidia.com" % name},
            "spec": {"driver": "gpu.nvidia.com", "nodeName": name,
                     "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0"}]}}


def test(c, args):
    free = k8s_mode_e2e.free_port
    ports = {"scheduler": free(), "controller": free(), "plugin": free()}
    # The kubelet plugin with the fake GPU backend (node1 of the example
    # inventory: 4 x A100).
    p = c.helm("install", "draplane", CHART, "-n", NS, "--create-namespace",
               "--set", "scheduler.securePort=%d" % ports["scheduler"],
               "--set", "controller.securePort=%d" % ports["controller"],
               "--set", "kubeletPlugin.healthcheckPort=%d" % ports["plugin"],
               "--set", "kubeletPlugin.extraArgs={--backend=fake,--inventory=%s}" %
               k8s_mode_e2e.INVENTORY, "--wait=false")
    if not check(p.returncode == 0, "helm install: exit %d %s%s" %
                 (p.returncode, p.stdout[-500:], p.stderr[-1500:])):
        return
    manifest = c.helm("get", "manifest", "draplane", "-n", NS).stdout

    wrong = [m for m in MUST if not can_i(c, *m)]
    check(not wrong, "each component may do what it needs: missing %s" % wrong)
    allowed = [m for m in MUST_NOT if can_i(c, *m)]
    check(not allowed, "no component may do what it must not: allowed %s" % allowed)

    # The kubelet plugin's token bound to its Pod on node1.
    for n in ("node1", "node2"):
        c.k("apply", "-f", "-", input=json.dumps(node(n)))
    c.k("apply", "-f", "-", input=json.dumps({
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "plugin-node1", "namespace": NS},
        "spec": {"nodeName": "node1", "serviceAccountName": "draplane-kubelet-plugin",
                 "containers": [{"name": "plugin", "image": "draplane"}]}}))
    token = c.k("create", "token", "draplane-kubelet-plugin", "-n", NS,
                "--bound-object-kind", "Pod", "--bound-object-name",
                "plugin-node1").stdout.strip()
    own = c.k("create", "-f", "-", token=token, check=False,
              input=json.dumps(slice_for("node1")))
    check(own.returncode == 0, "the plugin on node1 writes node1's slice: %s%s" %
          (own.stdout, own.stderr))
    other = c.k("create", "-f", "-", token=token, check=False,
                input=json.dumps(slice_for("node2")))
    check(other.returncode != 0 and
          "may not modify the ResourceSlices of node 'node2'" in other.stderr,
          "the policy refuses node2's slice to node1's plugin: %s" % other.stderr.strip())

    # The kubelet plugin of node1, in cluster with its Pod-bound token and
    # the chart's args and env: it publishes node1's GPUs.
    c.run_in_cluster("plugin", "draplane-kubelet-plugin",
                     rendered_args(manifest, "draplane-kubelet-plugin", "DaemonSet"),
                     token=token, env_extra={"NODE_NAME": "node1", "POD_NAMESPACE": NS})

    def gpus():
        out = c.k("get", "resourceslices", "-o", "json", check=False).stdout
        return sum(len(s["spec"].get("devices", []))
                   for s in json.loads(out or '{"items":[]}')["items"]
                   if s["spec"].get("nodeName") == "node1" and
                   any(d["name"].startswith("gpu-") and d["name"] != "gpu-0"
                       for d in s["spec"].get("devices", [])))
    check(wait_for(lambda: gpus() > 0, 60),
          "the plugin publishes node1's GPUs under its own rights (%s)" %
          c.log("plugin")[-600:])

    # The scheduler and the controller, in cluster, with the chart's args.
    sched_args = rendered_args(manifest, "draplane-scheduler")
    ctrl_args = rendered_args(manifest, "draplane-controller")
    c.run_in_cluster("scheduler", "draplane-scheduler", sched_args)
    c.run_in_cluster("controller", "draplane-controller", ctrl_args)
    for name in ("scheduler", "controller"):
        ready = wait_for(lambda: k8s_mode_e2e._https(ports[name], "/readyz")[0] == 200, 60)
        check(ready, "%s ready on its secure port (%s)" % (name, c.log(name)[-800:]))
        holder = wait_for(lambda: c.k(
            "get", "lease", "-n", NS, "draplane-" + name, "-o",
            "jsonpath={.spec.holderIdentity}", check=False).stdout != "", 30)
        check(holder, "%s holds its Lease in %s" % (name, NS))
    # A node the scheduler can place a pod on.
    c.k("patch", "node", "node1", "--subresource", "status", "--type", "merge", "-p",
        json.dumps({"status": {"allocatable": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                               "capacity": {"cpu": "8", "memory": "32Gi", "pods": "110"},
                               "conditions": [{"type": "Ready", "status": "True",
                                               "reason": "KubeletReady",
                                               "message": "e2e"}]}}))
    # kube-apiserver's TaintNodesByCondition admission taints new Nodes
    # not-ready; no node lifecycle controller runs here to lift it.
    c.k("taint", "node", "node1", "node.kubernetes.io/not-ready:NoSchedule-")

    def pod(name):
        return json.dumps({"apiVersion": "v1", "kind": "Pod",
                           "metadata": {"name": name, "namespace": "default"},
                           "spec": {"schedulerName": "draplane",
                                    "containers": [{"name": "c", "image": "x"}]}})

    def bound(name):
        return c.k("get", "pod", name, "-o", "jsonpath={.spec.nodeName}",
                   check=False).stdout == "node1"
    c.k("apply", "-f", "-", input=pod("first"))
    check(wait_for(lambda: bound("first"), 60),
          "the scheduler binds a pod with its own rights: %s" %
          c.k("get", "pod", "first", "-o", "jsonpath={.status}", check=False).stdout)

    # The lost lease: exit 1; restarted once the Lease is free, it binds
    # again.
    c.k("patch", "lease", "-n", NS, "draplane-scheduler", "--type", "merge", "-p",
        '{"spec":{"holderIdentity":"intruder","leaseDurationSeconds":3600}}')
    proc = c.procs["scheduler"]
    check(wait_for(lambda: proc.poll() is not None, 60) and proc.returncode == 1 and
          "Leaderelection lost" in c.log("scheduler"),
          "a scheduler whose Lease is taken exits 1 (%s)" % proc.returncode)
    c.k("delete", "lease", "-n", NS, "draplane-scheduler")
    c.run_in_cluster("scheduler", "draplane-scheduler", sched_args)
    c.k("apply", "-f", "-", input=pod("second"))
    check(wait_for(lambda: bound("second"), 60), "restarted, it binds again")

    # A claim on node1's published GPUs: allocated and the pod bound.
    c.k("apply", "-f", "-", input=json.dumps({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": "one-gpu", "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
            "deviceClassName": "gpu.nvidia.com"}}]}}}))
    claim_pod = json.loads(pod("with-gpu"))
    claim_pod["spec"]["resourceClaims"] = [{"name": "gpu",
                                            "resourceClaimName": "one-gpu"}]
    claim_pod["spec"]["containers"][0]["resources"] = {"claims": [{"name": "gpu"}]}
    c.k("apply", "-f", "-", input=json.dumps(claim_pod))
    check(wait_for(lambda: bound("with-gpu"), 60) and c.k(
        "get", "resourceclaim", "one-gpu", "-o",
        "jsonpath={.status.allocation.devices.results[0].pool}").stdout == "node1",
        "a claim allocated from the plugin's slices and its pod bound: %s %s" %
        (c.k("get", "resourceclaim", "one-gpu", "-o", "jsonpath={.status}",
             check=False).stdout,
         c.k("get", "pod", "with-gpu", "-o", "jsonpath={.status}", check=False).stdout))

    refused = [line for name in ("scheduler", "controller", "plugin")
               for line in c.log(name).splitlines()
               if k8s_mode_e2e.API_ERRORS.search(line)]
    check(not refused, "nothing the components wrote was refused: %s" % refused[:5])

    for p in c.procs.values():
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=20)
    p = c.helm("uninstall", "draplane", "-n", NS, "--wait=false")
    check(p.returncode == 0, "helm uninstall: %s%s" % (p.stdout, p.stderr))
    left = []
    for kind in ("clusterroles", "clusterrolebindings", "validatingadmissionpolicies",
                 "validatingadmissionpolicybindings", "deviceclasses"):
        out = c.k("get", kind, "-l", "app.kubernetes.io/instance=draplane", "-o",
                  "name").stdout.split()
        left += out
    for kind in ("serviceaccounts", "deployments", "daemonsets", "roles", "rolebindings"):
        left += c.k("get", kind, "-n", NS, "-l", "app.kubernetes.io/instance=draplane",
                    "-o", "name").stdout.split()
    left += c.k("get", "rolebindings", "-n", "kube-system", "-l",
                "app.kubernetes.io/instance=draplane", "-o", "name").stdout.split()
    check(not left, "helm uninstall leaves none of the chart's objects: %s" % left)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draplane", required=True)
    ap.add_argument("--helm", required=True)
    ap.add_argument("--kubectl", required=True)
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    args.draplane = os.path.abspath(args.draplane)
    if not os.path.exists(os.path.join(args.bin, "kube-apiserver")):
        print("chart install e2e: %s/kube-apiserver missing: run "
              "scripts/build-kube-apiserver" % args.bin, file=sys.stderr)
        return 1
    probe = subprocess.run(["unshare", "-Urm", "true"], capture_output=True)
    if probe.returncode != 0:
        print("chart install e2e: SKIPPED: no unprivileged user and mount namespaces (%s)"
              % probe.stderr.decode().strip())
        return 0
    work = tempfile.mkdtemp(prefix="draplane-chart-e2e-")
    c = Cluster(args, work)
    try:
        c.server.start()
        test(c, args)
    except Failure as f:
        check(False, str(f))
    finally:
        c.stop()
    if results["failed"]:
        for name in sorted(os.listdir(work)):
            if name.endswith(".log"):
                print("---- %s (tail)" % name)
                print("".join(open(os.path.join(work, name)).readlines()[-20:]))
    else:
        shutil.rmtree(work, ignore_errors=True)
    print("chart install e2e: %d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
