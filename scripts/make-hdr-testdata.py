#!/usr/bin/python3
"""Makes the HDR test data of tests/data/hdr from the SDR photographs of the shared test data.

Every output is a 16-bit RGB PNG with a cICP chunk (BT.2020 primaries, PQ or HLG, identity matrix, full range),
some also with a cLLi chunk, and nothing else besides IHDR/IDAT/IEND. The scores come from libjxl's own
`ssimulacra2` (built by scripts/make-hdr-reference.sh), run on every (reference, distorted) pair.

    SSIMULACRA2=BUILD/tools/ssimulacra2 PROBE=BUILD/tools/hdr-reference-probe \\
        scripts/make-hdr-testdata.py SHARED_TESTDATA [OUT_DIR]

With SSIMULACRA2_LCMS2 set to the same tool built with lcms2 (JXL_CMS=lcms2), the image pairs are also scored
by it, into scores_lcms2.csv. SHARED_TESTDATA is the folder with images/<id>/reference.png (the shared SDR test data); OUT_DIR defaults to
tests/data/hdr. Needs python3-numpy and ffmpeg (with libx265) from Debian 12. Deterministic: the same inputs and
tools give the same bytes.
"""

import csv
import hashlib
import os
import struct
import subprocess
import sys
import tempfile
import zlib

import numpy as np

# ---------------------------------------------------------------------------------------------------------------
# Colour science, all in float64 (this only makes test content; the reference's own float32 path is docs/HDR.md's)

PQ_M1 = 2610 / 16384
PQ_M2 = 2523 / 4096 * 128
PQ_C1 = 3424 / 4096
PQ_C2 = 2413 / 4096 * 32
PQ_C3 = 2392 / 4096 * 32
HLG_A = 0.17883277
HLG_B = 1 - 4 * HLG_A
HLG_C = 0.5 - HLG_A * np.log(4 * HLG_A)
HLG_PEAK = 1000.0  # cd/m², the BT.2100 reference display the HLG content is made for
HLG_GAMMA = 1.2  # system gamma at 1000 cd/m²
SDR_WHITE = 203.0  # cd/m², BT.2408 graphics white: where SDR diffuse white lands
# BT.2020 luminance coefficients (for the highlight gain and the HLG OOTF).
Y2020 = np.array([0.2627, 0.6780, 0.0593])
# Linear BT.709 to linear BT.2020 (ITU-R BT.2087, D65 both).
M709_TO_2020 = np.array([[0.6274, 0.3293, 0.0433],
                         [0.0691, 0.9195, 0.0114],
                         [0.0164, 0.0880, 0.8956]])


def srgb_to_linear(v):
    return np.where(v <= 0.04045, v / 12.92, ((v + 0.055) / 1.055) ** 2.4)


def pq_encode(nits):
    y = np.clip(nits / 10000.0, 0.0, 1.0) ** PQ_M1
    return ((PQ_C1 + PQ_C2 * y) / (1 + PQ_C3 * y)) ** PQ_M2


def pq_decode(e):
    p = np.clip(e, 0.0, 1.0) ** (1 / PQ_M2)
    return 10000.0 * (np.maximum(p - PQ_C1, 0) / (PQ_C2 - PQ_C3 * p)) ** (1 / PQ_M1)


def hlg_oetf(s):
    s = np.clip(s, 0.0, None)
    with np.errstate(invalid="ignore", divide="ignore"):
        hi = HLG_A * np.log(np.maximum(12 * s - HLG_B, 1e-12)) + HLG_C
    return np.clip(np.where(s <= 1 / 12, np.sqrt(3 * s), hi), 0.0, 1.0)


def hlg_inverse_oetf(e):
    e = np.clip(e, 0.0, 1.0)
    return np.where(e <= 0.5, e * e / 3, (np.exp((e - HLG_C) / HLG_A) + HLG_B) / 12)


def hlg_encode(nits):
    """Display light (cd/m², 1000 cd/m² display, black 0) to the HLG signal: inverse OOTF, then OETF."""
    fd = np.clip(nits / HLG_PEAK, 0.0, 1.0)
    yd = fd @ Y2020
    with np.errstate(divide="ignore", invalid="ignore"):
        scale = np.where(yd > 0, yd ** ((1 - HLG_GAMMA) / HLG_GAMMA), 0.0)
    return hlg_oetf(fd * scale[..., None])


def hlg_decode(e):
    """The HLG signal to display light (cd/m²): inverse OETF, then OOTF."""
    es = hlg_inverse_oetf(e)
    ys = es @ Y2020
    return HLG_PEAK * es * (ys ** (HLG_GAMMA - 1))[..., None]


TRANSFERS = {  # name: (cICP transfer code, encode cd/m² -> [0,1], decode)
    "pq": (16, pq_encode, pq_decode),
    "hlg": (18, hlg_encode, hlg_decode),
}


def hdr_from_sdr(srgb8, peak):
    """An SDR photo as HDR display light in cd/m² (BT.2020): diffuse content at graphics white, highlights
    expanded towards `peak` with a gain that grows with the 4th power of luminance (white reaches `peak`)."""
    lin = srgb_to_linear(srgb8.astype(np.float64) / 255.0) @ M709_TO_2020.T
    y = np.clip(lin @ Y2020, 0.0, 1.0)
    gain = SDR_WHITE * (1 + (peak / SDR_WHITE - 1) * y ** 4)
    return lin * gain[..., None]


def to_u16(e):
    return np.clip(np.rint(e * 65535.0), 0, 65535).astype(np.uint16)


# ---------------------------------------------------------------------------------------------------------------
# PNG with cICP / cLLi


def png_chunk(tag, payload):
    return struct.pack(">I", len(payload)) + tag + payload + struct.pack(">I", zlib.crc32(tag + payload))


def filter_rows(raw, bpp):
    """PNG filtering, per row the filter (None, Sub, Up, Average, Paeth) with the smallest sum of |signed byte|."""
    h, stride = raw.shape
    a = np.zeros_like(raw, dtype=np.int16)
    a[:, bpp:] = raw[:, :-bpp]
    b = np.zeros_like(raw, dtype=np.int16)
    b[1:] = raw[:-1]
    c = np.zeros_like(raw, dtype=np.int16)
    c[1:, bpp:] = raw[:-1, :-bpp]
    x = raw.astype(np.int16)
    p = a + b - c
    pa, pb, pc = np.abs(p - a), np.abs(p - b), np.abs(p - c)
    paeth = np.where((pa <= pb) & (pa <= pc), a, np.where(pb <= pc, b, c))
    candidates = [x, x - a, x - b, x - (a + b) // 2, x - paeth]
    filtered = [(f % 256).astype(np.uint8) for f in candidates]
    cost = np.stack([np.abs(f.astype(np.int8).astype(np.int32)).sum(axis=1) for f in filtered])
    best = cost.argmin(axis=0)
    out = np.empty((h, stride + 1), dtype=np.uint8)
    out[:, 0] = best
    for kind in range(5):
        rows = best == kind
        out[rows, 1:] = filtered[kind][rows]
    return out


def write_png16(path, rgb16, transfer_code, max_cll=None, max_fall=None):
    h, w, _ = rgb16.shape
    raw = rgb16.astype(">u2").view(np.uint8).reshape(h, w * 6)
    data = zlib.compress(filter_rows(raw, 6).tobytes(), 9)
    chunks = [png_chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 16, 2, 0, 0, 0)),
              png_chunk(b"cICP", bytes([9, transfer_code, 0, 1]))]
    if max_cll is not None:  # both in 0.0001 cd/m² (PNG 3rd edition)
        chunks.append(png_chunk(b"cLLi", struct.pack(">II", round(max_cll * 10000), round(max_fall * 10000))))
    chunks += [png_chunk(b"IDAT", data), png_chunk(b"IEND", b"")]
    with open(path, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n" + b"".join(chunks))


# ---------------------------------------------------------------------------------------------------------------
# Sources and distortions


def read_rgb24(path, size=None):
    vf = ["-vf", f"scale={size[0]}:{size[1]}:flags=lanczos"] if size else []
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", path, *vf, "-f", "rawvideo", "-pix_fmt", "rgb24", "-"],
                         check=True, capture_output=True).stdout
    probe = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries",
                            "stream=width,height", "-of", "csv=p=0", path],
                           check=True, capture_output=True, text=True).stdout.strip().split(",")
    w, h = size if size else (int(probe[0]), int(probe[1]))
    return np.frombuffer(out, dtype=np.uint8).reshape(h, w, 3)


def gaussian_blur(img, sigma):
    radius = int(np.ceil(3 * sigma))
    k = np.exp(-0.5 * (np.arange(-radius, radius + 1) / sigma) ** 2)
    k /= k.sum()
    out = img.astype(np.float64)
    for axis in (0, 1):
        pad = [(radius, radius) if a == axis else (0, 0) for a in range(3)]
        p = np.pad(out, pad, mode="reflect")
        n = out.shape[axis]
        out = sum(k[i] * np.take(p, range(i, i + n), axis=axis) for i in range(len(k)))
    return out


def x265_roundtrip(rgb16, transfer, crf, tmp):
    """Encodes with x265 Main10 (4:2:0, BT.2020 non-constant-luminance, limited range) and decodes back to RGB."""
    h, w, _ = rgb16.shape
    trc = {"pq": "smpte2084", "hlg": "arib-std-b67"}[transfer]
    src = os.path.join(tmp, "src.rgb48")
    hevc = os.path.join(tmp, "x.hevc")
    rgb16.astype("<u2").tofile(src)
    sws = "accurate_rnd+full_chroma_int+full_chroma_inp+bitexact"
    subprocess.run(["ffmpeg", "-v", "error", "-y", "-f", "rawvideo", "-pix_fmt", "rgb48le", "-s", f"{w}x{h}",
                    "-i", src, "-vf", f"scale=out_color_matrix=bt2020:out_range=tv:flags={sws},format=yuv420p10le",
                    "-c:v", "libx265", "-preset", "medium", "-crf", str(crf),
                    "-x265-params", f"log-level=error:colorprim=bt2020:transfer={trc}:colormatrix=bt2020nc:range=limited",
                    hevc], check=True)
    out = subprocess.run(["ffmpeg", "-v", "error", "-i", hevc, "-vf",
                          f"scale=in_color_matrix=bt2020:in_range=tv:flags={sws},format=rgb48le",
                          "-f", "rawvideo", "-"], check=True, capture_output=True).stdout
    return np.frombuffer(out, dtype="<u2").reshape(h, w, 3)


# Sources: (id in the shared data, HDR peak of its white in cd/m², transfers, distortions). Peaks follow the
# content: night lights and the sun go to 4000 cd/m², an indoor scene to 1000; HLG is capped at its 1000.
# 16-bit PNGs of photographs hardly compress (a 640x360 file is about 0.6 MiB), so the large sources get only a
# few distortions; every distortion is on both transfers at 6 scales (chelsea) and at fewer (coffee, gravel).
SMALL = ["quant10", "blur_s1.5", "noise", "bright"]
SOURCES = [
    ("coffee_8x8", 1000, ["pq", "hlg"], SMALL),
    ("hubble_17x33", 4000, ["pq"], SMALL),
    ("gravel_64x64", 600, ["pq", "hlg"], SMALL + ["x265"]),
    ("chelsea_127x255", 1000, ["pq", "hlg"], SMALL),
    ("astronaut_256x256", 1500, ["pq", "hlg"], ["quant10", "blur_s1.5", "x265"]),
    ("rocket_640x360", 4000, ["pq"], ["quant10", "x265"]),
    ("rocket_640x360", 4000, ["hlg"], ["x265"]),
]
# One 1080p pair: the seeding photo (sun behind dandelions) at 480x270, enlarged 4x by pixel repetition so that
# its 16-bit PNGs stay small (a full-detail 1080p 16-bit PNG is over 7 MiB); distortions that keep the blocks.
FULL_HD = ("seeding_1920x1080", 4000, "pq", ["quant10", "bright"], (480, 270))
NOISE_SIGMA = 262.0  # in 16-bit code values: about one 10-bit step
BRIGHTNESS = 1.1  # display light times 1.1
X265_CRF = 22
# cLLi pairs: MaxCLL on both files (the peak rule's main case), on the distorted file only (identical pixels, so
# only the peak differs), and on an HLG pair (the reference ignores cLLi unless the transfer is PQ).
CLLI = [("astronaut_256x256", "pq", ["identical", "quant10", "blur_s1.5"], "both"),
        ("astronaut_256x256", "pq", ["identical"], "distorted"),
        ("astronaut_256x256", "hlg", ["quant10"], "both")]


def distort(name, signal, nits, transfer, seed, tmp):
    _, encode, _ = TRANSFERS[transfer]
    if name == "quant10":
        return to_u16(np.rint(signal.astype(np.float64) * (1023 / 65535)) / 1023)
    if name == "blur_s1.5":
        return np.clip(np.rint(gaussian_blur(signal, 1.5)), 0, 65535).astype(np.uint16)
    if name == "noise":
        rng = np.random.default_rng(seed)
        return np.clip(np.rint(signal + rng.normal(0.0, NOISE_SIGMA, size=signal.shape)), 0, 65535).astype(np.uint16)
    if name == "bright":
        return to_u16(encode(nits * BRIGHTNESS))
    if name == "x265":
        return x265_roundtrip(signal, transfer, X265_CRF, tmp)
    raise ValueError(name)


def max_light(signal, transfer):
    """MaxCLL and MaxFALL (CTA-861.3) of a frame: the brightest sample and the mean of per-pixel max, cd/m²."""
    nits = TRANSFERS[transfer][2](signal.astype(np.float64) / 65535.0)
    per_pixel = nits.max(axis=2)
    return int(np.ceil(per_pixel.max())), int(np.ceil(per_pixel.mean()))


class Writer:
    def __init__(self, out_dir, tool, lcms2_tool=None):
        self.out_dir, self.tool, self.lcms2_tool = out_dir, tool, lcms2_tool
        self.pairs, self.lcms2_pairs, self.files = [], [], {}

    def save(self, rel, signal, transfer, clli=None):
        path = os.path.join(self.out_dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        write_png16(path, signal, TRANSFERS[transfer][0], *(clli or (None, None)))
        self.files[rel] = (9, TRANSFERS[transfer][0], 0, 1) + (clli or ("", ""))

    def score(self, ref_path, dist_path, tool=None):
        return subprocess.run([tool or self.tool, ref_path, dist_path], check=True, capture_output=True,
                              text=True).stdout.strip()

    def pair(self, ref, dist, size):
        paths = (os.path.join(self.out_dir, ref), os.path.join(self.out_dir, dist))
        score = self.score(*paths)
        self.pairs.append((ref, dist, size[0], size[1], score))
        if self.lcms2_tool:
            self.lcms2_pairs.append((ref, dist, size[0], size[1], self.score(*paths, tool=self.lcms2_tool)))
        print(f"{ref} {dist} {score}", flush=True)

    def write_csvs(self):
        for name, rows in (("scores.csv", self.pairs), ("scores_lcms2.csv", self.lcms2_pairs)):
            if not rows:
                continue
            with open(os.path.join(self.out_dir, name), "w", newline="") as f:
                w = csv.writer(f, lineterminator="\n")
                w.writerow(["reference", "distorted", "width", "height", "score"])
                w.writerows(rows)
        with open(os.path.join(self.out_dir, "colorimetry.csv"), "w", newline="") as f:
            w = csv.writer(f, lineterminator="\n")
            w.writerow(["file", "primaries", "transfer", "matrix", "full_range", "max_cll", "max_fall"])
            w.writerows((rel,) + tuple(self.files[rel]) for rel in sorted(self.files))


def make_images(writer, shared, tmp):
    jobs = [(sid, peak, tf, dists, None) for sid, peak, tfs, dists in SOURCES for tf in tfs]
    jobs.append(FULL_HD)
    for index, (sid, peak, transfer, dists, shrink) in enumerate(jobs):
        src = os.path.join(shared, "images", sid, "reference.png")
        srgb = read_rgb24(src)
        h, w, _ = srgb.shape
        if shrink:  # Lanczos down, then each pixel repeated: blocks that PNG's filters compress well
            small = read_rgb24(src, shrink)
            srgb = small.repeat(h // shrink[1], axis=0).repeat(w // shrink[0], axis=1)
        nits = hdr_from_sdr(srgb, min(peak, HLG_PEAK) if transfer == "hlg" else peak)
        signal = to_u16(TRANSFERS[transfer][1](nits))
        folder = f"{sid}-{transfer}"
        writer.save(f"{folder}/reference.png", signal, transfer)
        writer.pair(f"{folder}/reference.png", f"{folder}/reference.png", (w, h))
        distorted = {}
        for name in dists:
            distorted[name] = distort(name, signal, nits, transfer, 200 + index, tmp)
            writer.save(f"{folder}/{name}.png", distorted[name], transfer)
            writer.pair(f"{folder}/reference.png", f"{folder}/{name}.png", (w, h))
        for csid, ctf, cdists, which in CLLI:
            if (csid, ctf) != (sid, transfer):
                continue
            clli_ref = max_light(signal, transfer)
            suffix = f"clli{clli_ref[0]}"
            ref_rel = f"{folder}/reference-{suffix}.png" if which == "both" else f"{folder}/reference.png"
            if which == "both":
                writer.save(ref_rel, signal, transfer, clli_ref)
            for name in cdists:
                pixels = signal if name == "identical" else distorted[name]
                dist_rel = f"{folder}/{name}-{suffix}.png"
                writer.save(dist_rel, pixels, transfer, max_light(pixels, transfer) if name != "identical"
                            else clli_ref)
                writer.pair(ref_rel, dist_rel, (w, h))


# ---------------------------------------------------------------------------------------------------------------
# Clips: a window panning over the rocket photo's HDR version, 320x180, 10 frames at 25 fps, x265 Main10 4:2:0,
# BT.2020 non-constant-luminance, limited range, the transfer in the bitstream's VUI. The reference clip is
# lossless, the distorted one CRF 30. The HDR10 clip also carries mastering-display and content-light-level SEI.

CLIP_SOURCE, CLIP_PEAK, CLIP_SIZE, CLIP_FRAMES, CLIP_STEP = "rocket_640x360", 4000, (320, 180), 10, (16, 8)
CLIP_CRF = 30
CLIPS = {"hdr10": "pq", "hlg": "hlg"}
# P3-D65 mastering display of 1000 cd/m² (x265's units: 0.00002 for chromaticities, 0.0001 cd/m² for luminance).
MASTER_DISPLAY = "G(13250,34500)B(7500,3000)R(34000,16000)WP(15635,16450)L(10000000,1)"
# BT.2020 non-constant luminance, as the decoded frames are turned into RGB for the scores.
KR, KB = 0.2627, 0.0593


def yuv420p10_to_rgb16(y, u, v):
    """Limited-range 10-bit Y'CbCr 4:2:0 to full-range 16-bit R'G'B', BT.2020 NCL: nearest chroma sample
    (pixel (x, y) takes chroma (x div 2, y div 2)), float64 arithmetic, clamp(floor(65535 v + 0.5), 0, 65535)."""
    h, w = y.shape
    cb = u.repeat(2, axis=0).repeat(2, axis=1)[:h, :w]
    cr = v.repeat(2, axis=0).repeat(2, axis=1)[:h, :w]
    yn = (y.astype(np.float64) - 64) / 876
    cbn = (cb.astype(np.float64) - 512) / 896
    crn = (cr.astype(np.float64) - 512) / 896
    r = yn + 2 * (1 - KR) * crn
    b = yn + 2 * (1 - KB) * cbn
    g = (yn - KR * r - KB * b) / (1 - KR - KB)
    rgb = np.stack([r, g, b], axis=2)
    return np.clip(np.floor(65535 * rgb + 0.5), 0, 65535).astype(np.uint16)


def decode_yuv420p10(path, w, h):
    raw = subprocess.run(["ffmpeg", "-v", "error", "-i", path, "-f", "rawvideo", "-pix_fmt", "yuv420p10le", "-"],
                         check=True, capture_output=True).stdout
    planes = np.frombuffer(raw, dtype="<u2")
    cw, ch = (w + 1) // 2, (h + 1) // 2
    frame = w * h + 2 * cw * ch
    for n in range(len(planes) // frame):
        f = planes[n * frame:(n + 1) * frame]
        yield (f[:w * h].reshape(h, w), f[w * h:w * h + cw * ch].reshape(ch, cw),
               f[w * h + cw * ch:].reshape(ch, cw))


def make_clips(writer, shared, tmp):
    srgb = read_rgb24(os.path.join(shared, "images", CLIP_SOURCE, "reference.png"))
    w, h = CLIP_SIZE
    rows = []
    for clip, transfer in CLIPS.items():
        nits = hdr_from_sdr(srgb, min(CLIP_PEAK, HLG_PEAK) if transfer == "hlg" else CLIP_PEAK)
        signal = to_u16(TRANSFERS[transfer][1](nits))
        frames = [signal[CLIP_STEP[1] * n:CLIP_STEP[1] * n + h, CLIP_STEP[0] * n:CLIP_STEP[0] * n + w]
                  for n in range(CLIP_FRAMES)]
        src = os.path.join(tmp, "clip.rgb48")
        np.concatenate([f.astype("<u2").ravel() for f in frames]).tofile(src)
        trc = {"pq": "smpte2084", "hlg": "arib-std-b67"}[transfer]
        clli = None
        x265 = f"log-level=error:colorprim=bt2020:transfer={trc}:colormatrix=bt2020nc:range=limited"
        if transfer == "pq":
            clli = max(max_light(f, transfer) for f in frames)
            x265 += f":hdr10=1:master-display={MASTER_DISPLAY}:max-cll={clli[0]},{clli[1]}"
        sws = "accurate_rnd+full_chroma_int+full_chroma_inp+bitexact"
        common = ["-f", "rawvideo", "-pix_fmt", "rgb48le", "-s", f"{w}x{h}", "-r", "25", "-i", src,
                  "-vf", f"scale=out_color_matrix=bt2020:out_range=tv:flags={sws},format=yuv420p10le",
                  "-c:v", "libx265", "-preset", "medium", "-threads", "1",
                  "-color_primaries", "bt2020", "-color_trc", trc, "-colorspace", "bt2020nc", "-color_range", "tv"]
        paths = {}
        for role, quality in (("reference", "lossless=1"), ("distorted", f"crf={CLIP_CRF}")):
            rel = f"video/{clip}-{role}.mkv"
            paths[role] = os.path.join(writer.out_dir, rel)
            os.makedirs(os.path.dirname(paths[role]), exist_ok=True)
            subprocess.run(["ffmpeg", "-v", "error", "-y", *common, "-x265-params", f"{x265}:{quality}",
                            "-fflags", "+bitexact", paths[role]], check=True)  # no random segment UID
        decoded = {role: [yuv420p10_to_rgb16(*planes) for planes in decode_yuv420p10(path, w, h)]
                   for role, path in paths.items()}
        for n, (ref, dist) in enumerate(zip(decoded["reference"], decoded["distorted"])):
            ref_png, dist_png = os.path.join(tmp, "ref.png"), os.path.join(tmp, "dist.png")
            write_png16(ref_png, ref, TRANSFERS[transfer][0], *(clli or (None, None)))
            write_png16(dist_png, dist, TRANSFERS[transfer][0], *(clli or (None, None)))
            score = writer.score(ref_png, dist_png)
            md5 = [hashlib.md5(f.astype(">u2").tobytes()).hexdigest() for f in (ref, dist)]
            rows.append((clip, n, score, *md5))
            print(f"{clip} frame {n} {score}", flush=True)
    with open(os.path.join(writer.out_dir, "video_scores.csv"), "w", newline="") as f:
        out = csv.writer(f, lineterminator="\n")
        out.writerow(["clip", "frame", "score", "reference_rgb48be_md5", "distorted_rgb48be_md5"])
        out.writerows(rows)


# ---------------------------------------------------------------------------------------------------------------
# Transfer vectors: what the reference feeds into XYB for chosen 16-bit codes, from hdr-reference-probe (built
# beside the tool). 1024 grey codes spread over the range (0, 1, 2, ... up to 65535) and 1024 random colours per
# case; a unit test replays the conversion on them bit for bit.

VECTOR_CASES = [("pq", "pq", None, 10000.0), ("pq-clli1234.5", "pq", (1234.5, 400.0), 1234.5),
                ("hlg", "hlg", None, 1000.0)]  # name, transfer, cLLi, the intensity target that must result


def make_transfer_vectors(out_dir, probe, tmp):
    rng = np.random.default_rng(7)
    grey = np.unique(np.rint(np.linspace(0, 1, 1024) ** 2 * 65535)).astype(np.uint16)
    grey = np.concatenate([grey, np.arange(1024 - len(grey), dtype=np.uint16)])[:1024]
    codes = np.concatenate([np.repeat(grey[:, None], 3, axis=1),
                            rng.integers(0, 65536, size=(1024, 3), dtype=np.uint16)]).reshape(32, 64, 3)
    os.makedirs(os.path.join(out_dir, "transfer"), exist_ok=True)
    for name, transfer, clli, peak in VECTOR_CASES:
        png = os.path.join(tmp, "vectors.png")
        write_png16(png, codes, TRANSFERS[transfer][0], *(clli or (None, None)))
        lines = subprocess.run([probe, png], check=True, capture_output=True, text=True).stdout.splitlines()
        if float(lines[0].split()[3]) != peak:
            sys.exit(f"{name}: the reference's intensity target is {lines[0].split()[3]}, expected {peak}")
        with open(os.path.join(out_dir, "transfer", f"{name}.csv"), "w", newline="") as f:
            out = csv.writer(f, lineterminator="\n")
            out.writerow(["r16", "g16", "b16", "lin_r", "lin_g", "lin_b"])
            for line in lines[2:]:
                x, y, _, _, _, lr, lg, lb = line.split(",")
                out.writerow([*codes[int(y), int(x)].tolist(), lr, lg, lb])


def main():
    if len(sys.argv) not in (2, 3) or not os.environ.get("SSIMULACRA2") or not os.environ.get("PROBE"):
        sys.exit(__doc__)
    shared = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    out_dir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(here, "..", "tests", "data", "hdr")
    writer = Writer(out_dir, os.environ["SSIMULACRA2"], os.environ.get("SSIMULACRA2_LCMS2"))
    with tempfile.TemporaryDirectory() as tmp:
        make_images(writer, shared, tmp)
        make_clips(writer, shared, tmp)
        make_transfer_vectors(out_dir, os.environ["PROBE"], tmp)
    writer.write_csvs()


if __name__ == "__main__":
    main()
