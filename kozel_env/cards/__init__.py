"""Kozel card games: shared deck core and one engine per game."""
