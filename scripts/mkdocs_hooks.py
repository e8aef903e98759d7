"""MkDocs hooks (mkdocs.yml): the protocol's specification joins the documentation site.

``protocol/PROTOCOL.md`` lives beside the SDK it specifies, outside ``docs/``. Rather than a copy
that could drift, or a symlink that a checkout on another system may not keep, the build reads the
file where it is and serves it as the page ``PROTOCOL.md``; ``mkdocs serve`` reloads when it changes.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mkdocs.config.defaults import MkDocsConfig
from mkdocs.exceptions import PluginError
from mkdocs.structure.files import File, Files

PAGE = "PROTOCOL.md"


def _protocol(config: MkDocsConfig) -> Path:
    # Found from mkdocs.yml, not from this file: a copy of the tree (tests/test_docs.py) builds its
    # own protocol, not the checkout's.
    return Path(config.config_file_path).resolve().parent / "protocol" / PAGE


def on_files(files: Files, config: MkDocsConfig) -> Files:
    if files.get_file_from_path(PAGE) is not None:
        # One line from mkdocs, not a traceback (PluginError); two sources would drift apart.
        raise PluginError(f"docs/{PAGE} would hide protocol/{PAGE}: the site takes the protocol from "
                          "protocol/ only, so delete the copy")
    files.append(File.generated(config, PAGE, abs_src_path=str(_protocol(config))))
    return files


def on_serve(server: Any, config: MkDocsConfig, builder: Any) -> Any:
    server.watch(str(_protocol(config)))
    return server
