#!/usr/bin/env python3
"""Runs examples/python/ssim2_meta.py: with the plugin, every frame's score
arrives once as a bus message and once as buffer meta, with equal values;
without the plugin the example fails with the pipeline's error message, and
with a python that lacks PyGObject with one line naming the one to use.
Also checks that loading the plugin registers both meta types, before any
element exists, and that the custom meta survives a scaling element.

Usage: test_python_example.py PYTHON_WITH_GI EXAMPLE PLUGIN_DIR
"""
import os
import re
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from ssim2_test import fail, finish, run  # noqa: E402

FRAMES = 6


def run_example(python, example, env):
    return run([python, example, "--frames", str(FRAMES)], env=env)


# Run by PYTHON_WITH_GI: the meta types are unknown before the plugin is
# loaded and known right after, without an element.
REGISTRATION_CHECK = """
import gi
gi.require_version("Gst", "1.0")
from gi.repository import GObject, Gst
Gst.init(None)
assert Gst.meta_get_info("GstSsim2ScoreMeta") is None, "registered before the plugin was loaded"
assert Gst.Plugin.load_by_name("ssim2") is not None, "plugin ssim2 not found"
for name in ("GstSsim2Meta", "GstSsim2ScoreMeta"):
    assert Gst.meta_get_info(name) is not None, name + " not registered by loading the plugin"
GObject.type_from_name("GstSsim2MetaAPI")
"""


# Run by PYTHON_WITH_GI: videoscale after the element transforms the buffers
# (a scale transform, not a copy); the meta keeps all its fields.
SCALE_CHECK = """
import gi
gi.require_version("Gst", "1.0")
from gi.repository import Gst
Gst.init(None)
pipeline = Gst.parse_launch(
    "ssim2compare name=cmp ! videoscale ! video/x-raw,width=32,height=24"
    " ! appsink name=sink sync=false"
    " videotestsrc num-buffers=3 pattern=ball ! video/x-raw,width=64,height=48 ! tee name=t"
    " t. ! queue ! cmp.ref t. ! queue ! cmp.dist")
sink = pipeline.get_by_name("sink")
pipeline.set_state(Gst.State.PLAYING)
indices = []
while True:
    sample = sink.emit("pull-sample")
    if sample is None:
        break
    meta = sample.get_buffer().get_custom_meta("GstSsim2ScoreMeta")
    assert meta is not None, "videoscale dropped the meta"
    s = meta.get_structure()
    assert s.get_value("score") == 100.0, s.to_string()
    indices.append(s.get_value("index"))
pipeline.set_state(Gst.State.NULL)
assert indices == [0, 1, 2], indices
"""


def check_snippet(python, plugin_dir, code, what):
    rc, _, err = run([python, "-c", code], env=dict(os.environ, GST_PLUGIN_PATH_1_0=plugin_dir))
    if rc != 0:
        fail(f"{what}:\n{err}")


def check_without_gi(python, example):
    """A python without PyGObject (-S hides the distribution's packages; a
    pyenv python first in PATH is another) gets one line naming what to use."""
    pythons = [[python, "-S"]]
    if run([sys.executable, "-c", "import gi"])[0] != 0:
        pythons.append([sys.executable])
    for command in pythons:
        rc, out, err = run(command + [example, "--frames", "1"])
        lines = err.strip().splitlines()
        if rc != 1 or out or len(lines) != 1 or "cannot load GStreamer's Python bindings" not in err \
                or "distribution's python3 (/usr/bin/python3)" not in err:
            fail(f"{' '.join(command)} without gi: want exit 1 and one line naming the "
                 f"distribution's python3, got {rc}: {err!r}")
        print(f"python example without gi ({' '.join(command)}): {lines[0][:80]}...")


def main():
    python, example, plugin_dir = sys.argv[1:4]

    check_without_gi(python, example)

    check_snippet(python, plugin_dir, REGISTRATION_CHECK, "meta registration at plugin load")
    check_snippet(python, plugin_dir, SCALE_CHECK, "meta after videoscale")

    env = dict(os.environ, GST_PLUGIN_PATH_1_0=plugin_dir)
    rc, out, err = run_example(python, example, env)
    if rc != 0:
        fail(f"example exited {rc}:\n{out}{err}")
    line = re.compile(r"^(message|meta) index=(\d+) score=(-?[0-9.]+)$")
    seen = {"message": {}, "meta": {}}
    for text in out.splitlines():
        m = line.match(text)
        if m:
            kind, index, score = m.group(1), int(m.group(2)), m.group(3)
            if index in seen[kind]:
                fail(f"{kind} for frame {index} printed twice")
            seen[kind][index] = score
    for kind, scores in seen.items():
        if sorted(scores) != list(range(FRAMES)):
            fail(f"{kind} lines for frames {sorted(scores)}, want 0..{FRAMES - 1}:\n{out}")
    for index in range(FRAMES):
        if seen["message"][index] != seen["meta"][index]:
            fail(f"frame {index}: message score {seen['message'][index]} != "
                 f"meta score {seen['meta'][index]}")
    scores = [float(s) for s in seen["meta"].values()]
    if not all(s < 100.0 for s in scores):
        fail(f"the scaled copy scores 100: {scores}")
    if f"frames: {FRAMES} messages, {FRAMES} metas" not in out:
        fail(f"no summary line for {FRAMES} frames:\n{out}")
    print(f"python example: {FRAMES} frames, message and meta scores equal ({min(scores):.2f} .. "
          f"{max(scores):.2f})")

    # Without the plugin: a fresh registry, and only GStreamer's own modules
    # may load plugins, so that a copy installed system-wide is not found.
    with tempfile.TemporaryDirectory(prefix="ssim2-py-") as tmp:
        env = dict(os.environ, GST_PLUGIN_PATH_1_0="",
                   GST_PLUGIN_LOADING_WHITELIST="gstreamer:gst-plugins-base",
                   GST_REGISTRY_1_0=os.path.join(tmp, "registry.bin"))
        env.pop("GST_PLUGIN_PATH", None)
        rc, _, err = run_example(python, example, env)
    if rc == 0 or "ssim2compare" not in err:
        fail(f"without the plugin: want a non-zero exit naming ssim2compare, got {rc}: {err!r}")
    print(f"python example without the plugin: exit {rc}, {err.strip()}")


if __name__ == "__main__":
    sys.exit(finish(main, "python example: all checks passed"))
