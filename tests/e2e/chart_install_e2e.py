#!/usr/bin/env python3
"""The Helm chart installed on the real kube-apiserver v1.37.2
(--authorization-mode=Node,RBAC), every process run with nothing but its
own identity (no system:masters): the components with their
ServiceAccounts, each node's kubelet with the node's (system:node:<name>):

  - `helm install draplane deploy/helm/draplane -n draplane-system
    --create-namespace` (helm v4.3.2, scripts/build-helm);
  - `kubectl auth can-i --as=system:serviceaccount:draplane-system:<sa>`
    says yes to what each component needs and no to a list of things it
    must not do;
  - node1 and node3 (the example inventory's A100s, node3's in MIG mode)
    each run draplane's simulated kubelet alone (`node --backend none
    --simulate-kubelet`, a client certificate of system:node:<name>): the
    Node registered Ready, its Lease renewed, its pods run;
  - the kubelet plugin's token bound to its Pod on node1 may write node1's
    ResourceSlice, and the ValidatingAdmissionPolicy refuses its write of
    node2's;
  - each node's kubelet plugin runs as a process with the DaemonSet's args
    (kubeletPlugin.extraArgs selecting the fake GPU backend) and env, in
    cluster with its Pod-bound token, its /var/lib/kubelet and /var/run/cdi
    shared with the node's kubelet and kept across restarts;
  - two scheduler replicas and the controller run as processes with exactly
    the args the chart renders, in cluster (ServiceAccount token, CA and
    namespace at /var/run/secrets/kubernetes.io/serviceaccount in a mount
    namespace, KUBERNETES_SERVICE_HOST/PORT);
  - then the Kubernetes-mode e2e's checks: probes, and /metrics authorized
    by the API server; the guide's training pod (four GPUs, node1) and six
    MIG inference pods (node3) prepared and Running with their CDI
    devices; the leader killed and the other replica binding; a scheduler
    whose Lease is taken exits 1 and, restarted, binds again;
  - `helm upgrade` to a changed chart (new version and image tag), every
    process restarted with the new release's args: prepared claims stay
    prepared (CDI specs, checkpoint), pods Running; deleting pods
    unprepares and deallocates their claims, and a new pod is prepared by
    the upgraded plugin; a critical XID on one of its GPUs shows in its
    allocatedResourcesStatus (the plugin's DRAResourceHealth stream, the
    kubelet); nothing any process wrote was refused;
  - `helm uninstall` removes every object of the chart (the Leases the
    components made and the ResourceSlices stay, as docs/deploy.md says).

Where two replicas of one component share this host, each gets its own
secure or health port (in a cluster each has its own Pod IP).

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
NODES = k8s_mode_e2e.NODES
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

    def mounts(self, node):
        """Shell commands for a new mount namespace: a node's /var/run and
        /var/lib (kept across restarts, shared by its plugin and its
        kubelet: plugin sockets, the driver's checkpoint, CDI specs), or
        tmpfs for a component that is not a node's."""
        if node is None:
            return "mount -t tmpfs tmpfs /var/run && mount -t tmpfs tmpfs /var/lib"
        root = os.path.join(self.work, "nodes", node)
        for d in ("run", "lib"):
            os.makedirs(os.path.join(root, d), exist_ok=True)
        return "mount --bind %s/run /var/run && mount --bind %s/lib /var/lib" % (
            root, root)

    def node_dir(self, node, *parts):
        return os.path.join(self.work, "nodes", node, *parts)

    def spawn(self, name, script, argv, env):
        log = open(os.path.join(self.work, name + ".log"), "a")
        self.procs[name] = subprocess.Popen(
            ["unshare", "-Urm", "sh", "-c", script, "sh"] + argv,
            env=env, stdout=log, stderr=log)
        return self.procs[name]

    def run_in_cluster(self, name, sa, argv, token=None, env_extra=None,
                       node=None):
        """`draplane argv` with the in-cluster configuration of `sa` (or
        `token`), in a mount namespace (see mounts())."""
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
        script = (self.mounts(node) + " && mkdir -p %s /var/lib/kubelet && "
                  "cp \"$1\"/token \"$1\"/ca.crt \"$1\"/namespace %s/ && "
                  "shift && exec \"$@\"" % (SA_DIR, SA_DIR))
        return self.spawn(name, script, [files, self.args.draplane] + argv, env)

    def run_kubelet(self, node):
        """The node's kubelet: draplane's simulated kubelet alone (`node
        --backend none --simulate-kubelet`) with the node's identity
        (system:node:<node> in group system:nodes: kube-apiserver's Node
        authorizer and NodeRestriction admission), in front of the plugin
        socket in the node's /var/lib/kubelet."""
        kubeconfig = self.server.client_kubeconfig(
            "kubelet-" + node, "/O=system:nodes/CN=system:node:" + node)
        env = {k: v for k, v in os.environ.items() if k not in ("KUBECONFIG",)}
        return self.spawn("kubelet-" + node, self.mounts(node) + ' && exec "$@"',
                          [self.args.draplane, "node", "--backend", "none",
                           "--simulate-kubelet", "--node-name", node,
                           "--heartbeat-seconds", "2", "--kubeconfig", kubeconfig],
                          env)

    def terminate(self, name, sig=signal.SIGTERM):
        proc = self.procs.pop(name)
        if proc.poll() is None:
            proc.send_signal(sig)
            proc.wait(timeout=20)

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


def rendered(manifest, name, kind="Deployment"):
    for doc in yaml.safe_load_all(manifest):
        if doc and doc["kind"] == kind and doc["metadata"]["name"] == name:
            return doc["spec"]["template"]["spec"]["containers"][0]
    raise Failure("no %s %s in the release" % (kind, name))


def rendered_args(manifest, name, kind="Deployment"):
    return rendered(manifest, name, kind)["args"]


def with_port(args, flag, port):
    """`args` with --flag=N replaced: replicas that would each have their
    own Pod IP share this host's loopback here."""
    return [("%s=%d" % (flag, port)) if a.startswith(flag + "=") else a
            for a in args]


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
    # Its resourceclaim controller runs here (with the defaults, the
    # cluster's kube-controller-manager runs it, and helm_chart_test checks
    # that the controller then writes no claim).
    ("draplane-controller", "update", "resourceclaims/binding", None),
    ("draplane-controller", "create", "resourceclaims", "default"),
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


def slice_for(name):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": "%s-gpu.nvidia.com" % name},
            "spec": {"driver": "gpu.nvidia.com", "nodeName": name,
                     "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0"}]}}


def pod(name, node_selector=None):
    spec = {"schedulerName": "draplane", "containers": [{"name": "c", "image": "x"}]}
    if node_selector:
        spec["nodeSelector"] = {"kubernetes.io/hostname": node_selector}
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"}, "spec": spec}


def cdi_specs(c, node):
    d = c.node_dir(node, "run", "cdi")
    return sorted(f for f in os.listdir(d) if f.endswith(".json")) \
        if os.path.isdir(d) else []


def checkpointed(c, node):
    path = c.node_dir(node, "lib", "kubelet", "plugins", "gpu.nvidia.com",
                      "checkpoint.json")
    if not os.path.exists(path):
        return ""
    with open(path) as f:
        return f.read()


def mig_devices(c, node):
    """The MIG devices of the node's simulated GPUs (their state outlives
    the plugin: --simulate-root in the node's /var/lib)."""
    path = c.node_dir(node, "lib", "draplane-simulated-gpus", node,
                      "simulated-gpus.json")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [m["uuid"] for g in json.load(f)["gpus"] for m in g.get("migDevices", [])]


class Release:
    """What the test knows of the installed release: its rendered args and
    the ports each process was given."""

    def __init__(self, c, ports):
        self.c, self.ports = c, ports
        self.refresh()

    def refresh(self):
        self.manifest = self.c.helm("get", "manifest", "draplane", "-n", NS).stdout

    def start_plugin(self, node, token):
        args = rendered_args(self.manifest, "draplane-kubelet-plugin", "DaemonSet")
        args = with_port(args, "--healthcheck-port", self.ports["plugin-" + node])
        self.c.run_in_cluster("plugin-" + node, "draplane-kubelet-plugin", args,
                              token=token, node=node,
                              env_extra={"NODE_NAME": node, "POD_NAMESPACE": NS})

    def start_scheduler(self, name):
        args = with_port(rendered_args(self.manifest, "draplane-scheduler"),
                         "--secure-port", self.ports[name])
        self.c.run_in_cluster(name, "draplane-scheduler", args)

    def start_controller(self):
        self.c.run_in_cluster("controller", "draplane-controller",
                              rendered_args(self.manifest, "draplane-controller"))


def https_code(port, path, token=None):
    try:
        return k8s_mode_e2e._https(port, path, token)[0]
    except OSError:  # not listening yet
        return None


def wait_ready(c, release, names):
    for name in names:
        ready = wait_for(lambda: https_code(release.ports[name], "/readyz") == 200, 60)
        check(ready, "%s ready on its secure port (%s)" % (name, c.log(name)[-800:]))


def leader(c, reader, names):
    """The scheduler whose leader-election gauge says 1."""
    for name in names:
        code, body = k8s_mode_e2e._https(c.release.ports[name], "/metrics", reader)
        if code == 200 and 'leader_election_master_status{name="draplane-scheduler"} 1' \
                in body:
            return name
    return None


def phases(c, ns):
    out = c.k("get", "pods", "-n", ns, "-o", "json", check=False).stdout
    return {p["metadata"]["name"]: p["status"].get("phase")
            for p in json.loads(out or '{"items":[]}')["items"]}


def test(c, args):
    free = k8s_mode_e2e.free_port
    ports = {"scheduler-a": free(), "scheduler-b": free(), "controller": free(),
             "plugin-node1": free(), "plugin-node3": free()}
    # The kubelet plugin with the fake GPU backend (the example inventory's
    # node1: 4 x A100; node3: 3 x A100 in MIG mode). No
    # kube-controller-manager runs here, so draplane's controller runs the
    # resourceclaim controller too.
    p = c.helm("install", "draplane", CHART, "-n", NS, "--create-namespace",
               "--set", "scheduler.securePort=%d" % ports["scheduler-a"],
               "--set", "controller.securePort=%d" % ports["controller"],
               "--set", "controller.controllers=resourceclaim-controller\\,dra-monitor",
               "--set", "kubeletPlugin.healthcheckPort=%d" % ports["plugin-node1"],
               # The simulated GPUs' state in the node's /var/lib: they
               # outlive the plugin's restarts, as a real node's do.
               "--set", "kubeletPlugin.extraArgs={--backend=fake,--inventory=%s,"
               "--simulate-root=/var/lib/draplane-simulated-gpus}" %
               k8s_mode_e2e.INVENTORY, "--wait=false")
    if not check(p.returncode == 0, "helm install: exit %d %s%s" %
                 (p.returncode, p.stdout[-500:], p.stderr[-1500:])):
        return
    release = c.release = Release(c, ports)

    wrong = [m for m in MUST if not can_i(c, *m)]
    check(not wrong, "each component may do what it needs: missing %s" % wrong)
    allowed = [m for m in MUST_NOT if can_i(c, *m)]
    check(not allowed, "no component may do what it must not: allowed %s" % allowed)

    # Each node's kubelet, with the node's own identity: it registers the
    # Node, renews its Lease, and runs the pods bound to it.
    for n in NODES:
        c.run_kubelet(n)

    def nodes_ready():
        out = c.k("get", "nodes", "-o", "json", check=False).stdout
        nodes = {n["metadata"]["name"]: n
                 for n in json.loads(out or '{"items":[]}')["items"]}
        return all(any(x["type"] == "Ready" and x["status"] == "True"
                       for x in nodes.get(n, {}).get("status", {}).get("conditions", []))
                   for n in NODES)
    check(wait_for(nodes_ready, 60),
          "each node's kubelet (system:node:<name>) registers its Node Ready (%s)" %
          c.log("kubelet-node1")[-600:])
    leases = c.k("get", "leases", "-n", "kube-node-lease", "-o", "name").stdout.split()
    check(all("lease.coordination.k8s.io/" + n in leases for n in NODES),
          "each node renews its Lease in kube-node-lease: %s" % leases)
    # kube-apiserver's TaintNodesByCondition admission taints new Nodes
    # not-ready; no node lifecycle controller runs here to lift it.
    for n in NODES:
        c.k("taint", "node", n, "node.kubernetes.io/not-ready:NoSchedule-", check=False)

    # Each kubelet plugin's token bound to its Pod on its node (the Pods
    # run on the simulated kubelets like any other).
    tokens = {}
    for n in NODES:
        c.k("apply", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "plugin-" + n, "namespace": NS},
            "spec": {"nodeName": n, "serviceAccountName": "draplane-kubelet-plugin",
                     "containers": [{"name": "plugin", "image": "draplane"}]}}))
        tokens[n] = c.k("create", "token", "draplane-kubelet-plugin", "-n", NS,
                        "--bound-object-kind", "Pod", "--bound-object-name",
                        "plugin-" + n).stdout.strip()
    own = c.k("create", "-f", "-", token=tokens["node1"], check=False,
              input=json.dumps(slice_for("node1")))
    check(own.returncode == 0, "the plugin on node1 writes node1's slice: %s%s" %
          (own.stdout, own.stderr))
    other = c.k("create", "-f", "-", token=tokens["node1"], check=False,
                input=json.dumps(slice_for("node2")))
    check(other.returncode != 0 and
          "may not modify the ResourceSlices of node 'node2'" in other.stderr,
          "the policy refuses node2's slice to node1's plugin: %s" % other.stderr.strip())
    c.k("delete", "resourceslice", "node1-gpu.nvidia.com")

    # The kubelet plugins, in cluster with their Pod-bound tokens and the
    # chart's args and env: they publish their nodes' GPUs.
    for n in NODES:
        release.start_plugin(n, tokens[n])

    def devices():
        out = c.k("get", "resourceslices", "-o", "json", check=False).stdout
        count = {}
        for s in json.loads(out or '{"items":[]}')["items"]:
            count[s["spec"].get("nodeName")] = count.get(
                s["spec"].get("nodeName"), 0) + len(s["spec"].get("devices", []))
        return count
    check(wait_for(lambda: devices().get("node1") == 4 and
                   devices().get("node3") == 75, 60),
          "the plugins publish node1's 4 GPUs and node3's 75 MIG devices under "
          "their own rights: %s (%s)" % (devices(), c.log("plugin-node1")[-600:]))

    # Two scheduler replicas and the controller, in cluster, with the
    # chart's args.
    for name in ("scheduler-a", "scheduler-b"):
        release.start_scheduler(name)
    release.start_controller()
    wait_ready(c, release, ("scheduler-a", "scheduler-b", "controller"))
    for lease in ("draplane-scheduler", "draplane-controller"):
        held = wait_for(lambda: c.k(
            "get", "lease", "-n", NS, lease, "-o",
            "jsonpath={.spec.holderIdentity}", check=False).stdout != "", 30)
        check(held, "Lease %s/%s held" % (NS, lease))

    # Probes and metrics as kube-scheduler's: /metrics authenticated and
    # authorized by the API server (the chart's auth-delegator binding).
    mns = "draplane-e2e-metrics"
    c.k("create", "namespace", mns)
    c.k("create", "serviceaccount", "prometheus", "-n", mns)
    c.k("create", "clusterrole", "draplane-e2e-metrics-reader", "--verb", "get",
        "--non-resource-url", "/metrics")
    c.k("create", "clusterrolebinding", "draplane-e2e-metrics-reader",
        "--clusterrole", "draplane-e2e-metrics-reader",
        "--serviceaccount", "%s:prometheus" % mns)
    c.k("create", "serviceaccount", "nobody", "-n", mns)
    reader = c.k("create", "token", "prometheus", "-n", mns).stdout.strip()
    nobody = c.k("create", "token", "nobody", "-n", mns).stdout.strip()
    for name in ("scheduler-a", "controller"):
        for path in ("/healthz", "/livez", "/readyz"):
            code = https_code(ports[name], path)
            check(code == 200, "%s: %s without credentials (%s)" % (name, path, code))
        code = https_code(ports[name], "/metrics")
        check(code == 403, "%s: anonymous /metrics is forbidden (%s)" % (name, code))
        code = https_code(ports[name], "/metrics", nobody)
        check(code == 403, "%s: /metrics for a ServiceAccount without the role is "
              "forbidden (%s)" % (name, code))
        code = https_code(ports[name], "/metrics", "not-a-token")
        check(code == 401, "%s: /metrics with a bad token is unauthorized (%s)" %
              (name, code))
        code, body = k8s_mode_e2e._https(ports[name], "/metrics", reader)
        check(code == 200 and "process_resident_memory_bytes" in body and
              "leader_election_master_status" in body,
              "%s: /metrics for a reader the API server authorizes (%d %s)" %
              (name, code, body[:200]))

    # The guide's pods: the training pod's four GPUs on node1 and six MIG
    # inference pods on node3, prepared by the plugins and Running.
    guide = "ml-workloads"
    c.k("create", "namespace", guide)
    corrected = k8s_mode_e2e.CORRECTED
    c.k("apply", "-f", os.path.join(corrected, "02-deviceclasses.yaml"))
    with open(os.path.join(corrected, "03-resourceclaim-and-pod.yaml")) as f:
        training = [d for d in yaml.safe_load_all(f) if d]
    for d in training:
        if d["kind"] == "Pod":
            d["spec"]["schedulerName"] = "draplane"
    c.k("apply", "-f", "-", input=json.dumps({"apiVersion": "v1", "kind": "List",
                                               "items": training}))
    with open(os.path.join(corrected, "04-mig-inference-deployment.yaml")) as f:
        mig = [d for d in yaml.safe_load_all(f) if d]
    template = next(d for d in mig if d["kind"] == "Deployment")["spec"]["template"]
    c.k("apply", "-f", "-", input=json.dumps(
        next(d for d in mig if d["kind"] == "ResourceClaimTemplate")))
    # No Deployment controller here: the pods are created as a ReplicaSet
    # would.
    for i in range(6):
        spec = dict(template["spec"], schedulerName="draplane")
        c.k("create", "-f", "-", input=json.dumps({
            "apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": "llm-inference-%d" % i, "namespace": guide,
                         "labels": template["metadata"]["labels"]},
            "spec": spec}))
    running = wait_for(lambda: len(phases(c, guide)) == 7 and all(
        v == "Running" for v in phases(c, guide).values()), 120)
    check(running, "the training pod and six inference pods Running: %s (%s)" %
          (phases(c, guide), c.log("kubelet-node3")[-800:]))
    claim = json.loads(c.k("get", "resourceclaim", "-n", guide,
                           "training-gpu-claim-corrected", "-o", "json").stdout)
    results = claim.get("status", {}).get("allocation", {}).get(
        "devices", {}).get("results", [])
    check(len(results) == 4 and all(r["pool"] == "node1" for r in results),
          "the training claim has node1's four GPUs: %s" % results)
    annotations = json.loads(c.k("get", "pod", "-n", guide,
                                 "distributed-training-corrected", "-o",
                                 "json").stdout)["metadata"].get("annotations", {})
    check("k8s.gpu.nvidia.com/claim=" in annotations.get(
        "dra.draplane.io/cdi-devices", ""),
        "the training pod's container got its CDI devices: %s" % annotations)
    prepared = {n: cdi_specs(c, n) for n in NODES}
    check(len(prepared["node1"]) == 1 and len(prepared["node3"]) == 6,
          "one CDI spec per prepared claim in each node's /var/run/cdi: %s" % prepared)
    check(claim["metadata"]["uid"] in checkpointed(c, "node1"),
          "node1's plugin checkpoints the training claim")
    check(len(mig_devices(c, "node3")) == 6,
          "node3's plugin created six MIG devices: %s" % mig_devices(c, "node3"))

    # Leader election: the leading scheduler killed, the other takes over.
    first = leader(c, reader, ("scheduler-a", "scheduler-b"))
    check(first is not None, "one scheduler replica leads")
    if first:
        c.terminate(first, signal.SIGKILL)
        other = "scheduler-b" if first == "scheduler-a" else "scheduler-a"
        check(wait_for(lambda: leader(c, reader, (other,)) == other, 60),
              "%s takes over from %s" % (other, first))
        c.k("apply", "-f", "-", input=json.dumps(pod("after-failover")))
        check(wait_for(lambda: phases(c, "default").get("after-failover") == "Running",
                       60), "a pod is bound by the new leader and Running")

        # The lost lease: exit 1; restarted once the Lease is free, it
        # binds again.
        c.k("patch", "lease", "-n", NS, "draplane-scheduler", "--type", "merge", "-p",
            '{"spec":{"holderIdentity":"intruder","leaseDurationSeconds":3600}}')
        proc = c.procs[other]
        check(wait_for(lambda: proc.poll() is not None, 60) and proc.returncode == 1 and
              "Leaderelection lost" in c.log(other),
              "a scheduler whose Lease is taken exits 1 (%s)" % proc.returncode)
        c.procs.pop(other)
        c.k("delete", "lease", "-n", NS, "draplane-scheduler")
        release.start_scheduler(other)
        c.k("apply", "-f", "-", input=json.dumps(pod("after-restart")))
        check(wait_for(lambda: phases(c, "default").get("after-restart") == "Running",
                       60), "restarted, it binds again")

    # `helm upgrade` to a changed chart (a new version and image tag): every
    # component restarted with the new release's args, as the rollouts do;
    # the prepared claims stay prepared.
    chart_next = os.path.join(c.work, "chart-next")
    shutil.copytree(CHART, chart_next)  # symlinked files copied as files
    chart_yaml = os.path.join(chart_next, "Chart.yaml")
    with open(chart_yaml) as f:
        meta = yaml.safe_load(f)
    meta["version"] = meta["appVersion"] = "0.1.1-e2e"
    with open(chart_yaml, "w") as f:
        yaml.safe_dump(meta, f)
    p = c.helm("upgrade", "draplane", chart_next, "-n", NS, "--reuse-values",
               "--wait=false")
    check(p.returncode == 0, "helm upgrade: %s%s" % (p.stdout[-300:], p.stderr[-1000:]))
    release.refresh()
    image = rendered(release.manifest, "draplane-kubelet-plugin", "DaemonSet")["image"]
    check(image.endswith(":0.1.1-e2e"), "the upgraded DaemonSet runs the new image: %s"
          % image)
    for name in [n for n in list(c.procs) if n.startswith(("plugin-", "scheduler-",
                                                           "controller"))]:
        c.terminate(name)
    for n in NODES:
        release.start_plugin(n, tokens[n])
    release.start_scheduler("scheduler-a")
    release.start_controller()
    wait_ready(c, release, ("scheduler-a", "controller"))
    check(wait_for(lambda: devices().get("node1") == 4 and
                   devices().get("node3") == 75, 60) and
          cdi_specs(c, "node1") == prepared["node1"] and
          cdi_specs(c, "node3") == prepared["node3"] and
          claim["metadata"]["uid"] in checkpointed(c, "node1") and
          len(mig_devices(c, "node3")) == 6,
          "the upgraded plugins keep every prepared claim (CDI specs, checkpoint, "
          "MIG devices): %s %s" % ({n: cdi_specs(c, n) for n in NODES},
                                   mig_devices(c, "node3")))
    check(all(v == "Running" for v in phases(c, guide).values()) and
          "allocation" in json.loads(c.k(
              "get", "resourceclaim", "-n", guide, "training-gpu-claim-corrected",
              "-o", "json").stdout)["status"],
          "the guide's pods still Running and their claims allocated after the upgrade")

    # Deleting pods releases their claims: unprepared by the upgraded
    # plugins (through the kubelets), deallocated by the resourceclaim
    # controller; a new training pod is prepared by the upgraded plugin.
    c.k("delete", "pod", "-n", guide, "distributed-training-corrected",
        "llm-inference-0", "--wait=false")

    def released():
        claims = json.loads(c.k("get", "resourceclaims", "-n", guide, "-o",
                                "json").stdout)["items"]
        training = [x for x in claims
                    if x["metadata"]["name"] == "training-gpu-claim-corrected"]
        allocated0 = [x for x in claims
                      if x["metadata"]["name"].startswith("llm-inference-0-") and
                      x.get("status", {}).get("allocation")]
        return (training and "allocation" not in training[0].get("status", {}) and
                not allocated0 and not cdi_specs(c, "node1") and
                len(cdi_specs(c, "node3")) == 5)
    check(wait_for(released, 90),
          "deleted pods' claims unprepared and deallocated: CDI specs %s" %
          {n: cdi_specs(c, n) for n in NODES})
    for d in training:
        if d["kind"] == "Pod":
            c.k("apply", "-f", "-", input=json.dumps(d))
    check(wait_for(lambda: phases(c, guide).get("distributed-training-corrected") ==
                   "Running" and len(cdi_specs(c, "node1")) == 1, 90),
          "a new training pod is prepared by the upgraded plugin and Running")

    # Device health (KEP-4680): a critical XID written into node1's
    # simulated GPU 0 reaches the plugin at its next poll, the plugin's
    # DRAResourceHealth stream, and the kubelet, which shows it in the
    # training pod's status (kube-apiserver keeps the field).
    path = c.node_dir("node1", "lib", "draplane-simulated-gpus", "node1",
                      "simulated-gpus.json")
    with open(path) as f:
        machine = json.load(f)
    machine["gpus"][0]["xids"] = [79]
    with open(path + ".new", "w") as f:
        json.dump(machine, f)
    os.replace(path + ".new", path)
    os.utime(path, (time.time() + 1, time.time() + 1))

    def gpu0_health():
        pod = json.loads(c.k("get", "pod", "-n", guide,
                             "distributed-training-corrected", "-o", "json").stdout)
        for status in pod["status"].get("containerStatuses", []):
            for entry in status.get("allocatedResourcesStatus", []):
                for r in entry.get("resources", []):
                    if r["resourceID"].endswith("-gpu-0"):
                        return entry["name"], r.get("health"), r.get("message")
        return None
    check(wait_for(lambda: (gpu0_health() or ("", ""))[1] == "Unhealthy", 60) and
          gpu0_health() == ("claim:training-gpus", "Unhealthy",
                            "NVML reported XID 79 on the GPU"),
          "an XID on GPU 0 shows in the training pod's allocatedResourcesStatus: %s" %
          (gpu0_health(),))

    # kube-apiserver's Node authorizer learns of a pod's claims from its
    # informers, a moment after the binding: a kubelet's first read of a
    # just-generated claim may be refused with "no relationship found" and
    # is retried (the pods' Running above says it then succeeded).
    refused = [line for name in list(c.procs) + ["scheduler-b"]
               for line in c.log(name).splitlines()
               if k8s_mode_e2e.API_ERRORS.search(line) and not (
                   name.startswith("kubelet-") and "no relationship found" in line)]
    check(not refused, "nothing the components and kubelets wrote was refused: %s" %
          refused[:5])

    for name in list(c.procs):
        c.terminate(name)
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
