#!/bin/bash
# The oracle, one step at a time as an agent would type it (20+ commands).
set -euo pipefail
cd /app/project
ls -la . calcpkg tests
cat setup.cfg calcpkg/__init__.py
python3 -m unittest discover -s tests 2>&1 | tail -5 || true
cat calcpkg/ops.py
python3 - <<'PY'
from pathlib import Path
p = Path("calcpkg/ops.py")
s = p.read_text()
s = s.replace('''    """a / b; raises ValueError("cannot divide by zero") when b is 0."""
    return a // b''', '''    """a / b; raises ValueError("cannot divide by zero") when b is 0."""
    if b == 0:
        raise ValueError("cannot divide by zero")
    return a / b''')
s = s.replace('''    """Arithmetic mean; raises ValueError on an empty sequence."""
    return sum(values) / len(values)''', '''    """Arithmetic mean; raises ValueError on an empty sequence."""
    if len(values) == 0:
        raise ValueError("mean of an empty sequence")
    return sum(values) / len(values)''')
p.write_text(s)
PY
cat >> calcpkg/ops.py <<'PY'


def power(base, exp):
    """base ** exp; negative exponents give floats, power(0, 0) == 1."""
    return base**exp
PY
sed -i 's/^from .ops import add, divide, mean, multiply, subtract$/from .ops import add, divide, mean, multiply, power, subtract/' calcpkg/__init__.py
sed -i 's/^__all__ = \["add", "subtract", "multiply", "divide", "mean"\]$/__all__ = ["add", "subtract", "multiply", "divide", "mean", "power"]/' calcpkg/__init__.py
cat calcpkg/cli.py
sed -i 's/^OPS = {"add": ops.add, "sub": ops.subtract, "mul": ops.multiply, "div": ops.divide}$/OPS = {"add": ops.add, "sub": ops.subtract, "mul": ops.multiply, "div": ops.divide, "pow": ops.power}/' calcpkg/cli.py
sed -i 's/^    a, b = int(argv\[1\]), int(argv\[2\])$/    a, b = float(argv[1]), float(argv[2])/' calcpkg/cli.py
sed -i 's/^    print(OPS\[argv\[0\]\](a, b))$/    result = OPS[argv[0]](a, b)\n    print(int(result) if float(result).is_integer() else result)/' calcpkg/cli.py
sed -i 's/^version = 1\.2\.0$/version = 1.3.0/' setup.cfg
sed -i 's/^__version__ = "1\.2\.0"$/__version__ = "1.3.0"/' calcpkg/__init__.py
python3 -m unittest discover -s tests
sed -i 's/Current version: 1\.2\.0\./Current version: 1.3.0./' README.md
sed -i 's/^- `mean(values)`$/- `mean(values)` — raises `ValueError` on an empty sequence\n- `power(base, exp)`/' README.md
python3 - <<'PY'
from pathlib import Path
p = Path("CHANGELOG.md")
entry = """## 1.3.0

- Added `power(base, exp)` (also `pow` in the command line).
- Fixed `divide`: true division, and `ValueError` on division by zero.
- Fixed `mean` of an empty sequence: `ValueError`.
- Fixed the command line: decimal arguments, whole results printed without a decimal point.

"""
p.write_text(p.read_text().replace("## 1.2.0", entry + "## 1.2.0", 1))
PY
grep -rn '1\.2\.0' setup.cfg calcpkg README.md || true
python3 -m unittest discover -s tests
rm -rf /tmp/stage && mkdir -p /tmp/stage/calcpkg-1.3.0/calcpkg
cp setup.cfg README.md CHANGELOG.md /tmp/stage/calcpkg-1.3.0/
cp calcpkg/*.py /tmp/stage/calcpkg-1.3.0/calcpkg/
mkdir -p /app/dist
tar -C /tmp/stage -czf /app/dist/calcpkg-1.3.0.tar.gz calcpkg-1.3.0
tar -tzf /app/dist/calcpkg-1.3.0.tar.gz
cd /app/dist
sha256sum calcpkg-1.3.0.tar.gz > SHA256SUMS
sha256sum -c SHA256SUMS
