#!/usr/bin/env python3
"""The Helm chart deploy/helm/draplane, with helm v4.3.2 (scripts/build-helm):

  - `helm lint --strict` passes with no warning or error;
  - the chart's version and appVersion are draplane's (`draplane version`);
  - rendered with its defaults: a ServiceAccount, ClusterRole and binding
    per component with no wildcard and no binding to cluster-admin, admin
    or edit; Leases only in the release's namespace and only the
    component's own by name; the scheduler and controller as Deployments
    of two replicas, non-root with a read-only root, leader election,
    kube-scheduler's and kube-controller-manager's client limits and
    HTTPS probes; the kubelet plugin as a privileged DaemonSet with the
    kubelet's plugin directories (plugins Bidirectional), the CDI
    directory, the driver root, NODE_NAME from the downward API,
    system-node-critical, GPU-node affinity with the exclusivity label
    and a gRPC liveness probe; the ValidatingAdmissionPolicy and its
    binding; DeviceClasses gpu.nvidia.com and mig.nvidia.com; the
    controller (its DRA monitor only) writing no ResourceClaim;
  - rendered with every option on: the ServiceMonitors, the PrometheusRule
    with deploy/prometheus/alerts.yaml's groups, the dashboard ConfigMap
    with deploy/grafana/draplane.json;
  - where scripts/build-kube-apiserver has built kube-apiserver v1.37.2:
    every rendered object is accepted by it (`kubectl apply --dry-run=server`,
    the CEL of the admission policy compiled by it).

  tests/e2e/helm_chart_test.py --draplane build/release/src/cmd/draplane \
      --helm build/helm --kubectl build/kubectl [--bin build]
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

import yaml

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import k8s_mode_e2e  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
CHART = os.path.join(ROOT, "deploy", "helm", "draplane")
NS = "draplane-system"
results = {"passed": 0, "failed": 0}


def check(ok, what):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + what, flush=True)


def render(helm, *sets):
    args = [helm, "template", "draplane", CHART, "-n", NS]
    for s in sets:
        args += ["--set", s]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return [d for d in yaml.safe_load_all(out) if d]


def by_kind(docs, kind):
    return [d for d in docs if d["kind"] == kind]


def container(doc):
    return doc["spec"]["template"]["spec"]["containers"][0]


def check_rbac(docs):
    wild = []
    for role in by_kind(docs, "ClusterRole") + by_kind(docs, "Role"):
        for rule in role.get("rules", []):
            for field in ("verbs", "resources", "apiGroups", "nonResourceURLs"):
                if "*" in rule.get(field, []):
                    wild.append("%s %s" % (role["metadata"]["name"], field))
    check(not wild, "no wildcard in any rule: %s" % wild)
    broad = [b["metadata"]["name"]
             for b in by_kind(docs, "ClusterRoleBinding") + by_kind(docs, "RoleBinding")
             if b["roleRef"]["name"] in ("cluster-admin", "admin", "edit")]
    check(not broad, "nothing bound to cluster-admin, admin or edit: %s" % broad)
    sas = {d["metadata"]["name"] for d in by_kind(docs, "ServiceAccount")}
    check(sas == {"draplane-scheduler", "draplane-controller",
                  "draplane-kubelet-plugin"}, "one ServiceAccount per component: %s" % sas)
    leases = []
    for role in by_kind(docs, "ClusterRole"):
        for rule in role["rules"]:
            if "leases" in rule["resources"] and set(rule["verbs"]) - {"get", "list", "watch"}:
                leases.append(role["metadata"]["name"])
    check(not leases, "no cluster-wide Lease writes: %s" % leases)
    for role in by_kind(docs, "Role"):
        if role["metadata"]["name"].endswith("-leader-election"):
            named = [r for r in role["rules"] if "update" in r["verbs"]]
            check(role["metadata"]["namespace"] == NS and named and
                  named[0].get("resourceNames") in (["draplane-scheduler"],
                                                    ["draplane-controller"]),
                  "%s: its own Lease by name in %s" % (role["metadata"]["name"], NS))
    delegated = {b["subjects"][0]["name"] for b in by_kind(docs, "ClusterRoleBinding")
                 if b["roleRef"]["name"] == "system:auth-delegator"}
    readers = {b["subjects"][0]["name"] for b in by_kind(docs, "RoleBinding")
               if b["roleRef"]["name"] == "extension-apiserver-authentication-reader"
               and b["metadata"]["namespace"] == "kube-system"}
    check(delegated == readers == {"draplane-scheduler", "draplane-controller"},
          "the secure ports' delegation: auth-delegator %s, reader %s" %
          (sorted(delegated), sorted(readers)))


def check_workloads(docs, app_version):
    deployments = {d["metadata"]["name"]: d for d in by_kind(docs, "Deployment")}
    check(set(deployments) == {"draplane-scheduler", "draplane-controller"},
          "Deployments %s" % sorted(deployments))
    limits = {"draplane-scheduler": ("50", "100", "10259"),
              "draplane-controller": ("20", "30", "10257")}
    for name, d in deployments.items():
        c = container(d)
        sc = c["securityContext"]
        args = c["args"]
        qps, burst, port = limits[name]
        check(d["spec"]["replicas"] == 2 and sc["runAsNonRoot"] and
              sc["readOnlyRootFilesystem"] and not sc["allowPrivilegeEscalation"] and
              sc["capabilities"]["drop"] == ["ALL"],
              "%s: two replicas, non-root, read-only root, no privilege" % name)
        check("--leader-elect-resource-namespace=%s" % NS in args and
              "--kube-api-qps=%s" % qps in args and
              "--kube-api-burst=%s" % burst in args and
              "--secure-port=%s" % port in args,
              "%s: leader election in %s, client limits %s/%s, port %s: %s" %
              (name, NS, qps, burst, port, args))
        check(c["livenessProbe"]["httpGet"]["scheme"] == "HTTPS" and
              c["readinessProbe"]["httpGet"]["path"] == "/readyz",
              "%s: HTTPS /livez and /readyz probes" % name)
        check(c["image"].endswith(":" + app_version), "%s image %s" % (name, c["image"]))
    ds = by_kind(docs, "DaemonSet")
    check(len(ds) == 1, "one DaemonSet")
    spec = ds[0]["spec"]["template"]["spec"]
    c = spec["containers"][0]
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    env = {e["name"]: e for e in c["env"]}
    terms = spec["affinity"]["nodeAffinity"][
        "requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    check(c["securityContext"]["privileged"] and
          spec["priorityClassName"] == "system-node-critical" and
          env["NODE_NAME"]["valueFrom"]["fieldRef"]["fieldPath"] == "spec.nodeName" and
          c["livenessProbe"]["grpc"] == {"port": 51515, "service": "liveness"},
          "kubelet plugin: privileged, system-node-critical, NODE_NAME, gRPC liveness")
    check(mounts["/var/lib/kubelet/plugins"].get("mountPropagation") == "Bidirectional" and
          "/var/lib/kubelet/plugins_registry" in mounts and "/var/run/cdi" in mounts and
          mounts["/driver-root"]["readOnly"],
          "kubelet plugin: plugin directories, CDI, read-only driver root: %s" %
          sorted(mounts))
    check(all(any(e["key"] == "draplane.dev/gpu-dra-driver" and
                  e["operator"] == "NotIn" for e in t["matchExpressions"])
              for t in terms) and len(terms) == 2,
          "kubelet plugin: GPU nodes not left to NVIDIA's driver")
    vap = by_kind(docs, "ValidatingAdmissionPolicy")
    check(len(vap) == 1 and len(by_kind(docs, "ValidatingAdmissionPolicyBinding")) == 1 and
          "system:serviceaccount:%s:draplane-kubelet-plugin" % NS in
          vap[0]["spec"]["matchConditions"][0]["expression"],
          "the admission policy limits the plugin to its own node's slices")
    classes = {d["metadata"]["name"] for d in by_kind(docs, "DeviceClass")}
    check(classes == {"gpu.nvidia.com", "mig.nvidia.com"}, "DeviceClasses %s" % classes)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draplane", required=True)
    ap.add_argument("--helm", required=True)
    ap.add_argument("--kubectl")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build"))
    args = ap.parse_args()
    lint = subprocess.run([args.helm, "lint", "--strict", CHART],
                          capture_output=True, text=True)
    check(lint.returncode == 0 and "[WARNING]" not in lint.stdout and
          "[ERROR]" not in lint.stdout,
          "helm lint --strict: exit %d\n%s" % (lint.returncode, lint.stdout))
    with open(os.path.join(CHART, "Chart.yaml")) as f:
        chart = yaml.safe_load(f)
    version = json.loads(subprocess.run([args.draplane, "version", "-o", "json"],
                                        capture_output=True, text=True,
                                        check=True).stdout)["version"]
    check(chart["version"] == chart["appVersion"] == version,
          "chart %s, app %s, draplane %s" % (chart["version"], chart["appVersion"],
                                             version))
    docs = render(args.helm)
    check_rbac(docs)
    # By default the controller runs only the DRA monitor (the cluster's
    # kube-controller-manager runs the resourceclaim controller): it reads
    # claims and writes none.
    default_role = [d for d in by_kind(docs, "ClusterRole")
                    if d["metadata"]["name"] == "draplane-controller"][0]
    claim_writes = [r for r in default_role["rules"]
                    if any(x.startswith("resourceclaims") for x in r["resources"]) and
                    set(r["verbs"]) - {"get", "list", "watch"}]
    check(not claim_writes, "the default controller writes no ResourceClaim: %s" %
          claim_writes)
    check_workloads(docs, chart["appVersion"])

    full = render(args.helm, "metrics.serviceMonitor.enabled=true",
                  "metrics.prometheusRule.enabled=true",
                  "metrics.grafanaDashboard.enabled=true",
                  "controller.controllers=*")
    check(len(by_kind(full, "ServiceMonitor")) == 2, "two ServiceMonitors")
    with open(os.path.join(ROOT, "deploy", "prometheus", "alerts.yaml")) as f:
        alerts = yaml.safe_load(f)
    rules = by_kind(full, "PrometheusRule")
    check(len(rules) == 1 and rules[0]["spec"] == alerts["spec"],
          "the PrometheusRule carries deploy/prometheus/alerts.yaml")
    dash = [d for d in by_kind(full, "ConfigMap") if d["metadata"]["name"].endswith("-dashboard")]
    with open(os.path.join(ROOT, "deploy", "grafana", "draplane.json")) as f:
        want = json.load(f)
    check(len(dash) == 1 and json.loads(dash[0]["data"]["draplane.json"]) == want and
          dash[0]["metadata"]["labels"].get("grafana_dashboard") == "1",
          "the dashboard ConfigMap carries deploy/grafana/draplane.json")
    controller_role = [d for d in by_kind(full, "ClusterRole")
                       if d["metadata"]["name"] == "draplane-controller"][0]
    resources = {r for rule in controller_role["rules"] for r in rule["resources"]}
    check({"resourceclaimtemplates", "nodes/status", "resourcequotas/status"} <= resources,
          "every controller's rules with controller.controllers=*: %s" % sorted(resources))
    check_rbac(full)

    if not os.path.exists(os.path.join(args.bin, "kube-apiserver")) or not args.kubectl:
        print("helm chart test: kube-apiserver or kubectl not built: the server-side "
              "dry run is skipped (scripts/build-kube-apiserver, scripts/build-kubectl)")
    else:
        work = tempfile.mkdtemp(prefix="draplane-helm-")
        # As on clusters that run GPU drivers (kubeadm's default).
        server = k8s_mode_e2e.RealApiServer(args.bin, work,
                                            extra_args=["--allow-privileged=true"])
        try:
            server.start()
            kubectl = [args.kubectl, "--kubeconfig", server.kubeconfig]
            subprocess.run(kubectl + ["create", "namespace", NS], check=True,
                           capture_output=True)
            rendered = os.path.join(work, "rendered.yaml")
            with open(rendered, "w") as f:
                yaml.safe_dump_all(docs, f)
            p = subprocess.run(kubectl + ["apply", "--dry-run=server", "-f", rendered],
                               capture_output=True, text=True)
            check(p.returncode == 0 and "Warning" not in p.stderr,
                  "kube-apiserver v1.37.2 accepts every object (dry run): exit %d\n%s%s" %
                  (p.returncode, p.stdout[-2000:], p.stderr[-2000:]))
        finally:
            server.stop()
            shutil.rmtree(work, ignore_errors=True)
    print("helm chart test: %d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
