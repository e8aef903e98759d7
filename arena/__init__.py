"""Sixty-Six Arena: a tournament runner and bot-competition platform for Sixty-Six and Schnapsen."""

__version__ = "0.1.0"
