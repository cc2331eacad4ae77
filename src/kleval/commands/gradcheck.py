"""`kleval gradcheck`: exact expected KL gradients of every configuration vs the theory."""
from __future__ import annotations

import argparse

HELP = "check each KL configuration's expected gradient against the exact KL gradient (by enumeration)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="print the full result as JSON")
    parser.add_argument("--plot", metavar="FILE", help="write a plot of bias against sequence length")
    parser.add_argument("--vocab", type=int, default=3, help="vocabulary size of the tabular policy")
    parser.add_argument("--max-length", type=int, default=5, help="longest sequence length to enumerate")
    parser.add_argument("--mc-samples", type=int, default=2000, help="Monte-Carlo samples per configuration")
    parser.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    parser.add_argument("--async", dest="async_recipe", action="store_true",
                        help="the async recipe's off-policy bias instead (train/async_gradcheck.py; lengths up to "
                             "--max-length, default 3 there)")


def run(args: argparse.Namespace) -> int:
    import json

    from kleval.errors import ConfigError
    from kleval.train.gradcheck import format_table, plot_bias, run_gradcheck

    # every ordered pair of sequences is enumerated (a prompt's two samples): N^2 rows
    if args.vocab < 2 or args.max_length < 1 or args.vocab ** args.max_length > 1_000:
        raise ConfigError("need vocab >= 2, max-length >= 1 and vocab**max-length <= 1000 sequences")
    if args.async_recipe:
        from kleval.train.async_gradcheck import format_async_table, run_async_gradcheck

        longest = min(args.max_length, 3) if args.max_length == 5 else args.max_length  # 5 is the other check's default
        result = run_async_gradcheck(vocab=args.vocab, lengths=tuple(range(1, longest + 1)), seed=args.seed)
        print(json.dumps(result, indent=2) if args.json else format_async_table(result))
        return 0 if result["all_passed"] else 1
    result = run_gradcheck(vocab=args.vocab, lengths=tuple(range(1, args.max_length + 1)),
                           seed=args.seed, mc_samples=args.mc_samples)
    if args.plot:
        plot_bias(result, args.plot)
    print(json.dumps(result, indent=2) if args.json else format_table(result))
    return 0 if result["all_passed"] else 1
