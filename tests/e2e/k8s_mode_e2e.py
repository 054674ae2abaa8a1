#!/usr/bin/env python3
"""Kubernetes mode, end to end: draplane's node agents, controller and
scheduler as separate processes against an API server, driven by the real
kubectl. The same suite runs against

  --apiserver real      the real kube-apiserver v1.37.2 and etcd, built from
                        their published Go modules by
                        scripts/build-kube-apiserver, started on loopback with
                        a test CA, client certificates and service-account
                        keys (no kube-scheduler, kube-controller-manager or
                        kubelet);
  --apiserver draplane  `draplane server --scheduler=false --controllers=false`.

Any difference the suite sees between the two is a bug in draplane's server.

Checks: two simulated nodes (node1: 4 x A100 80GB, node3: 3 x A100 in MIG
mode, from examples/standalone/inventory.yaml) register Nodes and Leases and
publish ResourceSlices; the corrected seed manifests get their claims
(generated ones with upstream's names and annotations) allocated and
reserved, pods bound and Running; deleting pods releases the claims; every
write the components made was accepted (their logs hold no API error);
leader election across two schedulers fails over, and a scheduler whose
lease is taken from it exits 1 ("Leaderelection lost"), as kube-scheduler;
a ServiceAccount token reaches the API server through the in-cluster
configuration (the files at their fixed path in a mount namespace) and
through a kubeconfig exec plugin.

  tests/e2e/k8s_mode_e2e.py --draplane build/release/src/cmd/draplane \
      --apiserver real|draplane [--kubectl build/kubectl] [--bin build]
"""

import argparse
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import ssl
import threading
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gpu_nodes_e2e  # noqa: E402
import kubectl_e2e  # noqa: E402
from kubectl_e2e import Failure, Skip, expect, expect_in  # noqa: E402

ROOT = kubectl_e2e.ROOT
INVENTORY = os.path.join(ROOT, "examples", "standalone", "inventory.yaml")
CORRECTED = os.path.join(ROOT, "examples", "standalone", "guide-corrected")
NODES = ("node1", "node3")
NS = "ml-workloads"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(what, predicate, timeout=90):
    return gpu_nodes_e2e.wait_for(what, predicate, timeout=timeout)


def openssl(*args):
    subprocess.run(["openssl"] + list(args), check=True,
                   capture_output=True, text=True)


class RealApiServer:
    """etcd + kube-apiserver on loopback, with a test CA."""

    def __init__(self, bin_dir, work, extra_args=(),
                 authorization_mode="RBAC"):
        self.bin_dir, self.dir = bin_dir, work
        self.extra_args = list(extra_args)
        self.authorization_mode = authorization_mode
        self.procs = []

    def pki(self):
        d = os.path.join(self.dir, "pki")
        os.makedirs(d)
        p = lambda n: os.path.join(d, n)  # noqa: E731
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:P-256", "-nodes", "-keyout", p("ca.key"),
                "-out", p("ca.crt"), "-days", "2", "-subj", "/CN=e2e-ca")
        for name, subj, ext in (
                ("serving", "/CN=kube-apiserver",
                 "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
                 "extendedKeyUsage=serverAuth"),
                ("admin", "/O=system:masters/CN=e2e-admin",
                 "extendedKeyUsage=clientAuth")):
            openssl("req", "-newkey", "ec", "-pkeyopt",
                    "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                    p(name + ".key"), "-out", p(name + ".csr"), "-subj", subj)
            with open(p(name + ".ext"), "w") as f:
                f.write(ext + "\n")
            openssl("x509", "-req", "-in", p(name + ".csr"), "-CA",
                    p("ca.crt"), "-CAkey", p("ca.key"), "-CAcreateserial",
                    "-out", p(name + ".crt"), "-days", "2", "-extfile",
                    p(name + ".ext"))
        openssl("ecparam", "-name", "prime256v1", "-genkey", "-noout",
                "-out", p("sa.key"))
        return p

    def client_kubeconfig(self, name, subject):
        """A kubeconfig with a client certificate of the test CA for
        `subject` ("/O=group/CN=user")."""
        p = self.pki_path
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256",
                "-nodes", "-keyout", p(name + ".key"), "-out", p(name + ".csr"),
                "-subj", subject)
        with open(p(name + ".ext"), "w") as f:
            f.write("extendedKeyUsage=clientAuth\n")
        openssl("x509", "-req", "-in", p(name + ".csr"), "-CA", p("ca.crt"),
                "-CAkey", p("ca.key"), "-CAcreateserial", "-out",
                p(name + ".crt"), "-days", "2", "-extfile", p(name + ".ext"))
        path = p(name + ".kubeconfig")
        with open(path, "w") as f:
            json.dump({
                "apiVersion": "v1", "kind": "Config",
                "clusters": [{"name": "e2e", "cluster": {
                    "server": self.url, "certificate-authority": p("ca.crt")}}],
                "users": [{"name": name, "user": {
                    "client-certificate": p(name + ".crt"),
                    "client-key": p(name + ".key")}}],
                "contexts": [{"name": "e2e", "context": {
                    "cluster": "e2e", "user": name}}],
                "current-context": "e2e"}, f)
        return path

    def start(self):
        p = self.pki()
        etcd_port, peer_port, api_port = free_port(), free_port(), free_port()
        log = open(os.path.join(self.dir, "etcd.log"), "w")
        data = os.path.join(self.dir, "etcd")
        os.makedirs(data, mode=0o700)
        client = "http://127.0.0.1:%d" % etcd_port
        peer = "http://127.0.0.1:%d" % peer_port
        self.procs.append(subprocess.Popen(
            [os.path.join(self.bin_dir, "etcd"), "--name", "default",
             "--data-dir", data, "--listen-client-urls", client,
             "--advertise-client-urls", client, "--listen-peer-urls", peer,
             "--initial-advertise-peer-urls", peer, "--initial-cluster",
             "default=" + peer, "--unsafe-no-fsync", "--log-level", "warn"],
            stdout=log, stderr=log))
        log = open(os.path.join(self.dir, "kube-apiserver.log"), "w")
        self.procs.append(subprocess.Popen(
            [os.path.join(self.bin_dir, "kube-apiserver"),
             "--etcd-servers", client,
             "--bind-address", "127.0.0.1", "--secure-port", str(api_port),
             "--advertise-address", "127.0.0.1",
             "--endpoint-reconciler-type", "none",
             "--tls-cert-file", p("serving.crt"),
             "--tls-private-key-file", p("serving.key"),
             "--client-ca-file", p("ca.crt"),
             "--authorization-mode", self.authorization_mode,
             "--service-account-issuer", "https://kubernetes.default.svc",
             "--service-account-key-file", p("sa.key"),
             "--service-account-signing-key-file", p("sa.key"),
             "--service-cluster-ip-range", "10.0.0.0/24",
             # No controller-manager: no default ServiceAccounts to admit
             # pods with.
             "--disable-admission-plugins", "ServiceAccount",
             # The guide's manifests are resource.k8s.io/v1beta1.
             "--runtime-config",
             "resource.k8s.io/v1beta1=true,resource.k8s.io/v1beta2=true"]
            + self.extra_args,
            stdout=log, stderr=log))
        self.pki_path = p
        self.url = "https://127.0.0.1:%d" % api_port
        self.kubeconfig = os.path.join(self.dir, "kubeconfig")
        with open(self.kubeconfig, "w") as f:
            f.write(json.dumps({
                "apiVersion": "v1", "kind": "Config",
                "clusters": [{"name": "e2e", "cluster": {
                    "server": self.url, "certificate-authority": p("ca.crt")}}],
                "users": [{"name": "admin", "user": {
                    "client-certificate": p("admin.crt"),
                    "client-key": p("admin.key")}}],
                "contexts": [{"name": "e2e", "context": {
                    "cluster": "e2e", "user": "admin"}}],
                "current-context": "e2e"}))
        ctx = ssl.create_default_context(cafile=p("ca.crt"))
        ctx.load_cert_chain(p("admin.crt"), p("admin.key"))

        def ready():
            for proc in self.procs:
                if proc.poll() is not None:
                    raise Failure("a process exited: %s" % proc.args[0])
            try:
                urllib.request.urlopen(self.url + "/readyz", context=ctx,
                                       timeout=2).read()
                urllib.request.urlopen(
                    self.url + "/api/v1/namespaces/default", context=ctx,
                    timeout=2).read()
                return True
            except OSError:
                return False
        wait_for("kube-apiserver /readyz", ready, timeout=120)

    def stop(self):
        for proc in reversed(self.procs):
            if proc.poll() is None:
                proc.send_signal(signal.SIGTERM)
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()


class DraplaneApiServer:
    """`draplane server` without its own scheduler and controllers."""

    def __init__(self, draplane, work, extra_args=()):
        self.draplane, self.dir = draplane, work
        self.extra_args = list(extra_args)
        self.proc = None

    def start(self):
        log = open(os.path.join(self.dir, "draplane-server.log"), "w")
        data = os.path.join(self.dir, "data")
        self.proc = subprocess.Popen(
            [self.draplane, "server", "--data-dir", data,
             "--listen", "127.0.0.1:0", "--scheduler=false",
             "--controllers=false"] + self.extra_args,
            stdout=subprocess.PIPE, stderr=log, text=True)
        deadline = time.time() + 30
        while time.time() < deadline:
            line = self.proc.stdout.readline()
            if not line or "export KUBECONFIG=" in line:
                break
        self.data_dir = data
        self.kubeconfig = os.path.join(data, "kubeconfig")
        if not os.path.exists(self.kubeconfig):
            raise Failure("draplane server did not start")
        threading.Thread(target=lambda: [None for _ in self.proc.stdout],
                         daemon=True).start()

    def stop(self):
        if self.proc and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=20)


class Env(kubectl_e2e.Env):
    """kubectl_e2e's Env (k, kjson) with another API server and the
    components as processes."""

    def __init__(self, args):
        super().__init__(os.path.abspath(args.draplane),
                         kubectl_e2e.find_kubectl(args.kubectl), seed=None)
        shutil.rmtree(self.dir, ignore_errors=True)
        self.dir = tempfile.mkdtemp(prefix="draplane-k8s-e2e-")
        self.server = (RealApiServer(args.bin, self.dir)
                       if args.apiserver == "real"
                       else DraplaneApiServer(self.draplane, self.dir))
        self.components = {}
        self.ports = {}  # component -> its secure port

    def start(self):
        self.server.start()
        self.kubeconfig = self.server.kubeconfig

    def component(self, name, *args):
        log = open(os.path.join(self.dir, name + ".log"), "w")
        extra = []
        if args[0] in ("scheduler", "controller"):
            # Each its own secure port (kube-scheduler's 10259 and
            # kube-controller-manager's 10257 by default).
            self.ports[name] = free_port()
            extra = ["--secure-port", str(self.ports[name]),
                     "--bind-address", "127.0.0.1"]
        self.components[name] = subprocess.Popen(
            [self.draplane] + list(args) + extra +
            ["--kubeconfig", self.kubeconfig],
            stdout=log, stderr=log)

    def kill(self, name, sig=signal.SIGTERM):
        proc = self.components.pop(name)
        proc.send_signal(sig)
        proc.wait(timeout=20)

    def stop(self):
        for name in list(self.components):
            try:
                self.kill(name)
            except Exception:  # noqa: BLE001
                pass
        self.server.stop()


# ---------------------------------------------------------------- checks

def check_nodes_publish(e):
    for node in NODES:
        e.component("node-" + node, "node", "--backend", "fake",
                    "--inventory", INVENTORY, "--node-name", node,
                    "--simulate-kubelet", "--simulate-root",
                    os.path.join(e.dir, node), "--heartbeat-seconds", "2")

    def ready():
        nodes = {n["metadata"]["name"]: n for n in
                 e.kjson("get", "nodes")["items"]}
        return all(any(c["type"] == "Ready" and c["status"] == "True"
                       for c in nodes.get(n, {}).get("status", {})
                       .get("conditions", [])) for n in NODES)
    wait_for("both nodes Ready", ready)
    leases = {l["metadata"]["name"] for l in e.kjson(
        "get", "leases", "-n", "kube-node-lease")["items"]}
    expect(set(NODES) <= leases, "node Leases: %s" % leases)

    def devices():
        count = {}
        for s in e.kjson("get", "resourceslices")["items"]:
            n = s["spec"].get("nodeName")
            count[n] = count.get(n, 0) + len(s["spec"].get("devices", []))
        return count if count.get("node1") == 4 and count.get("node3") == 75 \
            else None
    wait_for("slices of both nodes", devices)
    wide = e.k("get", "resourceslices", "-o", "wide").stdout
    expect_in("gpu.nvidia.com", wide, "kubectl get resourceslices -o wide")
    expect_in("node3", wide, "kubectl get resourceslices -o wide")


def check_components_schedule_the_guides_pods(e):
    e.component("controller", "controller")
    e.component("scheduler-a", "scheduler", "--scheduler-name", "draplane",
                "--also-default-scheduler")
    e.k("create", "namespace", NS)
    for f in ("02-deviceclasses.yaml", "03-resourceclaim-and-pod.yaml",
              "04-mig-inference-deployment.yaml"):
        e.k("apply", "-f", os.path.join(CORRECTED, f))
    # standalone's Deployment controller is not here: the Deployment's
    # pods are created as a ReplicaSet would (from the template).
    dep = e.kjson("get", "deployment", "-n", NS,
                  "llm-inference-service-corrected")
    template = dep["spec"]["template"]
    for i in range(6):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": "llm-inference-%d" % i, "namespace": NS,
                            "labels": template["metadata"]["labels"]},
               "spec": template["spec"]}
        e.k("create", "-f", "-", input=json.dumps(pod))

    def running():
        pods = e.kjson("get", "pods", "-n", NS)["items"]
        phases = {p["metadata"]["name"]: p["status"].get("phase")
                  for p in pods}
        return phases if len(pods) == 7 and all(
            v == "Running" for v in phases.values()) else None
    wait_for("the training pod and six inference pods Running", running,
             timeout=120)
    pods = {p["metadata"]["name"]: p for p in
            e.kjson("get", "pods", "-n", NS)["items"]}
    expect(pods["distributed-training-corrected"]["spec"]["nodeName"] ==
           "node1", "training pod on node1")
    claims = {c["metadata"]["name"]: c for c in
              e.kjson("get", "resourceclaims", "-n", NS)["items"]}
    training = claims["training-gpu-claim-corrected"]
    expect(len(training["status"]["allocation"]["devices"]["results"]) == 4,
           "four GPUs")
    expect(training["status"]["reservedFor"][0]["name"] ==
           "distributed-training-corrected", "reservedFor the pod")
    for i in range(6):
        pod = pods["llm-inference-%d" % i]
        expect(pod["spec"]["nodeName"] == "node3", "MIG pods on node3")
        status = pod["status"].get("resourceClaimStatuses", [])
        expect(len(status) == 1, "pod status names its generated claim")
        name = status[0]["resourceClaimName"]
        # Upstream's generated name: <pod>-<claim>-<5 random chars>.
        expect(re.fullmatch(r"llm-inference-%d-inference-gpu-[a-z0-9]{5}" % i,
                            name), name)
        claim = claims[name]
        expect(claim["metadata"]["annotations"].get(
            "resource.kubernetes.io/pod-claim-name") == "inference-gpu",
            claim["metadata"])
        owner = claim["metadata"]["ownerReferences"][0]
        expect(owner["kind"] == "Pod" and owner["controller"] is True,
               owner)
        expect("allocation" in claim["status"], "allocated")


def _https(port, path, token=None):
    """GET https://127.0.0.1:port/path (the component's self-signed
    certificate is not checked): (status, body)."""
    ctx = ssl.create_default_context()
    ctx.check_hostname = False
    ctx.verify_mode = ssl.CERT_NONE
    req = urllib.request.Request("https://127.0.0.1:%d%s" % (port, path))
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=20) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as err:
        return err.code, err.read().decode()


def check_probes_and_metrics(e):
    """As kube-scheduler's and kube-controller-manager's secure ports:
    /healthz, /livez and /readyz answer without credentials; /metrics is
    authenticated (TokenReview) and authorized (SubjectAccessReview) by the
    API server."""
    ns = "draplane-e2e-metrics"
    e.k("create", "namespace", ns)
    for sa in ("prometheus", "nobody"):
        e.k("create", "serviceaccount", sa, "-n", ns)
    e.k("create", "clusterrole", "draplane-e2e-metrics-reader",
        "--verb", "get", "--non-resource-url", "/metrics")
    e.k("create", "clusterrolebinding", "draplane-e2e-metrics-reader",
        "--clusterrole", "draplane-e2e-metrics-reader",
        "--serviceaccount", "%s:prometheus" % ns)
    reader = e.k("create", "token", "prometheus", "-n", ns).stdout.strip()
    nobody = e.k("create", "token", "nobody", "-n", ns).stdout.strip()
    for name in ("scheduler-a", "controller"):
        port = e.ports[name]
        for path in ("/healthz", "/livez", "/readyz"):
            code, body = _https(port, path)
            expect(code == 200 and body == "ok",
                   "%s %s without credentials: %d %s" % (name, path, code, body))
        code, body = _https(port, "/readyz?verbose")
        expect(code == 200 and "[+]shutdown ok" in body and
               "[+]leaderElection ok" in body,
               "%s /readyz?verbose: %s" % (name, body))
        code, body = _https(port, "/metrics")
        expect(code == 403 and 'forbidden: User \\"system:anonymous\\" cannot '
               'get path \\"/metrics\\"' in body,
               "%s anonymous /metrics: %d %s" % (name, code, body))
        code, body = _https(port, "/metrics", nobody)
        expect(code == 403 and "system:serviceaccount:%s:nobody" % ns in body,
               "%s /metrics without the role: %d %s" % (name, code, body))
        code, body = _https(port, "/metrics", "not-a-token")
        expect(code == 401 and '"reason":"Unauthorized"' in body,
               "%s /metrics with a bad token: %d %s" % (name, code, body))
        code, body = _https(port, "/metrics", reader)
        expect(code == 200, "%s /metrics with the role: %d %s" %
               (name, code, body[:300]))
        for metric in ("process_resident_memory_bytes",
                       "process_start_time_seconds", "draplane_build_info",
                       "leader_election_master_status{name="):
            expect(metric in body, "%s /metrics has %s" % (name, metric))
    # Only one scheduler leads: its gauge says 1.
    _, body = _https(e.ports["scheduler-a"], "/metrics", reader)
    expect('leader_election_master_status{name="draplane-scheduler"} 1'
           in body, "scheduler-a leads: %s" %
           [l for l in body.splitlines() if "leader_election" in l])
    e.k("delete", "clusterrolebinding", "draplane-e2e-metrics-reader")
    e.k("delete", "clusterrole", "draplane-e2e-metrics-reader")
    e.k("delete", "namespace", ns, "--wait=false")


def check_deleting_pods_releases_claims(e):
    e.k("delete", "pod", "-n", NS, "distributed-training-corrected",
        "llm-inference-0", "--wait=false")

    def released():
        claims = {c["metadata"]["name"]: c for c in
                  e.kjson("get", "resourceclaims", "-n", NS)["items"]}
        training = claims.get("training-gpu-claim-corrected")
        # Pod 0's generated claim: deallocated by the resourceclaim
        # controller; deleted by the garbage collector, which runs inside
        # draplane server and in kube-controller-manager (not started here).
        generated = [c for n, c in claims.items()
                     if n.startswith("llm-inference-0-") and
                     c.get("status", {}).get("allocation")]
        if (training is not None and
                "allocation" not in training.get("status", {}) and
                not generated):
            return True
        pods = [(p["metadata"]["name"], p["metadata"].get("deletionTimestamp"))
                for p in e.kjson("get", "pods", "-n", NS)["items"]]
        raise Failure("pods %s; training claim status %s; still allocated %s" %
                      (pods, training and training.get("status"),
                       [c["metadata"]["name"] for c in generated]))
    wait_for("the training claim and pod 0's claim deallocated",
             released, timeout=90)


def check_leader_election_fails_over(e):
    e.component("scheduler-b", "scheduler", "--scheduler-name", "draplane",
                "--also-default-scheduler")
    lease = e.kjson("get", "lease", "-n", "kube-system", "draplane-scheduler")
    holder = lease["spec"]["holderIdentity"]
    expect(holder, "a scheduler holds the lease")
    e.kill("scheduler-a", signal.SIGKILL)

    def taken_over():
        lease = e.kjson("get", "lease", "-n", "kube-system",
                        "draplane-scheduler")
        return lease["spec"].get("holderIdentity") not in (None, holder)
    wait_for("scheduler-b takes the lease", taken_over, timeout=90)
    e.k("apply", "-f", os.path.join(CORRECTED, "03-resourceclaim-and-pod.yaml"))
    wait_for("the training pod Running again", lambda: e.kjson(
        "get", "pod", "-n", NS, "distributed-training-corrected")
        ["status"].get("phase") == "Running", timeout=90)


def check_lost_lease_ends_the_scheduler(e):
    """As kube-scheduler: a scheduler whose lease is taken from it (here by
    an intruder holding it for an hour) gives up at its renew deadline and
    exits 1, rather than holding on idle."""
    e.k("patch", "lease", "-n", "kube-system", "draplane-scheduler",
        "--type", "merge", "-p",
        '{"spec":{"holderIdentity":"intruder","leaseDurationSeconds":3600}}')
    proc = e.components["scheduler-b"]
    wait_for("scheduler-b exits", lambda: proc.poll() is not None, timeout=60)
    expect(proc.returncode == 1,
           "scheduler-b exit code %s (want 1)" % proc.returncode)
    e.components.pop("scheduler-b")
    with open(os.path.join(e.dir, "scheduler-b.log")) as f:
        expect("Leaderelection lost" in f.read(),
               "scheduler-b logs \"Leaderelection lost\"")


def _server_and_ca(e):
    """The API server's URL and CA bundle (PEM), from the kubeconfig."""
    import base64
    import yaml
    with open(e.kubeconfig) as f:
        config = yaml.safe_load(f)
    cluster = config["clusters"][0]["cluster"]
    if "certificate-authority-data" in cluster:
        ca = base64.b64decode(cluster["certificate-authority-data"]).decode()
    else:
        path = cluster["certificate-authority"]
        if not os.path.isabs(path):
            path = os.path.join(os.path.dirname(e.kubeconfig), path)
        with open(path) as f:
            ca = f.read()
    return cluster["server"], ca


def check_cluster_credentials(e):
    """A ServiceAccount's token, as a pod gets it: the in-cluster
    configuration (the files at /var/run/secrets/kubernetes.io/
    serviceaccount in a mount namespace, KUBERNETES_SERVICE_HOST/PORT, no
    kubeconfig), and a kubeconfig whose exec plugin prints the token."""
    ns = "draplane-e2e-credentials"
    e.k("create", "namespace", ns)
    e.k("create", "serviceaccount", "reader", "-n", ns)
    e.k("create", "clusterrolebinding", "draplane-e2e-reader",
        "--clusterrole", "cluster-admin",
        "--serviceaccount", "%s:reader" % ns)
    token = e.k("create", "token", "reader", "-n", ns,
                "--duration", "1h").stdout.strip()
    server, ca = _server_and_ca(e)
    host, port = server[len("https://"):].rsplit(":", 1)
    work = os.path.join(e.dir, "credentials")
    os.makedirs(work, exist_ok=True)
    for name, text in (("token", token), ("ca.crt", ca),
                       ("namespace", ns)):
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    home = os.path.join(work, "home")  # no ~/.kube/config
    os.makedirs(home, exist_ok=True)
    env = {k: v for k, v in os.environ.items()
           if k not in ("KUBECONFIG", "HTTPS_PROXY", "https_proxy")}
    env.update(HOME=home, KUBERNETES_SERVICE_HOST=host,
               KUBERNETES_SERVICE_PORT=port)
    sa = "/var/run/secrets/kubernetes.io/serviceaccount"
    script = ("mount -t tmpfs tmpfs /var/run && mkdir -p %s && "
              "cp \"$1\"/token \"$1\"/ca.crt \"$1\"/namespace %s/ && "
              "shift && exec \"$@\"" % (sa, sa))
    probe = subprocess.run(["unshare", "-Urm", "true"], capture_output=True)
    if probe.returncode != 0:
        raise Skip("no unprivileged user and mount namespaces: %s" %
                   probe.stderr.decode().strip())
    p = subprocess.run(
        ["unshare", "-Urm", "sh", "-c", script, "sh", work, e.draplane,
         "inventory", "-o", "json"],
        env=env, capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, "draplane inventory in cluster: exit %d\n%s%s" %
           (p.returncode, p.stdout, p.stderr))
    nodes = [n["name"] for n in json.loads(p.stdout).get("nodes", [])]
    expect(sorted(nodes) == sorted(NODES),
           "in-cluster inventory sees the nodes: %s" % nodes)
    # The same without the files: client-go's error.
    p = subprocess.run([e.draplane, "inventory"], env=env,
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode != 0 and "/var/run/secrets/kubernetes.io/"
           "serviceaccount/token" in p.stderr,
           "without the token file: exit %d, %s" % (p.returncode, p.stderr))

    # An exec plugin (as EKS, GKE and AKS kubeconfigs use) printing the
    # token; it runs once for all of the command's requests.
    plugin = os.path.join(work, "get-token")
    with open(plugin, "w") as f:
        f.write("#!/bin/sh\necho run >> \"$RUNS\"\n"
                "case \"$KUBERNETES_EXEC_INFO\" in *'\"interactive\":false'*) ;; "
                "*) exit 7;; esac\n"
                "printf '{\"apiVersion\":\"client.authentication.k8s.io/v1\","
                "\"kind\":\"ExecCredential\",\"status\":{\"token\":\"%%s\"}}' "
                "\"$(cat %s)\"\n" % os.path.join(work, "token"))
    os.chmod(plugin, 0o755)
    kubeconfig = os.path.join(work, "kubeconfig")
    with open(kubeconfig, "w") as f:
        json.dump({
            "apiVersion": "v1", "kind": "Config", "current-context": "c",
            "clusters": [{"name": "c", "cluster": {
                "server": server,
                "certificate-authority": os.path.join(work, "ca.crt")}}],
            "contexts": [{"name": "c", "context": {"cluster": "c",
                                                   "user": "u"}}],
            "users": [{"name": "u", "user": {"exec": {
                "apiVersion": "client.authentication.k8s.io/v1",
                "command": "./get-token", "interactiveMode": "Never",
                "env": [{"name": "RUNS",
                         "value": os.path.join(work, "runs")}]}}}]}, f)
    p = subprocess.run([e.draplane, "inventory", "-o", "json",
                        "--kubeconfig", kubeconfig], env=env,
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, "draplane inventory with an exec plugin: "
           "exit %d\n%s%s" % (p.returncode, p.stdout, p.stderr))
    with open(os.path.join(work, "runs")) as f:
        runs = f.read().count("run")
    expect(runs == 1, "the exec plugin ran once (%d)" % runs)
    e.k("delete", "clusterrolebinding", "draplane-e2e-reader")
    e.k("delete", "namespace", ns, "--wait=false")


# How the API server's refusals read in the components' logs (decoding,
# validation, admission, authorization).
API_ERRORS = re.compile(
    r"is invalid|is forbidden|Invalid value|BadRequest|UnsupportedMediaType|"
    r"strict decoding error|the server rejected|cannot be handled as")


def check_no_write_was_rejected(e):
    bad = []
    for name in sorted(os.listdir(e.dir)):
        if not name.endswith(".log") or name.startswith(("etcd", "kube-")):
            continue
        with open(os.path.join(e.dir, name)) as f:
            for line in f:
                if API_ERRORS.search(line):
                    bad.append("%s: %s" % (name, line.strip()))
    expect(not bad, "API errors in the components' logs:\n" +
           "\n".join(bad[:20]))


CHECKS = [
    check_nodes_publish,
    check_components_schedule_the_guides_pods,
    check_probes_and_metrics,
    check_deleting_pods_releases_claims,
    check_leader_election_fails_over,
    check_lost_lease_ends_the_scheduler,
    check_cluster_credentials,
    check_no_write_was_rejected,
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--draplane", required=True)
    ap.add_argument("--apiserver", choices=("real", "draplane"),
                    required=True)
    ap.add_argument("--kubectl")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"),
                    help="where scripts/build-kube-apiserver put "
                         "kube-apiserver and etcd")
    args = ap.parse_args()
    if args.apiserver == "real" and not os.path.exists(
            os.path.join(args.bin, "kube-apiserver")):
        print("k8s mode e2e: %s/kube-apiserver missing: run "
              "scripts/build-kube-apiserver" % args.bin, file=sys.stderr)
        return 1
    e = Env(args)
    passed = failed = 0
    try:
        e.start()
        for check in CHECKS:
            try:
                check(e)
                print("PASS", check.__name__, "(%s)" % args.apiserver)
                passed += 1
            except Skip as s:
                print("SKIP", check.__name__, "-", s)
            except Exception as ex:  # noqa: BLE001
                print("FAIL", check.__name__, "(%s) -" % args.apiserver, ex)
                if not isinstance(ex, Failure):
                    traceback.print_exc()
                failed += 1
                break
    finally:
        e.stop()
    if failed:
        for name in sorted(os.listdir(e.dir)):
            if name.endswith(".log"):
                print("---- %s (tail)" % name)
                print("".join(open(os.path.join(e.dir, name))
                              .readlines()[-25:]))
    else:
        shutil.rmtree(e.dir, ignore_errors=True)
    print("%d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
