"""Every route is born with its budget: each declares what it costs where it is defined
(`@cost(...)` on its view or API operation; a route included from elsewhere in
spectator/urls.py's INCLUDED_COSTS), and the admission gate a request passes is read
from that declaration (matches/admission.py, "what a route costs")."""

import pytest
from django.urls import URLResolver, get_resolver

from matches import admission
from matches.admission import COSTS, declared_cost, gate_of, route_cost


def routes(resolver=None, prefix=""):
    for pattern in (resolver or get_resolver()).url_patterns:
        if isinstance(pattern, URLResolver):
            yield from routes(pattern, prefix + str(pattern.pattern))
        else:
            yield prefix + str(pattern.pattern), pattern.callback


def declarations(view):
    """What a view declares for each of its methods (an API path's: each operation's)."""
    operations = admission._api_operations(view)
    if operations:
        return {method: getattr(op.view_func, "cost", None)
                for op in operations for method in op.methods}
    return {"*": declared_cost(view, "GET")}


def test_every_route_declares_what_it_costs():
    from spectator.urls import INCLUDED_COSTS

    undeclared = []
    for route, view in routes():
        if any(route.startswith(prefix) for prefix in INCLUDED_COSTS):
            continue
        for method, kind in declarations(view).items():
            if kind not in COSTS:
                undeclared.append(f"{method} {route}: {kind!r}")
    assert undeclared == []
    assert len(list(routes())) > 100  # (the walk did find the routes)


@pytest.mark.parametrize("method, path, gate", [
    ("GET", "/matches/7/board.png", "heavy"),
    ("GET", "/api/matches/7/record", "heavy"),
    ("GET", "/tournaments/3/records.zip", "heavy"),
    ("GET", "/v1/matches/stream", "streams"),
    ("GET", "/api/matches/7", "pages"),
    ("GET", "/v1/boards", "pages"),
    ("GET", "/api/practice/ladder", "pages"),
    ("GET", "/api/matches/7/analysis", "pages"),  # its view gates a visitor's
    ("HEAD", "/matches/7/replay", "heavy"),
    ("GET", "/no/such/page", "pages"),
    ("POST", "/api/matches/7/actions", None),
    ("POST", "/api/matches/7/whatif", None),  # its view gates it
])
def test_the_gate_is_the_routes_declaration(method, path, gate):
    assert gate_of(method, path) == gate


def test_a_states_rate_is_counted_by_its_declaration():
    assert route_cost("GET", "/api/matches/7") == admission.STATE
    assert route_cost("GET", "/procon31/matches/7") == admission.STATE
    assert route_cost("GET", "/api/matches/7/timeline") == admission.LARGE


def test_an_unknown_cost_cannot_be_declared():
    with pytest.raises(ValueError):
        admission.cost("cheap")
