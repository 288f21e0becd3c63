"""One Lambda cold start, run as a script in a new process by `lambda_cold.py`:

    python tests/bench/lambda_probe.py MODULE FUNCTION EVENT_FILE

imports MODULE, calls FUNCTION(event, None) once (the first request) and prints one JSON line:
the answer's status, the peak resident set and the third-party packages then imported. It
imports nothing of its own beyond the stdlib, so what it reports is the handler's; and it ends
without the interpreter's teardown, as a Lambda's first request does.
"""

import importlib
import json
import os
import sys


def peak_rss_kib() -> int:
    """VmHWM: this process's own peak (getrusage's ru_maxrss keeps the forking parent's)."""
    with open("/proc/self/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1])
    return 0


def main() -> None:
    module_name, function_name, event_file = sys.argv[1:4]
    with open(event_file, encoding="utf-8") as source:
        event = json.load(source)
    handler = getattr(importlib.import_module(module_name), function_name)
    answer = handler(event, None)
    status = answer.get("statusCode", 200) if isinstance(answer, dict) else 200
    refused = isinstance(answer, dict) and answer.get("accepted") is False
    packages = sorted(
        {name.split(".", 1)[0] for name in sys.modules} - set(sys.stdlib_module_names)
    )
    report = {
        "status": 500 if refused else status,
        "max_rss_kib": peak_rss_kib(),
        "packages": packages,
        "answer": answer if status >= 400 or refused else None,
    }
    print(json.dumps(report, default=str), flush=True)
    # A Lambda's process is frozen after its answer, never torn down on the request's path: the
    # interpreter's teardown (its last collection walks every object) is no part of a cold start.
    os._exit(0)


if __name__ == "__main__":
    main()
