"""Everything a websocket carries: messages, viewer counts, broadcast, hub, consumers."""
