"""The VU Amsterdam ``schnapsen`` package's bots (version 0.0.5, RULES.md §13) as a bot of this arena.

``python -m bots.vu_adapter --bot rdeep --samples 64 --depth 8 --phase2 alphabeta`` speaks the
protocol like any other bot; each decision is the package's bot's own move, asked on the package's
own engine. The referee plays ``vu_compat`` (RULES.md §13), the profile written to agree with that
engine (a match to 7 is ``vu_compat`` with ``match_target=7``: every deal is then a fresh package
game, the non-dealer leading as ``play_game``'s bot1).

How a decision is made, one file each:

- ``package.py``: loads the package's engine and bots (never its ``schnapsen.bots`` package
  module, which imports scikit-learn and Flask for bots not used here), and finds the Python
  that has it (``vu_python``: its own venv, ``.venv-vu``, made from ``requirements-vu.txt``);
- ``replay.py``: the deal so far, as the bot saw it, replayed on the package's engine from a pack
  order consistent with everything the bot saw (the cards it did not see are filler, which the
  package's bots never read: ``make_assumption`` draws them afresh, and once the stock is empty
  they are the opponent's hand exactly);
- ``bot.py``: the protocol side, and the agreement checks: at every request the package's legal
  moves must be exactly the referee's list, every trick the same winner, every deal's end the
  same winner, game points and card points. A disagreement stops the bot with one line on stderr
  (the referee then records a fault), never a guess; at the end of the match it says on stderr
  how many of each it checked.

The package is GPL-3.0 and not a dependency of the arena: it is installed only into its own venv,
and nothing of it is copied here.
"""
