"""The settings a deployment gets when it sets nothing: DEBUG off, a secret key of its
own kept under var/ (never one published with the code), and a clean `check --deploy`.

Each test reads the settings in a fresh process, as `make serve` does: pytest-django
turns DEBUG off in this one whatever the settings say."""

import os
import stat
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SHOW = "from django.conf import settings; print(settings.DEBUG, settings.SECRET_KEY)"


def serve_env(var_dir, **extra):
    """The environment of `make serve`: no DJANGO_* variables, var/ of its own."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("DJANGO_")}
    return env | {"SPECTATOR_VAR_DIR": str(var_dir), "PYTHONUNBUFFERED": "1", **extra}


def manage(env, *args):
    return subprocess.run([sys.executable, "manage.py", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def settings_seen(env) -> tuple[str, str]:
    done = manage(env, "shell", "--verbosity", "0", "-c", SHOW)
    assert done.returncode == 0, done.stderr
    debug, key = done.stdout.split()
    return debug, key


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
    code = ["-c", f"import django, os; os.environ['DJANGO_SETTINGS_MODULE'] = "
                  f"'spectator.settings'; django.setup(); {SHOW}"]
    started = [subprocess.Popen([sys.executable, *code], cwd=ROOT, env=serve_env(tmp_path),
                                stdout=subprocess.PIPE, text=True) for _ in range(4)]
    keys = {process.communicate(timeout=60)[0].split()[1] for process in started}
    assert keys == {(tmp_path / "secret_key").read_text().strip()}


def test_a_key_from_the_environment_wins_and_nothing_is_written(tmp_path):
    env = serve_env(tmp_path, DJANGO_SECRET_KEY="k" * 60)
    assert settings_seen(env)[1] == "k" * 60 and not (tmp_path / "secret_key").exists()


@pytest.mark.parametrize("extra", [{}, {"DJANGO_HTTPS": "1"}])
def test_check_deploy_is_clean_for_the_venue(tmp_path, extra):
    done = manage(serve_env(tmp_path, **extra), "check", "--deploy", "--fail-level", "WARNING")
    assert done.returncode == 0, done.stdout + done.stderr


def test_check_deploy_fails_with_debug_on(tmp_path):
    done = manage(serve_env(tmp_path, DJANGO_DEBUG="1"), "check", "--deploy",
                  "--fail-level", "WARNING")
    assert done.returncode != 0 and "security.W018" in done.stderr
