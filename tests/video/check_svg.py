#!/usr/bin/env python3
"""Writes a sample plot with test_video_report --svg and checks that it is
well-formed SVG with one polyline vertex and one dot per frame (dots only up
to 1000 frames), mean/p5 lines and the worst frames labelled.

Usage: check_svg.py TEST_VIDEO_REPORT_EXE N_FRAMES"""
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

NS = "{http://www.w3.org/2000/svg}"


def main():
    exe, n = sys.argv[1], int(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "plot.svg")
        subprocess.run([exe, "--svg", path, str(n)], check=True)
        root = ET.parse(path).getroot()  # raises on malformed XML
    assert root.tag == NS + "svg", root.tag
    line = [e for e in root.iter(NS + "polyline") if e.get("id") == "scores"]
    assert len(line) == 1
    assert len(line[0].get("points").split()) == n, "one vertex per frame"
    dots = [e for e in root.iter(NS + "circle") if e.get("class") == "point"]
    assert len(dots) == (n if n <= 1000 else 0), len(dots)
    ids = {e.get("id") for e in root.iter()}
    assert {"mean", "p5", "mean-label", "p5-label", "x-label", "y-label"} <= ids, ids
    labels = [e for e in root.iter(NS + "text") if e.get("class") == "worst-label"]
    assert len(labels) == min(min(max(3, (n + 99) // 100), 10), n), len(labels)
    assert all(e.text.startswith("#" + e.get("data-frame") + " ") for e in labels)
    print(f"plot of {n} frames: well-formed, {n} vertices, {len(labels)} worst frames labelled")
    return 0


if __name__ == "__main__":
    sys.exit(main())
