"""The example of a submitted bot: claims when its count reaches 66, else plays its last action.

Folder layout: this file and ``bot.toml`` (the manifest). The arena copies the folder into a fresh
working folder for every match and runs ``command`` there.
"""

from protocol import Bot, run


class ExampleBot(Bot):
    name = "example"

    def decide(self, view, legal):
        if "claim" in map(str, legal) and view.my_points() >= 66:
            return next(a for a in legal if str(a) == "claim")
        return legal[-1]


if __name__ == "__main__":
    run(ExampleBot())
