"""spectator.asgi with the static files served too: for a browser test that has no nginx
in front of its daphne (a deployment serves /static/ from nginx, deploy/nginx.conf)."""

from django.contrib.staticfiles.handlers import ASGIStaticFilesHandler

from spectator.asgi import application as spectator

application = ASGIStaticFilesHandler(spectator)
