#!/usr/bin/env python3
"""End-to-end tests of the built ssim2 tool.

Usage: test_cli.py SSIM2_EXE TESTDATA_DIR --with-video|--without-video --with-cuda|--without-cuda

Checks scores printed like the reference, the JSON output, and every error
case of errors.csv (exit code and the stderr line), plus a few more: missing
files, a text file, a size mismatch and bad arguments; the options (GStreamer's
group, --threads, -o/--format, number ranges, --fail-below), the grouped --help,
--version and --list-devices. Fails loudly when the
test data is missing.
"""
import csv
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from ssim2_test import check, finish, run_tool  # noqa: E402


def expect_error(exe, args, line_start, cwd, exact=False):
    """Exit 1, nothing on stdout, exactly one stderr line starting with line_start."""
    rc, out, err = run_tool(exe, *args, cwd=cwd)
    lines = err.splitlines()
    what = f"ssim2 {' '.join(args)}"
    check(rc == 1, f"{what}: exit code {rc}, expected 1")
    check(out == "", f"{what}: unexpected stdout {out!r}")
    check(len(lines) == 1, f"{what}: expected one stderr line, got {err!r}")
    if lines:
        ok = lines[0] == line_start if exact else lines[0].startswith(line_start)
        check(ok, f"{what}: stderr {lines[0]!r}, expected {'' if exact else 'start '}{line_start!r}")


def test_error_cases(exe, data):
    with open(os.path.join(data, "errors.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    check(len(rows) >= 8, "errors.csv has fewer rows than expected")
    for row in rows:
        rc, out, err = run_tool(exe, row["reference"], row["distorted"], cwd=data)
        what = f"errors.csv {row['reference']} {row['distorted']}"
        check(rc == int(row["exit_code"]), f"{what}: exit {rc}, expected {row['exit_code']}")
        check(err == row["stderr"] + "\n", f"{what}: stderr {err!r}, expected {row['stderr']!r}")
        check(out == "", f"{what}: stdout {out!r}")


def test_more_errors(exe, data, tmp):
    ref = "images/coffee_8x8/reference.png"
    # Reference too small is reported before the distorted file is read.
    expect_error(exe, ["invalid/coffee_7x7.png", "no/such/file.png"],
                 "Minimum image size is 8x8 pixels", data, exact=True)
    expect_error(exe, ["no/such/file.png", ref],
                 "Could not load original image: no/such/file.png", data)
    expect_error(exe, [ref, "no/such/file.png"],
                 "Could not load distorted image: no/such/file.png", data)
    text = os.path.join(tmp, "notes.txt")
    with open(text, "w") as f:
        f.write("this is not an image\n")
    expect_error(exe, [text, ref], f"Could not load original image: {text}", data)
    expect_error(exe, [ref, text], f"Could not load distorted image: {text}", data)
    empty = os.path.join(tmp, "empty.png")
    open(empty, "w").close()
    expect_error(exe, [ref, empty], f"Could not load distorted image: {empty}", data)
    broken = os.path.join(tmp, "broken.png")
    with open(os.path.join(data, "images/astronaut_256x256/reference.png"), "rb") as f:
        head = f.read(300)
    with open(broken, "wb") as f:
        f.write(head)
    expect_error(exe, [broken, ref], f"Could not load original image: {broken}", data)
    expect_error(exe, [tmp, ref], f"Could not load original image: {tmp}", data)
    expect_error(exe, ["images/rocket_640x360/reference.png",
                       "images/astronaut_256x256/reference.png"],
                 "Image size mismatch", data, exact=True)
    # Arguments: usage on stderr, exit 1.
    for args in ([], [ref]):
        rc, out, err = run_tool(exe, *args, cwd=data)
        check(rc == 1 and out == "" and "Usage:" in err, f"ssim2 {args}: usage expected")
    # More than two inputs are for videos (one reference, several distorted).
    expect_error(exe, [ref, ref, ref], "ssim2: images are compared two at a time", data)
    expect_error(exe, ["--backend", "gpu", ref, ref], "ssim2: --backend", data)
    expect_error(exe, ["--frobnicate", ref, ref], "ssim2: unknown option", data)


def test_stdout_write_error(exe, data):
    """A score that cannot be written to stdout (a full disk) is an error:
    exit 1 and one line, as for --json=FILE."""
    ref = "images/coffee_8x8/reference.png"
    with open("/dev/full", "w") as full:
        p = subprocess.run([exe, ref, ref], stdout=full, stderr=subprocess.PIPE, text=True,
                           cwd=data, timeout=60)
    lines = p.stderr.splitlines()
    check(p.returncode == 1, f"stdout on /dev/full: exit {p.returncode}, expected 1")
    check(len(lines) == 1 and "cannot write the result to standard output" in lines[0],
          f"stdout on /dev/full: stderr {p.stderr!r}")


def test_decompression_bomb(exe, data, tmp):
    """A 100-byte PNG declaring 30000x30000 fails at once with one line."""
    import struct
    import zlib
    ihdr = struct.pack(">IIBBBBB", 30000, 30000, 8, 2, 0, 0, 0)
    idat = zlib.compress(b"\0" * 64)

    def chunk(kind, body):
        return (struct.pack(">I", len(body)) + kind + body +
                struct.pack(">I", zlib.crc32(kind + body) & 0xffffffff))
    bomb = os.path.join(tmp, "bomb.png")
    with open(bomb, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", ihdr) + chunk(b"IDAT", idat) +
                chunk(b"IEND", b""))
    expect_error(exe, [bomb, bomb], f"Could not load original image: {bomb} (PNG: 30000x30000", data)


def test_out_of_memory(exe, data, tmp):
    """Two valid 8192x8192 PNGs under a 700 MiB address-space limit: they
    decode (about 400 MiB), the CPU scorer cannot get its memory, and the tool
    says so in one line (it used to abort on an uncaught std::bad_alloc)."""
    import resource
    import struct
    import zlib

    def png(path, side, value):
        row = b"\0" + bytes([value, value // 2, value // 3]) * side
        z = zlib.compressobj(9)
        body = b"".join(z.compress(row) for _ in range(side)) + z.flush()

        def chunk(kind, payload):
            return (struct.pack(">I", len(payload)) + kind + payload +
                    struct.pack(">I", zlib.crc32(kind + payload) & 0xffffffff))
        with open(path, "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n" +
                    chunk(b"IHDR", struct.pack(">IIBBBBB", side, side, 8, 2, 0, 0, 0)) +
                    chunk(b"IDAT", body) + chunk(b"IEND", b""))
    a, b = os.path.join(tmp, "big_a.png"), os.path.join(tmp, "big_b.png")
    png(a, 8192, 100)
    png(b, 8192, 120)
    limit = 700 * 1024 * 1024
    p = subprocess.run([exe, "--backend", "cpu", "--threads", "1", a, b], capture_output=True,
                       text=True, timeout=120,
                       preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (limit, limit)))
    lines = p.stderr.splitlines()
    check(p.returncode == 1 and p.stdout == "" and len(lines) == 1 and
          lines[0] == "ssim2: not enough host memory to score 8192x8192 images",
          f"out of memory: exit {p.returncode}, stdout {p.stdout!r}, stderr {p.stderr!r}")


def test_video_dispatch(exe, data, tmp, with_video):
    if with_video:
        return  # the video mode has its own tests
    blob = os.path.join(tmp, "clip.bin")
    with open(blob, "wb") as f:
        f.write(bytes([0x1A, 0x45, 0xDF, 0xA3]) + bytes(range(256)))
    expect_error(exe, [blob, blob],
                 "ssim2: video input needs the GStreamer plugin (this build has none)", data,
                 exact=True)


def test_scores(exe, data):
    """Small pairs through the tool: the printed line equals scores.csv."""
    with open(os.path.join(data, "scores.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    checked = 0
    for row in rows:
        if int(row["width"]) * int(row["height"]) > 300 * 300:
            continue  # the parity test covers the large ones
        rc, out, err = run_tool(exe, "--backend", "cpu", row["reference"], row["distorted"], cwd=data)
        check(rc == 0 and err == "", f"{row['distorted']}: rc {rc}, stderr {err!r}")
        check(out == row["score"] + "\n", f"{row['distorted']}: printed {out!r}, reference {row['score']}")
        checked += 1
    check(checked >= 40, f"only {checked} pairs scored")


HDR_DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "hdr")


def test_hdr_scores(exe):
    """PQ and HLG PNG pairs (cICP, cLLi): the printed line equals the HDR reference's, and
    --json says how each input was read."""
    with open(os.path.join(HDR_DATA, "scores.csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    same = 0
    for row in rows:
        rc, out, err = run_tool(exe, row["reference"], row["distorted"], cwd=HDR_DATA)
        check(rc == 0 and err == "", f"{row['distorted']}: rc {rc}, stderr {err!r}")
        check(out == row["score"] + "\n", f"{row['distorted']}: printed {out!r}, reference {row['score']}")
        same += out == row["score"] + "\n"
    check(same == len(rows) == 58, f"{same} of {len(rows)} HDR pairs print the reference's score")
    rc, out, err = run_tool(exe, "--json", "astronaut_256x256-pq/reference.png",
                            "astronaut_256x256-pq/identical-clli1501.png", cwd=HDR_DATA)
    doc = json.loads(out)
    check(doc["reference_color"] == {"transfer": "PQ", "primaries": "BT.2020", "intensity_target": 10000},
          f"reference_color {doc['reference_color']}")
    check(doc["distorted_color"]["intensity_target"] == 1501, f"distorted_color {doc['distorted_color']}")
    check(doc["backend"] in ("cpu", "cuda"), f"PQ inputs scored on {doc['backend']}")


def retag_cicp(src, dst, primaries, transfer):
    """Copies a cICP PNG with other cICP code points (and no cLLi)."""
    with open(src, "rb") as f:
        data = f.read()
    out, pos = data[:8], 8
    while pos < len(data):
        length = struct.unpack(">I", data[pos:pos + 4])[0]
        kind = data[pos + 4:pos + 8]
        chunk = data[pos:pos + 12 + length]
        if kind == b"cICP":
            body = b"cICP" + bytes([primaries, transfer, 0, 1])
            chunk = struct.pack(">I", 4) + body + struct.pack(">I", zlib.crc32(body))
        elif kind == b"cLLi":
            chunk = b""
        out += chunk
        pos += 12 + length
    with open(dst, "wb") as f:
        f.write(out)


def test_cicp_sdr_codes(exe, tmp):
    """The same 16-bit samples tagged BT.709 linear (cICP 1/8) and sRGB (1/13): the digits libjxl's
    ssimulacra2 (aea3a06e, skcms) printed for these files."""
    reference = {(8, "quant10"): "97.68847219", (8, "blur_s1.5"): "58.79748609",
                 (8, "noise"): "95.11400885", (13, "quant10"): "98.50745339",
                 (13, "blur_s1.5"): "54.22240662", (13, "noise"): "94.50594398"}
    src = os.path.join(HDR_DATA, "chelsea_127x255-pq")
    for (transfer, dist), want in reference.items():
        ref_png = os.path.join(tmp, f"cicp{transfer}-reference.png")
        dist_png = os.path.join(tmp, f"cicp{transfer}-{dist}.png")
        retag_cicp(os.path.join(src, "reference.png"), ref_png, 1, transfer)
        retag_cicp(os.path.join(src, dist + ".png"), dist_png, 1, transfer)
        rc, out, err = run_tool(exe, ref_png, dist_png, cwd=tmp)
        check(rc == 0 and out == want + "\n", f"cICP 1/{transfer} {dist}: {out!r} {err!r}, reference {want}")


def test_json(exe, data, tmp):
    ref = "images/astronaut_256x256/reference.png"
    dist = "images/astronaut_256x256/jpeg_q60.png"
    rc, plain, _ = run_tool(exe, ref, dist, cwd=data)
    check(rc == 0, "plain score failed")
    rc, out, err = run_tool(exe, "--json", "--backend", "cpu", ref, dist, cwd=data)
    check(rc == 0 and err == "", f"--json: rc {rc}, stderr {err!r}")
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(False, f"--json output is not JSON: {e}")
        return
    check(f"{doc['score']:.8f}\n" == plain, f"JSON score {doc['score']} vs printed {plain!r}")
    check(doc["scales"] == 6, f"scales {doc['scales']}")
    check(doc["backend"] == "cpu", f"backend {doc['backend']}")
    feats = doc["features"]
    count = sum(len(m) for ch in feats.values() for scale in ch for m in scale.values())
    check(count == 108, f"{count} sub-scores in JSON, expected 108")
    # The same numbers as features.csv (printed with 17 digits: exact).
    with open(os.path.join(data, "features.csv"), newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["reference"] == ref and r["distorted"] == dist]
    check(len(rows) == 36, f"{len(rows)} feature rows for {dist}")
    for r in rows:
        norm = "l1" if r["norm"] == "1" else "l4"
        for m in ("ssim", "artifact", "detail_lost"):
            got = feats[r["channel"]][int(r["scale"])][m][norm]
            check(got == float(r[m]), f"JSON {r['channel']}[{r['scale']}].{m}.{norm} = {got}, "
                                      f"features.csv {r[m]}")
    # --json=FILE: the file gets the JSON and stdout keeps the score line.
    path = os.path.join(tmp, "out.json")
    rc, out, err = run_tool(exe, f"--json={path}", ref, dist, cwd=data)
    check(rc == 0 and out == plain, f"--json=FILE: rc {rc}, stdout {out!r}")
    with open(path) as f:
        check(json.load(f)["score"] == doc["score"], "--json=FILE content differs")


def test_help(exe, with_video):
    rc, out, err = run_tool(exe, "--help")
    check(rc == 0 and "Usage:" in out and err == "", "--help: usage on stdout, exit 0")
    positions = [out.find(t) for t in ("Scoring options", "Video options:", "Output options:",
                                       "Help options:")]
    check(-1 not in positions and positions == sorted(positions),
          f"--help: groups missing or out of order: {positions}")
    for option in ("--threads=N", "-o, --output=FILE", "--format=csv|json|vmaf-json"):
        check(option in out, f"--help lacks {option}")
    check("--gst-debug-level=" not in out, "--help lists GStreamer's options (--help-all does)")
    rc, out, _ = run_tool(exe, "--help-all")
    if with_video:
        check(rc == 0 and "--gst-debug-level=" in out and "--threads=N" in out,
              "--help-all: ours and GStreamer's options")
    else:
        check(rc == 1 and out == "", "--help-all without GStreamer: unknown option")
    rc, out, _ = run_tool(exe, "--version")
    check(rc == 0 and "SSIMULACRA 2.1" in out, f"--version: {out!r}")


def test_version_and_devices(exe, with_video, with_cuda):
    """--version says what the build has; --list-devices without a GPU says why."""
    rc, out, err = run_tool(exe, "--version")
    lines = out.splitlines()
    check(rc == 0 and err == "" and len(lines) == 3, f"--version: three lines, got {out!r}")
    if len(lines) == 3:
        check(lines[0].endswith("(gst-ssim2), SSIMULACRA 2.1"), f"--version: {lines[0]!r}")
        engine = "CUDA engine: built in" if with_cuda else "CUDA engine: not built in (CPU only)"
        check(lines[1].startswith(engine), f"--version: {lines[1]!r}, expected {engine!r}")
        if with_video:
            check(re.fullmatch(r"GStreamer: 1\.\d+\.\d+ \(video mode\)", lines[2]),
                  f"--version: {lines[2]!r}")
        else:
            check(lines[2].startswith("GStreamer: none"), f"--version: {lines[2]!r}")
    # No device visible (CUDA_VISIBLE_DEVICES hides any a test machine has).
    env = dict(os.environ, CUDA_VISIBLE_DEVICES="")
    rc, out, err = run_tool(exe, "--list-devices", env=env)
    check(rc == 0 and err == "", f"--list-devices: rc {rc}, stderr {err!r}")
    if with_cuda:
        check(re.fullmatch(r"no CUDA device: .+ \(cuda\w+\)\n", out),
              f"--list-devices without a device: {out!r}")
    else:
        check(out == "this build has no CUDA engine (configured with -Dcuda=disabled or "
                     "without nvcc)\n", f"--list-devices without CUDA: {out!r}")
    # With whatever the machine has: a device line each, or the one line.
    rc, out, _ = run_tool(exe, "--list-devices")
    device_line = re.compile(r"\d+  .+  \d+\.\d GiB  compute capability \d+\.\d+  engine: "
                             r"(runs here|no \(too old for this build\))")
    check(rc == 0 and (out.startswith(("no CUDA device", "this build has no CUDA engine")) or
                       all(device_line.fullmatch(l) for l in out.splitlines())),
          f"--list-devices: {out!r}")


def test_fail_below(exe, data):
    """--fail-below: exit 3 below the gate (after the score line), 0 at or above it,
    1 for a bad value; one score is every statistic."""
    ref = "images/astronaut_256x256/reference.png"
    dist = "images/astronaut_256x256/jpeg_q60.png"
    rc, plain, _ = run_tool(exe, "--backend", "cpu", ref, dist, cwd=data)
    score = float(plain)
    for gate, expected in ((f"{score + 0.01:.2f}", 3), (f"p5:{score + 0.01:.2f}", 3),
                           (f"{score - 0.01:.2f}", 0), (f"harmonic_mean:{score - 0.01:.2f}", 0),
                           (f"min:{score:.8f}", 0)):
        rc, out, err = run_tool(exe, "--backend", "cpu", "--fail-below", gate, ref, dist, cwd=data)
        check(rc == expected and out == plain, f"--fail-below {gate}: rc {rc}, stdout {out!r}")
        if expected == 3:
            stat = gate.split(":")[0] if ":" in gate else "mean"
            check(err.startswith(f"ssim2: below the quality gate: {stat} {plain.strip()} < ") and
                  err.count("\n") == 1, f"--fail-below {gate}: stderr {err!r}")
        else:
            check(err == "", f"--fail-below {gate}: stderr {err!r}")
    for bad in ("stddev:5", "p5:", "nan", "inf", "101", "mean:7x", "p7:50"):
        expect_error(exe, ["--fail-below", bad, ref, dist], "ssim2: --fail-below: ", data)


def test_options(exe, data, tmp, with_video):
    """Options parsed the GStreamer way: GStreamer's group, --threads, -o/--format,
    and one-line errors for numbers out of range."""
    ref = "images/astronaut_256x256/reference.png"
    dist = "images/astronaut_256x256/jpeg_q60.png"
    rc, plain, _ = run_tool(exe, "--backend", "cpu", ref, dist, cwd=data)
    check(rc == 0, "plain score failed")
    # GStreamer's own options, where the build has GStreamer.
    for args in (["--gst-debug-level=1"], ["--gst-debug-level", "1"], ["--gst-debug=*:1"],
                 ["--gst-disable-registry-update"]):
        if with_video:
            rc, out, err = run_tool(exe, *args, "--backend", "cpu", ref, dist, cwd=data)
            check(rc == 0 and out == plain, f"{args}: rc {rc}, stdout {out!r}, stderr {err!r}")
        else:
            expect_error(exe, args + [ref, dist], "ssim2: unknown option --gst-", data)
    # --threads: the same score with one thread and with several.
    for n in ("1", "3", "0"):
        rc, out, err = run_tool(exe, "--backend", "cpu", "--threads", n, ref, dist, cwd=data)
        check(rc == 0 and out == plain and err == "", f"--threads {n}: rc {rc}, {out!r} {err!r}")
    # -o FILE.json writes what --json=FILE writes; the score line stays.
    by_option, by_o = os.path.join(tmp, "a.json"), os.path.join(tmp, "b.JSON")
    rc, out, _ = run_tool(exe, "--backend", "cpu", f"--json={by_option}", ref, dist, cwd=data)
    check(rc == 0 and out == plain, "--json=FILE failed")
    rc, out, err = run_tool(exe, "--backend", "cpu", "-o", by_o, ref, dist, cwd=data)
    check(rc == 0 and out == plain and err == "", f"-o FILE.JSON: rc {rc}, {out!r} {err!r}")
    with open(by_option) as f1, open(by_o) as f2:
        check(json.load(f1) == json.load(f2), "-o FILE.json differs from --json=FILE")
    # A non-ASCII file name is taken as it is (the tool runs in the C locale).
    accented = os.path.join(tmp, "sc\u00f6re.json")
    rc, out, err = run_tool(exe, "--backend", "cpu", "-o", accented, ref, dist, cwd=data)
    check(rc == 0 and out == plain and err == "" and os.path.isfile(accented),
          f"-o with a non-ASCII name: rc {rc}, stderr {err!r}")
    forced = os.path.join(tmp, "scores.dat")
    rc, out, _ = run_tool(exe, "--backend", "cpu", "--format", "json", "-o", forced, ref, dist, cwd=data)
    check(rc == 0 and out == plain and os.path.isfile(forced), "--format json -o FILE.dat")
    # Formats this mode or build cannot write: one line, nothing written.
    csv_out = os.path.join(tmp, "image.csv")
    expect_error(exe, ["-o", csv_out, ref, dist], "ssim2: CSV, vmaf-json, summary and plot output",
                 data)
    check(not os.path.exists(csv_out), "-o FILE.csv for images created a file")
    vmaf_out = os.path.join(tmp, "v.json")
    expect_error(exe, ["--format", "vmaf-json", "-o", vmaf_out, ref, dist],
                 "ssim2: CSV, vmaf-json, summary and plot output", data)
    check(not os.path.exists(vmaf_out), "--format vmaf-json for images created a file")
    summary_out = os.path.join(tmp, "summary.json")
    expect_error(exe, ["--summary", summary_out, ref, dist],
                 "ssim2: CSV, vmaf-json, summary and plot output", data)
    check(not os.path.exists(summary_out), "--summary for images created a file")
    expect_error(exe, ["-o", os.path.join(tmp, "x.txt"), ref, dist], "ssim2: -o ", data)
    expect_error(exe, ["--format", "json", ref, dist], "ssim2: --format", data)
    # Numbers out of range: one line naming the option and its range.
    for option, value, bounds in (("--every", "4294967296", "1 to 4294967295"),
                                  ("--every", "4294967297", "1 to 4294967295"),
                                  ("--offset", "4294967296", "0 to 4294967295"),
                                  ("--frames", "18446744073709551616", "0 to 4294967295"),
                                  ("--threads", "1025", "0 to 1024"),
                                  ("--device", "1025", "0 to 1024")):
        expect_error(exe, [option, value, ref, dist],
                     f"ssim2: {option}: expected a whole number from {bounds}, got '{value}' "
                     "(see ssim2 --help)", data, exact=True)


def main():
    if len(sys.argv) != 5:
        print(__doc__)
        return 2
    exe, data, video_flag = os.path.abspath(sys.argv[1]), sys.argv[2], sys.argv[3]
    with_cuda = sys.argv[4] == "--with-cuda"
    if not os.path.isfile(os.path.join(data, "scores.csv")):
        print(f"FAIL: test data not found at {data} (expected shared/testdata beside the repository)")
        return 1
    with_video = video_flag == "--with-video"

    def all_tests(tmp):
        test_help(exe, with_video)
        test_version_and_devices(exe, with_video, with_cuda)
        test_fail_below(exe, data)
        test_options(exe, data, tmp, with_video)
        test_error_cases(exe, data)
        test_more_errors(exe, data, tmp)
        test_video_dispatch(exe, data, tmp, with_video)
        test_stdout_write_error(exe, data)
        test_decompression_bomb(exe, data, tmp)
        test_out_of_memory(exe, data, tmp)
        test_scores(exe, data)
        test_hdr_scores(exe)
        test_cicp_sdr_codes(exe, tmp)
        test_json(exe, data, tmp)

    with tempfile.TemporaryDirectory() as tmp:
        return finish(lambda: all_tests(tmp), "all checks passed")

if __name__ == "__main__":
    sys.exit(main())
