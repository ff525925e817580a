"""Tournaments: who meets whom and the table, as pure functions (no Django)."""
