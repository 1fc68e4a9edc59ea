"""Verifiable checkers, one subpackage per domain (today: ``travelplanner``)."""
