#!/usr/bin/env bash
# Vex in a host author's CI, in one step: start the host under test, run against it every
# case Vex can run over TCP, stop it, and keep what a reviewer needs.
#
# Set in the environment:
#   VEX_HOST_CMD  the command that starts your host (required); `exec` in front makes the
#                 host the process whose memory the hostile.* cases report
#   VEX_TARGET    where it listens for the lobby link (default 127.0.0.1:30974)
#   VEX_SIGNON    its SignOn URL (https://HOST:PORT), if it has one: SignOn is judged too
#   VEX_EXPECT    an expected-results file (`vex check --write-expect FILE` makes one)
#   VEX_OUT       where the artifacts go (default vex-report)
#   VEX           the vex binary (default: vex on the PATH)
# Arguments go to `vex check` as they are (`--strict`, `--filter route.`, ...).
#
# Artifacts in $VEX_OUT: report.txt (the text report), junit.xml, html/index.html (every
# frame of every case, decoded on click), transcripts/ (one file per case, replayable with
# `vex replay`), host.log (everything the host wrote).
#
# Exit status: vex check's own. 0 every case passed (or failed as VEX_EXPECT says), 1 a
# finding, 2 an error of the run itself (the host never came up, a bad argument).
set -uo pipefail

: "${VEX_HOST_CMD:?set VEX_HOST_CMD to the command that starts your host}"
vex="${VEX:-vex}"
target="${VEX_TARGET:-127.0.0.1:30974}"
out="${VEX_OUT:-vex-report}"
mkdir -p "$out"

args=(check --target "$target" --spawn "$VEX_HOST_CMD" --spawn-log "$out/host.log"
  --junit "$out/junit.xml" --html "$out/html" --transcripts "$out/transcripts" --quiet)
if [ -n "${VEX_SIGNON:-}" ]; then args+=(--signon "$VEX_SIGNON"); fi
if [ -n "${VEX_EXPECT:-}" ]; then args+=(--expect "$VEX_EXPECT"); fi

"$vex" "${args[@]}" "$@" | tee "$out/report.txt"
exit "${PIPESTATUS[0]}"
