#!/bin/sh
# Builds the kit with cargo alone (no crate: `--offline` needs no network, as in the arena's
# sandbox) and copies the program to ./bot; target/ is removed, since every match copies the
# bot's folder. In the sandbox HOME is the bot's own writable folder, so cargo's home (CARGO_HOME,
# by default $HOME/.cargo) is writable there; elsewhere the caller's is used. The sandbox's PATH
# holds /usr/bin: Debian's cargo and rustc (1.63), which this kit is written for.
set -eu
cd "$(dirname "$0")"
cargo build --release --offline --locked
cp target/release/kit-rust bot
rm -rf target
