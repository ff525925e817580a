"""HTML pages: the public ones (pages) and the judges' (judges)."""
