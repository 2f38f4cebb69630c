#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Summarises a pytest JUnit XML file of TileLang-Ascend's language tests (upstream_suite.sh).

  upstream_report.py junit.xml

Prints, per test file: passed, failed, errors (collection or fixture problems) and skipped;
then the totals and the pass rate over the collected cases; then one line per case that did
not pass: file::case, outcome, and the first line of its message.
"""
import collections
import sys
import xml.etree.ElementTree as ET


def outcome(case):
    """(kind, one line saying why): the message, or for a collection error (whose message is
    generic) the exception line of its traceback."""
    for kind in ("error", "failure", "skipped"):
        node = case.find(kind)
        if node is None:
            continue
        message = (node.get("message") or "").strip()
        if kind == "error" or not message:
            raised = [l.strip() for l in (node.text or "").splitlines() if l.startswith("E ")]
            message = raised[-1][1:].strip() if raised else message
        return kind, message.splitlines()[0][:200] if message else ""
    return "passed", ""


PREFIX = "testing/python/language/"


def file_of(case):
    # classname is the dotted module ("testing.python.language.parallel.test_x", then maybe
    # a class); a collection error has none and names the module instead.
    parts = (case.get("classname") or case.get("name") or "?").split(".")
    for i, part in enumerate(parts):
        if part.startswith("test_"):
            parts = parts[: i + 1]
            break
    path = "/".join(parts) + ".py"
    return path[len(PREFIX):] if path.startswith(PREFIX) else path


def main(path):
    counts = collections.defaultdict(collections.Counter)
    problems = []
    for case in ET.parse(path).getroot().iter("testcase"):
        kind, message = outcome(case)
        name = file_of(case)
        counts[name][kind] += 1
        if kind != "passed" and kind != "skipped":
            label = name if case.get("classname") == "" else f"{name}::{case.get('name')}"
            problems.append(f"{label}: {kind}: {message}")
    total = collections.Counter()
    print(f"{'file':64} {'passed':>7} {'failed':>7} {'errors':>7} {'skipped':>8}")
    for name in sorted(counts):
        c = counts[name]
        total.update(c)
        print(f"{name:64} {c['passed']:7} {c['failure']:7} {c['error']:7} {c['skipped']:8}")
    collected = sum(total.values())
    rate = 100.0 * total["passed"] / collected if collected else 0.0
    print(f"{'total':64} {total['passed']:7} {total['failure']:7} {total['error']:7} "
          f"{total['skipped']:8}")
    print(f"pass rate: {total['passed']}/{collected} collected cases = {rate:.1f}%")
    for line in problems:
        print(line)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
