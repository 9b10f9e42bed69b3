"""Ratings: every player's skill per variant, derived from the replay log.

``model`` is the arithmetic (pure: OpenSkill's Plackett-Luce over a game's settlement);
``tables`` the rows replay writes with each game's ``game_over`` and the matchmaker reads;
``rebuild`` recomputes them all from the log (``cardroom ratings rebuild``).
"""
