"""What the Python end-to-end tests share (tests/cli, tests/video,
tests/install): one way to record a failed check, to run a program and to end
a test script.

A script imports it after putting this folder on its path:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "helpers"))
"""
import os
import subprocess

FAILURES = []


class Failure(Exception):
    """The rest of a case depends on a check that failed (require())."""


def check(condition, what):
    """Records a failed check (printed at once) and goes on."""
    if not condition:
        FAILURES.append(what)
        print("FAIL:", what, flush=True)
    return bool(condition)


def require(condition, what):
    """A check that the rest of the case depends on: a failure ends it."""
    if not check(condition, what):
        raise Failure(what)


def fail(what):
    """Records a failure that needs no condition and ends the case."""
    require(False, what)


def run(args, cwd=None, stdin=None, env=None, timeout=300):
    """Runs a program to its end: (exit status, stdout, stderr), the outputs
    decoded without newline translation (a "\\r" stays one). `args` may mix
    str, bytes and numbers; `stdin` is text. The timeout only guards against a
    hang."""
    p = subprocess.run([a if isinstance(a, bytes) else str(a) for a in args], cwd=cwd, env=env,
                       input=None if stdin is None else stdin.encode(), capture_output=True,
                       timeout=timeout)
    return p.returncode, p.stdout.decode(errors="replace"), p.stderr.decode(errors="replace")


def run_ok(args, **kwargs):
    """run() of a step that must succeed: its stdout; a failure ends the
    case with the command and its output."""
    rc, out, err = run(args, **kwargs)
    shown = " ".join(a.decode(errors="replace") if isinstance(a, bytes) else str(a) for a in args)
    require(rc == 0, f"{shown} exited {rc}:\n{out}{err}")
    return out


def run_tool(exe, *args, **kwargs):
    """run() of the tool with `args`, logged: the command, its exit status
    and its stderr, for the test's output."""
    rc, out, err = run([exe, *args], **kwargs)
    shown = " ".join(a.decode(errors="replace") if isinstance(a, bytes) else str(a) for a in args)
    print(f"$ {os.path.basename(str(exe))} {shown}  -> exit {rc}")
    if err:
        print("  stderr: " + err.rstrip().replace("\n", "\n          "))
    return rc, out, err


def stop_with(proc, signum, what, timeout):
    """Sends `signum` to a running subprocess.Popen with piped outputs and
    waits for its end: (exit status, stdout, stderr) as text. Still running
    `timeout` seconds later: killed, and the case fails."""
    proc.send_signal(signum)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        fail(f"{what}: still running {timeout} s after the signal")
    return proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def finish(body, passed):
    """Runs body() and returns the script's exit status: 0 with the line
    `passed` when no check failed, else 1 with the count of failures."""
    try:
        body()
    except Failure as e:
        if not FAILURES or FAILURES[-1] != str(e):  # raised without require()
            check(False, str(e))
    if FAILURES:
        print(f"{len(FAILURES)} check(s) failed")
        return 1
    print(passed)
    return 0

