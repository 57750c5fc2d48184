#!/usr/bin/env python3
"""The installed tree, as an application developer uses it.

Installs this build into a temporary DESTDIR (meson install --no-rebuild) and
checks there: the headers, libssim2's SONAME and exported symbols, a C++
consumer built with `pkg-config --cflags --libs ssim2` alone (its scores
against scores.csv, its errors against the same source built in-tree), the
same with `pkg-config --static` and the DESTDIR as sysroot (every path it
gives moved into the sysroot, no archive named by its path), and
that gst-inspect-1.0 finds ssim2compare in the installed plugin directory with
a fresh registry. Exits 1 with the first failure.
"""
import argparse
import csv
import os
import re
import shlex
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from ssim2_test import finish, require, run, run_ok  # noqa: E402

# Pairs the consumer scores against one reference (SetReference, then each
# distorted image); the scores come from scores.csv.
REFERENCE = "images/astronaut_256x256/reference.png"
DISTORTED = ["images/astronaut_256x256/jpeg_q60.png", "images/astronaut_256x256/jpeg_q90.png",
             "images/astronaut_256x256/webp_q50.png"]
# A distorted image of another size: the library's size check must answer.
OTHER_SIZE = "images/gravel_64x64/jpeg_q60.png"
SCORE_TOLERANCE = 1e-6  # as tests/core/test_parity.cpp


def reference_scores(testdata):
    with open(os.path.join(testdata, "scores.csv"), newline="") as f:
        return {(row["reference"], row["distorted"]): float(row["score"])
                for row in csv.DictReader(f)}


PUBLIC_HEADERS = ["alignment.h", "devices.h", "score_log.h", "ssim2.h", "stats.h"]
INTERNAL_NAMES = re.compile(
    r"^((vtable|typeinfo|typeinfo name) for )?ssim2::(ScorerBackend\b|"
    r"(Validate(Image|Pair|Size|MinimumSize)|Json(Escape|String)|CsvField|ToValidUtf8|"
    r"Format(Fixed|Shortest|Score))"
    r"(\[abi:\w+\])?\()")
# Private members of the public classes, which no user can call.
PRIVATE_MEMBERS = re.compile(
    r"^ssim2::(Scorer::(Scorer|CheckAgainstReference)|ScoreLog::(ScoreLog|Put|Flush|Fail)|"
    r"FrameAligner::FrameAligner|FrameSignatureMaker::FrameSignatureMaker)\(")


def check_library(libdir, soname):
    lib = os.path.join(libdir, "libssim2.so")
    require(os.path.islink(lib), f"{lib}: missing (the development symlink)")
    require(os.path.realpath(os.path.join(libdir, soname)) == os.path.realpath(lib),
            f"{soname} and libssim2.so name different files")
    dynamic = run_ok(["readelf", "-d", lib])
    require(f"Library soname: [{soname}]" in dynamic, f"{lib}: SONAME is not {soname}:\n{dynamic}")

    # Only the public C++ API (namespace ssim2, not its internal namespaces:
    # the CUDA engine is reached through Scorer), versioned; the statically
    # linked CUDA runtime stays local.
    symbols = run_ok(["nm", "-D", "--defined-only", "-C", lib]).splitlines()
    names = [line.split(" ", 2)[2] for line in symbols if line.count(" ") >= 2]
    public = re.compile(r"^((vtable|typeinfo|typeinfo name) for )?ssim2::")
    internal = re.compile(
        r"^((vtable|typeinfo|typeinfo name) for )?ssim2::(cpu|cuda|replay|yuv|arith)::")
    leaked = [n for n in names
              if not n.startswith("SSIM2_") and (not public.match(n) or internal.match(n))]
    require(not leaked, f"{lib} exports non-public symbols: {leaked[:10]}")
    # What the library calls itself and a user does not: the backends'
    # interface, the input checks, the text helpers of the writers.
    unused = [n for n in names if INTERNAL_NAMES.match(n)]
    require(not unused, f"{lib} exports internal helpers: {unused[:10]}")
    private = [n for n in names if PRIVATE_MEMBERS.match(n)]
    require(not private, f"{lib} exports private members: {private[:10]}")
    # A public class's private state (its Impl, as FrameAligner's) stays in the library.
    impl = [n for n in names if "::Impl::" in n or "::Impl()" in n]
    require(not impl, f"{lib} exports members of a private Impl: {impl[:5]}")
    require(any(n.startswith("ssim2::Scorer::Create(") for n in names),
            f"{lib} does not export ssim2::Scorer::Create")
    require(all(n.endswith("@@SSIM2_0") or n.startswith("SSIM2_") for n in names),
            f"{lib}: symbols without the version node SSIM2_0")


def check_static_flags(flags, destdir):
    """`pkg-config --static` with the DESTDIR as sysroot: every path it gives
    must have moved into the sysroot (-L, -I); a file named by its absolute
    path (an archive such as libcudart_static.a) would not move. Directories
    the sysroot lacks (the CUDA toolkit's) are linked to this machine's, as a
    sysroot for cross-building would hold them."""
    for flag in flags:
        require(flag.startswith("-"),
                f"pkg-config --static ssim2 names a file, which a sysroot cannot move "
                f"(want -L<dir> -l<name>): {flag}")
        if flag.startswith(("-L", "-I")):
            path = flag[2:]
            require(path.startswith(destdir + "/"),
                    f"pkg-config --static ssim2: {flag} is not inside the sysroot {destdir}")
            if not os.path.exists(path):
                os.makedirs(os.path.dirname(path), exist_ok=True)
                os.symlink(path[len(destdir):], path)


def build_consumer(args, destdir, libdir, workdir, static=False):
    pkgconfig_dir = os.path.join(libdir, "pkgconfig")
    require(os.path.isfile(os.path.join(pkgconfig_dir, "ssim2.pc")), f"{pkgconfig_dir}/ssim2.pc missing")
    env = dict(os.environ)
    # Only the installed ssim2.pc, relocated into the DESTDIR.
    env["PKG_CONFIG_LIBDIR"] = pkgconfig_dir
    env.pop("PKG_CONFIG_PATH", None)
    env["PKG_CONFIG_SYSROOT_DIR"] = destdir
    static_flag = ["--static"] if static else []
    ssim2_flags = shlex.split(run_ok([args.pkg_config, *static_flag, "--cflags", "--libs", "ssim2"],
                                     env=env))
    require(any(f.startswith("-I" + destdir) for f in ssim2_flags),
            f"pkg-config ssim2 gives no include path inside the DESTDIR: {ssim2_flags}")
    if static:
        check_static_flags(ssim2_flags, destdir)
    png_flags = shlex.split(run_ok([args.pkg_config, "--cflags", "--libs", "libpng"]))
    exe = os.path.join(workdir, "score_png-static" if static else "score_png")
    run_ok(args.cxx + ["-std=c++17", args.example, "-o", exe] + ssim2_flags + png_flags)
    return exe


def check_consumer(exe, in_tree, libdir, testdata):
    env = dict(os.environ, LD_LIBRARY_PATH=libdir)
    ldd = run_ok(["ldd", exe], env=env)
    require(re.search(r"libssim2\.so\.\S+ => " + re.escape(libdir), ldd),
            f"the consumer does not load libssim2 from the DESTDIR:\n{ldd}")

    paths = [os.path.join(testdata, p) for p in [REFERENCE] + DISTORTED]
    got = run_ok([exe] + paths, env=env).split()
    expected = reference_scores(testdata)
    require(len(got) == len(DISTORTED), f"{len(got)} scores for {len(DISTORTED)} images: {got}")
    for dist, score in zip(DISTORTED, got):
        want = expected[(REFERENCE, dist)]
        require(abs(float(score) - want) <= SCORE_TOLERANCE,
                f"{dist}: installed library scores {score}, scores.csv says {want:.8f}")
    in_tree_got = run_ok([in_tree] + paths).split()
    require(got == in_tree_got, f"installed {got} != in-tree {in_tree_got}")

    bad = [os.path.join(testdata, REFERENCE), os.path.join(testdata, OTHER_SIZE)]
    installed_rc, _, installed_err = run([exe] + bad, env=env)
    in_tree_rc, _, in_tree_err = run([in_tree] + bad)
    require(installed_rc == 1 and "size mismatch" in installed_err,
            f"sizes 256x256 and 64x64: want exit 1 with a size mismatch, got "
            f"{installed_rc}: {installed_err!r}")
    require((installed_rc, installed_err) == (in_tree_rc, in_tree_err),
            f"installed error {installed_err!r} != in-tree error {in_tree_err!r}")
    return got


def check_meta_header(args, destdir, libdir, workdir):
    """gstreamer-ssim2-1.0.pc leads a C compiler to the installed meta header."""
    env = dict(os.environ, PKG_CONFIG_PATH=os.path.join(libdir, "pkgconfig"),
               PKG_CONFIG_SYSROOT_DIR=destdir)
    # The sysroot moves GStreamer's own include paths too: keep only those
    # that exist in the DESTDIR, and take GStreamer's from the system.
    cflags = [f for f in shlex.split(run_ok([args.pkg_config, "--cflags-only-I",
                                             "gstreamer-ssim2-1.0"], env=env))
              if f.startswith("-I" + destdir) and os.path.isdir(f[2:])]
    require(cflags, "pkg-config gstreamer-ssim2-1.0 gives no include path inside the DESTDIR")
    cflags += shlex.split(run_ok([args.pkg_config, "--cflags", "gstreamer-1.0"]))
    source = os.path.join(workdir, "meta.c")
    with open(source, "w") as f:
        f.write("#include <gst/ssim2/gstssim2meta.h>\n"
                "double score (GstBuffer * b) { GstSsim2Meta *m = gst_buffer_get_ssim2_meta (b);"
                " return m ? m->score : 0.0; }\n")
    run_ok(args.cc + ["-fsyntax-only", source] + cflags)


def check_plugin(args, destdir, libdir, soname, workdir):
    plugin_dir = destdir + os.path.join(args.prefix, args.plugin_dir)
    plugin = os.path.join(plugin_dir, "libgstssim2.so")
    require(os.path.isfile(plugin), f"{plugin}: missing")
    tool = destdir + os.path.join(args.prefix, "bin", "ssim2")
    for binary in (plugin, tool):
        needed = run_ok(["readelf", "-d", binary])
        require(f"Shared library: [{soname}]" in needed, f"{binary} does not link {soname}")

    empty = os.path.join(workdir, "no-system-plugins")
    os.makedirs(empty, exist_ok=True)
    env = dict(os.environ,
               GST_REGISTRY_1_0=os.path.join(workdir, "registry.bin"),
               GST_PLUGIN_SYSTEM_PATH_1_0=empty,
               GST_PLUGIN_PATH_1_0=plugin_dir,
               LD_LIBRARY_PATH=libdir)
    env.pop("GST_PLUGIN_PATH", None)
    out = run_ok([args.gst_inspect, "ssim2compare"], env=env)
    require(re.search(r"Filename\s+" + re.escape(plugin), out),
            f"gst-inspect-1.0 ssim2compare does not name {plugin}:\n{out[:2000]}")
    require("Long-name" in out and "SSIMULACRA" in out, "gst-inspect-1.0 shows no element details")


def main():
    parser = argparse.ArgumentParser()
    for opt in ("meson", "build-root", "prefix", "libdir", "includedir", "soname", "pkg-config",
                "example", "in-tree-example", "testdata", "plugin-dir", "gst-inspect"):
        parser.add_argument("--" + opt)
    parser.add_argument("--cxx", action="append", required=True)
    parser.add_argument("--cc", action="append", required=True)
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="ssim2-install-") as workdir:
        destdir = os.path.join(workdir, "destdir")
        run_ok([args.meson, "install", "-C", args.build_root, "--no-rebuild", "--quiet",
                "--destdir", destdir])
        libdir = destdir + os.path.join(args.prefix, args.libdir)
        includedir = destdir + os.path.join(args.prefix, args.includedir)
        # The public API and nothing else (the CUDA engine's header is internal).
        headers = sorted(os.listdir(os.path.join(includedir, "ssim2")))
        require(headers == PUBLIC_HEADERS,
                f"{includedir}/ssim2 holds {headers}, not the public headers {PUBLIC_HEADERS}")
        check_library(libdir, args.soname)
        exe = build_consumer(args, destdir, libdir, workdir)
        scores = check_consumer(exe, args.in_tree_example, libdir, args.testdata)
        print(f"install: consumer built with pkg-config scores {' '.join(scores)} (as scores.csv)")
        exe = build_consumer(args, destdir, libdir, workdir, static=True)
        scores = check_consumer(exe, args.in_tree_example, libdir, args.testdata)
        print(f"install: consumer built with pkg-config --static scores {' '.join(scores)}")
        if args.gst_inspect:
            check_meta_header(args, destdir, libdir, workdir)
            check_plugin(args, destdir, libdir, args.soname, workdir)
            print("install: gst-inspect-1.0 finds ssim2compare in the installed plugin directory")


if __name__ == "__main__":
    sys.exit(finish(main, "install: all checks passed"))
