from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        # The rules' words for people, in the language of each request (matches/rules/words.py).
        from django.utils.translation import gettext, ngettext

        from matches.rules import words

        words.use(gettext, ngettext)
        # What follows a match's end: a tournament's runner and the practice ladder listen.
        import matches.admission  # noqa: F401  (its check of the trusted networks)
        import matches.hosted.ladder  # noqa: F401  (the ladder of programs' next matches)
        import matches.hosted.watch  # noqa: F401  (a hosted run whose worker stopped)
        import matches.services.ladder  # noqa: F401  (the practice ladder moves as games end)
        import matches.services.seats  # noqa: F401  (practice's built-in players)
        import matches.tournaments.runner  # noqa: F401

        # Each protocol server registers what it makes for the services (a hosted match).
        from matches.protocol_servers import server_modules

        server_modules()
