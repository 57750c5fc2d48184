#!/usr/bin/env python3
"""End-to-end tests of `ssim2 --pairs` (docs/BATCH.md).

Usage: test_pairs_cli.py SSIM2_EXE TESTDATA_DIR

Checks that every row equals what the single-pair command prints for the same
files (scores and error lines), that failing lines become error rows without
stopping the batch, standard input and relative paths, CSV/JSON outputs, that
--shard I/N partitions the list, --decode-only, and the fatal errors.
"""
import csv
import io
import json
import os
import pty
import resource
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
from ssim2_test import check, finish, run_tool, stop_with  # noqa: E402


def rows_of(text):
    return list(csv.DictReader(io.StringIO(text)))


def single(exe, ref, dist, cwd):
    """What the single-pair command says: (score line or None, stderr line)."""
    rc, out, err = run_tool(exe, ref, dist, cwd=cwd)
    return (out.strip() if rc == 0 else None), err.strip()


def test_rows_equal_single_pair(exe, data, tmp):
    # The list is read from another folder: its relative paths resolve
    # against the list's folder, not the current one.
    rc, out, err = run_tool(exe, "--pairs", os.path.join(data, "scores.csv"), cwd=tmp)
    check(rc == 0, f"scores.csv: exit {rc}, stderr {err!r}")
    rows = rows_of(out)
    with open(os.path.join(data, "scores.csv"), newline="") as f:
        expected = list(csv.DictReader(f))
    check(len(rows) == len(expected) >= 60, f"scores.csv: {len(rows)} rows, {len(expected)} pairs")
    for i, (row, exp) in enumerate(zip(rows, expected)):
        what = f"scores.csv row {i}"
        check(row["line"] == str(i + 2), f"{what}: line {row['line']}")
        check(row["reference"] == exp["reference"] and row["distorted"] == exp["distorted"],
              f"{what}: names {row['reference']} {row['distorted']}")
        check(row["status"] == "ok" and row["error"] == "", f"{what}: status {row['status']}")
        check((row["width"], row["height"]) == (exp["width"], exp["height"]), f"{what}: size")
        score, _ = single(exe, exp["reference"], exp["distorted"], data)
        # The single-pair command's agreement with scores.csv is test_cli.py's
        # job; here the row must equal that command's line.
        check(score is not None and row["score"] == score,
              f"{what}: pairs {row['score']}, single {score}")
    check(err.startswith(f"ssim2: {len(expected)} pairs in ") and
          err.rstrip().endswith(f"{len(expected)} scored, 0 failed"), f"summary line {err!r}")


def test_bad_lines(exe, data, tmp):
    corrupt = os.path.join(tmp, "corrupt.png")
    with open(os.path.join(data, "images/gravel_64x64/reference.png"), "rb") as f:
        good = f.read()
    with open(corrupt, "wb") as f:
        f.write(good[: len(good) // 2])
    d = lambda name: os.path.join(data, name)
    lines = [
        (d("images/coffee_8x8/reference.png"), d("images/coffee_8x8/noise_s5.png")),
        (d("images/coffee_8x8/reference.png"), d("images/coffee_8x8/missing.png")),
        (d("images/coffee_8x8/reference.png"), d("images/gravel_64x64/reference.png")),
        (corrupt, corrupt),
        (d("invalid/coffee_7x7.png"), d("invalid/coffee_7x7.png")),
        (d("images/coffee_8x8/reference.png"), d("README.md")),
        (d("images/gravel_64x64/reference.png"), d("images/gravel_64x64/blur_s1.5.png")),
    ]
    listfile = os.path.join(tmp, "bad.csv")
    with open(listfile, "w") as f:
        f.write("# bad lines among good ones\n")
        f.writelines(f"{a},{b}\n" for a, b in lines)
        f.write("just-one-field.png\n")
    rc, out, err = run_tool(exe, "--pairs", listfile, cwd=tmp)
    rows = rows_of(out)
    check(rc == 1, f"bad lines: exit {rc}, expected 1")
    check(len(rows) == len(lines) + 1, f"bad lines: {len(rows)} rows, expected {len(lines) + 1}")
    err_lines = err.splitlines()
    n_failed = 0
    for i, row in enumerate(rows[: len(lines)]):
        ref, dist = lines[i]
        score, message = single(exe, ref, dist, tmp)
        what = f"bad lines row {i} ({row['reference']}, {row['distorted']})"
        check(row["line"] == str(i + 2), f"{what}: line {row['line']}")
        if score is not None:
            check(row["status"] == "ok" and row["score"] == score, f"{what}: {row} vs {score}")
        else:
            n_failed += 1
            check(row["status"] == "error" and row["score"] == "", f"{what}: {row}")
            check(row["error"] == message, f"{what}: error {row['error']!r}, single {message!r}")
            check(f"ssim2: {listfile}:{i + 2}: {message}" in err_lines,
                  f"{what}: no stderr line for it in {err!r}")
    check(n_failed == 5, f"bad lines: {n_failed} failures, expected 5")
    last = rows[-1] if rows else {}
    check(last.get("status") == "error" and "REFERENCE,DISTORTED" in last.get("error", ""),
          f"malformed line row {last}")
    check(err_lines and err_lines[-1].endswith("2 scored, 6 failed"), f"summary {err!r}")


def test_stdin_json_and_files(exe, data, tmp):
    text = ("reference,distorted\n"
            "images/coffee_8x8/reference.png,images/coffee_8x8/jpeg_q10.png\n"
            "images/coffee_8x8/reference.png,images/coffee_8x8/nope.png\n"
            "\"images/hubble_17x33/reference.png\" , images/hubble_17x33/identical.png\r\n")
    # Standard input: relative to the current folder.
    rc, out, err = run_tool(exe, "--pairs", "-", "--json", "-q", cwd=data, stdin=text)
    check(rc == 1, f"stdin: exit {rc}")
    check(len(err.splitlines()) == 1 and err.startswith(
        "ssim2: stdin:3: Could not load distorted image: images/coffee_8x8/nope.png ("),
          f"stdin: stderr {err!r}")
    try:
        doc = json.loads(out)
    except ValueError as e:
        check(False, f"stdin: JSON does not parse: {e}: {out!r}")
        return
    pairs = doc.get("pairs", [])
    check([p["line"] for p in pairs] == [2, 3, 4], f"stdin: lines {pairs}")
    check(doc.get("summary") == {"pairs": 3, "scored": 2, "decoded": 0, "failed": 1},
          f"stdin: summary {doc.get('summary')}")
    s0, _ = single(exe, "images/coffee_8x8/reference.png", "images/coffee_8x8/jpeg_q10.png", data)
    check(pairs and f"{pairs[0]['score']:.8f}" == s0, f"stdin: score {pairs[:1]} vs {s0}")
    check(len(pairs) == 3 and pairs[1]["score"] is None and pairs[1]["status"] == "error",
          f"stdin: error row {pairs[1:2]}")
    check(len(pairs) == 3 and pairs[2]["score"] == 100.0, f"stdin: identical {pairs[2:]}")
    # The JSON number is written with the score line's 8 decimals.
    check('"score": 100.00000000' in out, "stdin: JSON score not written with 8 decimals")

    # --csv FILE and --json=FILE together; nothing on stdout then.
    csv_path = os.path.join(tmp, "rows.csv")
    json_path = os.path.join(tmp, "rows.json")
    rc, out, err = run_tool(exe, "--pairs", "-", "--csv", csv_path, f"--json={json_path}", cwd=data,
                            stdin=text)
    check(rc == 1 and out == "", f"files: exit {rc}, stdout {out!r}")
    with open(csv_path, newline="") as f:
        rows = list(csv.DictReader(f))
    with open(json_path) as f:
        doc2 = json.load(f)
    check([r["score"] for r in rows] == [s0, "", "100.00000000"], f"files: csv {rows}")
    check(doc2 == doc, "files: --json=FILE differs from --json on stdout")
    # A bare --json takes the word after it as its file when --pairs leaves no other.
    rc, out, err = run_tool(exe, "--pairs", "-", "--json", json_path + "2", "-q", cwd=data, stdin=text)
    check(rc == 1 and out == "", f"--json FILE: exit {rc}, stdout {out!r}")
    with open(json_path + "2") as f:
        check(json.load(f) == doc, "--json FILE differs from --json on stdout")


def test_shards(exe, data, tmp):
    listfile = os.path.join(data, "scores.csv")
    rc, out, _ = run_tool(exe, "--pairs", listfile, "--decode-only", "-q")
    full = rows_of(out)
    check(rc == 0 and len(full) >= 60, f"decode-only: exit {rc}, {len(full)} rows")
    check(all(r["status"] == "decoded" and r["score"] == "" and r["width"] for r in full),
          "decode-only: rows must be 'decoded' with a size and no score")
    for n in (1, 3, 7, len(full), len(full) + 5):
        seen = []
        for i in range(n):
            rc, out, err = run_tool(exe, "--pairs", listfile, "--decode-only", "-q",
                                    "--shard", f"{i}/{n}")
            check(rc == 0, f"shard {i}/{n}: exit {rc} {err!r}")
            part = rows_of(out)
            check(part == full[i::n], f"shard {i}/{n}: not entries k with k mod {n} = {i}")
            seen += [r["line"] for r in part]
        check(sorted(seen, key=int) == [r["line"] for r in full],
              f"shards of {n}: lines not each in exactly one shard")


def test_odd_names(exe, data, tmp):
    """Names with commas, quotes and spaces survive the list and both outputs."""
    import shutil
    src = os.path.join(data, "images/coffee_8x8")
    names = ['ref, "one".png', " dist two.png"]
    shutil.copy(os.path.join(src, "reference.png"), os.path.join(tmp, names[0]))
    shutil.copy(os.path.join(src, "jpeg_q30.png"), os.path.join(tmp, names[1]))
    quoted = ",".join('"' + n.replace('"', '""') + '"' for n in names)
    with open(os.path.join(tmp, "odd.csv"), "w") as f:
        f.write(quoted + "\n")
    score, _ = single(exe, os.path.join(tmp, names[0]), os.path.join(tmp, names[1]), tmp)
    json_path = os.path.join(tmp, "odd.json")
    rc, out, err = run_tool(exe, "--pairs", "odd.csv", f"--json={json_path}", "--csv", "-", cwd=tmp)
    rows = rows_of(out) if rc == 0 else []
    check(rc == 0 and len(rows) == 1, f"odd names: exit {rc}, {err!r}")
    if rows:
        check([rows[0]["reference"], rows[0]["distorted"]] == names, f"odd names: csv {rows[0]}")
        check(rows[0]["score"] == score, f"odd names: score {rows[0]['score']} vs {score}")
    with open(json_path) as f:
        pair = json.load(f)["pairs"][0]
    check([pair["reference"], pair["distorted"]] == names, f"odd names: json {pair}")


def read_pty(fd):
    data = b""
    while True:
        try:
            chunk = os.read(fd, 4096)
        except OSError:  # EIO once the child has closed its side
            break
        if not chunk:
            break
        data += chunk
    return data


def test_progress(exe, data, tmp):
    """A progress line on a terminal only, none with --quiet or into a pipe."""
    listfile = os.path.join(data, "scores.csv")
    for quiet in (False, True):
        master, slave = pty.openpty()
        p = subprocess.Popen([exe, "--pairs", listfile, "--decode-only"] + (["-q"] if quiet else []),
                             stdout=subprocess.DEVNULL, stderr=slave)
        os.close(slave)
        err = read_pty(master)
        os.close(master)
        p.wait(timeout=120)
        shown = b"\r\x1b[Kssim2: " in err and b" pairs, 0 failed, " in err
        check(shown != quiet, f"progress on a terminal (quiet={quiet}): {err[-200:]!r}")
    rc, _, err = run_tool(exe, "--pairs", listfile, "--decode-only")
    check(rc == 0 and "\r" not in err, f"progress written into a pipe: {err!r}")


def test_fatal_errors(exe, data, tmp):
    listfile = os.path.join(data, "scores.csv")
    cases = [
        (["--pairs", listfile, "--shard", "3/3"], "ssim2: --shard: index 3"),
        (["--pairs", listfile, "--shard", "1-3"], "ssim2: --shard: expected I/N"),
        (["--pairs", os.path.join(tmp, "no-such-list.csv")], "ssim2: cannot open pairs list"),
        (["--pairs", listfile, "a.png"], "ssim2: --pairs takes the pairs from its list"),
        (["--pairs", listfile, "--device", "all", "--backend", "cpu"],
         "ssim2: --device all needs the CUDA backend"),
        (["--pairs", listfile, "--csv", os.path.join(tmp, "no/dir/out.csv")], "ssim2: cannot write"),
        (["--pairs", listfile, "--json", "--csv", "-"], "ssim2: --json and --csv - would both"),
        (["--shard", "0/2", "a.png", "b.png"], "ssim2: --device all, --shard, --jobs and --decode-only work with --pairs only"),
        (["--device", "all", "a.png", "b.png"], "ssim2: --device all, --shard"),
        # An unset task variable must not mean "no shard" (every task would
        # score the whole list).
        (["--pairs", listfile, "--shard", ""], "ssim2: --shard: expected I/N"),
        (["--pairs", listfile, "--shard="], "ssim2: --shard: expected I/N"),
        (["--pairs", listfile, "--every", "2"], "ssim2: --alignment, --offset, --every, --frames"),
        (["--pairs", listfile, "--scale"], "ssim2: --alignment, --offset, --every, --frames"),
    ]
    for args, start in cases:
        rc, out, err = run_tool(exe, *args)
        what = "ssim2 " + " ".join(args)
        check(rc == 1, f"{what}: exit {rc}")
        check(out == "", f"{what}: stdout {out!r}")
        check(len(err.splitlines()) == 1 and err.startswith(start), f"{what}: stderr {err!r}")


def pair_list(tmp, data, name, lines):
    """A list file in `tmp` of (reference, distorted) lines, each "good" is
    the 8x8 reference against its identical copy."""
    ref = os.path.join(data, "images/coffee_8x8/reference.png")
    good = (ref, os.path.join(data, "images/coffee_8x8/identical.png"))
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        for line in lines:
            f.write(",".join(good if line == "good" else (ref, line)) + "\n")
    return path


def test_blocked_path(exe, data, tmp):
    """Issue 23 item 4: a distorted file that blocks (a FIFO with no writer)
    becomes an error row after the watchdog's limit, the pairs after it are
    scored, and the tool ends although its reader is still blocked."""
    fifo = os.path.join(tmp, "blocked.png")
    os.mkfifo(fifo)
    listfile = pair_list(tmp, data, "blocked.csv", ["good", fifo, "good"])
    json_path = os.path.join(tmp, "blocked.json")
    rc, out, err = run_tool(exe, "--pairs", listfile, "--jobs", "1", "-q", "--csv", "-",
                            f"--json={json_path}", timeout=120,
                            env=dict(os.environ, SSIM2_WATCHDOG_SECONDS="2"))
    rows = rows_of(out)
    check(rc == 1, f"blocked path: exit {rc}")
    check([(r["line"], r["status"]) for r in rows] == [("1", "ok"), ("2", "error"), ("3", "ok")],
          f"blocked path: rows {rows}")
    message = (f"Could not load distorted image: {fifo} (still blocked after 2 s, e.g. a pipe "
               "with no writer or a stalled mount: given up)")
    check(len(rows) == 3 and rows[1]["error"] == message, f"blocked path: error {rows[1:2]}")
    check(err == f"ssim2: {listfile}:2: {message}\n", f"blocked path: stderr {err!r}")
    with open(json_path) as f:
        summary = json.load(f)["summary"]
    check(summary == {"pairs": 3, "scored": 2, "decoded": 0, "failed": 1},
          f"blocked path: JSON summary {summary}")


def test_signals(exe, data, tmp):
    """Issue 23 item 5: SIGINT or SIGTERM while a pair is provably in flight
    (its file blocks): the finished row is in the CSV (flushed when it was
    finished), the JSON is closed, exit 128 + the signal."""
    for signum, name in ((signal.SIGINT, "SIGINT"), (signal.SIGTERM, "SIGTERM")):
        fifo = os.path.join(tmp, f"stop-{name}.png")
        os.mkfifo(fifo)
        listfile = pair_list(tmp, data, f"stop-{name}.csv", ["good", fifo, "good"])
        csv_path = os.path.join(tmp, f"stop-{name}-rows.csv")
        json_path = os.path.join(tmp, f"stop-{name}-rows.json")
        proc = subprocess.Popen([exe, "--pairs", listfile, "--jobs", "1", "-q", "--csv", csv_path,
                                 f"--json={json_path}"], stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE,
                                env=dict(os.environ, SSIM2_WATCHDOG_SECONDS="3600"))
        # The first row appears as soon as it is scored; the one decoder is
        # then blocked in the FIFO. (The loop only guards against a hang.)
        lines = []
        for _ in range(2400):
            with open(csv_path) if os.path.exists(csv_path) else io.StringIO() as f:
                lines = f.read().splitlines()
            if len(lines) >= 2 or proc.poll() is not None:
                break
            time.sleep(0.05)
        check(len(lines) == 2 and proc.poll() is None,
              f"{name}: the first row was not written while the second pair blocks: {lines}")
        rc, out, err = stop_with(proc, signum, name, timeout=120)
        check(rc == 128 + signum, f"{name}: exit {rc} {err!r}")
        check(out == "", f"{name}: stdout {out!r}")
        with open(csv_path) as f:
            rows = rows_of(f.read())
        check([(r["line"], r["status"], r["score"]) for r in rows] == [("1", "ok", "100.00000000")],
              f"{name}: CSV rows {rows}")
        with open(json_path) as f:
            doc = json.load(f)  # a JSON that does not parse fails here
        check([p["line"] for p in doc["pairs"]] == [1], f"{name}: JSON rows {doc['pairs']}")
        check(doc["summary"] == {"pairs": 1, "scored": 1, "decoded": 0, "failed": 0,
                                 "interrupted": True}, f"{name}: JSON summary {doc['summary']}")
        check(err.startswith(f"ssim2: interrupted by {name}: 1 rows written"),
              f"{name}: stderr {err!r}")


def test_file_size_limit(exe, data, tmp):
    """A file-size limit (ulimit -f) is a write error with its reason, not a
    death by SIGXFSZ."""
    listfile = pair_list(tmp, data, "fsize.csv", ["good"] * 6)
    csv_path = os.path.join(tmp, "fsize-rows.csv")

    def limit():
        resource.setrlimit(resource.RLIMIT_FSIZE, (300, 300))

    p = subprocess.run([exe, "--pairs", listfile, "-q", "--csv", csv_path], capture_output=True,
                       preexec_fn=limit, timeout=120)
    err = p.stderr.decode()
    check(p.returncode == 1, f"file-size limit: exit {p.returncode} {err!r}")
    check(err == f"ssim2: cannot write {csv_path}: File too large\n",
          f"file-size limit: stderr {err!r}")
    check(os.path.getsize(csv_path) == 300, f"file-size limit: {os.path.getsize(csv_path)} bytes")


def test_fail_below(exe, data, tmp):
    """--fail-below over a list: the statistic of the scored pairs decides
    (exit 3, one line after the rows); a failed pair stays exit 1."""
    ref = os.path.join(data, "images/coffee_8x8/reference.png")
    noisy = os.path.join(data, "images/coffee_8x8/noise_s5.png")
    listfile = pair_list(tmp, data, "gate.csv", ["good", noisy, "good"])
    noisy_score, _ = single(exe, ref, noisy, tmp)
    gate = str(round(float(noisy_score) + 0.01, 2))  # shortest digits, as the tool prints it
    # Scores 100, noisy, 100: the mean is above the noisy score, the minimum is it.
    rc, out, err = run_tool(exe, "-q", "--fail-below", gate, "--pairs", listfile, cwd=tmp)
    check(rc == 0 and err == "" and len(rows_of(out)) == 3, f"mean above: exit {rc}, {err!r}")
    rc, out, err = run_tool(exe, "-q", "--fail-below", f"min:{gate}", "--pairs", listfile, cwd=tmp)
    check(rc == 3 and len(rows_of(out)) == 3, f"min below: exit {rc}, expected 3 with the rows")
    check(err == f"ssim2: below the quality gate: min {noisy_score} < {gate} ({listfile})\n",
          f"min below: stderr {err!r}")
    failing = pair_list(tmp, data, "gate-bad.csv", ["good", os.path.join(tmp, "missing.png")])
    rc, _, _ = run_tool(exe, "-q", "--fail-below", "100", "--pairs", failing, cwd=tmp)
    check(rc == 1, f"a failed pair with a gate: exit {rc}, expected 1")


def main():
    if len(sys.argv) != 3:
        print(__doc__)
        return 2
    exe, data = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    if not os.path.isfile(os.path.join(data, "scores.csv")):
        print(f"FAIL: test data missing: {data}")
        return 1
    tests = (test_rows_equal_single_pair, test_bad_lines, test_stdin_json_and_files, test_shards,
             test_odd_names, test_progress, test_fatal_errors, test_blocked_path, test_signals,
             test_file_size_limit, test_fail_below)
    with tempfile.TemporaryDirectory() as tmp:
        return finish(lambda: [test(exe, data, tmp) for test in tests],
                      "all pairs-mode checks passed")


if __name__ == "__main__":
    sys.exit(main())
