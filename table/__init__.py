"""The referee: cards, rules, the state machine, scoring, the event log and the app wiring.

Nothing in this package imports camera, GPIO or HTTP code at module level (DESIGN.md).
"""
