"""Fixtures of the vector env's tests."""
import pytest


@pytest.fixture
def bench():
    """``benchmarks/throughput.py``, loaded as a module (it is a script, not part of the package)."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[2] / "benchmarks" / "throughput.py"
    spec = importlib.util.spec_from_file_location("throughput_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
