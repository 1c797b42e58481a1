#!/usr/bin/env bash
# setup.sh - the first README command: install what is missing, build, start the servers
# (naming service + ModelLoader) and run the demo: load the sample humanoid through CORBA and
# print its summary; then run the sample project humanoid_squat.xml (the humanoid stands and
# squats under the Python PD controller) and write its results directory with plots. The
# servers stay up afterwards; `.venv/bin/hrpsim down` stops them.
set -euo pipefail
cd "$(dirname "$0")"
tools/bootstrap.sh
HRPSIM=.venv/bin/hrpsim
$HRPSIM down > /dev/null 2>&1 || true
$HRPSIM up
$HRPSIM demo
echo
$HRPSIM run samples/projects/humanoid_squat.xml
echo
echo "servers are still running: '.venv/bin/hrpsim status' lists them," \
  "'.venv/bin/hrpsim down' stops them"
echo "to use them from your shell (sets HRPSIM_NAMING): eval \"\$(.venv/bin/hrpsim env)\""
