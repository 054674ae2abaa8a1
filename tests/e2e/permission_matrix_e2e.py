#!/usr/bin/env python3
"""Who may do what: a permission matrix driven by the real kubectl.

Each cell is an identity, a request and the expected answer (allowed or
refused). The identities: anonymous, a client certificate of the cluster
CA (`carol` in `team-c`, who edits claims in namespace team-m), a bearer
token of --token-auth-file (`dave` in `team-d`, who reads claims and pods
everywhere), a ServiceAccount token from `kubectl create token` (`robot` in
team-m, who reads claims and pods there),
node identities (`system:node:node1` in `system:nodes`, by certificate) and
impersonation (the admin with --as / --as-group). For every cell the
request is really made, and `kubectl auth can-i` with the same identity
must agree with what the request did, except for cells that admission
refuses after authorization allowed them (NodeRestriction), where can-i
says yes and the request is refused. Anonymous requests are made without
kubectl (it would prompt for a password), and anonymous may not ask
can-i: the admin's SubjectAccessReview for system:anonymous answers.

The matrix runs against

  --apiserver draplane  `draplane server` (Node,RBAC and NodeRestriction are
                        always on), and
  --apiserver real      the real kube-apiserver v1.37.2 and etcd
                        (scripts/build-kube-apiserver) run with
                        --authorization-mode=Node,RBAC,
                        --enable-admission-plugins=NodeRestriction and the
                        same --token-auth-file;
  --apiserver both      both, then the outcomes compared cell by cell:
                        upstream is the judge.

  tests/e2e/permission_matrix_e2e.py --draplane build/release/src/cmd/draplane \
      --kubectl build/kubectl --apiserver both [--bin build]
"""

import argparse
import base64
import json
import os
import shutil
import ssl
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_mode_e2e  # noqa: E402
import kubectl_e2e  # noqa: E402
from kubectl_e2e import Failure  # noqa: E402

ROOT = kubectl_e2e.ROOT
NS = "team-m"
TOKENS = 'tok-dave,dave,uid-dave,"team-d"\n'


def slice_(name, node, pool=None):
    return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice",
            "metadata": {"name": name},
            "spec": {"driver": "gpu.example.com", "nodeName": node,
                     "pool": {"name": pool or node, "generation": 1,
                              "resourceSliceCount": 1},
                     "devices": [{"name": "gpu-0"}]}}


def setup_objects():
    """What both servers hold before the matrix runs (applied as admin)."""

    def claim(name):
        return {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
                "metadata": {"name": name, "namespace": NS},
                "spec": {"devices": {"requests": [{
                    "name": "gpu", "exactly": {
                        "deviceClassName": "gpu.example.com"}}]}}}

    def pod(name, node, claim_name):
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": NS},
                "spec": {"nodeName": node,
                         "containers": [{"name": "c", "image": "busybox",
                                         "resources": {"claims": [
                                             {"name": "gpu"}]}}],
                         "resourceClaims": [{"name": "gpu",
                                             "resourceClaimName": claim_name}]}}

    def lease(node):
        return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
                "metadata": {"name": node, "namespace": "kube-node-lease"},
                "spec": {"holderIdentity": node}}

    def binding(kind, name, role, subject, namespace=None):
        meta = {"name": name}
        if namespace:
            meta["namespace"] = namespace
        return {"apiVersion": "rbac.authorization.k8s.io/v1", "kind": kind,
                "metadata": meta,
                "roleRef": {"apiGroup": "rbac.authorization.k8s.io",
                            "kind": "ClusterRole", "name": role},
                "subjects": [subject]}

    # Roles without aggregation: kube-apiserver alone (no
    # kube-controller-manager) does not aggregate edit and view.
    def role(name, rules):
        return {"apiVersion": "rbac.authorization.k8s.io/v1",
                "kind": "ClusterRole", "metadata": {"name": name},
                "rules": rules}
    claims = ["resourceclaims", "resourceclaimtemplates"]
    read = ["get", "list", "watch"]
    group = {"apiGroup": "rbac.authorization.k8s.io", "kind": "Group"}
    user = {"apiGroup": "rbac.authorization.k8s.io", "kind": "User"}
    return [
        {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}},
        role("matrix-claim-editor", [
            {"apiGroups": ["resource.k8s.io"], "resources": claims,
             "verbs": ["create", "delete", "get", "list", "patch", "update",
                       "watch"]},
            {"apiGroups": [""], "resources": ["pods"], "verbs": read}]),
        role("matrix-viewer", [
            {"apiGroups": ["resource.k8s.io"], "resources": claims,
             "verbs": read},
            {"apiGroups": [""], "resources": ["pods"], "verbs": read}]),
        binding("RoleBinding", "carol-edit", "matrix-claim-editor",
                dict(user, name="carol"), NS),
        binding("ClusterRoleBinding", "team-d-view", "matrix-viewer",
                dict(group, name="team-d")),
        {"apiVersion": "v1", "kind": "ServiceAccount",
         "metadata": {"name": "robot", "namespace": NS}},
        binding("RoleBinding", "robot-view", "matrix-viewer",
                {"kind": "ServiceAccount", "name": "robot",
                 "namespace": NS}, NS),
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node1"}},
        {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "node2"}},
        slice_("slice-node1", "node1"), slice_("slice-node2", "node2"),
        lease("node1"), lease("node2"),
        claim("c1"), claim("c2"), claim("c3"),
        pod("p1", "node1", "c1"), pod("p2", "node2", "c2"),
    ]


def slice_manifest(name, node):
    return json.dumps(slice_(name, node, pool=node + "-b"))


def claim_manifest(name, namespace):
    return json.dumps({
        "apiVersion": "resource.k8s.io/v1", "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": {
            "deviceClassName": "gpu.example.com"}}]}}})


# (identity, request: kubectl arguments, stdin or None, can-i arguments,
#  expected: True allowed / False refused, refused by admission)
CELLS = [
    # anonymous (no credentials: kubectl would prompt for a password, so
    # these cells speak HTTP; can-i is the admin's SubjectAccessReview): /version
    # and health only.
    ("anonymous", ["HTTP", "GET", "/version"], None,
     {"nonResourceAttributes": {"verb": "get", "path": "/version"}},
     True, False),
    ("anonymous", ["HTTP", "GET", "/readyz"], None,
     {"nonResourceAttributes": {"verb": "get", "path": "/readyz"}},
     True, False),
    ("anonymous", ["HTTP", "GET", "/metrics"], None,
     {"nonResourceAttributes": {"verb": "get", "path": "/metrics"}},
     False, False),
    ("anonymous", ["HTTP", "GET", "/api/v1/namespaces/%s/pods" % NS], None,
     {"resourceAttributes": {"verb": "list", "resource": "pods",
                             "namespace": NS}}, False, False),
    ("anonymous", ["HTTP", "GET", "/apis/resource.k8s.io/v1/deviceclasses"],
     None, {"resourceAttributes": {"verb": "list", "group": "resource.k8s.io",
                                   "resource": "deviceclasses"}},
     False, False),
    ("anonymous", ["HTTP", "POST", "/apis/resource.k8s.io/v1/namespaces/%s/"
                   "resourceclaims" % NS], claim_manifest("anon", NS),
     {"resourceAttributes": {"verb": "create", "group": "resource.k8s.io",
                             "resource": "resourceclaims", "namespace": NS}},
     False, False),
    # carol: a client certificate, edit in team-m.
    ("carol", ["get", "resourceclaims", "-n", NS], None,
     ["list", "resourceclaims.resource.k8s.io", "-n", NS], True, False),
    ("carol", ["create", "-f", "-"], claim_manifest("carol-1", NS),
     ["create", "resourceclaims.resource.k8s.io", "-n", NS], True, False),
    ("carol", ["delete", "resourceclaim", "carol-1", "-n", NS], None,
     ["delete", "resourceclaims.resource.k8s.io/carol-1", "-n", NS],
     True, False),
    ("carol", ["create", "-f", "-"], claim_manifest("carol-2", "default"),
     ["create", "resourceclaims.resource.k8s.io", "-n", "default"],
     False, False),
    ("carol", ["get", "resourceclaimtemplates", "-n", NS], None,
     ["list", "resourceclaimtemplates.resource.k8s.io", "-n", NS],
     True, False),
    ("carol", ["get", "pods", "-n", NS], None,
     ["list", "pods", "-n", NS], True, False),
    ("carol", ["get", "pods", "-n", "default"], None,
     ["list", "pods", "-n", "default"], False, False),
    ("carol", ["get", "nodes"], None, ["list", "nodes"], False, False),
    ("carol", ["get", "resourceslices"], None,
     ["list", "resourceslices.resource.k8s.io"], False, False),
    ("carol", ["delete", "deviceclass", "nothing"], None,
     ["delete", "deviceclasses.resource.k8s.io/nothing"], False, False),
    ("carol", ["get", "roles", "-n", NS], None,
     ["list", "roles.rbac.authorization.k8s.io", "-n", NS], False, False),
    ("carol", ["patch", "resourceclaim", "c3", "-n", NS,
               "--subresource=status", "--type=merge", "-p", '{"status":{}}'],
     None, ["patch", "resourceclaims.resource.k8s.io/c3", "-n", NS,
            "--subresource=status"], False, False),
    ("carol", ["get", "--raw", "/version"], None,
     ["get", "/version"], True, False),
    # dave: a token of --token-auth-file, view everywhere through his group.
    ("dave", ["get", "pods", "-n", "default"], None,
     ["list", "pods", "-n", "default"], True, False),
    ("dave", ["get", "resourceclaim", "c1", "-n", NS], None,
     ["get", "resourceclaims.resource.k8s.io/c1", "-n", NS], True, False),
    ("dave", ["create", "-f", "-"], claim_manifest("dave-1", NS),
     ["create", "resourceclaims.resource.k8s.io", "-n", NS], False, False),
    ("dave", ["delete", "pod", "p1", "-n", NS], None,
     ["delete", "pods/p1", "-n", NS], False, False),
    ("dave", ["get", "nodes"], None, ["list", "nodes"], False, False),
    ("dave", ["get", "--raw", "/metrics"], None,
     ["get", "/metrics"], False, False),
    ("dave", ["get", "rolebindings", "-n", NS], None,
     ["list", "rolebindings.rbac.authorization.k8s.io", "-n", NS],
     False, False),
    # robot: a ServiceAccount token (TokenRequest), view in team-m; every
    # ServiceAccount may read the issuer discovery documents.
    ("robot", ["get", "resourceclaims", "-n", NS], None,
     ["list", "resourceclaims.resource.k8s.io", "-n", NS], True, False),
    ("robot", ["get", "pod", "p1", "-n", NS], None,
     ["get", "pods/p1", "-n", NS], True, False),
    ("robot", ["create", "-f", "-"], claim_manifest("robot-1", NS),
     ["create", "resourceclaims.resource.k8s.io", "-n", NS], False, False),
    ("robot", ["get", "pods", "-n", "default"], None,
     ["list", "pods", "-n", "default"], False, False),
    ("robot", ["get", "serviceaccounts", "-n", NS], None,
     ["list", "serviceaccounts", "-n", NS], False, False),
    ("robot", ["create", "token", "robot", "-n", NS], None,
     ["create", "serviceaccounts", "--subresource=token", "-n", NS],
     False, False),
    ("robot", ["get", "--raw", "/.well-known/openid-configuration"], None,
     ["get", "/.well-known/openid-configuration"], True, False),
    ("carol", ["get", "--raw", "/openid/v1/jwks"], None,
     ["get", "/openid/v1/jwks"], False, False),
    ("admin", ["create", "token", "robot", "-n", NS], None,
     ["create", "serviceaccounts", "--subresource=token", "-n", NS],
     True, False),
    ("dave", ["create", "token", "robot", "-n", NS], None,
     ["create", "serviceaccounts", "--subresource=token", "-n", NS],
     False, False),
    # node1: its own Node, Lease, slices, pods and their claims. (can-i
    # on a named cluster-scoped object needs -A: without it kubectl asks
    # in the context's namespace, where the Node authorizer finds no
    # slice.)
    ("node1", ["get", "node", "node1"], None,
     ["get", "nodes/node1"], True, False),
    ("node1", ["get", "node", "node2"], None,
     ["get", "nodes/node2"], False, False),
    ("node1", ["get", "nodes"], None, ["list", "nodes"], False, False),
    ("node1", ["get", "lease", "node1", "-n", "kube-node-lease"], None,
     ["get", "leases.coordination.k8s.io/node1", "-n",
      "kube-node-lease"], True, False),
    ("node1", ["get", "lease", "node2", "-n", "kube-node-lease"], None,
     ["get", "leases.coordination.k8s.io/node2", "-n",
      "kube-node-lease"], False, False),
    ("node1", ["get", "resourceslice", "slice-node1"], None,
     ["get", "resourceslices.resource.k8s.io/slice-node1", "-A"], True, False),
    ("node1", ["get", "resourceslice", "slice-node2"], None,
     ["get", "resourceslices.resource.k8s.io/slice-node2", "-A"], False, False),
    ("node1", ["delete", "resourceslice", "slice-node2"], None,
     ["delete", "resourceslices.resource.k8s.io/slice-node2", "-A"],
     False, False),
    ("node1", ["get", "resourceslices"], None,
     ["list", "resourceslices.resource.k8s.io"], False, False),
    ("node1", ["create", "-f", "-"], slice_manifest("slice-node1-b", "node1"),
     ["create", "resourceslices.resource.k8s.io"], True, False),
    ("node1", ["create", "-f", "-"], slice_manifest("slice-x", "node2"),
     ["create", "resourceslices.resource.k8s.io"], False, True),
    ("node1", ["get", "pod", "p1", "-n", NS], None,
     ["get", "pods/p1", "-n", NS], True, False),
    ("node1", ["get", "pod", "p2", "-n", NS], None,
     ["get", "pods/p2", "-n", NS], False, False),
    ("node1", ["get", "pods", "-A"], None,
     ["list", "pods", "-A"], False, False),
    ("node1", ["get", "resourceclaim", "c1", "-n", NS], None,
     ["get", "resourceclaims.resource.k8s.io/c1", "-n", NS], True, False),
    ("node1", ["get", "resourceclaim", "c2", "-n", NS], None,
     ["get", "resourceclaims.resource.k8s.io/c2", "-n", NS], False, False),
    ("node1", ["get", "resourceclaims", "-n", NS], None,
     ["list", "resourceclaims.resource.k8s.io", "-n", NS], False, False),
    ("node1", ["label", "node", "node2", "x=y"], None,
     ["patch", "nodes/node2"], False, True),
    ("node1", ["label", "node", "node1", "x=y"], None,
     ["patch", "nodes/node1"], True, False),
    ("node1", ["get", "deviceclasses"], None,
     ["list", "deviceclasses.resource.k8s.io"], False, False),
    # impersonation by the admin.
    ("admin", ["--as", "carol", "get", "resourceclaims", "-n", NS], None,
     ["--as", "carol", "list", "resourceclaims.resource.k8s.io", "-n", NS],
     True, False),
    ("admin", ["--as", "carol", "get", "nodes"], None,
     ["--as", "carol", "list", "nodes"], False, False),
    ("admin", ["--as", "dave", "--as-group", "team-d", "get", "pods",
               "-n", "default"], None,
     ["--as", "dave", "--as-group", "team-d", "list", "pods", "-n",
      "default"], True, False),
    ("admin", ["--as", "dave", "get", "pods", "-n", "default"], None,
     ["--as", "dave", "list", "pods", "-n", "default"], False, False),
    ("admin", ["--as", "system:node:node1", "--as-group", "system:nodes",
               "get", "node", "node1"], None,
     ["--as", "system:node:node1", "--as-group", "system:nodes", "get",
      "nodes/node1"], True, False),
    ("admin", ["--as", "system:node:node1", "--as-group", "system:nodes",
               "get", "node", "node2"], None,
     ["--as", "system:node:node1", "--as-group", "system:nodes", "get",
      "nodes/node2"], False, False),
    ("admin", ["--as", "erin", "get", "--raw", "/version"], None,
     ["--as", "erin", "get", "/version"], True, False),
]


def kubeconfig(path, server, ca, user):
    with open(path, "w") as f:
        json.dump({"apiVersion": "v1", "kind": "Config",
                   "clusters": [{"name": "m", "cluster": {
                       "server": server, "certificate-authority": ca}}],
                   "users": [{"name": "u", "user": user}],
                   "contexts": [{"name": "m", "context": {
                       "cluster": "m", "user": "u"}}],
                   "current-context": "m"}, f)


class Matrix:
    """One server and a kubeconfig per identity."""

    def __init__(self, kind, args, work):
        self.kind, self.dir = kind, work
        self.kubectl = kubectl_e2e.find_kubectl(args.kubectl)
        self.draplane = os.path.abspath(args.draplane)
        tokens = os.path.join(work, "tokens.csv")
        with open(tokens, "w") as f:
            f.write(TOKENS)
        if kind == "real":
            self.server = k8s_mode_e2e.RealApiServer(
                args.bin, work, ["--enable-admission-plugins",
                                 "NodeRestriction", "--token-auth-file",
                                 tokens], authorization_mode="Node,RBAC")
        else:
            self.server = k8s_mode_e2e.DraplaneApiServer(
                self.draplane, work, ["--token-auth-file", tokens])
        self.configs = {}

    def start(self):
        self.server.start()
        self.configs["admin"] = self.server.kubeconfig
        admin = json.loads(self.k("admin", "config", "view", "--raw",
                                  "-o", "json").stdout)
        cluster = admin["clusters"][0]["cluster"]
        server = cluster["server"]
        ca = cluster.get("certificate-authority")
        if ca is None:
            ca = os.path.join(self.dir, "ca.crt")
            with open(ca, "wb") as f:
                f.write(base64.b64decode(
                    cluster["certificate-authority-data"]))
        self.url, self.ca = server, ca
        for name, user in (("dave", {"token": "tok-dave"}),):
            path = os.path.join(self.dir, name + ".kubeconfig")
            kubeconfig(path, server, ca, user)
            self.configs[name] = path
        for name, cn, org in (("carol", "carol", "team-c"),
                              ("node1", "system:node:node1",
                               "system:nodes")):
            self.configs[name] = self.client_cert(name, cn, org, server, ca)
        for obj in setup_objects():
            self.k("admin", "create", "-f", "-", input=json.dumps(obj))
        token = self.k("admin", "create", "token", "robot", "-n", NS,
                       "--duration", "1h").stdout.strip()
        path = os.path.join(self.dir, "robot.kubeconfig")
        kubeconfig(path, server, ca, {"token": token})
        self.configs["robot"] = path

    def client_cert(self, name, cn, org, server, ca):
        """A kubeconfig with a client certificate of the server's CA."""
        path = os.path.join(self.dir, name + ".kubeconfig")
        if self.kind == "draplane":
            p = subprocess.run(
                [self.draplane, "kubeconfig", "--data-dir",
                 self.server.data_dir, "--user", cn, "--group", org,
                 "--duration", "1h", "-o", path],
                capture_output=True, text=True, timeout=60)
            if p.returncode != 0:
                raise Failure("draplane kubeconfig: " + p.stderr)
            return path
        pki = self.server.pki_path
        key, csr, crt = (os.path.join(self.dir, name + ext)
                         for ext in (".key", ".csr", ".crt"))
        k8s_mode_e2e.openssl("req", "-newkey", "ec", "-pkeyopt",
                             "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                             key, "-out", csr, "-subj",
                             "/O=%s/CN=%s" % (org, cn))
        ext = os.path.join(self.dir, name + ".ext")
        with open(ext, "w") as f:
            f.write("extendedKeyUsage=clientAuth\n")
        k8s_mode_e2e.openssl("x509", "-req", "-in", csr, "-CA", pki("ca.crt"),
                             "-CAkey", pki("ca.key"), "-CAcreateserial",
                             "-out", crt, "-days", "1", "-extfile", ext)
        kubeconfig(path, server, ca,
                   {"client-certificate": crt, "client-key": key})
        return path

    def k(self, who, *args, input=None, check=True):
        p = subprocess.run(
            [self.kubectl, "--kubeconfig", self.configs[who], "--cache-dir",
             os.path.join(self.dir, "cache-" + who)] + list(args),
            input=input if input is not None else "",
            capture_output=True, text=True, timeout=60)
        if check and p.returncode != 0:
            raise Failure("kubectl (%s) %s: exit %d\n%s" % (
                who, " ".join(args), p.returncode, p.stderr))
        return p

    def http(self, method, path, body=None):
        """A request without credentials: (status code, parsed body)."""
        ctx = ssl.create_default_context(cafile=self.ca)
        req = urllib.request.Request(
            self.url + path, method=method,
            data=body.encode() if body is not None else None,
            headers={"Content-Type": "application/json",
                     "Accept": "application/json"})
        try:
            with urllib.request.urlopen(req, context=ctx, timeout=30) as r:
                text = r.read().decode()
                code = r.status
        except urllib.error.HTTPError as err:
            text, code = err.read().decode(), err.code
        try:
            return code, json.loads(text)
        except ValueError:
            return code, text

    def anonymous_cell(self, request, stdin, can_i):
        code, _ = self.http(request[1], request[2], stdin)
        if code not in (200, 201, 403):
            raise Failure("%s: anonymous %s %s: HTTP %d" % (
                self.kind, request[1], request[2], code))
        # Anonymous may not ask (SelfSubjectAccessReview needs
        # system:basic-user, bound to system:authenticated): the admin asks
        # for it with a SubjectAccessReview.
        review = {"apiVersion": "authorization.k8s.io/v1",
                  "kind": "SubjectAccessReview",
                  "spec": dict(can_i, user="system:anonymous",
                               groups=["system:unauthenticated"])}
        q = self.k("admin", "create", "-o", "json", "--validate=false",
                   "-f", "-", input=json.dumps(review), check=False)
        if q.returncode != 0:
            raise Failure("%s: SubjectAccessReview for anonymous: %s" % (
                self.kind, q.stderr))
        said = json.loads(q.stdout).get("status", {}).get("allowed", False)
        return code != 403, said

    def run_cells(self):
        """Each cell's (allowed, can-i answer); a Failure for a request
        that neither succeeded nor was refused."""
        outcomes = []
        for who, request, stdin, can_i, _, _ in CELLS:
            if request[0] == "HTTP":
                outcomes.append(self.anonymous_cell(request, stdin, can_i))
                continue
            p = self.k(who, *request, input=stdin, check=False)
            if p.returncode == 0:
                allowed = True
            elif "Forbidden" in p.stderr or "forbidden" in p.stderr:
                allowed = False
            else:
                raise Failure("%s: kubectl (%s) %s: neither allowed nor "
                              "refused: %s" % (self.kind, who,
                                               " ".join(request), p.stderr))
            q = self.k(who, "auth", "can-i", *can_i, check=False)
            answer = q.stdout.strip().splitlines()[:1]
            # An identity that may not ask (anonymous) gets a Forbidden.
            said = answer == ["yes"]
            outcomes.append((allowed, said))
        return outcomes

    def stop(self):
        self.server.stop()


def check(kind, outcomes):
    """Every cell as expected, can-i agreeing; the failures' texts."""
    failures = []
    for cell, (allowed, said) in zip(CELLS, outcomes):
        who, request, _, can_i, expected, by_admission = cell
        name = "%s: %s %s" % (kind, who, " ".join(request))
        if allowed != expected:
            failures.append("%s: %s, expected %s" % (
                name, "allowed" if allowed else "refused",
                "allowed" if expected else "refused"))
        want_said = True if by_admission else expected
        if said != want_said:
            failures.append("%s: kubectl auth can-i %s said %s" % (
                name, can_i if isinstance(can_i, dict) else " ".join(can_i),
                "yes" if said else "no"))
    return failures


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--draplane", required=True)
    ap.add_argument("--kubectl")
    ap.add_argument("--apiserver", choices=("draplane", "real", "both"),
                    default="both")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    kinds = ["draplane", "real"] if args.apiserver == "both" else [
        args.apiserver]
    if "real" in kinds and not os.path.exists(
            os.path.join(args.bin, "kube-apiserver")):
        print("permission matrix: %s/kube-apiserver missing: run "
              "scripts/build-kube-apiserver" % args.bin, file=sys.stderr)
        return 1
    results, failures, dirs = {}, [], []
    for kind in kinds:
        work = tempfile.mkdtemp(prefix="draplane-matrix-%s-" % kind)
        dirs.append(work)
        m = Matrix(kind, args, work)
        try:
            m.start()
            results[kind] = m.run_cells()
            failures += check(kind, results[kind])
        except Failure as f:
            failures.append(str(f))
        finally:
            m.stop()
    if len(results) == 2:
        for cell, a, b in zip(CELLS, results["draplane"], results["real"]):
            if a != b:
                failures.append(
                    "draplane and kube-apiserver differ on %s %s: "
                    "(allowed, can-i) %s vs %s" % (
                        cell[0], " ".join(cell[1]), a, b))
    for f in failures:
        print("FAIL", f)
    if failures:
        for work in dirs:
            for name in sorted(os.listdir(work)):
                if name.endswith(".log"):
                    print("---- %s/%s (tail)" % (work, name))
                    print("".join(open(os.path.join(work, name))
                                  .readlines()[-20:]))
    else:
        for work in dirs:
            shutil.rmtree(work, ignore_errors=True)
    print("permission matrix: %d cells x %s: %s" % (
        len(CELLS), "+".join(kinds),
        "%d failures" % len(failures) if failures else "all as expected"
        + (", identical outcomes" if len(results) == 2 else "")))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
