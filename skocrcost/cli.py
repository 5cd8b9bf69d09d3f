"""The ``skocrcost`` command."""

import argparse
import sys

EXAMPLES = """examples:
  skocrcost demo          learn OCR error costs on the embedded ICDAR 2017 sample
"""


def _demo(args):
    from ._demo import run

    run()
    return 0


def build_parser():
    parser = argparse.ArgumentParser(
        prog="skocrcost",
        description="Learn what each OCR character error costs, and use the learned metric.",
        epilog=EXAMPLES,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    demo = sub.add_parser("demo", help="choose k by cross-validation on the embedded sample")
    demo.set_defaults(func=_demo)
    return parser


def main(argv=None):
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except (OSError, ValueError, TypeError) as exc:
        print(f"skocrcost: error: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
