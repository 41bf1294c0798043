"""The web table: play, watch and replay the Kozel games in a browser (:mod:`agents.web.server`)."""
