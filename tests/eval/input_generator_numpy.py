"""An independent NumPy reimplementation of the deterministic input generator,
written from the algorithm as docs/evaluator.md states it (not from the C++ header),
so that the tests can check einrt/input_generator.h bit for bit:

    key          = fnv1a64(name) ^ splitmix64(seed)
    bits(i)      = splitmix64(key + i)
    value(i)     = ((bits(i) >> 10) - 2**53) / 2**53      (float64, exact)
    f32 tensors  = value(i).astype(float32)                (round to nearest)
"""
import numpy as np

MASK64 = (1 << 64) - 1


def fnv1a64(name: str) -> int:
    h = 0xCBF29CE484222325
    for byte in name.encode("utf-8"):
        h ^= byte
        h = (h * 0x100000001B3) & MASK64
    return h


def splitmix64_int(z: int) -> int:
    """SplitMix64's output function on one Python integer."""
    z = (z + 0x9E3779B97F4A7C15) & MASK64
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def splitmix64_array(z: np.ndarray) -> np.ndarray:
    """The same on an array of uint64 (NumPy wraps modulo 2**64)."""
    with np.errstate(over="ignore"):
        z = z + np.uint64(0x9E3779B97F4A7C15)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def stream_key(seed: int, name: str) -> int:
    return fnv1a64(name) ^ splitmix64_int(seed & MASK64)


def generate(seed: int, name: str, shape, dtype=np.float64) -> np.ndarray:
    """The generated tensor `name` of the given shape for `seed`, C order."""
    count = int(np.prod(shape, dtype=np.int64)) if len(shape) else 1
    index = np.arange(count, dtype=np.uint64)
    with np.errstate(over="ignore"):
        bits = splitmix64_array(np.uint64(stream_key(seed, name)) + index)
    centred = (bits >> np.uint64(10)).astype(np.int64) - np.int64(1 << 53)
    values = centred.astype(np.float64) / np.float64(2.0 ** 53)
    return values.astype(dtype).reshape(shape)


if __name__ == "__main__":
    # Prints the golden table used by tests/eval/test_input_generator.cpp and docs.
    for seed, name in [(0, "A"), (7, "X"), (42, "weights_1"), (2**64 - 1, "Q")]:
        v = generate(seed, name, (4,))
        print(seed, name, f"key=0x{stream_key(seed, name):016x}", [float.hex(float(x)) for x in v],
              [repr(float(x)) for x in v.astype(np.float32)])
