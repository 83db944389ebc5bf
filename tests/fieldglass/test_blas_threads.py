"""The fieldglass package keeps numpy's OpenBLAS to one thread a call, unless the user set it otherwise."""

import os
import subprocess
import sys

import pytest

PROBE = "import fieldglass, numpy, os; print(os.environ['OPENBLAS_NUM_THREADS'])"


@pytest.mark.parametrize(("given", "used"), [(None, "1"), ("2", "2")])
def test_openblas_threads_are_set_before_numpy_loads(given, used):
    env = {k: v for k, v in os.environ.items() if k != "OPENBLAS_NUM_THREADS"}
    if given is not None:
        env["OPENBLAS_NUM_THREADS"] = given
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == used
