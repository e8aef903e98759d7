"""The competition's website (``arena serve DIR``, issue 32): authors register, upload bots and
follow them; a JSON API for their scripts.

``settings`` reads and writes ``DIR/competition.toml`` (and the league's settings made from it);
``site_store`` keeps the site's accounts, tokens, bot owners and uploads in ``DIR/site.sqlite``;
``accounts`` checks names and passwords (argon2) and makes tokens; ``archive`` unpacks an upload
under its limits; ``upload_queue`` submits the uploads one at a time through the registry's own
path (``arena submit``: built and qualified inside the sandbox); ``rate_limits`` holds back
clients that ask too often; ``handling`` is what the API and the pages both do with a request
(limits, errors, taking an upload in); ``league_view`` reads the league for them; ``api`` is the
Starlette application and its JSON API; ``pages`` its HTML pages (``templates/``, ``static/``),
``sessions`` their login cookie and CSRF tokens; ``server`` runs it under uvicorn beside the
competition's league, and stops both; ``child`` makes its league and submissions end with it,
however it ends.

May import: arena.game, arena.isolation, arena.match, arena.results, arena.entrants, arena.report,
arena.compete, arena.types, arena.arena_folders, arena.temp_folders, arena.console
"""
