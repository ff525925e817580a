"""The project's URLs and error pages, plus one view that fails: for the 500 page test."""

from django.urls import path

from spectator import urls


def broken(request):
    raise RuntimeError("a bug in a view")


urlpatterns = [path("broken/", broken), *urls.urlpatterns]
handler400, handler403 = urls.handler400, urls.handler403
handler404, handler500 = urls.handler404, urls.handler500
