"""calcpkg: small calculator helpers."""
from .ops import add, divide, mean, multiply, subtract

__version__ = "1.2.0"
__all__ = ["add", "subtract", "multiply", "divide", "mean"]
