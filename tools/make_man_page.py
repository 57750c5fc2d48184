#!/usr/bin/env python3
"""The ssim2(1) man page, made by help2man from `ssim2 --help`.

    make_man_page.py [--check] SSIM2 VERSION PAGE

Writes PAGE (tools/ssim2.1, checked in) from the built tool's --help and
tools/ssim2.h2m (the sections --help has no room for), or with --check
compares and exits 1 when PAGE is stale. The page's date is the month it
last changed: a page whose text is current keeps its date, so that the check
does not fail with the calendar. Refresh the page with
`ninja -C <build> man-page` (a GStreamer build: the help lists GStreamer's
option groups).
"""
import argparse
import datetime
import difflib
import os
import re
import shutil
import subprocess
import sys

NAME = "SSIMULACRA 2.1 image and video quality scores"
INCLUDE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "ssim2.h2m")
# help2man's title line: .TH SSIM2 "1" "<Month Year>" "ssim2 <version>" "User Commands"
TITLE_DATE = re.compile(r'^(\.TH \S+ "1" )"([^"]*)"', re.M)


def generate(ssim2, version):
    help2man = shutil.which("help2man")
    if help2man is None:
        sys.exit("make_man_page: help2man not found: apt-get install help2man "
                 "(scripts/install-deps.sh)")
    # The help text is UTF-8 (GLib's "[OPTION…]") whatever the locale: help2man
    # reads it as such only in a UTF-8 locale.
    p = subprocess.run([help2man, "--locale=C.UTF-8", "--no-info", "--no-discard-stderr",
                        "--version-string=" + version, "--name=" + NAME, "--include=" + INCLUDE,
                        ssim2], capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit(f"make_man_page: help2man {ssim2} exited {p.returncode}:\n{p.stderr}")
    return p.stdout


def with_date(page, date):
    return TITLE_DATE.sub(lambda m: f'{m.group(1)}"{date}"', page, count=1)


def date_of(page):
    m = TITLE_DATE.search(page)
    return m.group(2) if m else None


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when PAGE is stale")
    parser.add_argument("ssim2")
    parser.add_argument("version")
    parser.add_argument("page")
    args = parser.parse_args()

    new = generate(args.ssim2, args.version)
    old = open(args.page, encoding="utf-8").read() if os.path.exists(args.page) else ""
    old_date = date_of(old)
    if old_date is not None and with_date(new, old_date) == old:
        print(f"{args.page} is current")
        return 0
    if args.check:
        diff = difflib.unified_diff(old.splitlines(True), with_date(new, old_date or "").splitlines(True),
                                    args.page + " (checked in)", "from ssim2 --help")
        sys.stdout.writelines(diff)
        print(f"\n{args.page} is stale: the tool's --help changed. Refresh it with "
              f"`ninja -C <build> man-page` and commit it.", file=sys.stderr)
        return 1
    today = datetime.date.today().strftime("%B %Y")
    with open(args.page, "w", encoding="utf-8") as f:
        f.write(with_date(new, today))
    print(f"{args.page} written")
    return 0


if __name__ == "__main__":
    sys.exit(main())
