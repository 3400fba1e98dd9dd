"""Many tables over MQTT: each table publishes its log to a broker, a league adds them up.

- `mqtt`: the broker URL, the `league:` config section (auth, TLS), topics and messages.
- `publisher`: a running table's log, entry by entry, to the broker (QoS 1, resumable).
- `league`: the consumer: every table's entries in, standings in its own SQLite, the page.
- `broker`: a local `mosquitto` for the demo and the tests.
- `sim`: simulated tables (the referee-level simulator through real hubs and logs).

Networking lives here; what the standings are is `table.standings` (pure).
"""
