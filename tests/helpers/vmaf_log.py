"""Checks a vmaf-json log (docs/LOGS.md) against what libvmaf's JSON writer
(vmaf_write_output_json() in libvmaf/src/output.c) and its pooling
(vmaf_feature_score_pooled() in libvmaf/src/libvmaf.c) produce: the keys and
their order, the numbers' format, and the pooled values recomputed from the
frames in the file. Used by the element's and the tool's tests.

    check_vmaf_log(path, scores)  # raises AssertionError on a mismatch
"""
import json
import math
import re

METRIC = "ssimulacra2"
# libvmaf's top-level keys, in its order; ours follow under a key of our own.
LIBVMAF_KEYS = ["version", "fps", "frames", "pooled_metrics", "aggregate_metrics"]
OWN_KEY = "gst_ssim2"
# libvmaf's pooling methods, in its order (enum VmafPoolingMethod).
POOLS = ["min", "max", "mean", "harmonic_mean"]
# "%.6f", or "%.16f" when the fractional part starts with more than 5 zeros.
LIBVMAF_NUMBER = re.compile(r"-?\d+\.(\d{6}|\d{16})")
# Pooled values are recomputed from frames printed to 6 decimals (each off by
# up to 5e-7) and printed to 6 decimals themselves.
POOL_TOLERANCE = 2e-6


def libvmaf_pools(values):
    """vmaf_feature_score_pooled() over `values`, in their order."""
    n = len(values)
    return {
        "min": min(values),
        "max": max(values),
        "mean": sum(values) / n,
        "harmonic_mean": n / sum(1.0 / (v + 1.0) for v in values) - 1.0,
    }


def number_texts(text, key):
    """The texts of the numbers written after `"key": ` in the file."""
    return re.findall(r'"' + re.escape(key) + r'": ([^,\s}]+)', text)


def check_vmaf_log(path, scores=None, version=None):
    """Checks the file; `scores`: the per-frame scores it must hold (to 6
    decimals); `version`: the project's version, which "version" must be."""
    with open(path, encoding="utf-8") as f:
        text = f.read()
    log = json.loads(text)
    assert list(log) == LIBVMAF_KEYS + [OWN_KEY], f"top-level keys {list(log)}"
    if version is not None:
        assert log["version"] == version, f"version {log['version']!r}"
    fps = log["fps"]
    assert fps is None or (isinstance(fps, float) and fps >= 0), f"fps {fps!r}"
    if fps is not None:
        assert re.fullmatch(r"\d+\.\d\d", number_texts(text, "fps")[0]), "fps is not %.2f"

    frames = log["frames"]
    for fr in frames:
        assert list(fr) == ["frameNum", "metrics"], fr
        assert isinstance(fr["frameNum"], int) and list(fr["metrics"]) == [METRIC], fr
    values = [fr["metrics"][METRIC] for fr in frames]
    numbers = number_texts(text, METRIC)[:len(frames)]
    assert all(LIBVMAF_NUMBER.fullmatch(t) for t in numbers), f"frame scores {numbers[:5]}"
    if scores is not None:
        assert len(values) == len(scores), (len(values), len(scores))
        assert all(abs(v - s) <= 5e-7 + 1e-12 for v, s in zip(values, scores)), \
            f"frame scores {values} != {scores}"

    pooled = log["pooled_metrics"]
    assert list(pooled) == [METRIC], f"pooled_metrics {list(pooled)}"
    assert list(pooled[METRIC]) == POOLS, f"pooled keys {list(pooled[METRIC])}"
    for pool in POOLS:
        assert LIBVMAF_NUMBER.fullmatch(number_texts(text, pool)[0]), f"{pool} is not %.6f"
    want = libvmaf_pools(values)
    for pool in POOLS:
        got = pooled[METRIC][pool]
        assert math.isclose(got, want[pool], rel_tol=0, abs_tol=POOL_TOLERANCE), \
            f"pooled {pool}: file {got}, libvmaf's from the frames {want[pool]}"
    assert log["aggregate_metrics"] == {}, log["aggregate_metrics"]

    own = log[OWN_KEY]
    assert own["metric"] == "SSIMULACRA 2.1" and own["summary"]["frames"] == len(frames), own
    return log
