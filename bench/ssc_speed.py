"""Time SSC's local work on CPU: loading the MiniLM encoder, and per function with k
summaries, the BERTScore pairs (P1), the docstring similarities (P2) and the calibration.

Model calls are not timed (they depend on the server); the summaries are fixed texts.
Run: python bench/ssc_speed.py [--k 8] [--functions 50]
"""

from __future__ import annotations

import argparse
import os
import random
import time

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

PHRASES = [
    "Return the sum of the two numbers.",
    "Read the settings file and return a dictionary.",
    "Add a and b and return the result.",
    "Open a connection to the server and send the request.",
    "Parse the command line arguments into an options object.",
    "Compute the checksum of the downloaded archive and compare it with the expected one.",
    "Sort the employees by salary, highest first, and return the top ten.",
    "Retry the call with exponential backoff until it succeeds or the budget runs out.",
]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--k", type=int, default=8)
    parser.add_argument("--functions", type=int, default=50)
    args = parser.parse_args()

    began = time.perf_counter()
    from docfact.understand import bertscore, ssc

    encoder = bertscore.load_encoder()
    load_s = time.perf_counter() - began
    rng = random.Random(0)
    project = {f"f{i}": [rng.choice(PHRASES) for _ in range(args.k)] for i in range(args.functions)}
    docs = {name: rng.choice(PHRASES) for name in project}

    encoder.embed(PHRASES)  # warm-up: the first batch pays one-off allocation
    began = time.perf_counter()
    for name, summaries in project.items():
        ssc.similarities(summaries, encoder, docs[name])
    per_function_s = (time.perf_counter() - began) / args.functions

    began = time.perf_counter()
    ssc.calibrate(project, encoder, epsilon=0.1)
    calibrate_s = time.perf_counter() - began

    print(f"encoder {encoder.name}: load {load_s:.2f} s (imports included)")
    print(
        f"k={args.k}: {per_function_s * 1000:.1f} ms per function "
        f"({args.k} summaries + docstring encoded once, {args.k * (args.k - 1) // 2} pairs)"
    )
    print(
        f"P1 calibration of {args.functions} functions: {calibrate_s:.2f} s "
        f"({calibrate_s / args.functions * 1000:.1f} ms per function)"
    )


if __name__ == "__main__":
    main()
