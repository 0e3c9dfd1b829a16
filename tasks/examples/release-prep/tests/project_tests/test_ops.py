import unittest

import calcpkg
from calcpkg import ops


class OpsTest(unittest.TestCase):
    def test_basic(self):
        self.assertEqual(ops.add(2, 3), 5)
        self.assertEqual(ops.subtract(2, 3), -1)
        self.assertEqual(ops.multiply(2.5, 4), 10)

    def test_divide(self):
        self.assertEqual(ops.divide(7, 2), 3.5)
        with self.assertRaisesRegex(ValueError, "cannot divide by zero"):
            ops.divide(1, 0)

    def test_mean(self):
        self.assertEqual(ops.mean([1, 2, 3, 4]), 2.5)
        with self.assertRaises(ValueError):
            ops.mean([])

    def test_power(self):
        self.assertEqual(ops.power(2, 10), 1024)
        self.assertEqual(ops.power(2, -2), 0.25)
        self.assertEqual(ops.power(0, 0), 1)
        self.assertIs(calcpkg.power, ops.power)

    def test_version(self):
        self.assertEqual(calcpkg.__version__, "1.3.0")


if __name__ == "__main__":
    unittest.main()
