#!/usr/bin/env python3
"""Proves that scripts/check-thread-safety fails on an unlocked access to an
ABSL_GUARDED_BY member and passes the same code with the lock held.

Writes two small sources and a compile_commands.json for them in a
temporary folder. Skips (exit 0, with a note) without clang++.
Run: python3 tests/scripts/check_thread_safety_test.py
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
SCRIPT = os.path.join(ROOT, 'scripts', 'check-thread-safety')

SOURCE = '''#include "absl/base/thread_annotations.h"
#include "absl/synchronization/mutex.h"

class Counter {
 public:
  void Add() {
    %s
    ++n_;
  }

 private:
  absl::Mutex mu_;
  int n_ ABSL_GUARDED_BY(mu_) = 0;
};

int main() {
  Counter c;
  c.Add();
}
'''


def check(tree, name, lock_line):
    path = os.path.join(tree, name)
    with open(path, 'w') as f:
        f.write(SOURCE % lock_line)
    db = os.path.join(tree, 'compile_commands.json')
    with open(db, 'w') as f:
        json.dump([{'directory': tree, 'file': path,
                    'command': f'c++ -std=c++20 -c {path} -o {path}.o'}], f)
    return subprocess.run([sys.executable, SCRIPT, '--db', db, path],
                          capture_output=True, text=True)


def main():
    if shutil.which('clang++') is None:
        print('check_thread_safety_test: SKIPPED: clang++ not found')
        return 0
    failures = []
    with tempfile.TemporaryDirectory() as tree:
        locked = check(tree, 'locked.cc', 'absl::MutexLock lock(&mu_);')
        if locked.returncode != 0:
            failures.append(f'locked access failed: {locked.stderr}')
        unlocked = check(tree, 'unlocked.cc', '')
        if unlocked.returncode == 0:
            failures.append('an unlocked access passed')
        elif "requires holding mutex 'mu_'" not in unlocked.stderr:
            failures.append(f'unexpected message: {unlocked.stderr}')
        missing = subprocess.run(
            [sys.executable, SCRIPT, '--db',
             os.path.join(tree, 'compile_commands.json'),
             os.path.join(tree, 'absent.cc')], capture_output=True, text=True)
        if missing.returncode == 0:
            failures.append('a file missing from the compile commands passed')
    for f in failures:
        print('FAIL:', f)
    print(f'check_thread_safety_test: {3 - len(failures)} passed, '
          f'{len(failures)} failed')
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
