"""The strong reference bot (``python -m bots.strong``, bundled as ``strong``).

It plays through the SDK like any other bot. The data flow, one file each:

- ``knowledge.py``: what it knows of the deal beyond the SDK's view (the deal's actions, when the
  opponent first used each card, what the follow rules showed he does not hold, the close snapshot);
- ``sampler.py``: worlds consistent with that knowledge (determinization): replayed through the
  engine while the stock is open, solver positions after;
- ``playout.py``: a fast rule of thumb on the engine's fast path, up to the end of the stock;
- ``solver.py``: exact alpha-beta over the tricks left once the stock is closed or exhausted,
  scored by the game points of RULES.md §7;
- ``planner.py``: the option with the best average over sampled worlds, within a time budget;
- ``bot.py``: the decisions (claims, exchanges, marriages, closing, cards) and the time budget;
- ``nseat.py``: three and four players (RULES.md §10): worlds sampled from what the seat saw and
  replayed on the engine, greedy playouts for every seat, the best average for the side;
- ``__main__.py``: the command line (``--budget-ms``, ``--seed``, ``--worlds``).

The files above ``nseat.py`` are the two-player bot; with more players ``bot.py`` hands every
decision to ``nseat.py`` and ``bots/nseat.py`` keeps what the seat saw.
"""
