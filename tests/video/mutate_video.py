#!/usr/bin/env python3
"""Seeded mutation test of the tool's video path: damaged containers in, and
every run must end by itself with exit 0 or 1 and, on exit 1, exactly one
line on stderr (warnings aside on exit 0). A crash (signal), a hang (the
watchdog, shortened here, must end stalls) or a second error line fails.

Usage: mutate_video.py SSIM2_EXE [COUNT] [SEED]

GST_PLUGIN_PATH_1_0 must name the build's gst/ folder (meson sets it).
Clips are generated with gst-launch-1.0 (Matroska/H.264 and MPEG-TS/H.264).
"""
import os
import random
import subprocess
import sys
import tempfile
import time

W, H, FRAMES = 160, 120, 10
WATCHDOG_S = 3  # SSIM2_WATCHDOG_SECONDS: the tool's test-only watchdog time


def gst_launch(pipeline):
    subprocess.run(["gst-launch-1.0", "-q"] + pipeline.split(), check=True, timeout=120,
                   stdout=subprocess.DEVNULL)


def make_clips(tmp):
    clips = {}
    for name, mux in (("mkv", "matroskamux"), ("ts", "mpegtsmux")):
        path = os.path.join(tmp, "clip." + name)
        gst_launch(f"videotestsrc num-buffers={FRAMES} pattern=ball ! video/x-raw,format=I420,"
                   f"width={W},height={H},framerate=30/1 ! x264enc speed-preset=ultrafast "
                   f"key-int-max=4 ! h264parse ! {mux} ! filesink location={path}")
        clips[name] = path
    return clips


def mutate(data, rng):
    """One of: flipped bytes, a truncation, a duplicated or dropped span, a
    run of 0x00/0xFF, or a span overwritten from elsewhere in the file."""
    b = bytearray(data)
    kind = rng.randrange(6)
    if kind == 0:
        for _ in range(rng.randint(1, 16)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    elif kind == 1:
        b = b[:rng.randrange(1, len(b))]
    elif kind == 2:
        i, n = rng.randrange(len(b)), rng.randint(1, 2000)
        b[i:i] = b[i:i + n]
    elif kind == 3:
        i = rng.randrange(len(b))
        del b[i:i + rng.randint(1, 2000)]
    elif kind == 4:
        i = rng.randrange(len(b))
        b[i:i + rng.randint(1, 64)] = bytes([rng.choice((0, 0xFF))]) * rng.randint(1, 64)
    else:
        i, j, n = rng.randrange(len(b)), rng.randrange(len(b)), rng.randint(4, 256)
        b[i:i + n] = data[j:j + n]
    return bytes(b), ["flip", "truncate", "duplicate", "drop", "fill", "splice"][kind]


def main():
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    exe = os.path.abspath(sys.argv[1])
    count = int(sys.argv[2]) if len(sys.argv) > 2 else 60
    seed = int(sys.argv[3]) if len(sys.argv) > 3 else 20261130
    rng = random.Random(seed)
    env = dict(os.environ)
    env["SSIM2_WATCHDOG_SECONDS"] = str(WATCHDOG_S)
    failures = []
    outcomes = {0: 0, 1: 0}
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="ssim2-mutate-") as tmp:
        clips = make_clips(tmp)
        originals = {k: open(v, "rb").read() for k, v in clips.items()}
        for i in range(count):
            container = rng.choice(sorted(clips))
            data, how = mutate(originals[container], rng)
            bad = os.path.join(tmp, f"mutant{i}.{container}")
            with open(bad, "wb") as f:
                f.write(data)
            # Either side: the damaged file as reference or as distorted.
            args = [clips[container], bad] if rng.random() < 0.5 else [bad, clips[container]]
            what = f"#{i} {how} {container} as {'distorted' if args[1] == bad else 'reference'}"
            try:
                p = subprocess.run([exe, "-q", "--backend", "cpu"] + args, env=env,
                                   capture_output=True, text=True, errors="replace",
                                   timeout=WATCHDOG_S + 30)
            except subprocess.TimeoutExpired:
                failures.append(f"{what}: still running after {WATCHDOG_S + 30} s")
                continue
            lines = [l for l in p.stderr.splitlines() if l.strip()]
            errors = [l for l in lines if not l.startswith("ssim2: warning:")]
            if p.returncode not in (0, 1):
                failures.append(f"{what}: exit {p.returncode} ({p.stderr.strip()[-300:]!r})")
            elif p.returncode == 1 and len(lines) != 1:
                failures.append(f"{what}: exit 1 with {len(lines)} stderr lines: {lines!r}")
            elif p.returncode == 0 and errors:
                failures.append(f"{what}: exit 0 with error lines {errors!r}")
            else:
                outcomes[p.returncode] += 1
            os.remove(bad)
    took = time.monotonic() - t0
    print(f"{count} mutants (seed {seed}) in {took:.1f} s: {outcomes[0]} scored, "
          f"{outcomes[1]} refused with one line, {len(failures)} failures")
    for f in failures:
        print("FAIL", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
