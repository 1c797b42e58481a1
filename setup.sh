#!/usr/bin/env bash
# setup.sh - the first README command: install what is missing, build, start the servers
# (naming service + ModelLoader) and run the demo: load the sample humanoid through CORBA and
# print its summary. The servers stay up afterwards; `.venv/bin/hrpsim down` stops them.
set -euo pipefail
cd "$(dirname "$0")"
tools/bootstrap.sh
HRPSIM=.venv/bin/hrpsim
$HRPSIM down > /dev/null 2>&1 || true
$HRPSIM up
$HRPSIM demo
echo
echo "servers are still running: '.venv/bin/hrpsim status' lists them, '.venv/bin/hrpsim down' stops them"
