"""Programs handed in and played by the server (docs/programs.md)."""
