import contextlib
import io
import unittest

from calcpkg import cli


def run(*args):
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = cli.main(list(args))
    return code, out.getvalue().strip()


class CliTest(unittest.TestCase):
    def test_floats(self):
        self.assertEqual(run("add", "1.5", "2"), (0, "3.5"))

    def test_whole_numbers_print_without_decimal_point(self):
        self.assertEqual(run("mul", "2", "3"), (0, "6"))
        self.assertEqual(run("div", "9", "3"), (0, "3"))

    def test_pow(self):
        self.assertEqual(run("pow", "2", "8"), (0, "256"))

    def test_usage(self):
        self.assertEqual(run("nope", "1", "2")[0], 2)


if __name__ == "__main__":
    unittest.main()
