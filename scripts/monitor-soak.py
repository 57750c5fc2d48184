#!/usr/bin/env python3
"""Soak run of `ssim2 monitor` on live loopback sources: does its memory stay flat?

    scripts/monitor-soak.py [--minutes 30] [--size 192x108] [--fps 25] [--build build]

A live source (H.264 in MPEG-TS over UDP) and two transcoders of it
(decoded, scaled to half size, x264 at a low bitrate, sent --latency seconds
late by a queue), all gst-launch-1.0 processes on 127.0.0.1, feed one monitor
(CPU backend). The source's pictures never repeat (blocks of random grey
levels, new every frame): a scrolling test pattern repeats every width /
speed frames, and content alignment may then pair a frame with a copy of
its partner one period away (docs/MONITOR.md, "Content that repeats"). The
transcoders hold their delay with a queue and send as they receive: with
udpsink sync=true and a ts-offset, a transcoder fed MPEG-TS over UDP fell
behind by 0.83 % (a second every two minutes), and its lag grew all run. Transcoder `b` is killed every --down-every seconds and started
again --down-for seconds later, so that the monitor sees one rendition go down
and come back while the other goes on. Every --sample seconds the script
records the monitor's resident memory (VmRSS), the element's held reference
frames and bytes (ssim2_reference_frames_held, ssim2_reference_bytes_held in
/metrics), the frames scored per rendition, the renditions' lags
(ssim2_rendition_lag_seconds) and the reference delay, into --csv.

At the end it prints the figures and a verdict. After a warm-up (the first
--warmup seconds), memory is FLAT when it has no upward trend:
  - the highest RSS of the last third of the run is at most --rss-slack MB
    above the highest of the first third after the warm-up, and
  - the reference frames held in the last third are on average at most
    --held-slack frames above the average of the first third (default: what
    one rendition re-acquiring needs on top, 2 windows and a block:
    2 x (2 x fps) + 10 frames with the 2 s window; averages, since the most
    held at once depends on whether a sample falls in a re-acquisition);
and each return of `b` was scored again, and `a` was still scored in the
last third. Exit 0 when flat, 1 when not.
A trend rather than a fixed bound: how many frames are held at once depends on
how far the monitor runs behind the sources (the machine's speed) and on when
the renditions re-acquire, but not on the run's length unless something grows.

Not a test (it runs for --minutes): docs/MONITOR.md, "Memory", has the result
of a 30-minute run. Run it at a low priority on one core to leave the machine
to other work:  nice -n 19 taskset -c 0 scripts/monitor-soak.py
"""
import argparse
import csv
import os
import signal
import subprocess
import sys
import time
import urllib.request

from prometheus_client.openmetrics.parser import text_string_to_metric_families

# The monitor tests' loopback helpers (ports, stopping a process).
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests",
                                "monitor"))
from test_monitor import free_udp_port, stop, pictures  # noqa: E402


def gst(pipeline):
    return subprocess.Popen(["gst-launch-1.0", "-q"] + pipeline.split(),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def rss_mb(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024.0
    return float("nan")


def metrics(url):
    with urllib.request.urlopen(url + "metrics", timeout=30) as r:
        text = r.read().decode()
    samples = {}
    for family in text_string_to_metric_families(text):
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--minutes", type=float, default=30)
    p.add_argument("--size", default="192x108")
    p.add_argument("--fps", type=int, default=25)
    p.add_argument("--build", default="build")
    p.add_argument("--sample", type=float, default=15, help="seconds between samples")
    p.add_argument("--warmup", type=float, default=120, help="seconds left out of the verdict")
    p.add_argument("--down-every", type=float, default=120)
    p.add_argument("--down-for", type=float, default=30)
    p.add_argument("--rss-slack", type=float, default=3.0, help="MB")
    p.add_argument("--held-slack", type=int, default=0,
                   help="frames; 0: 2 x window + 10 (one re-acquisition)")
    p.add_argument("--csv", default="monitor-soak.csv")
    p.add_argument("--reference-delay", default="off",
                   help="the monitor's --reference-delay (off, auto or SECONDS)")
    p.add_argument("--latency", type=float, default=1.0,
                   help="seconds the transcoders send late")
    p.add_argument("--sync-window", type=float, default=2.0,
                   help="the monitor's --sync-window (seconds)")
    a = p.parse_args()
    w, h = (int(x) for x in a.size.split("x"))
    window = round(a.sync_window * a.fps)
    held_slack = a.held_slack or 2 * window + 10
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
    exe = os.path.join(root, a.build, "tools", "ssim2")
    plugin = os.path.join(root, a.build, "gst")
    if not os.path.exists(exe) or not os.path.exists(os.path.join(plugin, "libgstssim2.so")):
        sys.exit(f"monitor-soak: {exe} or the plugin in {plugin} not found: build first")
    env = dict(os.environ, GST_PLUGIN_PATH_1_0=plugin)

    mon_ref, mon_a, mon_b = free_udp_port(), free_udp_port(), free_udp_port()
    tx_a, tx_b = free_udp_port(), free_udp_port()
    source = gst(f"videotestsrc is-live=true {pictures(a.fps, repeating=False)} "
                 f"! video/x-raw,width={w},height={h} "
                 f"! x264enc tune=zerolatency speed-preset=ultrafast key-int-max={a.fps} "
                 f"bitrate=1500 ! mpegtsmux ! multiudpsink sync=false "
                 f"clients=127.0.0.1:{mon_ref},127.0.0.1:{tx_a},127.0.0.1:{tx_b}")

    def transcoder(in_port, out_port):
        return gst(f"udpsrc port={in_port} caps=video/mpegts,systemstream=true ! tsdemux "
                   f"! h264parse ! avdec_h264 ! videoscale ! video/x-raw,width={w // 2},"
                   f"height={h // 2} ! x264enc tune=zerolatency speed-preset=ultrafast "
                   f"key-int-max={a.fps} bitrate=250 ! mpegtsmux "
                   f"! queue min-threshold-time={int(a.latency * 1e9)} max-size-time=0 "
                   f"max-size-buffers=0 max-size-bytes=0 "
                   f"! udpsink host=127.0.0.1 port={out_port} sync=false")

    transcoders = {"a": transcoder(tx_a, mon_a), "b": transcoder(tx_b, mon_b)}
    # Killed (SIGTERM, SIGINT): the senders and the monitor are stopped too
    # (the finally below), not left sending to ports a later run may take.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit("monitor-soak: terminated"))
    err_path = os.path.abspath(a.csv) + ".stderr"
    err = open(err_path, "wb")
    monitor = subprocess.Popen(
        [exe, "monitor", "--listen", "127.0.0.1:0", "--backend", "cpu",
         "--ref", f"udp://127.0.0.1:{mon_ref}", "--dist", f"a=udp://127.0.0.1:{mon_a}",
         "--dist", f"b=udp://127.0.0.1:{mon_b}", "--sync-window", f"{a.sync_window:g}",
         "--interval", "10",
         "--stall-timeout", "3", "--max-backoff", "2",
         "--reference-delay", a.reference_delay], stderr=err, env=env)
    url = None
    for _ in range(600):
        with open(err_path, errors="replace") as f:
            for line in f:
                if " serving http://" in line:
                    url = line.split(" serving ")[1].split()[0]
        if url or monitor.poll() is not None:
            break
        time.sleep(0.1)
    if not url:
        sys.exit("monitor-soak: the monitor did not start:\n" + open(err_path).read())

    key = lambda name, **l: (name, tuple(sorted(l.items())))  # noqa: E731
    rows = []
    returns = []  # (time b was started again, b's scored count then)
    start = time.monotonic()
    end = start + a.minutes * 60
    next_down = start + a.down_every
    b_back_at = None
    try:
        while time.monotonic() < end:
            now = time.monotonic()
            if b_back_at is None and now >= next_down:
                transcoders["b"].kill()
                transcoders["b"].wait()
                b_back_at = now + a.down_for
            elif b_back_at is not None and now >= b_back_at:
                transcoders["b"] = transcoder(tx_b, mon_b)
                b_back_at = None
                next_down = now + a.down_every
                returns.append([now - start, None])
            if monitor.poll() is not None:
                sys.exit(f"monitor-soak: the monitor exited ({monitor.returncode})")
            m = metrics(url)
            row = {
                "t_s": round(now - start, 1),
                "rss_mb": round(rss_mb(monitor.pid), 2),
                "held_frames": int(m.get(key("ssim2_reference_frames_held"), 0)),
                "held_bytes": int(m.get(key("ssim2_reference_bytes_held"), 0)),
                "b_up": int(m.get(key("ssim2_input_up", input="b"), 0)),
                "a_scored": int(m.get(key("ssim2_frames_total", rendition="a", result="scored"), 0)),
                "b_scored": int(m.get(key("ssim2_frames_total", rendition="b", result="scored"), 0)),
                "a_skipped": int(m.get(key("ssim2_frames_total", rendition="a", result="skipped"), 0)),
                "a_dropped": int(m.get(key("ssim2_frames_total", rendition="a", result="dropped"), 0)),
                "a_unaligned": int(m.get(key("ssim2_frames_total", rendition="a",
                                             result="unaligned"), 0)),
                "a_lag_s": round(m.get(key("ssim2_rendition_lag_seconds", rendition="a"),
                                       float("nan")), 3),
                "b_lag_s": round(m.get(key("ssim2_rendition_lag_seconds", rendition="b"),
                                       float("nan")), 3),
                "delay_s": round(m.get(key("ssim2_reference_delay_seconds"), 0.0), 3),
            }
            for r in returns:
                if r[1] is None:
                    r[1] = row["b_scored"]
            rows.append(row)
            print(",".join(str(v) for v in row.values()), flush=True)
            time.sleep(max(0.0, a.sample - (time.monotonic() - now)))
    finally:
        monitor.send_signal(signal.SIGTERM)
        try:
            monitor.wait(timeout=60)
        except subprocess.TimeoutExpired:
            monitor.kill()
        for proc in [source, *transcoders.values()]:
            stop(proc)
        err.close()

    with open(a.csv, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    steady = [r for r in rows if r["t_s"] >= a.warmup]
    if len(steady) < 6:
        sys.exit("monitor-soak: too short a run for a verdict (raise --minutes)")
    third = len(steady) // 3
    first, last = steady[:third], steady[-third:]
    rss_first = max(r["rss_mb"] for r in first)
    rss_last = max(r["rss_mb"] for r in last)
    held_peak = max(r["held_frames"] for r in rows)
    held_first = sum(r["held_frames"] for r in first) / len(first)
    held_last = sum(r["held_frames"] for r in last) / len(last)
    held_down = max((r["held_frames"] for r in rows if not r["b_up"]), default=0)
    # A return counts as scored when b's count grew by a later sample; those
    # in the last minute are left out (too little time to lock again).
    returns = [(t, n) for t, n in returns if t < rows[-1]["t_s"] - 60]
    scored_again = sum(1 for t, n in returns
                       if any(r["t_s"] > t and r["b_scored"] > n for r in rows))
    print(f"monitor-soak: {a.minutes:g} min at {w}x{h} {a.fps} fps, renditions a and b "
          f"(b down {a.down_for:g} s every {a.down_every:g} s), {len(rows)} samples")
    print(f"RSS: {rows[0]['rss_mb']:.1f} MB at the first sample, highest of the first third "
          f"after the warm-up {rss_first:.1f} MB, of the last third {rss_last:.1f} MB, "
          f"last {rows[-1]['rss_mb']:.1f} MB")
    print(f"held reference frames: at most {held_peak} (while b was down: {held_down}), "
          f"on average {held_first:.0f} in the first third after the warm-up and "
          f"{held_last:.0f} in the last (slack {held_slack}), last {rows[-1]['held_frames']} "
          f"({rows[-1]['held_bytes']} bytes)")
    print(f"scored: a {rows[-1]['a_scored']}, b {rows[-1]['b_scored']}; b came back "
          f"{len(returns)} times, scored again after {scored_again}")
    lags = [r["a_lag_s"] for r in steady if r["a_lag_s"] == r["a_lag_s"]]
    delays = [r["delay_s"] for r in steady]
    if lags:
        print(f"a's lag after the warm-up: {min(lags):.2f} to {max(lags):.2f} s; reference delay "
              f"{min(delays):.2f} to {max(delays):.2f} s (the transcoders {a.latency:g} s late)")
    a_still_scored = last[-1]["a_scored"] > last[0]["a_scored"]
    flat = (rss_last <= rss_first + a.rss_slack and held_last <= held_first + held_slack and
            scored_again == len(returns) and a_still_scored)
    print("FLAT" if flat else "NOT FLAT")
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
