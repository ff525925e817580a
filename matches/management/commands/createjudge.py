"""python manage.py createjudge USERNAME [--email E]

Create a judge (or give an existing user the judge permission): they may open the
audit pages, enter a team's actions by hand when the network fails, and publish
matches. Prompts for the password of a new user (or reads $JUDGE_PASSWORD).
"""

from __future__ import annotations

import getpass
import os

from django.contrib.auth import get_user_model
from django.contrib.auth.models import Permission
from django.core.management.base import BaseCommand, CommandError


class Command(BaseCommand):
    help = "Create a judge, or grant the judge permission to an existing user."

    def add_arguments(self, parser):
        parser.add_argument("username")
        parser.add_argument("--email", default="")

    def handle(self, *args, username: str, email: str, **options):
        users = get_user_model()
        user = users.objects.filter(username=username).first()
        if user is None:
            password = os.environ.get("JUDGE_PASSWORD") or self._ask_password()
            user = users.objects.create_user(username=username, email=email, password=password)
            made = "created"
        else:
            made = "updated"
        user.user_permissions.add(
            Permission.objects.get(content_type__app_label="matches", codename="judge"))
        self.stdout.write(f"judge {username} {made}: may audit, enter actions and publish")

    def _ask_password(self) -> str:
        password = getpass.getpass("Password: ")
        if not password or password != getpass.getpass("Password (again): "):
            raise CommandError("the passwords are empty or differ", returncode=2)
        return password
