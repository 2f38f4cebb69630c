# SPDX-License-Identifier: Apache-2.0
"""The parent: discovers the calls, runs each in a child process (tools/upstream_examples.py
--child, at most --timeout seconds) and gathers its records into a Result, then prints the
report: one row per call (compiles, checked run, cycles), the totals, the compile failures and
findings grouped by their first line, the integer inputs drawn without a spec range and the
excluded calls, as text or as the README's Markdown tables; main parses the command line."""
import argparse
import collections
import dataclasses
import json
import os
import re
import subprocess
import sys
import time

from .child import MARK, child
from .discovery import EXCLUSIONS, Call, discover
from .inputs import load_spec
from .literals import short

# The entry point the child runs as (tools/upstream_examples.py, next to this package).
ENTRY = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                     "upstream_examples.py")


# ---- The parent: one child per call, then the report ---------------------------------------

@dataclasses.dataclass
class Result:
    call: Call
    compiles: bool = None  # None: not known (the child died or timed out first)
    compile_message: str = ""
    outcome: str = ""  # "ok", a finding kind ("race", "bounds", ...), "error", or "" (not run)
    run_message: str = ""
    cycles: int = None
    seconds: float = 0.0
    unranged: list = dataclasses.field(default_factory=list)  # int inputs with no spec range
    notes: list = dataclasses.field(default_factory=list)  # top-level statements that failed


def run_call(directory, call, spec_path, timeout):
    """The Result of running `call` in a child process (at most `timeout` seconds)."""
    command = [sys.executable, ENTRY, "--child", call.ident, directory]
    if spec_path:
        command += ["--spec", os.path.abspath(spec_path)]
    started = time.monotonic()
    result = Result(call)
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              errors="replace")
        stdout, status = done.stdout, done.returncode
        stderr = done.stderr
    except subprocess.TimeoutExpired as e:
        stdout = e.stdout.decode(errors="replace") if isinstance(e.stdout, bytes) else \
            (e.stdout or "")
        stderr, status = "", None
    result.seconds = time.monotonic() - started
    for line in stdout.splitlines():
        if line.startswith(MARK):
            absorb(result, json.loads(line[len(MARK):]))
    if status is None:
        fail(result, f"timeout after {timeout} s")
    elif result.compiles is None or (result.compiles and not result.outcome):
        tail = [l for l in stderr.splitlines() if l.strip()]
        fail(result, f"child exited with status {status}: {tail[-1][:200] if tail else ''}")
    return result


def absorb(result, record):
    stage = record.get("stage")
    if stage == "compile":
        result.compiles = record["ok"]
        result.compile_message = record.get("message", "")
    elif stage == "run":
        result.outcome, result.run_message = record["outcome"], record["message"]
        result.cycles = record.get("cycles")
        result.unranged = record.get("unranged", [])
    elif stage == "loaded":
        result.notes = record.get("notes", [])
    elif stage == "error":
        result.compiles, result.compile_message = False, record["message"]


def fail(result, message):
    """A child that stopped early: the compile (if it had not finished) or the run failed."""
    if result.compiles is None:
        result.compiles, result.compile_message = False, message
    elif result.compiles and not result.outcome:
        result.outcome, result.run_message = "error", message


def compiles_cell(r):
    return "yes" if r.compiles else f"no: {r.compile_message}"


def run_cell(r):
    if not r.compiles:
        return "-"
    return r.outcome if r.outcome == "ok" else f"{r.outcome}: {r.run_message}"


def cell(text, limit=160):
    """Text for a Markdown table cell: one line, pipes escaped, the message's own code spans
    quoted instead (a cut one would open a span to the end of the row)."""
    return short(text, limit).replace("|", "\\|").replace("`", "'")


def print_results(results, markdown):
    if markdown:
        print("| file | compiles | checked run | cycles |\n|---|---|---|---:|")
        for r in results:
            print(f"| `{r.call.where}` `{cell(r.call.label, 76)}` | {cell(compiles_cell(r))} | "
                  f"{cell(run_cell(r))} | {r.cycles if r.cycles is not None else ''} |")
        return
    for r in results:
        cycles = r.cycles if r.cycles is not None else "-"
        print(f"{r.call.where}  {r.call.label}\n    compiles: {short(compiles_cell(r), 200)}"
              f"\n    checked run: {short(run_cell(r), 200)}\n    cycles: {cycles}")
        if not r.compiles and r.notes:
            print(f"    top-level statements that failed: {short('; '.join(r.notes), 200)}")


def percent(x, y):
    return f"{x}/{y} = {100.0 * x / y if y else 0.0:.1f}%"


def print_totals(calls, results, markdown):
    """The totals, the compile failures and findings grouped by their first line, the
    integer inputs drawn without a spec range and the excluded calls."""
    literal = [c for c in calls if c.not_literal is None]
    excluded = collections.Counter(c.excluded for c in literal if c.excluded)
    compiled = [r for r in results if r.compiles]
    clean = [r for r in compiled if r.outcome == "ok"]
    sites = {(c.file, c.line, c.col) for c in literal}
    print()
    print(f"factory calls: {len(calls)} in {len({c.file for c in calls})} files, "
          f"{len(calls) - len(literal)} of them with arguments not literal in the file")
    print(f"calls found (literal arguments): {len(literal)} ({len(sites)} call sites in "
          f"{len({c.file for c in literal})} files)")
    print(f"excluded: {sum(excluded.values())}" + "".join(
        f", {reason} {excluded[reason]}" for reason in EXCLUSIONS if excluded[reason]))
    print(f"compiled: {percent(len(compiled), len(results))}")
    print(f"ran clean in checked mode: {percent(len(clean), len(compiled))} of the compiled "
          f"({percent(len(clean), len(results))} of the calls run)")
    groups = [("compile failures", [r for r in results if not r.compiles],
               lambda r: r.compile_message),
              ("checked runs with findings or errors", [r for r in compiled if r.outcome != "ok"],
               lambda r: f"{r.outcome}: {r.run_message}")]
    for title, rows, text in groups:
        if rows:
            print(f"\n{title}, by first line:")
            for message, where in grouped(rows, text):
                print(f"  {len(where)} x {short(message, 220)}\n      {', '.join(where)}")
    unranged = sorted({f"{r.call.file}: {', '.join(r.unranged)}" for r in results if r.unranged})
    if unranged:
        print("\ninteger inputs drawn without a spec range (small random values):")
        for line in unranged:
            print(f"  {line}")
    print_excluded(literal, markdown)


def print_excluded(literal, markdown):
    by_site = collections.OrderedDict()
    for c in literal:
        if c.excluded:
            by_site.setdefault((c.where, c.text, c.excluded), []).append(c)
    if not by_site:
        return
    print()
    if markdown:
        print("| excluded call | calls | needs |\n|---|---:|---|")
    else:
        print("excluded calls:")
    for (where, text, reason), group in by_site.items():
        if markdown:
            print(f"| `{where}` `{cell(text, 70)}` | {len(group)} | {reason} |")
        else:
            print(f"  {where} {text}: {reason}" + (f" ({len(group)} calls)" if len(group) > 1
                                                  else ""))


def grouped(rows, text):
    """(message without its file:line:col, [file:line of the calls]) by count."""
    by = collections.defaultdict(list)
    for r in rows:
        message = re.sub(r"^\S+?:\d+:\d+: (error: )?", "", text(r))
        by[message].append(r.call.where)
    return sorted(by.items(), key=lambda kv: (-len(kv[1]), kv[0]))


def progress(i, n, r):
    state = run_cell(r) if r.compiles else compiles_cell(r)
    sys.stderr.write(f"[{i}/{n}] {r.call.where} {r.call.label}: {short(state, 120)} "
                     f"({r.seconds:.1f} s)\n")
    sys.stderr.flush()


def main(usage):
    """The command line of tools/upstream_examples.py, whose docstring is `usage`."""
    parser = argparse.ArgumentParser(description=usage.splitlines()[0])
    parser.add_argument("directory", help="a TileLang-Ascend checkout")
    parser.add_argument("--spec", help="tools/upstream_examples_spec.toml")
    parser.add_argument("--markdown", action="store_true")
    parser.add_argument("--timeout", type=float, default=1200.0, help="seconds per call")
    parser.add_argument("--list", action="store_true", help="only list the calls found")
    parser.add_argument("--only", help="run only the calls whose file:line contains this")
    parser.add_argument("--child", metavar="CALL", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.directory, args.child, args.spec)
        return
    if not os.path.isdir(os.path.join(args.directory, "examples")):
        sys.exit(f"upstream_examples: no {args.directory}/examples (a TileLang-Ascend checkout?)")
    calls = discover(args.directory)
    load_spec(args.spec)  # a malformed spec fails before anything runs
    todo = [c for c in calls if c.not_literal is None and c.excluded is None and
            (not args.only or args.only in c.where)]
    if args.list:
        print_discovery(calls)
        return
    results = []
    for i, call in enumerate(todo, 1):
        results.append(run_call(args.directory, call, args.spec, args.timeout))
        progress(i, len(todo), results[-1])
    print_results(results, args.markdown)
    print_totals(calls, results, args.markdown)


def print_discovery(calls):
    """What --list prints: every factory call, literal or not, excluded or not."""
    for c in calls:
        if c.not_literal is not None:
            state = f"not literal: {c.not_literal}"
        else:
            args = ", ".join([repr(a) for a in c.args] +
                             [f"{k}={v!r}" for k, v in c.kwargs.items()])
            state = (f"excluded: {c.excluded}" if c.excluded else "runs") + \
                f" ({short(args, 100)})"
        print(f"{c.where}  {c.label}\n    {state}")
