#!/usr/bin/env python3
"""Video mode of the ssim2 tool, end to end (needs the built ssim2compare plugin).

Usage: test_video_cli.py SSIM2_EXE TESTDATA_DIR CASE

GST_PLUGIN_PATH_1_0 must name the build's gst/ folder (meson sets it). Clips are
generated with gst-launch-1.0 (videotestsrc, x264enc, matroskamux) into a
temporary folder. CASE is one of the functions named case_* below.
"""
import csv
import io
import json
import math
import os
import re
import time
import threading
import pty
import select
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from ssim2_test import fail, finish, require, run, run_tool, stop_with  # noqa: E402
from vmaf_log import check_vmaf_log  # noqa: E402

W, H = 320, 240
FRAME_BYTES = W * H * 3 // 2  # I420
SVG_NS = "{http://www.w3.org/2000/svg}"


# ---------------------------------------------------------------------------
# Running things

def gst_launch(pipeline):
    rc, out, err = run(["gst-launch-1.0", "-q"] + pipeline.split(), timeout=120)
    if rc != 0:
        fail(f"gst-launch-1.0 failed ({rc}): {pipeline}\n{out}{err}")


def make_raw(path, frames, pattern="smpte", speed=2):
    """Raw I420 frames of a moving test pattern (each frame differs)."""
    gst_launch(f"videotestsrc num-buffers={frames} pattern={pattern} horizontal-speed={speed} "
               f"! video/x-raw,format=I420,width={W},height={H},framerate=30/1 "
               f"! filesink location={path}")


def encode(raw, out, quantizer=0, first=0, count=None, width=W, height=H):
    """H.264 in Matroska from frames [first, first+count) of a raw I420 file;
    quantizer 0 is lossless (decoded frames equal the raw ones)."""
    frame_bytes = width * height * 3 // 2
    with open(raw, "rb") as f:
        data = f.read()
    frames = len(data) // frame_bytes
    count = frames - first if count is None else count
    part = out + ".part.yuv"
    with open(part, "wb") as f:
        f.write(data[first * frame_bytes:(first + count) * frame_bytes])
    gst_launch(f"filesrc location={part} ! rawvideoparse format=i420 width={width} "
               f"height={height} framerate=30/1 ! x264enc speed-preset=ultrafast pass=quant "
               f"quantizer={quantizer} ! matroskamux ! filesink location={out}")
    os.remove(part)


def generated_pair(tmp, frames=20):
    """A lossless reference and two x264 encodes of it (good and poor)."""
    raw = os.path.join(tmp, "src.yuv")
    make_raw(raw, frames)
    paths = {}
    for name, q in (("ref", 0), ("good", 18), ("poor", 42)):
        paths[name] = os.path.join(tmp, name + ".mkv")
        encode(raw, paths[name], quantizer=q)
    os.remove(raw)
    return paths


# ---------------------------------------------------------------------------
# Reading outputs

SUMMARY_KEYS = ["frames", "mean", "stddev", "min", "p1", "p5", "p50", "p95", "p99", "max",
                "harmonic_mean"]


def parse_summary(stdout):
    """The summary printed on stdout: 'key  value' lines."""
    values = {}
    for line in stdout.splitlines():
        if line.startswith("harmonic mean"):
            values["harmonic_mean"] = float(line.split()[2])
        elif line.startswith("throughput"):
            values["throughput"] = float(line.split()[1])
        elif line.strip():
            key, value = line.split()[:2]
            values[key] = float(value)
    require(all(k in values for k in SUMMARY_KEYS + ["throughput"]),
            f"summary lacks keys: {sorted(set(SUMMARY_KEYS) - set(values))}\n{stdout}")
    return values


CSV_COLUMNS = ["index", "frame", "pts", "stream_time", "running_time", "duration", "score",
               "ref_frame"]
SUMMARY_EXTRA = ["unmatched_ref", "unmatched_dist", "ended_first", "dropped", "repeated",
                 "unaligned", "skipped", "backend", "failure", "ref_transfer", "dist_transfer"]


def summary_path(path):
    """Where a case writes the --summary file that goes with log `path`."""
    return path + ".summary.json"


def read_csv(path, with_summary=False):
    """(rows as (frame, time in s or None, score), summary dict or None) of a
    --csv file, read as docs/LOGS.md describes it: rows only (RFC 4180), so
    that csv.DictReader gives one row per scored frame. `with_summary`: the
    summary of the --summary file beside it (summary_path()), the statistics
    as floats and the other fields as text ("" for null)."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    require(text.splitlines()[0] == ",".join(CSV_COLUMNS), f"CSV header is {text.splitlines()[0]!r}")
    require(not any(l.startswith("#") for l in text.splitlines()), "CSV has '#' lines")
    rows = []
    for r in csv.DictReader(io.StringIO(text)):
        require(None not in r and len(r) == len(CSV_COLUMNS), f"CSV row {r}")
        t = r["stream_time"] or r["pts"]
        rows.append((int(r["frame"]), int(t) / 1e9 if t else None, float(r["score"])))
    if not with_summary:
        return rows, None
    summaries = read_summary_file(summary_path(path))
    require(len(summaries) == 1, f"{len(summaries)} summaries in the summary file")
    return rows, next(iter(summaries.values()))


def read_summary_file(path):
    """{source: summary dict} of a --summary file (docs/LOGS.md), in its
    order; each summary as read_csv() gives it."""
    with open(path, encoding="utf-8") as f:
        doc = json.load(f)
    require(list(doc) == ["metric", "summaries"], f"summary file keys {list(doc)}")
    out = {}
    for entry in doc["summaries"]:
        summary = entry["summary"]
        require(list(summary) == SUMMARY_KEYS + SUMMARY_EXTRA, f"summary keys {list(summary)}")
        out[entry["source"]] = {k: (float(v) if k in SUMMARY_KEYS else
                                    "" if v is None else str(v)) for k, v in summary.items()}
    return out


def percentile(sorted_values, p):
    """numpy.percentile's default (linear) method."""
    rank = p / 100 * (len(sorted_values) - 1)
    lo = math.floor(rank)
    hi = min(lo + 1, len(sorted_values) - 1)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (rank - lo)


def expected_summary(scores):
    s = sorted(scores)
    n = len(s)
    mean = sum(s) / n
    harmonic = 0.0 if any(x <= 0 for x in s) else n / sum(1 / x for x in s)
    return {"frames": n, "mean": mean,
            "stddev": math.sqrt(sum((x - mean) ** 2 for x in s) / n),
            "min": s[0], "p1": percentile(s, 1), "p5": percentile(s, 5),
            "p50": percentile(s, 50), "p95": percentile(s, 95), "p99": percentile(s, 99),
            "max": s[-1], "harmonic_mean": harmonic}


def check_summary(got, scores, what, tol=2e-8):
    want = expected_summary(scores)
    for key in SUMMARY_KEYS:
        require(abs(got[key] - want[key]) <= tol * max(1.0, abs(want[key])),
                f"{what}: {key} is {got[key]}, expected {want[key]}")


def worst_count(n):
    return min(min(max(3, (n + 99) // 100), 10), n)


def check_svg(path, rows):
    """Well-formed SVG, one polyline vertex (and dot) per scored frame, mean and
    p5 lines, the worst frames circled and labelled with their frame numbers."""
    root = ET.parse(path).getroot()
    require(root.tag == SVG_NS + "svg", f"root element is {root.tag}")
    polylines = [e for e in root.iter(SVG_NS + "polyline") if e.get("id") == "scores"]
    require(len(polylines) == 1, "no polyline with id=scores")
    points = polylines[0].get("points").split()
    require(len(points) == len(rows), f"{len(points)} vertices for {len(rows)} scored frames")
    xs = [float(p.split(",")[0]) for p in points]
    require(xs == sorted(xs), "vertices not in frame order")
    dots = [e for e in root.iter(SVG_NS + "circle") if e.get("class") == "point"]
    require(len(dots) == len(rows), f"{len(dots)} dots for {len(rows)} scored frames")
    ids = {e.get("id") for e in root.iter()}
    require({"mean", "p5", "mean-label", "p5-label", "x-label", "y-label"} <= ids,
            f"missing elements: {sorted({'mean', 'p5', 'mean-label', 'p5-label'} - ids)}")
    labels = [e for e in root.iter(SVG_NS + "text") if e.get("class") == "worst-label"]
    n_worst = worst_count(len(rows))
    require(len(labels) == n_worst, f"{len(labels)} worst-frame labels, expected {n_worst}")
    worst = sorted(rows, key=lambda r: r[2])[:n_worst]
    require(sorted(int(l.get("data-frame")) for l in labels) == sorted(r[0] for r in worst),
            "worst-frame labels do not name the lowest-scoring frames")


# ---------------------------------------------------------------------------
# Cases

def case_shared_clip(exe, data, tmp):
    """The shared 720p pair: per-frame scores within 1e-3 of the reference's,
    the summary on stdout equal to the files' summary, CSV/JSON/SVG."""
    want = {}
    with open(os.path.join(data, "video_scores.csv")) as f:
        for r in csv.DictReader(f):
            want[int(r["frame"])] = float(r["score"])
    csv_path, json_path, svg_path = (os.path.join(tmp, n) for n in ("s.csv", "s.json", "s.svg"))
    rc, out, err = run_tool(exe, "--csv", csv_path, "--summary", summary_path(csv_path),
                            f"--json={json_path}", "--plot", svg_path,
                            os.path.join(data, "video", "reference.mkv"),
                            os.path.join(data, "video", "distorted.mkv"))
    require(rc == 0, f"exit {rc}")
    require(err == "", "stderr not empty when not a terminal")
    rows, csv_summary = read_csv(csv_path, with_summary=True)
    require([r[0] for r in rows] == list(range(30)), f"frames {[r[0] for r in rows]}")
    deltas = [abs(score - want[frame]) for frame, _, score in rows]
    worst = max(range(len(deltas)), key=lambda i: deltas[i])
    print(f"max |score - video_scores.csv| = {deltas[worst]:.3g} (frame {rows[worst][0]}), "
          f"mean |delta| = {sum(deltas) / len(deltas):.3g}")
    require(deltas[worst] <= 1e-3, f"frame {rows[worst][0]}: {rows[worst][2]} vs {want[worst]}")
    require(all(abs(r[1] - r[0] / 30) < 0.002 for r in rows), "times are not frame/30 s")
    scores = [r[2] for r in rows]
    printed = parse_summary(out)
    check_summary(printed, scores, "stdout summary")
    check_summary(csv_summary, scores, "summary file")
    for key in SUMMARY_KEYS:
        require(printed[key] == csv_summary[key], f"stdout and the summary file differ in {key}")
    with open(json_path) as f:
        doc = json.load(f)
    require(doc["width"] == 1280 and doc["height"] == 720, "JSON size")
    require([fr["score"] for fr in doc["frames"]] == scores, "JSON and CSV scores differ")
    require(all(doc["summary"][k] == csv_summary[k] for k in SUMMARY_KEYS), "JSON summary")
    require(list(doc["summary"]) == SUMMARY_KEYS + SUMMARY_EXTRA, "JSON summary keys")
    require(doc["summary"]["ref_transfer"] == doc["summary"]["dist_transfer"] == "sRGB",
            f"transfers {doc['summary']['ref_transfer']}, {doc['summary']['dist_transfer']}")
    require(abs(doc["summary"]["min"] - 20.31) < 0.01 and rows[10][2] == doc["summary"]["min"],
            "frame 10 is not the worst")
    check_svg(svg_path, rows)
    # The element's own summary (the pipeline docs/VIDEO.md shows, run with
    # gst-launch-1.0) agrees with the tool's to the printed digits.
    ref_uri = "file://" + os.path.abspath(os.path.join(data, "video", "reference.mkv"))
    dist_uri = "file://" + os.path.abspath(os.path.join(data, "video", "distorted.mkv"))
    rc, out, err = run(["gst-launch-1.0", "-m", "ssim2compare", "name=c", "backend=cpu", "!",
                        "fakesink", "sync=false", "uridecodebin", f"uri={ref_uri}", "!",
                        "queue", "!", "c.ref", "uridecodebin", f"uri={dist_uri}", "!", "queue",
                        "!", "c.dist"], timeout=120)
    require(rc == 0, f"gst-launch-1.0 exit {rc}: {err}")
    line = next((l for l in out.splitlines() if "ssim2-summary" in l), None)
    require(line is not None, "no ssim2-summary message from the element")
    element = {}
    # Fields are separated by commas; a comma inside a string value is escaped.
    for field in re.split(r"(?<!\\),", line.split("ssim2-summary,", 1)[1].rstrip(";")):
        key, value = field.strip().split("=", 1)
        if key.replace("-", "_") in SUMMARY_KEYS:
            element[key.replace("-", "_")] = float(value.split(")", 1)[1])
    for key in SUMMARY_KEYS:
        require(abs(element[key] - printed[key]) <= 5e-9,
                f"element's {key} {element[key]} vs the tool's {printed[key]}")


def case_generated(exe, data, tmp):
    """Generated clips: a good encode scores higher than a poor one, the
    reference against itself scores 100 on every frame."""
    p = generated_pair(tmp)
    results = {}
    for name in ("ref", "good", "poor"):
        c = os.path.join(tmp, name + ".csv")
        rc, out, err = run_tool(exe, "--csv", c, p["ref"], p[name])
        require(rc == 0, f"{name}: exit {rc}")
        rows, _ = read_csv(c)
        require(len(rows) == 20, f"{name}: {len(rows)} frames scored, expected 20")
        results[name] = parse_summary(out)
        print(f"  {name}: mean {results[name]['mean']:.3f} min {results[name]['min']:.3f}")
    require(results["ref"]["min"] == 100.0 and results["ref"]["max"] == 100.0,
            "the reference against itself is not 100")
    require(results["good"]["mean"] > results["poor"]["mean"] + 10,
            "good encode not clearly above poor encode")
    require(results["good"]["max"] < 100.0, "a lossy encode scored 100")


def case_streams(exe, data, tmp):
    """Inputs that need more than decoder -> element: a file with an audio
    track besides the video (the audio is decoded and dropped), and 4:2:2
    video, a format the element does not take (videoconvert is inserted)."""
    av = os.path.join(tmp, "av.mkv")
    gst_launch(f"videotestsrc num-buffers=15 pattern=smpte horizontal-speed=2 "
               f"! video/x-raw,width={W},height={H},framerate=30/1 ! x264enc speed-preset=ultrafast "
               f"! queue ! matroskamux name=m ! filesink location={av} "
               f"audiotestsrc num-buffers=30 ! audioconvert ! vorbisenc ! queue ! m.")
    y422 = os.path.join(tmp, "y422.mkv")
    gst_launch(f"videotestsrc num-buffers=10 pattern=smpte horizontal-speed=2 "
               f"! video/x-raw,width={W},height={H},framerate=30/1,format=Y42B "
               f"! x264enc speed-preset=ultrafast ! matroskamux ! filesink location={y422}")
    for path, n in ((av, 15), (y422, 10)):
        c = os.path.join(tmp, "s.csv")
        rc, out, err = run_tool(exe, "--csv", c, path, path)
        require(rc == 0, f"{path}: exit {rc}")
        rows, _ = read_csv(c)
        require(len(rows) == n and all(r[2] == 100.0 for r in rows),
                f"{path} against itself: {rows}")


def case_offset(exe, data, tmp):
    """--offset N: the reference is the distorted clip without its first N
    frames, so with --offset N every pair is identical (100), in both
    alignments; without it, not."""
    raw = os.path.join(tmp, "src.yuv")
    make_raw(raw, 24)
    full, tail = os.path.join(tmp, "full.mkv"), os.path.join(tmp, "tail.mkv")
    encode(raw, full, 0)
    encode(raw, tail, 0, first=3)
    c = os.path.join(tmp, "o.csv")
    for alignment in ("sequence", "running-time"):
        rc, out, err = run_tool(exe, "--alignment", alignment, "--offset", 3, "--csv", c, tail, full)
        require(rc == 0, f"{alignment}: exit {rc}")
        rows, _ = read_csv(c)
        require([r[0] for r in rows] == list(range(3, 24)),
                f"{alignment}: frames {[r[0] for r in rows]}, expected 3..23")
        require(all(r[2] == 100.0 for r in rows), f"{alignment}: not all 100: {rows}")
        require(abs(rows[0][1] - 0.1) < 0.002, f"{alignment}: time of frame 3 is {rows[0][1]}")
    rc, out, err = run_tool(exe, "--alignment", "sequence", "--csv", c, tail, full)
    require(rc == 0, f"no offset: exit {rc}")
    rows, _ = read_csv(c)
    require(max(r[2] for r in rows) < 100.0, "without --offset the shifted clips score 100")
    require("warning" in err and "21" in err and "24" in err,
            "no warning with both frame counts (21 and 24)")
    # An offset past the end: nothing scored.
    rc, out, err = run_tool(exe, "--offset", 30, tail, full)
    require(rc == 1 and out == "", f"offset past the end: exit {rc}")
    require(err.strip() != "", "offset past the end: no message")


def case_content(exe, data, tmp):
    """--alignment content on real footage (the shared 720p reference, scaled):
    the distorted file is the reference without its first 3 frames,
    re-encoded. The tool finds the offset +3 itself, scores every frame it
    pairs against the reference frame it shows (ref_frame = frame + 3), prints
    the offset and the counts, and refuses --offset; with the file given twice
    (a ladder) each gets its own block."""
    raw = os.path.join(tmp, "src.yuv")
    gst_launch(f"filesrc location={os.path.join(data, 'video', 'reference.mkv')} ! "
               f"matroskademux ! avdec_h264 ! videoconvert ! videoscale ! "
               f"video/x-raw,format=I420,width={W},height={H} ! filesink location={raw}")
    full, tail = os.path.join(tmp, "full.mkv"), os.path.join(tmp, "tail.mkv")
    encode(raw, full, 0)
    encode(raw, tail, 18, first=3)
    c = os.path.join(tmp, "c.csv")
    rc, out, err = run_tool(exe, "--alignment", "content", "--csv", c, "--summary",
                            summary_path(c), full, tail)
    require(rc == 0, f"exit {rc}: {err}")
    rows, summary = read_csv(c, with_summary=True)
    with open(c, encoding="utf-8", newline="") as f:
        body = list(csv.DictReader(f))
    require(len(body) >= 20, f"only {len(body)} of 27 frames paired")
    require(all(int(r["ref_frame"]) == int(r["frame"]) + 3 for r in body),
            f"a wrong pair: {[(r['frame'], r['ref_frame']) for r in body]}")
    require(summary["dropped"] == "0" and summary["repeated"] == "0", f"counts {summary}")
    require(int(summary["unaligned"]) == 27 - len(body), f"unaligned {summary['unaligned']}")
    frames = [int(r["frame"]) for r in body]
    require(frames == sorted(set(frames)) and frames[-1] < 27, f"frames {frames}")
    first = frames[0]
    require(f"offset         +3 from frame {first} (locked" in out, f"no offset line:\n{out}")
    require(f"unaligned      {27 - len(body)}\n" in out, f"no unaligned line:\n{out}")
    rc, out, err = run_tool(exe, "--alignment", "content", full, tail, tail)
    require(rc == 0 and out.count(f"offset         +3 from frame {first} (locked") == 2,
            f"two renditions: exit {rc}\n{out}")
    rc, out, err = run_tool(exe, "--alignment", "content", "--offset", 3, full, tail)
    require(rc != 0 and "--offset works with" in err, f"--offset accepted: exit {rc}")


def case_every_frames(exe, data, tmp):
    """--every N scores pairs 0, N, 2N...; --frames N stops after N scores."""
    p = generated_pair(tmp)
    c = os.path.join(tmp, "e.csv")
    expectations = [
        (["--every", 3], [0, 3, 6, 9, 12, 15, 18]),
        (["--frames", 4], [0, 1, 2, 3]),
        (["--every", 2, "--frames", 3], [0, 2, 4]),
        (["--offset", 2, "--every", 5, "--alignment", "sequence"], [2, 7, 12, 17]),
        (["--frames", 100], list(range(20))),
    ]
    rc, out, err = run_tool(exe, "--csv", c, p["ref"], p["poor"])
    require(rc == 0, f"exit {rc}")
    all_rows = {r[0]: r[2] for r in read_csv(c)[0]}
    for args, frames in expectations:
        rc, out, err = run_tool(exe, *args, "--csv", c, "--summary", summary_path(c), p["ref"],
                                p["poor"])
        require(rc == 0, f"{args}: exit {rc}")
        rows, summary = read_csv(c, with_summary=True)
        require([r[0] for r in rows] == frames, f"{args}: frames {[r[0] for r in rows]}, "
                                              f"expected {frames}")
        require(summary["frames"] == len(frames), f"{args}: summary frames {summary['frames']}")
        check_summary(parse_summary(out), [r[2] for r in rows], f"{args}: stdout")
        if "--offset" not in args:  # same pairs, same scores as the full run
            require(all(all_rows[f] == s for f, _, s in rows), f"{args}: scores differ")


def case_files(exe, data, tmp):
    """CSV, JSON (also --json on stdout) and SVG contents."""
    p = generated_pair(tmp, frames=12)
    c, j, s = (os.path.join(tmp, n) for n in ("f.csv", "f.json", "f.svg"))
    rc, out, err = run_tool(exe, "--csv", c, "--summary", summary_path(c), f"--json={j}",
                            "--plot", s, p["ref"], p["good"])
    require(rc == 0, f"exit {rc}")
    rows, summary = read_csv(c, with_summary=True)
    require(len(rows) == 12, f"{len(rows)} CSV rows")
    check_summary(summary, [r[2] for r in rows], "summary file")
    with open(c) as f:
        for line in f:
            if not line.startswith("index"):
                require(len(line.strip().split(",")[6].split(".")[1]) == 8, "score not %.8f")
    with open(j) as f:
        doc = json.load(f)
    for key in ("metric", "reference", "distorted", "width", "height", "alignment", "offset",
                "every", "frames", "summary", "elapsed_s", "throughput_fps", "warnings"):
        require(key in doc, f"JSON lacks {key}")
    require(doc["reference"] == p["ref"] and doc["distorted"] == p["good"], "JSON file names")
    require((doc["width"], doc["height"], doc["alignment"], doc["offset"], doc["every"]) ==
            (W, H, "running-time", 0, 1), "JSON run description")
    require([(f["frame"], f["score"]) for f in doc["frames"]] == [(r[0], r[2]) for r in rows],
            "JSON frames differ from CSV")
    require(all(f["index"] == f["frame"] for f in doc["frames"]), "index != frame without offset")
    require(doc["summary"]["unmatched_ref"] == 0 and doc["summary"]["ended_first"] is None,
            "JSON summary: unmatched frames or an input ended first")
    check_summary(doc["summary"], [r[2] for r in rows], "JSON")
    require(doc["throughput_fps"] > 0, "throughput")
    check_svg(s, rows)
    # --json alone: the document on stdout instead of the text summary.
    rc, out, err = run_tool(exe, "--json", "--frames", 5, p["ref"], p["good"])
    require(rc == 0, f"--json: exit {rc}")
    doc = json.loads(out)
    require(len(doc["frames"]) == 5 and doc["summary"]["frames"] == 5, "--json on stdout")
    # Unwritable output: one line, exit 1.
    rc, out, err = run_tool(exe, "--csv", os.path.join(tmp, "no", "such", "dir.csv"),
                            p["ref"], p["good"])
    require(rc == 1 and len(err.strip().splitlines()) == 1 and "cannot write" in err,
            "unwritable CSV")
    # A full disk: the failed writes are reported, not lost silently.
    for option in ("--csv", "--json", "--summary"):
        rc, out, err = run_tool(exe, option, "/dev/full", p["ref"], p["good"])
        require(rc == 1 and "cannot write /dev/full" in err, f"{option} /dev/full: exit {rc}")
    # An unwritable summary file costs the other files nothing.
    os.remove(c)
    rc, out, err = run_tool(exe, "--summary", os.path.join(tmp, "no", "such", "s.json"),
                            "--csv", c, p["ref"], p["good"])
    require(rc == 1 and len(err.strip().splitlines()) == 1 and "cannot write" in err,
            f"unwritable summary file: exit {rc}, stderr {err!r}")
    require(len(read_csv(c)[0]) == 12, "the CSV beside an unwritable summary file")


def de_locale_env(tmp):
    """The environment of a German locale (',' as decimal separator):
    de_DE.UTF-8 as installed, else generated with localedef (package
    "locales") into a folder named by LOCPATH."""
    env = dict(os.environ, LC_ALL="de_DE.UTF-8")
    probe = ["python3", "-c", "import locale; locale.setlocale(locale.LC_ALL, '')"]
    if subprocess.run(probe, env=env, stderr=subprocess.DEVNULL).returncode != 0:
        locales = os.path.join(tmp, "locales")
        os.mkdir(locales)
        rc, out, err = run(["localedef", "-i", "de_DE", "-f", "UTF-8",
                            os.path.join(locales, "de_DE.UTF-8")])
        require(rc == 0, f"cannot generate de_DE.UTF-8 (install 'locales'): {err}")
        env["LOCPATH"] = locales
    rc, out, err = run(["printf", "%.1f", "1.5"], env=env)
    require(out == "1,5", f"the German locale is not active: printf wrote {out!r}")
    return env


def case_locale(exe, data, tmp):
    """Under LC_ALL=de_DE.UTF-8 the files keep '.' decimals: the CSV splits
    into its documented columns, `python3 -m json.tool` accepts the JSON, the
    SVG's coordinates parse, the printed summary parses; a file name that is
    not UTF-8 still gives valid UTF-8 JSON."""
    env = de_locale_env(tmp)
    p = generated_pair(tmp, frames=6)
    latin1 = os.path.join(os.fsencode(tmp), b"caf\xe9.mkv")
    os.rename(p["good"], latin1)
    c, j, s = (os.path.join(tmp, n) for n in ("de.csv", "de.json", "de.svg"))
    rc, out, err = run([os.fsencode(exe), b"--csv", c.encode(), b"--summary",
                        summary_path(c).encode(), b"--json=" + j.encode(),
                        b"--plot", s.encode(), p["ref"].encode(), latin1], env=env)
    print(f"$ LC_ALL=de_DE.UTF-8 ssim2 --csv --json --plot ref caf\\xe9.mkv -> exit {rc}")
    require(rc == 0, f"exit {rc}: {err}")
    rows, summary = read_csv(c, with_summary=True)
    require(len(rows) == 6, f"{len(rows)} CSV rows")
    check_summary(summary, [r[2] for r in rows], "summary file")
    check_summary(parse_summary(out), [r[2] for r in rows], "stdout")
    rc, _, err = run([sys.executable, "-m", "json.tool", j])
    require(rc == 0, f"python3 -m json.tool rejects the JSON: {err}")
    with open(j, encoding="utf-8", errors="strict") as f:
        doc = json.load(f)
    require(doc["distorted"].endswith("caf\ufffd.mkv"), f"distorted is {doc['distorted']!r}")
    require([f["score"] for f in doc["frames"]] == [r[2] for r in rows], "JSON scores")
    check_svg(s, rows)


def case_bad_input(exe, data, tmp):
    """Each bad input: one clear line on stderr, exit 1, nothing on stdout;
    a shorter stream: scores what pairs, warns with both counts, exit 0."""
    p = generated_pair(tmp, frames=12)
    raw = os.path.join(tmp, "big.yuv")
    gst_launch(f"videotestsrc num-buffers=5 ! video/x-raw,format=I420,width=352,height=288,"
               f"framerate=30/1 ! filesink location={raw}")
    other_size = os.path.join(tmp, "cif.mkv")
    encode(raw, other_size, 20, width=352, height=288)
    audio = os.path.join(tmp, "audio.mka")
    gst_launch(f"audiotestsrc num-buffers=20 ! audioconvert ! vorbisenc ! matroskamux "
               f"! filesink location={audio}")
    garbage = os.path.join(tmp, "garbage.mkv")
    with open(garbage, "wb") as f:
        f.write(bytes((i * 7919 + 13) % 251 for i in range(40000)))
    truncated = os.path.join(tmp, "truncated.mkv")
    with open(p["good"], "rb") as f:
        head = f.read(300)  # the EBML header and little else
    with open(truncated, "wb") as f:
        f.write(head)
    # Headers complete, cut before the first frame's data: the demuxer ends
    # without an error, and the message must still say what happened.
    headers_only = os.path.join(tmp, "headers_only.mkv")
    with open(p["good"], "rb") as f:
        head = f.read(1500)
    with open(headers_only, "wb") as f:
        f.write(head)
    missing = os.path.join(tmp, "missing.mkv")
    short_raw = os.path.join(tmp, "short.yuv")
    make_raw(short_raw, 7)
    short = os.path.join(tmp, "short.mkv")
    encode(short_raw, short, 20)

    cases = [
        # A missing video is reported in the video mode's words, not as an
        # image that could not be loaded (issue 24).
        ("missing file", [missing, p["good"]],
         [f"ssim2: cannot open reference {missing}: No such file or directory"]),
        ("missing distorted", [p["ref"], missing],
         [f"ssim2: cannot open distorted {missing}: No such file or directory"]),
        ("undecodable", [p["ref"], garbage], [garbage]),
        ("truncated", [p["ref"], truncated], [truncated, "damaged or truncated file"]),
        ("headers only", [p["ref"], headers_only], [headers_only, "damaged or truncated file"]),
        ("headers only as reference", [headers_only, p["ref"]],
         [headers_only, "damaged or truncated file"]),
        ("no video stream", [p["ref"], audio], ["no video stream", audio]),
        ("different sizes", [p["ref"], other_size], ["320x240", "352x288"]),
        ("directory", [p["ref"], tmp], [tmp]),
    ]
    for what, args, needles in cases:
        rc, out, err = run_tool(exe, *args, timeout=60)
        lines = [l for l in err.splitlines() if l.strip()]
        require(rc == 1, f"{what}: exit {rc}, expected 1")
        require(out == "", f"{what}: stdout not empty: {out!r}")
        require(len(lines) == 1, f"{what}: {len(lines)} lines on stderr, expected one")
        for n in needles:
            require(n in lines[0], f"{what}: {n!r} not in {lines[0]!r}")
    # No decoder: every H.264 decoder this could pick is ranked out.
    env = dict(os.environ)
    env["GST_PLUGIN_FEATURE_RANK"] = ",".join(
        d + ":NONE" for d in ("avdec_h264", "openh264dec", "nvh264dec", "nvh264sldec",
                              "nvh264device1dec", "vah264dec", "vaapih264dec", "v4l2h264dec",
                              "qsvh264dec", "msdkh264dec"))
    rc, out, err = run_tool(exe, p["ref"], p["good"], env=env)
    lines = [l for l in err.splitlines() if l.strip()]
    if rc == 0:
        print("  (another H.264 decoder is installed: the missing-decoder case is not checked)")
    else:
        require(rc == 1 and out == "" and len(lines) == 1, "no decoder: exit 1 and one line")
        require("no GStreamer plugin installed for H.264" in lines[0], f"no decoder: {lines[0]!r}")
    for args, counts, first in (([p["ref"], short], ("12", "7"), "dist"),
                                ([short, p["ref"]], ("7", "12"), "ref")):
        c = os.path.join(tmp, "short.csv")
        rc, out, err = run_tool(exe, "--csv", c, "--summary", summary_path(c), *args)
        require(rc == 0, f"shorter stream: exit {rc}")
        rows, summary = read_csv(c, with_summary=True)
        require(summary["ended_first"] == first,
                f"shorter stream: ended_first {summary['ended_first']!r}, expected {first!r}")
        require(len(rows) == 7, f"shorter stream: {len(rows)} pairs scored, expected 7")
        warnings = [l for l in err.splitlines() if "warning" in l]
        require(len(warnings) >= 1, "shorter stream: no warning")
        require(all(n in warnings[0] for n in counts), f"warning lacks both counts: {warnings[0]}")


def case_input_fails_after_element_gave_up(exe, data, tmp):
    """An input that fails while it is being opened is reported in its own
    words even when ssim2compare has given up waiting for its pad first: the
    line does not depend on which came first (under load, a slow input used
    to lose to the element's grace). The test hook ends the grace at once;
    the distorted input is a FIFO that gets its bytes (a truncated file) only
    after the element's error was posted (its debug line on stderr)."""
    p = generated_pair(tmp, frames=4)
    with open(p["good"], "rb") as f:
        truncated = f.read(300)  # the EBML header and little else
    fifo = os.path.join(tmp, "truncated_later.mkv")
    os.mkfifo(fifo)
    env = dict(os.environ, GST_SSIM2_COMPARE_TEST_FAULT="no-unlinked-grace",
               GST_DEBUG="ssim2compare:2", GST_DEBUG_NO_COLOR="1")
    writer = {}

    def open_writer():  # open() returns once the tool opens the FIFO
        writer["file"] = open(fifo, "wb")

    opener = threading.Thread(target=open_writer, daemon=True)
    opener.start()
    proc = subprocess.Popen([exe, p["ref"], fifo], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    lines = []
    for raw in proc.stderr:
        line = raw.decode(errors="replace").rstrip("\n")
        lines.append(line)
        if "error: Nothing is linked to the dist pad" in line:
            break
    opener.join()
    try:
        writer["file"].write(truncated)
        writer["file"].close()
    except BrokenPipeError:
        pass  # the tool has already ended: its line is checked below
    out, err = proc.communicate(timeout=120)
    lines += err.decode(errors="replace").splitlines()
    ours = [l for l in lines if l.startswith("ssim2:")]
    print(f"$ ssim2 {p['ref']} {fifo}  -> exit {proc.returncode}")
    print("  stderr: " + "\n          ".join(ours))
    require(any("Nothing is linked" in l for l in lines),
            "the element did not give up on the dist pad (test hook)")
    require(proc.returncode == 1 and out == b"", f"exit {proc.returncode}, stdout {out!r}")
    require(len(ours) == 1, f"{len(ours)} lines of the tool on stderr, expected one")
    require(fifo in ours[0] and "damaged or truncated file" in ours[0],
            f"not the input's own line: {ours[0]!r}")


def case_progress(exe, data, tmp):
    """On a terminal: a progress line (frames done/total, fps, ETA) on stderr,
    erased before the summary, its final count drawn even when no 100 ms tick
    knew the total (a short run on a busy machine: SSIM2_TEST_QUIET_TICKS
    makes every run such); not a terminal (or --quiet): nothing."""
    p = generated_pair(tmp, frames=12)
    for quiet_ticks in (False, True):
        progress_on_terminal(exe, p, quiet_ticks)
    rc, out, err = run_tool(exe, "--quiet", p["ref"], p["good"])
    require(rc == 0 and err == "", "--quiet / not a terminal: stderr not empty")


def progress_on_terminal(exe, p, quiet_ticks):
    env = dict(os.environ)
    if quiet_ticks:
        env["SSIM2_TEST_QUIET_TICKS"] = "1"
    master, slave = pty.openpty()
    proc = subprocess.Popen([exe, p["ref"], p["good"]], stdout=subprocess.PIPE, stderr=slave,
                            env=env)
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            break
        try:
            chunk = os.read(master, 4096)
        except OSError:
            break
        if not chunk:
            break
        chunks.append(chunk)
    out = proc.stdout.read().decode()
    rc = proc.wait(60)
    os.close(master)
    err = b"".join(chunks).decode(errors="replace")
    print(f"  terminal stderr: {err[-160:]!r}")
    require(rc == 0, f"exit {rc}")
    require("/12 frames" in err and "fps" in err, "no progress line with the total on a terminal")
    require(err.endswith("\r\x1b[K"), "progress line not erased at the end")
    parse_summary(out)


def case_still_images(exe, data, tmp):
    """Still images keep the image mode's behaviour: one score line."""
    with open(os.path.join(data, "scores.csv")) as f:
        row = next(r for r in csv.DictReader(f) if "astronaut" in r["reference"] and
                   "jpeg_q60" in r["distorted"])
    rc, out, err = run_tool(exe, os.path.join(data, row["reference"]),
                            os.path.join(data, row["distorted"]))
    require(rc == 0 and out == row["score"] + "\n", f"image mode: {out!r} vs {row['score']}")


# The watchdog's time for the tests (the tool's default is 30 s); the tool
# reads SSIM2_WATCHDOG_SECONDS for exactly this purpose.
TEST_WATCHDOG_S = 2


def watchdog_env(seconds=TEST_WATCHDOG_S):
    env = dict(os.environ)
    env["SSIM2_WATCHDOG_SECONDS"] = str(seconds)
    return env


def feed_fifo(fifo, data, chunks=1, interval=0.0, hold=60.0):
    """Writes `data` into the FIFO in `chunks` pieces `interval` seconds
    apart, then keeps it open for `hold` seconds (a stalled writer) unless the
    reader goes away. Runs on a daemon thread."""
    def writer():
        try:
            with open(fifo, "wb") as w:
                step = max(1, -(-len(data) // chunks))
                for i in range(0, len(data), step):
                    w.write(data[i:i + step])
                    w.flush()
                    time.sleep(interval)
                time.sleep(hold)
        except BrokenPipeError:
            pass

    t = threading.Thread(target=writer, daemon=True)
    t.start()
    return t


def timed_ssim2(exe, *args, env=None, timeout=60):
    t0 = time.monotonic()
    rc, out, err = run_tool(exe, *args, env=env, timeout=timeout)
    return rc, out, err, time.monotonic() - t0


def case_stall(exe, data, tmp):
    """A distorted input that stops midway (a FIFO whose writer stays open,
    the tool's reader blocked in read()) ends with one line, exit 1, after
    the watchdog's time, with the CSV of the frames scored before the stall
    and nothing on stdout. The run's time limit is the check that it ends;
    how soon it ends depends on the machine and is not asserted."""
    p = generated_pair(tmp, frames=12)
    fifo = os.path.join(tmp, "stall.mkv")
    os.mkfifo(fifo)
    with open(p["good"], "rb") as f:
        head = f.read()
    feed_fifo(fifo, head[:len(head) * 7 // 10])
    c = os.path.join(tmp, "stall.csv")
    rc, out, err, took = timed_ssim2(exe, "--csv", c, p["ref"], fifo, env=watchdog_env(),
                                     timeout=40)
    stall_checks(rc, out, err, took, c, fifo)
    # A FIFO named by a file:// URI.
    fifo = os.path.join(tmp, "stall-uri.mkv")
    os.mkfifo(fifo)
    feed_fifo(fifo, head[:len(head) * 7 // 10])
    os.remove(c)
    rc, out, err, took = timed_ssim2(exe, "--csv", c, p["ref"], "file://" + fifo,
                                     env=watchdog_env(), timeout=40)
    stall_checks(rc, out, err, took, c, fifo)


def stall_checks(rc, out, err, took, c, fifo):
    lines = [l for l in err.splitlines() if l.strip()]
    require(rc == 1 and out == "", f"stall: exit {rc}, stdout {out!r}")
    require(len(lines) == 1 and f"no progress for {TEST_WATCHDOG_S} s" in lines[0] and
            fifo in lines[0], f"stall: stderr {lines!r}")
    rows, _ = read_csv(c)
    require(1 <= len(rows) < 12, f"stall: {len(rows)} rows in the CSV of the frames done")


def case_fifo_no_writer(exe, data, tmp):
    """A FIFO nobody opens for writing blocks open(): the tool still gives up
    after the watchdog's time with one line naming it."""
    p = generated_pair(tmp, frames=4)
    fifo = os.path.join(tmp, "nowriter.mkv")
    os.mkfifo(fifo)
    rc, out, err, took = timed_ssim2(exe, p["ref"], fifo, env=watchdog_env(), timeout=40)
    lines = [l for l in err.splitlines() if l.strip()]
    require(rc == 1 and out == "", f"no writer: exit {rc}, stdout {out!r}")
    require(len(lines) == 1 and fifo in lines[0] and "no frame from" in lines[0],
            f"no writer: stderr {lines!r}")


def case_watchdog_progress(exe, data, tmp):
    """Decoded frames are progress: the same 15,000-frame file twice with
    --every 100000 scores one pair and then decodes for seconds without any
    pipeline message; with the watchdog at 1.5 s the run must still complete
    (exit 0, the one score in the CSV). Decoding takes about 4 s on the
    development machine, so a watchdog that counted only messages would end
    it; 1.5 s leaves the start-up (before the first frame) room on a loaded
    machine."""
    clip = os.path.join(tmp, "long.mkv")
    gst_launch(f"videotestsrc num-buffers=15000 pattern=ball ! video/x-raw,format=I420,"
               f"width={W},height={H},framerate=30/1 ! x264enc speed-preset=ultrafast "
               f"! matroskamux ! filesink location={clip}")
    c = os.path.join(tmp, "every.csv")
    rc, out, err, took = timed_ssim2(exe, "-q", "--every", 100000, "--csv", c, clip, clip,
                                     env=watchdog_env(1.5), timeout=120)
    print(f"  the run took {took:.1f} s")
    require(rc == 0, f"--every 100000 on a long clip: exit {rc} after {took:.1f} s "
                   f"({err.strip()!r})")
    rows, _ = read_csv(c)
    require(len(rows) == 1, f"{len(rows)} rows, expected the one scored pair")


def case_watchdog_slow_scorer(exe, data, tmp):
    """Scoring passes started are progress: with the element's test hook
    slow-scorer every pass takes at least 2 s longer, so the first score
    (posted when the third pass collects the first one's, pipelining) comes
    at least 6 s after the last decoded frame and bus message. A watchdog
    at 5 s that counted only those would end the run; one that counts the
    passes the element starts sees one every 2 s and lets it complete.
    Nothing here depends on the machine's speed but the 3 s a pass of 4
    small frames gets beside the hook's 2 s."""
    p = generated_pair(tmp, frames=4)
    env = watchdog_env(5)
    env["GST_SSIM2_COMPARE_TEST_FAULT"] = "slow-scorer"
    c = os.path.join(tmp, "slow.csv")
    rc, out, err, took = timed_ssim2(exe, "-q", "--backend", "cpu", "--csv", c, p["ref"],
                                     p["good"], env=env, timeout=120)
    require(rc == 0, f"slow scorer: exit {rc} after {took:.1f} s ({err.strip()!r})")
    rows, _ = read_csv(c)
    require(len(rows) == 4, f"slow scorer: {len(rows)} rows, expected 4")


def case_signals(exe, data, tmp):
    """SIGINT and SIGTERM while a source is blocked in read(): the tool exits
    within seconds with 128 + the signal, the summary on stdout and the CSV
    of the frames scored so far."""
    import signal as sig
    p = generated_pair(tmp, frames=20)
    with open(p["good"], "rb") as f:
        head = f.read()
    head = head[:len(head) * 7 // 10]
    for signum, name in ((sig.SIGINT, "SIGINT"), (sig.SIGTERM, "SIGTERM")):
        # The frames there are get scored, then the source blocks. How long
        # the scoring takes depends on the machine: a signal that came before
        # the first score (the case of case_signal_before_scores) is sent
        # again to a new run that waits twice as long.
        wait = 3
        for attempt in range(5):
            fifo = os.path.join(tmp, f"stop-{name}-{attempt}.mkv")
            os.mkfifo(fifo)
            feed_fifo(fifo, head)
            c = os.path.join(tmp, f"stop-{name}-{attempt}.csv")
            proc = subprocess.Popen([exe, "-q", "--csv", c, p["ref"], fifo],
                                    stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            time.sleep(wait)
            require(proc.poll() is None, f"{name}: the tool ended before the signal")
            t0 = time.monotonic()
            rc, out, err = stop_with(proc, signum, name, timeout=15)
            took = time.monotonic() - t0
            if "before any frame pair was scored" not in err:
                break
            print(f"  {name}: nothing scored after {wait} s; again, waiting {2 * wait} s")
            wait *= 2
        print(f"  {name}: exit {proc.returncode} after {took:.1f} s; stderr {err.strip()!r}")
        require(proc.returncode == 128 + signum, f"{name}: exit {proc.returncode}")
        require("interrupted" in err, f"{name}: no 'interrupted' line")
        summary = parse_summary(out)
        rows, _ = read_csv(c)
        require(len(rows) >= 1 and len(rows) == summary["frames"],
                f"{name}: CSV has {len(rows)} rows, summary {summary['frames']}")


def case_signal_before_scores(exe, data, tmp):
    """SIGTERM before anything was scored (a FIFO whose writer sends
    nothing): one line, exit 143, within seconds."""
    import signal as sig
    p = generated_pair(tmp, frames=4)
    fifo = os.path.join(tmp, "silent.mkv")
    os.mkfifo(fifo)
    feed_fifo(fifo, b"")
    proc = subprocess.Popen([exe, "-q", p["ref"], fifo], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    time.sleep(2)
    rc, out, err = stop_with(proc, sig.SIGTERM, "SIGTERM", timeout=15)
    lines = err.splitlines()
    require(rc == 143 and out == "", f"exit {rc}, stdout {out!r}")
    require(len(lines) == 1 and "interrupted before any frame pair was scored" in lines[0],
            f"stderr {lines!r}")


def case_uri_inputs(exe, data, tmp):
    """file:// URIs work for either input, the reference included, and give
    the same scores as the paths."""
    p = generated_pair(tmp, frames=6)
    uri = {k: "file://" + os.path.abspath(v) for k, v in p.items()}
    rc, plain, err = run_tool(exe, "-q", p["ref"], p["good"])
    require(rc == 0, f"paths: exit {rc}")
    for args in ((uri["ref"], uri["good"]), (uri["ref"], p["good"]), (p["ref"], uri["good"])):
        rc, out, err = run_tool(exe, "-q", *args)
        require(rc == 0, f"{args}: exit {rc} ({err.strip()!r})")
        require(parse_summary(out)["mean"] == parse_summary(plain)["mean"], f"{args}: other scores")


def case_stdout_full(exe, data, tmp):
    """A summary that cannot be written (stdout on a full disk) is an error."""
    p = generated_pair(tmp, frames=4)
    with open("/dev/full", "w") as full:
        proc = subprocess.run([exe, "-q", p["ref"], p["good"]], stdout=full,
                              stderr=subprocess.PIPE, timeout=60)
    lines = proc.stderr.decode().splitlines()
    require(proc.returncode == 1, f"/dev/full: exit {proc.returncode}")
    require(len(lines) == 1 and "standard output" in lines[0], f"/dev/full: stderr {lines!r}")


def case_file_size_limit(exe, data, tmp):
    """A file-size limit (ulimit -f) on the CSV is a write error that says
    "File too large", not a death by SIGXFSZ."""
    import resource
    p = generated_pair(tmp, frames=4)
    c = os.path.join(tmp, "limited.csv")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (100, 100))

    proc = subprocess.run([exe, "-q", "--csv", c, p["ref"], p["good"]], stdout=subprocess.PIPE,
                          stderr=subprocess.PIPE, preexec_fn=limit, timeout=60)
    err = proc.stderr.decode()
    require(proc.returncode == 1, f"file-size limit: exit {proc.returncode} {err!r}")
    require(f"cannot write {c}: File too large" in err, f"file-size limit: stderr {err!r}")


def case_options(exe, data, tmp):
    """-o FILE writes what --csv / --json=FILE write (format by extension, or
    --format); --threads keeps the scores; numbers out of range stop the tool
    with one line before any pipeline runs."""
    p = generated_pair(tmp, frames=8)
    by_csv = os.path.join(tmp, "by_csv.csv")
    rc, out, err = run_tool(exe, "--backend", "cpu", "--csv", by_csv, p["ref"], p["good"])
    require(rc == 0, f"--csv: exit {rc}")
    rows, _ = read_csv(by_csv)
    require(len(rows) == 8, f"--csv: {len(rows)} rows")
    by_o = os.path.join(tmp, "by_o.csv")
    rc, out, err = run_tool(exe, "--backend", "cpu", "-o", by_o, p["ref"], p["good"])
    require(rc == 0 and err == "", f"-o FILE.csv: exit {rc}")
    require([r[::2] for r in read_csv(by_o)[0]] == [r[::2] for r in rows],
            "-o FILE.csv differs from --csv FILE")
    forced = os.path.join(tmp, "scores.txt")
    rc, out, err = run_tool(exe, "--backend", "cpu", "--format", "csv", "-o", forced,
                            p["ref"], p["good"])
    require(rc == 0, f"--format csv -o FILE.txt: exit {rc}")
    require([r[2] for r in read_csv(forced)[0]] == [r[2] for r in rows], "--format csv scores")
    as_json = os.path.join(tmp, "scores.json")
    rc, out, err = run_tool(exe, "--backend", "cpu", "--output", as_json, p["ref"], p["good"])
    require(rc == 0, f"--output FILE.json: exit {rc}")
    with open(as_json) as f:
        doc = json.load(f)
    require([(f["frame"], f["score"]) for f in doc["frames"]] == [(r[0], r[2]) for r in rows],
            "-o FILE.json frames differ from the CSV")
    # --alignment stream-time: files that start at 0 pair the same frames as
    # by running time.
    by_stream_time = os.path.join(tmp, "stream_time.csv")
    rc, out, err = run_tool(exe, "--backend", "cpu", "--alignment", "stream-time", "--csv",
                            by_stream_time, p["ref"], p["good"])
    require(rc == 0 and err == "", f"--alignment stream-time: exit {rc}, stderr {err!r}")
    require(read_csv(by_stream_time)[0] == rows, "--alignment stream-time pairs other frames")
    # --format vmaf-json: libvmaf's log, its pooled values recomputed from
    # its frames as libvmaf pools them.
    as_vmaf = os.path.join(tmp, "scores.vmaf.json")
    rc, out, err = run_tool(exe, "--backend", "cpu", "--format", "vmaf-json", "-o", as_vmaf,
                            p["ref"], p["good"])
    require(rc == 0 and err == "", f"--format vmaf-json: exit {rc}, stderr {err!r}")
    rc, version, _ = run_tool(exe, "--version")
    require(rc == 0 and version.startswith("ssim2 "), f"--version: {version!r}")
    # "version" is that of what wrote the log, as libvmaf's is.
    vmaf = check_vmaf_log(as_vmaf, [r[2] for r in rows], version.split()[1])
    require([fr["frameNum"] for fr in vmaf["frames"]] == [r[0] for r in rows],
            "vmaf-json frames differ from the CSV")
    require(isinstance(vmaf["fps"], float) and vmaf["fps"] > 0, f"vmaf-json fps {vmaf['fps']}")
    # --threads: the CPU path gives the same scores with one thread.
    rc, out, err = run_tool(exe, "--backend", "cpu", "--threads", 1, "--csv", by_o,
                            p["ref"], p["good"])
    require(rc == 0, f"--threads 1: exit {rc}")
    require([r[2] for r in read_csv(by_o)[0]] == [r[2] for r in rows], "--threads 1 scores differ")
    require(err == "", f"--threads 1: stderr {err!r}")
    # Out of range or not available: one line, exit 1, nothing written.
    stopped = os.path.join(tmp, "never.csv")
    for args, start in ((["--every", 4294967296], "ssim2: --every: expected a whole number"),
                        (["--every", 4294967297], "ssim2: --every: expected a whole number"),
                        (["--offset", 10 ** 20], "ssim2: --offset: expected a whole number")):
        rc, out, err = run_tool(exe, *args, "--csv", stopped, p["ref"], p["good"])
        lines = err.splitlines()
        require(rc == 1 and out == "" and len(lines) == 1 and lines[0].startswith(start),
                f"{args}: exit {rc}, stderr {err!r}")
        require(not os.path.exists(stopped), f"{args}: wrote {stopped}")


# ---------------------------------------------------------------------------
# Several distorted files (one reference decoded once) and --scale

def read_multi_csv(path):
    """(rows per source as {source: [score text, ...]}, summaries per source
    of the --summary file beside it if there is one, else None) of a log
    with a source column."""
    with open(path, encoding="utf-8", newline="") as f:
        text = f.read()
    require(text.splitlines()[0] == ",".join(CSV_COLUMNS + ["source"]),
            f"CSV header is {text.splitlines()[0]!r}")
    require(not any(l.startswith("#") for l in text.splitlines()), "CSV has '#' lines")
    rows = {}
    for r in csv.DictReader(io.StringIO(text)):
        rows.setdefault(r["source"], []).append(r["score"])
    summaries = (read_summary_file(summary_path(path))
                 if os.path.exists(summary_path(path)) else None)
    return rows, summaries


def single_scores(exe, tmp, ref, dist, *options):
    """Score texts of a one-to-one run (its CSV)."""
    c = os.path.join(tmp, "single.csv")
    rc, out, err = run_tool(exe, "-q", *options, "--csv", c, ref, dist)
    require(rc == 0, f"{dist}: exit {rc}")
    with open(c, encoding="utf-8", newline="") as f:
        return [r["score"] for r in csv.DictReader(f)]


def case_several_files(exe, data, tmp):
    """ssim2 REF D1 D2 D3: per file the same per-frame scores as three
    one-to-one runs (exactly), one summary block per file on stdout, one CSV
    and one JSON with a source column, a summary per source in the JSON and
    the summary file, a plot with
    one line per file; vmaf-json, which holds one file, is refused in one
    line."""
    p = generated_pair(tmp, frames=12)
    raw = os.path.join(tmp, "src.yuv")
    make_raw(raw, 12)
    p["mid"] = os.path.join(tmp, "mid.mkv")
    encode(raw, p["mid"], quantizer=30)
    dists = [p["good"], p["mid"], p["poor"]]
    c, j = os.path.join(tmp, "all.csv"), os.path.join(tmp, "all.json")
    rc, out, err = run_tool(exe, "-q", "--csv", c, "--summary", summary_path(c), f"--json={j}",
                            p["ref"], *dists)
    require(rc == 0 and err == "", f"exit {rc}, stderr {err!r}")
    rows, summaries = read_multi_csv(c)
    require(list(rows) == dists, f"sources {list(rows)}, expected {dists}")
    require(list(summaries) == dists, f"per-source summaries {list(summaries)}")
    with open(j, encoding="utf-8") as f:
        doc = json.load(f)
    require([s["source"] for s in doc["source_summaries"]] == dists, "JSON source_summaries")
    blocks = out.split("\n\n")
    require(len(blocks) == 3, f"{len(blocks)} summary blocks on stdout:\n{out}")
    means = []
    for d, block in zip(dists, blocks):
        single = single_scores(exe, tmp, p["ref"], d)
        require(len(single) == 12, f"{d}: {len(single)} frames in the one-to-one run")
        require(rows[d] == single,
                f"{d}: scores differ from the one-to-one run:\n{rows[d]}\n{single}")
        require(summaries[d]["frames"] == 12, f"{d}: summary frames {summaries[d]['frames']}")
        head = block.splitlines()[0]
        require(head == "distorted      " + d, f"block head {head!r}")
        got = parse_summary("\n".join(block.splitlines()[1:]))
        require(abs(got["mean"] - float(summaries[d]["mean"])) < 1e-8, f"{d}: stdout mean")
        js = [s["summary"] for s in doc["source_summaries"] if s["source"] == d][0]
        require(js["frames"] == 12 and abs(js["mean"] - got["mean"]) < 1e-8, f"{d}: JSON summary")
        require([f["score"] for f in doc["frames"] if f["source"] == d] ==
                [float(x) for x in single], f"{d}: JSON rows")
        means.append(got["mean"])
    require(means[0] > means[1] > means[2], f"means not in quality order: {means}")
    # --plot: one line per file, one vertex per scored frame.
    svg = os.path.join(tmp, "ladder.svg")
    rc, out, err = run_tool(exe, "-q", "--plot", svg, p["ref"], *dists)
    require(rc == 0, f"--plot with several files: exit {rc}")
    lines = [e for e in ET.parse(svg).getroot().iter(SVG_NS + "polyline")
             if e.get("class") == "scores"]
    require([len(e.get("points").split()) for e in lines] == [12, 12, 12],
            f"--plot: {len(lines)} score lines")
    # vmaf-json holds one file: refused in one line.
    rc, out, err = run_tool(exe, "--format", "vmaf-json", "-o", os.path.join(tmp, "v.json"),
                            p["ref"], *dists)
    require(rc == 1 and out == "" and len(err.splitlines()) == 1, f"vmaf-json: {rc} {err!r}")


def case_bad_among_several(exe, data, tmp):
    """A file that is not a video and one that does not exist among several:
    each is reported in one line, the others are scored as alone, exit 1."""
    p = generated_pair(tmp, frames=8)
    junk = os.path.join(tmp, "junk.mkv")
    with open(junk, "wb") as f:
        f.write(bytes(range(256)) * 40)
    missing = os.path.join(tmp, "missing.mkv")
    c = os.path.join(tmp, "all.csv")
    rc, out, err = run_tool(exe, "-q", "--csv", c, p["ref"], p["good"], junk, missing, p["poor"],
                            env=watchdog_env(), timeout=60)
    require(rc == 1, f"exit {rc}, expected 1")
    lines = err.splitlines()
    require(len(lines) == 2, f"stderr {err!r}")
    require(any("junk.mkv" in l and "still scored" in l for l in lines),
            f"junk not reported: {err!r}")
    require(any("missing.mkv" in l and "still scored" in l for l in lines), f"missing: {err!r}")
    rows, _ = read_multi_csv(c)
    require(list(rows) == [p["good"], p["poor"]], f"sources {list(rows)}")
    for d in (p["good"], p["poor"]):
        require(rows[d] == single_scores(exe, tmp, p["ref"], d), f"{d}: scores differ")
    require("failed         cannot decode distorted " + junk in out, f"stdout:\n{out}")


def case_scale(exe, data, tmp):
    """A 640x360 rendition of a 1280x720 reference: without --scale one line
    naming --scale, exit 1; with --scale it is scored, and exactly as after
    an explicit videoscale method=bilinear to 1280x720 (stored losslessly)."""
    ref, small, big = (os.path.join(tmp, n + ".mkv") for n in ("ref", "small", "big"))
    src = ("videotestsrc num-buffers=4 pattern=smpte horizontal-speed=4 "
           "! video/x-raw,format=I420,width=1280,height=720,framerate=30/1 ")
    gst_launch(src + "! x264enc speed-preset=ultrafast pass=quant quantizer=0 "
               f"! matroskamux ! filesink location={ref}")
    gst_launch(src + "! videoscale method=bilinear ! video/x-raw,width=640,height=360 "
               "! x264enc speed-preset=ultrafast pass=quant quantizer=20 "
               f"! matroskamux ! filesink location={small}")
    gst_launch(f"filesrc location={small} ! decodebin ! videoscale method=bilinear "
               "! video/x-raw,width=1280,height=720 ! x264enc speed-preset=ultrafast pass=quant "
               f"quantizer=0 ! matroskamux ! filesink location={big}")
    rc, out, err = run_tool(exe, "-q", ref, small)
    require(rc == 1 and out == "" and len(err.splitlines()) == 1 and "--scale" in err,
            f"without --scale: exit {rc}, stderr {err!r}")
    scaled = single_scores(exe, tmp, ref, small, "--scale")
    require(len(scaled) == 4, f"--scale: {len(scaled)} frames")
    require(scaled == single_scores(exe, tmp, ref, big),
            "--scale differs from an explicit videoscale method=bilinear")
    # With several files, one of the reference's size and one smaller.
    c = os.path.join(tmp, "both.csv")
    rc, out, err = run_tool(exe, "-q", "--scale", "--csv", c, ref, big, small)
    require(rc == 0, f"--scale with two files: exit {rc}")
    rows, _ = read_multi_csv(c)
    require(rows[small] == scaled and rows[big] == scaled, "--scale with two files: scores")


def case_fail_below(exe, data, tmp):
    """--fail-below [STAT:]SCORE: exit 3 after the summary and the files when a
    file's statistic is below the gate (each failing file named), 0 at or
    above it; an error (1) is never hidden by the gate."""
    p = generated_pair(tmp, frames=12)
    j = os.path.join(tmp, "s.json")
    rc, _, _ = run_tool(exe, "-q", f"--json={j}", p["ref"], p["good"], p["poor"])
    require(rc == 0, f"exit {rc}")
    with open(j, encoding="utf-8") as f:
        sums = {s["source"]: s["summary"] for s in json.load(f)["source_summaries"]}
    good, poor = sums[p["good"]], sums[p["poor"]]
    require(poor["p5"] < good["p5"], "the poor copy scores above the good one")
    gate = (poor["p5"] + good["p5"]) / 2
    csv_path = os.path.join(tmp, "gate.csv")
    rc, out, err = run_tool(exe, "-q", "--fail-below", f"p5:{gate:.4f}", "--csv", csv_path,
                            p["ref"], p["good"], p["poor"])
    lines = err.splitlines()
    require(rc == 3, f"below the gate: exit {rc}, expected 3")
    require(len(lines) == 1 and lines[0].startswith("ssim2: below the quality gate: p5 ") and
            lines[0].endswith(f"(distorted {p['poor']})"), f"below the gate: stderr {err!r}")
    require("mean" in out and os.path.getsize(csv_path) > 0, "summary or CSV missing at exit 3")
    rc, _, err = run_tool(exe, "-q", "--fail-below", f"{good['mean'] - 0.5:.4f}", p["ref"], p["good"])
    require(rc == 0 and err == "", f"above the gate: exit {rc}, stderr {err!r}")
    rc, _, err = run_tool(exe, "-q", "--fail-below", "100", p["ref"], p["good"])
    require(rc == 3 and "below the quality gate: mean " in err, f"mean below 100: exit {rc}")
    # An error wins: a missing second file is exit 1 even with the other below the gate.
    rc, _, err = run_tool(exe, "-q", "--fail-below", "100", p["ref"], p["good"],
                          os.path.join(tmp, "missing.mkv"))
    require(rc == 1, f"error with a gate: exit {rc}, expected 1")


def main():
    if len(sys.argv) != 4:
        print(__doc__, file=sys.stderr)
        return 2
    exe, data, case = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    fn = globals().get("case_" + case.replace("-", "_"))
    if fn is None:
        print(f"unknown case {case}", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="ssim2-video-") as tmp:
        return finish(lambda: fn(exe, data, tmp), f"PASS {case}")


if __name__ == "__main__":
    sys.exit(main())
