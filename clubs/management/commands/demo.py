"""``manage.py demo``: load demo data (idempotent) and print the demo logins.

Creates one club with a few players. Other apps add their own demo data by defining
``load_demo(club, users, stdout)`` in ``<app>/demo.py``; it is called after the club exists.
"""

import importlib

from django.core.management.base import BaseCommand
from django.db import transaction

from clubs.models import Club, JoinPolicy, Membership, Role, User

DEMO_PASSWORD = "demo-2026"
DEMO_PLAYERS = [
    ("laowang", "老王", "zh-hans", Role.OWNER),
    ("xiaoli", "小李", "zh-hans", Role.ADMIN),
    ("ahua", "阿华", "zh-hans", Role.MEMBER),
    ("meiling", "美玲", "zh-hans", Role.MEMBER),
    ("tom", "Tom", "en", Role.MEMBER),
]


class Command(BaseCommand):
    """Load the demo club and players; safe to run any number of times."""

    help = "Load demo data (one club, a few players) and print the logins. Idempotent."

    def handle(self, *args: object, **options: object) -> None:
        """Create or refresh the demo data, then let other apps add theirs."""
        with transaction.atomic():
            club, _created = Club.objects.get_or_create(
                slug="demo",
                defaults={
                    "name": "保2示范俱乐部",
                    "city": "南平",
                    "description": "演示用的俱乐部：保2、掼蛋、红二、双扣。\nA demo club.",
                    "join_policy": JoinPolicy.REQUEST,
                },
            )
            users = []
            for username, display_name, language, role in DEMO_PLAYERS:
                user, _created = User.objects.get_or_create(
                    username=username,
                    defaults={
                        "display_name": display_name,
                        "language": language,
                        "email": f"{username}@example.com",
                    },
                )
                user.set_password(DEMO_PASSWORD)
                user.save(update_fields=["password"])
                Membership.objects.update_or_create(club=club, user=user, defaults={"role": role})
                users.append(user)
        for app_name in ("matches", "ladder", "leagues"):
            try:
                module = importlib.import_module(f"{app_name}.demo")
            except ModuleNotFoundError as error:
                if error.name != f"{app_name}.demo":
                    raise
                continue
            module.load_demo(club, users, self.stdout)
        self.stdout.write(f"Demo club: {club.name} (/clubs/{club.slug}/)")
        self.stdout.write(f"Demo logins (password for all: {DEMO_PASSWORD}):")
        for username, display_name, _language, role in DEMO_PLAYERS:
            self.stdout.write(f"  {username:10} {display_name:6} {role}")
