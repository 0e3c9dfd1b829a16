/**
 * The verifier an exported Harbor task ships (`tests/t1lab_verify.py`, standard-library Python): the lab's
 * own verification order — the task's test script, pytest's JUnit report, the inline assertions — run
 * where Harbor runs `tests/test.sh`, writing one CTRF test per assertion to /logs/verifier/ctrf.json and
 * the rewards to /logs/verifier/reward.json: `reward` (binary: every assertion passed), `dense` (passed
 * assertions), `fraction` (passed / total), `passed` and `total`. Its input is `tests/t1lab_assertions.json`.
 */

/** Name of the runner inside tests/. */
export const VERIFY_SCRIPT = 't1lab_verify.py';
/** Name of its input inside tests/. */
export const VERIFY_SPEC = 't1lab_assertions.json';

/** What the runner reads (t1lab_assertions.json). */
export interface VerifySpec {
  format: 't1lab.harbor-verify.v1';
  /** Where the assertions run (the task's workdir). */
  workdir: string;
  /** The task's own test script, relative to tests/ (run first, as the lab does), or null. */
  testScript: string | null;
  /** tests/ path of the pytest file the runner runs itself when no report exists after the script, or null. */
  pytest: string | null;
  /** The verifier's deadline for everything together. */
  timeoutSec: number;
  assertions: { name: string; run: string; timeout_sec: number | null }[];
}

export const VERIFY_PY = `#!/usr/bin/env python3
"""Verifier of a task exported by T1 Lab (t1lab tasks export --format harbor). Standard library only.

Runs, in the lab's order: the task's own test script (if any); pytest on the task's test file when no
CTRF report exists yet; each inline assertion (bash, in the workdir; exit 0 = passed). Writes one CTRF
test per assertion to /logs/verifier/ctrf.json and the rewards to /logs/verifier/reward.json:
reward (binary: all passed), dense (passed assertions), fraction (passed / total), passed, total.
"""
import json
import os
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

LOGS = os.environ.get("T1LAB_VERIFIER_LOGS", "/logs/verifier")
HERE = os.path.dirname(os.path.abspath(__file__))
BASH = ["bash", "--noprofile", "--norc"]


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def clip(text, limit=2000):
    text = text or ""
    return text if len(text) <= limit else text[: limit // 2] + "\\n...\\n" + text[-limit // 2 :]


def run(argv, cwd, seconds):
    try:
        done = subprocess.run(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=max(0.05, seconds))
        return done.returncode, done.stdout.decode("utf-8", "replace"), False
    except subprocess.TimeoutExpired as e:
        return None, (e.stdout or b"").decode("utf-8", "replace"), True


def from_ctrf(report):
    tests = ((report or {}).get("results") or {}).get("tests")
    if not isinstance(tests, list):
        return None
    out = []
    for t in tests:
        status = t.get("status") if isinstance(t, dict) else None
        out.append({"name": str((t or {}).get("name", "(unnamed)")), "status": "passed" if status == "passed" else "failed", "message": clip(str((t or {}).get("message") or ""))})
    return out


def from_junit(path):
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError):
        return None
    cases = list(root.iter("testcase"))
    names = [c.get("name") or "(unnamed)" for c in cases]
    out = []
    for case, name in zip(cases, names):
        if names.count(name) > 1 and case.get("classname"):
            name = case.get("classname") + "::" + name
        bad = case.find("failure") if case.find("failure") is not None else case.find("error")
        if bad is not None:
            out.append({"name": name, "status": "failed", "message": clip((bad.get("message") or "") + "\\n" + (bad.text or ""))})
        elif case.find("skipped") is not None:
            out.append({"name": name, "status": "skipped", "message": ""})
        else:
            out.append({"name": name, "status": "passed", "message": ""})
    return out


def script_verdict():
    """The test script as one assertion: its reward file says 1 (or more), else its exit code."""
    data = load(os.path.join(LOGS, "reward.json"))
    if isinstance(data, dict) and isinstance(data.get("reward"), (int, float)):
        return data["reward"] >= 1
    try:
        with open(os.path.join(LOGS, "reward.txt"), encoding="utf-8") as f:
            return float(f.read().strip()) >= 1
    except (OSError, ValueError):
        return None


def main():
    spec = load(os.path.join(HERE, "${VERIFY_SPEC}"))
    if not isinstance(spec, dict):
        print("t1lab_verify: ${VERIFY_SPEC} is missing or not JSON", file=sys.stderr)
        return 2
    os.makedirs(LOGS, exist_ok=True)
    started = time.monotonic()
    left = lambda: spec["timeoutSec"] - (time.monotonic() - started)
    workdir = spec["workdir"] if os.path.isdir(spec["workdir"]) else os.getcwd()
    results = []
    script_exit = None
    if spec.get("testScript"):
        code, output, timed_out = run(BASH + [os.path.join(HERE, spec["testScript"])], workdir, left())
        script_exit = "timeout" if timed_out else code
        sys.stdout.write(output)
    reported = from_ctrf(load(os.path.join(LOGS, "ctrf.json")))
    if reported is None and spec.get("pytest"):
        code, output, timed_out = run([sys.executable, "-m", "pytest", os.path.join(HERE, spec["pytest"]), "--rootdir=" + HERE, "-p", "no:cacheprovider", "--junitxml=" + os.path.join(LOGS, "junit.xml"), "-rA"], workdir, left())
        sys.stdout.write(output)
        if timed_out or code not in (0, 1):
            results.append({"name": "(verifier)", "status": "failed", "message": clip("pytest did not run normally (%s)\\n%s" % ("timed out" if timed_out else "exit %s" % code, output))})
    if reported is None and os.path.exists(os.path.join(LOGS, "junit.xml")):
        reported = from_junit(os.path.join(LOGS, "junit.xml"))
    if reported is not None:
        results.extend(reported)
    elif script_exit is not None:
        verdict = script_verdict()
        ok = verdict if verdict is not None else script_exit == 0
        results.append({"name": "tests/test.sh", "status": "passed" if ok else "failed", "message": "" if ok else "exit %s" % script_exit})
    for a in spec.get("assertions", []):
        seconds = left() if a.get("timeout_sec") is None else min(a["timeout_sec"], left())
        code, output, timed_out = run(BASH + ["-c", a["run"]], workdir, seconds)
        ok = code == 0 and not timed_out
        results.append({"name": a["name"], "status": "passed" if ok else "failed", "message": "" if ok else clip(("timed out after %.1f s\\n" % seconds if timed_out else "exit %s\\n" % code) + output)})
    passed = sum(1 for r in results if r["status"] == "passed")
    total = len(results)
    now = int(time.time() * 1000)
    ctrf = {"results": {"tool": {"name": "t1lab-verify"}, "summary": {"tests": total, "passed": passed, "failed": total - passed, "skipped": 0, "pending": 0, "other": 0, "start": now, "stop": now},
                        "tests": [{"name": r["name"], "status": r["status"], "duration": 0, **({"message": r["message"]} if r["message"] else {})} for r in results]}}
    binary = 1 if total > 0 and passed == total else 0
    rewards = {"reward": binary, "binary": binary, "dense": passed, "fraction": (passed / total) if total else 0.0, "passed": passed, "total": total}
    with open(os.path.join(LOGS, "ctrf.json"), "w", encoding="utf-8") as f:
        json.dump(ctrf, f, indent=1)
    with open(os.path.join(LOGS, "reward.json"), "w", encoding="utf-8") as f:
        json.dump(rewards, f)
    print("t1lab_verify: %d/%d assertions passed" % (passed, total))
    return 0


if __name__ == "__main__":
    sys.exit(main())
`;
