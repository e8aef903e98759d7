"""Starts a bundled Python bot: ``python -I -S bots/start.py MODULE [OPTIONS...]`` runs the
``main()`` of ``MODULE`` (or of ``MODULE.__main__``, for a package).

The arena starts its Python bots this way rather than with ``python -m MODULE`` (which works too),
because a bot starts for every match: ``-S`` skips ``site``, the site-packages folder and its
``.pth`` files (an editable install's import hook alone cost ~16 ms of a bot's ~55 ms start); and
``runpy`` costs a few more. The bundled bots need nothing but the standard library and this
installation. ``-I`` keeps the environment and the working folder out of ``sys.path``, so a bot
runs the same wherever and however it is started.

Where the sandbox allows it, the arena does not exec this file at all: its zygote
(``arena/isolation/zygote.py``), which has these modules imported already, forks a child that calls the same
``main()`` inside the bot's sandbox. This file is the exec path, and what it does the zygote does.
"""

import importlib
import os
import sys

# This installation's root (the checkout, or site-packages) goes after the standard library, so
# that nothing in it can shadow a standard module.
sys.path.append(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))
sys.dont_write_bytecode = True  # -I ignores PYTHONDONTWRITEBYTECODE: never write into it
del sys.argv[0]  # the bot sees [MODULE, OPTIONS...], as under python -m
module = importlib.import_module(sys.argv[0])
if not hasattr(module, "main"):
    module = importlib.import_module(sys.argv[0] + ".__main__")
module.main()
