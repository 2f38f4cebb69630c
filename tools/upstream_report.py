#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Summarises a pytest JUnit XML file of TileLang-Ascend's language tests (upstream_suite.sh).

  upstream_report.py [--causes FILE] [--markdown] junit.xml

Prints, per test file: passed, failed, errors (collection or fixture problems) and skipped;
then the totals and the pass rate over the collected cases; then one line per case that did
not pass: file::case, outcome, and the first line of its message.

With --causes (tools/upstream_causes.toml) every case that did not pass is given its cause:
the first rule whose `match` finds the message (and whose `case`, if it has one, finds the
case's id). The report then counts the cases per category
and per cause and lists each cause's cases (grouped by test function, with their count; files
shortened to what follows test_tilelang_ascend_language_); cases no rule matches come last,
as unclassified; the pass rate is also given without the out-of-scope cases and
those needing dynamic shapes (issue 15), the measure of the language-coverage issue.
--markdown prints the same as the README's tables.
"""
import argparse
import collections
import re
import sys
import tomllib
import xml.etree.ElementTree as ET

PREFIX = "testing/python/language/"
CATEGORIES = ("missing", "bug", "out-of-scope", "environment", "unclassified")


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
        return kind, message.splitlines()[0] if message else ""
    return "passed", ""


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


class Cause:
    def __init__(self, rule):
        self.category = rule["category"]
        if self.category not in CATEGORIES[:-1]:
            sys.exit(f"upstream_report: unknown category {self.category!r} in {rule}")
        self.issue = rule.get("issue")
        self.pattern = re.compile(rule["match"])
        # Optional: the rule covers only cases whose "file::case" id (file shortened as in the
        # report) this finds, for a message too generic to say the cause by itself.
        self.case = re.compile(rule["case"]) if "case" in rule else None
        self.feature = rule["feature"]

    def name(self, message, case_id=""):
        """The feature this rule names for `message` of case `case_id`, or None if it does not
        match."""
        if self.case is not None and self.case.search(case_id) is None:
            return None
        m = self.pattern.search(message)
        if m is None:
            return None
        return re.sub(r"\{(\d)\}", lambda g: m.group(int(g.group(1))) or "", self.feature)


def load_causes(path):
    with open(path, "rb") as f:
        return [Cause(rule) for rule in tomllib.load(f).get("cause", [])]


def classify(causes, message, case_id=""):
    """(category, issue, feature) of the first rule matching `message` of case `case_id`."""
    for cause in causes:
        feature = cause.name(message, case_id)
        if feature is not None:
            return cause.category, cause.issue, feature
    return "unclassified", None, message[:160]


def read(path):
    """Per-file outcome counts and the cases that did not pass: (file, case, kind, message)."""
    counts = collections.defaultdict(collections.Counter)
    problems = []
    for case in ET.parse(path).getroot().iter("testcase"):
        kind, message = outcome(case)
        name = file_of(case)
        counts[name][kind] += 1
        if kind not in ("passed", "skipped"):
            problems.append((name, case.get("name") if case.get("classname") else "", kind,
                             message))
    return counts, problems


def short(file):
    """parallel/test_tilelang_ascend_language_parallel_1d.py -> parallel_1d."""
    stem = file.rpartition("/")[2].removesuffix(".py")
    return stem.removeprefix("test_tilelang_ascend_language_")


def grouped_cases(cases):
    """'file::test_fn (n)' per test function (file shortened), parametrisations folded."""
    by_fn = collections.Counter(f"{short(file)}::{case.split('[')[0]}" for file, case in cases)
    return [f"{fn} ({n})" if n > 1 else fn for fn, n in sorted(by_fn.items())]


def print_counts(counts, markdown):
    total = collections.Counter()
    if markdown:
        print("| file | passed | failed | errors | skipped |\n|---|---:|---:|---:|---:|")
    else:
        print(f"{'file':64} {'passed':>7} {'failed':>7} {'errors':>7} {'skipped':>8}")
    for name in sorted(counts):
        c = counts[name]
        total.update(c)
        row = (name, c["passed"], c["failure"], c["error"], c["skipped"])
        if markdown:
            print("| `%s` | %d | %d | %d | %d |" % row)
        else:
            print("%-64s %7d %7d %7d %8d" % row)
    row = ("total", total["passed"], total["failure"], total["error"], total["skipped"])
    print(("| **%s** | %d | %d | %d | %d |" if markdown else "%-64s %7d %7d %7d %8d") % row)
    return total


def print_causes(causes, problems, total, markdown):
    by_cause = collections.defaultdict(list)
    for file, case, _, message in problems:
        by_cause[classify(causes, message, f"{short(file)}::{case}")].append((file, case))
    per_category = collections.Counter()
    for (category, _, _), cases in by_cause.items():
        per_category[category] += len(cases)
    collected = sum(total.values())
    excluded = per_category["out-of-scope"] + sum(
        len(v) for (cat, issue, _), v in by_cause.items() if cat == "missing" and issue == 15)
    counted = collected - excluded
    print()
    print("cases not passing, per category: " + ", ".join(
        f"{c} {per_category[c]}" for c in CATEGORIES if per_category[c]))
    print(f"pass rate without out-of-scope and dynamic-shape cases: {total['passed']}/{counted}"
          f" = {100.0 * total['passed'] / counted if counted else 0.0:.1f}%")
    print()
    order = sorted(by_cause.items(), key=lambda kv: (CATEGORIES.index(kv[0][0]), -len(kv[1])))
    if markdown:
        print("| cause | category | issue | cases | tests |\n|---|---|---|---:|---|")
    for (category, issue, feature), cases in order:
        tests = ", ".join(grouped_cases(cases))
        if markdown:
            cell = feature.replace("|", "\\|")
            print(f"| {cell} | {category} | {issue or ''} | {len(cases)} | {tests} |")
        else:
            print(f"[{category}{f' #{issue}' if issue else ''}] {feature}: {len(cases)}")
            print(f"    {tests}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("junit")
    parser.add_argument("--causes", help="tools/upstream_causes.toml")
    parser.add_argument("--markdown", action="store_true")
    args = parser.parse_args()
    counts, problems = read(args.junit)
    total = print_counts(counts, args.markdown)
    collected = sum(total.values())
    rate = 100.0 * total["passed"] / collected if collected else 0.0
    print(f"\npass rate: {total['passed']}/{collected} collected cases = {rate:.1f}%")
    if args.causes:
        print_causes(load_causes(args.causes), problems, total, args.markdown)
    else:
        for file, case, kind, message in problems:
            print(f"{file}::{case}: {kind}: {message[:200]}" if case else f"{file}: {kind}")


if __name__ == "__main__":
    main()
