"""Generated: the C entry point of plug-in policy 'rollout' (/work/main/mournesim/rollout.py)."""
import importlib
import importlib.util
import sys

from numba import carray, cfunc, njit, types

FAILED = -2147483647

if 'mournesim.rollout' not in sys.modules:
    try:   # an installed module
        importlib.import_module('mournesim.rollout')
    except ImportError:   # a plug-in file
        _spec = importlib.util.spec_from_file_location('mournesim.rollout', '/work/main/mournesim/rollout.py')
        _mod = importlib.util.module_from_spec(_spec)
        sys.modules['mournesim.rollout'] = _mod
        _spec.loader.exec_module(_mod)
plugin_choose = getattr(sys.modules['mournesim.rollout'], 'choose')


@njit(cache=True)
def guarded(s, T, legal, n, rng, pp, h):
    # an exception cannot cross the C call: answer FAILED instead
    try:
        return plugin_choose(s, T, legal, n, rng, pp, h)
    except Exception:
        return FAILED


@cfunc(types.int32(types.CPointer(types.int32), types.int64, types.CPointer(types.int32), types.int64, types.CPointer(types.int32), types.int64, types.int64, types.CPointer(types.uint64), types.int64, types.CPointer(types.float64), types.int64, types.int64), cache=True)
def entry(s_p, s_n, T_p, T_n, legal_p, legal_n, n, rng_p, rng_n, pp_p, pp_n, h):
    return guarded(carray(s_p, (s_n,)), carray(T_p, (T_n,)), carray(legal_p, (legal_n,)), n, carray(rng_p, (rng_n,)), carray(pp_p, (pp_n,)), h)
