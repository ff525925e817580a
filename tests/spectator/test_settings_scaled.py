"""The settings of the scaled set-ups (docs/deployment.md), read from the environment a
process starts with: the channel layer sharded over several Redis servers, Redis found
through Sentinels, PostgreSQL behind a PgBouncer in transaction pooling mode. (The tests
in tests/deploy/test_scaled_*.py run a match on each.)"""

import pytest
from django.core.exceptions import ImproperlyConfigured

from tests.spectator.test_settings import serve_env, settings_read

POSTGRES = "postgres://spectator:pw@bouncer.example:6432/spectator"


# What a deployment names its services by: only what a test gives (not the run's own).
SERVICES = ("DATABASE_URL", "REDIS_URL", "CHANNEL_REDIS_URLS", "REDIS_SENTINELS",
            "REDIS_SENTINEL_PASSWORD", "DATABASE_POOLER", "DATABASE_DIRECT_URL",
            "CHANNEL_LAYER")


def read(tmp_path, **env) -> dict:
    base = {key: value for key, value in serve_env(tmp_path).items() if key not in SERVICES}
    return settings_read(base | env)


def layer_hosts(read_settings: dict) -> list[dict]:
    return read_settings["CHANNEL_LAYERS"]["default"]["CONFIG"]["hosts"]


def test_one_redis_is_what_it_was(tmp_path):
    got = read(tmp_path, REDIS_URL="redis://r.example:6379/2")
    assert layer_hosts(got) == [{"address": "redis://r.example:6379/2", "socket_timeout": 15}]
    assert got["CACHES"]["default"]["LOCATION"] == "redis://r.example:6379/2"
    assert "OPTIONS" not in got["CACHES"]["default"]
    assert got["CELERY_BROKER_URL"] == "redis://r.example:6379/2"


def test_the_layer_shards_the_rest_stays_on_one(tmp_path):
    shards = "redis://a.example:6379/0, redis://b.example:6380/0"
    got = read(tmp_path, CHANNEL_REDIS_URLS=shards)
    assert [host["address"] for host in layer_hosts(got)] == [
        "redis://a.example:6379/0", "redis://b.example:6380/0"]
    # without REDIS_URL: the first shard
    assert got["REDIS_URL"] == "redis://a.example:6379/0"
    assert got["CACHES"]["default"]["LOCATION"] == "redis://a.example:6379/0"
    assert got["CELERY_BROKER_URL"] == "redis://a.example:6379/0"
    got = read(tmp_path, CHANNEL_REDIS_URLS=shards, REDIS_URL="redis://c.example:6379/1")
    assert len(layer_hosts(got)) == 2
    assert got["CACHES"]["default"]["LOCATION"] == "redis://c.example:6379/1"


def test_sentinels_find_every_user_s_master(tmp_path):
    got = read(tmp_path, REDIS_URL="redis://:secret@spectator/3",
               REDIS_SENTINELS="s1.example:26379, s2.example, [fd00::5]:26380",
               REDIS_SENTINEL_PASSWORD="sentinel-pw")
    sentinels = [("s1.example", 26379), ("s2.example", 26379), ("fd00::5", 26380)]
    asked = {"socket_timeout": 2.0, "socket_connect_timeout": 2.0, "password": "sentinel-pw"}
    assert layer_hosts(got) == [{"master_name": "spectator", "sentinels": sentinels,
                                 "sentinel_kwargs": asked, "db": 3, "password": "secret",
                                 "socket_timeout": 15}]
    assert got["CACHES"]["default"]["OPTIONS"] == {
        "pool_class": "matches.redis_sentinel.SentinelPool", "sentinels": sentinels,
        "sentinel_kwargs": asked}
    assert got["CELERY_BROKER_URL"] == (
        "sentinel://:secret@s1.example:26379/3;sentinel://:secret@s2.example:26379/3;"
        "sentinel://:secret@[fd00::5]:26380/3")
    assert got["CELERY_BROKER_TRANSPORT_OPTIONS"] == {"master_name": "spectator",
                                                      "sentinel_kwargs": asked}


def test_sharded_masters_behind_sentinels(tmp_path):
    got = read(tmp_path, CHANNEL_REDIS_URLS="redis://shard-a/0,redis://shard-b/0",
               REDIS_SENTINELS="s1.example:26379")
    assert [(host["master_name"], host["db"]) for host in layer_hosts(got)] == [
        ("shard-a", 0), ("shard-b", 0)]
    assert got["CELERY_BROKER_TRANSPORT_OPTIONS"]["master_name"] == "shard-a"


@pytest.mark.parametrize(("env", "said"), [
    ({"REDIS_URL": "redis://10.0.0.4:6379/0", "REDIS_SENTINELS": "s1:26379"},
     "names the master"),
    ({"REDIS_SENTINELS": "s1:26379"}, "set REDIS_URL"),
    ({"REDIS_URL": "redis://spectator/zero", "REDIS_SENTINELS": "s1:26379"}, "a number"),
    ({"REDIS_URL": "redis://spectator/0", "REDIS_SENTINELS": "s1:port"}, "no host:port"),
])
def test_a_sentinel_setting_that_cannot_work_is_refused_at_start(tmp_path, env, said):
    with pytest.raises(ImproperlyConfigured, match=said):
        read(tmp_path, **env)


def test_pgbouncer_in_transaction_mode(tmp_path):
    got = read(tmp_path, DATABASE_URL=POSTGRES, DATABASE_POOLER="pgbouncer",
               DATABASE_DIRECT_URL="postgres://spectator:pw@db.example:5432/spectator")
    database = got["DATABASES"]["default"]
    assert database["DISABLE_SERVER_SIDE_CURSORS"] is True
    assert database["OPTIONS"]["prepare_threshold"] is None
    assert "server_side_binding" not in database["OPTIONS"]
    assert database["OPTIONS"]["pool"]["max_size"] == got["DB_POOL_SIZE"]  # kept
    assert database["CONN_MAX_AGE"] == 0
    assert (database["HOST"], database["PORT"]) == ("bouncer.example", 6432)
    assert got["DATABASE_LISTEN"] == {"host": "db.example", "port": 5432,
                                      "user": "spectator", "password": "pw"}


def test_without_a_pooler_nothing_changes(tmp_path):
    got = read(tmp_path, DATABASE_URL=POSTGRES)
    assert not got["DATABASES"]["default"].get("DISABLE_SERVER_SIDE_CURSORS")
    assert got["DATABASE_LISTEN"] == {}


@pytest.mark.parametrize(("env", "said"), [
    ({"DATABASE_URL": POSTGRES, "DATABASE_POOLER": "pgbouncer"}, "DATABASE_DIRECT_URL"),
    ({"DATABASE_POOLER": "pgbouncer"}, "postgres://"),
    ({"DATABASE_URL": POSTGRES, "DATABASE_POOLER": "pgpool"}, "pgbouncer or unset"),
])
def test_a_pooler_setting_that_cannot_work_is_refused_at_start(tmp_path, env, said):
    with pytest.raises(ImproperlyConfigured, match=said):
        read(tmp_path, **env)
