"""The settings a deployment gets when it sets nothing: DEBUG off, a secret key of its
own kept under var/ (never one published with the code), and a clean `check --deploy`.

The settings module is read afresh in this process, in the environment `make serve`
gives it (pytest-django turns DEBUG off in the settings this process runs on, whatever
the module says); processes starting together, as the venue's do, are real processes."""

import os
import runpy
import stat
import subprocess
import sys
from unittest import mock

import pytest

from tests.conftest import ROOT

SHOW = "from django.conf import settings; print(settings.DEBUG, settings.SECRET_KEY)"


def serve_env(var_dir, **extra):
    """The environment of `make serve`: no DJANGO_* variables, var/ of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return env | {"SPECTATOR_VAR_DIR": str(var_dir), "PYTHONUNBUFFERED": "1", **extra}


def settings_read(env) -> dict:
    """The names spectator/settings.py defines when a process starts with `env` (read in
    this one: the environment is this process's again after)."""
    with mock.patch.dict(os.environ, env, clear=True):
        return runpy.run_path(str(ROOT / "spectator" / "settings.py"))


def settings_seen(env) -> tuple[str, str]:
    read = settings_read(env)
    return str(read["DEBUG"]), read["SECRET_KEY"]


def deploy_check(env) -> None:
    """`manage.py check --deploy --fail-level WARNING` on the settings read with `env`:
    every setting it gives that differs from this process's (pytest-django's DEBUG, the
    tests' hosts and hashers) in place while Django's checks run. (But the databases: the
    checks do not look at them unless asked, and this process keeps its test database.)"""
    from django.conf import settings
    from django.core.management import call_command
    from django.test import override_settings

    missing = object()
    read = {name: value for name, value in settings_read(env).items()
            if name.isupper() and name != "DATABASES"
            and getattr(settings, name, missing) != value}
    with override_settings(**read):
        call_command("check", "--deploy", "--fail-level", "WARNING", verbosity=0)


def test_debug_is_off_unless_asked_for(tmp_path):
    assert settings_seen(serve_env(tmp_path))[0] == "False"
    assert settings_seen(serve_env(tmp_path, DJANGO_DEBUG="1"))[0] == "True"


def test_a_random_key_is_made_once_with_mode_600_and_kept(tmp_path):
    _, key = settings_seen(serve_env(tmp_path))
    kept = tmp_path / "secret_key"
    assert stat.S_IMODE(kept.stat().st_mode) == 0o600 and kept.read_text().strip() == key
    assert len(key) >= 50 and "embedded" not in key
    assert settings_seen(serve_env(tmp_path))[1] == key
    assert settings_seen(serve_env(tmp_path / "other"))[1] != key
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".")] == []


def test_processes_starting_together_agree_on_one_key(tmp_path):
    """Real processes, each starting Django with `make serve`'s environment."""
    code = ["-c", f"import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = "
                  f"'spectator.settings'; django.setup(); {SHOW}"]
    started = [subprocess.Popen([sys.executable, *code], cwd=ROOT, env=serve_env(tmp_path),
                                stdout=subprocess.PIPE, text=True) for _ in range(4)]
    seen = [process.communicate(timeout=60)[0].split() for process in started]
    assert all(process.returncode == 0 for process in started)
    assert {debug for debug, _ in seen} == {"False"}
    assert {key for _, key in seen} == {(tmp_path / "secret_key").read_text().strip()}


def test_a_key_from_the_environment_wins_and_nothing_is_written(tmp_path):
    env = serve_env(tmp_path, DJANGO_SECRET_KEY="k" * 60)
    assert settings_seen(env)[1] == "k" * 60 and not (tmp_path / "secret_key").exists()


@pytest.mark.parametrize("extra", [{}, {"DJANGO_HTTPS": "1"}])
def test_check_deploy_is_clean_for_the_venue(tmp_path, extra):
    deploy_check(serve_env(tmp_path, **extra))


def test_check_deploy_fails_with_debug_on(tmp_path):
    from django.core.management.base import SystemCheckError

    with pytest.raises(SystemCheckError, match="security.W018"):
        deploy_check(serve_env(tmp_path, DJANGO_DEBUG="1"))
