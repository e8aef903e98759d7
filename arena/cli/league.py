"""``arena league DIR`` and ``arena league init|add|remove|status``: the command line of a standing
league (``arena/compete/league*.py``). Commands parse and delegate; the work lives there."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import typer
from typer.core import TyperGroup

from arena import console as term
from arena.cli.options import DEFAULT_DATA, ISOLATION_HELP, LIMIT_HELP, DataOption
from arena.types import ConfigError

console, safe = term.out, term.safe


class _RunByDefault(TyperGroup):
    """``arena league DIR`` means ``arena league run DIR``: a first word that is no subcommand
    (nor an option) is the league's folder."""

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:  # typer vendors click's Context
        if args and args[0] not in self.commands and not args[0].startswith("-"):
            args = ["run", *args]
        return super().parse_args(ctx, args)


league_app = typer.Typer(cls=_RunByDefault, no_args_is_help=True, help=(
    "A standing league: arena league DIR plays until stopped and continues where it stopped; "
    "bots join (add, or arena submit of a new version) and leave (remove) while it runs."))

FolderArg = typer.Argument(..., metavar="DIR", help="The league's folder (league.toml, results).")


@league_app.command("run")
def run(
    folder: Path = FolderArg,
    workers: Optional[int] = typer.Option(None, "--workers", "-w", min=1,
                                          help="Worker processes (default: league.toml, else "
                                               "all cores)."),
    cluster: Optional[str] = typer.Option(None, "--cluster", help="Play on the Dask cluster "
                                          "whose scheduler is at tcp://HOST:PORT (needs the dask "
                                          "extra; default: league.toml, else this machine)."),
    isolation: Optional[str] = typer.Option(None, "--isolation", help=ISOLATION_HELP),
    publish_every: Optional[float] = typer.Option(None, "--publish-every", min=0,
                                                  help="Seconds between publishes (default: "
                                                       "league.toml, else 300; 0: on stop only)."),
    pairs: Optional[int] = typer.Option(None, "--pairs", min=1, help="Stop after this many new "
                                        "duplicate pairs (default: run until stopped)."),
    data: DataOption = DEFAULT_DATA,
) -> None:
    """Start or continue the league in DIR (league.toml; a commented one is written if missing)."""
    from arena.cli.common import require_isolation
    from arena.compete.league import run_league
    from arena.compete.league_config import (
        CONFIG_NAME,
        LeagueError,
        init_league,
        load_league_config,
    )
    from arena.compete.stopping import Stopped
    from arena.isolation.levels import SandboxUnavailable
    from arena.isolation.probe import describe
    from arena.report import ReportError

    try:
        if not (folder / CONFIG_NAME).exists():
            path = init_league(folder)
            console.print(f"wrote {safe(path, limit=None)}: a commented example (bots random and "
                          "first-legal); edit it, or add bots with arena league add",
                          soft_wrap=True)
        config = load_league_config(folder)
    except ConfigError as err:
        raise term.fail(str(err)) from None
    require_isolation(isolation or config.isolation or None)
    try:
        console.print(describe(), soft_wrap=True)
    except SandboxUnavailable as err:
        raise term.fail(str(err)) from None
    overrides: dict[str, Any] = {"workers": workers, "cluster": cluster,
                                 "publish_every": publish_every}
    seen = {"stored": 0}

    def show(progress: Any) -> None:
        seen["stored"] = progress.stored
        if progress.event:
            term.data(progress.event, limit=None)

    try:
        progress = run_league(folder, overrides, data=data, max_pairs=pairs, on_progress=show)
    except (ConfigError, ReportError) as err:
        raise term.fail(str(err)) from None
    except LeagueError as err:
        raise term.fail(str(err), code=1) from None
    except Stopped as stop:
        term.err.print(f"stopped: {seen['stored']} matches stored; continue with: arena league "
                       f"{safe(folder, limit=None)}", soft_wrap=True, markup=False)
        raise typer.Exit(code=stop.exit_code) from None
    console.print(f"{progress.pairs} pairs played; {progress.stored} matches stored",
                  soft_wrap=True)


@league_app.command("init")
def init(folder: Path = FolderArg) -> None:
    """Write a commented league.toml into DIR (an existing one is kept)."""
    from arena.compete.league_config import init_league

    try:
        path = init_league(folder)
    except ConfigError as err:
        raise term.fail(str(err)) from None
    console.print(f"league settings: {safe(path, limit=None)}", soft_wrap=True)


@league_app.command("add")
def add(
    folder: Path = FolderArg,
    bot: str = typer.Argument(..., metavar="BOT", help="A registered bot (NAME; NAME@VERSION pins "
                              "one), a bundled bot, or a bot folder or command, which is "
                              "submitted (qualified) first."),
    name: Optional[str] = typer.Option(None, help="The name of a command being submitted "
                                       "(needed for a command; default for a folder: its manifest's)."),
    decision_ms: Optional[int] = typer.Option(None, min=1, help="Time per decision while "
                                              "qualifying (default: the league's)."),
    limit: Optional[list[str]] = typer.Option(None, "--limit", help=LIMIT_HELP),
    isolation: Optional[str] = typer.Option(None, "--isolation", help=ISOLATION_HELP),
    data: DataOption = DEFAULT_DATA,
) -> None:
    """Add a bot to the league (a running league takes it in before its next pair)."""
    from arena.compete.league_config import load_league_config
    from arena.compete.league_members import resolve_member, set_membership
    from arena.entrants.bot_specs import BotSpecError, bundled_names
    from arena.entrants.registry import find_registered
    from arena.isolation.limits import SandboxLimits, parse_limits
    from arena.match.bot_process import Limits

    try:
        config = load_league_config(folder)
    except ConfigError as err:
        raise term.fail(str(err)) from None
    text = bot.strip()
    # Qualification is the gate (docs/authors/submitting.md): a registered bot passed it; a folder
    # or a command goes through arena submit's steps first; bundled bots are the arena's own.
    if text.split(" ")[0] not in bundled_names() and find_registered(text, data) is None:
        if name is None and not Path(text).exists():
            raise term.fail(f"no bot named {text!r}: not bundled ({', '.join(bundled_names())}) "
                            f"and not registered under {data}; give a bot folder, or a command "
                            "with --name")
        from arena.cli.common import require_isolation
        from arena.entrants.submit import submit

        require_isolation(isolation or config.isolation or None)
        try:
            sandbox = SandboxLimits.from_mapping({**config.sandbox, **parse_limits(limit or [])})
        except ValueError as err:
            raise term.fail(str(err)) from None
        limits = Limits(decision_ms=decision_ms or config.decision_ms,
                        startup_ms=config.startup_ms, bank_ms=config.bank_ms,
                        first_decision_ms=config.first_decision_ms, sandbox=sandbox)
        console.print(f"submitting {safe(text, limit=None)}", soft_wrap=True)
        try:
            outcome = submit(text, name=name, data=data, limits=limits)
        except OSError as err:  # the data folder cannot be written (permissions, a full disk)
            raise term.fail(f"cannot submit into {data}: {term.os_error(err)}") from None
        if outcome.mistake:
            raise term.fail(outcome.reason)
        if outcome.report is not None:
            for line in outcome.report.lines():
                term.data(line)
        if not outcome.accepted:
            console.print(f"[bold red]rejected:[/] {safe(outcome.reason)}", soft_wrap=True)
            raise typer.Exit(code=1)
        console.print(f"{outcome.status}: {safe(outcome.reason)}", soft_wrap=True)
        text = outcome.name
    try:
        member = resolve_member(text, data, folder)
    except BotSpecError as err:
        raise term.fail(str(err)) from None
    _check_plays(member.family, text, config.profile, data)
    try:
        set_membership(folder, member.family, text, "in")
    except ConfigError as err:
        raise term.fail(str(err)) from None
    console.print(f"added {safe(member.name)} to the league in {safe(folder, limit=None)}",
                  soft_wrap=True)


def _check_plays(family: str, text: str, profile: str, data: Path) -> None:
    """A registered bot must declare the league's profile (its manifest's profiles)."""
    from arena.entrants.registry import Registry, RegistryError

    if not (data / "registry" / "registry.sqlite").is_file():
        return
    try:
        with Registry.open(data, create=False) as registry:
            name, _, version = text.partition("@")
            found = registry.find(name, version or None)
    except RegistryError:
        return
    if found is not None and profile not in found.profiles:
        raise term.fail(f"{family} does not play {profile} (its profiles: "
                        f"{', '.join(found.profiles)}); resubmit it declaring {profile}")


@league_app.command("remove")
def remove(
    folder: Path = FolderArg,
    bot: str = typer.Argument(..., metavar="BOT", help="The bot's name (every version leaves)."),
    data: DataOption = DEFAULT_DATA,
) -> None:
    """Take a bot out of the league; its results stay in the history."""
    from arena.compete.league_config import load_league_config
    from arena.compete.league_members import current_members, membership, set_membership

    try:
        config = load_league_config(folder)
        members, _ = current_members(folder, config, data)
        families = {m.family: m for m in members} | {m.name: m for m in members}
        added = membership(folder)
        family = families[bot].family if bot in families else bot.partition("@")[0]
        if family not in {m.family for m in members} and family not in added:
            known = ", ".join(sorted(m.family for m in members)) or "none"
            raise ConfigError(f"{bot!r} is not in the league (members: {known})")
        set_membership(folder, family, added.get(family, (bot, ""))[0], "out")
    except ConfigError as err:
        raise term.fail(str(err)) from None
    console.print(f"removed {safe(family)} from the league in {safe(folder, limit=None)}; its "
                  "results stay in the history", soft_wrap=True)


@league_app.command("publish")
def publish(folder: Path = FolderArg, data: DataOption = DEFAULT_DATA) -> None:
    """Publish the league in DIR now (its report and league page, into PUBLISH/current): for a
    league that is not running, whose last publish did not finish as it stopped. A running
    league publishes by itself (at its start, every publish_every seconds and as it stops)."""
    from arena.compete.folder_lock import FolderLock, FolderLockedError
    from arena.compete.league_config import load_league_config
    from arena.compete.league_publish import publish_league
    from arena.report import ReportError
    from arena.results.store import DB_NAME

    try:
        config = load_league_config(folder)
    except ConfigError as err:
        raise term.fail(str(err)) from None
    if not (folder / DB_NAME).is_file():
        raise term.fail(f"{folder} has not played yet (no {DB_NAME}): nothing "
                        f"to publish; start it with arena league {folder}")
    try:
        # Held while publishing: a league started meanwhile would publish the same build number.
        with FolderLock(folder, "league"):
            index = publish_league(folder, config, data)
    except FolderLockedError:
        raise term.fail(f"the league in {folder} is running: it publishes by "
                        "itself (every publish_every seconds, and as it stops)") from None
    except OSError as err:
        raise term.fail(f"cannot use the folder {folder}: "
                        f"{term.os_error(err)}") from None
    except ReportError as err:
        raise term.fail(str(err)) from None
    console.print(f"published {safe(index, limit=None)}", soft_wrap=True)


@league_app.command("status")
def status(folder: Path = FolderArg, data: DataOption = DEFAULT_DATA,
           fmt: str = typer.Option("table", "--format", "-f", help="table (for people), json or "
                                   "csv (for scripts: the same fields, docs/organisers/league.md).")) -> None:
    """The league's table now (reads only: works while the league runs)."""
    import csv
    import io
    import json

    from arena.compete.league_config import load_league_config, rules_of
    from arena.compete.league_store import read_ladder
    from arena.results.league_ladder import (
        FIELDS,
        SETTLED_MATCHES,
        SETTLED_SIGMA,
        as_records,
        ranked,
    )
    from arena.results.store import StoreError

    if fmt not in ("table", "json", "csv"):
        raise term.fail(f"unknown format {fmt!r}: use table, json or csv")
    try:
        rows, counts = read_ladder(folder, data)
    except (ConfigError, StoreError) as err:
        raise term.fail(str(err)) from None
    # Bot names are data: arena.console shows them as written (control characters escaped).
    if fmt == "json":
        term.data(json.dumps({**counts, "bots": as_records(rows)}, indent=2, ensure_ascii=False),
                  limit=None)
        return
    if fmt == "csv":
        text = io.StringIO()
        writer = csv.DictWriter(text, FIELDS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(as_records(rows))
        term.data(text.getvalue().removesuffix("\n"), limit=None)
        return
    unit = "duplicate pair" if rules_of(load_league_config(folder)).players == 2 else "group"
    term.data(f"{counts['matches']} matches in {counts['pairs']} {unit}s"
              + (f"; {counts['waiting']} {unit.split()[-1]}(s) waiting for a match" if counts["waiting"] else ""))
    term.data(f"{'#':>3}  {'bot':<24} {'version':<9} {'mu':>6} {'sigma':>6} {'mu-3s':>7} "
              f"{'matches':>7} {'W-D-L':>14} {'score % [95%]':>20}  joined")
    for rank, row in ranked(rows):
        place = "-" if rank is None else str(rank)
        mark = "?" if row.provisional else " "
        wdl = f"{row.wins}-{row.draws}-{row.losses}"
        score = "-" if row.score != row.score else \
            f"{row.score:.1f} [{row.score_low:.1f}, {row.score_high:.1f}]"
        term.data(f"{place:>3}{mark} {row.family:<24} {row.version or '-':<9} {row.mu:6.2f} "
                  f"{row.sigma:6.2f} {row.conservative:7.2f} {row.matches:7d} {wdl:>14} "
                  f"{score:>20}  {row.joined[:10]}" + ("" if row.active else "  retired"))
    if not any(r.active for r in rows):
        term.data("no bot is in the ladder now")
    elif any(r.provisional for r in rows):
        term.data(f"?: provisional, fewer than {SETTLED_MATCHES} matches or sigma above "
                  f"{SETTLED_SIGMA:g}: the rating has not settled yet")
