"""The exit codes of every subcommand (the README's table lists them)."""

EXIT_OK = 0
#: The command found a failure (a rejected proof, a bad results line) or could not go on.
EXIT_FAILURES = 1
#: Bad usage or bad input, found before any work.
EXIT_USAGE = 2
EXIT_INTERRUPTED = 130
#: SIGTERM, handled as Ctrl-C is (128 + 15, the status a shell gives a killed process).
EXIT_TERMINATED = 143
#: The reader of stdout went away (``prove . --list | head -1``): 128 + SIGPIPE, as a
#: shell tool killed by SIGPIPE ends.
EXIT_BROKEN_PIPE = 141
