#!/usr/bin/env python3
"""The container image from scripts/build-image, without a container engine:

  - two builds of the same binary give byte-identical archives
    (reproducible);
  - skopeo (Debian's) reads the archive: linux, this machine's
    architecture, the version labels of `draplane version`, the non-root
    default user 65532, the entrypoint;
  - its root file system, unpacked from the layer blob, runs
    `draplane version -o json` and `draplane node --help` in a chroot
    inside an unprivileged user namespace (`unshare -Ur`): the runtime
    closure is complete (no library from the host), and reads the CA
    bundle at the path the image's SSL_CERT_FILE names.

  tests/e2e/image_test.py --draplane build/release/src/cmd/draplane
"""

import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
results = {"passed": 0, "failed": 0}


def check(ok, what):
    results["passed" if ok else "failed"] += 1
    print(("PASS " if ok else "FAIL ") + what, flush=True)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--draplane", required=True)
    args = ap.parse_args()
    for tool in ("skopeo", "unshare", "chroot"):
        if shutil.which(tool) is None:
            print("image test: %s not found (scripts/install-deps installs it)" % tool,
                  file=sys.stderr)
            return 1
    work = tempfile.mkdtemp(prefix="draplane-image-")
    try:
        archives = []
        for i in (1, 2):
            out = os.path.join(work, "image-%d.tar" % i)
            subprocess.run([os.path.join(ROOT, "scripts", "build-image"),
                            "--draplane", args.draplane, "--output", out],
                           check=True, cwd=ROOT)
            archives.append(out)
        check(sha256(archives[0]) == sha256(archives[1]),
              "two builds give the same archive (sha256 %s)" % sha256(archives[0]))

        version = json.loads(subprocess.run(
            [args.draplane, "version", "-o", "json"], capture_output=True,
            text=True, check=True).stdout)
        info = json.loads(subprocess.run(
            ["skopeo", "inspect", "oci-archive:" + archives[0]],
            capture_output=True, text=True, check=True).stdout)
        arch = subprocess.run(["dpkg", "--print-architecture"], capture_output=True,
                              text=True, check=True).stdout.strip()
        check(info.get("Os") == "linux" and info.get("Architecture") == arch,
              "skopeo reads it: %s/%s" % (info.get("Os"), info.get("Architecture")))
        labels = info.get("Labels") or {}
        check(labels.get("org.opencontainers.image.version") == version["version"] and
              labels.get("dev.draplane.kubernetes-version") == version["gitVersion"],
              "version labels %s" % labels)
        config = json.loads(subprocess.run(
            ["skopeo", "inspect", "--config", "oci-archive:" + archives[0]],
            capture_output=True, text=True, check=True).stdout)["config"]
        check(config.get("User") == "65532:65532" and
              config.get("Entrypoint") == ["/usr/bin/draplane"],
              "non-root default user and entrypoint: %s %s" %
              (config.get("User"), config.get("Entrypoint")))

        layout = os.path.join(work, "layout")
        with tarfile.open(archives[0]) as t:
            t.extractall(layout)
        with open(os.path.join(layout, "index.json")) as f:
            manifest_digest = json.load(f)["manifests"][0]["digest"].split(":")[1]
        with open(os.path.join(layout, "blobs", "sha256", manifest_digest)) as f:
            manifest = json.load(f)
        layer = manifest["layers"][0]["digest"].split(":")[1]
        rootfs = os.path.join(work, "rootfs")
        os.makedirs(rootfs)
        with tarfile.open(os.path.join(layout, "blobs", "sha256", layer)) as t:
            t.extractall(rootfs)
        probe = subprocess.run(["unshare", "-Ur", "true"], capture_output=True)
        if probe.returncode != 0:
            print("image test: no unprivileged user namespaces here: the chroot "
                  "checks are skipped (%s)" % probe.stderr.decode().strip())
        else:
            chroot = shutil.which("chroot")
            env = {"PATH": "/usr/bin:/bin",
                   "SSL_CERT_FILE": "/etc/ssl/certs/ca-certificates.crt"}
            p = subprocess.run(["unshare", "-Ur", chroot, rootfs,
                                "/usr/bin/draplane", "version", "-o", "json"],
                               capture_output=True, text=True, env=env)
            check(p.returncode == 0 and json.loads(p.stdout or "{}") == version,
                  "draplane version in the image's root: exit %d %s%s" %
                  (p.returncode, p.stdout, p.stderr))
            p = subprocess.run(["unshare", "-Ur", chroot, rootfs,
                                "/usr/bin/draplane", "node", "--help"],
                               capture_output=True, text=True, env=env)
            check(p.returncode == 0 and "--healthcheck-port" in p.stdout,
                  "draplane node --help in the image's root: exit %d %s" %
                  (p.returncode, p.stderr))
            check(os.path.getsize(os.path.join(
                rootfs, "etc", "ssl", "certs", "ca-certificates.crt")) > 1000,
                "the CA bundle is in the image")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("image test: %d passed, %d failed" % (results["passed"], results["failed"]))
    return 1 if results["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
