#!/usr/bin/env python3
"""Reads SSIMULACRA 2.1 scores from an ssim2compare pipeline, in Python.

A moving test pattern is compared with a copy scaled down and up again:

    videotestsrc ! tee ─┬──────────────────────────────► ssim2compare.ref
                        └─ videoscale (1/N) ! videoscale ─► ssim2compare.dist ─► appsink

Each score arrives twice: as an element message named "ssim2" on the bus,
and as a custom meta named "GstSsim2ScoreMeta" on the buffer the appsink
receives (a GstStructure with "score" and "index"). Both are printed:

    message index=0 score=82.99758076
    meta index=0 score=82.99758076
    ...
    frames: 10 messages, 10 metas

Run it with the distribution's python3 (/usr/bin/python3 on Debian 12): GStreamer's Python
bindings are Debian packages (python3-gi, python3-gst-1.0, gir1.2-gst-plugins-base-1.0), which a
pyenv, conda or venv python does not see. It also needs the ssim2 plugin where GStreamer finds it
(installed, or GST_PLUGIN_PATH). Exits with status 1 and one line saying what is missing: the
bindings, or the pipeline's error message (for instance when the plugin is missing).
"""
import argparse
import sys
import threading

try:
    import gi

    gi.require_version("Gst", "1.0")
    from gi.repository import GLib, Gst  # noqa: E402
except (ImportError, ValueError) as missing:  # no PyGObject, or no Gst typelib
    sys.exit(f"error: {sys.executable} cannot load GStreamer's Python bindings ({missing}). "
             "Run this with the distribution's python3 (/usr/bin/python3), with the packages "
             "python3-gi python3-gst-1.0 gir1.2-gst-plugins-base-1.0 installed.")

SCORE_META = "GstSsim2ScoreMeta"  # GST_SSIM2_SCORE_META_NAME in gst/ssim2/gstssim2meta.h

PIPELINE = """
    ssim2compare name=cmp ! appsink name=sink emit-signals=true sync=false
    videotestsrc num-buffers={frames} pattern=ball
      ! video/x-raw,format=I420,width={width},height={height},framerate=30/1 ! tee name=t
    t. ! queue ! cmp.ref
    t. ! queue ! videoscale ! video/x-raw,width={small_width},height={small_height}
      ! videoscale ! video/x-raw,width={width},height={height} ! cmp.dist
"""


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=10, help="frames to compare (default 10)")
    parser.add_argument("--size", default="320x240", help="WIDTHxHEIGHT (default 320x240)")
    parser.add_argument("--scale", type=int, default=2,
                        help="the copy is scaled down by this factor and up again (default 2)")
    args = parser.parse_args()
    width, height = (int(v) for v in args.size.split("x"))

    Gst.init(None)
    try:
        pipeline = Gst.parse_launch(PIPELINE.format(
            frames=args.frames, width=width, height=height,
            small_width=max(1, width // args.scale), small_height=max(1, height // args.scale)))
    except GLib.Error as err:
        # A missing element (the ssim2 plugin not found) ends here.
        print(f"error: {err.message}", file=sys.stderr)
        return 1

    lock = threading.Lock()
    metas = 0

    def on_new_sample(sink):
        nonlocal metas
        sample = sink.emit("pull-sample")
        meta = sample.get_buffer().get_custom_meta(SCORE_META)
        if meta is not None:
            s = meta.get_structure()
            with lock:
                metas += 1
                print(f"meta index={s.get_value('index')} score={s.get_value('score'):.8f}",
                      flush=True)
        return Gst.FlowReturn.OK

    pipeline.get_by_name("sink").connect("new-sample", on_new_sample)

    if pipeline.set_state(Gst.State.PLAYING) == Gst.StateChangeReturn.FAILURE:
        print("error: the pipeline does not start", file=sys.stderr)
        pipeline.set_state(Gst.State.NULL)
        return 1

    messages = 0
    status = 0
    bus = pipeline.get_bus()
    while True:
        msg = bus.timed_pop_filtered(
            Gst.CLOCK_TIME_NONE,
            Gst.MessageType.ELEMENT | Gst.MessageType.ERROR | Gst.MessageType.EOS)
        if msg.type == Gst.MessageType.ELEMENT:
            s = msg.get_structure()
            if s is not None and s.get_name() == "ssim2":
                with lock:
                    messages += 1
                    print(f"message index={s.get_value('index')} "
                          f"score={s.get_value('score'):.8f}", flush=True)
        elif msg.type == Gst.MessageType.ERROR:
            err, debug = msg.parse_error()
            print(f"error: {err.message}" + (f" ({debug})" if debug else ""), file=sys.stderr)
            status = 1
            break
        else:
            break
    pipeline.set_state(Gst.State.NULL)
    print(f"frames: {messages} messages, {metas} metas")
    return status


if __name__ == "__main__":
    sys.exit(main())
