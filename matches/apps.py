from django.apps import AppConfig


class MatchesConfig(AppConfig):
    name = "matches"
    verbose_name = "Matches"

    def ready(self) -> None:
        # The rules' words for people, in the language of each request (matches/rules/words.py).
        from django.utils.translation import gettext, ngettext

        from matches.rules import words

        words.use(gettext, ngettext)
