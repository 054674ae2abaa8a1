#!/usr/bin/env python3
"""End-to-end: the real kubectl against `draplane server`.

Starts the server on a free port in a temporary data directory, then runs
kubectl commands (the guide's manifests and the guide's monitoring and
troubleshooting commands that need no scheduler) and checks their output.
Prints one line per check and a closing "N passed, N failed" line; exits 1
when anything failed.

  tests/e2e/kubectl_e2e.py --draplane build/release/src/cmd/draplane \
      [--kubectl build/kubectl] [--seed ../shared/seed/manifests]

kubectl: --kubectl, else $KUBECTL, else build/kubectl (scripts/build-kubectl
builds the pinned upstream kubectl from Go modules), else `kubectl` on PATH.
The seed manifests are read in place from ../shared (or $DRAPLANE_SHARED_DIR);
when they are missing the checks that need them are reported as skipped.
"""

import argparse
import base64
import json
import urllib.error
import urllib.request
import ssl
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


class Failure(Exception):
    pass


class Env:
    def __init__(self, draplane, kubectl, seed, draref=None):
        self.draplane = draplane
        self.draref = draref
        self.kubectl = kubectl
        self.seed = seed
        self.dir = tempfile.mkdtemp(prefix="draplane-e2e-")
        self.server = None
        self.url = None
        self.log = None

    def start(self):
        self.log = open(os.path.join(self.dir, "server.log"), "w+")
        self.server = subprocess.Popen(
            [self.draplane, "server", "--data-dir", os.path.join(self.dir, "data"),
             "--listen", "127.0.0.1:0"] + self.server_args(),
            stdout=subprocess.PIPE, stderr=self.log, text=True)
        deadline = time.time() + 30
        lines = []
        while time.time() < deadline:
            line = self.server.stdout.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"serving the Kubernetes API on (https://\S+)", line)
            if m:
                self.url = m.group(1)
            if "export KUBECONFIG=" in line:
                break
        if self.url is None:
            raise Failure("server did not start: " + "".join(lines))
        # Keep draining stdout so the server never blocks on it.
        threading.Thread(target=lambda: [None for _ in self.server.stdout],
                         daemon=True).start()
        self.kubeconfig = os.path.join(self.dir, "data", "kubeconfig")

    def server_args(self):
        """Extra `draplane server` arguments (for subclasses)."""
        return []

    def stop(self):
        if self.server and self.server.poll() is None:
            self.server.send_signal(signal.SIGTERM)
            try:
                self.server.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.server.kill()
                raise Failure("server did not stop within 20 s of SIGTERM")
        return self.server.returncode if self.server else None

    def k(self, *args, input=None, check=True, timeout=60):
        cmd = [self.kubectl, "--kubeconfig", self.kubeconfig,
               "--cache-dir", os.path.join(self.dir, "cache")] + list(args)
        p = subprocess.run(cmd, input=input, capture_output=True, text=True,
                           timeout=timeout)
        if check and p.returncode != 0:
            raise Failure("kubectl %s: exit %d\n%s%s" % (
                " ".join(args), p.returncode, p.stdout, p.stderr))
        return p

    def kjson(self, *args):
        return json.loads(self.k(*args, "-o", "json").stdout)

    def seed_file(self, name):
        path = os.path.join(self.seed, name)
        if not os.path.exists(path):
            message = "the guide's manifest %s not found (set DRAPLANE_SHARED_DIR)" % path
            if os.environ.get("CI") == "true":
                raise Failure(message + "; CI=true: the shared data must be present")
            raise Skip(message)
        return path


class Skip(Exception):
    pass


def expect(cond, what):
    if not cond:
        raise Failure(what)


def expect_in(needle, haystack, what=""):
    if needle not in haystack:
        raise Failure("%s: %r not in output:\n%s" % (what, needle, haystack))


# ---------------------------------------------------------------- checks

def check_version(e):
    v = json.loads(e.k("version", "-o", "json").stdout)
    expect(v["serverVersion"]["minor"] == "37", "server minor is 37: %s" % v)
    expect(v["serverVersion"]["gitVersion"].startswith("v1.37.2+draplane."),
           "gitVersion v1.37.2+draplane.<version>: %s" % v)


def check_identities(e):
    # The admin kubeconfig is a client certificate in system:masters.
    who = json.loads(e.k("auth", "whoami", "-o", "json").stdout)
    info = who["status"]["userInfo"]
    expect(info["username"] == "admin", "whoami: %s" % who)
    expect("system:masters" in info["groups"] and
           "system:authenticated" in info["groups"], "whoami: %s" % who)
    # Without credentials: system:anonymous, whom RBAC refuses; a wrong
    # token: 401.
    ca = os.path.join(e.dir, "data", "pki", "ca.crt")
    # (kubectl itself asks for a password when a kubeconfig has no
    # credentials, so the anonymous request is made here.)
    ctx = ssl.create_default_context(cafile=ca)
    req = urllib.request.Request(e.url + "/apis/resource.k8s.io/v1/deviceclasses")
    try:
        urllib.request.urlopen(req, context=ctx, timeout=30)
        expect(False, "anonymous list refused")
    except urllib.error.HTTPError as err:
        status = json.loads(err.read())
        expect(err.code == 403, "anonymous: %d %s" % (err.code, status))
        expect(status["message"] ==
               'deviceclasses.resource.k8s.io is forbidden: User '
               '"system:anonymous" cannot list resource "deviceclasses" in '
               'API group "resource.k8s.io" at the cluster scope', status)
    p = as_token(e, "wrong", "get", "deviceclasses")
    expect(p.returncode != 0, "wrong token refused")
    expect_in("error: You must be logged in to the server (the server has "
              "asked for the client to provide credentials)",
              p.stderr, "kubectl's error")


def check_file_modes(e):
    # The data directory is its owner's only; so are the store and the
    # credentials in it.
    data = os.path.join(e.dir, "data")
    want = {data: 0o700, os.path.join(data, "pki"): 0o700}
    for name in ("state.db", "state.db.lock", "kubeconfig", "pki/ca.key",
                 "pki/server.key", "pki/admin.token", "pki/sa.key"):
        want[os.path.join(data, name)] = 0o600
    for path, mode in sorted(want.items()):
        got = os.stat(path).st_mode & 0o777
        expect(got == mode, "%s: mode %o, want %o" % (path, got, mode))


def check_rbac(e):
    # A team's namespace, as docs/security.md gives it out.
    e.k("create", "namespace", "team-rbac")
    e.k("create", "rolebinding", "alice-edit", "--clusterrole=edit",
        "--user=alice", "-n", "team-rbac")
    out = e.k("get", "rolebinding", "alice-edit", "-n", "team-rbac",
              "-o", "wide").stdout
    expect(re.search(r"alice-edit\s+ClusterRole/edit\s+\S+\s+alice", out),
           "rolebinding row:\n" + out)

    def can_i(*args):
        p = e.k("auth", "can-i", *args, check=False)
        return p.stdout.strip()
    claims = "resourceclaims.resource.k8s.io"
    expect(can_i("create", claims, "-n", "team-rbac", "--as", "alice") == "yes",
           "alice may create claims in her namespace")
    expect(can_i("create", claims, "-n", "default", "--as", "alice") == "no",
           "alice may not create claims elsewhere")
    expect(can_i("create", "deviceclasses.resource.k8s.io", "--as",
                 "alice") == "no", "alice may not create device classes")
    listed = e.k("auth", "can-i", "--list", "-n", "team-rbac",
                 "--as", "alice").stdout
    expect_in(claims, listed, "can-i --list")
    # edit does not manage RBAC; admin does, but only with rules alice holds.
    p = e.k("create", "role", "r", "--verb=get", "--resource=pods",
            "-n", "team-rbac", "--as", "alice", check=False)
    expect(p.returncode != 0 and "Forbidden" in p.stderr, p.stderr)
    e.k("create", "rolebinding", "alice-admin", "--clusterrole=admin",
        "--user=alice", "-n", "team-rbac")
    e.k("create", "role", "pods", "--verb=get", "--resource=pods",
        "-n", "team-rbac", "--as", "alice")
    p = e.k("create", "role", "nodes", "--verb=get", "--resource=nodes",
            "-n", "team-rbac", "--as", "alice", check=False)
    expect(p.returncode != 0, "escalation refused")
    expect_in('is attempting to grant RBAC permissions not currently held',
              p.stderr, "escalation refused")
    # The admin (system:masters) may impersonate anyone; the request is
    # then bob's, who holds nothing.
    p = e.k("get", "pods", "-n", "team-rbac", "--as", "bob", "--as-group",
            "ops", check=False)
    expect_in('User "bob" cannot list resource "pods"', p.stderr,
              "impersonated request")
    p = e.k("auth", "can-i", "get", "pods", "-n", "team-rbac", "--as", "bob",
            check=False)
    expect(p.stdout.strip() == "no", "bob holds nothing: " + p.stdout)


def as_credentials(e, user_yaml, *args):
    """kubectl with a kubeconfig whose user is `user_yaml` (a YAML flow
    mapping, e.g. `{token: x}`)."""
    path = os.path.join(e.dir, "other.kubeconfig")
    ca = os.path.join(e.dir, "data", "pki", "ca.crt")
    with open(path, "w") as f:
        f.write("apiVersion: v1\nkind: Config\nclusters:\n- name: c\n"
                "  cluster:\n    server: %s\n    certificate-authority: %s\n"
                "users:\n- name: u\n  user: %s\ncontexts:\n- name: x\n"
                "  context:\n    cluster: c\n    user: u\n"
                "current-context: x\n" % (e.url, ca, user_yaml))
    return subprocess.run(
        [e.kubectl, "--kubeconfig", path,
         "--cache-dir", os.path.join(e.dir, "cache-other")] + list(args),
        capture_output=True, text=True, timeout=60)


def as_token(e, token, *args):
    """kubectl authenticating with the bearer token `token` alone."""
    return as_credentials(e, "{token: %s}" % token, *args)


def check_service_accounts(e):
    # The serviceaccount controller gives every namespace `default`.
    e.k("create", "namespace", "team-sa")
    deadline = time.time() + 20
    while e.k("get", "serviceaccount", "default", "-n", "team-sa",
              check=False).returncode != 0:
        expect(time.time() < deadline, "default ServiceAccount made")
        time.sleep(0.2)
    e.k("create", "serviceaccount", "robot", "-n", "team-sa")
    out = e.k("get", "sa", "-n", "team-sa").stdout
    expect(re.search(r"^NAME\s+AGE\n", out) and
           re.search(r"^robot\s+\S+$", out, re.M), "sa table:\n" + out)
    token = e.k("create", "token", "robot", "-n", "team-sa",
                "--duration", "20m").stdout.strip()

    def as_robot(*args):
        return as_token(e, token, *args)
    who = json.loads(as_robot("auth", "whoami", "-o", "json").stdout)
    info = who["status"]["userInfo"]
    expect(info["username"] == "system:serviceaccount:team-sa:robot" and
           "system:serviceaccounts:team-sa" in info["groups"], who)
    p = as_robot("get", "pods", "-n", "team-sa")
    expect_in('User "system:serviceaccount:team-sa:robot" cannot list '
              'resource "pods"', p.stderr, "RBAC decides for the robot")
    e.k("create", "rolebinding", "robot-view", "--clusterrole=view",
        "--serviceaccount=team-sa:robot", "-n", "team-sa")
    p = as_robot("get", "pods", "-n", "team-sa")
    expect(p.returncode == 0, "the robot may list pods: " + p.stderr)
    p = e.k("create", "token", "robot", "-n", "team-sa",
            "--bound-object-kind", "Pod", "--bound-object-name", "nope",
            check=False)
    expect_in('pods "nope" not found', p.stderr, "bound to a missing pod")
    p = e.k("create", "token", "robot", "-n", "team-sa", "--duration", "1m",
            check=False)
    expect_in("may not specify a duration less than 10 minutes", p.stderr)
    e.k("delete", "serviceaccount", "robot", "-n", "team-sa")
    p = as_robot("auth", "whoami")
    expect_in("You must be logged in to the server", p.stderr,
              "the token dies with its ServiceAccount")


def check_kubeconfig_command(e):
    # `draplane kubeconfig` hands out a certificate identity; RBAC decides.
    path = os.path.join(e.dir, "carol.kubeconfig")
    p = subprocess.run(
        [e.draplane, "kubeconfig", "--data-dir", os.path.join(e.dir, "data"),
         "--user", "carol", "--group", "team-c", "--duration", "1h",
         "-o", path], capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, "draplane kubeconfig: " + p.stderr)

    def as_carol(*args):
        return subprocess.run(
            [e.kubectl, "--kubeconfig", path, "--cache-dir",
             os.path.join(e.dir, "cache-carol")] + list(args),
            capture_output=True, text=True, timeout=60)
    who = json.loads(as_carol("auth", "whoami", "-o", "json").stdout)
    expect(who["status"]["userInfo"]["username"] == "carol" and
           who["status"]["userInfo"]["groups"] ==
           ["team-c", "system:authenticated"], "whoami: %s" % who)
    p = as_carol("get", "pods", "-n", "default")
    expect(p.returncode != 0 and 'User "carol" cannot list resource "pods"'
           in p.stderr, "carol holds nothing yet: " + p.stderr)
    e.k("create", "rolebinding", "team-c-view", "--clusterrole=view",
        "--group=team-c", "-n", "default")
    p = as_carol("get", "pods", "-n", "default")
    expect(p.returncode == 0, "carol reads pods after the binding: " +
           p.stderr)
    p = subprocess.run([e.draplane, "kubeconfig", "--user", "x",
                        "--duration", "-5m", "--data-dir",
                        os.path.join(e.dir, "data")],
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 2 and "--duration" in p.stderr, p.stderr)


def check_api_resources(e):
    out = e.k("api-resources").stdout
    for res in ("deviceclasses", "resourceclaims", "resourceclaimtemplates",
                "resourceslices", "namespaces", "pods", "nodes", "leases"):
        expect_in(res, out, "api-resources")
    expect(re.search(r"resourceclaims\s+resource.k8s.io/v1\s+true\s+ResourceClaim", out),
           "resourceclaims row:\n" + out)


def check_create_namespace(e):
    out = e.k("create", "namespace", "ml-workloads").stdout
    expect_in("namespace/ml-workloads created", out)
    out = e.k("get", "namespaces").stdout
    expect(re.search(r"ml-workloads\s+Active", out), "namespace listed:\n" + out)


def check_apply_deviceclasses(e):
    path = e.seed_file("02-deviceclasses.yaml")
    out = e.k("apply", "-f", path).stdout
    expect_in("deviceclass.resource.k8s.io/gpu.nvidia.com-a100 created", out)
    again = e.k("apply", "-f", path).stdout
    expect_in("deviceclass.resource.k8s.io/gpu.nvidia.com-a100 unchanged", again)
    table = e.k("get", "deviceclasses").stdout
    expect(re.search(r"^NAME\s+AGE", table, re.M), "header:\n" + table)
    expect_in("gpu.nvidia.com-h100", table)
    y = e.k("get", "deviceclass", "gpu.nvidia.com-a100", "-o", "yaml").stdout
    expect_in("apiVersion: resource.k8s.io/v1", y)
    expect_in("productName == 'NVIDIA A100 80GB PCIe'", y)
    names = e.k("get", "deviceclasses", "-o",
                "jsonpath={.items[*].metadata.name}").stdout.split()
    expect("gpu.nvidia.com-a100" in names, "jsonpath: %s" % names)
    # Read in the version the guide was written in.
    beta = e.kjson("get", "deviceclasses.v1beta1.resource.k8s.io",
                   "gpu.nvidia.com-a100")
    expect(beta["apiVersion"] == "resource.k8s.io/v1beta1", "v1beta1 read")


def check_apply_claim_and_pod(e):
    path = e.seed_file("03-resourceclaim-and-pod.yaml")
    out = e.k("apply", "-f", path).stdout
    expect_in("resourceclaim.resource.k8s.io/training-gpu-claim created", out)
    expect_in("pod/distributed-training created", out)
    table = e.k("get", "resourceclaims", "-n", "ml-workloads").stdout
    expect(re.search(r"training-gpu-claim\s+pending", table), table)
    cols = e.k("get", "resourceclaims", "--all-namespaces", "-o",
               "custom-columns=NAMESPACE:.metadata.namespace,"
               "NAME:.metadata.name,"
               "DEVICECLASS:.spec.devices.requests[0].exactly.deviceClassName,"
               "ALLOCATED:.status.allocation.devices.results[0].device").stdout
    expect(re.search(r"ml-workloads\s+training-gpu-claim\s+gpu.nvidia.com-a100\s+<none>",
                     cols), cols)
    pending = e.k("get", "resourceclaims", "--all-namespaces",
                  "--field-selector=status.allocation=", "-o",
                  "custom-columns=NAMESPACE:.metadata.namespace,NAME:.metadata.name,"
                  "AGE:.metadata.creationTimestamp").stdout
    expect_in("training-gpu-claim", pending, "pending claims")
    pods = e.k("get", "pods", "-n", "ml-workloads", "-o", "wide").stdout
    expect(re.search(r"distributed-training\s+0/1\s+Pending", pods), pods)
    desc = e.k("describe", "resourceclaim", "training-gpu-claim",
               "-n", "ml-workloads").stdout
    expect_in("training-gpu-claim", desc, "describe")
    expect_in("gpu.nvidia.com-a100", desc, "describe")


def check_apply_deployment_and_template(e):
    path = e.seed_file("04-mig-inference-deployment.yaml")
    out = e.k("apply", "-f", path).stdout
    expect_in("deployment.apps/llm-inference-service created", out)
    expect_in("resourceclaimtemplate.resource.k8s.io/mig-inference-template created",
              out)
    expect_in("mig-inference-template",
              e.k("get", "resourceclaimtemplates", "-A").stdout)
    e.k("scale", "deployment", "llm-inference-service", "-n", "ml-workloads",
        "--replicas=2")
    d = e.kjson("get", "deployment", "llm-inference-service", "-n", "ml-workloads")
    expect(d["spec"]["replicas"] == 2, "scaled to 2: %s" % d["spec"])


def check_inline_request_pod_converted(e):
    path = e.seed_file("05-inline-request-pod.yaml")
    p = e.k("apply", "-f", path, check=False)
    # Upstream rejects the guide's `source:` form; draplane turns it into a
    # template owned by the pod (documented extension) and warns.
    text = p.stdout + p.stderr
    expect(p.returncode == 0, "inline request pod accepted: " + text)
    expect_in("draplane extension", text, "inline request pod warning")
    expect_in("quick-gpu-job-gpu-req",
              e.k("get", "resourceclaimtemplates", "-n", "ml-workloads").stdout)


def check_resourceslices(e):
    slice_yaml = """
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: gpu-node1-nvidia-gpu-slice-0
spec:
  driver: gpu.nvidia.com
  nodeName: gpu-node1
  pool: {name: gpu-node1, generation: 1, resourceSliceCount: 1}
  devices:
  - name: gpu-0
    attributes:
      productName: {string: NVIDIA A100 80GB PCIe}
      architecture: {string: Ampere}
      cudaComputeCapability: {version: 8.0.0}
    capacity:
      memory: {value: 80Gi}
  - name: gpu-1
    attributes:
      productName: {string: NVIDIA A100 80GB PCIe}
"""
    e.k("apply", "-f", "-", input=slice_yaml)
    wide = e.k("get", "resourceslices", "-o", "wide").stdout
    expect(re.search(r"NAME\s+NODE\s+DRIVER\s+POOL\s+AGE", wide), wide)
    expect(re.search(r"gpu-node1-nvidia-gpu-slice-0\s+gpu-node1\s+gpu.nvidia.com\s+gpu-node1",
                     wide), wide)
    sel = e.k("get", "resourceslices", "--field-selector",
              "spec.nodeName=gpu-node1", "-o", "yaml").stdout
    expect_in("gpu-node1-nvidia-gpu-slice-0", sel)
    none = e.k("get", "resourceslices", "--field-selector",
               "spec.nodeName=problematic-node", "-o", "name").stdout
    expect(none.strip() == "", "no slices on another node: %r" % none)
    attrs = e.kjson("get", "resourceslices")["items"][0]["spec"]["devices"][0]["attributes"]
    expect(attrs["productName"]["string"] == "NVIDIA A100 80GB PCIe", attrs)
    beta = e.kjson("get", "resourceslices.v1beta1.resource.k8s.io")
    expect(beta["items"][0]["spec"]["devices"][0]["basic"]["attributes"]
           ["productName"]["string"] == "NVIDIA A100 80GB PCIe",
           "seed jq path .spec.devices[].basic.attributes in v1beta1")


def check_patch_label_annotate(e):
    e.seed_file("03-resourceclaim-and-pod.yaml")  # made the claim
    e.k("label", "resourceclaim", "training-gpu-claim", "-n", "ml-workloads",
        "team=ml")
    e.k("annotate", "resourceclaim", "training-gpu-claim", "-n", "ml-workloads",
        "owner=alice")
    e.k("patch", "resourceclaim", "training-gpu-claim", "-n", "ml-workloads",
        "--type=merge", "-p", '{"metadata":{"labels":{"z":"1"}}}')
    c = e.kjson("get", "resourceclaim", "training-gpu-claim", "-n", "ml-workloads")
    expect(c["metadata"]["labels"] == {"team": "ml", "z": "1"}, c["metadata"])
    expect(c["metadata"]["annotations"]["owner"] == "alice", c["metadata"])
    shown = e.k("get", "resourceclaims", "-n", "ml-workloads", "--show-labels").stdout
    expect_in("team=ml", shown, "--show-labels")
    sel = e.k("get", "resourceclaims", "-A", "-l", "team=ml", "-o", "name").stdout
    expect_in("resourceclaim.resource.k8s.io/training-gpu-claim", sel)


def check_watch_and_wait(e):
    w = subprocess.Popen(
        [e.kubectl, "--kubeconfig", e.kubeconfig, "--cache-dir",
         os.path.join(e.dir, "cache"), "get", "deviceclasses", "-w",
         "--request-timeout=20s"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)
    e.k("create", "-f", "-", input="""
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: watched}
""")
    time.sleep(1.5)
    w.terminate()
    out, _ = w.communicate(timeout=10)
    expect_in("watched", out, "get -w")
    e.k("wait", "--for=create", "deviceclass/watched", "--timeout=10s")
    e.k("wait", "--for=jsonpath={.metadata.name}=watched",
        "deviceclass/watched", "--timeout=10s")
    e.k("delete", "deviceclass", "watched")
    e.k("wait", "--for=delete", "deviceclass/watched", "--timeout=10s")


def check_errors(e):
    p = e.k("get", "resourceclaim", "nope", "-n", "ml-workloads", check=False)
    expect(p.returncode != 0, "missing claim fails")
    expect_in('Error from server (NotFound): resourceclaims.resource.k8s.io "nope" not found',
              p.stderr)
    p = e.k("create", "namespace", "ml-workloads", check=False)
    expect_in("AlreadyExists", p.stderr)
    bad = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: Bad_Name}
spec:
  selectors:
  - cel: {expression: "device.attributes["}
"""
    p = e.k("apply", "-f", "-", input=bad, check=False)
    expect(p.returncode != 0, "invalid class refused")
    expect_in("is invalid", p.stderr)


def check_delete_cascading_namespace(e):
    e.k("create", "namespace", "scratch")
    e.k("apply", "-f", "-", input="""
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: tmp, namespace: scratch}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.nvidia.com-a100}
""")
    e.k("delete", "namespace", "scratch", "--timeout=30s")
    p = e.k("get", "namespace", "scratch", check=False)
    expect(p.returncode != 0 and "NotFound" in p.stderr, p.stderr)


def check_explain(e):
    out = e.k("explain", "resourceclaims.spec.devices").stdout
    expect_in("requests", out, "explain resourceclaims.spec.devices")
    expect_in("KIND:       ResourceClaim", out, "explain")
    out = e.k("explain", "pods.spec.resourceClaims").stdout
    expect_in("resourceClaimTemplateName", out, "explain pods")


def check_server_side_apply(e):
    manifest = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: ssa-class, labels: {tier: a}}
spec:
  selectors:
  - cel: {expression: "device.driver == 'gpu.nvidia.com'"}
"""
    out = e.k("apply", "--server-side", "-f", "-", input=manifest).stdout
    expect_in("deviceclass.resource.k8s.io/ssa-class serverside-applied", out)
    y = e.k("get", "deviceclass", "ssa-class", "-o", "yaml",
            "--show-managed-fields").stdout
    expect_in("manager: kubectl", y, "managedFields")
    expect_in("operation: Apply", y, "managedFields")
    # Another manager changing the label conflicts unless it forces.
    other = manifest.replace("tier: a", "tier: b")
    p = e.k("apply", "--server-side", "--field-manager=other", "-f", "-",
            input=other, check=False)
    expect(p.returncode != 0 and "conflict" in p.stderr.lower(), p.stderr)
    e.k("apply", "--server-side", "--field-manager=other", "--force-conflicts",
        "-f", "-", input=other)
    got = e.kjson("get", "deviceclass", "ssa-class")
    expect(got["metadata"]["labels"]["tier"] == "b", got["metadata"])


def check_describe_with_events(e):
    # kubectl describe finds events by the object's kind, name, namespace
    # and uid.
    e.seed_file("03-resourceclaim-and-pod.yaml")  # made the pod
    uid = e.kjson("get", "pod", "distributed-training", "-n",
                  "ml-workloads")["metadata"]["uid"]
    e.k("create", "-f", "-", input="""
apiVersion: v1
kind: Event
metadata: {name: training.1, namespace: ml-workloads}
involvedObject: {kind: Pod, name: distributed-training, namespace: ml-workloads,
                 uid: UID}
reason: FailedScheduling
message: "waiting for ResourceClaim to be allocated"
type: Warning
count: 1
""".replace("UID", uid))
    desc = e.k("describe", "pod", "distributed-training", "-n", "ml-workloads").stdout
    expect_in("FailedScheduling", desc, "describe pod events")
    expect_in("waiting for ResourceClaim to be allocated", desc, "describe pod events")
    ev = e.k("get", "events", "-n", "ml-workloads", "--field-selector",
             "involvedObject.name=distributed-training").stdout
    expect_in("FailedScheduling", ev, "events by involvedObject")


def check_scheduling(e):
    # The server's scheduler: with no GPU nodes yet the guide's training pod
    # is unschedulable and says so; simulated GPU nodes make it land on the
    # node whose four GPUs share an NVLink value.
    e.seed_file("03-resourceclaim-and-pod.yaml")
    ev = e.k("get", "events", "-n", "ml-workloads", "--field-selector",
             "involvedObject.name=distributed-training,reason=FailedScheduling",
             "-o", "jsonpath={.items[*].message}").stdout
    # No Node objects yet (only a ResourceSlice): upstream's message.
    expect_in("no nodes available to schedule pods", ev,
              "FailedScheduling from the scheduler")
    root = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    e.k("apply", "-f", os.path.join(root, "examples", "standalone",
                                    "simulated-gpu-nodes.yaml"))
    e.k("wait", "--for=condition=PodScheduled", "pod/distributed-training",
        "-n", "ml-workloads", "--timeout=60s")
    pod = e.kjson("get", "pod", "distributed-training", "-n", "ml-workloads")
    expect(pod["spec"]["nodeName"] == "gpu-node-a100-1",
           "scheduled on the NVLink-complete node: %s" % pod["spec"])
    claim = e.kjson("get", "resourceclaim", "training-gpu-claim",
                    "-n", "ml-workloads")
    results = claim["status"]["allocation"]["devices"]["results"]
    expect(len(results) == 4 and all(r["pool"] == "gpu-node-a100-1"
                                     for r in results), results)
    domains = {int(r["device"].split("-")[1]) // 4 for r in results}
    expect(len(domains) == 1, "one NVLink domain: %s" % results)
    expect(claim["status"]["reservedFor"][0]["name"] == "distributed-training",
           claim["status"])
    table = e.k("get", "resourceclaims", "-n", "ml-workloads").stdout
    expect(re.search(r"training-gpu-claim\s+allocated,reserved", table), table)
    ev = e.k("get", "events", "-n", "ml-workloads", "--field-selector",
             "reason=Scheduled", "-o", "jsonpath={.items[*].message}").stdout
    expect_in("Successfully assigned ml-workloads/distributed-training to "
              "gpu-node-a100-1", ev, "Scheduled event")
    # The guide's inline request (a template the server made) gets its claim
    # from the resourceclaim controller and an H100.
    e.k("wait", "--for=condition=PodScheduled", "pod/quick-gpu-job",
        "-n", "ml-workloads", "--timeout=60s")
    pod = e.kjson("get", "pod", "quick-gpu-job", "-n", "ml-workloads")
    expect(pod["spec"]["nodeName"] == "gpu-node-h100-1", pod["spec"])
    statuses = pod["status"]["resourceClaimStatuses"]
    expect(statuses[0]["name"] == "gpu-req" and
           statuses[0]["resourceClaimName"].startswith("quick-gpu-job-gpu-req-"),
           statuses)


SEED_METRICS = [
    "dra_resource_claims_total", "dra_resource_claims_pending",
    "dra_resource_claims_allocated", "dra_devices_available",
    "dra_devices_allocated", "dra_allocation_duration_seconds",
]


def metric_samples(text):
    """The samples of a text exposition: {"name{labels}": value}."""
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            key, value = line.rsplit(" ", 1)
            out[key] = float(value)
    return out


def check_metrics(e):
    # The guide's metrics through the real kubectl (as kube-apiserver's own
    # /metrics is read), checked by Prometheus' own text parser and linter.
    # The claim metrics have series once the guide's claims exist.
    e.seed_file("03-resourceclaim-and-pod.yaml")
    text = e.k("get", "--raw", "/metrics").stdout
    if e.draref is None:
        raise Skip("build/draref not built (the Go test tree): exposition "
                   "not parsed")
    args = [e.draref, "promcheck",
            # The seed names a gauge *_total; promlint wants that suffix
            # for counters only.
            "--allow", "dra_resource_claims_total"]
    for name in SEED_METRICS:
        args += ["--require", name]
    p = subprocess.run(args, input=text, capture_output=True, text=True)
    expect(p.returncode == 0, "promcheck exit %d:\n%s%s" % (
        p.returncode, p.stdout, p.stderr))
    # The shipped alert rules and dashboard: valid PromQL (Prometheus' own
    # parser and rule-file validation) over metrics this server exports;
    # dra_plugin_errors_total comes from the node driver.
    exposition = os.path.join(e.dir, "metrics.txt")
    with open(exposition, "w") as f:
        f.write(text)
    p = subprocess.run(
        [e.draref, "promql",
         "--rules", os.path.join(ROOT, "deploy", "prometheus", "alerts.yaml"),
         "--dashboard", os.path.join(ROOT, "deploy", "grafana", "draplane.json"),
         "--metrics", exposition, "--allow-missing", "dra_plugin_errors_total"],
        capture_output=True, text=True)
    expect(p.returncode == 0, "promql exit %d:\n%s%s" % (
        p.returncode, p.stdout, p.stderr))
    m = metric_samples(text)
    # After check_scheduling: the training claim (4 A100s) and the inline
    # request's claim (one H100) are allocated in ml-workloads.
    a100 = 'deviceclass="gpu.nvidia.com-a100",driver="gpu.nvidia.com"'
    h100 = 'deviceclass="gpu.nvidia.com-h100",driver="gpu.nvidia.com"'
    expect(m.get("dra_devices_allocated{%s}" % a100) == 4, m)
    expect(m.get("dra_devices_allocated{%s}" % h100) == 1, m)
    nodes = e.kjson("get", "resourceslices")
    published = {}
    for s in nodes["items"]:
        for d in s["spec"].get("devices", []):
            attrs = d.get("attributes", {})
            product = attrs.get("productName", attrs.get(
                "gpu.nvidia.com/productName", {})).get("string", "")
            published[product] = published.get(product, 0) + 1
    expect(m.get("dra_devices_available{%s}" % a100) +
           m.get("dra_devices_allocated{%s}" % a100) ==
           sum(v for k, v in published.items() if "A100" in k), (m, published))
    expect(m.get('dra_resource_claims_allocated{namespace="ml-workloads"}', 0)
           >= 2, m)
    expect(m.get('scheduler_schedule_attempts_total{profile="draplane",'
                 'result="scheduled"}', 0) >= 2, m)
    expect(m.get('dra_allocation_duration_seconds_count{profile="draplane"}',
                 0) >= 2, m)
    # The guide's MIG class selects none of the simulated (non-MIG) GPUs:
    # the DRA monitor says so on the class.
    ev = e.k("get", "events", "-A", "--field-selector",
             "reason=NoMatchingDevices,involvedObject.kind=DeviceClass",
             "-o", "jsonpath={.items[*].involvedObject.name}").stdout
    expect_in("gpu.nvidia.com-a100-mig-3g20gb", ev, "NoMatchingDevices event")


def check_quota(e):
    # The guide's failure case 5: a ResourceQuota on claims and devices per
    # class, enforced at admission with upstream's message (as kubectl
    # prints it), status.used kept by the quota controller.
    e.k("create", "namespace", "quota-test")
    e.k("create", "quota", "gpu-quota", "-n", "quota-test",
        "--hard=count/resourceclaims.resource.k8s.io=1,"
        "gpu.nvidia.com-a100.deviceclass.resource.k8s.io/devices=4")
    deadline = time.time() + 30
    while time.time() < deadline:
        hard = e.k("get", "quota", "gpu-quota", "-n", "quota-test", "-o",
                   "jsonpath={.status.hard}").stdout
        if hard:
            break
        time.sleep(0.1)
    expect(hard, "the quota controller sets status.hard")

    def claim(name, count):
        return json.dumps({
            "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
            "metadata": {"name": name, "namespace": "quota-test"},
            "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
                "deviceClassName": "gpu.nvidia.com-a100", "count": count}}]}}})
    e.k("create", "-f", "-", input=claim("first", 2))
    p = e.k("create", "-f", "-", input=claim("second", 2), check=False)
    expect(p.returncode != 0, "the second claim is refused")
    # Only the exceeded resource is named (2 + 2 devices fit in 4).
    expect_in('Error from server (Forbidden): error when creating "STDIN": '
              'resourceclaims.resource.k8s.io "second" is forbidden: exceeded '
              'quota: gpu-quota, requested: '
              'count/resourceclaims.resource.k8s.io=1, '
              'used: count/resourceclaims.resource.k8s.io=1, '
              'limited: count/resourceclaims.resource.k8s.io=1',
              p.stderr, "kubectl's error")
    used = e.kjson("get", "quota", "gpu-quota", "-n", "quota-test")["status"]["used"]
    expect(used == {"count/resourceclaims.resource.k8s.io": "1",
                    "gpu.nvidia.com-a100.deviceclass.resource.k8s.io/devices": "2"},
           used)
    # Deleting the claim gives the quota back.
    e.k("delete", "resourceclaim", "first", "-n", "quota-test")
    deadline = time.time() + 30
    while time.time() < deadline:
        used = e.kjson("get", "quota", "gpu-quota", "-n", "quota-test")["status"]["used"]
        if used.get("count/resourceclaims.resource.k8s.io") == "0":
            break
        time.sleep(0.1)
    expect(used.get("count/resourceclaims.resource.k8s.io") == "0", used)
    e.k("create", "-f", "-", input=claim("second", 2))


def check_restart_keeps_everything(e):
    before = e.kjson("get", "resourceclaims", "-A")
    code = e.stop()
    expect(code == 0, "clean exit on SIGTERM (got %s)" % code)
    e.start()
    after = e.kjson("get", "resourceclaims", "-A")
    expect([i["metadata"]["name"] for i in before["items"]] ==
           [i["metadata"]["name"] for i in after["items"]], "same claims")
    expect([i["metadata"]["resourceVersion"] for i in before["items"]] ==
           [i["metadata"]["resourceVersion"] for i in after["items"]],
           "same resourceVersions")


def check_certs_rotate(e):
    # `draplane certs rotate`, then a restart: the admin token is retired,
    # ServiceAccount tokens of the old key still work until they expire,
    # new ones are signed by the new key.
    e.k("create", "namespace", "rotation")
    e.k("create", "serviceaccount", "rotor", "-n", "rotation")
    old_token = e.k("create", "token", "rotor", "-n", "rotation",
                    "--duration", "30m").stdout.strip()
    pki = os.path.join(e.dir, "data", "pki")
    with open(os.path.join(pki, "admin.token")) as f:
        old_admin = f.read().strip()
    expect(as_token(e, old_admin, "get", "ns").returncode == 0,
           "the admin token works before")
    p = subprocess.run([e.draplane, "certs", "rotate", "--data-dir",
                        os.path.join(e.dir, "data")],
                       capture_output=True, text=True, timeout=60)
    expect(p.returncode == 0, "certs rotate: " + p.stderr)
    code = e.stop()
    expect(code == 0, "clean exit on SIGTERM (got %s)" % code)
    e.start()
    p = as_token(e, old_admin, "get", "ns")
    expect_in("You must be logged in to the server", p.stderr,
              "the retired admin token")

    def whoami(token):
        p = as_token(e, token, "auth", "whoami", "-o", "json")
        expect(p.returncode == 0, "whoami: " + p.stderr)
        return json.loads(p.stdout)["status"]["userInfo"]["username"]
    expect(whoami(old_token) == "system:serviceaccount:rotation:rotor",
           "a token of the retired key still verifies")
    new_token = e.k("create", "token", "rotor", "-n", "rotation",
                    "--duration", "30m").stdout.strip()
    expect(whoami(new_token) == "system:serviceaccount:rotation:rotor",
           "a token of the new key verifies")

    def kid(token):
        header = token.split(".")[0]
        return json.loads(base64.urlsafe_b64decode(
            header + "=" * (-len(header) % 4)))["kid"]
    expect(kid(old_token) != kid(new_token), "signed by a new key")
    jwks = json.loads(e.k("get", "--raw", "/openid/v1/jwks").stdout)
    expect(sorted(k["kid"] for k in jwks["keys"]) ==
           sorted([kid(old_token), kid(new_token)]),
           "both keys published: %s" % jwks)


CHECKS = [
    check_version,
    check_identities,
    check_file_modes,
    check_rbac,
    check_service_accounts,
    check_kubeconfig_command,
    check_api_resources,
    check_create_namespace,
    check_apply_deviceclasses,
    check_apply_claim_and_pod,
    check_apply_deployment_and_template,
    check_inline_request_pod_converted,
    check_resourceslices,
    check_patch_label_annotate,
    check_watch_and_wait,
    check_explain,
    check_server_side_apply,
    check_describe_with_events,
    check_scheduling,
    check_metrics,
    check_quota,
    check_errors,
    check_delete_cascading_namespace,
    check_restart_keeps_everything,
    check_certs_rotate,
]


def find_kubectl(arg):
    for candidate in (arg, os.environ.get("KUBECTL"),
                      os.path.join(ROOT, "build", "kubectl")):
        if candidate and os.path.exists(candidate):
            return candidate
    return shutil.which("kubectl")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draplane", default=os.path.join(
        ROOT, "build", "release", "src", "cmd", "draplane"))
    ap.add_argument("--kubectl")
    ap.add_argument("--draref", default=os.path.join(ROOT, "build", "draref"),
                    help="the Go test tree's draref (its promcheck parses "
                         "/metrics); the check is skipped when missing")
    shared = os.environ.get("DRAPLANE_SHARED_DIR",
                            os.path.join(os.path.dirname(ROOT), "shared"))
    ap.add_argument("--seed", default=os.path.join(shared, "seed", "manifests"))
    ap.add_argument("-k", "--only", help="run checks whose name contains this")
    args = ap.parse_args()
    kubectl = find_kubectl(args.kubectl)
    if kubectl is None:
        print("kubectl_e2e: no kubectl (run scripts/build-kubectl)", file=sys.stderr)
        return 1
    draref = args.draref if os.path.exists(args.draref) else None
    e = Env(args.draplane, kubectl, args.seed, draref)
    passed = failed = skipped = 0
    try:
        e.start()
        for check in CHECKS:
            if args.only and args.only not in check.__name__:
                continue
            t0 = time.time()
            try:
                check(e)
                passed += 1
                print("PASS %s (%.1fs)" % (check.__name__, time.time() - t0))
            except Skip as s:
                skipped += 1
                print("SKIP %s: %s" % (check.__name__, s))
            except Exception as ex:  # noqa: BLE001 - report every failure
                failed += 1
                print("FAIL %s: %s" % (check.__name__, ex))
                if not isinstance(ex, Failure):
                    traceback.print_exc()
            sys.stdout.flush()
    finally:
        try:
            e.stop()
        except Failure as ex:
            failed += 1
            print("FAIL stop: %s" % ex)
        if failed:
            e.log.seek(0)
            print("---- server log (tail) ----")
            print("".join(e.log.readlines()[-40:]))
        shutil.rmtree(e.dir, ignore_errors=True)
    print("kubectl e2e: %d passed, %d failed, %d skipped" % (passed, failed, skipped))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
