#!/usr/bin/env bash
# Per-kernel time of the CUDA engine, from Nsight Compute, on a GPU machine
# against a build made elsewhere:
#
#   bash scripts/device-kernel-profile.sh BUILD [WxH]
#
# Profiles `ssim2-bench --profile-passes` (two pair passes, SetReference, two
# passes against the cached reference; device-resident 8-bit RGB) with the
# clocks left alone, and prints one table: for the second pair pass, the
# reference pass and the second cached pass, each kernel's duration (us),
# and for the pair pass what the kernel achieves against the GPU's peaks
# (SM and DRAM throughput, achieved occupancy). Raw CSV in $OUT (or
# /tmp/kernel-profile).
set -euo pipefail
BUILD=${1:?usage: $0 BUILD [WxH]}
SIZE=${2:-1920x1080}
LOG=${OUT:-/tmp}/kernel-profile
mkdir -p "$LOG"
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
METRICS=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active,launch__grid_size,launch__block_size,launch__registers_per_thread
"$NCU" --clock-control none --csv --page raw --metrics "$METRICS" \
  "$BUILD/tools/ssim2-bench" --profile-passes --sizes "$SIZE" >"$LOG/ncu.csv" 2>"$LOG/ncu.err" ||
  { tail -n 20 "$LOG/ncu.err" "$LOG/ncu.csv"; exit 1; }
python3 - "$LOG/ncu.csv" "$SIZE" <<'EOF'
import csv, re, sys
rows = [l for l in open(sys.argv[1]) if l.startswith('"')]
table = list(csv.DictReader(rows))
# Skip the units row.
kernels = [r for r in table if r.get("ID", "").isdigit()]
def name(r):
    m = re.search(r"(\w+Kernel)", r["Kernel Name"])
    return m.group(1) if m else r["Kernel Name"]
def num(v):  # ncu prints thousands separators
    return float(v.replace(",", ""))
# Passes end with ReduceKernel, except the reference pass (SetReference).
passes, cur = [], []
for r in kernels:
    cur.append(r)
    if name(r) == "ReduceKernel":
        passes.append(cur); cur = []
    elif len(passes) == 2 and name(r) == "VBlurKernel":
        passes.append(cur); cur = []
if len(passes) < 5:
    sys.exit("expected 5 passes, found %d (kernels: %d)" % (len(passes), len(kernels)))
full, ref, cached = passes[1], passes[2], passes[4]
def us(r): return num(r["gpu__time_duration.sum"]) / 1000.0
def labels(p):
    out, scale = [], 0
    for r in p:
        n = name(r)
        if n == "PrepareKernel":
            out.append(("prepare, scale %d" % scale, r)); scale += 1
        else:
            out.append(({"HBlurKernel": "horizontal blur", "VBlurKernel": "vertical blur + maps",
                         "ReduceKernel": "reduction"}.get(n, n), r))
    return out
ref_by = dict(labels(ref)); cached_by = dict(labels(cached))
print("Per-kernel time at %s (ncu --clock-control none; us; SM / DRAM: %% of peak; occupancy: achieved warps %% of the SM's)" % sys.argv[2])
print()
print("| kernel | pair pass | reference pass | cached pass | SM % | DRAM % | occupancy % | grid x block | registers |")
print("|---|---|---|---|---|---|---|---|---|")
tot = [0.0, 0.0, 0.0]
for label, r in labels(full):
    rr = ref_by.get(label); cr = cached_by.get(label)
    a = us(r); b = us(rr) if rr else 0.0; c = us(cr) if cr else 0.0
    tot[0] += a; tot[1] += b; tot[2] += c
    print("| %s | %.1f | %s | %s | %.0f | %.0f | %.0f | %s x %s | %s |" % (
        label, a, "%.1f" % b if rr else "-", "%.1f" % c if cr else "-",
        num(r["sm__throughput.avg.pct_of_peak_sustained_elapsed"]),
        num(r["dram__throughput.avg.pct_of_peak_sustained_elapsed"]),
        num(r["sm__warps_active.avg.pct_of_peak_sustained_active"]),
        r["launch__grid_size"], r["launch__block_size"], r["launch__registers_per_thread"]))
print("| **sum** | **%.1f** | **%.1f** | **%.1f** | | | | | |" % tuple(tot))
EOF
