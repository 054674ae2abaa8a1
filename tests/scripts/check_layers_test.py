#!/usr/bin/env python3
"""Proves that scripts/check-layers fails on each kind of layering mistake.

Copies src/, docs/ARCHITECTURE.md and the script into a temporary tree,
checks that the copy passes, then makes one mistake at a time and checks
that the script exits 1 naming it. Run: python3 tests/scripts/check_layers_test.py
"""

import os
import re
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def run(tree):
    p = subprocess.run([sys.executable, os.path.join(tree, 'scripts',
                                                     'check-layers'),
                        '--root', tree], capture_output=True, text=True)
    return p.returncode, p.stdout + p.stderr


def copy_tree(dst):
    shutil.copytree(os.path.join(ROOT, 'src'), os.path.join(dst, 'src'))
    for sub in ('bench', 'fuzz', 'tests'):
        os.makedirs(os.path.join(dst, sub))
    os.makedirs(os.path.join(dst, 'docs'))
    shutil.copy(os.path.join(ROOT, 'docs', 'ARCHITECTURE.md'),
                os.path.join(dst, 'docs'))
    os.makedirs(os.path.join(dst, 'scripts'))
    shutil.copy(os.path.join(ROOT, 'scripts', 'check-layers'),
                os.path.join(dst, 'scripts'))


def edit(tree, path, old, new):
    full = os.path.join(tree, path)
    text = open(full).read()
    assert old in text, (path, old)
    open(full, 'w').write(text.replace(old, new, 1))


def append(tree, path, text):
    with open(os.path.join(tree, path), 'a') as f:
        f.write(text)


CASES = [
    # (name, mutation, text the report must contain)
    ('wrong-way include',
     lambda t: append(t, 'src/client/client.cc',
                      '\n#include "apiserver/api_server.h"\n'),
     'src/client/client.cc'),
    ('include of a library not in the row',
     lambda t: append(t, 'src/store/store.cc', '\n#include "api/object.h"\n'),
     'draplane_store does not depend on'),
    ('internal header of another library',
     lambda t: append(t, 'src/selectors/label_selector.cc',
                      '\n#include "api/internal/type_mappings.h"\n'),
     'an internal header of draplane_api'),
    ('internal header from a benchmark',
     lambda t: (os.makedirs(os.path.join(t, 'bench'), exist_ok=True),
                append(t, 'bench/x_benchmark.cc',
                       '#include "cel/internal/parser.h"\n')),
     'from outside its folder'),
    ('link not in the row',
     lambda t: edit(t, 'src/store/CMakeLists.txt', '    draplane_common\n',
                    '    draplane_common\n    draplane_api\n'),
     'links draplane_api, which its row does not name'),
    ('row naming a library below it',
     lambda t: edit(t, 'docs/ARCHITECTURE.md',
                    '| `clock`, `common`, `logging`; SQLite |',
                    '| `clock`, `common`, `logging`, `client`; SQLite |'),
     'depends on draplane_client, which is not above it'),
    ('library code writing to stderr',
     lambda t: append(t, 'src/store/store.cc',
                      '\nvoid Noise() { std::cerr << "x"; }\n'),
     'writes to stderr (std::cerr)'),
    ('library without a row',
     lambda t: append(t, 'src/store/CMakeLists.txt',
                      '\ndraplane_library(extra SRCS store.cc DEPS)\n'),
     'draplane_extra has no row'),
]


def main():
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        base = os.path.join(tmp, 'base')
        copy_tree(base)
        rc, out = run(base)
        if rc != 0:
            print('FAIL: the unchanged tree does not pass:\n' + out)
            return 1
        for name, mutate, expect in CASES:
            tree = os.path.join(tmp, re.sub(r'\W+', '-', name))
            shutil.copytree(base, tree)
            mutate(tree)
            rc, out = run(tree)
            ok = rc == 1 and (expect is None or expect in out)
            print(('ok   ' if ok else 'FAIL ') + name)
            if not ok:
                print(f'  exit {rc}, expected 1 with {expect!r}:\n{out}')
                failures += 1
    print(f'{len(CASES) - failures} passed, {failures} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
