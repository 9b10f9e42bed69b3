"""Fixtures every test package shares (the database one: tests/databases.py)."""

pytest_plugins = ["tests.databases"]
