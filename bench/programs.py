"""The hosted programs' sandbox: python bench/programs.py [--runs 30]

Prints, for each language a program may be handed in (docs/programs.md): its build's
time (the sandbox's included), and the time from asking for a sandbox to the built
program's first line of output (the start cost a move or a match pays: bubblewrap's
namespaces, prlimit, the language's own start), p50 and p90 over `--runs` starts; then
the bare sandbox (/bin/true) alone. Goal (issue 48): a start under 50 ms. One process
at a time: the machine may be shared.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

HELLO = {
    "python": ("main.py", "print('ready', flush=True)\n"),
    "c": ("main.c", '#include <stdio.h>\nint main(void){puts("ready");return 0;}\n'),
    "cpp": ("main.cpp", '#include <cstdio>\nint main(){std::puts("ready");}\n'),
    "java": ("Main.java", 'public class Main { public static void main(String[] a) '
                          '{ System.out.println("ready"); } }\n'),
    "javascript": ("main.js", "console.log('ready');\n"),
    "ruby": ("main.rb", "puts 'ready'\n"),
}


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def first_line(argv: list[str], folder: Path | None, limits) -> float:
    """ms from asking for the sandbox to the program's first line of output."""
    from matches.hosting import sandbox

    began = time.perf_counter()
    process = sandbox.start(argv, folder, limits)
    try:
        process.stdin.close()
        line = process.stdout.readline()
        elapsed = (time.perf_counter() - began) * 1000
        if argv != ["/bin/true"] and not line.startswith(b"ready"):
            raise SystemExit(f"{argv}: {process.stderr.read().decode()[-500:]}")
        return elapsed
    finally:
        sandbox.end(process)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    options = parser.parse_args()
    os.environ.setdefault("SPECTATOR_VAR_DIR", tempfile.mkdtemp(prefix="bench-programs-"))
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")
    import django

    django.setup()
    from matches.hosting import sandbox
    from matches.hosting.archives import unpack
    from matches.hosting.languages import BUILD_LIMITS, LANGUAGES

    why = sandbox.available()
    if why:
        raise SystemExit(f"no sandbox here: {why}")
    print(f"{'language':<12} {'build':>9} {'start p50':>10} {'start p90':>10}  (ms, "
          f"{options.runs} starts)")
    for key, (filename, text) in HELLO.items():
        language = LANGUAGES[key]
        if not language.installed():
            print(f"{key:<12} not installed")
            continue
        with sandbox.workspace() as folder:
            unpack(text.encode(), filename, folder, language.entry)
            sandbox.handed_over(folder)
            command = language.build(folder)
            began = time.perf_counter()
            if command is not None:
                built = sandbox.run(command, folder, language.limits(BUILD_LIMITS),
                                    wall_seconds=180)
                if built.returncode != 0:
                    raise SystemExit(f"{key}: {built.stderr.decode()[-500:]}")
            build = (time.perf_counter() - began) * 1000
            starts = [first_line(language.run(), folder, language.limits(sandbox.Limits()))
                      for _ in range(options.runs)]
        print(f"{key:<12} {build:>9.0f} {percentile(starts, 0.5):>10.1f} "
              f"{percentile(starts, 0.9):>10.1f}")
    bare = [first_line(["/bin/true"], None, sandbox.Limits()) for _ in range(options.runs)]
    print(f"{'(sandbox)':<12} {'':>9} {statistics.median(bare):>10.1f} "
          f"{percentile(bare, 0.9):>10.1f}  /bin/true: bubblewrap and prlimit alone")


if __name__ == "__main__":
    main()
