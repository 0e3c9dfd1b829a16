"""python -m calcpkg.cli OP A B: prints the result (whole numbers without a decimal point)."""
import sys

from . import ops

OPS = {"add": ops.add, "sub": ops.subtract, "mul": ops.multiply, "div": ops.divide}


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 3 or argv[0] not in OPS:
        print(f"usage: python -m calcpkg.cli {{{','.join(OPS)}}} A B", file=sys.stderr)
        return 2
    a, b = int(argv[1]), int(argv[2])
    print(OPS[argv[0]](a, b))
    return 0


if __name__ == "__main__":
    sys.exit(main())
