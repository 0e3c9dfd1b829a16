"""Compares /app/results.json with closed forms (or high-precision values)."""
import json
import math
from pathlib import Path

import pytest

EXACT = {
    "pi": math.pi,
    "gauss": math.sqrt(math.pi) / 2 * math.erf(1),
    "sqrt": 2 / 3,
    "ln2": math.log(2),
    "sine": 2.0,
    # integral of cos(20x) e^-x on [0, 5]: Re of the antiderivative e^{(-1+20i)x} / (-1+20i)
    "oscillating": ((complex(-1, 20) ** -1) * (math.e ** complex(-5, 100) - 1)).real,
    "reversed": -((2**4 / 4 - 2**2) - ((-1) ** 4 / 4 - (-1) ** 2)),
}


def results():
    return json.loads(Path("/app/results.json").read_text())


def test_every_problem_answered():
    assert set(results()) == set(EXACT)


@pytest.mark.parametrize("problem", ["pi", "gauss", "ln2", "sine"])
def test_smooth_integrands(problem):
    assert abs(results()[problem] - EXACT[problem]) < 1e-8


def test_endpoint_singularity():
    assert abs(results()["sqrt"] - EXACT["sqrt"]) < 1e-8


def test_oscillating_integrand():
    assert abs(results()["oscillating"] - EXACT["oscillating"]) < 1e-8


def test_reversed_bounds():
    assert abs(results()["reversed"] - EXACT["reversed"]) < 1e-8
