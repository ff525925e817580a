"""The boards shipped with the system (data files here) and where a match's board comes from."""
