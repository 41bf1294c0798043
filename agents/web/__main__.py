"""``python -m agents.web``: serve the web table (:func:`agents.web.server.main`)."""
from .server import main

main()
