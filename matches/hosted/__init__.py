"""Hosted programs at play (docs/programs.md): the workers' jobs (tasks.py) that play a
version in its sandbox (play.py), and the clock's watch for a worker that stopped
(watch.py). Above the services they call; the mechanism they use (the sandbox, the
doors, the languages) is matches/hosting/, below them."""
