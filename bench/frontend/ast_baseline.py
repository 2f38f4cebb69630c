#!/usr/bin/env python3
"""Baseline for bench/frontend and bench/compile: CPython's own ast.parse on the same file text.

Prints one line per file: "<file> <median_seconds>", the median over --repeat rounds of the
per-call time (each round times --number calls with timeit).
"""
import argparse
import ast
import statistics
import sys
import timeit


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("files", nargs="+")
    parser.add_argument("--number", type=int, default=200)
    parser.add_argument("--repeat", type=int, default=15)
    args = parser.parse_args()
    for path in args.files:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        timer = timeit.Timer(lambda: ast.parse(text, filename=path))
        rounds = timer.repeat(repeat=args.repeat, number=args.number)
        print(f"{path} {statistics.median(r / args.number for r in rounds):.9f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
