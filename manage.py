#!/usr/bin/env python
"""Django's command-line utility for the spectator project."""

import os
import sys


def main() -> None:
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "spectator.settings")
    from django.core.management import execute_from_command_line

    from spectator.streams import outlive_readers

    outlive_readers()  # a command piped to `tee` still stops on Ctrl-C (spectator/streams.py)

    execute_from_command_line(sys.argv)


if __name__ == "__main__":
    main()
