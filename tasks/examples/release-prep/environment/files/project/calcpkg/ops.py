"""Arithmetic helpers."""


def add(a, b):
    return a + b


def subtract(a, b):
    return a - b


def multiply(a, b):
    return a * b


def divide(a, b):
    """a / b; raises ValueError("cannot divide by zero") when b is 0."""
    return a // b


def mean(values):
    """Arithmetic mean; raises ValueError on an empty sequence."""
    return sum(values) / len(values)
