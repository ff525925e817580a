"""A password hasher for the tests' own process: Django's PBKDF2 with few iterations.

Its hashes are ordinary `pbkdf2_sha256$1000$…` ones, so a server process the tests start
(with Django's default hashers) checks them all the same; only making and checking them
here is quick (the default's million iterations cost a second a login on a slow machine,
and the judges' tests log in hundreds of times)."""

from django.contrib.auth.hashers import PBKDF2PasswordHasher


class QuickPBKDF2(PBKDF2PasswordHasher):
    iterations = 1000
