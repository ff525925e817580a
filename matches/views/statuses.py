"""A match's or a tournament's status as the pages word it, in the page's language."""

from django.utils.translation import gettext_lazy

STATUS_WORDS = {"upcoming": gettext_lazy("upcoming"), "running": gettext_lazy("running"),
                "finished": gettext_lazy("finished")}
